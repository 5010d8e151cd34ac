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
