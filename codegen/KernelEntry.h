//===- KernelEntry.h - The entry of a generated kernel ----------*- C++ -*-===//
//
// Internal to codegen/: every generated kernel (fused, attention, GEMM
// epilogue) is an `extern "C" __global__` function of pointer parameters and,
// under DLC_SIM, a trampoline `dlc_sim_entry_<name>(void* const* args)` that
// the sim device calls with the launch's buffers.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_CODEGEN_KERNELENTRY_H
#define DLC_CODEGEN_KERNELENTRY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::dlc {

/// One pointer parameter: `<pointee>* __restrict__ <name>`.
struct KernelParam {
  /// "const float", "unsigned short", ...
  std::string pointee;
  std::string name;
};

/// Appends kernel `name` with `params` and `body` (statements, each line
/// ending in a newline) to `source`, then its sim trampoline. With
/// `launchBounds` nonzero the kernel declares __launch_bounds__ of it.
void writeKernelEntry(std::string &source, llvm::StringRef name,
                      llvm::ArrayRef<KernelParam> params, llvm::StringRef body,
                      unsigned launchBounds = 0);

} // namespace mlir::dlc

#endif // DLC_CODEGEN_KERNELENTRY_H
