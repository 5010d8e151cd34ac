//===- AttentionLayout.cpp - Attention in the layout of its projections ---===//
//
// Models split heads before attention and merge them after it:
//
//   q = transpose(reshape(slice(qkv) -> [B, S, H, D]), [0, 2, 1, 3])
//   o = reshape(transpose(attention(q, k, v) -> [B, H, S, D], [0, 2, 1, 3]))
//
// Each transpose is a kernel that reads and writes the whole tensor: four
// full passes over the activations per attention. dlc.attention with
// `head_offsets` reads q, k and v in the `[B, S, N, D]` layout the
// projections write (a packed QKV product is q, k and v at once, heads at
// offsets 0, H and 2H) and writes `[B, S, H, Dv]`, which the output
// projection reads as `[B * S, H * Dv]`, so none of those passes is needed.
//
// For every dlc.attention in the `[B..., S, D]` form, the pass finds the
// head split behind each of q, k and v (a transpose by [0, 2, 1, 3] of a
// `[B, S, H, D]` value, under a reshape that merges B and H; behind that,
// optionally, a slice of whole heads out of the last dimension of a wider
// product, or a slice of such a slice) and the head merge after the result
// (the same transpose, under a reshape to `[B, H, S, Dv]`). The
// sequence-first layout of nn.MultiheadAttention exports (`[S, B, H, D]`,
// split by [1, 2, 0, 3], or `[S, B * H, D]` by [1, 0, 2]) becomes the op's
// `seq_first` form. timm's and
// torchvision's packed split (a [B, S, 3, H, D] view of the product
// transposed to [3, B, H, S, D], q, k and v one index of its first
// dimension each) reads the product at head offsets 0, H and 2H too.
// Operands without a split are transposed into the layout, uses of the
// result other than a merge get the result transposed back; the rewrite
// happens only when it removes more transposes than it adds. Keys and
// values repeated for groups of query heads (grouped-query and multi-query
// attention: reshape, tile, reshape) are read unrepeated, with kv_groups.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#include <optional>

#define DEBUG_TYPE "dlc-attention-layout"

namespace mlir::dlc {
#define GEN_PASS_DEF_ATTENTIONLAYOUT
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// The most ops a head split is moved out from under (a rotary embedding
/// has about a dozen).
constexpr size_t kMaxHoistedOps = 64;

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Where heads sit in memory: [B, S, H, D] (Hugging Face models) or
/// [S, B, H, D] (PyTorch's nn.MultiheadAttention, sequence first).
enum class Layout { BatchFirst, SeqFirst };

/// The permutation from a rank-4 value in `layout` to [B, H, S, D], and
/// back.
ArrayRef<int64_t> splitPerm(Layout layout) {
  static const int64_t batchFirst[] = {0, 2, 1, 3}, seqFirst[] = {1, 2, 0, 3};
  return layout == Layout::BatchFirst ? ArrayRef<int64_t>(batchFirst)
                                      : ArrayRef<int64_t>(seqFirst);
}
ArrayRef<int64_t> mergePerm(Layout layout) {
  static const int64_t batchFirst[] = {0, 2, 1, 3}, seqFirst[] = {2, 0, 1, 3};
  return layout == Layout::BatchFirst ? ArrayRef<int64_t>(batchFirst)
                                      : ArrayRef<int64_t>(seqFirst);
}

/// A head split behind an attention operand: `source` holds the operand's
/// rows as [A0, A1, ...] with B * S rows of H * D elements (A0, A1 = B, S
/// or S, B), and `transpose` is the split.
struct Split {
  Layout layout = Layout::BatchFirst;
  int64_t batch = 0, heads = 0;
  Value source;
  Operation *transpose = nullptr;
  /// The first head the operand reads when `source` is the packed product
  /// itself (q, k and v split from one [A0, A1, P, H, D] value); -1 when
  /// headsOperand looks behind the source for a slice.
  int64_t headOffset = -1;
};

/// A `[A0, A1, N, D]` tensor and the first head of it that an operand uses.
struct HeadsOperand {
  Value value;
  int64_t offset = 0;
};

class Rewriter {
public:
  Rewriter(AttentionOp op) : op(op), builder(op) {}

