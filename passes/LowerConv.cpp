//===- LowerConv.cpp - Convolutions as GEMMs
//-------------------------------===//
//
// A dense dlc.conv2d is computed as a matrix product, which runs on cuBLAS
// (or the sim's GEMM) at a large fraction of peak, instead of as a direct
// loop per output element:
//
// * a 1x1, stride-1, unpadded convolution is already a product: the filter
//   [OC, C] times the input viewed as [N, C, H*W] (batch broadcast);
// * any other convolution first gathers its windows into columns
//   (dlc.im2col, a data-movement op that fusion turns into a kernel), giving
//   [N, G, C/G*KH*KW, OH*OW], then multiplies by the filter viewed as
//   [1, G, OC/G, C/G*KH*KW].
//
// The product [N, G, OC/G, OH*OW] is viewed as [N, OC, OH, OW], so a bias add
// and activation that follow fuse into one epilogue kernel. Depthwise
// convolutions (one input channel per group and few outputs per group) have
// too little arithmetic per element for a GEMM and stay dlc.conv2d: code
// generation computes them directly, fused with their neighbours.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dlc-lower-conv"

namespace mlir::dlc {
#define GEN_PASS_DEF_LOWERCONV
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

bool isPointwise(Conv2DOp conv) {
  auto filter = cast<RankedTensorType>(conv.getFilter().getType());
  return filter.getDimSize(2) == 1 && filter.getDimSize(3) == 1 &&
         llvm::all_of(conv.getStrides(), [](int64_t s) { return s == 1; }) &&
         llvm::all_of(conv.getPads(), [](int64_t p) { return p == 0; });
}

Value reshape(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  // Folds a constant filter into a reshaped constant.
  return b.createOrFold<ReshapeOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), v);
}

/// A conv2d's sizes: batch and input channels, output channels and window,
/// output rows and columns.
struct ConvDims {
  int64_t n, c, oc, kh, kw, oh, ow;
};
ConvDims dimsOf(Conv2DOp conv) {
  auto in = cast<RankedTensorType>(conv.getInput().getType());
  auto filter = cast<RankedTensorType>(conv.getFilter().getType());
  auto out = conv.getType();
  return {in.getDimSize(0),     in.getDimSize(1),     filter.getDimSize(0),
          filter.getDimSize(2), filter.getDimSize(3), out.getDimSize(2),
          out.getDimSize(3)};
}

/// The im2col columns of `conv`, of `type`: refused, at the convolution, when
/// they are larger than one tensor may be (they hold KH*KW copies of the
/// input, so a convolution within the limit can have columns beyond it).
FailureOr<Value> im2colOf(OpBuilder &b, Conv2DOp conv, RankedTensorType type,
                          int64_t groups) {
  if (!isWithinTensorSizeLimit(type))
    return conv.emitOpError()
           << "needs im2col columns of shape " << formatShape(type.getShape())
           << ", which are larger than the 2^40 bytes (1 TiB) dlc supports "
              "for one tensor";
  ConvDims d = dimsOf(conv);
  return b
      .create<Im2ColOp>(conv.getLoc(), type, conv.getInput(),
                        ArrayRef<int64_t>{d.kh, d.kw}, conv.getStrides(),
                        conv.getPads(), conv.getDilations(), groups)
      .getResult();
}

