//===- GemmEmitter.cpp - A generated GEMM with the kernel as its epilogue -===//
//
// The Gemm template (a dlc.kernel holding one dlc.matmul, formed by
// dlc-fuse-gemm): block (x, y, z) computes the 64x64 tile of the product at
// columns 64x, rows 64y, batch z. The main loop walks k in slices of 16: a
// 64x16 slice of A and a 16x64 slice of B, staged in shared memory as f32
// (zero outside the matrices), k-major, rows padded to 68 floats so that
// each row stays 16-byte aligned. Each of the 256 threads accumulates the
// 4x4 block of the tile at rows 4ty.., columns 4tx.. in f32 registers, so a
// step of k reads its four values of A and four of B as two 16-byte vectors
// of shared memory for 16 FMAs. The staging is double-buffered: a thread
// loads the next slice's elements from global memory into registers before
// it multiplies the current slice, and stores them into the other buffer
// after, so the loads' latency hides behind the arithmetic and one barrier
// per slice suffices. Then each thread applies the product's own bias,
// addend and activation, rounds to the product's type once (as the library
// call), and computes the kernel's results at that element with the
// expression emitter: the product is never written to memory.
//
// The main loop is f32 FMA on CUDA cores, the work cuBLAS does for an f32
// product without TF32; dlc-fuse-gemm forms such kernels only for f32
// products.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelEmitter.h"

#include <fmt/format.h>

using namespace mlir;
using namespace mlir::dlc;

namespace {

constexpr int64_t kTile = 64, kSlice = 16, kThreads = 256;
/// Floats per k-row of a staged slice: 64 and 4 of padding, which keeps the
/// rows 16-byte aligned for vector reads.
constexpr int64_t kPitch = kTile + 4;
/// Elements of one operand's slice each thread stages.
constexpr int64_t kPerThread = kTile * kSlice / kThreads;

class GemmEmitter : public KernelEmitter {
public:
  GemmEmitter(KernelOp kernel, const KernelPlan &plan, unsigned number)
      : KernelEmitter(kernel, plan, number) {}

private:
  void emitTemplate(EmittedKernel &out) override;
  std::string describeTemplate() const override {
    return fmt::format("generated GEMM {}x{}x{}, batch {}, {}x{} tiles", m, n,
                       k, batch, kTile, kTile);
  }
  bool usesBarriers() const override { return true; }
  std::optional<std::string> precomputed(Value v,
                                         ArrayRef<std::string> idx) override {
    MatmulOp product = plan.product;
    if (v == product.getResult() && !productVar.empty())
      return productVar;
    return std::nullopt;
  }

  /// Statements loading this thread's elements of one operand's slice at
  /// k origin `kOrigin` into the registers `regs`.
  void emitSliceLoad(unsigned arg, const std::string &regs,
                     const std::string &base, bool kMajor, bool rowsAreM,
                     const std::string &kOrigin);
  /// Statements storing `regs` into buffer `buffer` of the shared tile.
  void emitSliceStore(const std::string &tile, const std::string &buffer,
                      const std::string &regs, bool kMajor);

  int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string productVar;
};

} // namespace

/// The element of a slice thread-element `ge` holds: (gk, go), k and the
/// row or column within the tile. kMajor: the operand's rows are M or N and
/// its columns k (A untransposed, B transposed), so consecutive threads
/// read consecutive k; otherwise consecutive M or N.
static std::string sliceElement(bool kMajor) {
  if (kMajor)
    return fmt::format("  const int gk = ge % {0}, go = ge / {0};\n", kSlice);
  return fmt::format("  const int go = ge % {0}, gk = ge / {0};\n", kTile);
}

