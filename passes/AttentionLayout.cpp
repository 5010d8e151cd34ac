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
// product) and the head merge after the result (the same transpose, under
// a reshape to `[B, H, S, Dv]`). Operands without a split are transposed
// into the layout, uses of the result other than a merge get the result
// transposed back; the rewrite happens only when it removes more
// transposes than it adds.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <optional>

namespace mlir::dlc {
#define GEN_PASS_DEF_ATTENTIONLAYOUT
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool isHeadTranspose(TransposeOp op) {
  return op && op.getPerm() == ArrayRef<int64_t>{0, 2, 1, 3};
}

/// A `[B, S, N, D]` tensor and the first head of it that an operand uses.
struct HeadsOperand {
  Value value;
  int64_t offset = 0;
};

/// B and H of one attention: the batch and head counts of the heads layout.
struct Geometry {
  int64_t batch = 0, heads = 0;
};

class Rewriter {
public:
  Rewriter(AttentionOp op) : op(op), builder(op) {}

  LogicalResult run() {
    auto result = op.getType();
    int64_t rank = result.getRank();
    Value operands[3] = {op.getQ(), op.getK(), op.getV()};
    // The head split behind each operand, if any; B and H from the first.
    std::optional<Geometry> geometry;
    SmallVector<TransposeOp> splits;
    for (Value x : operands) {
      TransposeOp split = findSplit(x);
      if (split && !geometry) {
        auto shape = tensorType(split.getResult()).getShape();
        geometry = Geometry{shape[0], shape[1]};
      }
      splits.push_back(split);
    }
    // The merges after the result.
    SmallVector<TransposeOp> merges;
    SmallVector<OpOperand *> otherUses;
    for (OpOperand &use : op.getResult().getUses()) {
      Operation *user = use.getOwner();
      if (auto t = dyn_cast<TransposeOp>(user); t && isHeadTranspose(t)) {
        merges.push_back(t);
        continue;
      }
      if (auto r = dyn_cast<ReshapeOp>(user);
          r && tensorType(r.getResult()).getRank() == 4) {
        bool all = !r.getResult().use_empty();
        for (Operation *u : r.getResult().getUsers())
          all = all && isHeadTranspose(dyn_cast<TransposeOp>(u));
        if (all) {
          for (Operation *u : r.getResult().getUsers())
            merges.push_back(cast<TransposeOp>(u));
          continue;
        }
      }
      otherUses.push_back(&use);
    }
    if (!geometry && !merges.empty()) {
      auto shape = tensorType(merges.front().getInput()).getShape();
      geometry = Geometry{shape[0], shape[1]};
    }
    if (!geometry)
      return failure();
    int64_t b = geometry->batch, h = geometry->heads;
    int64_t sq = result.getDimSize(rank - 2), dv = result.getDimSize(rank - 1);
    // Every operand must be a full [B * H] batch of matrices (broadcast
    // batches stay in the plain form), and every merge of the result must
    // see the same B and H.
    SmallVector<int64_t> resultBatch(result.getShape().drop_back(2));
    if (product(resultBatch) != b * h)
      return failure();
    for (Value x : operands)
      if (product(tensorType(x).getShape().drop_back(2)) != b * h)
        return failure();
    for (TransposeOp merge : merges)
      if (tensorType(merge.getInput()).getShape() !=
          ArrayRef<int64_t>{b, h, sq, dv})
        return failure();
    for (TransposeOp &split : splits)
      if (split && tensorType(split.getResult()).getShape().take_front(2) !=
                       ArrayRef<int64_t>{b, h})
        split = nullptr;
    // Transposes removed minus transposes added.
    int64_t removed = llvm::count_if(splits, [](TransposeOp t) { return t; }) +
                      int64_t(merges.size());
    int64_t added = llvm::count_if(splits, [](TransposeOp t) { return !t; }) +
                    (otherUses.empty() ? 0 : 1);
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
      heads.push_back(splits[i] ? headsOperand(splits[i])
                                : transposed(operands[i], b, h));
    auto type = RankedTensorType::get({b, sq, h, dv}, result.getElementType());
    SmallVector<int64_t> offsets = {heads[0].offset, heads[1].offset,
                                    heads[2].offset};
    auto attention = builder.create<AttentionOp>(
        op.getLoc(), type, heads[0].value, heads[1].value, heads[2].value, mask,
        op.getScaleAttr(), op.getCausalAttr(),
        builder.getDenseI64ArrayAttr(offsets));
    for (TransposeOp merge : merges) {
      Value input = merge.getInput();
      merge.getResult().replaceAllUsesWith(attention.getResult());
      merge.erase();
      // The reshape to [B, H, Sq, Dv] between the result and its merges.
      if (auto reshape = input.getDefiningOp<ReshapeOp>();
          reshape && reshape.getResult().use_empty())
        reshape.erase();
    }
    if (!otherUses.empty()) {
      // [B, Sq, H, Dv] -> [B, H, Sq, Dv] -> the old result type.
      auto bhsd =
          RankedTensorType::get({b, h, sq, dv}, result.getElementType());
      Value back = builder.create<TransposeOp>(
          op.getLoc(), bhsd, attention.getResult(),
          builder.getDenseI64ArrayAttr({0, 2, 1, 3}));
      if (bhsd != result)
        back = builder.create<ReshapeOp>(op.getLoc(), result, back);
      for (OpOperand *use : otherUses)
        use->set(back);
    }
    Operation *old = op;
    eraseDeadChain(old);
    return success();
  }

private:
  /// The transpose by [0, 2, 1, 3] of a [B, S, H, D] value that `x`
  /// ([B..., S, D] with the batch dimensions a reshape of [B, H]) is.
  TransposeOp findSplit(Value x) {
    Value t = x;
    if (auto reshape = x.getDefiningOp<ReshapeOp>())
      t = reshape.getInput();
    auto transpose = t.getDefiningOp<TransposeOp>();
    if (!isHeadTranspose(transpose))
      return nullptr;
    auto shape = tensorType(transpose.getResult()).getShape();
    auto xShape = tensorType(x).getShape();
    if (xShape.size() < 2 || xShape.take_back(2) != shape.take_back(2))
      return nullptr;
    return transpose;
  }

