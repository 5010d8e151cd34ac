//===- FormAttention.cpp - Recognise attention and form dlc.attention -----===//
//
// Matches, backwards from every dlc.matmul, the chain
//
//   matmul(softmax(mask(scale * matmul(Q, K^T))), V)
//
// in the forms lowered models have (the pass description in Passes.td lists
// them) and replaces it with one dlc.attention. Matching is all-or-nothing:
// every op between the two products must be one of the recognised kinds and
// have no user outside the chain, so the rewrite never duplicates work and
// never keeps the Sq x Sk scores alive. Values the chain only reads (Q, K, V,
// masks) keep their producers; transposes to bring K and V into the op's
// layout are inserted, composed with existing ones where possible.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "ir/Reference.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#include <cmath>
#include <limits>
#include <optional>

#define DEBUG_TYPE "dlc-form-attention"

namespace mlir::dlc {
#define GEN_PASS_DEF_FORMATTENTION
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// A masked score at or below this counts as hidden: -inf, or a finite
/// value of at most -2^126 (the lowest f32 and bf16 values,
/// torch.finfo(dtype).min, are such values). For a score s with
/// |s| < 2^102, s + M rounds to M itself in f32 and bf16 (half an ulp of
/// 2^126 is 2^102), so adding the mask and replacing the score by it
/// (masked_fill) give the same value, which no score depends on; and
/// exp(M - max) is exactly 0 for a row whose largest visible score is above
/// -2^102. Under that bound `causal`, and a masked_fill turned into an
/// additive mask, are exact; with -inf they are exact for every finite
/// score. Finite masks above it (BERT's -10000, -1e9) are not hidden
/// scores: scores can approach them, so they stay explicit masks, which the
/// attention kernel adds as written.
constexpr double kMaskedScore = -0x1p126;

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// The value of `v` if it is a splat float dlc.constant.
std::optional<double> splatValue(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat() || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  return toDouble(dense.getSplatValue<APFloat>());
}

bool isHiddenScore(double v) { return v <= kMaskedScore; }

/// A mask computed from constants only (causal masks built at run time
/// from position ranges: cmp(ge, rows, cols) selecting 0 or -1e9), as
/// row-major values.
struct ConstantValues {
  SmallVector<int64_t> shape;
  std::vector<double> data;
};

/// Largest mask evaluated at compile time, in elements.
constexpr int64_t kMaxEvaluatedMask = int64_t(1) << 24;

/// The position in `from` (broadcast to `to`, equal ranks) of the element
/// at row-major position `flat` of `to`.
int64_t broadcastPosition(int64_t flat, ArrayRef<int64_t> to,
                          ArrayRef<int64_t> from) {
  int64_t pos = 0, stride = 1;
  for (int64_t d = int64_t(to.size()) - 1; d >= 0; --d) {
    int64_t i = flat % to[d];
    flat /= to[d];
    if (from[d] != 1)
      pos += i * stride;
    stride *= from[d];
  }
  return pos;
}

/// Evaluates `v` when it is computed from dense constants by a few
/// elementwise ops (cmp, select, cast, reshape); nullopt otherwise.
std::optional<ConstantValues> evaluateConstant(Value v, int depth = 0) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || depth > 8 ||
      type.getNumElements() > kMaxEvaluatedMask)
    return std::nullopt;
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  ConstantValues out;
  out.shape.assign(type.getShape().begin(), type.getShape().end());
  int64_t n = type.getNumElements();
  if (auto constant = dyn_cast<ConstantOp>(def)) {
    // Dense or dense_resource (an ONNX initializer's mask buffer), read as
    // the reference interpreter reads it.
    FailureOr<std::vector<double>> values =
        constantValues(constant, kMaxEvaluatedMask);
    if (failed(values) || int64_t(values->size()) != n)
      return std::nullopt;
    out.data = std::move(*values);
    return out;
  }
  // A reshape keeps the values in order; so does a cast, to float types
  // only: the values are compared with the hiding threshold or with 0,
  // which a float rounding keeps.
  if (isa<ReshapeOp, CastOp>(def)) {
    if (isa<CastOp>(def) && !isa<FloatType>(type.getElementType()))
      return std::nullopt;
    std::optional<ConstantValues> in =
        evaluateConstant(def->getOperand(0), depth + 1);
    if (!in)
      return std::nullopt;
    out.data = std::move(in->data);
    return out;
  }
  SmallVector<ConstantValues> operands;
  if (!isa<CmpOp, SelectOp>(def))
    return std::nullopt;
  for (Value operand : def->getOperands()) {
    std::optional<ConstantValues> in = evaluateConstant(operand, depth + 1);
    if (!in || in->shape.size() != out.shape.size())
      return std::nullopt;
    operands.push_back(std::move(*in));
  }
  out.data.resize(n);
  auto at = [&](size_t k, int64_t flat) {
    return operands[k]
        .data[broadcastPosition(flat, out.shape, operands[k].shape)];
  };
  if (auto cmp = dyn_cast<CmpOp>(def)) {
    for (int64_t i = 0; i < n; ++i) {
      bool r = compare(cmp.getPredicate(), at(0, i), at(1, i));
      out.data[i] = r ? 1 : 0;
    }
    return out;
  }
  for (int64_t i = 0; i < n; ++i)
    out.data[i] = at(0, i) != 0 ? at(1, i) : at(2, i);
  return out;
}

