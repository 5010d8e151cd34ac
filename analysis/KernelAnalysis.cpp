//===- KernelAnalysis.cpp - How a group of ops becomes one kernel ---------===//
//
// A group becomes a Row kernel when all of its reductions reduce the same
// trailing dimensions of one row shape S and everything computed from their
// results stays at the row's own index; each reduction then runs once per row
// cooperatively. Any other group whose outputs share one shape becomes a
// Pointwise kernel, with reductions evaluated as serial loops per element.
// A group with a matrix product is a Gemm kernel.
//
//===----------------------------------------------------------------------===//
#include "analysis/KernelAnalysis.h"
#include "ir/ElementType.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Twine.h"

#include <optional>

using namespace mlir;
using namespace mlir::dlc;

int64_t KernelPlan::numRows() const {
  int64_t n = 1;
  for (size_t i = 0; i + numInnerDims < space.size(); ++i)
    n *= space[i];
  return n;
}

int64_t KernelPlan::rowLength() const {
  int64_t n = 1;
  for (size_t i = space.size() - numInnerDims; i < space.size(); ++i)
    n *= space[i];
  return n;
}

/// The static shape of `v`, or nothing when it is not a static tensor.
static std::optional<ArrayRef<int64_t>> staticShape(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return type.getShape();
}

/// A splat constant becomes a literal in the generated code, so reading it
/// costs no memory traffic.
static bool isSplatConstant(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat();
}

namespace {
/// What a row reduction reduces: its input shape and how many trailing
/// dimensions it folds.
struct RowReduction {
  SmallVector<int64_t> inputShape;
  int64_t numInnerDims = 0;
};
} // namespace

/// Describes `op` as a reduction over trailing dimensions, or explains why it
/// is not one.
static FailureOr<RowReduction> asRowReduction(Operation *op, std::string &why) {
  RowReduction info;
  Value input = op->getOperand(0);
  auto shape = staticShape(input);
  if (!shape) {
    why = "a reduction input is not a static tensor";
    return failure();
  }
  info.inputShape.assign(shape->begin(), shape->end());
  int64_t rank = shape->size();
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    ArrayRef<int64_t> axes = reduce.getAxes();
    int64_t k = axes.size();
    llvm::SmallDenseSet<int64_t> seen(axes.begin(), axes.end());
    for (int64_t d = rank - k; d < rank; ++d) {
      if (d < 0 || !seen.contains(d)) {
        why = "a reduction does not reduce exactly the trailing dimensions";
        return failure();
      }
    }
    info.numInnerDims = k;
    return info;
  }
  auto argmax = cast<ArgMaxOp>(op);
  if ((int64_t)argmax.getAxis() != rank - 1) {
    why = "an argmax is not over the last dimension";
    return failure();
  }
  info.numInnerDims = 1;
  return info;
}

std::optional<SmallVector<int64_t>>
mlir::dlc::rowOutputPerm(Value out, ArrayRef<int64_t> rowShape,
                         int64_t numInnerDims) {
  auto transpose = out.getDefiningOp<TransposeOp>();
  if (!transpose)
    return std::nullopt;
  auto in = staticShape(transpose.getInput());
  ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t rank = rowShape.size();
  if (!in || *in != rowShape || int64_t(perm.size()) != rank)
    return std::nullopt;
  for (int64_t d = rank - numInnerDims; d < rank; ++d)
    if (perm[d] != d)
      return std::nullopt;
  return SmallVector<int64_t>(perm.begin(), perm.end());
}

