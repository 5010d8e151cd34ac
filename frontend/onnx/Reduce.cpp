//===- Reduce.cpp - ONNX reductions and normalizations --------------------===//
//
// Reduce*, ArgMax/ArgMin, Hardmax, Softmax/LogSoftmax and the normalizations
// over axes (LayerNormalization, InstanceNormalization,
// MeanVarianceNormalization), composed from dlc.reduce and elementwise ops.
//
//===----------------------------------------------------------------------===//
#include "frontend/onnx/Importer.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace dlc::onnximport {
namespace {

using K = dlcir::ReduceKind;

/// What a Reduce* op computes over its (normalized, non-empty) axes, which
/// hold `count` elements; the reduced dimensions stay, with size 1.
using ReduceBody = FailureOr<Value> (*)(Importer &im, Value x,
                                        RankedTensorType tx,
                                        ArrayRef<int64_t> axes, int64_t count);

/// A Reduce* handler: reads the axes (an input or an attribute), computes
/// `body` over them and drops them unless keepdims. Only ReduceSum, Max, Min
/// and Prod take integer tensors.
OpHandler reduction(bool integers, ReduceBody body) {
  return [integers, body](Importer &im) -> LogicalResult {
    auto tx = im.inType(0);
    int64_t rank = tx.getRank();
    Type elem = tx.getElementType();
    auto axesOrEmpty = im.intsInputOrAttr(1, "axes");
    if (failed(axesOrEmpty))
      return failure();
    std::vector<int64_t> &axes = *axesOrEmpty;
    if (axes.empty() && im.attrInt("noop_with_empty_axes", 0)) {
      im.outs[0] = *im.ins[0];
      return success();
    }
    SmallVector<int64_t> norm;
    if (axes.empty())
      for (int64_t d = 0; d < rank; ++d)
        norm.push_back(d);
    for (int64_t a : axes) {
      auto n = im.axis(a, rank);
      if (failed(n))
        return failure();
      if (!llvm::is_contained(norm, *n))
        norm.push_back(*n);
    }
    if (!isa<FloatType>(elem) && !integers)
      return im.unsupported("dlc computes " + im.opType +
                            " on float tensors only");
    int64_t count = 1;
    for (int64_t a : norm)
      count *= tx.getDimSize(a);
    auto y = body(im, im.in(0), tx, norm, count);
    if (failed(y))
      return failure();
    if (!im.attrInt("keepdims", 1)) {
      SmallVector<int64_t> shape;
      for (int64_t d = 0; d < rank; ++d)
        if (!llvm::is_contained(norm, d))
          shape.push_back(tx.getDimSize(d));
      y = im.reshape(*y, shape);
    }
    im.setOut(0, *y);
    return success();
  };
}

/// A Reduce* that is one dlc.reduce.
template <K kind>
FailureOr<Value> reduceOnly(Importer &im, Value x, RankedTensorType,
                            ArrayRef<int64_t> axes, int64_t) {
  return im.reduce(kind, x, axes);
}

FailureOr<Value> reduceMean(Importer &im, Value x, RankedTensorType,
                            ArrayRef<int64_t> axes, int64_t count) {
  return im.scale(im.reduce(K::sum, x, axes), 1.0 / count);
}

FailureOr<Value> reduceSumSquare(Importer &im, Value x, RankedTensorType tx,
                                 ArrayRef<int64_t> axes, int64_t) {
  return im.reduce(K::sum, im.create<dlcir::MulOp>(tx, x, x), axes);
}

FailureOr<Value> reduceL1(Importer &im, Value x, RankedTensorType,
                          ArrayRef<int64_t> axes, int64_t) {
  return im.reduce(K::sum, im.unary<dlcir::AbsOp>(x), axes);
}

FailureOr<Value> reduceL2(Importer &im, Value x, RankedTensorType tx,
                          ArrayRef<int64_t> axes, int64_t) {
  return im.unary<dlcir::SqrtOp>(
      im.reduce(K::sum, im.create<dlcir::MulOp>(tx, x, x), axes));
}

FailureOr<Value> reduceLogSum(Importer &im, Value x, RankedTensorType,
                              ArrayRef<int64_t> axes, int64_t) {
  return im.unary<dlcir::LogOp>(im.reduce(K::sum, x, axes));
}

/// log(sum(exp(x - max))) + max: no overflow.
FailureOr<Value> reduceLogSumExp(Importer &im, Value x, RankedTensorType,
                                 ArrayRef<int64_t> axes, int64_t) {
  Value m = im.reduce(K::max, x, axes);
  auto d = im.binary<dlcir::SubOp>(x, m);
  if (failed(d))
    return failure();
  Value s = im.unary<dlcir::LogOp>(
      im.reduce(K::sum, im.unary<dlcir::ExpOp>(*d), axes));
  return im.create<dlcir::AddOp>(s.getType(), s, m);
}

template <bool isMax> LogicalResult convertArgExtreme(Importer &im) {
  auto tx = im.inType(0);
  auto a = im.axis(im.attrInt("axis", 0), tx.getRank());
  if (failed(a))
    return failure();
  Value x = im.in(0);
  int64_t d = tx.getDimSize(*a);
  bool last = im.attrInt("select_last_index", 0);
  if (last) {
    // The last extreme is the first one of the reversed axis.
    if (failed(im.checkLiteral({d}, rt::DType::I64, "the index table")))
      return failure();
    rt::HostTensor idx(rt::DType::I64, {d});
    for (int64_t i = 0; i < d; ++i)
      litSetInt(idx, i, d - 1 - i);
    x = im.create<dlcir::GatherOp>(tx, x, im.constant(idx),
                                   im.b.getI64IntegerAttr(*a));
  }
  if (!isMax) {
    if (!isa<FloatType>(tx.getElementType()) &&
        !tx.getElementType().isInteger(32) &&
        !tx.getElementType().isInteger(64))
      return im.unsupported("ArgMin needs a numeric input");
    x = im.unary<dlcir::NegOp>(x);
  }
  SmallVector<int64_t> shape(tx.getShape());
  shape[*a] = 1;
  Value y = im.create<dlcir::ArgMaxOp>(im.tensorType(shape, im.b.getI64Type()),
                                       x, im.b.getI64IntegerAttr(*a));
  if (last) {
    auto t = cast<RankedTensorType>(y.getType());
    y = im.create<dlcir::SubOp>(
        t, im.splat(d - 1, im.b.getI64Type(), t.getRank()), y);
  }
  if (!im.attrInt("keepdims", 1)) {
    shape.erase(shape.begin() + *a);
    y = im.reshape(y, shape);
  }
  im.setOut(0, y);
  return success();
}

LogicalResult convertHardmax(Importer &im) {
  auto tx = im.inType(0);
  Type elem = tx.getElementType();
  int64_t rank = tx.getRank();
  ArrayRef<int64_t> xs = tx.getShape();
  auto a = im.axis(im.attrInt("axis", -1), rank);
  if (failed(a))
    return failure();
  SmallVector<int64_t> ishape(rank, 1);
  ishape[*a] = xs[*a];
  if (failed(im.checkLiteral(ishape, rt::DType::I64, "the index table")))
    return failure();
  rt::HostTensor iota(rt::DType::I64,
                      std::vector<int64_t>(ishape.begin(), ishape.end()));
  for (int64_t i = 0; i < xs[*a]; ++i)
    litSetInt(iota, i, i);
  SmallVector<int64_t> shape(xs);
  shape[*a] = 1;
  Value idx =
      im.create<dlcir::ArgMaxOp>(im.tensorType(shape, im.b.getI64Type()),
                                 im.in(0), im.b.getI64IntegerAttr(*a));
  auto eq = im.cmp(dlcir::CmpPredicate::eq, idx, im.constant(iota));
  if (failed(eq))
    return failure();
  im.setOut(0, im.castTo(*eq, elem));
  return success();
}

template <bool log> LogicalResult convertSoftmax(Importer &im) {
  auto tx = im.inType(0);
  if (!isa<FloatType>(tx.getElementType()))
    return im.unsupported("Softmax needs a float input");
  auto a = im.axis(im.attrInt("axis", -1), tx.getRank());
  if (failed(a))
    return failure();
  Value x = im.in(0);
  Value m = im.reduce(K::max, x, {*a});
  auto d = im.binary<dlcir::SubOp>(x, m);
  if (failed(d))
    return failure();
  Value e = im.unary<dlcir::ExpOp>(*d);
  Value s = im.reduce(K::sum, e, {*a});
  FailureOr<Value> y =
      log ? im.binary<dlcir::SubOp>(*d, im.unary<dlcir::LogOp>(s))
          : im.binary<dlcir::DivOp>(e, s);
  if (failed(y))
    return failure();
  im.setOut(0, *y);
  return success();
}

//===----------------------------------------------------------------------===//
// Normalizations over axes: (x - mean) / sqrt(var + eps)
//===----------------------------------------------------------------------===//

/// The mean of input 0 over `axes` (which hold `count` elements), the input
/// minus it, and the variance.
struct Moments {
  Value mean, centered, var;
};

FailureOr<Moments> momentsOf(Importer &im, ArrayRef<int64_t> axes,
                             int64_t count) {
  auto tx = im.inType(0);
  Value x = im.in(0);
  Value mean = im.scale(im.reduce(K::sum, x, axes), 1.0 / count);
  auto d = im.binary<dlcir::SubOp>(x, mean);
  if (failed(d))
    return failure();
  Value var =
      im.scale(im.reduce(K::sum, im.create<dlcir::MulOp>(tx, *d, *d), axes),
               1.0 / count);
  return Moments{mean, *d, var};
}

LogicalResult convertLayerNorm(Importer &im) {
  auto tx = im.inType(0);
  Type elem = tx.getElementType();
  if (!isa<FloatType>(elem))
    return im.unsupported("LayerNormalization needs a float input");
  int64_t rank = tx.getRank();
  auto a = im.axis(im.attrInt("axis", -1), rank);
  if (failed(a))
    return failure();
  double eps = im.attrFloat("epsilon", 1e-5);
  SmallVector<int64_t> axes;
  int64_t count = 1;
  for (int64_t d = *a; d < rank; ++d) {
    axes.push_back(d);
    count *= tx.getDimSize(d);
  }
  auto m = momentsOf(im, axes, count);
  if (failed(m))
    return failure();
  Value inv = im.unary<dlcir::RsqrtOp>(im.addScalar(m->var, eps));
  auto y = im.binary<dlcir::MulOp>(m->centered, inv);
  if (failed(y))
    return failure();
  if (im.has(1)) {
    y = im.binary<dlcir::MulOp>(*y, im.in(1));
    if (failed(y))
      return failure();
  }
  if (im.has(2)) {
    y = im.binary<dlcir::AddOp>(*y, im.in(2));
    if (failed(y))
      return failure();
  }
  im.setOut(0, *y);
  im.setOut(1, m->mean);
  im.setOut(2, inv);
  return success();
}

/// InstanceNormalization (over the spatial dimensions, then a scale and a
/// bias per channel) and MeanVarianceNormalization (over `axes`, no
/// epsilon).
template <bool isInstance> LogicalResult convertNormalization(Importer &im) {
  auto tx = im.inType(0);
  Type elem = tx.getElementType();
  int64_t rank = tx.getRank();
  ArrayRef<int64_t> xs = tx.getShape();
  if (!isa<FloatType>(elem))
    return im.unsupported(im.opType + " needs a float input");
  SmallVector<int64_t> axes;
  double eps = 0;
  if (!isInstance) {
    std::vector<int64_t> a = {0, 2, 3};
    if (auto v = im.attrInts("axes"))
      a = *v;
    for (int64_t d : a) {
      auto n = im.axis(d, rank);
      if (failed(n))
        return failure();
      axes.push_back(*n);
    }
  } else {
    if (rank < 3)
      return im.unsupported("InstanceNormalization needs a rank-3 or higher "
                            "input");
    for (int64_t d = 2; d < rank; ++d)
      axes.push_back(d);
    eps = im.attrFloat("epsilon", 1e-5);
  }
  int64_t count = 1;
  for (int64_t a : axes)
    count *= xs[a];
  auto m = momentsOf(im, axes, count);
  if (failed(m))
    return failure();
  Value inv =
      im.unary<dlcir::RsqrtOp>(eps != 0 ? im.addScalar(m->var, eps) : m->var);
  if (!isInstance)
    inv = im.unary<dlcir::ReciprocalOp>(im.unary<dlcir::SqrtOp>(m->var));
  auto y = im.binary<dlcir::MulOp>(m->centered, inv);
  if (failed(y))
    return failure();
  if (isInstance) {
    if (!im.has(1) || !im.has(2) || im.inType(1).getNumElements() != xs[1] ||
        im.inType(2).getNumElements() != xs[1])
      return im.unsupported("scale and B must have one value per channel");
    SmallVector<int64_t> pshape(rank, 1);
    pshape[1] = xs[1];
    y = im.binary<dlcir::MulOp>(*y, im.reshape(im.in(1), pshape));
    if (failed(y))
      return failure();
    y = im.binary<dlcir::AddOp>(*y, im.reshape(im.in(2), pshape));
    if (failed(y))
      return failure();
  }
  im.setOut(0, *y);
  return success();
}

} // namespace

