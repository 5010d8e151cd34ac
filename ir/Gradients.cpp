//===- Gradients.cpp - Reverse-mode rules of dlc ops ----------------------===//
//
// Each differentiable op's GradientOpInterface::buildGradient (declared by
// Dlc_Differentiable in DlcOps.td): given the gradient of the loss with
// respect to the op's result, build the gradient with respect to each
// operand, as dlc ops placed after the op. A broadcast operand's gradient is
// summed over the dimensions it was stretched along (dlc.reduce keeps them,
// so the sum has the operand's shape).
//
//===----------------------------------------------------------------------===//
#include "ir/Dialect.h"
#include "ir/ElementType.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::dlc;

namespace {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// `grad`, of the broadcast result's shape, summed over the dimensions where
/// `operand` has size 1 and the result does not.
Value unbroadcast(OpBuilder &b, Location loc, Value grad, Value operand) {
  RankedTensorType g = tensorType(grad), o = tensorType(operand);
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < o.getRank(); ++d)
    if (o.getDimSize(d) == 1 && g.getDimSize(d) != 1)
      axes.push_back(d);
  if (axes.empty())
    return grad;
  return b.create<ReduceOp>(
      loc, RankedTensorType::get(o.getShape(), g.getElementType()),
      ReduceKind::sum, grad, axes);
}

/// An elementwise binary op on operands of one rank, typed by broadcasting.
template <typename OpTy>
Value binary(OpBuilder &b, Location loc, Value x, Value y) {
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(tensorType(x).getShape(), tensorType(y).getShape());
  return b.create<OpTy>(
      loc, RankedTensorType::get(*shape, tensorType(x).getElementType()), x, y);
}

/// A splat constant of `like`'s element type with shape [1, ..., 1].
Value splat(OpBuilder &b, Location loc, Value like, double value) {
  RankedTensorType t = tensorType(like);
  auto type = RankedTensorType::get(SmallVector<int64_t>(t.getRank(), 1),
                                    t.getElementType());
  return b.create<ConstantOp>(
      loc, type,
      DenseElementsAttr::get(type, b.getFloatAttr(t.getElementType(), value)));
}

/// The gradient an elementwise unary op passes on: `grad * factor`.
LogicalResult unaryGradient(OpBuilder &b, Location loc, Value grad,
                            Value factor,
                            SmallVectorImpl<Value> &operandGradients) {
  operandGradients.push_back(grad ? binary<MulOp>(b, loc, grad, factor)
                                  : Value());
  return success();
}

} // namespace

LogicalResult AddOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  out.push_back(grads[0] ? unbroadcast(b, loc, grads[0], getLhs()) : Value());
  out.push_back(grads[0] ? unbroadcast(b, loc, grads[0], getRhs()) : Value());
  return success();
}

LogicalResult SubOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value g = grads[0];
  out.push_back(g ? unbroadcast(b, loc, g, getLhs()) : Value());
  out.push_back(g ? unbroadcast(b, loc, b.create<NegOp>(loc, g), getRhs())
                  : Value());
  return success();
}

LogicalResult MulOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value g = grads[0];
  if (!g) {
    out.append(2, Value());
    return success();
  }
  out.push_back(
      unbroadcast(b, loc, binary<MulOp>(b, loc, g, getRhs()), getLhs()));
  out.push_back(
      unbroadcast(b, loc, binary<MulOp>(b, loc, g, getLhs()), getRhs()));
  return success();
}

LogicalResult DivOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value g = grads[0];
  // Integer quotients are not differentiable (a cast to float passes them
  // no gradient in the first place).
  if (!g || !isFloatElement(getType())) {
    out.append(2, Value());
    return success();
  }
  // d(x / y) = g / y and -g * (x / y) / y.
  out.push_back(
      unbroadcast(b, loc, binary<DivOp>(b, loc, g, getRhs()), getLhs()));
  Value quotient =
      binary<DivOp>(b, loc, binary<MulOp>(b, loc, g, getResult()), getRhs());
  out.push_back(unbroadcast(b, loc, b.create<NegOp>(loc, quotient), getRhs()));
  return success();
}

LogicalResult NegOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  out.push_back(grads[0] ? b.create<NegOp>(getLoc(), grads[0]).getResult()
                         : Value());
  return success();
}