/// Fills `plan` with a Row plan for the group, or fails with a reason.
static LogicalResult planRow(const llvm::SmallPtrSetImpl<Operation *> &inGroup,
                             ArrayRef<Operation *> reductions,
                             ArrayRef<Value> outputs, KernelPlan &plan,
                             std::string &why) {
  FailureOr<RowReduction> first = asRowReduction(reductions.front(), why);
  if (failed(first))
    return failure();
  SmallVector<int64_t> rowShape = first->inputShape;
  int64_t k = first->numInnerDims;
  for (Operation *r : reductions.drop_front()) {
    FailureOr<RowReduction> info = asRowReduction(r, why);
    if (failed(info))
      return failure();
    if (info->inputShape != rowShape || info->numInnerDims != k) {
      why = "reductions differ in row shape (" + formatShape(rowShape) +
            " vs " + formatShape(info->inputShape) +
            ") or in reduced dimensions";
      return failure();
    }
  }
  SmallVector<int64_t> reducedShape = rowShape;
  for (size_t d = rowShape.size() - k; d < rowShape.size(); ++d)
    reducedShape[d] = 1;
  auto isRowShape = [&](ArrayRef<int64_t> s) {
    return s == ArrayRef<int64_t>(rowShape) ||
           s == ArrayRef<int64_t>(reducedShape);
  };

  // Outputs that only move whole rows (rowOutputPerm) are written at their
  // rows' places.
  llvm::SmallPtrSet<Operation *, 4> rowMoves;
  for (Value out : outputs) {
    auto shape = staticShape(out);
    if (Operation *def = out.getDefiningOp();
        def && inGroup.contains(def) && rowOutputPerm(out, rowShape, k) &&
        llvm::none_of(def->getUsers(),
                      [&](Operation *u) { return inGroup.contains(u); })) {
      rowMoves.insert(def);
      continue;
    }
    if (!shape || !isRowShape(*shape)) {
      why = "an output of shape " + (shape ? formatShape(*shape) : "?") +
            " is neither the row shape " + formatShape(rowShape) +
            " nor the reduced shape " + formatShape(reducedShape);
      return failure();
    }
  }

  // Everything computed from a reduction's result must read it at the row's
  // own index: elementwise ops of row or reduced shape, or further row
  // reductions. A data movement op there would read another row's value.
  llvm::SmallPtrSet<Operation *, 8> reductionSet(reductions.begin(),
                                                 reductions.end());
  llvm::SmallPtrSet<Operation *, 16> visited;
  SmallVector<Operation *> worklist(reductions.begin(), reductions.end());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Operation *user : op->getUsers()) {
      if (!inGroup.contains(user) || !visited.insert(user).second)
        continue;
      if (reductionSet.contains(user) || rowMoves.contains(user))
        continue;
      bool ok =
          user->hasTrait<trait::Elementwise>() && user->getNumResults() == 1;
      if (ok) {
        auto shape = staticShape(user->getResult(0));
        ok = shape && isRowShape(*shape);
      }
      if (!ok) {
        why = "'" + user->getName().getStringRef().str() +
              "' uses a reduction result but does not keep it at the row's "
              "own index";
        return failure();
      }
      worklist.push_back(user);
    }
  }

  plan.kind = KernelTemplate::Row;
  plan.space = rowShape;
  plan.numInnerDims = k;
  plan.rowReductions.assign(reductions.begin(), reductions.end());
  return success();
}

FailureOr<KernelPlan> mlir::dlc::analyzeKernel(ArrayRef<Operation *> ops,
                                               ArrayRef<Value> outputs,
                                               std::string *whyNot) {
  auto fail = [&](const Twine &message) -> FailureOr<KernelPlan> {
    if (whyNot)
      *whyNot = message.str();
    return failure();
  };
  if (outputs.empty())
    return fail("the group has no outputs");

  llvm::SmallPtrSet<Operation *, 32> inGroup(ops.begin(), ops.end());
  KernelPlan plan;

  // Traffic: every input read once, every output written once.
  llvm::DenseSet<Value> seenInputs;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && inGroup.contains(def))
        continue;
      if (isSplatConstant(operand) || !seenInputs.insert(operand).second)
        continue;
      plan.bytesRead += valueBytes(operand);
    }
  }
  llvm::DenseSet<Value> seenOutputs;
  for (Value out : outputs)
    if (seenOutputs.insert(out).second)
      plan.bytesWritten += valueBytes(out);

  for (Operation *op : ops) {
    auto product = dyn_cast<MatmulOp>(op);
    if (!product)
      continue;
    // The dlc.kernel verifier checked what reads the product; every result
    // is computed at each element of the product.
    ArrayRef<int64_t> space =
        cast<RankedTensorType>(product.getType()).getShape();
    for (Value out : outputs) {
      auto shape = staticShape(out);
      if (!shape || *shape != space)
        return fail("an output of shape " +
                    (shape ? formatShape(*shape) : std::string("?")) +
                    " is not the shape of the kernel's product, " +
                    formatShape(space));
    }
    plan.kind = KernelTemplate::Gemm;
    plan.product = product;
    plan.space.assign(space.begin(), space.end());
    return plan;
  }

  SmallVector<Operation *> reductions;
  for (Operation *op : ops)
    if (isa<ReduceOp, ArgMaxOp>(op))
      reductions.push_back(op);

  std::string rowWhy;
  if (!reductions.empty()) {
    KernelPlan rowPlan = plan;
    if (succeeded(planRow(inGroup, reductions, outputs, rowPlan, rowWhy)))
      return rowPlan;
  }

  auto space = staticShape(outputs.front());
  if (!space)
    return fail("an output is not a static tensor");
  for (Value out : outputs.drop_front()) {
    auto shape = staticShape(out);
    if (!shape || *shape != *space) {
      std::string message = "outputs have different shapes (" +
                            formatShape(*space) + " and " +
                            (shape ? formatShape(*shape) : "?") + ")";
      if (!rowWhy.empty())
        message += " and no row plan fits: " + rowWhy;
      return fail(message);
    }
  }
  plan.kind = KernelTemplate::Pointwise;
  plan.space.assign(space->begin(), space->end());
  plan.numInnerDims = 0;
  return plan;
}

FailureOr<KernelPlan> mlir::dlc::analyzeKernel(KernelOp kernel,
                                               std::string *whyNot) {
  Block &body = kernel.getBodyBlock();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  SmallVector<Value> outputs;
  if (!body.mightHaveTerminator())
    return analyzeKernel(ops, outputs, whyNot);
  if (auto yield = dyn_cast<YieldOp>(body.getTerminator()))
    outputs.assign(yield.getValues().begin(), yield.getValues().end());
  return analyzeKernel(ops, outputs, whyNot);
}
