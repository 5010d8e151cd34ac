//===- RuntimeImpl.h - Internal interfaces of the dlc runtime -----*- C++ -*-===//
#ifndef DLC_RUNTIME_RUNTIMEIMPL_H
#define DLC_RUNTIME_RUNTIMEIMPL_H

#include "runtime/Runtime.h"

#include <atomic>

namespace dlc::rt {

/// Both take a package that validatePackage accepted.
Result<std::unique_ptr<Session>>
createCudaSession(const Package &package, const SessionOptions &options);
Result<std::unique_ptr<Session>>
createSimSession(const Package &package, const SessionOptions &options);

/// Compiles CUDA source for the sim device (or finds it in the kernel
/// cache) and returns the path of the shared object. Tests use it to hand
/// the compiled kernels to the fake CUDA driver (test/runtime/FakeCuda.cpp).
Result<std::string> buildSimKernelLibrary(const std::string &source);

/// Checks the inputs of Session::run against the package: count, dtype,
/// shape and byte size, with errors naming the argument ("input #1 (arg1):
/// expected f32[4, 8], got f32[4, 9]").
Status checkRunInputs(const Package &package,
                      const std::vector<HostTensor> &inputs);

/// "step 3 (k3: add+exp)", for errors.
std::string describeStep(const Package &package, size_t index);

/// The process-wide counters behind kernelCacheStats().
struct KernelCacheCounters {
  std::atomic<uint64_t> hits{0}, misses{0}, corruptEntries{0};
};
KernelCacheCounters &kernelCacheCounters();

} // namespace dlc::rt

#endif // DLC_RUNTIME_RUNTIMEIMPL_H
