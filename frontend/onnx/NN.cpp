//===- NN.cpp - ONNX matrix products, convolution, pooling, BatchNorm -----===//
//
// MatMul and Gemm become dlc.matmul; Conv, ConvTranspose and the poolings
// their 2-D dlc ops (1-D ones over a height of 1). A BatchNormalization that
// only follows a Conv with constant weights is folded into them.
//
//===----------------------------------------------------------------------===//
#include "frontend/onnx/Importer.h"

#include <cmath>

using namespace mlir;

namespace dlc::onnximport {
namespace {

LogicalResult convertMatMul(Importer &im) {
  Value a = im.in(0), bv = im.in(1);
  auto ta = im.inType(0), tb = im.inType(1);
  if (ta.getElementType() != tb.getElementType())
    return im.unsupported("operand element types differ");
  if (ta.getRank() == 0 || tb.getRank() == 0)
    return im.unsupported("MatMul operands must have rank 1 or more");
  bool dropM = false, dropN = false;
  if (ta.getRank() == 1) {
    a = im.reshape(a, {1, ta.getDimSize(0)});
    dropM = true;
  }
  if (tb.getRank() == 1) {
    bv = im.reshape(bv, {tb.getDimSize(0), 1});
    dropN = true;
  }
  auto sa = cast<RankedTensorType>(a.getType()).getShape();
  auto sb = cast<RankedTensorType>(bv.getType()).getShape();
  int64_t rank = std::max(sa.size(), sb.size());
  if (sa[sa.size() - 1] != sb[sb.size() - 2])
    return im.unsupported(
        "contraction sizes differ: " + dlcir::formatShape(sa) + " x " +
        dlcir::formatShape(sb));
  auto batch = numpyBroadcast({sa.drop_back(2), sb.drop_back(2)});
  if (!batch)
    return im.unsupported("batch dimensions do not broadcast");
  a = im.toRank(a, rank);
  bv = im.toRank(bv, rank);
  SmallVector<int64_t> shape(batch->begin(), batch->end());
  int64_t m = sa[sa.size() - 2], n = sb[sb.size() - 1];
  shape.push_back(m);
  shape.push_back(n);
  // Without a bias or an addend (dlc-fuse-epilogue may add them later).
  Value y = im.create<dlcir::MatmulOp>(
      im.tensorType(shape, ta.getElementType()), a, bv,
      /*transpose_a=*/false, /*transpose_b=*/false, /*acc_type=*/TypeAttr());
  SmallVector<int64_t> outShape(batch->begin(), batch->end());
  if (!dropM)
    outShape.push_back(m);
  if (!dropN)
    outShape.push_back(n);
  im.setOut(0, im.reshape(y, outShape));
  return success();
}

/// One operand of an Einsum: a label per dimension (letters 0-51, the
/// dimensions an ellipsis stands for 100 + their position from the right,
/// so that they line up across operands as numpy broadcasting does).
using Labels = SmallVector<int64_t>;

/// Parses one term of an Einsum equation for a value of rank `rank` (-1:
/// the output, whose ellipsis stands for `ellipsisRank` dimensions).
FailureOr<Labels> parseEinsumTerm(Importer &im, StringRef term, int64_t rank,
                                  int64_t ellipsisRank) {
  Labels labels;
  int64_t ellipsisAt = -1;
  for (size_t i = 0; i < term.size(); ++i) {
    char c = term[i];
    if (c == '.') {
      if (ellipsisAt >= 0 || !term.substr(i).starts_with("..."))
        return im.unsupported("equation term '" + term +
                              "' has a malformed ellipsis");
      ellipsisAt = labels.size();
      i += 2;
    } else if (c >= 'a' && c <= 'z') {
      labels.push_back(c - 'a');
    } else if (c >= 'A' && c <= 'Z') {
      labels.push_back(26 + (c - 'A'));
    } else {
      return im.unsupported("equation term '" + term +
                            "' has a character that is not a letter");
    }
  }
  int64_t letters = labels.size();
  int64_t dots = 0;
  if (rank >= 0) {
    if (ellipsisAt < 0 ? letters != rank : letters > rank)
      return im.unsupported("equation term '" + term +
                            "' does not match rank " + Twine(rank));
    dots = ellipsisAt < 0 ? 0 : rank - letters;
  } else if (ellipsisAt >= 0) {
    dots = ellipsisRank;
  }
  if (ellipsisAt >= 0) {
    Labels ellipsis;
    for (int64_t j = dots; j > 0; --j)
      ellipsis.push_back(100 + j - 1);
    labels.insert(labels.begin() + ellipsisAt, ellipsis.begin(),
                  ellipsis.end());
  }
  for (size_t i = 0; i < labels.size(); ++i)
    for (size_t j = i + 1; j < labels.size(); ++j)
      if (labels[i] == labels[j])
        return im.unsupported("equation term '" + term +
                              "' repeats an index (a diagonal)");
  return labels;
}

/// Sums `x` (labelled `labels`) over the labels `keep` lacks.
Value sumOutLabels(Importer &im, Value x, Labels &labels,
                   llvm::function_ref<bool(int64_t)> keep) {
  SmallVector<int64_t> axes, shape;
  Labels kept;
  auto dims = cast<RankedTensorType>(x.getType()).getShape();
  for (auto [d, l] : llvm::enumerate(labels)) {
    if (keep(l)) {
      kept.push_back(l);
      shape.push_back(dims[d]);
    } else {
      axes.push_back(d);
    }
  }
  if (axes.empty())
    return x;
  labels = kept;
  return im.reshape(im.reduce(dlcir::ReduceKind::sum, x, axes), shape);
}

/// Einsum of one or two operands: transposes, sums and one batched
/// dlc.matmul. Labels in both operands and the output are the product's
/// batch, those in both operands only its contraction, the others its rows
/// (the first operand's) and columns (the second's); a label in one operand
/// only and not in the output is summed first.
LogicalResult convertEinsum(Importer &im) {
  std::string text;
  for (char c : im.attrStr("equation", ""))
    if (c != ' ')
      text.push_back(c);
  StringRef eq(text);
  auto [lhsText, outText] = eq.split("->");
  bool explicitOut = eq.contains("->");
  SmallVector<StringRef> terms;
  lhsText.split(terms, ',');
  int64_t n = im.ins.size();
  if (n < 1 || n > 2)
    return im.unsupported("Einsum of " + Twine(n) +
                          " operands (dlc takes one or two)");
  if (int64_t(terms.size()) != n)
    return im.unsupported("equation '" + eq + "' has " + Twine(terms.size()) +
                          " terms for " + Twine(n) + " operands");
  Type elem = im.inType(0).getElementType();
  if (!isa<FloatType>(elem) ||
      (n == 2 && im.inType(1).getElementType() != elem))
    return im.unsupported("operands must be floats of one type");
  SmallVector<Labels> in;
  DenseMap<int64_t, int64_t> size;
  int64_t ellipsisRank = 0;
  for (int64_t i = 0; i < n; ++i) {
    auto t = im.inType(i);
    FailureOr<Labels> l = parseEinsumTerm(im, terms[i], t.getRank(), 0);
    if (failed(l))
      return failure();
    for (auto [d, label] : llvm::enumerate(*l)) {
      int64_t s = t.getDimSize(d);
      auto [it, fresh] = size.try_emplace(label, s);
      if (fresh || it->second == s)
        continue;
      // Dimensions under an ellipsis broadcast; letters must agree.
      if (label < 100 || (it->second != 1 && s != 1))
        return im.unsupported("index sizes differ between operands: " +
                              Twine(it->second) + " and " + Twine(s));
      it->second = std::max(it->second, s);
    }
    for (int64_t label : *l)
      if (label >= 100)
        ellipsisRank = std::max(ellipsisRank, label - 99);
    in.push_back(std::move(*l));
  }
  Labels out;
  if (explicitOut) {
    FailureOr<Labels> l = parseEinsumTerm(im, outText, -1, ellipsisRank);
    if (failed(l))
      return failure();
    out = std::move(*l);
    for (int64_t label : out)
      if (!size.count(label))
        return im.unsupported("output index of '" + eq + "' is in no operand");
  } else {
    // Implicit output: the ellipsis, then the letters used once, sorted.
    for (int64_t j = ellipsisRank; j > 0; --j)
      out.push_back(100 + j - 1);
    for (int64_t label = 0; label < 52; ++label) {
      int64_t uses = 0;
      for (const Labels &l : in)
        uses += llvm::count(l, label);
      if (uses == 1)
        out.push_back(label);
    }
  }
  auto inOut = [&](int64_t l) { return llvm::is_contained(out, l); };
  auto position = [](const Labels &l, int64_t label) {
    return int64_t(llvm::find(l, label) - l.begin());
  };
  SmallVector<Value> x = {im.in(0)};
  if (n == 2)
    x.push_back(im.in(1));

  if (n == 1) {
    Value y = sumOutLabels(im, x[0], in[0], inOut);
    SmallVector<int64_t> perm;
    for (int64_t l : out)
      perm.push_back(position(in[0], l));
    im.setOut(0, im.transpose(y, perm));
    return success();
  }

  // Labels of one operand only that the output lacks are summed first.
  for (int i = 0; i < 2; ++i)
    x[i] = sumOutLabels(im, x[i], in[i], [&](int64_t l) {
      return inOut(l) || llvm::is_contained(in[1 - i], l);
    });
  Labels batch, rows, cols, contracted;
  for (int64_t l : out) {
    bool a = llvm::is_contained(in[0], l), b = llvm::is_contained(in[1], l);
    (a && b ? batch : a ? rows : cols).push_back(l);
  }
  for (int64_t l : in[0])
    if (!inOut(l))
      contracted.push_back(l);
  // Each operand as [batch..., rows or columns, contraction], or with the
  // last two swapped (a transposed operand of the product) where that is
  // the order it has already.
  auto shapeOf = [&](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  auto product = [&](const Labels &ls) {
    int64_t p = 1;
    for (int64_t l : ls)
      p *= size[l];
    return p;
  };
  SmallVector<int64_t> batchShape[2];
  bool swapped[2] = {false, false};
  for (int i = 0; i < 2; ++i) {
    const Labels &free = i == 0 ? rows : cols;
    auto permFor = [&](const Labels &second, const Labels &third) {
      SmallVector<int64_t> perm;
      for (const Labels *group : {(const Labels *)&batch, &second, &third})
        for (int64_t l : *group)
          perm.push_back(position(in[i], l));
      return perm;
    };
    SmallVector<int64_t> perm = permFor(free, contracted);
    SmallVector<int64_t> other = permFor(contracted, free);
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())) &&
        llvm::equal(other, llvm::seq<int64_t>(0, other.size()))) {
      perm = other;
      swapped[i] = true;
    }
    Value t = im.transpose(x[i], perm);
    ArrayRef<int64_t> dims = shapeOf(t);
    batchShape[i].assign(dims.begin(), dims.begin() + batch.size());
    SmallVector<int64_t> shape = batchShape[i];
    shape.push_back(swapped[i] ? product(contracted) : product(free));
    shape.push_back(swapped[i] ? product(free) : product(contracted));
    x[i] = im.reshape(t, shape);
  }
  auto batchDims = numpyBroadcast({batchShape[0], batchShape[1]});
  if (!batchDims)
    return im.unsupported("batch indices do not broadcast");
  SmallVector<int64_t> shape(batchDims->begin(), batchDims->end());
  shape.push_back(product(rows));
  shape.push_back(product(cols));
  Value y = im.create<dlcir::MatmulOp>(im.tensorType(shape, elem), x[0], x[1],
                                       /*transpose_a=*/swapped[0],
                                       /*transpose_b=*/!swapped[1],
                                       /*acc_type=*/TypeAttr());
  // [batch..., rows..., columns...], then the output's order.
  Labels have = batch;
  have.append(rows.begin(), rows.end());
  have.append(cols.begin(), cols.end());
  SmallVector<int64_t> full(batchDims->begin(), batchDims->end());
  for (const Labels *group : {(const Labels *)&rows, (const Labels *)&cols})
    for (int64_t l : *group)
      full.push_back(size[l]);
  y = im.reshape(y, full);
  SmallVector<int64_t> perm;
  for (int64_t l : out)
    perm.push_back(position(have, l));
  im.setOut(0, im.transpose(y, perm));
  return success();
}

