//===- SplitConcatProduct.cpp - A product of a concat as a sum of products ===//
//
// A matrix product whose left operand is a concatenation along the
// contraction dimension (SqueezeNet's fire modules, a feature concat before
// a Linear in recommendation and multi-branch models) is, with the weight
// split along the same dimension, a sum of products:
//
//   concat(x1, x2) @ W = x1 @ W[0:k1] + x2 @ W[k1:k1+k2]
//
// The concat is a kernel that only moves data (its producers and its reader
// are library calls, which fusion cannot enter): it reads and writes every
// concatenated element, and the GEMM reads them again. The sum of products
// reads each part once; each product after the first takes the previous
// partial result as its addend (cuBLASLt's `beta * C`), so the price is the
// narrow result's extra write and read per part, and dlc-fuse-epilogue puts
// the bias and activation on the last product. XLA's algebraic simplifier has
// the same rewrite (dot of concat).
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dlc-split-concat-product"

namespace mlir::dlc {
#define GEN_PASS_DEF_SPLITCONCATPRODUCT
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// The concat that `lhs` views (through reshapes that keep its last
/// dimension, each with no other user), concatenated along that dimension,
/// with the product as its only reader.
ConcatOp concatAlongContraction(Value lhs) {
  int64_t k = cast<RankedTensorType>(lhs.getType()).getShape().back();
  Value v = lhs;
  while (v.hasOneUse() && v.getDefiningOp<ReshapeOp>())
    v = v.getDefiningOp<ReshapeOp>().getInput();
  auto concat = v.getDefiningOp<ConcatOp>();
  if (!concat || !v.hasOneUse())
    return {};
  auto type = cast<RankedTensorType>(concat.getType());
  // Equal last dimensions: a row-major reshape between them keeps each
  // element's position in its row, so every part is a block of columns.
  if (!type.hasStaticShape() || type.getShape().back() != k ||
      concat.getAxis() != uint64_t(type.getRank() - 1))
    return {};
  return concat;
}

struct SplitConcatProduct
    : ::mlir::dlc::impl::SplitConcatProductBase<SplitConcatProduct> {
  using SplitConcatProductBase::SplitConcatProductBase;

  /// Whether splitting `concat` (read by `op`, whose result is `result`)
  /// pays. Saved: the concat's read and write of every part. Paid: each
  /// partial result after the first written and read once more, and a
  /// launch per part beyond the concat kernel's one.
  bool pays(Operation *op, ConcatOp concat, Value result) {
    size_t parts = concat.getInputs().size();
    if (parts < 2)
      return false;
    double saved = 2.0 * double(valueBytes(concat.getResult()));
    double paid = 2.0 * double(parts - 1) * double(valueBytes(result)) +
                  double(parts - 2) * launchBytes;
    LLVM_DEBUG(llvm::dbgs()
               << (paid < saved ? "splits " : "keeps ") << *op << ": saves "
               << saved << " B, costs " << paid << " B\n");
    return paid < saved;
  }

  /// Erases what the split left unread: `start`'s producers down to (and
  /// including) `concat`, which were views read only by the next, and the
  /// whole weight when nothing else reads it.
  static void eraseSplit(Operation *op, Value start, ConcatOp concat,
                         Value weight) {
    SmallVector<Operation *> dead;
    for (Value v = start; v.getDefiningOp() != concat.getOperation();
         v = v.getDefiningOp<ReshapeOp>().getInput())
      dead.push_back(v.getDefiningOp());
    op->erase();
    for (Operation *d : dead)
      d->erase();
    concat.erase();
    if (Operation *w = weight.getDefiningOp(); w && w->use_empty())
      w->erase();
  }

  /// The constant `weight`'s slice [offset, offset + width) along `dim`
  /// (folded at compile time).
  static Value sliceWeight(OpBuilder &b, Location loc, Value weight,
                           int64_t dim, int64_t offset, int64_t width) {
    auto type = cast<RankedTensorType>(weight.getType());
    SmallVector<int64_t> start(type.getRank(), 0), shape(type.getShape());
    start[dim] = offset;
    shape[dim] = width;
    return b.createOrFold<SliceOp>(
        loc, RankedTensorType::get(shape, type.getElementType()), weight,
        b.getDenseI64ArrayAttr(start), DenseI64ArrayAttr());
  }

  /// The constant `weight` split along `dim` at the widths of `concat`'s
  /// parts (along its last dimension), or nothing (and no op left behind)
  /// when a part is empty or a slice does not fold to a constant (a weight
  /// too large to rearrange at compile time would be sliced by a kernel on
  /// every run).
  static std::optional<SmallVector<Value>>
  splitWeight(OpBuilder &b, Location loc, Value weight, int64_t dim,
              ConcatOp concat) {
    SmallVector<Value> slices;
    int64_t offset = 0;
    bool folded = true;
    for (Value part : concat.getInputs()) {
      int64_t width = cast<RankedTensorType>(part.getType()).getShape().back();
      if (width == 0) {
        folded = false;
        break;
      }
      slices.push_back(sliceWeight(b, loc, weight, dim, offset, width));
      offset += width;
      if (!matchPattern(slices.back(), m_Constant())) {
        folded = false;
        break;
      }
    }
    if (folded)
      return slices;
    for (Value v : slices)
      if (Operation *op = v.getDefiningOp(); op && op->use_empty())
        op->erase();
    return std::nullopt;
  }

  /// Rewrites `matmul` when it qualifies and pays; returns whether it did.
  bool split(MatmulOp matmul) {
    auto type = cast<RankedTensorType>(matmul.getType());
    auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
    // f32 only: a 16-bit product would round each partial sum to its type
    // before the next part is added.
    if (matmul.getTransposeA() || matmul.getBias() || matmul.getAddend() ||
        matmul.getEpilogue() != EpilogueKind::none || matmul.getLhsScale() ||
        matmul.getRhsScale() || !type.hasStaticShape() ||
        !lhsType.hasStaticShape() || !type.getElementType().isF32() ||
        !lhsType.getElementType().isF32() ||
        (matmul.getAccType() && !matmul.getAccType()->isF32()))
      return false;
    // The weight is split at compile time: a constant.
    if (!matchPattern(matmul.getRhs(), m_Constant()))
      return false;
    ConcatOp concat = concatAlongContraction(matmul.getLhs());
    if (!concat || !pays(matmul, concat, matmul.getResult()))
      return false;

    OpBuilder b(matmul);
    Location loc = matmul.getLoc();
    Value rhs = matmul.getRhs();
    int64_t rank = cast<RankedTensorType>(rhs.getType()).getRank();
    // The contraction dimension of the weight as stored.
    int64_t kDim = matmul.getTransposeB() ? rank - 1 : rank - 2;
    std::optional<SmallVector<Value>> weights =
        splitWeight(b, loc, rhs, kDim, concat);
    if (!weights)
      return false;
    SmallVector<int64_t> rowsShape(lhsType.getShape().drop_back());
    Value sum;
    for (auto [part, weight] : llvm::zip(concat.getInputs(), *weights)) {
      int64_t width = cast<RankedTensorType>(part.getType()).getShape().back();
      SmallVector<int64_t> partShape(rowsShape);
      partShape.push_back(width);
      Value lhs = part;
      if (cast<RankedTensorType>(part.getType()).getShape() !=
          ArrayRef<int64_t>(partShape))
        lhs = b.create<ReshapeOp>(
            loc, RankedTensorType::get(partShape, lhsType.getElementType()),
            part);
      // Each product after the first adds the partial sum before it (its
      // addend, cuBLASLt's beta * C); the bias and activation that follow
      // the original product go on the last one (dlc-fuse-epilogue).
      auto product = b.create<MatmulOp>(
          loc, type, lhs, weight, /*bias=*/Value(), /*addend=*/sum,
          /*transpose_a=*/false, matmul.getTransposeB(),
          matmul.getAccTypeAttr(), EpilogueKind::none, FloatAttr(),
          FloatAttr());
      // Discardable attributes (dlc.from_conv) carry over.
      for (NamedAttribute attr : matmul->getDiscardableAttrs())
        product->setAttr(attr.getName(), attr.getValue());
      sum = product.getResult();
    }
    matmul.replaceAllUsesWith(sum);
    eraseSplit(matmul, matmul.getLhs(), concat, rhs);
    return true;
  }

  /// The same for a library convolution (NHWC input, KRSC filter) of a
  /// concat along the channels: a convolution per part with the filter's
  /// input channels split, each adding the one before (cuDNN's fused
  /// addend, as a residual connection is).
  bool split(ConvOp conv) {
    auto type = conv.getType();
    auto inType = cast<RankedTensorType>(conv.getInput().getType());
    if (conv.hasEpilogue() || conv.getGroups() != 1 || !type.hasStaticShape() ||
        !type.getElementType().isF32() || !inType.getElementType().isF32() ||
        !matchPattern(conv.getFilter(), m_Constant()))
      return false;
    auto concat = conv.getInput().getDefiningOp<ConcatOp>();
    if (!concat || !conv.getInput().hasOneUse() ||
        concat.getAxis() != uint64_t(inType.getRank() - 1) ||
        !pays(conv, concat, conv.getResult()))
      return false;
    OpBuilder b(conv);
    Location loc = conv.getLoc();
    Value filter = conv.getFilter();
    int64_t cDim = cast<RankedTensorType>(filter.getType()).getRank() - 1;
    std::optional<SmallVector<Value>> weights =
        splitWeight(b, loc, filter, cDim, concat);
    if (!weights)
      return false;
    Value sum;
    for (auto [part, weight] : llvm::zip(concat.getInputs(), *weights)) {
      sum = b.create<ConvOp>(
                 loc, type, part, weight, /*bias=*/Value(),
                 /*addend=*/sum, conv.getStridesAttr(), conv.getPadsAttr(),
                 conv.getDilationsAttr(), conv.getGroupsAttr(),
                 EpilogueKindAttr::get(conv.getContext(), EpilogueKind::none))
                .getResult();
    }
    conv.replaceAllUsesWith(sum);
    eraseSplit(conv, conv.getInput(), concat, filter);
    return true;
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<MatmulOp, ConvOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto matmul = dyn_cast<MatmulOp>(op))
        split(matmul);
      else
        split(cast<ConvOp>(op));
    }
  }
};

} // namespace