void registerReduceOps(OpRegistry &registry) {
  auto on = [&](StringRef name, OpHandler handler) {
    registry.onOp(name, kMinOpset, std::move(handler));
  };
  on("ReduceSum", reduction(/*integers=*/true, reduceOnly<K::sum>));
  on("ReduceMax", reduction(/*integers=*/true, reduceOnly<K::max>));
  on("ReduceMin", reduction(/*integers=*/true, reduceOnly<K::min>));
  on("ReduceProd", reduction(/*integers=*/true, reduceOnly<K::prod>));
  on("ReduceMean", reduction(/*integers=*/false, reduceMean));
  on("ReduceSumSquare", reduction(/*integers=*/false, reduceSumSquare));
  on("ReduceL1", reduction(/*integers=*/false, reduceL1));
  on("ReduceL2", reduction(/*integers=*/false, reduceL2));
  on("ReduceLogSum", reduction(/*integers=*/false, reduceLogSum));
  on("ReduceLogSumExp", reduction(/*integers=*/false, reduceLogSumExp));
  on("ArgMax", convertArgExtreme</*isMax=*/true>);
  on("ArgMin", convertArgExtreme</*isMax=*/false>);
  on("Hardmax", convertHardmax);
  on("Softmax", convertSoftmax</*log=*/false>);
  on("LogSoftmax", convertSoftmax</*log=*/true>);
  on("LayerNormalization", convertLayerNorm);
  on("InstanceNormalization", convertNormalization</*isInstance=*/true>);
  on("MeanVarianceNormalization", convertNormalization</*isInstance=*/false>);
}

} // namespace dlc::onnximport
