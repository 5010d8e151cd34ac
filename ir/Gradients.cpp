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
#include "ir/Attributes.h"
#include "ir/Dialect.h"
#include "ir/ElementType.h"
#include "ir/OpBuild.h"

#include "mlir/IR/Builders.h"

#include <cmath>

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

/// The gradient an elementwise unary op passes on: `grad * factor`.
LogicalResult unaryGradient(OpBuilder &b, Location loc, Value grad,
                            Value factor,
                            SmallVectorImpl<Value> &operandGradients) {
  operandGradients.push_back(grad ? broadcastBinary<MulOp>(b, loc, grad, factor)
                                  : Value());
  return success();
}

/// 0, 1, ..., n - 1 along the one dimension of `type` that is not 1, in
/// its integer element type: positions to compare indices with.
Value iotaConstant(OpBuilder &b, Location loc, RankedTensorType type) {
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  SmallVector<APInt> values;
  for (int64_t k = 0; k < type.getNumElements(); ++k)
    values.push_back(APInt(width, uint64_t(k), /*isSigned=*/true));
  return b.create<ConstantOp>(loc, type, DenseElementsAttr::get(type, values));
}

/// `value` in a constant of `type` (float or integer elements).
Value splat(OpBuilder &b, Location loc, RankedTensorType type, double value) {
  return b.create<ConstantOp>(loc, type, splatElements(type, value));
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
  out.push_back(unbroadcast(b, loc, broadcastBinary<MulOp>(b, loc, g, getRhs()),
                            getLhs()));
  out.push_back(unbroadcast(b, loc, broadcastBinary<MulOp>(b, loc, g, getLhs()),
                            getRhs()));
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
  out.push_back(unbroadcast(b, loc, broadcastBinary<DivOp>(b, loc, g, getRhs()),
                            getLhs()));
  Value quotient = broadcastBinary<DivOp>(
      b, loc, broadcastBinary<MulOp>(b, loc, g, getResult()), getRhs());
  out.push_back(unbroadcast(b, loc, b.create<NegOp>(loc, quotient), getRhs()));
  return success();
}

LogicalResult NegOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  out.push_back(grads[0] ? b.create<NegOp>(getLoc(), grads[0]).getResult()
                         : Value());
  return success();
}

/// The same mask and scale applied to the gradient: the op with the same
/// offset and key regenerates the forward's mask (never stored). The
/// offset, an integer, has no gradient.
LogicalResult DropoutOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                       SmallVectorImpl<Value> &out) {
  Value g;
  if (grads[0])
    g = b.create<DropoutOp>(getLoc(), grads[0].getType(), grads[0], getOffset(),
                            getRatioAttr(), getSeedAttr(), getStreamAttr());
  out.push_back(g);
  out.push_back(Value());
  return success();
}

LogicalResult ExpOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  return unaryGradient(b, getLoc(), grads[0], getResult(), out);
}

LogicalResult LogOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  out.push_back(grads[0]
                    ? broadcastBinary<DivOp>(b, getLoc(), grads[0], getInput())
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
  Value square = broadcastBinary<MulOp>(b, loc, getResult(), getResult());
  Value factor = broadcastBinary<SubOp>(
      b, loc, unitSplat(b, loc, getResult(), 1.0), square);
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
  if (getKind() == ReduceKind::prod)
    return emitOpError() << "has no gradient rule for a product reduction yet";
  if (!grads[0] || !isFloatElement(getType())) {
    out.push_back({});
    return success();
  }
  RankedTensorType in = tensorType(getInput());
  if (getKind() != ReduceKind::sum) {
    // max and min: the elements equal to the result share its gradient
    // evenly (as PyTorch's amax/amin).
    Location loc = getLoc();
    Value x = getInput(), g = grads[0];
    Value hit = comparison(b, loc, CmpPredicate::eq, x, getResult());
    Value one = unitSplat(b, loc, x, 1.0), zero = unitSplat(b, loc, x, 0.0);
    Value ones = choose(b, loc, hit, one, zero);
    Value count =
        b.create<ReduceOp>(loc, getType(), ReduceKind::sum, ones, getAxes());
    out.push_back(
        choose(b, loc, hit, broadcastBinary<DivOp>(b, loc, g, count), zero));
    return success();
  }
  // The sum kept the reduced dimensions as 1: repeat the gradient along them.
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

//===----------------------------------------------------------------------===//
// Unary functions
//===----------------------------------------------------------------------===//

LogicalResult SigmoidOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                       SmallVectorImpl<Value> &out) {
  if (!grads[0]) {
    out.push_back({});
    return success();
  }
  // d sigmoid(x) = s (1 - s).
  Location loc = getLoc();
  Value s = getResult();
  Value factor = broadcastBinary<MulOp>(
      b, loc, s, broadcastBinary<SubOp>(b, loc, unitSplat(b, loc, s, 1.0), s));
  return unaryGradient(b, loc, grads[0], factor, out);
}

