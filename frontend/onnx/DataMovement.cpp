//===- DataMovement.cpp - ONNX shape and data movement ops ----------------===//
//
// Ops that move data without computing on it: reshapes (which keep a
// literal literal), Transpose, Concat, Expand/Tile, DepthToSpace and
// SpaceToDepth, Slice, Gather, Split, Pad and Resize, and the pass-throughs
// Identity and Dropout (a dlc.dropout when training).
//
//===----------------------------------------------------------------------===//
#include "frontend/onnx/Importer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;

namespace dlc::onnximport {
namespace {

LogicalResult convertIdentity(Importer &im) {
  im.outs[0] = *im.ins[0];
  // torch.onnx.export writes a parameter whose initial value equals an
  // earlier one's as an Identity of it (initializers deduplicated): when
  // training, it is a parameter of its own, of the Identity's output name.
  if (!im.foldsWeights() && im.ins[0]->lit && !im.ins[0]->name.empty() &&
      dlcir::isFloat(im.ins[0]->lit->dtype)) {
    im.outs[0].value = nullptr;
    im.outs[0].name = im.node->output(0);
  }
  return success();
}

std::string formatRatio(double ratio) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", ratio);
  return text;
}

/// In inference mode (or with ratio 0) the input passes and the mask (when
/// used) is all true. In training mode, when importing for training, a
/// dlc.dropout (its offset 0 here; a training step advances it, see
/// dlc-apply-optimizer) with the node's seed when it has one; otherwise it
/// is refused: its output is random.
LogicalResult convertDropout(Importer &im) {
  ArrayRef<int64_t> xs = im.inShape(0);
  double ratio = 0.5;
  if (im.has(1)) {
    if (!im.lit(1) || im.lit(1)->numElements() != 1)
      return im.unsupported("the ratio input must be a constant scalar");
    ratio = litDouble(*im.lit(1), 0);
  }
  bool training = false;
  if (im.has(2)) {
    if (!im.lit(2))
      return im.unsupported("the training_mode input must be a constant "
                            "(false: inference)");
    if (im.lit(2)->numElements() != 1)
      return im.unsupported("training_mode must be a scalar");
    training = litInt(*im.lit(2), 0) != 0;
  }
  if (training && ratio != 0.0) {
    if (!(ratio >= 0 && ratio < 1))
      return im.unsupported("the ratio must lie in [0, 1), but is " +
                            formatRatio(ratio));
    if (im.foldsWeights())
      return im.unsupported(
          "training_mode=true (ratio " + formatRatio(ratio) +
          ") draws a random mask: dlc applies it when training (dlc train, "
          "dlc compile --train); for inference export the model in eval "
          "mode");
    auto tx = im.inType(0);
    if (!isa<FloatType>(tx.getElementType()))
      return im.unsupported("Dropout in training mode needs a float input");
    SmallVector<int64_t> ones(xs.size(), 1);
    Value offset = im.splatConstant(ones, im.b.getI64Type(), 0.0);
    auto seed = im.b.getI64IntegerAttr(im.attrInt("seed", 0));
    auto dropout = [&](Value x) {
      return im.create<dlcir::DropoutOp>(
          x.getType(), x, offset, im.b.getF64FloatAttr(ratio), seed,
          im.b.getI64IntegerAttr(im.dropoutStreams));
    };
    im.setOut(0, dropout(im.in(0)));
    if (im.outs.size() > 1 && !im.node->output(1).empty() &&
        im.isUsed(im.node->output(1))) {
      // The mask: where a dropout of ones is not zero.
      Value one = im.splatConstant(xs, tx.getElementType(), 1.0);
      FailureOr<Value> mask =
          im.cmp(dlcir::CmpPredicate::ne, dropout(one),
                 im.splatConstant(ones, tx.getElementType(), 0.0));
      if (failed(mask))
        return failure();
      im.setOut(1, *mask);
    }
    ++im.dropoutStreams;
    return success();
  }
  im.outs[0] = *im.ins[0];
  if (im.outs.size() > 1 && !im.node->output(1).empty() &&
      im.isUsed(im.node->output(1)))
    im.setOut(1, im.splatConstant(xs, im.b.getI1Type(), 1.0));
  return success();
}

//===----------------------------------------------------------------------===//
// Reshapes
//===----------------------------------------------------------------------===//

/// Input 0 reshaped to `shape`: a literal stays a literal.
LogicalResult reshapeTo(Importer &im, ArrayRef<int64_t> shape) {
  auto tx = im.inType(0);
  ArrayRef<int64_t> xs = tx.getShape();
  if (failed(im.checkType(shape, tx.getElementType(), "the output")))
    return failure();
  if (*checkedProduct(shape) != tx.getNumElements())
    return im.unsupported("cannot reshape " + dlcir::formatShape(xs) + " to " +
                          dlcir::formatShape(shape));
  if (im.ins[0]->lit) {
    rt::HostTensor t = *im.ins[0]->lit;
    t.shape.assign(shape.begin(), shape.end());
    im.setOutLit(0, makeLit(std::move(t)));
  } else {
    im.setOut(0, im.reshape(im.in(0), shape));
  }
  return success();
}

LogicalResult convertReshape(Importer &im) {
  auto tx = im.inType(0);
  ArrayRef<int64_t> xs = tx.getShape();
  int64_t rank = tx.getRank();
  auto target = im.constInts(1, "shape");
  if (failed(target))
    return failure();
  bool allowZero = im.attrInt("allowzero", 0);
  SmallVector<int64_t> shape;
  int64_t inferred = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(*target)) {
    if (d == 0 && !allowZero) {
      if ((int64_t)i >= rank)
        return im.unsupported("shape copies dimension " + Twine(i) +
                              " of a rank-" + Twine(rank) + " input");
      d = xs[i];
    }
    if (d == -1) {
      if (inferred >= 0)
        return im.unsupported("shape has more than one -1");
      inferred = i;
      shape.push_back(1);
      continue;
    }
    if (d < 0)
      return im.unsupported("shape has a negative size " + Twine(d));
    auto k = checkedMul(known, d);
    if (!k)
      return im.unsupported("shape " + dlcir::formatShape(*target) +
                            " has more elements than int64 can count");
    known = *k;
    shape.push_back(d);
  }
  if (inferred >= 0) {
    if (known == 0 || tx.getNumElements() % known)
      return im.unsupported("cannot infer the -1 in shape " +
                            dlcir::formatShape(*target) + " for " +
                            dlcir::formatShape(xs));
    shape[inferred] = tx.getNumElements() / known;
  }
  return reshapeTo(im, shape);
}