/// Whether `op` reduces the last axis (and only it).
bool reducesLastAxis(ReduceOp op, ReduceKind kind) {
  if (op.getKind() != kind)
    return false;
  int64_t rank = tensorType(op.getInput()).getRank();
  ArrayRef<int64_t> axes = op.getAxes();
  return axes.size() == 1 && axes[0] == rank - 1;
}

/// A product that the attention kernel computes the same way: f32
/// accumulation and no epilogue.
bool isPlainProduct(MatmulOp op) {
  if (auto acc = op.getAccType(); acc && !acc->isF32())
    return false;
  return !op.hasEpilogue();
}

/// A view of a mask term: optionally tiled (at the rank of `tileTo`, the
/// term's dimensions of size 1 repeated to those sizes), then reshaped to
/// `shape`.
struct TermView {
  SmallVector<int64_t> tileTo;
  SmallVector<int64_t> shape;
};

/// One additive term of the mask: `value * multiplier`, or, for a select
/// (masked_fill), `cond ? fill : 0` (`cond ? 0 : fill` unless fillOnTrue).
struct MaskTerm {
  Value value;
  double multiplier = 1;
  bool isSelect = false;
  bool fillOnTrue = true;
  double fill = 0;
  /// The element type of the scores where the term applies.
  Type elementType;
  /// The views of the term, in order, where the scores were viewed
  /// another way between it and the softmax (none: it applies as it is).
  SmallVector<TermView> views;
};

/// The shape a term has where it applies.
ArrayRef<int64_t> termShape(const MaskTerm &term) {
  return term.views.empty() ? tensorType(term.value).getShape()
                            : ArrayRef<int64_t>(term.views.back().shape);
}

/// A mask term broadcast over scores of shape `from` and then viewed as
/// `to` (the same [Sq, Sk] matrices, their batch dimensions split or merged
/// another way), as a term of `to`. Dimensions of size 1 take no part in
/// the groups of dimensions the view merges or splits. Where the term
/// varies along only part of a group (a shifted-window mask, [1, W, 1, S,
/// S], over [B / W, W, H, S, S] viewed as [B, H, S, S]), it is first tiled
/// along the rest of that group: those copies are what the scores see.
std::optional<TermView> viewTerm(ArrayRef<int64_t> term, ArrayRef<int64_t> from,
                                 ArrayRef<int64_t> to) {
  int64_t rf = from.size(), rt = to.size(), r = term.size();
  if (rf < 2 || rt < 2 || r < 2 || r > rf ||
      from.take_back(2) != to.take_back(2))
    return std::nullopt;
  // The term at the rank of `from` (numpy broadcasting aligns the right).
  SmallVector<int64_t> padded(rf - r, 1);
  padded.append(term.begin(), term.end());
  SmallVector<int64_t> fromDims, toDims;
  for (int64_t d = 0; d < rf - 2; ++d)
    if (from[d] != 1)
      fromDims.push_back(d);
  for (int64_t d = 0; d < rt - 2; ++d)
    if (to[d] != 1)
      toDims.push_back(d);
  TermView view;
  view.shape.assign(rt, 1);
  view.shape[rt - 2] = padded[rf - 2];
  view.shape[rt - 1] = padded[rf - 1];
  SmallVector<int64_t> tiled = padded;
  bool tiles = false;
  size_t i = 0, j = 0;
  while (i < fromDims.size() || j < toDims.size()) {
    if (i == fromDims.size() || j == toDims.size())
      return std::nullopt;
    // One group: the shortest runs of both sides with equal products.
    size_t i0 = i, j0 = j;
    int64_t pf = from[fromDims[i++]], pt = to[toDims[j++]];
    while (pf != pt) {
      if (pf < pt && i < fromDims.size())
        pf *= from[fromDims[i++]];
      else if (pt < pf && j < toDims.size())
        pt *= to[toDims[j++]];
      else
        return std::nullopt;
    }
    bool full = true, none = true;
    for (size_t g = i0; g < i; ++g) {
      int64_t d = fromDims[g];
      full = full && padded[d] == from[d];
      none = none && padded[d] == 1;
    }
    if (!full && !none) {
      for (size_t g = i0; g < i; ++g)
        tiled[fromDims[g]] = from[fromDims[g]];
      tiles = true;
      full = true;
    }
    for (size_t g = j0; g < j; ++g)
      view.shape[toDims[g]] = full ? to[toDims[g]] : 1;
  }
  if (tiles)
    view.tileTo = std::move(tiled);
  return view;
}