LogicalResult convertGemm(Importer &im) {
  auto ta = im.inType(0), tb = im.inType(1);
  if (ta.getRank() != 2 || tb.getRank() != 2)
    return im.unsupported("Gemm operands must be matrices");
  bool transA = im.attrInt("transA", 0), transB = im.attrInt("transB", 0);
  int64_t m = ta.getDimSize(transA ? 1 : 0), k = ta.getDimSize(transA ? 0 : 1);
  int64_t kb = tb.getDimSize(transB ? 1 : 0), n = tb.getDimSize(transB ? 0 : 1);
  if (k != kb)
    return im.unsupported("contraction sizes differ: " + Twine(k) + " and " +
                          Twine(kb));
  // Without a bias or an addend: the bias add below is a separate op, which
  // dlc-fuse-epilogue may fold into the product later.
  Type elem = ta.getElementType();
  Value lhs = im.in(0);
  Value rhs = im.in(1);
  Value y = im.create<dlcir::MatmulOp>(im.tensorType({m, n}, elem), lhs, rhs,
                                       transA, transB, /*acc_type=*/TypeAttr());
  y = im.scale(y, im.attrFloat("alpha", 1.0));
  double beta = im.attrFloat("beta", 1.0);
  if (im.has(2) && beta != 0.0) {
    Value c = im.scale(im.in(2), beta);
    auto sum = im.binary<dlcir::AddOp>(y, c);
    if (failed(sum))
      return failure();
    if (cast<RankedTensorType>((*sum).getType()).getShape() !=
        ArrayRef<int64_t>{m, n})
      return im.unsupported("C does not broadcast to the product's shape");
    y = *sum;
  }
  im.setOut(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// Reads ONNX 2-D window attributes (kernel from `kernel`), resolving
/// auto_pad; fills pads as top, left, bottom, right and the output size.
LogicalResult windowAttrs(Importer &im, ArrayRef<int64_t> in,
                          ArrayRef<int64_t> kernel, bool ceilMode,
                          SmallVectorImpl<int64_t> &strides,
                          SmallVectorImpl<int64_t> &pads,
                          SmallVectorImpl<int64_t> &dilations,
                          SmallVectorImpl<int64_t> &out) {
  size_t nd = kernel.size();
  auto get = [&](StringRef name, size_t n, int64_t def,
                 SmallVectorImpl<int64_t> &dst) -> LogicalResult {
    auto v = im.attrInts(name);
    dst.assign(n, def);
    if (!v)
      return success();
    if (v->size() != n)
      return im.unsupported("attribute '" + name + "' has " + Twine(v->size()) +
                            " values, expected " + Twine(n));
    dst.assign(v->begin(), v->end());
    return success();
  };
  if (failed(get("strides", nd, 1, strides)) ||
      failed(get("dilations", nd, 1, dilations)) ||
      failed(get("pads", 2 * nd, 0, pads)))
    return failure();
  std::string autoPad = im.attrStr("auto_pad", "NOTSET");
  out.assign(nd, 0);
  // Window sizes beyond a tensor's extent limit (2^40) are errors below; up
  // to it, none of the arithmetic can overflow.
  constexpr int64_t kMaxWindow = int64_t(1) << 40;
  for (size_t i = 0; i < nd; ++i) {
    if (strides[i] <= 0 || dilations[i] <= 0 || strides[i] > kMaxWindow ||
        dilations[i] > kMaxWindow)
      return im.unsupported(
          "strides and dilations must be positive and at most "
          "2^40");
    if (kernel[i] <= 0 || kernel[i] > kMaxWindow)
      return im.unsupported("kernel sizes must be positive and at most 2^40");
    if (pads[i] < 0 || pads[i + nd] < 0 || pads[i] > kMaxWindow ||
        pads[i + nd] > kMaxWindow)
      return im.unsupported("pads must be non-negative and at most 2^40");
    auto effective = checkedMul(kernel[i] - 1, dilations[i]);
    if (!effective || *effective >= kMaxWindow)
      return im.unsupported("the dilated kernel is larger than 2^40");
    int64_t eff = *effective + 1;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t o = (in[i] + strides[i] - 1) / strides[i];
      int64_t total = std::max<int64_t>(0, (o - 1) * strides[i] + eff - in[i]);
      int64_t small = total / 2;
      pads[i] = autoPad == "SAME_UPPER" ? small : total - small;
      pads[i + nd] = total - pads[i];
      out[i] = o;
      continue;
    }
    if (autoPad == "VALID") {
      pads[i] = pads[i + nd] = 0;
    } else if (autoPad != "NOTSET") {
      return im.unsupported("auto_pad '" + autoPad + "' is not supported");
    }
    int64_t span = in[i] + pads[i] + pads[i + nd] - eff;
    if (span < 0)
      return im.unsupported("the window is larger than the padded input");
    int64_t o = ceilMode ? (span + strides[i] - 1) / strides[i] + 1
                         : span / strides[i] + 1;
    // As in PyTorch: the last window must start inside the input or the
    // leading padding.
    if (ceilMode && (o - 1) * strides[i] >= in[i] + pads[i])
      --o;
    out[i] = o;
  }
  return success();
}

LogicalResult convertConv(Importer &im) {
  if (!im.has(0) || !im.has(1))
    return im.unsupported("Conv needs an input and weights");
  auto tx = im.inType(0), tw = im.inType(1);
  Type elem = tx.getElementType();
  if (!isa<FloatType>(elem) || tw.getElementType() != elem)
    return im.unsupported("Conv needs float input and weights of one type");
  int64_t rank = tx.getRank();
  if (rank != 3 && rank != 4)
    return im.unsupported("only 1-D and 2-D convolutions are supported, not " +
                          Twine(rank - 2) + "-D");
  if (tw.getRank() != rank)
    return im.unsupported("the weights' rank differs from the input's");
  bool is1d = rank == 3;
  SmallVector<int64_t> xs(tx.getShape()), ws(tw.getShape());
  int64_t group = im.attrInt("group", 1);
  auto groupChannels = checkedMul(ws[1], group);
  if (group <= 0 || !groupChannels || xs[1] != *groupChannels ||
      ws[0] % group != 0)
    return im.unsupported("input channels " + Twine(xs[1]) + ", weight shape " +
                          dlcir::formatShape(ws) + " and group " +
                          Twine(group) + " do not match");
  SmallVector<int64_t> kernel(ArrayRef<int64_t>(ws).drop_front(2));
  SmallVector<int64_t> strides, pads, dil, out;
  if (failed(windowAttrs(im, ArrayRef<int64_t>(xs).drop_front(2), kernel, false,
                         strides, pads, dil, out)))
    return failure();
  if (is1d) {
    // A 1-D convolution is a 2-D one over a height of 1.
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
    out.insert(out.begin(), 1);
    xs.insert(xs.begin() + 2, 1);
    ws.insert(ws.begin() + 2, 1);
  }
  int64_t oc = ws[0];

  // Weights and bias, with a following BatchNormalization folded in.
  Value w, bias;
  const onnx::NodeProto *bn =
      im.foldsWeights() && im.lit(1) && (!im.has(2) || im.lit(2))
          ? im.foldableBatchNorm(*im.node)
          : nullptr;
  if (bn) {
    auto L = [&](int i) { return im.literalNamed(bn->input(i)); };
    Lit gamma = L(1), beta = L(2), mean = L(3), var = L(4);
    if (oc == 0 || gamma->numElements() != oc || beta->numElements() != oc ||
        mean->numElements() != oc || var->numElements() != oc)
      bn = nullptr;
    else {
      double eps = 1e-5;
      for (const auto &a : bn->attribute())
        if (a.name() == "epsilon")
          eps = a.f();
      rt::HostTensor nw = *im.lit(1);
      nw.shape.assign(ws.begin(), ws.end());
      rt::HostTensor nb(*dlcir::dtypeOf(elem), {1, oc, 1, 1});
      int64_t per = nw.numElements() / oc;
      for (int64_t o = 0; o < oc; ++o) {
        double a = litDouble(*gamma, o) / std::sqrt(litDouble(*var, o) + eps);
        for (int64_t j = 0; j < per; ++j)
          nw.setFromDouble(o * per + j, nw.getAsDouble(o * per + j) * a);
        double b0 = im.has(2) ? litDouble(*im.lit(2), o) : 0.0;
        nb.setFromDouble(o,
                         (b0 - litDouble(*mean, o)) * a + litDouble(*beta, o));
      }
      // Both are named after the Conv's weights.
      w = im.constant(nw, im.node->input(1));
      bias = im.constant(nb, im.node->input(1));
    }
  }
  if (!bn) {
    w = im.reshape(im.in(1), ws);
    if (im.has(2)) {
      if (im.inType(2).getNumElements() != oc)
        return im.unsupported(
            "the bias has " + Twine(im.inType(2).getNumElements()) +
            " elements for " + Twine(oc) + " output channels");
      bias = im.reshape(im.in(2), {1, oc, 1, 1});
    }
  }
  Value x = im.reshape(im.in(0), xs);
  OpBuilder &b = im.b;
  Value y = im.create<dlcir::Conv2DOp>(
      im.tensorType({xs[0], oc, out[0], out[1]}, elem), x, w,
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(pads),
      b.getDenseI64ArrayAttr(dil), b.getI64IntegerAttr(group),
      /*acc_type=*/TypeAttr());
  if (bias)
    y = im.create<dlcir::AddOp>(y.getType(), y, bias);
  if (is1d)
    y = im.reshape(y, {xs[0], oc, out[1]});
  im.setOut(0, y);
  // The BatchNormalization's output is this node's.
  if (bn)
    im.absorb(*bn, y);
  return success();
}

LogicalResult convertConvTranspose(Importer &im) {
  if (!im.has(0) || !im.has(1))
    return im.unsupported("ConvTranspose needs an input and weights");
  auto tx = im.inType(0), tw = im.inType(1);
  Type elem = tx.getElementType();
  if (!isa<FloatType>(elem) || tw.getElementType() != elem)
    return im.unsupported("ConvTranspose needs float input and weights of one "
                          "type");
  int64_t rank = tx.getRank();
  if ((rank != 3 && rank != 4) || tw.getRank() != rank)
    return im.unsupported("only 1-D and 2-D transposed convolutions are "
                          "supported");
  size_t nd = rank - 2;
  SmallVector<int64_t> xs(tx.getShape()), ws(tw.getShape());
  int64_t group = im.attrInt("group", 1);
  if (group <= 0 || ws[0] != xs[1] || xs[1] % group != 0)
    return im.unsupported("the weights' first dimension must equal the input "
                          "channels, a multiple of group");
  auto outChannels = checkedMul(ws[1], group);
  if (!outChannels)
    return im.unsupported("the output channels overflow int64");
  int64_t oc = *outChannels;
  auto ints = [&](StringRef name, size_t n, int64_t def) {
    auto v = im.attrInts(name);
    return v && v->size() == n ? SmallVector<int64_t>(v->begin(), v->end())
                               : SmallVector<int64_t>(n, def);
  };
  // Every size is at most 2^40 (checked below or a tensor extent): the
  // arithmetic after this cannot overflow.
  constexpr int64_t kMaxWindow = int64_t(1) << 40;
  auto inRange = [&](ArrayRef<int64_t> v, int64_t lo) {
    return llvm::all_of(v,
                        [&](int64_t x) { return x >= lo && x <= kMaxWindow; });
  };
  SmallVector<int64_t> strides = ints("strides", nd, 1),
                       dil = ints("dilations", nd, 1),
                       pads = ints("pads", 2 * nd, 0),
                       outPad = ints("output_padding", nd, 0);
  std::string autoPad = im.attrStr("auto_pad", "NOTSET");
  auto outputShape = im.attrInts("output_shape");
  if (!inRange(strides, 1) || !inRange(dil, 1))
    return im.unsupported("strides and dilations must be positive and at most "
                          "2^40");
  if (!inRange(pads, 0) || !inRange(outPad, 0))
    return im.unsupported("pads and output_padding must be non-negative and at "
                          "most 2^40");
  if (outputShape && !outputShape->empty() &&
      (outputShape->size() < nd || !inRange(*outputShape, 0)))
    return im.unsupported("output_shape must give the " + Twine(nd) +
                          " spatial sizes, each between 0 and 2^40");
  if (!inRange(ArrayRef<int64_t>(ws).drop_front(2), 1))
    return im.unsupported("kernel sizes must be positive");
  SmallVector<int64_t> out(nd);
  for (size_t i = 0; i < nd; ++i) {
    int64_t in = xs[2 + i], k = ws[2 + i];
    auto stretched = checkedMul(strides[i], in - 1);
    auto dilated = checkedMul(k - 1, dil[i]);
    // Both products below 2^61: the sum fits (the result type is checked).
    constexpr int64_t kMaxTerm = int64_t(1) << 61;
    if (in == 0 || !stretched || !dilated || *stretched > kMaxTerm ||
        *dilated > kMaxTerm)
      return im.unsupported("the output size overflows int64");
    int64_t full = *stretched + outPad[i] + *dilated + 1;
    int64_t target = -1;
    if (outputShape && !outputShape->empty())
      target = (*outputShape)[outputShape->size() - nd + i];
    else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
      target = *stretched + strides[i]; // in * stride, below 2^62
    if (target >= 0) {
      int64_t total = full - target;
      if (total < 0) {
        // A larger output_shape extends the end, as output_padding does.
        outPad[i] += -total;
        full = target;
        total = 0;
      }
      if (autoPad == "SAME_UPPER") {
        pads[i] = total / 2;
        pads[i + nd] = total - total / 2;
      } else {
        pads[i] = total - total / 2;
        pads[i + nd] = total / 2;
      }
    } else if (autoPad == "VALID") {
      pads[i] = pads[i + nd] = 0;
    }
    out[i] = full - pads[i] - pads[i + nd];
    if (out[i] <= 0)
      return im.unsupported("the output would be empty");
  }
  if (nd == 1) {
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
    outPad.insert(outPad.begin(), 0);
    pads = {0, pads[0], 0, pads[1]};
    out.insert(out.begin(), 1);
    xs.insert(xs.begin() + 2, 1);
    ws.insert(ws.begin() + 2, 1);
  }
  Value x = im.reshape(im.in(0), xs);
  Value w = im.reshape(im.in(1), ws);
  OpBuilder &b = im.b;
  Value y = im.create<dlcir::ConvTranspose2DOp>(
      im.tensorType({xs[0], oc, out[0], out[1]}, elem), x, w,
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(pads),
      b.getDenseI64ArrayAttr(dil), b.getDenseI64ArrayAttr(outPad),
      b.getI64IntegerAttr(group), /*acc_type=*/TypeAttr());
  if (im.has(2))
    y = im.create<dlcir::AddOp>(y.getType(), y,
                                im.reshape(im.in(2), {1, oc, 1, 1}));
  if (nd == 1)
    y = im.reshape(y, {xs[0], oc, out[1]});
  im.setOut(0, y);
  return success();
}

/// The rank of a pooling's input, 3 or more.
FailureOr<int64_t> poolRank(Importer &im) {
  int64_t rank = im.inType(0).getRank();
  if (rank < 3)
    return im.unsupported("pooling needs an input of rank 3 or more");
  return rank;
}

/// GlobalMaxPool and GlobalAveragePool: a reduction over every spatial
/// dimension.
template <bool isMax> LogicalResult convertGlobalPool(Importer &im) {
  auto tx = im.inType(0);
  auto rank = poolRank(im);
  if (failed(rank))
    return failure();
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < *rank; ++d)
    axes.push_back(d);
  if (isMax) {
    im.setOut(0, im.reduce(dlcir::ReduceKind::max, im.in(0), axes));
    return success();
  }
  if (!isa<FloatType>(tx.getElementType()))
    return im.unsupported("GlobalAveragePool needs a float input");
  int64_t n = product(tx.getShape().drop_front(2));
  im.setOut(
      0, im.scale(im.reduce(dlcir::ReduceKind::sum, im.in(0), axes), 1.0 / n));
  return success();
}