/// Loads this thread's elements of the slice at k `kOrigin` of an operand
/// stored as rows x cols (row-major), rows indexed by M or N (kMajor) or by
/// k; zero outside the matrix. A slice is loaded only at kOrigin < k, and
/// k <= 2^31 - 17, so kOrigin + gk stays in int.
void GemmEmitter::emitSliceLoad(unsigned arg, const std::string &regs,
                                const std::string &base, bool kMajor,
                                bool rowsAreM, const std::string &kOrigin) {
  rt::DType e = dtypeOfValue(kernel.getBodyBlock().getArgument(arg));
  int64_t outer = rowsAreM ? m : n;
  std::string origin = rowsAreM ? "gemm_m0" : "gemm_n0";
  std::string text =
      fmt::format("#pragma unroll\nfor (int gr = 0; gr < {0}; ++gr) {{\n"
                  "  const int ge = (int)threadIdx.x + {1} * gr;\n",
                  kPerThread, kThreads) +
      sliceElement(kMajor);
  std::string address =
      kMajor ? fmt::format("{} + (long long)({} + go) * {} + ({} + gk)", base,
                           origin, k, kOrigin)
             : fmt::format("{} + (long long)({} + gk) * {} + ({} + go)", base,
                           kOrigin, outer, origin);
  text += fmt::format(
      "  {0}[gr] = go < {1} - {2} && gk < {3} - {4} ? {5} : 0.0f;\n}}", regs,
      outer, origin, k, kOrigin,
      loadExpr(e, fmt::format("in{}[{}]", arg, address)));
  line(cur, text);
}

void GemmEmitter::emitSliceStore(const std::string &tile,
                                 const std::string &buffer,
                                 const std::string &regs, bool kMajor) {
  line(cur, fmt::format("#pragma unroll\nfor (int gr = 0; gr < {0}; ++gr) {{\n"
                        "  const int ge = (int)threadIdx.x + {1} * gr;\n"
                        "{2}  {3}[{4}][gk][go] = {5}[gr];\n}}",
                        kPerThread, kThreads, sliceElement(kMajor), tile,
                        buffer, regs));
}