struct AttentionMatch {
  MatmulOp scores;
  MatmulOp output;
  /// The products' operands as they are read (before any transposition).
  Value q, k, v;
  double scale = 1;
  bool causal = false;
  SmallVector<MaskTerm> masks;
};

class Matcher {
public:
  explicit Matcher(int64_t maxHeadDim) : maxHeadDim(maxHeadDim) {}

  /// Matches the chain that ends in `output`.
  std::optional<AttentionMatch> match(MatmulOp output);

private:
  /// The softmax input whose probabilities are `p`.
  Value matchSoftmax(Value p);
  /// Walks from the softmax input `y` back to the scores product,
  /// collecting scale factors and mask terms into `m`.
  bool matchScores(Value y, double multiplier, ArrayRef<int64_t> shape,
                   AttentionMatch &m);
  /// Strips single-use mul/div by splat constants off a product operand.
  Value peelScale(Value v, double &scale);
  /// Whether the term hides exactly the keys `causal` hides.
  bool isCausalMask(const MaskTerm &term, ArrayRef<int64_t> scores);

  int64_t maxHeadDim;
};

Value Matcher::matchSoftmax(Value p) {
  Operation *def = p.getDefiningOp();
  if (!def || !p.hasOneUse())
    return {};
  // p = e / s, or e * (1 / s) in either operand order.
  Value e, s;
  if (auto div = dyn_cast<DivOp>(def)) {
    e = div.getLhs();
    s = div.getRhs();
  } else if (auto mul = dyn_cast<MulOp>(def)) {
    for (auto [x, y] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())}) {
      auto reciprocal = y.getDefiningOp<ReciprocalOp>();
      if (reciprocal && y.hasOneUse()) {
        e = x;
        s = reciprocal.getInput();
        break;
      }
    }
  }
  if (!e || !s || !s.hasOneUse())
    return {};
  auto exp = e.getDefiningOp<ExpOp>();
  auto sum = s.getDefiningOp<ReduceOp>();
  if (!exp || !sum || sum.getInput() != e ||
      !reducesLastAxis(sum, ReduceKind::sum))
    return {};
  // e feeds exactly the sum and the normalization.
  if (!llvm::all_of(
          e.getUsers(),
          [&](Operation *user) { return user == sum || user == def; }) ||
      std::distance(e.getUses().begin(), e.getUses().end()) != 2)
    return {};
  if (tensorType(p).getShape() != tensorType(e).getShape())
    return {};

  // exp(x - max(x)), or exp(x) alone (the same probabilities, without the
  // guard against overflow, which the kernel always has).
  Value d = exp.getInput();
  if (!d.hasOneUse())
    return {};
  if (auto sub = d.getDefiningOp<SubOp>()) {
    Value x = sub.getLhs(), m = sub.getRhs();
    auto max = m.getDefiningOp<ReduceOp>();
    if (max && max.getInput() == x && reducesLastAxis(max, ReduceKind::max)) {
      if (!m.hasOneUse() ||
          std::distance(x.getUses().begin(), x.getUses().end()) != 2 ||
          !llvm::all_of(x.getUsers(), [&](Operation *user) {
            return user == sub || user == max;
          }))
        return {};
      return x;
    }
  }
  return d;
}