  LogicalResult run() {
    auto result = op.getType();
    int64_t rank = result.getRank();
    // Splits under a rotary embedding move out first (q, and k and v under
    // their repeat).
    hoistSplit(op.getQ());
    for (Value kv : {op.getK(), op.getV()})
      if (std::optional<std::pair<Value, int64_t>> r = peelRepeat(kv))
        hoistSplit(r->first);
      else
        hoistSplit(kv);
    Value operands[3] = {op.getQ(), op.getK(), op.getV()};
    // Keys and values repeated for groups of query heads (grouped-query
    // attention): read once each, with kv_groups, when both are repeated
    // alike and their heads are split as q's are.
    int64_t groups = 1;
    Value kvHeads[2];
    {
      std::optional<std::pair<Value, int64_t>> k = peelRepeat(operands[1]),
                                               v = peelRepeat(operands[2]);
      if (k && v && k->second == v->second && findSplit(k->first) &&
          findSplit(v->first)) {
        groups = k->second;
        kvHeads[0] = k->first;
        kvHeads[1] = v->first;
      }
    }
    // The head split behind each operand, if any; the layout, B and H from
    // the first, and the others must agree (k and v with H / kv_groups
    // heads).
    std::optional<Split> first;
    SmallVector<std::optional<Split>> splits;
    for (int i = 0; i < 3; ++i) {
      bool grouped = i > 0 && groups > 1;
      std::optional<Split> split =
          findSplit(grouped ? kvHeads[i - 1] : operands[i]);
      if (split && first &&
          (split->layout != first->layout || split->batch != first->batch ||
           split->heads * (grouped ? groups : 1) != first->heads))
        split.reset();
      if (split && !first && !grouped)
        first = split;
      splits.push_back(split);
    }
    if (!first || (groups > 1 && (!splits[1] || !splits[2])))
      return failure();
    Layout layout = first->layout;
    int64_t b = first->batch, h = first->heads;
    // Empty tensors gain nothing (and have no heads to count).
    for (Value v : op->getOperands())
      if (ShapedType::getNumElements(tensorType(v).getShape()) == 0)
        return failure();
    if (ShapedType::getNumElements(result.getShape()) == 0)
      return failure();
    int64_t sq = result.getDimSize(rank - 2), dv = result.getDimSize(rank - 1);
    // Every operand must be a full [B * H] batch of matrices (broadcast
    // batches stay in the plain form).
    if (ShapedType::getNumElements(result.getShape().drop_back(2)) != b * h)
      return failure();
    for (Value x : operands)
      if (ShapedType::getNumElements(tensorType(x).getShape().drop_back(2)) !=
          b * h)
        return failure();
    // The merges after the result: the inverse transpose of a [B, H, Sq, Dv]
    // view of it, or with the sequence first and B and H merged,
    // [B * H, Sq, Dv] transposed to [Sq, B * H, Dv].
    SmallVector<TransposeOp> merges;
    SmallVector<OpOperand *> otherUses;
    SmallVector<int64_t> bhsd = {b, h, sq, dv};
    auto isMerge = [&](Operation *user) {
      auto t = dyn_cast<TransposeOp>(user);
      if (!t)
        return false;
      auto in = tensorType(t.getInput()).getShape();
      if (in == ArrayRef<int64_t>(bhsd) && t.getPerm() == mergePerm(layout))
        return true;
      return layout == Layout::SeqFirst &&
             in == ArrayRef<int64_t>{b * h, sq, dv} &&
             t.getPerm() == ArrayRef<int64_t>{1, 0, 2};
    };
    for (OpOperand &use : op.getResult().getUses()) {
      Operation *user = use.getOwner();
      if (isMerge(user)) {
        merges.push_back(cast<TransposeOp>(user));
        continue;
      }
      if (auto r = dyn_cast<ReshapeOp>(user)) {
        bool all = !r.getResult().use_empty();
        for (Operation *u : r.getResult().getUsers())
          all = all && isMerge(u);
        if (all) {
          for (Operation *u : r.getResult().getUsers())
            merges.push_back(cast<TransposeOp>(u));
          continue;
        }
      }
      otherUses.push_back(&use);
    }
    // Transposes removed minus transposes added.
    int64_t found = llvm::count_if(
        splits, [](const std::optional<Split> &s) { return s.has_value(); });
    // (A repeat of k or v is a kernel too: the tile.)
    int64_t removed =
        found + int64_t(merges.size()) + (groups > 1 ? int64_t(2) : 0);
    int64_t added = (3 - found) + (otherUses.empty() ? 0 : 1);
    if (removed <= added)
      return failure();

    Value mask;
    if (Value m = op.getMask()) {
      mask = maskInHeadsLayout(m, b, h);
      if (!mask)
        return failure();
    }

    SmallVector<HeadsOperand> heads;
    for (int i = 0; i < 3; ++i)
      heads.push_back(splits[i] ? headsOperand(*splits[i])
                                : transposed(operands[i], layout, b, h));
    SmallVector<int64_t> shape = {b, sq, h, dv};
    if (layout == Layout::SeqFirst)
      std::swap(shape[0], shape[1]);
    auto type = RankedTensorType::get(shape, result.getElementType());
    SmallVector<int64_t> offsets = {heads[0].offset, heads[1].offset,
                                    heads[2].offset};
    auto attention = builder.create<AttentionOp>(
        op.getLoc(), type, heads[0].value, heads[1].value, heads[2].value, mask,
        op.getScaleAttr(), op.getCausalAttr(),
        builder.getDenseI64ArrayAttr(offsets),
        layout == Layout::SeqFirst ? builder.getUnitAttr() : UnitAttr(),
        groups > 1 ? builder.getI64IntegerAttr(groups) : IntegerAttr());
    if (keepsF32(op))
      setKeepF32(attention);
    for (TransposeOp merge : merges) {
      Value input = merge.getInput();
      Value replacement = attention.getResult();
      if (merge.getType() != type) {
        // [Sq, B, H, Dv] viewed as the merge's [Sq, B * H, Dv].
        OpBuilder at(merge);
        replacement =
            at.create<ReshapeOp>(merge.getLoc(), merge.getType(), replacement);
      }
      merge.getResult().replaceAllUsesWith(replacement);
      merge.erase();
      // A reshape between the result and its merges.
      if (auto reshape = input.getDefiningOp<ReshapeOp>();
          reshape && reshape.getResult().use_empty())
        reshape.erase();
    }
    if (!otherUses.empty()) {
      // Back to [B, H, Sq, Dv], then the old result type.
      auto bhsdType = RankedTensorType::get(bhsd, result.getElementType());
      Value back = builder.create<TransposeOp>(
          op.getLoc(), bhsdType, attention.getResult(),
          builder.getDenseI64ArrayAttr(splitPerm(layout)));
      if (bhsdType != result)
        back = builder.create<ReshapeOp>(op.getLoc(), result, back);
      for (OpOperand *use : otherUses)
        use->set(back);
    }
    Operation *old = op;
    eraseDeadChain(old);
    return success();
  }

private:
  /// Moves a head split out from under ops that compute per element or
  /// move data, with constants (a rotary position embedding: q * cos +
  /// rotate_half(q) * sin, rotate_half a concat of slices of the last
  /// dimension): `x = f(split(y), constants)` becomes `split(f'(y))`, f'
  /// being f's ops in y's layout (each op's LayoutOpInterface::
  /// permuteLayout; the constants permuted at compile time), so that
  /// findSplit sees the split. Every value f computes but `x` must be read
  /// only inside f. Returns the value that now stands for `x` (itself when
  /// nothing moved).
  Value hoistSplit(Value x) {
    if (auto reshape = x.getDefiningOp<ReshapeOp>()) {
      hoistSplit(reshape.getInput());
      return x;
    }
    llvm::SetVector<Operation *> chain;
    TransposeOp split;
    SmallVector<Value> worklist{x};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || chain.contains(def) || def == split)
        continue;
      if (auto t = dyn_cast<TransposeOp>(def);
          t && tensorType(t.getResult()).getRank() == 4 &&
          (t.getPerm() == splitPerm(Layout::BatchFirst) ||
           t.getPerm() == splitPerm(Layout::SeqFirst))) {
        if (split && split != t)
          return x;
        split = t;
        continue;
      }
      auto layout = dyn_cast<LayoutOpInterface>(def);
      if (!layout || isa<TransposeOp>(def) || def->getNumResults() != 1 ||
          layout.getLayoutClass() == LayoutClass::Spatial ||
          layout.getLayoutClass() == LayoutClass::Fixed ||
          chain.size() >= kMaxHoistedOps)
        return x;
      chain.insert(def);
      for (Value operand : def->getOperands())
        if (!operand.getDefiningOp<ConstantOp>())
          worklist.push_back(operand);
    }
    if (!split || chain.empty())
      return x;
    for (Operation *op : chain)
      for (Operation *user : op->getUsers())
        if (!chain.contains(user) && op->getResult(0) != x)
          return x;
    // The split's inverse permutes [B, H, S, D] back to y's layout.
    ArrayRef<int64_t> perm = split.getPerm();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [i, p] : llvm::enumerate(perm))
      inverse[p] = i;
    SmallVector<Operation *> ordered(chain.begin(), chain.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    OpBuilder b(x.getDefiningOp());
    IRMapping map;
    map.map(split.getResult(), split.getInput());
    for (Operation *op : ordered) {
      SmallVector<Value> operands;
      for (Value operand : op->getOperands())
        operands.push_back(
            map.contains(operand)
                ? map.lookup(operand)
                : transposeOf(b, op->getLoc(), operand, inverse));
      Operation *moved =
          cast<LayoutOpInterface>(op).permuteLayout(b, inverse, operands);
      if (!moved)
        return x; // The ops built so far are unused; dead code goes later.
      map.map(op->getResult(0), moved->getResult(0));
    }
    Value hoisted =
        b.create<TransposeOp>(split.getLoc(), x.getType(), map.lookup(x), perm);
    x.replaceAllUsesWith(hoisted);
    for (Operation *op : llvm::reverse(ordered))
      op->erase();
    if (split->use_empty())
      split->erase();
    LLVM_DEBUG(llvm::dbgs()
               << DEBUG_TYPE ": a head split moved out of " << ordered.size()
               << " ops at " << hoisted.getLoc() << "\n");
    return hoisted;
  }

  /// Behind `x` ([B, H, S, D] or [B * H, S, D]), keys or values of
  /// `H / G` heads each repeated for G consecutive query heads, as exported
  /// models write it (`repeat_kv`: unsqueeze, expand, reshape): a reshape of
  /// `tile([B, Hkv, 1, S, D] by [1, 1, G, 1, 1])` whose input is a reshape
  /// of `[B, Hkv, S, D]`. That value and G.
  std::optional<std::pair<Value, int64_t>> peelRepeat(Value x) {
    auto outer = x.getDefiningOp<ReshapeOp>();
    if (!outer)
      return std::nullopt;
    auto tile = outer.getInput().getDefiningOp<TileOp>();
    if (!tile)
      return std::nullopt;
    auto inner = tile.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return std::nullopt;
    ArrayRef<int64_t> m = tile.getMultiples();
    auto u = tensorType(tile.getInput()).getShape();
    auto y = tensorType(inner.getInput()).getShape();
    if (m.size() != 5 || m[0] != 1 || m[1] != 1 || m[3] != 1 || m[4] != 1 ||
        m[2] < 2 || u.size() != 5 || u[2] != 1 || y.size() != 4 ||
        y != ArrayRef<int64_t>{u[0], u[1], u[3], u[4]})
      return std::nullopt;
    int64_t g = m[2];
    auto xs = tensorType(x).getShape();
    SmallVector<int64_t> four = {y[0], y[1] * g, y[2], y[3]};
    SmallVector<int64_t> three = {y[0] * y[1] * g, y[2], y[3]};
    if (xs != ArrayRef<int64_t>(four) && xs != ArrayRef<int64_t>(three))
      return std::nullopt;
    return std::make_pair(inner.getInput(), g);
  }

  /// The head split that `x` ([B..., S, D], the batch dimensions a reshape
  /// of [B, H]) is:
  /// - a transpose of [B, S, H, D] by [0, 2, 1, 3];
  /// - a transpose of [S, B, H, D] by [1, 2, 0, 3];
  /// - a transpose of [S, B * H, D] by [1, 0, 2], where that is a reshape of
  ///   an [S, B, H * D] or [S, B, H, D] value (which tells B from H).
  std::optional<Split> findSplit(Value x) {
    Value t = x;
    if (auto reshape = x.getDefiningOp<ReshapeOp>())
      t = reshape.getInput();
    if (auto slice = t.getDefiningOp<SliceOp>())
      return findPackedSplit(x, slice);
    auto transpose = t.getDefiningOp<TransposeOp>();
    if (!transpose)
      return std::nullopt;
    auto xShape = tensorType(x).getShape();
    auto tShape = tensorType(t).getShape();
    if (xShape.size() < 2 || xShape.take_back(2) != tShape.take_back(2))
      return std::nullopt;
    Value y = transpose.getInput();
    auto yShape = tensorType(y).getShape();
    ArrayRef<int64_t> perm = transpose.getPerm();
    Split split;
    split.transpose = transpose;
    if (perm == splitPerm(Layout::BatchFirst)) {
      split.batch = yShape[0];
      split.heads = yShape[2];
      split.source = y;
      return split;
    }
    if (perm == splitPerm(Layout::SeqFirst)) {
      split.layout = Layout::SeqFirst;
      split.batch = yShape[1];
      split.heads = yShape[2];
      split.source = y;
      return split;
    }
    if (perm == ArrayRef<int64_t>{1, 0, 2}) {
      auto reshape = y.getDefiningOp<ReshapeOp>();
      if (!reshape)
        return std::nullopt;
      Value z = reshape.getInput();
      auto zShape = tensorType(z).getShape();
      if ((zShape.size() != 3 && zShape.size() != 4) ||
          zShape[0] != yShape[0] || zShape[1] <= 0 ||
          yShape[1] % zShape[1] != 0)
        return std::nullopt;
      int64_t heads = yShape[1] / zShape[1];
      if ((zShape.size() == 3 && zShape[2] != heads * yShape[2]) ||
          (zShape.size() == 4 &&
           (zShape[2] != heads || zShape[3] != yShape[2])))
        return std::nullopt;
      split.layout = Layout::SeqFirst;
      split.batch = zShape[1];
      split.heads = heads;
      split.source = z;
      return split;
    }
    return std::nullopt;
  }

  /// The split of packed heads that timm's and torchvision's attention
  /// write (`qkv.reshape(B, S, P, H, D).permute(2, 0, 3, 1, 4)`, then
  /// `q, k, v = qkv[0], qkv[1], qkv[2]`): `x` ([B..., S, D], the batch
  /// dimensions a reshape of [B, H]) is `slice` taking index i of the
  /// first dimension of a [P, B, H, S, D] transpose of a [B, S, P, H, D]
  /// value, or of an [S, B, P, H, D] one by [2, 1, 3, 0, 4]. The operand is
  /// heads i * H.. of that value viewed as [B, S, P * H, D].
  std::optional<Split> findPackedSplit(Value x, SliceOp slice) {
    auto transpose = slice.getInput().getDefiningOp<TransposeOp>();
    if (!transpose ||
        (slice.getStrides() &&
         !llvm::all_of(*slice.getStrides(), [](int64_t s) { return s == 1; })))
      return std::nullopt;
    Value y = transpose.getInput();
    auto yShape = tensorType(y).getShape();
    auto tShape = tensorType(transpose.getResult()).getShape();
    auto sShape = tensorType(slice.getResult()).getShape();
    ArrayRef<int64_t> perm = transpose.getPerm(), start = slice.getStart();
    static const int64_t batchFirst[] = {2, 0, 3, 1, 4},
                         seqFirst[] = {2, 1, 3, 0, 4};
    Split split;
    if (perm == ArrayRef<int64_t>(seqFirst))
      split.layout = Layout::SeqFirst;
    else if (perm != ArrayRef<int64_t>(batchFirst))
      return std::nullopt;
    if (sShape.size() != 5 || sShape[0] != 1 || start.size() != 5)
      return std::nullopt;
    for (size_t i = 1; i < 5; ++i)
      if (start[i] != 0 || sShape[i] != tShape[i])
        return std::nullopt;
    // [1, B, H, S, D] viewed as x: the same [S, D] matrices, B * H of them.
    auto xShape = tensorType(x).getShape();
    if (xShape.size() < 2 || xShape.take_back(2) != sShape.take_back(2) ||
        ShapedType::getNumElements(xShape.drop_back(2)) !=
            tShape[1] * tShape[2])
      return std::nullopt;
    split.batch = tShape[1];
    split.heads = tShape[2];
    split.source = y;
    split.transpose = transpose;
    split.headOffset = start[0] * yShape[3];
    return split;
  }

  /// The operand a head split reads from: behind its source, a slice of
  /// whole heads out of the last dimension of a wider product [..., C] (the
  /// packed QKV; and behind that, slices of slices: a key-value product
  /// that dlc-horizontal-fuse merged with other layers'), else the source
  /// itself, viewed as [A0, A1, H, D].
  HeadsOperand headsOperand(const Split &split) {
    auto dims = tensorType(split.source).getShape();
    int64_t a0 = dims[0], a1 = dims[1];
    int64_t d = tensorType(split.transpose->getResult(0)).getShape().back();
    if (split.headOffset >= 0)
      return {view(split.source, a0, a1, d), split.headOffset};
    Value src = split.source;
    int64_t offset = 0;
    // Only the first slice must hold exactly the split's heads.
    for (int64_t width = split.heads * d;;) {
      std::optional<std::pair<Value, int64_t>> wider = headSlice(src, width, d);
      if (!wider)
        break;
      src = wider->first;
      offset += wider->second / d;
      width = tensorType(src).getShape().back();
    }
    return {view(src, a0, a1, d), offset};
  }

  /// When `v` (or a reshape of it that keeps its rows) is a slice of
  /// `width` elements of the last dimension of a wider value, starting at
  /// a multiple of `d`, and whole in every other dimension: that value and
  /// the start.
  static std::optional<std::pair<Value, int64_t>>
  headSlice(Value v, int64_t width, int64_t d) {
    if (auto reshape = v.getDefiningOp<ReshapeOp>())
      if (tensorType(reshape.getInput()).getShape().back() == width)
        v = reshape.getInput();
    auto slice = v.getDefiningOp<SliceOp>();
    if (!slice || d <= 0)
      return std::nullopt;
    Value w = slice.getInput();
    auto wShape = tensorType(w).getShape();
    auto zShape = tensorType(slice.getResult()).getShape();
    ArrayRef<int64_t> start = slice.getStart();
    size_t r = wShape.size();
    bool unitSteps =
        !slice.getStrides() ||
        llvm::all_of(*slice.getStrides(), [](int64_t s) { return s == 1; });
    bool lastOnly = r >= 1 && unitSteps && zShape.back() == width &&
                    wShape.back() % d == 0 && start.back() % d == 0;
    for (size_t i = 0; lastOnly && i + 1 < r; ++i)
      lastOnly = start[i] == 0 && zShape[i] == wShape[i];
    if (!lastOnly)
      return std::nullopt;
    return std::make_pair(w, start.back());
  }

  /// `w` (A0 * A1 rows of N * D elements) as [A0, A1, N, D]: one reshape
  /// per value.
  Value view(Value w, int64_t a0, int64_t a1, int64_t d) {
    auto wType = tensorType(w);
    int64_t n = ShapedType::getNumElements(wType.getShape()) / (a0 * a1 * d);
    auto type = RankedTensorType::get({a0, a1, n, d}, wType.getElementType());
    if (wType == type)
      return w;
    // A view of a view is a view of the first one's input.
    if (auto reshape = w.getDefiningOp<ReshapeOp>()) {
      w = reshape.getInput();
      if (tensorType(w) == type)
        return w;
    }
    auto it = views.find({w, type});
    if (it != views.end())
      return it->second;
    Value v = builder.create<ReshapeOp>(op.getLoc(), type, w);
    views[{w, type}] = v;
    return v;
  }

  /// An operand without a head split, transposed into the layout.
  HeadsOperand transposed(Value x, Layout layout, int64_t b, int64_t h) {
    auto shape = tensorType(x).getShape();
    int64_t s = shape[shape.size() - 2], d = shape.back();
    Type element = tensorType(x).getElementType();
    auto bhsd = RankedTensorType::get({b, h, s, d}, element);
    if (tensorType(x) != bhsd)
      x = builder.create<ReshapeOp>(op.getLoc(), bhsd, x);
    SmallVector<int64_t> target = {b, s, h, d};
    if (layout == Layout::SeqFirst)
      std::swap(target[0], target[1]);
    Value t = builder.create<TransposeOp>(
        op.getLoc(), RankedTensorType::get(target, element), x,
        builder.getDenseI64ArrayAttr(mergePerm(layout)));
    return {t, 0};
  }

  /// The mask as [B or 1, H or 1, Sq or 1, Sk or 1], or null where its batch
  /// dimensions do not split that way.
  Value maskInHeadsLayout(Value m, int64_t b, int64_t h) {
    auto type = tensorType(m);
    auto shape = type.getShape();
    int64_t r = shape.size();
    ArrayRef<int64_t> batch = shape.drop_back(2);
    SmallVector<int64_t> target;
    if (ShapedType::getNumElements(batch) == 1)
      target = {1, 1};
    else if (batch.size() == 2 && (batch[0] == b || batch[0] == 1) &&
             (batch[1] == h || batch[1] == 1))
      target = {batch[0], batch[1]};
    else if (ShapedType::getNumElements(batch) == b * h &&
             llvm::count_if(batch, [](int64_t n) { return n != 1; }) == 1)
      target = {b, h}; // one merged batch dimension of B * H
    else
      return nullptr;
    target.push_back(shape[r - 2]);
    target.push_back(shape[r - 1]);
    auto targetType = RankedTensorType::get(target, type.getElementType());
    if (targetType == type)
      return m;
    return builder.create<ReshapeOp>(op.getLoc(), targetType, m);
  }

  /// Erases `root` and then every op of the old split chains that lost its
  /// last user.
  void eraseDeadChain(Operation *root) {
    SmallVector<Operation *> work = {root};
    while (!work.empty()) {
      Operation *dead = work.pop_back_val();
      if (!dead->use_empty())
        continue;
      SmallVector<Operation *> producers;
      for (Value v : dead->getOperands())
        if (Operation *p = v.getDefiningOp();
            p && isa<TransposeOp, ReshapeOp, SliceOp, TileOp>(p))
          producers.push_back(p);
      dead->erase();
      for (Operation *p : producers)
        if (!llvm::is_contained(work, p))
          work.push_back(p);
    }
  }

  AttentionOp op;
  OpBuilder builder;
  /// Reshapes made by view(), by source and type (the head size is part of
  /// the type: values of another head size than q and k in one packed
  /// product get a view of their own).
  DenseMap<std::pair<Value, Type>, Value> views;
};

struct AttentionLayoutPass
    : public mlir::dlc::impl::AttentionLayoutBase<AttentionLayoutPass> {
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) {
      if (!op.isHeadsLayout())
        ops.push_back(op);
    });
    for (AttentionOp op : ops) {
      [[maybe_unused]] Location loc = op.getLoc();
      bool rewritten = succeeded(Rewriter(op).run());
      LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE ": attention at " << loc
                              << (rewritten ? " reads the heads layout\n"
                                            : " keeps its layout\n"));
      (void)rewritten;
    }
  }
};

} // namespace