LogicalResult convertFlatten(Importer &im) {
  ArrayRef<int64_t> xs = im.inShape(0);
  int64_t rank = xs.size();
  int64_t a = im.attrInt("axis", 1);
  if (a < 0)
    a += rank;
  if (a < 0 || a > rank)
    return im.unsupported("axis is out of range");
  return reshapeTo(im, {product(xs.take_front(a)), product(xs.drop_front(a))});
}

/// Squeeze (all dimensions of size 1 when no axes are given) and Unsqueeze.
template <bool squeeze> LogicalResult convertSqueeze(Importer &im) {
  ArrayRef<int64_t> xs = im.inShape(0);
  int64_t rank = xs.size();
  auto axes = im.intsInputOrAttr(1, "axes");
  if (failed(axes))
    return failure();
  if (squeeze) {
    SmallVector<int64_t> shape;
    SmallVector<bool> drop(rank, axes->empty());
    for (int64_t a : *axes) {
      auto n = im.axis(a, rank);
      if (failed(n))
        return failure();
      if (xs[*n] != 1)
        return im.unsupported("cannot squeeze dimension " + Twine(a) +
                              " of size " + Twine(xs[*n]));
      drop[*n] = true;
    }
    for (int64_t d = 0; d < rank; ++d)
      if (!(drop[d] && xs[d] == 1))
        shape.push_back(xs[d]);
    return reshapeTo(im, shape);
  }
  int64_t outRank = rank + axes->size();
  SmallVector<bool> inserted(outRank, false);
  for (int64_t a : *axes) {
    auto n = im.axis(a, outRank);
    if (failed(n))
      return failure();
    if (inserted[*n])
      return im.unsupported("axes repeat");
    inserted[*n] = true;
  }
  SmallVector<int64_t> shape;
  size_t j = 0;
  for (int64_t d = 0; d < outRank; ++d)
    shape.push_back(inserted[d] ? 1 : xs[j++]);
  return reshapeTo(im, shape);
}