LogicalResult ErfOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  if (!grads[0]) {
    out.push_back({});
    return success();
  }
  // d erf(x) = 2 / sqrt(pi) exp(-x^2).
  Location loc = getLoc();
  Value x = getInput();
  Value square = broadcastBinary<MulOp>(b, loc, x, x);
  Value e = b.create<ExpOp>(loc, b.create<NegOp>(loc, square).getResult());
  Value factor =
      broadcastBinary<MulOp>(b, loc, e, unitSplat(b, loc, x, M_2_SQRTPI));
  return unaryGradient(b, loc, grads[0], factor, out);
}

LogicalResult RsqrtOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                     SmallVectorImpl<Value> &out) {
  if (!grads[0]) {
    out.push_back({});
    return success();
  }
  // d x^(-1/2) = -1/2 r^3.
  Location loc = getLoc();
  Value r = getResult();
  Value cube =
      broadcastBinary<MulOp>(b, loc, r, broadcastBinary<MulOp>(b, loc, r, r));
  Value factor =
      broadcastBinary<MulOp>(b, loc, cube, unitSplat(b, loc, r, -0.5));
  return unaryGradient(b, loc, grads[0], factor, out);
}

LogicalResult SqrtOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                    SmallVectorImpl<Value> &out) {
  if (!grads[0]) {
    out.push_back({});
    return success();
  }
  // d sqrt(x) = 1 / (2 sqrt(x)).
  Location loc = getLoc();
  Value half = broadcastBinary<MulOp>(b, loc, grads[0],
                                      unitSplat(b, loc, getResult(), 0.5));
  out.push_back(broadcastBinary<DivOp>(b, loc, half, getResult()));
  return success();
}

LogicalResult ReciprocalOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                          SmallVectorImpl<Value> &out) {
  if (!grads[0]) {
    out.push_back({});
    return success();
  }
  // d (1/x) = -1/x^2.
  Location loc = getLoc();
  Value r = getResult();
  Value factor = b.create<NegOp>(loc, broadcastBinary<MulOp>(b, loc, r, r));
  return unaryGradient(b, loc, grads[0], factor, out);
}

LogicalResult AbsOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  if (!grads[0] || !isFloatElement(getType())) {
    out.push_back({});
    return success();
  }
  // The sign of x, 0 at 0 (as PyTorch).
  Location loc = getLoc();
  Value x = getInput(), zero = unitSplat(b, loc, x, 0.0);
  Value sign =
      choose(b, loc, comparison(b, loc, CmpPredicate::gt, x, zero),
             unitSplat(b, loc, x, 1.0),
             choose(b, loc, comparison(b, loc, CmpPredicate::lt, x, zero),
                    unitSplat(b, loc, x, -1.0), zero));
  return unaryGradient(b, loc, grads[0], sign, out);
}

LogicalResult ClampOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                     SmallVectorImpl<Value> &out) {
  if (!grads[0] || !isFloatElement(getType())) {
    out.push_back({});
    return success();
  }
  // Passed where min <= x <= max, bounds included (as PyTorch).
  Location loc = getLoc();
  Value x = getInput(), g = grads[0], zero = unitSplat(b, loc, x, 0.0);
  Value below = comparison(b, loc, CmpPredicate::lt, x,
                           unitSplat(b, loc, x, getMin().convertToDouble()));
  Value above = comparison(b, loc, CmpPredicate::gt, x,
                           unitSplat(b, loc, x, getMax().convertToDouble()));
  out.push_back(choose(b, loc, below, zero, choose(b, loc, above, zero, g)));
  return success();
}

