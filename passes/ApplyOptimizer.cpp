//===- ApplyOptimizer.cpp - One optimizer step from gradients -------------===//
//
// dlc-apply-optimizer (Passes.td): SGD (momentum, Nesterov, L2 weight decay)
// and AdamW (decoupled weight decay, bias correction) as PyTorch computes
// them, and global-norm gradient clipping, written in dlc ops so that the
// update fuses into a few elementwise kernels. docs/training.md.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "passes/Backpropagate.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

#include <cmath>

namespace mlir::dlc {
#define GEN_PASS_DEF_APPLYOPTIMIZER
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// [1, ..., 1] of `rank` dimensions.
RankedTensorType onesType(int64_t rank, Type element) {
  return RankedTensorType::get(SmallVector<int64_t>(rank, 1), element);
}

template <typename OpTy>
Value binary(OpBuilder &b, Location loc, Value x, Value y) {
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(tensorType(x).getShape(), tensorType(y).getShape());
  return b.create<OpTy>(
      loc, RankedTensorType::get(*shape, tensorType(x).getElementType()), x, y);
}

/// A constant shaped to broadcast against `like`.
Value scalarLike(OpBuilder &b, Location loc, Value like, double value) {
  RankedTensorType t = tensorType(like);
  return splatConstant(b, loc, onesType(t.getRank(), t.getElementType()),
                       value);
}

/// `v` (one element) reshaped to broadcast against `like`.
Value asRankOf(OpBuilder &b, Location loc, Value v, Value like) {
  RankedTensorType t = tensorType(like);
  auto type = onesType(t.getRank(), tensorType(v).getElementType());
  if (tensorType(v) == type)
    return v;
  return b.create<ReshapeOp>(loc, type, v);
}

struct ApplyOptimizerPass
    : public mlir::dlc::impl::ApplyOptimizerBase<ApplyOptimizerPass> {
  using ApplyOptimizerBase::ApplyOptimizerBase;

  /// A new state argument (zeros) after the last parameter or state
  /// argument; its new value is returned marked dlc.updates.
  struct State {
    BlockArgument arg;
    Value next;
  };

  LogicalResult checkOptions(func::FuncOp func) {
    auto bad = [&](StringRef what) {
      return func.emitError() << "dlc-apply-optimizer: " << what;
    };
    if (optimizer != "sgd" && optimizer != "adamw")
      return bad("unknown optimizer '" + optimizer +
                 "'; expected sgd or adamw");
    if (!(std::isfinite(lr) && lr >= 0))
      return bad("the learning rate must be a finite number >= 0");
    if (!(std::isfinite(momentum) && momentum >= 0))
      return bad("momentum must be a finite number >= 0");
    if (nesterov && (optimizer != "sgd" || momentum <= 0))
      return bad("Nesterov momentum needs sgd with a momentum > 0");
    if (!(std::isfinite(weightDecay) && weightDecay >= 0))
      return bad("weight decay must be a finite number >= 0");
    if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1))
      return bad("betas must lie in [0, 1)");
    if (!(std::isfinite(eps) && eps >= 0))
      return bad("eps must be a finite number >= 0");
    if (!(std::isfinite(gradClip) && gradClip >= 0))
      return bad("the gradient clipping norm must be a finite number >= 0");
    if (optimizer == "sgd" && (beta1 != 0.9 || beta2 != 0.999 || eps != 1e-8))
      return bad("betas and eps are adamw's; sgd takes none");
    if (optimizer == "adamw" && momentum != 0)
      return bad("momentum is sgd's; adamw takes betas");
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(checkOptions(func)))
      return signalPassFailure();
    Block &block = func.getBody().front();
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    // (result index, parameter argument) of each gradient.
    SmallVector<std::pair<unsigned, BlockArgument>> gradients;
    for (unsigned i = 0; i < ret.getNumOperands(); ++i)
      if (auto of = func.getResultAttrOfType<IntegerAttr>(i, attr::kGradientOf))
        gradients.push_back({i, func.getArgument(unsigned(of.getInt()))});
    if (gradients.empty()) {
      func.emitError() << "has no gradients to apply (dlc-autodiff makes them)";
      return signalPassFailure();
    }
    // New state goes after the last parameter or state argument.
    unsigned stateAt = 0;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (!persistentName(func, i).empty())
        stateAt = i + 1;

    OpBuilder b(ret);
    Location loc = ret.getLoc();
    SmallVector<State> states;
    auto addState = [&](Type type, std::string name) -> BlockArgument {
      OpBuilder ab(func);
      auto tensor = cast<RankedTensorType>(type);
      NamedAttribute attrs[] = {
          ab.getNamedAttr(attr::kState, ab.getStringAttr(name)),
          ab.getNamedAttr(
              attr::kInitial,
              DenseElementsAttr::get(
                  tensor, ab.getFloatAttr(tensor.getElementType(), 0.0)))};
      func.insertArgument(stateAt, type, ab.getDictionaryAttr(attrs), loc);
      return func.getArgument(stateAt++);
    };

    SmallVector<Value> grads;
    for (auto [i, param] : gradients)
      grads.push_back(ret.getOperand(i));
    if (gradClip > 0)
      clip(b, loc, grads);

    // AdamW's step count: one for all parameters, as PyTorch's (each of its
    // per-parameter counts advances together).
    Value nextStep;
    if (optimizer == "adamw") {
      Type f32 = b.getF32Type();
      BlockArgument arg =
          addState(RankedTensorType::get({}, f32), "adamw.step");
      nextStep = b.create<AddOp>(
          loc, arg.getType(), arg,
          splatConstant(b, loc, RankedTensorType::get({}, f32), 1.0));
      states.push_back({arg, nextStep});
    }

    SmallVector<Value> results(ret.getOperands());
    SmallVector<DictionaryAttr> resultAttrs;
    func.getAllResultAttrs(resultAttrs);
    for (auto [k, entry] : llvm::enumerate(gradients)) {
      auto [index, param] = entry;
      Value g = grads[k];
      std::string name = persistentName(func, param.getArgNumber()).str();
      Value next;
      if (optimizer == "sgd") {
        if (weightDecay != 0)
          g = binary<AddOp>(
              b, loc, g,
              binary<MulOp>(b, loc, param,
                            scalarLike(b, loc, param, weightDecay)));
        if (momentum != 0) {
          BlockArgument buf =
              addState(param.getType(), name + ".momentum_buffer");
          Value m = scalarLike(b, loc, param, momentum);
          Value nextBuf =
              binary<AddOp>(b, loc, binary<MulOp>(b, loc, buf, m), g);
          states.push_back({buf, nextBuf});
          g = nesterov
                  ? binary<AddOp>(b, loc, g, binary<MulOp>(b, loc, nextBuf, m))
                  : nextBuf;
        }
        next = binary<SubOp>(
            b, loc, param,
            binary<MulOp>(b, loc, g, scalarLike(b, loc, param, lr)));
      } else {
        BlockArgument m = addState(param.getType(), name + ".exp_avg");
        BlockArgument v = addState(param.getType(), name + ".exp_avg_sq");
        Value p = param;
        if (weightDecay != 0)
          p = binary<MulOp>(b, loc, p,
                            scalarLike(b, loc, p, 1.0 - lr * weightDecay));
        // exp_avg.lerp_(grad, 1 - beta1)
        Value nextM =
            binary<AddOp>(b, loc, m,
                          binary<MulOp>(b, loc, binary<SubOp>(b, loc, g, m),
                                        scalarLike(b, loc, m, 1.0 - beta1)));
        // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        Value nextV = binary<AddOp>(
            b, loc, binary<MulOp>(b, loc, v, scalarLike(b, loc, v, beta2)),
            binary<MulOp>(b, loc, binary<MulOp>(b, loc, g, g),
                          scalarLike(b, loc, v, 1.0 - beta2)));
        states.push_back({m, nextM});
        states.push_back({v, nextV});
        // bias corrections from the step count: 1 - beta^t.
        Value t = asRankOf(b, loc, nextStep, p);
        auto correction = [&](double beta) {
          Value power = binary<PowOp>(b, loc, scalarLike(b, loc, p, beta), t);
          return binary<SubOp>(b, loc, scalarLike(b, loc, p, 1.0), power);
        };
        Value stepSize =
            binary<DivOp>(b, loc, scalarLike(b, loc, p, lr), correction(beta1));
        Value root2 = b.create<SqrtOp>(loc, correction(beta2));
        Value denom = binary<AddOp>(
            b, loc, binary<DivOp>(b, loc, b.create<SqrtOp>(loc, nextV), root2),
            scalarLike(b, loc, p, eps));
        next = binary<SubOp>(b, loc, p,
                             binary<MulOp>(b, loc,
                                           binary<DivOp>(b, loc, nextM, denom),
                                           stepSize));
      }
      results[index] = next;
      resultAttrs[index] = b.getDictionaryAttr(b.getNamedAttr(
          attr::kUpdates, b.getI64IntegerAttr(param.getArgNumber())));
    }
    for (const State &s : states) {
      results.push_back(s.next);
      resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          attr::kUpdates, b.getI64IntegerAttr(s.arg.getArgNumber()))));
    }
    b.create<func::ReturnOp>(loc, results);
    ret.erase();
    func.setFunctionType(FunctionType::get(&getContext(),
                                           func.getArgumentTypes(),
                                           ValueRange(results).getTypes()));
    func.setAllResultAttrs(resultAttrs);
  }

  /// Scales every gradient by min(1, gradClip / (norm + 1e-6)), norm the
  /// 2-norm of all of them (torch.nn.utils.clip_grad_norm_).
  void clip(OpBuilder &b, Location loc, SmallVectorImpl<Value> &grads) {
    auto scalar = RankedTensorType::get({1}, b.getF32Type());
    Value total;
    for (Value g : grads) {
      RankedTensorType t = tensorType(g);
      SmallVector<int64_t> axes;
      for (int64_t d = 0; d < t.getRank(); ++d)
        axes.push_back(d);
      Value square = binary<MulOp>(b, loc, g, g);
      Value sum =
          b.create<ReduceOp>(loc, onesType(t.getRank(), t.getElementType()),
                             ReduceKind::sum, square, axes);
      if (t.getElementType() != b.getF32Type())
        sum = b.create<CastOp>(loc, onesType(t.getRank(), b.getF32Type()), sum);
      sum = b.create<ReshapeOp>(loc, scalar, sum);
      total =
          total ? b.create<AddOp>(loc, scalar, total, sum).getResult() : sum;
    }
    Value norm = b.create<SqrtOp>(loc, total);
    Value coef = binary<DivOp>(
        b, loc, splatConstant(b, loc, scalar, gradClip),
        binary<AddOp>(b, loc, norm, splatConstant(b, loc, scalar, 1e-6)));
    coef = binary<MinOp>(b, loc, coef, splatConstant(b, loc, scalar, 1.0));
    for (Value &g : grads) {
      Value c = asRankOf(b, loc, coef, g);
      if (tensorType(g).getElementType() != b.getF32Type())
        c = b.create<CastOp>(
            loc,
            onesType(tensorType(g).getRank(), tensorType(g).getElementType()),
            c);
      g = binary<MulOp>(b, loc, g, c);
    }
  }
};

} // namespace