//===----------------------------------------------------------------------===//
// Transposes, concatenation and repetition
//===----------------------------------------------------------------------===//

LogicalResult convertTranspose(Importer &im) {
  int64_t rank = im.inType(0).getRank();
  std::optional<SmallVector<int64_t>> perm = im.transposePerm(rank);
  if (!perm)
    return im.unsupported("perm is not a permutation of the dimensions");
  if (llvm::equal(*perm, llvm::seq<int64_t>(0, rank)))
    im.outs[0] = *im.ins[0];
  else
    im.setOut(0, im.transpose(im.in(0), *perm));
  return success();
}

LogicalResult convertConcat(Importer &im) {
  auto tx = im.inType(0);
  ArrayRef<int64_t> xs = tx.getShape();
  int64_t rank = tx.getRank();
  auto a = im.axis(im.attrInt("axis", 0), rank);
  if (failed(a))
    return failure();
  SmallVector<Value> values;
  SmallVector<int64_t> shape(xs);
  shape[*a] = 0;
  for (unsigned i = 0; i < im.ins.size(); ++i) {
    if (!im.has(i))
      continue;
    auto t = im.inType(i);
    if (t.getRank() != rank || t.getElementType() != tx.getElementType())
      return im.unsupported("inputs differ in rank or element type");
    for (int64_t d = 0; d < rank; ++d)
      if (d != *a && t.getDimSize(d) != xs[d])
        return im.unsupported("input shapes differ outside the axis");
    shape[*a] += t.getDimSize(*a);
    if (t.getDimSize(*a) != 0)
      values.push_back(im.in(i));
  }
  if (values.size() == 1) {
    im.setOut(0, values[0]);
    return success();
  }
  im.setOut(
      0, im.create<dlcir::ConcatOp>(im.tensorType(shape, tx.getElementType()),
                                    values, im.b.getI64IntegerAttr(*a)));
  return success();
}

/// Expand and Tile: `x` repeated `multiples` times to `shape`.
LogicalResult tileTo(Importer &im, Value x, ArrayRef<int64_t> shape,
                     ArrayRef<int64_t> multiples) {
  Type elem = im.inType(0).getElementType();
  if (failed(im.checkType(shape, elem, "the output")))
    return failure();
  if (llvm::is_contained(multiples, 0))
    return im.unsupported("the output would be empty (dlc tensors have no "
                          "zero-size dimensions here)");
  if (llvm::all_of(multiples, [](int64_t m) { return m == 1; })) {
    im.setOut(0, x);
    return success();
  }
  im.setOut(0, im.create<dlcir::TileOp>(im.tensorType(shape, elem), x,
                                        im.b.getDenseI64ArrayAttr(multiples)));
  return success();
}

LogicalResult convertExpand(Importer &im) {
  auto tx = im.inType(0);
  ArrayRef<int64_t> xs = tx.getShape();
  auto v = im.constInts(1, "shape");
  if (failed(v))
    return failure();
  SmallVector<int64_t> multiples;
  Value x = im.in(0);
  if (failed(im.checkType(*v, tx.getElementType(), "the shape input")))
    return failure();
  auto out = numpyBroadcast({xs, *v});
  if (!out)
    return im.unsupported("cannot expand " + dlcir::formatShape(xs) + " to " +
                          dlcir::formatShape(*v));
  x = im.toRank(x, out->size());
  auto s = cast<RankedTensorType>(x.getType()).getShape();
  for (size_t d = 0; d < out->size(); ++d)
    multiples.push_back(s[d] == (*out)[d] ? 1 : (*out)[d]);
  return tileTo(im, x, *out, multiples);
}