LogicalResult lowerToGemm(Conv2DOp conv) {
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  auto out = conv.getType();
  Type element = out.getElementType();
  auto [n, c, oc, kh, kw, oh, ow] = dimsOf(conv);
  int64_t g = conv.getGroups();
  int64_t ohw = oh * ow;
  int64_t k = c / g * kh * kw;

  Value columns;
  if (isPointwise(conv)) {
    columns = reshape(b, loc, conv.getInput(), {n, g, c / g, ohw});
  } else {
    FailureOr<Value> im2col =
        im2colOf(b, conv, RankedTensorType::get({n, g, k, ohw}, element), g);
    if (failed(im2col))
      return failure();
    columns = *im2col;
  }
  // Without groups the batch of the product is N alone: rank 3.
  SmallVector<int64_t> wShape{1, g, oc / g, k}, cShape{n, g, k, ohw},
      pShape{n, g, oc / g, ohw};
  if (g == 1) {
    wShape.erase(wShape.begin() + 1);
    cShape.erase(cShape.begin() + 1);
    pShape.erase(pShape.begin() + 1);
  }
  Value weights = reshape(b, loc, conv.getFilter(), wShape);
  columns = reshape(b, loc, columns, cShape);
  auto product = b.create<MatmulOp>(
      loc, RankedTensorType::get(pShape, element), weights, columns,
      /*transpose_a=*/false, /*transpose_b=*/false, conv.getAccTypeAttr());
  setFromConv(product);
  conv.replaceAllUsesWith(reshape(b, loc, product, out.getShape()));
  conv.erase();
  return success();
}

/// Replaces `conv` by `nhwc`, its value channels-last: users that wanted
/// that (a transpose to NHWC) get it, others an NCHW transpose of it. The
/// transposes the conv2d read through (the NCHW view of an NHWC input, of
/// TOSA's OHWI filter) go when nothing else reads them.
void replaceWithChannelsLast(Conv2DOp conv, OpBuilder &b, Value nhwc) {
  for (Operation *user : llvm::make_early_inc_range(conv->getUsers()))
    if (auto t = dyn_cast<TransposeOp>(user);
        t && t.getPerm() == ArrayRef<int64_t>(kToNHWC)) {
      t.getResult().replaceAllUsesWith(nhwc);
      t->erase();
    }
  if (!conv->use_empty())
    conv.replaceAllUsesWith(transposeOf(b, conv.getLoc(), nhwc, kToNCHW));
  SmallVector<Operation *> inputs;
  for (Value operand : conv->getOperands())
    if (auto t = operand.getDefiningOp<TransposeOp>())
      inputs.push_back(t);
  conv.erase();
  for (Operation *t : inputs)
    if (t->use_empty())
      t->erase();
}

/// Whether a library convolution (dlc.conv) computes `conv`: symmetric
/// padding (cuDNN's), f32, f16 or bf16 with f32 accumulation, and not a 1x1,
/// stride-1 convolution (a GEMM with a cuBLASLt epilogue already).
bool takesLibraryConv(Conv2DOp conv) {
  ArrayRef<int64_t> p = conv.getPads();
  Type element = conv.getType().getElementType();
  auto acc = conv.getAccType();
  return !isPointwise(conv) && p[0] == p[2] && p[1] == p[3] &&
         (element.isF32() || element.isF16() || element.isBF16()) &&
         (!acc || acc->isF32());
}

/// A channels-last convolution as a dlc.conv: the input NHWC (through a
/// transpose where it is NCHW), the filter KRSC (permuted at compile time
/// when it is a constant). Users that wanted the NHWC value get it; others
/// an NCHW transpose.
void lowerToLibraryConv(Conv2DOp conv) {
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  auto out = conv.getType();
  Value input = transposeOf(b, loc, conv.getInput(), kToNHWC);
  Value filter = transposeOf(b, loc, conv.getFilter(), kToNHWC);
  auto type = cast<RankedTensorType>(permuteType(out, kToNHWC));
  auto lib = b.create<ConvOp>(
      loc, type, input, filter, /*bias=*/Value(), /*addend=*/Value(),
      conv.getStridesAttr(), conv.getPadsAttr(), conv.getDilationsAttr(),
      conv.getGroupsAttr(),
      EpilogueKindAttr::get(b.getContext(), EpilogueKind::none));
  replaceWithChannelsLast(conv, b, lib.getResult());
}