//===----------------------------------------------------------------------===//
// Binary functions and selection
//===----------------------------------------------------------------------===//

/// max (`pick` gt) and min (`pick` lt): the larger (smaller) operand takes
/// the gradient, ties split it in halves (as PyTorch's maximum/minimum).
static LogicalResult extremumGradient(Operation *op, CmpPredicate pick,
                                      OpBuilder &b, Value g,
                                      SmallVectorImpl<Value> &out) {
  Value x = op->getOperand(0), y = op->getOperand(1);
  if (!g || !isFloatElement(x.getType())) {
    out.append(2, Value());
    return success();
  }
  Location loc = op->getLoc();
  Value zero = unitSplat(b, loc, g, 0.0);
  Value half = broadcastBinary<MulOp>(b, loc, g, unitSplat(b, loc, g, 0.5));
  Value tie = comparison(b, loc, CmpPredicate::eq, x, y);
  for (auto [mine, other] : {std::pair(x, y), std::pair(y, x)}) {
    Value wins = comparison(b, loc, pick, mine, other);
    Value grad = choose(b, loc, wins, g, choose(b, loc, tie, half, zero));
    out.push_back(unbroadcast(b, loc, grad, mine));
  }
  return success();
}

LogicalResult MaxOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  return extremumGradient(*this, CmpPredicate::gt, b, grads[0], out);
}

LogicalResult MinOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  return extremumGradient(*this, CmpPredicate::lt, b, grads[0], out);
}

LogicalResult PowOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g) {
    out.append(2, Value());
    return success();
  }
  Location loc = getLoc();
  Value x = getLhs(), y = getRhs(), r = getResult();
  Value zero = unitSplat(b, loc, r, 0.0);
  // d x^y / dx = y x^(y-1), 0 where y = 0; d x^y / dy = x^y log x, 0 where
  // x = 0 (as PyTorch).
  Value ym1 = broadcastBinary<SubOp>(b, loc, y, unitSplat(b, loc, y, 1.0));
  Value dx =
      broadcastBinary<MulOp>(b, loc, y, broadcastBinary<PowOp>(b, loc, x, ym1));
  dx = choose(b, loc, comparison(b, loc, CmpPredicate::eq, y, zero), zero, dx);
  Value logx = b.create<LogOp>(loc, x);
  Value dy = broadcastBinary<MulOp>(b, loc, r, logx);
  dy = choose(b, loc, comparison(b, loc, CmpPredicate::eq, x, zero), zero, dy);
  out.push_back(unbroadcast(b, loc, broadcastBinary<MulOp>(b, loc, g, dx), x));
  out.push_back(unbroadcast(b, loc, broadcastBinary<MulOp>(b, loc, g, dy), y));
  return success();
}

LogicalResult SelectOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                      SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  out.push_back({}); // the condition
  if (!g || !isFloatElement(getType())) {
    out.append(2, Value());
    return success();
  }
  Location loc = getLoc();
  Value zero = unitSplat(b, loc, g, 0.0), c = getCond();
  out.push_back(unbroadcast(b, loc, choose(b, loc, c, g, zero), getOnTrue()));
  out.push_back(unbroadcast(b, loc, choose(b, loc, c, zero, g), getOnFalse()));
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

namespace {

/// `v` with zeros added: `low[d]` before and `high[d]` after dimension d
/// (a negative amount crops instead).
Value padOrCrop(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> low,
                ArrayRef<int64_t> high) {
  RankedTensorType t = tensorType(v);
  int64_t rank = t.getRank();
  SmallVector<int64_t> padLow(rank), padHigh(rank), start(rank), size(rank);
  bool pads = false, crops = false;
  for (int64_t d = 0; d < rank; ++d) {
    padLow[d] = std::max<int64_t>(low[d], 0);
    padHigh[d] = std::max<int64_t>(high[d], 0);
    start[d] = std::max<int64_t>(-low[d], 0);
    size[d] = t.getDimSize(d) - start[d] - std::max<int64_t>(-high[d], 0);
    pads |= padLow[d] || padHigh[d];
    crops |= start[d] || size[d] != t.getDimSize(d);
  }
  if (crops)
    v = b.create<SliceOp>(loc, RankedTensorType::get(size, t.getElementType()),
                          v, start, nullptr);
  if (!pads)
    return v;
  SmallVector<int64_t> shape(size);
  for (int64_t d = 0; d < rank; ++d)
    shape[d] += padLow[d] + padHigh[d];
  return b.create<PadOp>(loc, RankedTensorType::get(shape, t.getElementType()),
                         v, b.getDenseI64ArrayAttr(padLow),
                         b.getDenseI64ArrayAttr(padHigh),
                         b.getF64FloatAttr(0.0));
}

} // namespace

