//===- FuseGemm.cpp - A product and its elementwise reader as one kernel --===//
//
// dlc-fuse-epilogue folds into a GEMM what cuBLASLt's epilogues compute
// (bias, residual, relu, tanh-GELU). What they cannot (erf-GELU, SiLU, a
// clamp with an upper bound, a cast) dlc-fuse puts in a pointwise kernel
// that reads the product back from memory. When that kernel is the
// product's only reader and reads it elementwise, the product moves into
// the kernel: a generated GEMM (analysis: KernelTemplate::Gemm) that
// computes the kernel's results from each element of the product while it
// is in registers, so the product is never written.
//
//===----------------------------------------------------------------------===//
#include "analysis/KernelAnalysis.h"
#include "ir/Attributes.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dlc-fuse-gemm"

namespace mlir::dlc {
#define GEN_PASS_DEF_FUSEGEMM
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// The largest grid dimension y and z of a launch.
constexpr int64_t kMaxGridYZ = 65535;
/// Rows and columns of the product per block of 256 threads (codegen's
/// Gemm template), the most blocks of one launch (2^31 - 1 threads) and
/// the deepest contraction its main loop counts.
constexpr int64_t kTile = 64;
constexpr int64_t kMaxBlocks = ((int64_t(1) << 31) - 1) / 256;
constexpr int64_t kMaxDepth = ((int64_t(1) << 31) - 1) - 16;

/// The product's figures the choice needs.
struct ProductSize {
  double flops = 0;
  double bytes = 0;
};

/// Why `matmul` cannot be generated, or nothing when it can (before its
/// reader is looked at).
std::optional<std::string> productRefusal(MatmulOp matmul, double maxFlops,
                                          ProductSize &size) {
  auto type = cast<RankedTensorType>(matmul.getType());
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  if (!type.hasStaticShape() || !lhs.hasStaticShape())
    return "its shapes are not static";
  if (!lhs.getElementType().isF32() || !type.getElementType().isF32())
    return "it is not an f32 product (16-bit products use the library's "
           "tensor cores)";
  if (matmul.getLhsScale() || matmul.getRhsScale() ||
      (matmul.getAccType() && !matmul.getAccType()->isF32()))
    return "it has scales or a non-f32 accumulator";
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  int64_t m = shape[rank - 2], n = shape[rank - 1];
  int64_t k = lhs.getShape()[matmul.getTransposeA() ? rank - 2 : rank - 1];
  int64_t batch = 1;
  for (int64_t d : shape.drop_back(2))
    batch *= d;
  if (m == 0 || n == 0 || batch == 0 || k == 0)
    return "it is empty";
  int64_t tiles = (m + kTile - 1) / kTile;
  if (batch > kMaxGridYZ || tiles > kMaxGridYZ)
    return "its grid would be too large";
  // The launch's threads and the main loop's k (codegen's limits).
  tiles *= (n + kTile - 1) / kTile;
  if (tiles * batch > kMaxBlocks || k > kMaxDepth)
    return "it is too large for one launch";
  size.flops = 2.0 * double(batch) * double(m) * double(n) * double(k);
  size.bytes = 4.0 * double(batch) * double(m) * double(n);
  if (size.flops > maxFlops)
    return "it is larger than max-flops";
  return std::nullopt;
}

/// Whether the generated GEMM is expected to take no longer than the
/// library's call and the reader's pass over the product. Generating it
/// saves the product's write and read (2 x its bytes) and one launch; it
/// costs the main loop's slowdown, flops x (1 / speed - 1) at the library's
/// rate, expressed in bytes of memory traffic by `flopsPerByte` (the
/// library's f32 rate over the memory's bandwidth).
bool pays(const ProductSize &size, double speed, double flopsPerByte,
          double launchBytes) {
  if (speed >= 1)
    return true;
  if (speed <= 0 || flopsPerByte <= 0)
    return false;
  double slowdownBytes = size.flops * (1.0 / speed - 1.0) / flopsPerByte;
  return slowdownBytes <= 2.0 * size.bytes + launchBytes;
}

/// The kernel computing `reader`'s results with `matmul` inside, at
/// reader's place.
KernelOp buildGemmKernel(MatmulOp matmul, KernelOp reader,
                         unsigned productOperand) {
  // Inputs: the product's operands, then the reader's others (shared ones
  // once).
  llvm::SetVector<Value> inputs;
  inputs.insert(matmul->getOperands().begin(), matmul->getOperands().end());
  SmallVector<unsigned> operandMap(reader.getInputs().size());
  for (auto [i, input] : llvm::enumerate(reader.getInputs())) {
    if (i == productOperand)
      continue;
    inputs.insert(input);
    operandMap[i] = llvm::find(inputs, input) - inputs.begin();
  }

  OpBuilder builder(reader);
  Location loc = builder.getFusedLoc({matmul.getLoc(), reader.getLoc()});
  auto kernel = builder.create<KernelOp>(loc, reader->getResultTypes(),
                                         inputs.getArrayRef());
  Block &body = kernel.getBodyBlock();
  OpBuilder bodyBuilder = OpBuilder::atBlockEnd(&body);
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(inputs))
    map.map(v, body.getArgument(i));
  Operation *product = bodyBuilder.clone(*matmul, map);
  Block &old = reader.getBodyBlock();
  for (auto [i, arg] : llvm::enumerate(old.getArguments()))
    map.map(arg, i == productOperand ? Value(product->getResult(0))
                                     : Value(body.getArgument(operandMap[i])));
  for (Operation &op : old)
    bodyBuilder.clone(op, map);

