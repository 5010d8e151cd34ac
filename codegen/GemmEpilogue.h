//===- GemmEpilogue.h - The fallback kernels of GEMM epilogues --*- C++ -*-===//
//
// Internal to codegen/: a GEMM step with an epilogue also names a kernel
// (rt::GemmStep::epilogueKernel) that applies its bias and activation in
// place, for a device that runs the product without cuBLASLt's epilogue.
// Steps whose kernels would be the same text share one: a product split into
// one GEMM call per outer batch index has one kernel, not one per call.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_CODEGEN_GEMMEPILOGUE_H
#define DLC_CODEGEN_GEMMEPILOGUE_H

#include "runtime/Package.h"

#include "llvm/ADT/StringMap.h"

namespace mlir::dlc {

namespace rt = ::dlc::rt;

/// The epilogue kernels of one package, named gemm_epi0, gemm_epi1, ... in
/// the order they are first needed.
class GemmEpilogueKernels {
public:
  /// The index in `pkg.kernels` of the epilogue kernel of GEMM step `gemm`:
  /// C = act(C + bias[j]) over its contiguous batch * m * n elements, with a
  /// grid-stride loop of 256-thread blocks. Appends the kernel to
  /// pkg.cudaSource (which holds the prelude) and pkg.kernels unless an
  /// earlier step has the same one.
  int32_t get(const rt::GemmStep &gemm, rt::Package &pkg);

private:
  /// What the kernel's text depends on -> its index in Package::kernels.
  llvm::StringMap<int32_t> kernels;
};

} // namespace mlir::dlc

#endif // DLC_CODEGEN_GEMMEPILOGUE_H