/// MaxPool and AveragePool.
template <bool isMax> LogicalResult convertPool(Importer &im) {
  auto tx = im.inType(0);
  Type elem = tx.getElementType();
  auto poolInputRank = poolRank(im);
  if (failed(poolInputRank))
    return failure();
  int64_t rank = *poolInputRank;
  if (rank != 3 && rank != 4)
    return im.unsupported("only 1-D and 2-D pooling is supported");
  if (isMax && im.attrInt("storage_order", 0) != 0)
    return im.unsupported("storage_order 1 is not supported");
  if (im.node->output_size() > 1 && !im.node->output(1).empty() &&
      im.isUsed(im.node->output(1)))
    return im.unsupported("the Indices output of MaxPool is not supported");
  auto kernelAttr = im.attrInts("kernel_shape");
  if (!kernelAttr || (int64_t)kernelAttr->size() != rank - 2)
    return im.unsupported("kernel_shape must give " + Twine(rank - 2) +
                          " sizes");
  SmallVector<int64_t> kernel(kernelAttr->begin(), kernelAttr->end());
  SmallVector<int64_t> strides, pads, dil, out;
  SmallVector<int64_t> xs(tx.getShape());
  if (failed(windowAttrs(im, ArrayRef<int64_t>(xs).drop_front(2), kernel,
                         im.attrInt("ceil_mode", 0) != 0, strides, pads, dil,
                         out)))
    return failure();
  bool is1d = rank == 3;
  if (is1d) {
    kernel.insert(kernel.begin(), 1);
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
    out.insert(out.begin(), 1);
    xs.insert(xs.begin() + 2, 1);
  }
  OpBuilder &b = im.b;
  UnitAttr countIncludePad;
  if (!isMax && im.attrInt("count_include_pad", 0))
    countIncludePad = b.getUnitAttr();
  Value x = im.reshape(im.in(0), xs);
  Value y = im.create<dlcir::Pool2DOp>(
      im.tensorType({xs[0], xs[1], out[0], out[1]}, elem),
      dlcir::PoolKindAttr::get(im.ctx, isMax ? dlcir::PoolKind::max
                                             : dlcir::PoolKind::avg),
      x, b.getDenseI64ArrayAttr(kernel), b.getDenseI64ArrayAttr(strides),
      b.getDenseI64ArrayAttr(pads), b.getDenseI64ArrayAttr(dil),
      countIncludePad);
  if (is1d)
    y = im.reshape(y, {xs[0], xs[1], out[1]});
  im.setOut(0, y);
  return success();
}