  // Notes about the reader's inputs, renumbered; the one about the product
  // (why it was written to memory) no longer holds.
  operandMap[productOperand] = kDroppedOperand;
  SmallVector<Attribute> notes;
  remapFusionNotes(reader, operandMap, 0, notes);
  if (!notes.empty())
    setFusionNotes(kernel, ArrayAttr::get(reader.getContext(), notes));
  return kernel;
}

struct FuseGemmPass : public ::mlir::dlc::impl::FuseGemmBase<FuseGemmPass> {
  using FuseGemmBase::FuseGemmBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<MatmulOp> products;
    for (Operation &op : func.getBody().getOps())
      if (auto matmul = dyn_cast<MatmulOp>(op))
        products.push_back(matmul);
    unsigned formed = 0;
    for (MatmulOp matmul : products) {
      ProductSize size;
      if (std::optional<std::string> why =
              productRefusal(matmul, maxFlops, size)) {
        LLVM_DEBUG(llvm::dbgs()
                   << "keeping " << matmul << ": " << *why << "\n");
        continue;
      }
      if (!pays(size, relativeSpeed, flopsPerByte, launchBytes))
        continue;
      Value result = matmul.getResult();
      if (!result.hasOneUse())
        continue;
      OpOperand &use = *result.getUses().begin();
      auto reader = dyn_cast<KernelOp>(use.getOwner());
      if (!reader || reader->getBlock() != matmul->getBlock())
        continue;
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(result.getType()).getShape();
      FailureOr<KernelPlan> plan = analyzeKernel(reader);
      if (failed(plan) || plan->kind != KernelTemplate::Pointwise ||
          ArrayRef<int64_t>(plan->space) != shape)
        continue;
      unsigned productOperand = use.getOperandNumber();
      if (KernelOp::nonElementwiseReader(
              reader.getBodyBlock().getArgument(productOperand), shape))
        continue;
      // The product's operands must be available at the reader: they are
      // defined before the product, which is before the reader.
      KernelOp kernel = buildGemmKernel(matmul, reader, productOperand);
      FailureOr<KernelPlan> check = analyzeKernel(kernel);
      if (failed(check) || check->kind != KernelTemplate::Gemm) {
        kernel.erase();
        continue;
      }
      for (NamedAttribute attr : reader->getDiscardableAttrs())
        if (attr.getName() != attr::kFusionNotes)
          kernel->setAttr(attr.getName(), attr.getValue());
      reader->replaceAllUsesWith(kernel->getResults());
      reader.erase();
      matmul.erase();
      ++formed;
    }
    LLVM_DEBUG(llvm::dbgs() << formed << " generated GEMM kernels\n");
  }
};

} // namespace