LogicalResult ExpOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  return unaryGradient(b, getLoc(), grads[0], getResult(), out);
}

LogicalResult LogOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  out.push_back(grads[0] ? binary<DivOp>(b, getLoc(), grads[0], getInput())
                         : Value());
  return success();
}

LogicalResult TanhOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                    SmallVectorImpl<Value> &out) {
  if (!grads[0]) {
    out.push_back({});
    return success();
  }
  // d tanh(x) = 1 - tanh(x)^2.
  Location loc = getLoc();
  Value square = binary<MulOp>(b, loc, getResult(), getResult());
  Value factor = binary<SubOp>(b, loc, splat(b, loc, getResult(), 1.0), square);
  return unaryGradient(b, loc, grads[0], factor, out);
}

LogicalResult CastOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                    SmallVectorImpl<Value> &out) {
  if (!grads[0] || !isFloatElement(getInput().getType()) ||
      !isFloatElement(getType())) {
    out.push_back({});
    return success();
  }
  out.push_back(
      b.create<CastOp>(getLoc(), getInput().getType(), grads[0]).getResult());
  return success();
}

LogicalResult ReduceOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                      SmallVectorImpl<Value> &out) {
  if (getKind() != ReduceKind::sum)
    return emitOpError() << "has no gradient rule for a "
                         << stringifyReduceKind(getKind()) << " reduction yet";
  if (!grads[0]) {
    out.push_back({});
    return success();
  }
  // The sum kept the reduced dimensions as 1: repeat the gradient along them.
  RankedTensorType in = tensorType(getInput());
  SmallVector<int64_t> multiples(in.getRank(), 1);
  for (int64_t axis : getAxes())
    multiples[axis] = in.getDimSize(axis);
  out.push_back(b.create<TileOp>(getLoc(), in, grads[0], multiples));
  return success();
}

LogicalResult ReshapeOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                       SmallVectorImpl<Value> &out) {
  out.push_back(
      grads[0] ? b.create<ReshapeOp>(getLoc(), getInput().getType(), grads[0])
                     .getResult()
               : Value());
  return success();
}

LogicalResult TransposeOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                         SmallVectorImpl<Value> &out) {
  if (!grads[0]) {
    out.push_back({});
    return success();
  }
  ArrayRef<int64_t> perm = getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  out.push_back(
      b.create<TransposeOp>(getLoc(), getInput().getType(), grads[0], inverse));
  return success();
}

/// The result type of a product of `lhs` and `rhs` as read with the given
/// transposes (batch dimensions broadcast).
static RankedTensorType productType(Value lhs, Value rhs, bool ta, bool tb) {
  RankedTensorType a = tensorType(lhs), b = tensorType(rhs);
  int64_t r = a.getRank();
  SmallVector<int64_t> shape =
      *broadcastShapes(a.getShape().drop_back(2), b.getShape().drop_back(2));
  shape.push_back(ta ? a.getDimSize(r - 1) : a.getDimSize(r - 2));
  shape.push_back(tb ? b.getDimSize(r - 2) : b.getDimSize(r - 1));
  return RankedTensorType::get(shape, a.getElementType());
}

LogicalResult MatmulOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                      SmallVectorImpl<Value> &out) {
  if (hasEpilogue())
    return emitOpError() << "has no gradient rule for a product with an "
                            "epilogue yet (differentiate before fusion)";
  Value g = grads[0];
  if (!g) {
    out.append(2, Value());
    return success();
  }
  Location loc = getLoc();
  Value a = getLhs(), bv = getRhs();
  bool ta = getTransposeA(), tb = getTransposeB();
  TypeAttr acc = getAccTypeAttr();
  auto product = [&](Value x, Value y, bool tx, bool ty) -> Value {
    return b.create<MatmulOp>(loc, productType(x, y, tx, ty), x, y, tx, ty,
                              acc);
  };
  // C = op(A) op(B): d op(A) = G op(B)^T and d op(B) = op(A)^T G, written
  // with the operands as stored.
  Value da = ta ? product(bv, g, tb, true) : product(g, bv, false, !tb);
  Value db = tb ? product(g, a, true, ta) : product(a, g, !ta, false);
  out.push_back(unbroadcast(b, loc, da, a));
  out.push_back(unbroadcast(b, loc, db, bv));
  return success();
}