LogicalResult SliceOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                     SmallVectorImpl<Value> &out) {
  if (!grads[0]) {
    out.push_back({});
    return success();
  }
  // The gradient goes back to the elements read, zeros elsewhere: along a
  // strided dimension each element is followed by stride - 1 zeros (a new
  // axis padded, then merged), then the whole is placed at `start`.
  Location loc = getLoc();
  Value g = grads[0];
  RankedTensorType in = tensorType(getInput());
  int64_t rank = in.getRank();
  ArrayRef<int64_t> start = getStart();
  SmallVector<int64_t> strides(rank, 1);
  if (std::optional<ArrayRef<int64_t>> s = getStrides())
    strides.assign(s->begin(), s->end());
  Type element = in.getElementType();
  for (int64_t d = 0; d < rank; ++d) {
    if (strides[d] == 1)
      continue;
    SmallVector<int64_t> shape(tensorType(g).getShape());
    SmallVector<int64_t> split(shape);
    split.insert(split.begin() + d + 1, 1);
    Value v =
        b.create<ReshapeOp>(loc, RankedTensorType::get(split, element), g);
    SmallVector<int64_t> low(split.size(), 0), high(split.size(), 0);
    high[d + 1] = strides[d] - 1;
    v = padOrCrop(b, loc, v, low, high);
    shape[d] *= strides[d];
    g = b.create<ReshapeOp>(loc, RankedTensorType::get(shape, element), v);
  }
  SmallVector<int64_t> low(start), high(rank);
  for (int64_t d = 0; d < rank; ++d)
    high[d] = in.getDimSize(d) - start[d] - tensorType(g).getDimSize(d);
  out.push_back(padOrCrop(b, loc, g, low, high));
  return success();
}

LogicalResult ConcatOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                      SmallVectorImpl<Value> &out) {
  int64_t axis = getAxis(), offset = 0;
  for (Value input : getInputs()) {
    RankedTensorType t = tensorType(input);
    if (grads[0]) {
      SmallVector<int64_t> start(t.getRank(), 0);
      start[axis] = offset;
      out.push_back(
          b.create<SliceOp>(getLoc(), t, grads[0], start, nullptr).getResult());
    } else {
      out.push_back({});
    }
    offset += t.getDimSize(axis);
  }
  return success();
}

LogicalResult PadOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                   SmallVectorImpl<Value> &out) {
  out.push_back(grads[0] ? b.create<SliceOp>(getLoc(), getInput().getType(),
                                             grads[0], getLow(), nullptr)
                               .getResult()
                         : Value());
  return success();
}

LogicalResult TileOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                    SmallVectorImpl<Value> &out) {
  if (!grads[0]) {
    out.push_back({});
    return success();
  }
  // Each copy's gradient summed: the result viewed as [m0, a0, m1, a1, ...]
  // and reduced over the m axes.
  Location loc = getLoc();
  RankedTensorType in = tensorType(getInput());
  SmallVector<int64_t> split, axes;
  for (auto [d, m] : llvm::enumerate(getMultiples())) {
    axes.push_back(2 * d);
    split.push_back(m);
    split.push_back(in.getDimSize(d));
  }
  Type element = in.getElementType();
  Value v =
      b.create<ReshapeOp>(loc, RankedTensorType::get(split, element), grads[0]);
  SmallVector<int64_t> summed(split);
  for (int64_t axis : axes)
    summed[axis] = 1;
  v = b.create<ReduceOp>(loc, RankedTensorType::get(summed, element),
                         ReduceKind::sum, v, axes);
  out.push_back(b.create<ReshapeOp>(loc, in, v).getResult());
  return success();
}

