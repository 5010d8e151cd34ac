//===- Elementwise.cpp - ONNX elementwise ops and activations -------------===//
//
// Arithmetic, comparisons, logic, unary math, activations (composed from
// dlc's elementwise ops where dlc has no op of their own), Cast and the
// elementwise masks IsNaN and Trilu.
//
//===----------------------------------------------------------------------===//
#include "frontend/onnx/Importer.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace dlc::onnximport {
namespace {

using P = dlcir::CmpPredicate;

/// Every elementwise op reads all its inputs.
LogicalResult checkInputs(Importer &im) {
  for (unsigned i = 0; i < im.ins.size(); ++i)
    if (!im.has(i))
      return im.unsupported("an input is missing");
  if (im.ins.empty())
    return im.unsupported("the node has no inputs");
  return success();
}

template <typename OpT, bool floatOnly>
LogicalResult convertUnary(Importer &im) {
  if (failed(checkInputs(im)))
    return failure();
  if (floatOnly && !isa<FloatType>(im.inType(0).getElementType()))
    return im.unsupported("dlc computes " + im.opType +
                          " on float tensors only");
  im.setOut(0, im.unary<OpT>(im.in(0)));
  return success();
}

/// in(0) op in(1) op ... (Sum and Mean take any number of inputs).
template <typename OpT> FailureOr<Value> accumulate(Importer &im) {
  if (failed(checkInputs(im)))
    return failure();
  Value acc = im.in(0);
  for (unsigned i = 1; i < im.ins.size(); ++i) {
    auto r = im.binary<OpT>(acc, im.in(i));
    if (failed(r))
      return failure();
    acc = *r;
  }
  return acc;
}

template <typename OpT> LogicalResult convertVariadic(Importer &im) {
  auto acc = accumulate<OpT>(im);
  if (failed(acc))
    return failure();
  im.setOut(0, *acc);
  return success();
}

LogicalResult convertMean(Importer &im) {
  auto acc = accumulate<dlcir::AddOp>(im);
  if (failed(acc))
    return failure();
  if (!isa<FloatType>(im.inType(0).getElementType()))
    return im.unsupported("dlc computes Mean on float tensors only");
  im.setOut(0, im.scale(*acc, 1.0 / im.ins.size()));
  return success();
}

LogicalResult convertPow(Importer &im) {
  if (failed(checkInputs(im)))
    return failure();
  Type elem = im.inType(0).getElementType();
  if (!isa<FloatType>(elem)) {
    // Integer powers in f32 (exact for the values an int32 result
    // holds up to 2^24), rounded back.
    Type f32 = im.b.getF32Type();
    auto r = im.binary<dlcir::PowOp>(im.castTo(im.in(0), f32),
                                     im.castTo(im.in(1), f32));
    if (failed(r))
      return failure();
    im.setOut(0, im.castTo(*r, elem));
    return success();
  }
  // The exponent may have another type (an integer or wider float).
  Value e = im.in(1);
  if (auto l = im.lit(1); l && l->numElements() == 1) {
    double p = litDouble(*l, 0);
    Value x = im.in(0);
    auto t = im.inType(0);
    auto shape = numpyBroadcast({t.getShape(), im.inShape(1)});
    if (p == 2.0 && shape && ArrayRef<int64_t>(*shape) == t.getShape()) {
      im.setOut(0, im.create<dlcir::MulOp>(t, x, x));
      return success();
    }
    e = im.splat(p, elem, l->shape.size());
  } else {
    e = im.castTo(e, elem);
  }
  auto r = im.binary<dlcir::PowOp>(im.in(0), e);
  if (failed(r))
    return failure();
  im.setOut(0, *r);
  return success();
}

LogicalResult convertWhere(Importer &im) {
  if (failed(checkInputs(im)))
    return failure();
  auto r = im.select(im.in(0), im.in(1), im.in(2));
  if (failed(r))
    return failure();
  im.setOut(0, *r);
  return success();
}

/// Comparisons; Xor of booleans is `ne`.
template <P pred> LogicalResult convertCompare(Importer &im) {
  if (failed(checkInputs(im)))
    return failure();
  auto r = im.cmp(pred, im.in(0), im.in(1));
  if (failed(r))
    return failure();
  im.setOut(0, *r);
  return success();
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

/// The input of an activation, and splats of its type.
struct Activation {
  Importer &im;
  Value x;
  RankedTensorType t;
  Type elem;
  int64_t r;

  Value splat(double v) { return im.splat(v, elem, r); }
  Value zero() { return splat(0.0); }
  FailureOr<Value> lessThanZero(Value v) { return im.cmp(P::lt, v, zero()); }
  /// max(x, 0) + log(1 + exp(-|x|)): no overflow for large |x|.
  Value softplus(Value v) {
    Value pos = im.create<dlcir::MaxOp>(t, v, zero());
    Value e = im.unary<dlcir::ExpOp>(
        im.unary<dlcir::NegOp>(im.unary<dlcir::AbsOp>(v)));
    Value l = im.unary<dlcir::LogOp>(im.addScalar(e, 1.0));
    return im.create<dlcir::AddOp>(t, pos, l);
  }
};

/// The activation's input; most activations compute on floats only.
FailureOr<Activation> activationInput(Importer &im, bool floatOnly = true) {
  auto t = im.inType(0);
  Type elem = t.getElementType();
  if (floatOnly && !isa<FloatType>(elem))
    return im.unsupported("dlc computes " + im.opType +
                          " on float tensors only");
  return Activation{im, im.in(0), t, elem, t.getRank()};
}

/// Sets output 0 to `y`, or fails.
LogicalResult setResult(Importer &im, FailureOr<Value> y) {
  if (failed(y))
    return failure();
  im.setOut(0, *y);
  return success();
}

LogicalResult convertRelu(Importer &im) {
  auto a = activationInput(im, /*floatOnly=*/false);
  if (failed(a))
    return failure();
  im.setOut(0, im.create<dlcir::MaxOp>(a->t, a->x, a->zero()));
  return success();
}

enum class ExpLinear { leakyRelu, elu, selu, celu };

/// LeakyRelu, Elu, Selu and Celu: x for x >= 0, a function of x below.
OpHandler convertExpLinear(ExpLinear kind) {
  return [kind](Importer &im) -> LogicalResult {
    auto a = activationInput(im);
    if (failed(a))
      return failure();
    Value x = a->x;
    double alpha = im.attrFloat("alpha", kind == ExpLinear::leakyRelu ? 0.01
                                         : kind == ExpLinear::selu
                                             ? 1.67326319217681884765625
                                             : 1.0);
    Value neg;
    if (kind == ExpLinear::leakyRelu) {
      neg = im.scale(x, alpha);
    } else if (kind == ExpLinear::celu) {
      neg = im.scale(
          im.addScalar(im.unary<dlcir::ExpOp>(im.scale(x, 1.0 / alpha)), -1.0),
          alpha);
    } else {
      neg = im.scale(im.addScalar(im.unary<dlcir::ExpOp>(x), -1.0), alpha);
    }
    auto c = a->lessThanZero(x);
    if (failed(c))
      return failure();
    auto s = im.select(*c, neg, x);
    if (failed(s))
      return failure();
    Value y = *s;
    if (kind == ExpLinear::selu)
      y = im.scale(y, im.attrFloat("gamma", 1.05070102214813232421875));
    im.setOut(0, y);
    return success();
  };
}

LogicalResult convertPRelu(Importer &im) {
  auto a = activationInput(im);
  if (failed(a))
    return failure();
  if (!im.has(1))
    return im.unsupported("the slope input is missing");
  auto c = a->lessThanZero(a->x);
  auto neg = im.binary<dlcir::MulOp>(a->x, im.in(1));
  if (failed(c) || failed(neg))
    return failure();
  return setResult(im, im.select(*c, *neg, a->x));
}

LogicalResult convertThresholdedRelu(Importer &im) {
  auto a = activationInput(im);
  if (failed(a))
    return failure();
  auto c = im.cmp(P::gt, a->x, a->splat(im.attrFloat("alpha", 1.0)));
  if (failed(c))
    return failure();
  return setResult(im, im.select(*c, a->x, a->zero()));
}

LogicalResult convertClip(Importer &im) {
  auto a = activationInput(im, /*floatOnly=*/false);
  if (failed(a))
    return failure();
  double lo = -std::numeric_limits<double>::infinity(), hi = -lo;
  for (unsigned i = 1; i < 3; ++i) {
    if (!im.has(i))
      continue;
    const rt::HostTensor *l = im.lit(i);
    if (!l || l->numElements() != 1)
      return im.unsupported("the min and max inputs must be a constant "
                            "(scalars)");
    (i == 1 ? lo : hi) = litDouble(*l, 0);
  }
  Value y = a->x;
  if (!std::isinf(lo))
    y = im.create<dlcir::MaxOp>(a->t, y, a->splat(lo));
  if (!std::isinf(hi))
    y = im.create<dlcir::MinOp>(a->t, y, a->splat(hi));
  im.setOut(0, y);
  return success();
}

LogicalResult convertHardSigmoid(Importer &im) {
  auto a = activationInput(im);
  if (failed(a))
    return failure();
  im.setOut(0, im.clamp(im.addScalar(im.scale(a->x, im.attrFloat("alpha", 0.2)),
                                     im.attrFloat("beta", 0.5)),
                        0.0, 1.0));
  return success();
}

LogicalResult convertHardSwish(Importer &im) {
  auto a = activationInput(im);
  if (failed(a))
    return failure();
  Value h = im.clamp(im.addScalar(im.scale(a->x, 1.0 / 6.0), 0.5), 0.0, 1.0);
  im.setOut(0, im.create<dlcir::MulOp>(a->t, a->x, h));
  return success();
}

LogicalResult convertSoftplus(Importer &im) {
  auto a = activationInput(im);
  if (failed(a))
    return failure();
  im.setOut(0, a->softplus(a->x));
  return success();
}

LogicalResult convertSoftsign(Importer &im) {
  auto a = activationInput(im);
  if (failed(a))
    return failure();
  Value denominator = im.addScalar(im.unary<dlcir::AbsOp>(a->x), 1.0);
  im.setOut(0, im.create<dlcir::DivOp>(a->t, a->x, denominator));
  return success();
}

LogicalResult convertMish(Importer &im) {
  auto a = activationInput(im);
  if (failed(a))
    return failure();
  Value th = im.unary<dlcir::TanhOp>(a->softplus(a->x));
  im.setOut(0, im.create<dlcir::MulOp>(a->t, a->x, th));
  return success();
}

LogicalResult convertGelu(Importer &im) {
  auto a = activationInput(im);
  if (failed(a))
    return failure();
  Value x = a->x;
  auto t = a->t;
  Value y;
  if (im.attrStr("approximate", "none") == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value x2 = im.create<dlcir::MulOp>(t, x, x);
    Value x3 = im.create<dlcir::MulOp>(t, x2, x);
    Value cubic = im.scale(x3, 0.044715);
    Value inner = im.create<dlcir::AddOp>(t, x, cubic);
    Value th = im.unary<dlcir::TanhOp>(im.scale(inner, std::sqrt(2.0 / M_PI)));
    Value half = im.scale(x, 0.5);
    Value onePlus = im.addScalar(th, 1.0);
    y = im.create<dlcir::MulOp>(t, half, onePlus);
  } else {
    Value e = im.unary<dlcir::ErfOp>(im.scale(x, M_SQRT1_2));
    Value half = im.scale(x, 0.5);
    Value onePlus = im.addScalar(e, 1.0);
    y = im.create<dlcir::MulOp>(t, half, onePlus);
  }
  im.setOut(0, y);
  return success();
}

LogicalResult convertSign(Importer &im) {
  auto a = activationInput(im, /*floatOnly=*/false);
  if (failed(a))
    return failure();
  auto gt = im.cmp(P::gt, a->x, a->zero());
  auto lt = im.cmp(P::lt, a->x, a->zero());
  if (failed(gt) || failed(lt))
    return failure();
  auto inner = im.select(*lt, a->splat(-1.0), a->zero());
  if (failed(inner))
    return failure();
  return setResult(im, im.select(*gt, a->splat(1.0), *inner));
}

//===----------------------------------------------------------------------===//
// Casts and masks
//===----------------------------------------------------------------------===//

/// Cast and CastLike to `to`.
LogicalResult convertCastTo(Importer &im, std::optional<rt::DType> to) {
  if (!to)
    return im.unsupported("Cast to " +
                          Twine(onnxTypeName(im.attrInt("to", 0))) +
                          " is not supported (f32, f16, bf16, int32, int64 "
                          "and bool only)");
  Value x = im.in(0);
  auto t = im.inType(0);
  Type target = dlcir::elementTypeOf(im.ctx, *to);
  if (isa<FloatType>(t.getElementType()) && isa<IntegerType>(target) &&
      !target.isInteger(1)) {
    // dlc.cast rounds to nearest; ONNX truncates toward zero: correct the
    // rounded value by one where rounding went away from zero.
    Type f32 = im.b.getF32Type();
    Value xf = im.castTo(x, f32);
    Value r = im.castTo(xf, target);
    Value rf = im.castTo(r, f32);
    int64_t rank = t.getRank();
    auto tooHigh = im.cmp(P::gt, rf, xf);
    auto tooLow = im.cmp(P::lt, rf, xf);
    auto nonNeg = im.cmp(P::ge, xf, im.splat(0.0, f32, rank));
    if (failed(tooHigh) || failed(tooLow) || failed(nonNeg))
      return failure();
    auto rType = cast<RankedTensorType>(r.getType());
    Value down = im.create<dlcir::SubOp>(rType, r, im.splat(1, target, rank));
    Value up = im.create<dlcir::AddOp>(rType, r, im.splat(1, target, rank));
    auto fixPos = im.select(*tooHigh, down, r);
    auto fixNeg = im.select(*tooLow, up, r);
    if (failed(fixPos) || failed(fixNeg))
      return failure();
    return setResult(im, im.select(*nonNeg, *fixPos, *fixNeg));
  }
  im.setOut(0, im.castTo(x, target));
  return success();
}

LogicalResult convertCast(Importer &im) {
  return convertCastTo(im, dtypeOfOnnx(im.attrInt("to", 0)));
}

LogicalResult convertCastLike(Importer &im) {
  if (!im.has(1))
    return im.unsupported("the target_type input is missing");
  return convertCastTo(im, dlcir::dtypeOf(im.inType(1).getElementType()));
}

LogicalResult convertIsNaN(Importer &im) {
  if (!isa<FloatType>(im.inType(0).getElementType()))
    return im.unsupported("IsNaN needs a float input");
  // NaN is the only value that differs from itself.
  return setResult(im, im.cmp(P::ne, im.in(0), im.in(0)));
}

LogicalResult convertTrilu(Importer &im) {
  auto tx = im.inType(0);
  Type elem = tx.getElementType();
  int64_t rank = tx.getRank();
  ArrayRef<int64_t> xs = tx.getShape();
  if (rank < 2)
    return im.unsupported("Trilu needs a rank-2 or higher input");
  int64_t k = 0;
  if (im.has(1)) {
    auto v = im.constInts(1, "k");
    if (failed(v))
      return failure();
    k = v->empty() ? 0 : (*v)[0];
  }
  bool upper = im.attrInt("upper", 1);
  // A constant mask over the last two dimensions selects the triangle.
  int64_t m = xs[rank - 2], n = xs[rank - 1];
  SmallVector<int64_t> mshape(rank, 1);
  mshape[rank - 2] = m;
  mshape[rank - 1] = n;
  if (failed(im.checkLiteral(mshape, rt::DType::I1, "the triangle mask")))
    return failure();
  rt::HostTensor mask(rt::DType::I1,
                      std::vector<int64_t>(mshape.begin(), mshape.end()));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      mask.data[i * n + j] = upper ? (j - i >= k) : (j - i <= k);
  Value zero = im.splat(0.0, elem, rank);
  return setResult(im, im.select(im.constant(mask), im.in(0), zero));
}

} // namespace

void registerElementwiseOps(OpRegistry &registry) {
  auto on = [&](StringRef name, OpHandler handler, unsigned required = 1) {
    registry.onOp(name, kMinOpset, std::move(handler), required);
  };
  on("Sqrt", convertUnary<dlcir::SqrtOp, true>);
  on("Exp", convertUnary<dlcir::ExpOp, true>);
  on("Log", convertUnary<dlcir::LogOp, true>);
  on("Reciprocal", convertUnary<dlcir::ReciprocalOp, true>);
  on("Erf", convertUnary<dlcir::ErfOp, true>);
  on("Tanh", convertUnary<dlcir::TanhOp, true>);
  on("Sigmoid", convertUnary<dlcir::SigmoidOp, true>);
  on("Neg", convertUnary<dlcir::NegOp, false>);
  on("Abs", convertUnary<dlcir::AbsOp, false>);
  on("Not", convertUnary<dlcir::NotOp, false>);

  on("Add", convertVariadic<dlcir::AddOp>, 2);
  on("Sub", convertVariadic<dlcir::SubOp>, 2);
  on("Mul", convertVariadic<dlcir::MulOp>, 2);
  on("Div", convertVariadic<dlcir::DivOp>, 2);
  on("Min", convertVariadic<dlcir::MinOp>);
  on("Max", convertVariadic<dlcir::MaxOp>);
  on("Sum", convertVariadic<dlcir::AddOp>);
  on("Mean", convertMean);
  on("And", convertVariadic<dlcir::AndOp>, 2);
  on("Or", convertVariadic<dlcir::OrOp>, 2);
  on("Pow", convertPow, 2);
  on("Where", convertWhere, 3);
  on("Equal", convertCompare<P::eq>, 2);
  on("Less", convertCompare<P::lt>, 2);
  on("Greater", convertCompare<P::gt>, 2);
  on("LessOrEqual", convertCompare<P::le>, 2);
  on("GreaterOrEqual", convertCompare<P::ge>, 2);
  on("Xor", convertCompare<P::ne>, 2);

  on("Relu", convertRelu);
  on("LeakyRelu", convertExpLinear(ExpLinear::leakyRelu));
  on("Elu", convertExpLinear(ExpLinear::elu));
  on("Selu", convertExpLinear(ExpLinear::selu));
  on("Celu", convertExpLinear(ExpLinear::celu));
  on("PRelu", convertPRelu, 2);
  on("ThresholdedRelu", convertThresholdedRelu);
  on("Clip", convertClip);
  on("HardSigmoid", convertHardSigmoid);
  on("HardSwish", convertHardSwish);
  on("Softplus", convertSoftplus);
  on("Softsign", convertSoftsign);
  on("Mish", convertMish);
  on("Gelu", convertGelu);
  on("Sign", convertSign);

  on("Cast", convertCast);
  on("CastLike", convertCastLike, 2);
  on("IsNaN", convertIsNaN);
  on("Trilu", convertTrilu);
}

} // namespace dlc::onnximport