LogicalResult convertTile(Importer &im) {
  ArrayRef<int64_t> xs = im.inShape(0);
  int64_t rank = xs.size();
  auto v = im.constInts(1, "repeats");
  if (failed(v))
    return failure();
  Value x = im.in(0);
  if ((int64_t)v->size() != rank)
    return im.unsupported("repeats must have one entry per dimension");
  SmallVector<int64_t> multiples(v->begin(), v->end()), shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (multiples[d] < 0)
      return im.unsupported("repeats must not be negative");
    auto m = checkedMul(xs[d], multiples[d]);
    if (!m)
      return im.unsupported("the tiled size of dimension " + Twine(d) +
                            " overflows int64");
    shape.push_back(*m);
  }
  return tileTo(im, x, shape, multiples);
}

/// The sizes of a DepthToSpace or SpaceToDepth: the blocksize and the NCHW
/// input's.
struct Blocks {
  int64_t bs, n, c, h, w;
};

FailureOr<Blocks> blocksOf(Importer &im) {
  ArrayRef<int64_t> xs = im.inShape(0);
  if (xs.size() != 4)
    return im.unsupported("the input must have rank 4");
  int64_t bs = im.attrInt("blocksize", 0);
  if (bs <= 0 || bs > (int64_t(1) << 20))
    return im.unsupported("blocksize must be positive and at most 2^20");
  // Output sizes are products of input sizes and bs (< 2^20 each): they are
  // checked like every result type.
  return Blocks{bs, xs[0], xs[1], xs[2], xs[3]};
}

LogicalResult convertDepthToSpace(Importer &im) {
  auto blocks = blocksOf(im);
  if (failed(blocks))
    return failure();
  auto [bs, n, c, h, w] = *blocks;
  if (c == 0 || c % (bs * bs))
    return im.unsupported("channels are not divisible by blocksize^2");
  int64_t oc = c / (bs * bs);
  bool crd = im.attrStr("mode", "DCR") == "CRD";
  Value t = crd ? im.reshape(im.in(0), {n, oc, bs, bs, h, w})
                : im.reshape(im.in(0), {n, bs, bs, oc, h, w});
  t = crd ? im.transpose(t, {0, 1, 4, 2, 5, 3})
          : im.transpose(t, {0, 3, 4, 1, 5, 2});
  im.setOut(0, im.reshape(t, {n, oc, h * bs, w * bs}));
  return success();
}

LogicalResult convertSpaceToDepth(Importer &im) {
  auto blocks = blocksOf(im);
  if (failed(blocks))
    return failure();
  auto [bs, n, c, h, w] = *blocks;
  if (h == 0 || w == 0 || h % bs || w % bs)
    return im.unsupported("height and width are not divisible by blocksize");
  Value t = im.reshape(im.in(0), {n, c, h / bs, bs, w / bs, bs});
  t = im.transpose(t, {0, 3, 5, 1, 2, 4});
  im.setOut(0, im.reshape(t, {n, c * bs * bs, h / bs, w / bs}));
  return success();
}

//===----------------------------------------------------------------------===//
// Slices, gathers and padding
//===----------------------------------------------------------------------===//