//===----------------------------------------------------------------------===//
// Windows: convolutions and pooling
//===----------------------------------------------------------------------===//

namespace {

Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  return b.create<ReshapeOp>(
      loc, RankedTensorType::get(shape, tensorType(v).getElementType()), v);
}

/// The inverse of im2col for a pooling window: `cols` [N, C*KH*KW, OH, OW]
/// holds, for every window position k = kh*KW + kw of channel c, what goes
/// back to the input element it read; the result [N, C, H, W] sums them (a
/// transposed convolution of `C` groups with a one-hot filter per k), with
/// what falls outside the input dropped.
Value col2im(OpBuilder &b, Location loc, Value cols, int64_t c, int64_t h,
             int64_t w, ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
             ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations) {
  RankedTensorType t = tensorType(cols);
  Type element = t.getElementType();
  int64_t n = t.getDimSize(0), oh = t.getDimSize(2), ow = t.getDimSize(3);
  int64_t kk = kernel[0] * kernel[1];
  auto filterType =
      RankedTensorType::get({c * kk, 1, kernel[0], kernel[1]}, element);
  SmallVector<Attribute> ones;
  ones.reserve(size_t(c * kk * kk));
  Attribute one = b.getFloatAttr(element, 1.0),
            zero = b.getFloatAttr(element, 0.0);
  for (int64_t i = 0; i < c * kk; ++i)
    for (int64_t k = 0; k < kk; ++k)
      ones.push_back(k == i % kk ? one : zero);
  Value filter = b.create<ConstantOp>(loc, filterType,
                                      DenseElementsAttr::get(filterType, ones));
  // Transposed with the window's leading pads only: rows
  // [-top, sh*(OH-1) + dh*(KH-1) + 1 - top) of the padded input, cropped
  // or zero-extended to [0, H).
  int64_t th =
      strides[0] * (oh - 1) + dilations[0] * (kernel[0] - 1) + 1 - pads[0];
  int64_t tw =
      strides[1] * (ow - 1) + dilations[1] * (kernel[1] - 1) + 1 - pads[1];
  Value x = b.create<ConvTranspose2DOp>(
      loc, RankedTensorType::get({n, c, th, tw}, element), cols, filter,
      b.getDenseI64ArrayAttr(strides),
      b.getDenseI64ArrayAttr({pads[0], pads[1], 0, 0}),
      b.getDenseI64ArrayAttr(dilations), b.getDenseI64ArrayAttr({0, 0}),
      b.getI64IntegerAttr(c), TypeAttr());
  return padOrCrop(b, loc, x, {0, 0, 0, 0}, {0, 0, h - th, w - tw});
}

} // namespace

LogicalResult Conv2DOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                      SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g) {
    out.append(2, Value());
    return success();
  }
  if ((*this)->hasAttr(attr::kChannelsLast))
    return emitOpError() << "has no gradient rule in the channels-last layout "
                            "(differentiate before dlc-assign-layout)";
  Location loc = getLoc();
  Value x = getInput(), w = getFilter();
  ArrayRef<int64_t> xs = tensorType(x).getShape(),
                    ws = tensorType(w).getShape(),
                    ys = tensorType(g).getShape();
  ArrayRef<int64_t> s = getStrides(), p = getPads(), d = getDilations();
  int64_t groups = getGroups();
  TypeAttr acc = getAccTypeAttr();
  // dx: the transposed convolution of g by the same filter, its output
  // padding the rows (columns) the forward windows never reached.
  int64_t outputPadding[2];
  for (int i = 0; i < 2; ++i)
    outputPadding[i] =
        xs[2 + i] -
        (s[i] * (ys[2 + i] - 1) + d[i] * (ws[2 + i] - 1) + 1 - p[i] - p[i + 2]);
  Value dx = b.create<ConvTranspose2DOp>(
      loc, RankedTensorType::get(xs, tensorType(g).getElementType()), g, w,
      getStridesAttr(), getPadsAttr(), getDilationsAttr(),
      b.getDenseI64ArrayAttr(outputPadding), getGroupsAttr(), acc);
  // dw[oc, c, kh, kw] = sum over n, oh, ow of g[n, oc, oh, ow] times the
  // input element window (kh, kw) of (oh, ow) read: g [N, G, OC/G, OH*OW]
  // times im2col(x)ᵀ [N, G, OH*OW, C/G*KH*KW], summed over N.
  int64_t n = xs[0], oc = ws[0], cg = ws[1], kh = ws[2], kw = ws[3];
  int64_t positions = ys[2] * ys[3];
  Type element = tensorType(x).getElementType();
  Value cols = b.create<Im2ColOp>(
      loc, RankedTensorType::get({n, groups, cg * kh * kw, positions}, element),
      x, b.getDenseI64ArrayAttr({kh, kw}), getStridesAttr(), getPadsAttr(),
      getDilationsAttr(), getGroupsAttr());
  Value gr = reshapeTo(b, loc, g, {n, groups, oc / groups, positions});
  Value perImage = b.create<MatmulOp>(
      loc,
      RankedTensorType::get({n, groups, oc / groups, cg * kh * kw},
                            tensorType(g).getElementType()),
      gr, cols, false, true, acc);
  Value sum = b.create<ReduceOp>(
      loc,
      RankedTensorType::get({1, groups, oc / groups, cg * kh * kw},
                            tensorType(g).getElementType()),
      ReduceKind::sum, perImage, ArrayRef<int64_t>{0});
  out.push_back(dx);
  out.push_back(reshapeTo(b, loc, sum, ws));
  return success();
}

