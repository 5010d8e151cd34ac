//===- Autodiff.cpp - Reverse-mode gradients of a loss --------------------===//
//
// dlc-autodiff (Passes.td): parameters lifted to arguments, the loss and its
// gradient with respect to the model's output built directly, then the
// reverse sweep through each op's GradientOpInterface rule
// (ir/Gradients.cpp). docs/training.md describes the training step.
//
//===----------------------------------------------------------------------===//
#include "passes/Backpropagate.h"

#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "ir/OpBuild.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dlc-autodiff"

namespace mlir::dlc {
#define GEN_PASS_DEF_AUTODIFF
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

Value mlir::dlc::splatConstant(OpBuilder &b, Location loc, Type type,
                               double value) {
  auto tensor = cast<RankedTensorType>(type);
  return b.create<ConstantOp>(loc, tensor, splatElements(tensor, value));
}

FailureOr<SmallVector<Value>>
mlir::dlc::backpropagate(OpBuilder &b, ArrayRef<Operation *> forward,
                         const llvm::DenseMap<Value, Value> &seeds,
                         ArrayRef<Value> wrt) {
  llvm::DenseMap<Value, Value> grads(seeds);
  for (Operation *op : llvm::reverse(forward)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value r : op->getResults()) {
      resultGrads.push_back(grads.lookup(r));
      any |= bool(resultGrads.back());
    }
    // Constants are leaves: nothing to pass on.
    if (!any || op->getNumOperands() == 0)
      continue;
    auto rule = dyn_cast<GradientOpInterface>(op);
    if (!rule)
      return op->emitOpError() << "has no gradient rule";
    SmallVector<Value> operandGrads;
    if (failed(rule.buildGradient(b, resultGrads, operandGrads)))
      return failure();
    LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE ": " << op->getName() << "\n");
    for (auto [operand, grad] : llvm::zip(op->getOperands(), operandGrads)) {
      if (!grad)
        continue;
      Value &slot = grads[operand];
      slot = slot ? b.create<AddOp>(op->getLoc(), operand.getType(), slot, grad)
                        .getResult()
                  : grad;
    }
  }
  SmallVector<Value> out;
  for (Value v : wrt)
    out.push_back(grads.lookup(v));
  return out;
}

namespace {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// `type`'s shape with every dimension 1.
RankedTensorType onesType(RankedTensorType type) {
  return RankedTensorType::get(SmallVector<int64_t>(type.getRank(), 1),
                               type.getElementType());
}

/// The sum of all of `v`'s elements, shaped [1, ..., 1] (a scalar is its
/// own sum).
Value sumAll(OpBuilder &b, Location loc, Value v) {
  RankedTensorType t = tensorType(v);
  if (t.getRank() == 0)
    return v;
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < t.getRank(); ++d)
    axes.push_back(d);
  return b.create<ReduceOp>(loc, onesType(t), ReduceKind::sum, v, axes);
}

/// `v` times the constant `k` (a splat of v's rank).
Value scale(OpBuilder &b, Location loc, Value v, double k) {
  return broadcastBinary<MulOp>(
      b, loc, v, splatConstant(b, loc, onesType(tensorType(v)), k));
}