LogicalResult convertSlice(Importer &im) {
  auto tx = im.inType(0);
  auto starts = im.constInts(1, "starts");
  auto ends = im.constInts(2, "ends");
  if (failed(starts) || failed(ends))
    return failure();
  std::vector<int64_t> axes, steps;
  if (im.has(3)) {
    auto v = im.constInts(3, "axes");
    if (failed(v))
      return failure();
    axes = *v;
  }
  if (im.has(4)) {
    auto v = im.constInts(4, "steps");
    if (failed(v))
      return failure();
    steps = *v;
  }
  std::string err;
  auto s = sliceDims(tx.getShape(), *starts, *ends, axes, steps, err);
  if (!s)
    return im.unsupported(err);
  if (llvm::is_contained(s->size, 0))
    return im.unsupported("the slice is empty (dlc tensors have no zero-size "
                          "dimensions here)");
  // Positive steps are one dlc.slice; a dimension read backwards is then a
  // dlc.gather of constant indices.
  SmallVector<int64_t> first(s->start.begin(), s->start.end());
  SmallVector<int64_t> sizes(s->size.begin(), s->size.end());
  SmallVector<int64_t> strides(s->step.begin(), s->step.end());
  SmallVector<int64_t> reversed;
  for (size_t d = 0; d < strides.size(); ++d) {
    if (strides[d] > 0)
      continue;
    reversed.push_back(d);
    first[d] = 0;
    sizes[d] = tx.getDimSize(d);
    strides[d] = 1;
  }
  Value y = im.slice(im.in(0), first, sizes, strides);
  for (int64_t d : reversed) {
    if (failed(im.checkLiteral({s->size[d]}, rt::DType::I64,
                               "the index table of a reversed dimension")))
      return failure();
    rt::HostTensor idx(rt::DType::I64, {s->size[d]});
    for (int64_t i = 0; i < s->size[d]; ++i)
      litSetInt(idx, i, s->start[d] + i * s->step[d]);
    SmallVector<int64_t> shape(cast<RankedTensorType>(y.getType()).getShape());
    shape[d] = s->size[d];
    y = im.create<dlcir::GatherOp>(im.tensorType(shape, tx.getElementType()), y,
                                   im.constant(idx), im.b.getI64IntegerAttr(d));
  }
  im.setOut(0, y);
  return success();
}

LogicalResult convertGather(Importer &im) {
  auto tx = im.inType(0), ti = im.inType(1);
  auto a = im.axis(im.attrInt("axis", 0), tx.getRank());
  if (failed(a))
    return failure();
  if (!isa<IntegerType>(ti.getElementType()) ||
      ti.getElementType().isInteger(1))
    return im.unsupported("indices must be int32 or int64");
  SmallVector<int64_t> shape(tx.getShape().take_front(*a));
  llvm::append_range(shape, ti.getShape());
  llvm::append_range(shape, tx.getShape().drop_front(*a + 1));
  // A constant scalar index is a slice.
  if (const rt::HostTensor *l = im.lit(1); l && l->numElements() == 1) {
    int64_t i = litInt(*l, 0), d = tx.getDimSize(*a);
    if (i < -d || i >= d)
      return im.unsupported("index " + Twine(i) + " is out of range for size " +
                            Twine(d));
    if (i < 0)
      i += d;
    SmallVector<int64_t> start(tx.getRank(), 0), sizes(tx.getShape());
    start[*a] = i;
    sizes[*a] = 1;
    im.setOut(0, im.reshape(im.slice(im.in(0), start, sizes), shape));
    return success();
  }
  // Constant indices are checked here: on the device an index out of range
  // would be clamped silently.
  if (const rt::HostTensor *l = im.lit(1)) {
    int64_t d = tx.getDimSize(*a);
    for (int64_t k = 0, n = l->numElements(); k < n; ++k) {
      int64_t i = litInt(*l, k);
      if (i < -d || i >= d)
        return im.unsupported("index " + Twine(i) +
                              " is out of range for size " + Twine(d));
    }
  }
  Value data = im.in(0);
  Value indices = im.in(1);
  im.setOut(
      0, im.create<dlcir::GatherOp>(im.tensorType(shape, tx.getElementType()),
                                    data, indices, im.b.getI64IntegerAttr(*a)));
  return success();
}

