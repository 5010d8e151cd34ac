//===- OpBuild.h - Building dlc ops with broadcasting -----------*- C++ -*-===//
//
// Small builders shared by the gradient rules (ir/Gradients.cpp) and the
// passes that write arithmetic in dlc ops (dlc-autodiff's losses,
// dlc-apply-optimizer's updates).
//
//===----------------------------------------------------------------------===//
#ifndef DLC_IR_OPBUILD_H
#define DLC_IR_OPBUILD_H

#include "ir/Dialect.h"

#include "mlir/IR/Builders.h"

namespace mlir::dlc {

/// An elementwise binary op of `x` and `y` (one rank), its result typed by
/// broadcasting them, of `x`'s element type.
template <typename OpTy>
Value broadcastBinary(OpBuilder &b, Location loc, Value x, Value y) {
  auto tx = cast<RankedTensorType>(x.getType());
  auto ty = cast<RankedTensorType>(y.getType());
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(tx.getShape(), ty.getShape());
  assert(succeeded(shape) && "operands that do not broadcast");
  return b.create<OpTy>(loc, RankedTensorType::get(*shape, tx.getElementType()),
                        x, y);
}

/// `value` in every element of `type`: a float, or an integer (truncated)
/// for an integer element type.
inline DenseElementsAttr splatElements(RankedTensorType type, double value) {
  Type element = type.getElementType();
  Builder b(type.getContext());
  Attribute scalar = isa<FloatType>(element)
                         ? Attribute(b.getFloatAttr(element, value))
                         : Attribute(b.getIntegerAttr(element, int64_t(value)));
  return DenseElementsAttr::get(type, scalar);
}

/// A splat constant holding `value`, shaped [1, ..., 1] with `like`'s rank
/// and element type: it broadcasts against `like`.
inline Value unitSplat(OpBuilder &b, Location loc, Value like, double value) {
  auto t = cast<RankedTensorType>(like.getType());
  auto type = RankedTensorType::get(SmallVector<int64_t>(t.getRank(), 1),
                                    t.getElementType());
  return b.create<ConstantOp>(
      loc, type,
      DenseElementsAttr::get(type, b.getFloatAttr(t.getElementType(), value)));
}

/// `lhs pred rhs`, a boolean tensor of the broadcast shape.
inline Value comparison(OpBuilder &b, Location loc, CmpPredicate pred,
                        Value lhs, Value rhs) {
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(cast<RankedTensorType>(lhs.getType()).getShape(),
                      cast<RankedTensorType>(rhs.getType()).getShape());
  assert(succeeded(shape) && "operands that do not broadcast");
  return b.create<CmpOp>(loc, RankedTensorType::get(*shape, b.getI1Type()),
                         pred, lhs, rhs);
}

/// `cond ? onTrue : onFalse`, of the broadcast shape of the three.
inline Value choose(OpBuilder &b, Location loc, Value cond, Value onTrue,
                    Value onFalse) {
  auto type = [](Value v) { return cast<RankedTensorType>(v.getType()); };
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(type(cond).getShape(), type(onTrue).getShape());
  assert(succeeded(shape) && "operands that do not broadcast");
  shape = broadcastShapes(*shape, type(onFalse).getShape());
  assert(succeeded(shape) && "operands that do not broadcast");
  return b.create<SelectOp>(
      loc, RankedTensorType::get(*shape, type(onTrue).getElementType()), cond,
      onTrue, onFalse);
}

} // namespace mlir::dlc

#endif // DLC_IR_OPBUILD_H