  /// The operand a head split reads from: behind the split's input
  /// [B, S, H, D], a slice of whole heads out of the last dimension of a
  /// wider product [..., C] (the packed QKV), else the input itself.
  HeadsOperand headsOperand(TransposeOp split) {
    Value y = split.getInput();
    auto yShape = tensorType(y).getShape();
    int64_t d = yShape[3];
    if (auto reshape = y.getDefiningOp<ReshapeOp>()) {
      if (auto slice = reshape.getInput().getDefiningOp<SliceOp>()) {
        Value w = slice.getInput();
        auto wShape = tensorType(w).getShape();
        auto zShape = tensorType(slice.getResult()).getShape();
        ArrayRef<int64_t> start = slice.getStart();
        size_t r = wShape.size();
        bool unitSteps =
            !slice.getStrides() ||
            llvm::all_of(*slice.getStrides(), [](int64_t s) { return s == 1; });
        bool lastOnly = r >= 1 && unitSteps && d > 0 &&
                        zShape.back() == yShape[2] * d &&
                        wShape.back() % d == 0 && start.back() % d == 0;
        for (size_t i = 0; lastOnly && i + 1 < r; ++i)
          lastOnly = start[i] == 0 && zShape[i] == wShape[i];
        if (lastOnly)
          return {packed(w, yShape[0], yShape[1], d), start.back() / d};
      }
    }
    return {y, 0};
  }

  /// `w` ([..., C], B * S rows) as [B, S, C / D, D]: one reshape per value.
  Value packed(Value w, int64_t b, int64_t s, int64_t d) {
    auto it = packedViews.find(w);
    if (it != packedViews.end())
      return it->second;
    auto wType = tensorType(w);
    auto type = RankedTensorType::get({b, s, wType.getShape().back() / d, d},
                                      wType.getElementType());
    Value view = builder.create<ReshapeOp>(op.getLoc(), type, w);
    packedViews[w] = view;
    return view;
  }

  /// An operand without a head split, transposed into the heads layout.
  HeadsOperand transposed(Value x, int64_t b, int64_t h) {
    auto shape = tensorType(x).getShape();
    int64_t s = shape[shape.size() - 2], d = shape.back();
    Type element = tensorType(x).getElementType();
    auto bhsd = RankedTensorType::get({b, h, s, d}, element);
    if (tensorType(x) != bhsd)
      x = builder.create<ReshapeOp>(op.getLoc(), bhsd, x);
    Value t = builder.create<TransposeOp>(
        op.getLoc(), RankedTensorType::get({b, s, h, d}, element), x,
        builder.getDenseI64ArrayAttr({0, 2, 1, 3}));
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
    if (product(batch) == 1)
      target = {1, 1};
    else if (batch.size() == 2 && (batch[0] == b || batch[0] == 1) &&
             (batch[1] == h || batch[1] == 1))
      target = {batch[0], batch[1]};
    else if (product(batch) == b * h &&
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

  /// Erases `root` and then every op of the old split and merge chains that
  /// lost its last user.
  void eraseDeadChain(Operation *root) {
    SmallVector<Operation *> work = {root};
    while (!work.empty()) {
      Operation *dead = work.pop_back_val();
      if (!dead->use_empty())
        continue;
      SmallVector<Operation *> producers;
      for (Value v : dead->getOperands())
        if (Operation *p = v.getDefiningOp();
            p && isa<TransposeOp, ReshapeOp, SliceOp>(p))
          producers.push_back(p);
      dead->erase();
      for (Operation *p : producers)
        if (!llvm::is_contained(work, p))
          work.push_back(p);
    }
  }

  AttentionOp op;
  OpBuilder builder;
  DenseMap<Value, Value> packedViews;
};

struct AttentionLayoutPass
    : public mlir::dlc::impl::AttentionLayoutBase<AttentionLayoutPass> {
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) {
      if (!op.isHeadsLayout())
        ops.push_back(op);
    });
    for (AttentionOp op : ops)
      (void)Rewriter(op).run();
  }
};

} // namespace
