//===- Codegen.h - From planned dlc IR to a runnable package ----*- C++ -*-===//
#ifndef DLC_CODEGEN_CODEGEN_H
#define DLC_CODEGEN_CODEGEN_H

#include "ir/Dialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "runtime/Package.h"

#include <string>
#include <vector>

namespace mlir::dlc {

struct CodegenOptions {
  /// GPU architectures to compile cubins for ("sm_80", "sm_90", ...).
  std::vector<std::string> archs = {"sm_90"};
  /// Compile cubins with NVRTC (otherwise the package holds source only and
  /// the runtime compiles on first load).
  bool compileCubins = true;
  /// Let f32 matrix products run on tensor cores with their operands rounded
  /// to TF32 (GemmStep::tf32), as PyTorch's allow_tf32, XLA's default
  /// precision and TensorRT's TF32 flag do; off, they are full f32.
  bool tf32 = false;
};

/// Emits the CUDA C++ source of every dlc.kernel in `func` (which has been
/// through fusion and memory planning), one __global__ function per kernel,
/// in schedule order, named k0, k1, ... . `kernels` receives their
/// descriptions. Diagnoses, at the op's location, anything it cannot emit.
LogicalResult
generateCudaSource(func::FuncOp func, std::string &source,
                   std::vector<rt::KernelInfo> *kernels = nullptr);

/// Builds the whole package from `func`: CUDA source, the schedule of kernel
/// launches, cuBLAS calls and copies with every buffer resolved against the
/// arena plan, the constant blob, the input and output descriptions, and
/// cubins for options.archs. The caller fills in Package::referenceIR.
FailureOr<rt::Package> generatePackage(func::FuncOp func,
                                       const CodegenOptions &options);

} // namespace mlir::dlc

#endif // DLC_CODEGEN_CODEGEN_H