LogicalResult Pool2DOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                      SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g) {
    out.push_back({});
    return success();
  }
  Location loc = getLoc();
  Value x = getInput();
  RankedTensorType xt = tensorType(x);
  Type element = xt.getElementType();
  if (!element.isF32())
    return emitOpError() << "has no gradient rule for pooling " << element
                         << " yet";
  ArrayRef<int64_t> xs = xt.getShape(), ys = tensorType(g).getShape();
  int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3], oh = ys[2], ow = ys[3];
  ArrayRef<int64_t> k = getKernel(), s = getStrides(), p = getPads();
  SmallVector<int64_t, 2> d = getDilationValues();
  int64_t kk = k[0] * k[1];
  Value gr = reshapeTo(b, loc, g, {n, c, 1, oh * ow});
  Value cols;
  if (getKind() == PoolKind::max) {
    // The window's first maximum gets the gradient (PyTorch's index): the
    // input padded with -inf (also past the padded input, where a ceil-mode
    // window reaches), its windows as columns [N, C, KH*KW, OH*OW], the
    // argmax of each column as a one-hot mask.
    int64_t extra[2];
    for (int i = 0; i < 2; ++i)
      extra[i] =
          std::max<int64_t>(0, s[i] * ((i ? ow : oh) - 1) + d[i] * (k[i] - 1) +
                                   1 - ((i ? w : h) + p[i] + p[i + 2]));
    SmallVector<int64_t> low = {0, 0, p[0], p[1]},
                         high = {0, 0, p[2] + extra[0], p[3] + extra[1]};
    Value padded = b.create<PadOp>(
        loc,
        RankedTensorType::get(
            {n, c, h + low[2] + high[2], w + low[3] + high[3]}, element),
        x, b.getDenseI64ArrayAttr(low), b.getDenseI64ArrayAttr(high),
        b.getF64FloatAttr(-INFINITY));
    Value windows = b.create<Im2ColOp>(
        loc, RankedTensorType::get({n, 1, c * kk, oh * ow}, element), padded,
        b.getDenseI64ArrayAttr(k), getStridesAttr(),
        b.getDenseI64ArrayAttr({0, 0, 0, 0}), b.getDenseI64ArrayAttr(d),
        b.getI64IntegerAttr(1));
    windows = reshapeTo(b, loc, windows, {n, c, kk, oh * ow});
    Type index = b.getI32Type();
    Value first = b.create<ArgMaxOp>(
        loc, RankedTensorType::get({n, c, 1, oh * ow}, index), windows,
        b.getI64IntegerAttr(2));
    Value positions =
        iotaConstant(b, loc, RankedTensorType::get({1, 1, kk, 1}, index));
    Value mask = comparison(b, loc, CmpPredicate::eq, positions, first);
    cols = choose(b, loc, mask, gr, unitSplat(b, loc, gr, 0.0));
  } else {
    // Every position of a window gets g / count, count the window's
    // in-bounds positions (or, with count_include_pad, those inside the
    // padded input), known here.
    SmallVector<float> inverse(static_cast<size_t>(oh * ow), 0.0f);
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t q = 0; q < ow; ++q) {
        int64_t count = 1;
        for (int i = 0; i < 2; ++i) {
          int64_t at = i ? q : r, size = i ? w : h, inside = 0;
          int64_t lo = getCountIncludePad() ? -p[i] : 0;
          int64_t hi = getCountIncludePad() ? size + p[i + 2] : size;
          for (int64_t j = 0; j < k[i]; ++j) {
            int64_t pos = at * s[i] - p[i] + j * d[i];
            inside += pos >= lo && pos < hi;
          }
          count *= inside;
        }
        inverse[size_t(r * ow + q)] = count ? 1.0f / float(count) : 0.0f;
      }
    auto inverseType = RankedTensorType::get({1, 1, 1, oh * ow}, element);
    Value scale = b.create<ConstantOp>(
        loc, inverseType,
        DenseElementsAttr::get(inverseType, ArrayRef<float>(inverse)));
    // [N, C, 1, OH*OW] stretched over the window's KH*KW positions.
    auto spread = RankedTensorType::get({1, 1, kk, 1}, element);
    cols = broadcastBinary<AddOp>(
        b, loc, broadcastBinary<MulOp>(b, loc, gr, scale),
        b.create<ConstantOp>(
            loc, spread,
            DenseElementsAttr::get(spread, b.getFloatAttr(element, 0.0))));
  }
  cols = reshapeTo(b, loc, cols, {n, c * kk, oh, ow});
  out.push_back(col2im(b, loc, cols, c, h, w, k, s, p, d));
  return success();
}