Value Matcher::peelScale(Value v, double &scale) {
  while (v.hasOneUse()) {
    Operation *def = v.getDefiningOp();
    if (auto mul = dyn_cast_or_null<MulOp>(def)) {
      if (tensorType(mul.getLhs()) == tensorType(v)) {
        if (std::optional<double> c = splatValue(mul.getRhs())) {
          scale *= *c;
          v = mul.getLhs();
          continue;
        }
      }
      if (tensorType(mul.getRhs()) == tensorType(v)) {
        if (std::optional<double> c = splatValue(mul.getLhs())) {
          scale *= *c;
          v = mul.getRhs();
          continue;
        }
      }
    } else if (auto div = dyn_cast_or_null<DivOp>(def)) {
      std::optional<double> c = splatValue(div.getRhs());
      if (c && *c != 0 && tensorType(div.getLhs()) == tensorType(v)) {
        scale /= *c;
        v = div.getLhs();
        continue;
      }
    }
    break;
  }
  return v;
}

bool Matcher::matchScores(Value y, double multiplier, ArrayRef<int64_t> shape,
                          AttentionMatch &m) {
  // Each step moves from a value to the chain operand of its producer. The
  // uses of the first value were checked by the caller (matchSoftmax for the
  // softmax input, the add or select for its chain operand).
  for (bool first = true;; first = false) {
    if (!first && !y.hasOneUse())
      return false;
    if (tensorType(y).getShape() != shape)
      return false;
    Operation *def = y.getDefiningOp();
    if (!def)
      return false;
    if (auto scores = dyn_cast<MatmulOp>(def)) {
      if (scores.getAccType() && !scores.getAccType()->isF32())
        return false;
      if (scores.getBias() || scores.getEpilogue() != EpilogueKind::none)
        return false;
      // An addend (a fused residual) is a mask.
      if (Value addend = scores.getAddend()) {
        if (std::optional<double> c = splatValue(addend)) {
          if (!std::isfinite(*c))
            return false;
        } else {
          m.masks.push_back({addend, multiplier, false, true, 0,
                             tensorType(y).getElementType()});
        }
      }
      m.scores = scores;
      return true;
    }
    if (auto cast = dyn_cast<CastOp>(def)) {
      // Scores computed in f16/bf16 and widened for the softmax.
      Type from = tensorType(cast.getInput()).getElementType();
      if (!tensorType(y).getElementType().isF32() ||
          !(from.isF16() || from.isBF16()))
        return false;
      y = cast.getInput();
      continue;
    }
    if (auto mul = dyn_cast<MulOp>(def)) {
      std::optional<double> c = splatValue(mul.getRhs());
      Value next = mul.getLhs();
      if (!c) {
        c = splatValue(mul.getLhs());
        next = mul.getRhs();
      }
      if (!c || !std::isfinite(*c) || *c == 0)
        return false;
      m.scale *= *c;
      multiplier *= *c;
      y = next;
      continue;
    }
    if (auto div = dyn_cast<DivOp>(def)) {
      std::optional<double> c = splatValue(div.getRhs());
      if (!c || !std::isfinite(*c) || *c == 0)
        return false;
      m.scale /= *c;
      multiplier /= *c;
      y = div.getLhs();
      continue;
    }
    if (auto add = dyn_cast<AddOp>(def)) {
      // Either operand may be the scores: try both, the other is the mask.
      for (auto [chain, mask] : {std::pair(add.getLhs(), add.getRhs()),
                                 std::pair(add.getRhs(), add.getLhs())}) {
        if (!chain.hasOneUse())
          continue;
        AttentionMatch attempt = m;
        if (std::optional<double> c = splatValue(mask)) {
          // A finite constant shifts every score alike: softmax ignores it.
          if (!std::isfinite(*c))
            continue;
        } else {
          attempt.masks.push_back({mask, multiplier, false, true, 0,
                                   tensorType(y).getElementType()});
        }
        if (matchScores(chain, multiplier, shape, attempt)) {
          m = std::move(attempt);
          return true;
        }
      }
      return false;
    }
    if (auto reshape = dyn_cast<ReshapeOp>(def)) {
      // The batch of score matrices viewed another way (a shifted-window
      // model adds its mask to [B / W, W, H, S, S] views of the scores):
      // the chain goes on behind it, and each mask term found there is
      // viewed back.
      Value in = reshape.getInput();
      ArrayRef<int64_t> inShape = tensorType(in).getShape();
      if (!in.hasOneUse() || inShape.size() < 2 ||
          inShape.take_back(2) != shape.take_back(2))
        return false;
      AttentionMatch inner = m;
      inner.masks.clear();
      if (!matchScores(in, multiplier, inShape, inner))
        return false;
      for (MaskTerm &term : inner.masks) {
        std::optional<TermView> view =
            viewTerm(termShape(term), inShape, shape);
        if (!view)
          return false;
        term.views.push_back(std::move(*view));
      }
      SmallVector<MaskTerm> masks = std::move(m.masks);
      masks.append(inner.masks.begin(), inner.masks.end());
      m = std::move(inner);
      m.masks = std::move(masks);
      return true;
    }
    if (auto select = dyn_cast<SelectOp>(def)) {
      // masked_fill: the filled scores are hidden.
      for (bool fillOnTrue : {true, false}) {
        Value fill = fillOnTrue ? select.getOnTrue() : select.getOnFalse();
        Value chain = fillOnTrue ? select.getOnFalse() : select.getOnTrue();
        // The fill replaces the score, so it equals adding it only where
        // both hide the key; later scale factors apply to it too.
        std::optional<double> c = splatValue(fill);
        if (!c || multiplier <= 0 || !isHiddenScore(*c * multiplier) ||
            !chain.hasOneUse())
          continue;
        AttentionMatch attempt = m;
        attempt.masks.push_back({select.getCond(), multiplier, true, fillOnTrue,
                                 *c * multiplier,
                                 tensorType(y).getElementType()});
        if (matchScores(chain, multiplier, shape, attempt)) {
          m = std::move(attempt);
          return true;
        }
      }
      return false;
    }
    return false;
  }
}

