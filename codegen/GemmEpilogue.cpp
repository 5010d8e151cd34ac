//===- GemmEpilogue.cpp - The fallback kernels of GEMM epilogues ----------===//
#include "codegen/GemmEpilogue.h"
#include "codegen/KernelEntry.h"
#include "ir/ElementType.h"

#include <fmt/format.h>

using namespace mlir::dlc;

int32_t GemmEpilogueKernels::get(const rt::GemmStep &g, rt::Package &pkg) {
  // Everything the text below is made of, but the name.
  std::string key =
      fmt::format("{} {} {} {}x{}x{} {}", rt::dtypeName(g.outType()),
                  rt::gemmEpilogueName(g.epilogue), g.bias.has_value(), g.m,
                  g.n, g.k, g.batch);
  auto [it, inserted] = kernels.try_emplace(key, int32_t(pkg.kernels.size()));
  if (!inserted)
    return it->second;

  std::string name = fmt::format("gemm_epi{}", kernels.size() - 1);
  const rt::DType c = g.outType();
  const char *type = cudaStorageType(c);
  const char *load = c == rt::DType::F16    ? "dlc_h2f"
                     : c == rt::DType::BF16 ? "dlc_bf2f"
                                            : "";
  const char *store = c == rt::DType::F16    ? "dlc_f2h"
                      : c == rt::DType::BF16 ? "dlc_f2bf"
                                             : "";
  std::string activation;
  if (g.bias)
    activation += fmt::format("    x += {}(bias[i % {}LL]);\n", load, g.n);
  switch (g.epilogue) {
  case rt::GemmEpilogue::Relu:
    activation += "    x = fmaxf(x, 0.0f);\n";
    break;
  case rt::GemmEpilogue::GeluTanh:
    // As cuBLASLt's GELU epilogue (and rt::gemmActivation).
    activation += "    x = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + "
                  "0.044715f * x * x * x)));\n";
    break;
  case rt::GemmEpilogue::None:
    break;
  }
  const int64_t total = g.batch * g.m * g.n;
  std::string body = fmt::format(
      "  for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < "
      "{0}LL; i += (long long)gridDim.x * 256) {{\n"
      "    float x = {1}(c[i]);\n{2}"
      "    c[i] = {3}(x);\n"
      "  }}\n",
      total, load, activation, store);
  pkg.cudaSource += fmt::format(
      "\n// {}: the epilogue of a {}x{}x{} GEMM (batch {}) without cuBLASLt\n",
      name, g.m, g.n, g.k, g.batch);
  writeKernelEntry(pkg.cudaSource, name,
                   {{type, "c"}, {fmt::format("const {}", type), "bias"}}, body,
                   /*launchBounds=*/256);
  rt::KernelInfo info;
  info.name = name;
  info.usesBarriers = false;
  // Launched by the runtime with kEpilogueThreads threads a block and at
  // most kEpilogueMaxBlocks blocks; C, read and written whole; the bias, N
  // elements (nothing without one: the kernel does not read it, and the
  // runtime passes a null pointer).
  static_assert(rt::kEpilogueThreads == 256, "the kernel above strides by 256");
  rt::KernelSignature &sig = info.signature.emplace();
  sig.block[0] = rt::kEpilogueThreads;
  sig.grid[0] = rt::kEpilogueMaxBlocks;
  const uint64_t es = rt::dtypeSize(g.outType());
  sig.params = {{uint64_t(total) * es, /*writes=*/true},
                {g.bias ? uint64_t(g.n) * es : 0, /*writes=*/false}};
  pkg.kernels.push_back(info);
  return it->second;
}