void GemmEmitter::emitTemplate(EmittedKernel &out) {
  MatmulOp product = plan.product;
  auto yield = cast<YieldOp>(kernel.getBodyBlock().getTerminator());
  ArrayRef<int64_t> space = plan.space;
  int64_t rank = space.size();
  m = space[rank - 2];
  n = space[rank - 1];
  ArrayRef<int64_t> lhsShape = shapeOf(product.getLhs());
  ArrayRef<int64_t> rhsShape = shapeOf(product.getRhs());
  k = lhsShape[product.getTransposeA() ? rank - 2 : rank - 1];
  ArrayRef<int64_t> batchShape = space.drop_back(2);
  batch = ShapedType::getNumElements(batchShape);
  int64_t gridX = (n + kTile - 1) / kTile, gridY = (m + kTile - 1) / kTile;
  if (batch > 65535 || gridY > 65535) {
    fail(product, "is too large for a generated GEMM's grid");
    return;
  }
  // A launch has at most rt::kMaxLaunchThreads threads (validatePackage),
  // which also keeps every row and column index in int; the main loop
  // counts k in int.
  if (gridX * gridY * batch > int64_t(rt::kMaxLaunchThreads) / kThreads) {
    fail(product, "needs " + std::to_string(gridX * gridY * batch) +
                      " thread blocks of " + std::to_string(kThreads) +
                      " threads as a generated GEMM; a launch may have at "
                      "most 2^31 - 1 threads");
    return;
  }
  if (k > int64_t(2147483647) - kSlice) {
    fail(product, "contracts " + std::to_string(k) +
                      " elements, more than a generated GEMM's main loop "
                      "counts (2^31 - 17)");
    return;
  }
  out.grid[0] = uint32_t(gridX);
  out.grid[1] = uint32_t(gridY);
  out.grid[2] = uint32_t(batch);
  out.block[0] = kThreads;
  out.flops = 2.0 * double(batch) * double(m) * double(n) * double(k);

  Scope *top = root.get();
  cur = top;
  line(top, fmt::format("const int gemm_n0 = (int)blockIdx.x * {};", kTile));
  line(top, fmt::format("const int gemm_m0 = (int)blockIdx.y * {};", kTile));
  line(top, "const int gemm_tx = (int)threadIdx.x % 16;");
  line(top, "const int gemm_ty = (int)threadIdx.x / 16;");
  for (const char *tile : {"gemm_as", "gemm_bs"})
    line(top, fmt::format("alignas(16) __shared__ float {}[2][{}][{}];", tile,
                          kSlice, kPitch));
  line(top, fmt::format("float gemm_ra[{0}], gemm_rb[{0}];", kPerThread));
  line(top, "float gemm_acc[4][4];\n"
            "#pragma unroll\n"
            "for (int gi = 0; gi < 4; ++gi) {\n"
            "#pragma unroll\n"
            "  for (int gj = 0; gj < 4; ++gj)\n"
            "    gemm_acc[gi][gj] = 0.0f;\n"
            "}");

  // The batch index, and where each operand's matrix of it begins.
  SmallVector<std::string> batchIdx;
  if (batch > 1)
    batchIdx = declareIndex(top, "blockIdx.z", batchShape, "b");
  else
    batchIdx.assign(batchShape.size(), "0");
  auto matrixBase = [&](ArrayRef<int64_t> shape, const char *name) {
    ArrayRef<int64_t> operandBatch = shape.drop_back(2);
    std::string lin =
        ixLinear(broadcastIndex(batchIdx, operandBatch), operandBatch);
    std::string var = fmt::format("gemm_{}", name);
    line(top, fmt::format("const long long {} = (long long)({}) * {}LL;", var,
                          lin, shape[rank - 2] * shape[rank - 1]));
    return var;
  };
  std::string aBase = matrixBase(lhsShape, "a");
  std::string bBase = matrixBase(rhsShape, "b");
  unsigned aArg = cast<BlockArgument>(product.getLhs()).getArgNumber();
  unsigned bArg = cast<BlockArgument>(product.getRhs()).getArgNumber();

  // A is M x K (K x M transposed); B is K x N (N x K transposed).
  bool aKMajor = !product.getTransposeA(), bKMajor = product.getTransposeB();
  auto load = [&](const std::string &kOrigin) {
    emitSliceLoad(aArg, "gemm_ra", aBase, aKMajor, /*rowsAreM=*/true, kOrigin);
    emitSliceLoad(bArg, "gemm_rb", bBase, bKMajor, /*rowsAreM=*/false, kOrigin);
  };
  auto store = [&](const std::string &buffer) {
    emitSliceStore("gemm_as", buffer, "gemm_ra", aKMajor);
    emitSliceStore("gemm_bs", buffer, "gemm_rb", bKMajor);
  };
  // The first slice into buffer 0.
  load("0");
  store("0");
  line(top, "__syncthreads();");

  // Slice s multiplies buffer s % 2 while the next slice travels to the
  // other one; the barrier at its end publishes that buffer and frees this
  // one for slice s + 2.
  Scope *loop =
      openScope(top,
                fmt::format("for (int gemm_k0 = 0, gemm_s = 0; gemm_k0 < {0}; "
                            "gemm_k0 += {1}, gemm_s ^= 1) {{",
                            k, kSlice),
                /*barrier=*/true);
  cur = loop;
  // gemm_k0 + 16 <= 2^31 - 1: k <= 2^31 - 17.
  line(loop,
       fmt::format("const bool gemm_more = gemm_k0 < {} - {};", k, kSlice));
  line(loop, fmt::format("const int gemm_kn = gemm_k0 + {};", kSlice));
  Scope *next = openScope(loop, "if (gemm_more) {", /*barrier=*/true);
  cur = next;
  load("gemm_kn");
  cur = loop;
  closeScope(next);
  line(loop,
       fmt::format("#pragma unroll\n"
                   "for (int gq = 0; gq < {}; ++gq) {{\n"
                   "  const float4 ga = *reinterpret_cast<const float4 *>("
                   "&gemm_as[gemm_s][gq][4 * gemm_ty]);\n"
                   "  const float4 gb = *reinterpret_cast<const float4 *>("
                   "&gemm_bs[gemm_s][gq][4 * gemm_tx]);\n"
                   "  const float gav[4] = {{ga.x, ga.y, ga.z, ga.w}};\n"
                   "  const float gbv[4] = {{gb.x, gb.y, gb.z, gb.w}};\n"
                   "#pragma unroll\n"
                   "  for (int gi = 0; gi < 4; ++gi) {{\n"
                   "#pragma unroll\n"
                   "    for (int gj = 0; gj < 4; ++gj)\n"
                   "      gemm_acc[gi][gj] += gav[gi] * gbv[gj];\n"
                   "  }}\n"
                   "}}",
                   kSlice));
  next = openScope(loop, "if (gemm_more) {", /*barrier=*/true);
  cur = next;
  store("gemm_s ^ 1");
  cur = loop;
  closeScope(next);
  line(loop, "__syncthreads();");
  cur = top;
  closeScope(loop);

  // The epilogue, at each of the thread's 16 elements.
  Scope *rows =
      openScope(top, "#pragma unroll\nfor (int gi = 0; gi < 4; ++gi) {",
                /*barrier=*/true);
  Scope *cols =
      openScope(rows, "#pragma unroll\nfor (int gj = 0; gj < 4; ++gj) {",
                /*barrier=*/true);
  std::string mVar = fmt::format("i{}", rank - 2),
              nVar = fmt::format("i{}", rank - 1);
  line(cols, fmt::format("const int {} = gemm_m0 + 4 * gemm_ty + gi;", mVar));
  line(cols, fmt::format("const int {} = gemm_n0 + 4 * gemm_tx + gj;", nVar));
  declare(cols, mVar, gridY * kTile);
  declare(cols, nVar, int64_t(out.grid[0]) * kTile);
  Scope *inside = openScope(
      cols, fmt::format("if ({} < {} && {} < {}) {{", mVar, m, nVar, n),
      /*barrier=*/true);
  cur = inside;
  SmallVector<std::string> idx(batchIdx.begin(), batchIdx.end());
  idx.push_back(mVar);
  idx.push_back(nVar);

  line(inside, "float gemm_p = gemm_acc[gi][gj];");
  if (Value bias = product.getBias()) {
    ArrayRef<int64_t> biasShape = shapeOf(bias);
    ArrayRef<std::string> tail = ArrayRef<std::string>(idx).take_back(
        std::min<size_t>(biasShape.size(), idx.size()));
    line(inside, fmt::format("gemm_p += {};",
                             val(bias, broadcastIndex(tail, biasShape))));
  }
  if (Value addend = product.getAddend())
    line(inside, fmt::format("gemm_p += {};", val(addend, idx)));
  switch (product.getEpilogue()) {
  case EpilogueKind::relu:
    line(inside, "gemm_p = fmaxf(gemm_p, 0.0f);");
    break;
  case EpilogueKind::gelu_tanh:
    // As cuBLASLt's GELU epilogue (and the fallback kernel).
    line(inside, "gemm_p = 0.5f * gemm_p * (1.0f + tanhf(0.7978845608f * "
                 "(gemm_p + 0.044715f * gemm_p * gemm_p * gemm_p)));");
    break;
  case EpilogueKind::none:
    break;
  }
  // Rounded to the product's type once, as the library call's result.
  if (rt::DType e = dtypeOfValue(product.getResult()); e != rt::DType::F32)
    line(inside, fmt::format("gemm_p = {};", roundTo(e, "gemm_p")));
  productVar = "gemm_p";

  std::string lin = ixLinear(idx, space);
  for (auto [i, v] : llvm::enumerate(yield.getValues())) {
    std::string x = val(v, idx);
    line(inside,
         fmt::format("out{}[{}] = {};", i, lin, storeExpr(dtypeOfValue(v), x)));
  }
  productVar.clear();
  cur = cols;
  closeScope(inside);
  cur = rows;
  closeScope(cols);
  cur = top;
  closeScope(rows);
}

std::unique_ptr<KernelEmitter>
mlir::dlc::createGemmEmitter(KernelOp kernel, const KernelPlan &plan,
                             unsigned number) {
  return std::make_unique<GemmEmitter>(kernel, plan, number);
}