/// BatchNormalization with training_mode=1: normalized by the batch's
/// statistics over every dimension but 1, outputs 1 and 2 the running
/// statistics `running * m + statistic * (1 - m)` (ONNX's momentum m is
/// PyTorch's 1 - momentum). The variance the running one takes is the
/// biased one by ONNX's definition, the unbiased one in a model PyTorch
/// exported (producer "pytorch"), whose training is PyTorch's. When
/// training, the running statistics are the model's buffers
/// (`dlc.buffer`), their new values step results.
LogicalResult convertBatchNormTraining(Importer &im, int64_t c,
                                       ArrayRef<int64_t> pshape, double eps) {
  auto tx = im.inType(0);
  Type elem = tx.getElementType();
  SmallVector<int64_t> axes;
  int64_t n = 1;
  for (int64_t d = 0; d < tx.getRank(); ++d)
    if (d != 1) {
      axes.push_back(d);
      n *= tx.getDimSize(d);
    }
  if (n < 2 && im.fromPyTorch())
    return im.unsupported("training_mode=1 needs more than one value per "
                          "channel (PyTorch's unbiased variance divides by "
                          "n - 1)");
  double momentum = im.attrFloat("momentum", 0.9);
  if (!(momentum >= 0 && momentum <= 1))
    return im.unsupported("momentum must lie in [0, 1]");
  auto pt = im.tensorType(pshape, elem);
  Value x = im.in(0);
  Value mean = im.scale(im.reduce(dlcir::ReduceKind::sum, x, axes), 1.0 / n);
  Value centered = im.create<dlcir::SubOp>(tx, x, mean);
  Value square = im.create<dlcir::MulOp>(tx, centered, centered);
  Value var =
      im.scale(im.reduce(dlcir::ReduceKind::sum, square, axes), 1.0 / n);
  Value inv = im.unary<dlcir::RsqrtOp>(im.addScalar(var, eps));
  auto p = [&](int i) { return im.castTo(im.reshape(im.in(i), pshape), elem); };
  Value a = im.create<dlcir::MulOp>(pt, p(1), inv);
  Value y = im.create<dlcir::MulOp>(tx, centered, a);
  im.setOut(0, im.create<dlcir::AddOp>(tx, y, p(2)));
  // running = running * m + statistic * (1 - m), of the running input's
  // shape and type.
  auto running = [&](int i, Value statistic) {
    auto type = im.inType(i);
    Value s = im.castTo(im.reshape(statistic, type.getShape()),
                        type.getElementType());
    return im.create<dlcir::AddOp>(type, im.scale(im.in(i), momentum),
                                   im.scale(s, 1.0 - momentum));
  };
  Value newMean = running(3, mean);
  bool unbiased = im.fromPyTorch();
  Value newVar =
      running(4, unbiased ? im.scale(var, double(n) / double(n - 1)) : var);
  im.setOut(1, newMean);
  im.setOut(2, newVar);
  if (!im.foldsWeights())
    for (auto [i, v] : {std::pair(3, newMean), std::pair(4, newVar)})
      if (failed(im.markBuffer(unsigned(i), v)))
        return failure();
  return success();
}

