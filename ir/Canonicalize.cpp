//===- Canonicalize.cpp - Canonicalization patterns of dlc ops ------------===//
//
// The rewrites `canonicalize` applies to dlc ops (hasCanonicalizer in
// DlcOps.td). Folders stay with their op in Dialect.cpp.
//
//===----------------------------------------------------------------------===//
#include "ir/Dialect.h"
#include "ir/Reference.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::dlc;

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

namespace {
/// matmul(transpose(x)) where the transpose swaps only the last two
/// dimensions becomes matmul {transpose_a}; likewise for the rhs. cuBLAS reads
/// either layout at no cost, so no transpose kernel runs before a GEMM.
struct FoldTransposeIntoMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool swapsLastTwo(TransposeOp t) {
    ArrayRef<int64_t> perm = t.getPerm();
    int64_t r = perm.size();
    if (r < 2)
      return false;
    for (int64_t i = 0; i < r - 2; ++i)
      if (perm[i] != i)
        return false;
    return perm[r - 2] == r - 1 && perm[r - 1] == r - 2;
  }

  /// `v` without a transpose of its last two dimensions, if it is one,
  /// possibly seen through a reshape that only adds or drops leading
  /// dimensions of size 1 (a weight `[K, N]` transposed, then given a batch
  /// dimension for a batched product): that reshape is then made of the
  /// transpose's input.
  static Value untransposed(Value v, Operation *at, PatternRewriter &rewriter) {
    if (auto t = v.getDefiningOp<TransposeOp>(); t && swapsLastTwo(t))
      return t.getInput();
    auto reshape = v.getDefiningOp<ReshapeOp>();
    if (!reshape)
      return nullptr;
    auto t = reshape.getInput().getDefiningOp<TransposeOp>();
    if (!t || !swapsLastTwo(t))
      return nullptr;
    auto in = cast<RankedTensorType>(t.getType());
    auto out = cast<RankedTensorType>(reshape.getType());
    auto onlyLeadingUnits = [](RankedTensorType a, RankedTensorType b) {
      int64_t ra = a.getRank(), rb = b.getRank();
      if (ra < 2 || rb < 2 ||
          a.getShape().take_back(2) != b.getShape().take_back(2))
        return false;
      return llvm::all_of(a.getShape().drop_back(2),
                          [](int64_t d) { return d == 1; }) &&
             llvm::all_of(b.getShape().drop_back(2),
                          [](int64_t d) { return d == 1; });
    };
    if (!onlyLeadingUnits(in, out))
      return nullptr;
    SmallVector<int64_t> shape(out.getShape());
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    rewriter.setInsertionPoint(at);
    return rewriter.create<ReshapeOp>(
        reshape.getLoc(), RankedTensorType::get(shape, out.getElementType()),
        t.getInput());
  }

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    bool changed = false;
    Value lhs = op.getLhs(), rhs = op.getRhs();
    bool ta = op.getTransposeA(), tb = op.getTransposeB();
    if (Value u = untransposed(lhs, op, rewriter)) {
      lhs = u;
      ta = !ta;
      changed = true;
    }
    if (Value u = untransposed(rhs, op, rewriter)) {
      rhs = u;
      tb = !tb;
      changed = true;
    }
    if (!changed)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op->setOperand(0, lhs);
      op->setOperand(1, rhs);
      op.setTransposeA(ta);
      op.setTransposeB(tb);
    });
    return success();
  }
};

/// matmul(tile(x)) where the tile only repeats batch dimensions of size 1
/// that the other operand has at full size becomes matmul(x): the matmul
/// broadcasts batch dimensions itself, so the copy is not needed.
struct FoldBatchTileIntoMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  /// The tile's input if dropping the tile keeps the matmul's result.
  static Value broadcastSource(Value operand, Value other) {
    auto tile = operand.getDefiningOp<TileOp>();
    if (!tile)
      return {};
    ArrayRef<int64_t> multiples = tile.getMultiples();
    auto in = tensorType(tile.getInput());
    auto otherType = tensorType(other);
    int64_t r = multiples.size();
    if (multiples[r - 2] != 1 || multiples[r - 1] != 1)
      return {};
    for (int64_t d = 0; d < r - 2; ++d)
      if (multiples[d] != 1 &&
          (in.getDimSize(d) != 1 || otherType.getDimSize(d) != multiples[d]))
        return {};
    return tile.getInput();
  }

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Value lhs = broadcastSource(op.getLhs(), op.getRhs());
    Value rhs = broadcastSource(op.getRhs(), op.getLhs());
    if (!lhs && !rhs)
      return failure();
    // Drop one tile at a time: the condition looks at the other operand's
    // current shape.
    rewriter.modifyOpInPlace(op, [&] {
      if (lhs)
        op->setOperand(0, lhs);
      else
        op->setOperand(1, rhs);
    });
    return success();
  }
};

/// transpose(transpose(x, p), q) becomes transpose(x, p o q).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(inner.getPerm()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getInput(),
                                             perm);
    return success();
  }
};
/// select(not(c), a, b) is select(c, b, a): one form of a mask for the
/// matchers (nanoGPT's masked_fill of ~tril exports Not then Where).
struct SelectOfNot : OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    auto negated = op.getCond().getDefiningOp<NotOp>();
    if (!negated)
      return failure();
    rewriter.replaceOpWithNewOp<SelectOp>(op, op.getType(), negated.getInput(),
                                          op.getOnFalse(), op.getOnTrue());
    return success();
  }
};
/// A small elementwise (not a cast), data-movement or reduction op of constants
/// is a constant, computed by the reference interpreter (ir/Reference.h): a
/// causal mask built from tril(ones) by select, not and reshape is one
/// constant, not a kernel that recomputes it every run. Values of more
/// than kMaxFoldedElements stay computed (a folded value is stored in the
/// package).
struct FoldConstantOperands : RewritePattern {
  static constexpr int64_t kMaxFoldedElements = int64_t(1) << 16;
  explicit FoldConstantOperands(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    // Casts fold themselves (CastOp::fold), except where dlc.cast leaves
    // the result unspecified (NaN or out of range to an integer), which
    // the interpreter would pick.
    // Inside a fused kernel constants are splat literals only.
    if (!isa_and_nonnull<DlcDialect>(op->getDialect()) || isa<CastOp>(op) ||
        op->getParentOfType<KernelOp>() || op->getNumOperands() == 0 ||
        !(op->hasTrait<trait::Elementwise>() ||
          op->hasTrait<trait::DataMovement>() || isa<ReduceOp>(op)) ||
        llvm::any_of(op->getOperands(),
                     [](Value v) { return !v.getDefiningOp<ConstantOp>(); }))
      return failure();
    FailureOr<DenseElementsAttr> value =
        evaluateOnConstants(op, kMaxFoldedElements);
    if (failed(value))
      return failure();
    rewriter.replaceOpWithNewOp<ConstantOp>(op, *value);
    return success();
  }
};
} // namespace

void DlcDialect::getCanonicalizationPatterns(RewritePatternSet &results) const {
  results.add<FoldConstantOperands>(getContext());
}

void SelectOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<SelectOfNot>(context);
}

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<FoldTransposeIntoMatmul, FoldBatchTileIntoMatmul>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}
