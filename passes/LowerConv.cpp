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
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dlc-lower-conv"

namespace mlir::dlc {
#define GEN_PASS_DEF_LOWERCONV
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// A convolution with one input channel and at most this many output
/// channels per group runs as a direct kernel.
constexpr int64_t kMaxDirectOutputsPerGroup = 4;

/// Whether `conv` stays a direct (fused) convolution.
bool isDirect(Conv2DOp conv) {
  auto filter = cast<RankedTensorType>(conv.getFilter().getType());
  int64_t ocPerGroup = filter.getDimSize(0) / conv.getGroups();
  return filter.getDimSize(1) == 1 && ocPerGroup <= kMaxDirectOutputsPerGroup;
}

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

void lowerToGemm(Conv2DOp conv) {
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  auto in = cast<RankedTensorType>(conv.getInput().getType());
  auto filter = cast<RankedTensorType>(conv.getFilter().getType());
  auto out = conv.getType();
  Type element = out.getElementType();
  int64_t n = in.getDimSize(0), c = in.getDimSize(1);
  int64_t oc = filter.getDimSize(0), kh = filter.getDimSize(2),
          kw = filter.getDimSize(3);
  int64_t g = conv.getGroups();
  int64_t ohw = out.getDimSize(2) * out.getDimSize(3);
  int64_t k = c / g * kh * kw;

  Value columns;
  if (isPointwise(conv)) {
    columns = reshape(b, loc, conv.getInput(), {n, g, c / g, ohw});
  } else {
    auto type = RankedTensorType::get({n, g, k, ohw}, element);
    columns = b.create<Im2ColOp>(loc, type, conv.getInput(),
                                 ArrayRef<int64_t>{kh, kw}, conv.getStrides(),
                                 conv.getPads(), conv.getDilations(), g);
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
}

struct LowerConvPass : public ::mlir::dlc::impl::LowerConvBase<LowerConvPass> {
  using LowerConvBase::LowerConvBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<Conv2DOp> convs;
    // Convolutions already inside kernels were placed there on purpose.
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (auto conv = dyn_cast<Conv2DOp>(op))
          if (!isDirect(conv))
            convs.push_back(conv);
    for (Conv2DOp conv : convs) {
      LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE ": convolution at " << conv.getLoc()
                              << " becomes a GEMM\n");
      lowerToGemm(conv);
    }
  }
};

} // namespace
