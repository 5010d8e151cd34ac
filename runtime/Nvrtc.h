//===- Nvrtc.h - Compiling CUDA source with NVRTC ---------------*- C++ -*-===//
//
// Part of the runtime's public API (Runtime.h includes it): CUDA source
// compiled to cubins with NVRTC, opened at run time (CudaLibs.h), through
// the on-disk kernel cache (kernelCacheDir()). The cuda device compiles a
// package's source when it has no cubin for the GPU (CudaModule.cpp);
// `dlc compile` compiles cubins ahead of time.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_NVRTC_H
#define DLC_RUNTIME_NVRTC_H

#include "runtime/Package.h"
#include "runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dlc::rt {

/// Compiles CUDA source to a cubin for `arch` ("sm_80", "sm_90", ...) with
/// NVRTC, through the on-disk kernel cache (see kernelCacheDir()). On failure
/// the error holds NVRTC's log.
Result<std::vector<uint8_t>> compileCudaToCubin(const std::string &source,
                                                const std::string &arch);
/// A cubin and what ptxas reported for each of its kernels.
struct CompiledCubin {
  std::vector<uint8_t> image;
  std::vector<KernelResources> resources;
};
/// compileCudaToCubin with ptxas's per-kernel report (registers, stack,
/// spills), which the kernel cache keeps with the image.
Result<CompiledCubin> compileCuda(const std::string &source,
                                  const std::string &arch);
/// The entry functions of ptxas's verbose log (`--ptxas-options=-v`).
std::vector<KernelResources> parsePtxasInfo(const std::string &log);
/// The NVRTC version as "13.0", or an error if NVRTC cannot be loaded.
Result<std::string> nvrtcVersion();

} // namespace dlc::rt

#endif // DLC_RUNTIME_NVRTC_H