bool Matcher::isCausalMask(const MaskTerm &term, ArrayRef<int64_t> scores) {
  Value value = term.value;
  // A constant, or a mask computed from constants (evaluated here).
  std::optional<ConstantValues> values = evaluateConstant(value);
  if (!values)
    return false;
  // (A view without tiling keeps the elements' order.)
  if (llvm::any_of(term.views,
                   [](const TermView &v) { return !v.tileTo.empty(); }))
    return false;
  ArrayRef<int64_t> shape = termShape(term);
  int64_t r = shape.size();
  if (r < 2 || int64_t(scores.size()) != r)
    return false;
  int64_t sq = scores[r - 2], sk = scores[r - 1];
  // A query that would see no key is a row of zeros for dlc.attention but
  // not for the decomposed softmax: only masks where every query sees a key.
  if (sk < sq || shape[r - 2] != sq || shape[r - 1] != sk)
    return false;
  for (int64_t d = 0; d < r - 2; ++d)
    if (shape[d] != 1)
      return false;
  int64_t offset = sk - sq;
  Type element = tensorType(value).getElementType();
  if (term.isSelect) {
    if (!element.isInteger(1))
      return false;
    for (int64_t flat = 0, n = sq * sk; flat < n; ++flat) {
      int64_t i = flat / sk, j = flat % sk;
      bool cond = values->data[flat] != 0;
      if (cond != ((j > i + offset) == term.fillOnTrue))
        return false;
    }
    return true;
  }
  if (!isa<FloatType>(element) || term.multiplier <= 0)
    return false;
  for (int64_t flat = 0, n = sq * sk; flat < n; ++flat) {
    int64_t i = flat / sk, j = flat % sk;
    double v = values->data[flat] * term.multiplier;
    if (j > i + offset ? !isHiddenScore(v) : v != 0)
      return false;
  }
  return true;
}