struct AutodiffPass : public mlir::dlc::impl::AutodiffBase<AutodiffPass> {
  using AutodiffBase::AutodiffBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (loss != "sum" && loss != "mse" && loss != "cross_entropy") {
      func.emitError() << "unknown loss '" << loss
                       << "'; expected sum, mse or cross_entropy";
      return signalPassFailure();
    }
    if (!func.getBody().hasOneBlock()) {
      func.emitError() << "dlc-autodiff differentiates single-block functions";
      return signalPassFailure();
    }
    if (failed(liftParameters(func)))
      return signalPassFailure();
    Block &block = func.getBody().front();
    SmallVector<Value> params;
    llvm::StringSet<> names;
    for (BlockArgument arg : block.getArguments()) {
      auto name =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), attr::kParam);
      if (!name)
        continue;
      if (!names.insert(name.getValue()).second) {
        func.emitError() << "has two parameters named '" << name.getValue()
                         << "'";
        return signalPassFailure();
      }
      params.push_back(arg);
    }
    if (params.empty()) {
      func.emitError() << "has no parameters to train: mark arguments or "
                          "constants with '"
                       << attr::kParam << " = \"name\"'";
      return signalPassFailure();
    }
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    if (ret.getNumOperands() == 0 ||
        !isFloatElement(ret.getOperand(0).getType())) {
      func.emitError() << "needs a float first result to build the loss on";
      return signalPassFailure();
    }
    SmallVector<Operation *> forward;
    for (Operation &op : block.without_terminator())
      forward.push_back(&op);
    // The buffers' new values (dlc.buffer_update results: batch
    // normalization's running statistics) stay results, updating their
    // arguments.
    SmallVector<std::pair<Value, unsigned>> bufferUpdates;
    for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
      auto name = func.getResultAttrOfType<StringAttr>(i, attr::kBufferUpdate);
      if (!name)
        continue;
      std::optional<unsigned> arg;
      for (BlockArgument a : block.getArguments())
        if (auto n = func.getArgAttrOfType<StringAttr>(a.getArgNumber(),
                                                       attr::kBuffer);
            n && n == name)
          arg = a.getArgNumber();
      if (!arg) {
        func.emitError() << "result #" << i << " updates '" << name.getValue()
                         << "', which is no buffer of the function";
        return signalPassFailure();
      }
      bufferUpdates.push_back({ret.getOperand(i), *arg});
    }

    OpBuilder b(ret);
    Value output = ret.getOperand(0);
    FailureOr<std::pair<Value, Value>> built = buildLoss(func, b, output);
    if (failed(built))
      return signalPassFailure();
    auto [lossValue, seed] = *built;
    if (lossScale) {
      // The scale (state after the parameters) multiplies the seed; the
      // loss itself stays unscaled.
      auto scalar = RankedTensorType::get({}, b.getF32Type());
      unsigned at = 0;
      for (Value param : params)
        at = std::max(at, cast<BlockArgument>(param).getArgNumber() + 1);
      NamedAttribute attrs[] = {
          b.getNamedAttr(attr::kState, b.getStringAttr(attr::kLossScaleState)),
          b.getNamedAttr(attr::kInitial,
                         DenseElementsAttr::get(
                             scalar, b.getFloatAttr(b.getF32Type(), 65536.0)))};
      func.insertArgument(at, scalar, b.getDictionaryAttr(attrs), ret.getLoc());
      RankedTensorType ones = onesType(tensorType(seed));
      Value factor = b.create<ReshapeOp>(
          ret.getLoc(), RankedTensorType::get(ones.getShape(), b.getF32Type()),
          func.getArgument(at));
      if (ones.getElementType() != b.getF32Type())
        factor = b.create<CastOp>(ret.getLoc(), ones, factor);
      seed = broadcastBinary<MulOp>(b, ret.getLoc(), seed, factor);
    }
    FailureOr<SmallVector<Value>> grads =
        backpropagate(b, forward, {{output, seed}}, params);
    if (failed(grads))
      return signalPassFailure();

    // The loss (rank 0), then one gradient per parameter (zeros where the
    // loss does not depend on it, as an optimizer sees PyTorch's None).
    Location loc = ret.getLoc();
    auto scalar =
        RankedTensorType::get({}, tensorType(lossValue).getElementType());
    SmallVector<Value> results{
        b.create<ReshapeOp>(loc, scalar, lossValue).getResult()};
    for (auto [param, grad] : llvm::zip(params, *grads))
      results.push_back(grad ? grad
                             : splatConstant(b, loc, param.getType(), 0.0));
    for (auto [value, arg] : bufferUpdates)
      results.push_back(value);
    b.create<func::ReturnOp>(loc, results);
    ret.erase();
    func.setFunctionType(FunctionType::get(&getContext(),
                                           func.getArgumentTypes(),
                                           ValueRange(results).getTypes()));
    SmallVector<DictionaryAttr> resultAttrs{DictionaryAttr::get(&getContext())};
    for (Value param : params)
      resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          attr::kGradientOf,
          b.getI64IntegerAttr(cast<BlockArgument>(param).getArgNumber()))));
    for (auto [value, arg] : bufferUpdates)
      resultAttrs.push_back(b.getDictionaryAttr(
          b.getNamedAttr(attr::kUpdates, b.getI64IntegerAttr(arg))));
    func.setAllResultAttrs(resultAttrs);
    // Rules build every operand's gradient; those that reach no parameter
    // (a constant's, a label's) go.
    llvm::SmallPtrSet<Operation *, 32> kept(forward.begin(), forward.end());
    SmallVector<Operation *> added;
    for (Operation &op : block.without_terminator())
      if (!kept.contains(&op))
        added.push_back(&op);
    for (Operation *op : llvm::reverse(added))
      if (op->use_empty())
        op->erase();
  }

  /// Constants marked dlc.param (or dlc.buffer) become the first
  /// arguments, their values the arguments' dlc.initial.
  LogicalResult liftParameters(func::FuncOp func) {
    SmallVector<ConstantOp> marked;
    func.walk([&](ConstantOp c) {
      if (c->hasAttr(attr::kParam) || c->hasAttr(attr::kBuffer))
        marked.push_back(c);
    });
    for (auto [i, c] : llvm::enumerate(marked)) {
      if (c->getBlock() != &func.getBody().front())
        return c.emitOpError() << "is a parameter inside a region; "
                                  "parameters live in the function's body";
      OpBuilder b(c);
      StringRef kind = c->hasAttr(attr::kParam) ? attr::kParam : attr::kBuffer;
      NamedAttribute attrs[] = {b.getNamedAttr(kind, c->getAttr(kind)),
                                b.getNamedAttr(attr::kInitial, c.getValue())};
      func.insertArgument(unsigned(i), c.getType(), b.getDictionaryAttr(attrs),
                          c.getLoc());
      c.getResult().replaceAllUsesWith(func.getArgument(unsigned(i)));
      c.erase();
    }
    return success();
  }

  /// The loss on `output` and its gradient with respect to `output`.
  FailureOr<std::pair<Value, Value>> buildLoss(func::FuncOp func, OpBuilder &b,
                                               Value output) {
    Location loc = output.getLoc();
    RankedTensorType type = tensorType(output);
    int64_t n = type.getNumElements();
    if (loss == "sum")
      return std::pair(sumAll(b, loc, output),
                       splatConstant(b, loc, type, 1.0));
    if (n == 0)
      return func.emitError() << "has an empty first result; a mean over "
                                 "no elements is not a loss";
    if (loss == "mse") {
      // mean((y - t)^2); d/dy = 2 (y - t) / n.
      Value target = appendArgument(func, type, "target", loc);
      Value d = broadcastBinary<SubOp>(b, loc, output, target);
      Value mean =
          scale(b, loc, sumAll(b, loc, broadcastBinary<MulOp>(b, loc, d, d)),
                1.0 / double(n));
      return std::pair(mean, scale(b, loc, d, 2.0 / double(n)));
    }
    // Softmax cross-entropy of logits [B, C] with class indices [B]:
    // mean over the batch of logsumexp(z) - z[label], computed from the
    // row's maximum; d/dz = (softmax(z) - onehot(label)) / B.
    if (type.getRank() != 2)
      return func.emitError() << "cross_entropy takes logits [batch, classes] "
                                 "as the first result, not "
                              << type;
    int64_t batch = type.getDimSize(0), classes = type.getDimSize(1);
    Type f = type.getElementType();
    Value labels = appendArgument(
        func, RankedTensorType::get({batch}, b.getI64Type()), "labels", loc);
    auto column = RankedTensorType::get({batch, 1}, f);
    Value max = b.create<ReduceOp>(loc, column, ReduceKind::max, output,
                                   ArrayRef<int64_t>{1});
    Value shifted = broadcastBinary<SubOp>(b, loc, output, max);
    Value e = b.create<ExpOp>(loc, shifted);
    Value total = b.create<ReduceOp>(loc, column, ReduceKind::sum, e,
                                     ArrayRef<int64_t>{1});
    Value lse =
        broadcastBinary<AddOp>(b, loc, b.create<LogOp>(loc, total), max);
    SmallVector<int64_t> iota(classes);
    for (int64_t c = 0; c < classes; ++c)
      iota[c] = c;
    auto indexRow = RankedTensorType::get({1, classes}, b.getI64Type());
    Value classIds = b.create<ConstantOp>(
        loc, indexRow, DenseElementsAttr::get(indexRow, ArrayRef(iota)));
    Value labelColumn = b.create<ReshapeOp>(
        loc, RankedTensorType::get({batch, 1}, b.getI64Type()), labels);
    Value hit = b.create<CmpOp>(
        loc, RankedTensorType::get({batch, classes}, b.getI1Type()),
        CmpPredicate::eq, classIds, labelColumn);
    Value zero = splatConstant(b, loc, onesType(type), 0.0);
    Value one = splatConstant(b, loc, onesType(type), 1.0);
    Value picked = b.create<ReduceOp>(
        loc, column, ReduceKind::sum,
        b.create<SelectOp>(loc, type, hit, output, zero), ArrayRef<int64_t>{1});
    Value mean = scale(
        b, loc, sumAll(b, loc, broadcastBinary<SubOp>(b, loc, lse, picked)),
        1.0 / double(batch));
    Value softmax = broadcastBinary<DivOp>(b, loc, e, total);
    Value onehot = b.create<SelectOp>(loc, type, hit, one, zero);
    Value seed = scale(b, loc, broadcastBinary<SubOp>(b, loc, softmax, onehot),
                       1.0 / double(batch));
    return std::pair(mean, seed);
  }

  /// A new last argument of `type`, named `name` for the package.
  Value appendArgument(func::FuncOp func, Type type, StringRef name,
                       Location loc) {
    unsigned index = func.getNumArguments();
    OpBuilder b(func);
    func.insertArgument(index, type,
                        b.getDictionaryAttr(b.getNamedAttr(
                            attr::kOnnxName, b.getStringAttr(name))),
                        loc);
    return func.getArgument(index);
  }
};

} // namespace