LogicalResult convertBatchNorm(Importer &im) {
  bool training = im.attrInt("training_mode", 0) != 0;
  if (!training)
    for (int i = 1; i < im.node->output_size(); ++i)
      if (!im.node->output(i).empty() && im.isUsed(im.node->output(i)))
        return im.unsupported("only the first output is supported (inference)");
  auto tx = im.inType(0);
  Type elem = tx.getElementType();
  if (!isa<FloatType>(elem) || tx.getRank() < 2)
    return im.unsupported(
        "BatchNormalization needs a float input of rank >= 2");
  int64_t c = tx.getDimSize(1);
  SmallVector<int64_t> pshape(tx.getRank(), 1);
  pshape[1] = c;
  double eps = im.attrFloat("epsilon", 1e-5);
  for (int i = 1; i < 5; ++i)
    if (!im.has(i) || im.inType(i).getNumElements() != c)
      return im.unsupported("scale, bias, mean and variance must have " +
                            Twine(c) + " elements");
  if (training)
    return convertBatchNormTraining(im, c, pshape, eps);
  if (im.foldsWeights() && im.lit(1) && im.lit(2) && im.lit(3) && im.lit(4)) {
    // y = x * a + s with a = scale / sqrt(var + eps), s = bias - mean * a.
    rt::HostTensor a(*dlcir::dtypeOf(elem), {pshape.begin(), pshape.end()});
    rt::HostTensor s = a;
    for (int64_t i = 0; i < c; ++i) {
      double ai =
          litDouble(*im.lit(1), i) / std::sqrt(litDouble(*im.lit(4), i) + eps);
      a.setFromDouble(i, ai);
      s.setFromDouble(i,
                      litDouble(*im.lit(2), i) - litDouble(*im.lit(3), i) * ai);
    }
    Value x = im.in(0);
    Value y = im.create<dlcir::MulOp>(tx, x, im.constant(a));
    im.setOut(0, im.create<dlcir::AddOp>(tx, y, im.constant(s)));
    return success();
  }
  auto p = [&](int i) { return im.castTo(im.reshape(im.in(i), pshape), elem); };
  auto pt = im.tensorType(pshape, elem);
  Value inv = im.unary<dlcir::RsqrtOp>(im.addScalar(p(4), eps));
  Value a = im.create<dlcir::MulOp>(pt, p(1), inv);
  Value x = im.in(0);
  Value centered = im.create<dlcir::SubOp>(tx, x, p(3));
  Value y = im.create<dlcir::MulOp>(tx, centered, a);
  im.setOut(0, im.create<dlcir::AddOp>(tx, y, p(2)));
  return success();
}

} // namespace

void registerNNOps(OpRegistry &registry) {
  registry.onOp("MatMul", kMinOpset, convertMatMul, /*requiredInputs=*/2);
  registry.onOp("Gemm", kMinOpset, convertGemm, /*requiredInputs=*/2);
  registry.onOp("Einsum", 12, convertEinsum);
  registry.onOp("Conv", kMinOpset, convertConv);
  registry.onOp("ConvTranspose", kMinOpset, convertConvTranspose);
  registry.onOp("MaxPool", kMinOpset, convertPool</*isMax=*/true>);
  registry.onOp("AveragePool", kMinOpset, convertPool</*isMax=*/false>);
  registry.onOp("GlobalMaxPool", kMinOpset, convertGlobalPool</*isMax=*/true>);
  registry.onOp("GlobalAveragePool", kMinOpset,
                convertGlobalPool</*isMax=*/false>);
  registry.onOp("BatchNormalization", kMinOpset, convertBatchNorm,
                /*requiredInputs=*/5);
}

} // namespace dlc::onnximport
