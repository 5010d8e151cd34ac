//===- CudaModule.cpp - The package's kernels on the GPU ------------------===//
//
// The package's cubin for the GPU's architecture is loaded as it is; when
// there is none, or the driver rejects it, the package's CUDA source is
// compiled for the GPU with NVRTC (Nvrtc.h, through the kernel cache).
//
//===----------------------------------------------------------------------===//

#include "runtime/CudaDevice.h"
#include "runtime/Nvrtc.h"

#include <algorithm>

namespace dlc::rt {

Status CudaModule::load(CudaContext &ctx, const Package &pkg,
                        const std::string &arch) {
  const CudaDriver *cu = ctx.cu;
  if (pkg.kernels.empty())
    return Status::ok();
  // The cubin for this GPU: its exact architecture, or the same one with
  // architecture-specific features ("sm_90a" runs on sm_90 only).
  const Cubin *match = nullptr;
  for (const Cubin &c : pkg.cubins)
    if (c.arch == arch || (!match && c.arch == arch + "a"))
      match = &c;

  CUresult r = CUDA_ERROR_NO_BINARY_FOR_GPU;
  if (match)
    r = cu->cuModuleLoadData(&module_, match->image.data());
  if (r != CUDA_SUCCESS) {
    // No cubin for this GPU, or one it rejects: compile the source for it.
    std::string reason = match ? "its " + arch + " cubin does not load (" +
                                     cu->errorName(r) + ")"
                               : "the package has no cubin for " + arch;
    Result<std::vector<uint8_t>> cubin =
        compileCudaToCubin(pkg.cudaSource, arch);
    if (!cubin)
      return Status::error(reason + ", and compiling its CUDA source failed: " +
                           cubin.message());
    module_ = nullptr;
    DLC_RT_RETURN_IF_ERROR(
        ctx.check(cu->cuModuleLoadData(&module_, cubin->data()),
                  "cuModuleLoadData", "the kernels compiled for " + arch));
  }

  functions_.resize(pkg.kernels.size(), nullptr);
  for (size_t i = 0; i < pkg.kernels.size(); ++i)
    DLC_RT_RETURN_IF_ERROR(
        ctx.check(cu->cuModuleGetFunction(&functions_[i], module_,
                                          pkg.kernels[i].name.c_str()),
                  "cuModuleGetFunction", pkg.kernels[i].name));

  // Kernels using more than 48 KiB of dynamic shared memory must opt in.
  std::vector<uint32_t> maxShared(pkg.kernels.size(), 0);
  for (const Step &s : pkg.steps)
    if (s.kind == Step::Kind::Kernel)
      maxShared[s.kernel.kernel] =
          std::max(maxShared[s.kernel.kernel], s.kernel.sharedBytes);
  for (size_t i = 0; i < maxShared.size(); ++i)
    if (maxShared[i] > 48 * 1024)
      DLC_RT_RETURN_IF_ERROR(ctx.check(
          cu->cuFuncSetAttribute(
              functions_[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              int(maxShared[i])),
          "cuFuncSetAttribute", pkg.kernels[i].name));
  return Status::ok();
}

void CudaModule::unload(const CudaDriver *cu) {
  if (module_)
    cu->cuModuleUnload(module_);
  module_ = nullptr;
}

} // namespace dlc::rt