/// A `dlc.channels_last` convolution (dlc-assign-layout) as a product with
/// the channels on the columns, [N*OH*OW, OC] (or [N, OH*OW, OC]), viewed as
/// NHWC: its bias and activation are then cuBLASLt epilogues and a residual
/// add its addend. A 1x1, stride-1, unpadded convolution of a channels-last
/// input multiplies that viewed as [N*H*W, C] by the filter [OC, C]
/// transposed; any other multiplies its columns [N, K, OH*OW] (the NCHW
/// input of a 1x1 convolution, im2col's otherwise; either reads a
/// channels-last input through the transpose in front of it, which its
/// kernel absorbs), transposed, by the same. Users that wanted the NHWC
/// value get it; others an NCHW transpose.
LogicalResult lowerToChannelsLastGemm(Conv2DOp conv) {
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  Type element = conv.getType().getElementType();
  auto [n, c, oc, kh, kw, oh, ow] = dimsOf(conv);
  int64_t k = c * kh * kw;

  MatmulOp product;
  auto input = conv.getInput().getDefiningOp<TransposeOp>();
  bool nhwcInput = input && input.getPerm() == ArrayRef<int64_t>(kToNCHW);
  if (isPointwise(conv) && nhwcInput) {
    Value rows = reshape(b, loc, input.getInput(), {n * oh * ow, c});
    product = b.create<MatmulOp>(
        loc, RankedTensorType::get({n * oh * ow, oc}, element), rows,
        reshape(b, loc, conv.getFilter(), {oc, c}),
        /*transpose_a=*/false, /*transpose_b=*/true, conv.getAccTypeAttr());
  } else {
    // An NCHW input of a 1x1 convolution is its own columns.
    Value columns = conv.getInput();
    if (!isPointwise(conv)) {
      FailureOr<Value> im2col = im2colOf(
          b, conv, RankedTensorType::get({n, 1, k, oh * ow}, element), 1);
      if (failed(im2col))
        return failure();
      columns = *im2col;
    }
    // One product when the batch is 1; else batched over N with the
    // filter broadcast.
    SmallVector<int64_t> cShape{n, k, oh * ow}, wShape{1, oc, k},
        pShape{n, oh * ow, oc};
    if (n == 1) {
      cShape.erase(cShape.begin());
      wShape.erase(wShape.begin());
      pShape.erase(pShape.begin());
    }
    product = b.create<MatmulOp>(loc, RankedTensorType::get(pShape, element),
                                 reshape(b, loc, columns, cShape),
                                 reshape(b, loc, conv.getFilter(), wShape),
                                 /*transpose_a=*/true, /*transpose_b=*/true,
                                 conv.getAccTypeAttr());
  }
  setFromConv(product);
  replaceWithChannelsLast(conv, b, reshape(b, loc, product, {n, oh, ow, oc}));
  return success();
}

struct LowerConvPass : public ::mlir::dlc::impl::LowerConvBase<LowerConvPass> {
  using LowerConvBase::LowerConvBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<Conv2DOp> convs;
    // What was unused before the rewrites is the user's (kept: removing
    // dead code is canonicalization's job).
    llvm::DenseSet<Operation *> unusedBefore;
    // Convolutions already inside kernels were placed there on purpose.
    for (Block &block : func.getBody())
      for (Operation &op : block) {
        if (op.use_empty())
          unusedBefore.insert(&op);
        if (auto conv = dyn_cast<Conv2DOp>(op))
          if (!conv.isDirect())
            convs.push_back(conv);
      }
    bool channelsLast = false;
    for (Conv2DOp conv : convs) {
      unusedBefore.erase(conv); // erased below: its address may be reused
      channelsLast |= isChannelsLast(conv);
      LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE ": convolution at " << conv.getLoc()
                              << " becomes a GEMM\n");
      if (isChannelsLast(conv) && libraryConv && takesLibraryConv(conv))
        lowerToLibraryConv(conv);
      else if (failed(isChannelsLast(conv) && conv.getGroups() == 1
                          ? lowerToChannelsLastGemm(conv)
                          : lowerToGemm(conv)))
        return signalPassFailure();
    }
    // Layout changes leave transposes (and their constants) that nothing
    // reads once composed: removed, users before producers.
    if (channelsLast)
      for (Block &block : func.getBody())
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
          if (isa<TransposeOp, ReshapeOp, ConstantOp>(op) && op.use_empty() &&
              !unusedBefore.contains(&op))
            op.erase();
  }
};

} // namespace