LogicalResult convertSplit(Importer &im) {
  auto tx = im.inType(0);
  auto a = im.axis(im.attrInt("axis", 0), tx.getRank());
  if (failed(a))
    return failure();
  int64_t d = tx.getDimSize(*a);
  std::vector<int64_t> sizes;
  if (im.has(1)) {
    auto v = im.constInts(1, "split");
    if (failed(v))
      return failure();
    sizes = *v;
  } else if (auto v = im.attrInts("split")) {
    sizes = *v;
  } else {
    int64_t n = im.attrInt("num_outputs", im.node->output_size());
    if (n <= 0 || n != im.node->output_size())
      return im.unsupported("num_outputs must be the number of outputs (" +
                            Twine(im.node->output_size()) + ")");
    int64_t chunk = (d + n - 1) / n;
    for (int64_t i = 0; i < n; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, d - i * chunk)));
  }
  if ((int)sizes.size() != im.node->output_size())
    return im.unsupported("split gives " + Twine(sizes.size()) + " sizes for " +
                          Twine(im.node->output_size()) + " outputs");
  int64_t sum = 0;
  for (int64_t s : sizes) {
    auto next = s < 0 ? std::nullopt : checkedAdd(sum, s);
    if (!next)
      return im.unsupported("split sizes must be non-negative and add up to " +
                            Twine(d));
    sum = *next;
  }
  if (sum != d)
    return im.unsupported("split sizes add up to " + Twine(sum) + ", not " +
                          Twine(d));
  int64_t offset = 0;
  for (auto [i, s] : llvm::enumerate(sizes)) {
    SmallVector<int64_t> start(tx.getRank(), 0), shape(tx.getShape());
    start[*a] = offset;
    shape[*a] = s;
    offset += s;
    if (s == 0) {
      if (im.isUsed(im.node->output(i)))
        return im.unsupported("an empty split output is used");
      continue;
    }
    im.setOut(i, im.slice(im.in(0), start, shape));
  }
  return success();
}

LogicalResult convertPad(Importer &im) {
  std::string mode = im.attrStr("mode", "constant");
  if (mode != "constant")
    return im.unsupported("Pad mode '" + mode +
                          "' is not supported (constant "
                          "only)");
  auto tx = im.inType(0);
  int64_t rank = tx.getRank();
  auto pads = im.constInts(1, "pads");
  if (failed(pads))
    return failure();
  std::vector<int64_t> axes;
  if (im.has(3)) {
    auto v = im.constInts(3, "axes");
    if (failed(v))
      return failure();
    axes = *v;
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  if (pads->size() != 2 * axes.size())
    return im.unsupported("pads must have two entries per padded axis");
  SmallVector<int64_t> low(rank, 0), high(rank, 0), shape(tx.getShape());
  for (auto [i, a] : llvm::enumerate(axes)) {
    auto n = im.axis(a, rank);
    if (failed(n))
      return failure();
    low[*n] = (*pads)[i];
    high[*n] = (*pads)[i + axes.size()];
    if (low[*n] < 0 || high[*n] < 0)
      return im.unsupported("negative pads are not supported");
    auto padded = checkedAdd(shape[*n], low[*n]);
    if (padded)
      padded = checkedAdd(*padded, high[*n]);
    if (!padded)
      return im.unsupported("the padded size of dimension " + Twine(*n) +
                            " overflows int64");
    shape[*n] = *padded;
  }
  if (failed(im.checkType(shape, tx.getElementType(), "the output")))
    return failure();
  double value = 0;
  if (im.has(2)) {
    const rt::HostTensor *l = im.lit(2);
    if (!l || l->numElements() != 1)
      return im.unsupported("constant_value must be a constant scalar");
    value = litDouble(*l, 0);
  }
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; })) {
    im.outs[0] = *im.ins[0];
    return success();
  }
  OpBuilder &b = im.b;
  im.setOut(0, im.create<dlcir::PadOp>(
                   im.tensorType(shape, tx.getElementType()), im.in(0),
                   b.getDenseI64ArrayAttr(low), b.getDenseI64ArrayAttr(high),
                   b.getF64FloatAttr(value)));
  return success();
}