std::optional<AttentionMatch> Matcher::match(MatmulOp output) {
  if (!isPlainProduct(output) || output.getTransposeA())
    return std::nullopt;
  Value p = output.getLhs();
  // Probabilities computed in f32 and narrowed for the second product.
  if (auto cast = p.getDefiningOp<CastOp>()) {
    Type to = tensorType(p).getElementType();
    if (!p.hasOneUse() || !(to.isF16() || to.isBF16()) ||
        !tensorType(cast.getInput()).getElementType().isF32())
      return std::nullopt;
    p = cast.getInput();
  }
  Value x = matchSoftmax(p);
  if (!x)
    return std::nullopt;
  AttentionMatch m;
  m.output = output;
  ArrayRef<int64_t> shape = tensorType(x).getShape();
  if (!matchScores(x, 1.0, shape, m))
    return std::nullopt;
  MatmulOp scores = m.scores;
  // Scores viewed another way on the chain must come back to the softmax's
  // shape: the attention's batch is the products'.
  if (tensorType(scores.getResult()).getShape() != shape)
    return std::nullopt;
  Type element = tensorType(scores.getResult()).getElementType();
  if (element != tensorType(output.getResult()).getElementType())
    return std::nullopt;
  // The scale may also sit on Q or K (or be split between them).
  m.q = peelScale(scores.getLhs(), m.scale);
  m.k = peelScale(scores.getRhs(), m.scale);
  m.v = output.getRhs();
  if (!std::isfinite(m.scale))
    return std::nullopt;

  int64_t r = shape.size();
  auto qType = tensorType(scores.getLhs());
  int64_t d = scores.getTransposeA() ? qType.getDimSize(r - 2)
                                     : qType.getDimSize(r - 1);
  auto vType = tensorType(output.getRhs());
  int64_t dv = output.getTransposeB() ? vType.getDimSize(r - 2)
                                      : vType.getDimSize(r - 1);
  if (d > maxHeadDim || dv > maxHeadDim)
    return std::nullopt;

  // Masks: a constant causal pattern becomes the flag; the rest stays.
  SmallVector<MaskTerm> rest;
  for (MaskTerm &term : m.masks) {
    if (isCausalMask(term, shape))
      m.causal = true;
    else
      rest.push_back(term);
  }
  m.masks = std::move(rest);
  return m;
}

/// `x` with its last two dimensions swapped, composed into the transpose
/// (or through the batch-only reshape) that produced `x` where there is one.
Value swapLastTwo(OpBuilder &b, Location loc, Value x) {
  auto type = tensorType(x);
  int64_t r = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[r - 1], shape[r - 2]);
  auto swappedType = RankedTensorType::get(shape, type.getElementType());
  if (auto t = x.getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> perm(t.getPerm());
    std::swap(perm[r - 1], perm[r - 2]);
    bool identity = llvm::all_of(llvm::enumerate(perm), [](auto p) {
      return p.value() == int64_t(p.index());
    });
    if (identity)
      return t.getInput();
    return b.create<TransposeOp>(loc, swappedType, t.getInput(),
                                 b.getDenseI64ArrayAttr(perm));
  }
  if (auto reshape = x.getDefiningOp<ReshapeOp>()) {
    auto in = tensorType(reshape.getInput());
    int64_t ri = in.getRank();
    if (ri >= 2 && in.getDimSize(ri - 1) == type.getDimSize(r - 1) &&
        in.getDimSize(ri - 2) == type.getDimSize(r - 2)) {
      Value inner = swapLastTwo(b, loc, reshape.getInput());
      return b.create<ReshapeOp>(loc, swappedType, inner);
    }
  }
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i)
    perm.push_back(i);
  std::swap(perm[r - 1], perm[r - 2]);
  return b.create<TransposeOp>(loc, swappedType, x,
                               b.getDenseI64ArrayAttr(perm));
}

Value splatConstant(OpBuilder &b, Location loc, Type element, int64_t rank,
                    double value) {
  auto type = RankedTensorType::get(SmallVector<int64_t>(rank, 1), element);
  Attribute scalar = b.getFloatAttr(element, value);
  return b.create<ConstantOp>(loc, type, DenseElementsAttr::get(type, scalar));
}