LogicalResult GatherOp::buildGradient(OpBuilder &b, ArrayRef<Value> grads,
                                      SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  // The indices take no gradient.
  if (!g) {
    out.append(2, Value());
    return success();
  }
  if (getAxis() != 0)
    return emitOpError() << "has no gradient rule for a gather along axis "
                         << getAxis() << " yet (embeddings gather along 0)";
  // Each row of g goes back to the row its index picked, summed where an
  // index repeats: a one-hot matrix [N, V] of the N indices (a negative one
  // counts from the end, as the gather reads it) times g [N, R], with the
  // one-hot transposed in the product (an embedding's backward as a GEMM).
  Location loc = getLoc();
  RankedTensorType data = tensorType(getData());
  Type element = data.getElementType();
  int64_t v = data.getDimSize(0);
  int64_t rest = 1;
  for (int64_t d = 1; d < data.getRank(); ++d)
    rest *= data.getDimSize(d);
  Value ids = getIndices();
  RankedTensorType it = tensorType(ids);
  int64_t n = it.getNumElements();
  Type index = it.getElementType();
  ids = reshapeTo(b, loc, ids, {n, 1});
  auto scalarIndex = RankedTensorType::get({1, 1}, index);
  Value negative =
      comparison(b, loc, CmpPredicate::lt, ids, splat(b, loc, scalarIndex, 0));
  ids = choose(b, loc, negative,
               broadcastBinary<AddOp>(b, loc, ids,
                                      splat(b, loc, scalarIndex, double(v))),
               ids);
  Value rows = iotaConstant(b, loc, RankedTensorType::get({1, v}, index));
  Value hit = comparison(b, loc, CmpPredicate::eq, ids, rows);
  auto one = RankedTensorType::get({1, 1}, element);
  Value onehot =
      b.create<SelectOp>(loc, RankedTensorType::get({n, v}, element), hit,
                         splat(b, loc, one, 1.0), splat(b, loc, one, 0.0));
  Value gr = reshapeTo(b, loc, g, {n, rest});
  Value product = b.create<MatmulOp>(
      loc, RankedTensorType::get({v, rest}, tensorType(g).getElementType()),
      onehot, gr, true, false, TypeAttr());
  out.push_back(reshapeTo(b, loc, product, data.getShape()));
  out.push_back(Value());
  return success();
}