LogicalResult convertResize(Importer &im) {
  auto tx = im.inType(0);
  int64_t rank = tx.getRank();
  std::string mode = im.attrStr("mode", "nearest");
  std::string coord =
      im.attrStr("coordinate_transformation_mode", "half_pixel");
  std::string nearest = im.attrStr("nearest_mode", "round_prefer_floor");
  if (mode != "nearest" && mode != "linear")
    return im.unsupported("Resize mode '" + mode +
                          "' is not supported (nearest "
                          "and linear only)");
  if (coord != "half_pixel" && coord != "asymmetric" &&
      coord != "align_corners" && coord != "pytorch_half_pixel")
    return im.unsupported("coordinate_transformation_mode '" + coord +
                          "' is not supported");
  if (im.attrInt("exclude_outside", 0))
    return im.unsupported("exclude_outside=1 is not supported");
  SmallVector<int64_t> shape;
  if (im.has(3) && im.inType(3).getNumElements() > 0) {
    auto v = im.constInts(3, "sizes");
    if (failed(v))
      return failure();
    shape.assign(v->begin(), v->end());
  } else if (im.has(2) && im.inType(2).getNumElements() > 0) {
    const rt::HostTensor *l = im.lit(2);
    if (!l)
      return im.unsupported("the scales input must be a constant");
    for (int64_t d = 0; d < rank && d < l->numElements(); ++d) {
      double s = litDouble(*l, d);
      if (!(s > 0) || !std::isfinite(s) || tx.getDimSize(d) == 0)
        return im.unsupported("scale " + Twine(std::to_string(s)) +
                              " of dimension " + Twine(d) +
                              " must be positive and finite, of a non-empty "
                              "dimension");
      double scaled = std::floor(tx.getDimSize(d) * s);
      if (scaled > (double)mlir::dlc::kMaxTensorBytes)
        return im.unsupported("scale " + Twine(std::to_string(s)) +
                              " of dimension " + Twine(d) +
                              " gives a size larger than 2^40");
      int64_t o = (int64_t)scaled;
      // dlc.resize scales by out/in: a scale that floors to another ratio
      // would sample elsewhere.
      if (std::fabs((double)o / tx.getDimSize(d) - s) > 1e-6 * s)
        return im.unsupported(
            "scale " + Twine(std::to_string(s)) + " of dimension " + Twine(d) +
            " is not output/input size (" + Twine(o) + "/" +
            Twine(tx.getDimSize(d)) + "); give sizes instead");
      shape.push_back(o);
    }
  } else {
    return im.unsupported("Resize needs scales or sizes");
  }
  if ((int64_t)shape.size() != rank)
    return im.unsupported("scales/sizes must have one entry per dimension");
  if (failed(im.checkType(shape, tx.getElementType(), "the output")))
    return failure();
  if (llvm::is_contained(shape, 0))
    return im.unsupported("the output would be empty");
  OpBuilder &b = im.b;
  im.setOut(0, im.create<dlcir::ResizeOp>(
                   im.tensorType(shape, tx.getElementType()), im.in(0),
                   b.getStringAttr(mode), b.getStringAttr(coord),
                   b.getStringAttr(nearest)));
  return success();
}

} // namespace

void registerDataMovementOps(OpRegistry &registry) {
  auto on = [&](StringRef name, OpHandler handler, unsigned required = 1) {
    registry.onOp(name, kMinOpset, std::move(handler), required);
  };
  on("Identity", convertIdentity);
  on("Dropout", convertDropout);
  on("Reshape", convertReshape);
  on("Flatten", convertFlatten);
  on("Squeeze", convertSqueeze</*squeeze=*/true>);
  on("Unsqueeze", convertSqueeze</*squeeze=*/false>);
  on("Transpose", convertTranspose);
  on("Concat", convertConcat);
  on("Expand", convertExpand);
  on("Tile", convertTile);
  on("DepthToSpace", convertDepthToSpace);
  on("SpaceToDepth", convertSpaceToDepth);
  on("Slice", convertSlice);
  on("Gather", convertGather, 2);
  on("Split", convertSplit);
  on("Pad", convertPad);
  on("Resize", convertResize);
}

} // namespace dlc::onnximport