/// The mask operand of the attention: the sum of the terms, as one tensor.
Value buildMask(OpBuilder &b, Location loc, ArrayRef<MaskTerm> terms) {
  SmallVector<Value> parts;
  for (const MaskTerm &term : terms) {
    Value value = term.value;
    for (const TermView &view : term.views) {
      Type element = tensorType(value).getElementType();
      if (!view.tileTo.empty()) {
        // The term at the rank of the tiling, then its copies.
        ArrayRef<int64_t> shape = tensorType(value).getShape();
        SmallVector<int64_t> padded(view.tileTo.size() - shape.size(), 1);
        padded.append(shape.begin(), shape.end());
        if (ArrayRef<int64_t>(padded) != shape)
          value = b.create<ReshapeOp>(
              loc, RankedTensorType::get(padded, element), value);
        SmallVector<int64_t> multiples;
        for (auto [n, m] : llvm::zip(padded, view.tileTo))
          multiples.push_back(m / n);
        value =
            b.create<TileOp>(loc, RankedTensorType::get(view.tileTo, element),
                             value, b.getDenseI64ArrayAttr(multiples));
      }
      value = b.create<ReshapeOp>(
          loc, RankedTensorType::get(view.shape, element), value);
    }
    int64_t rank = tensorType(value).getRank();
    if (term.isSelect) {
      auto condType = tensorType(value);
      auto type = RankedTensorType::get(condType.getShape(), term.elementType);
      Value fill = splatConstant(b, loc, term.elementType, rank, term.fill);
      Value zero = splatConstant(b, loc, term.elementType, rank, 0.0);
      parts.push_back(b.create<SelectOp>(loc, type, value,
                                         term.fillOnTrue ? fill : zero,
                                         term.fillOnTrue ? zero : fill));
      continue;
    }
    if (term.multiplier != 1) {
      Type element = tensorType(value).getElementType();
      Value c = splatConstant(b, loc, element, rank, term.multiplier);
      value = b.create<MulOp>(loc, value.getType(), value, c);
    }
    parts.push_back(value);
  }
  if (parts.empty())
    return {};
  bool mixed = llvm::any_of(parts, [&](Value v) {
    return tensorType(v).getElementType() !=
           tensorType(parts.front()).getElementType();
  });
  Value sum;
  for (Value part : parts) {
    if (mixed && !tensorType(part).getElementType().isF32()) {
      auto type =
          RankedTensorType::get(tensorType(part).getShape(), b.getF32Type());
      part = b.create<CastOp>(loc, type, part);
    }
    if (!sum) {
      sum = part;
      continue;
    }
    // dlc.add broadcasts operands of one rank.
    auto shape = broadcastShapes(tensorType(sum).getShape(),
                                 tensorType(part).getShape());
    auto type =
        RankedTensorType::get(*shape, tensorType(part).getElementType());
    sum = b.create<AddOp>(loc, type, sum, part);
  }
  return sum;
}

/// Erases `root` and every op that only it (transitively) kept alive.
void eraseDeadChain(Operation *root) {
  // A set: a producer of several erased ops is queued once, and an op is
  // erased only once nothing uses it, so no queued op is ever erased.
  llvm::SetVector<Operation *> worklist;
  worklist.insert(root);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!op->use_empty() || !isa<DlcDialect>(op->getDialect()))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.insert(def);
    op->erase();
  }
}

void rewrite(const AttentionMatch &m) {
  MatmulOp output = m.output, scores = m.scores;
  OpBuilder b(output);
  Location loc = b.getFusedLoc({scores.getLoc(), output.getLoc()});
  Value q = scores.getTransposeA() ? swapLastTwo(b, loc, m.q) : m.q;
  Value k = scores.getTransposeB() ? m.k : swapLastTwo(b, loc, m.k);
  Value v = output.getTransposeB() ? swapLastTwo(b, loc, m.v) : m.v;
  Value mask = buildMask(b, loc, m.masks);
  auto attention = b.create<AttentionOp>(
      loc, output.getType(), q, k, v, mask, b.getF64FloatAttr(m.scale),
      m.causal ? b.getUnitAttr() : UnitAttr(),
      /*head_offsets=*/DenseI64ArrayAttr(), /*seq_first=*/UnitAttr(),
      /*kv_groups=*/IntegerAttr());
  // Products pinned to f32 (dlc.precision) pin the attention.
  if (keepsF32(scores) || keepsF32(output))
    setKeepF32(attention);
  output.replaceAllUsesWith(attention.getResult());
  eraseDeadChain(output);
}

struct FormAttentionPass
    : public ::mlir::dlc::impl::FormAttentionBase<FormAttentionPass> {
  using FormAttentionBase::FormAttentionBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Matcher matcher(maxHeadDim);
    for (Block &block : func.getBody()) {
      // A rewrite inserts before and erases at and before the current op
      // (the chain precedes its last product), never after it.
      for (Operation &op : llvm::make_early_inc_range(block)) {
        auto output = dyn_cast<MatmulOp>(op);
        if (!output)
          continue;
        if (std::optional<AttentionMatch> m = matcher.match(output)) {
          LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE ": attention formed from the "
                                                "chain ending at "
                                  << output.getLoc() << "\n");
          rewrite(*m);
        }
      }
    }
  }
};

} // namespace
