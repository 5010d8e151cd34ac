//===- CudaEmitter.h - What the emitter gives the builder -------*- C++ -*-===//
//
// Internal to codegen/: the package builder needs, besides the source, the
// launch configuration the emitter chose for every kernel.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_CODEGEN_CUDAEMITTER_H
#define DLC_CODEGEN_CUDAEMITTER_H

#include "codegen/Codegen.h"

#include <string>
#include <vector>

namespace mlir::dlc {

/// One emitted __global__ function and how to launch it.
struct EmittedKernel {
  KernelOp op;
  rt::KernelInfo info;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedBytes = 0;
  /// Floating-point operations of a generated GEMM's product (2 m n k per
  /// batch); 0 for other kernels.
  double flops = 0;
  /// "k3: add+exp+reduce".
  std::string label;
};

/// Emits the source of every top-level dlc.kernel of `func` in order (k0,
/// k1, ...) and appends one EmittedKernel per kernel to `kernels`.
LogicalResult emitCudaKernels(func::FuncOp func, std::string &source,
                              std::vector<EmittedKernel> &kernels);

} // namespace mlir::dlc

#endif // DLC_CODEGEN_CUDAEMITTER_H
