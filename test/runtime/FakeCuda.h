//===- FakeCuda.h - The fake CUDA driver and cuBLAS of tests ----*- C++ -*-===//
//
// libdlc-fakecuda.so (FakeCuda.cpp) exports the CUDA driver, cuBLAS and
// cuBLASLt entry points the runtime resolves, so that CudaDevice's control
// flow (context, allocations, module loading, launches, copies, GEMMs with
// and without epilogues, CUDA Graph capture and replay, every error path)
// runs without a GPU: point
// $DLC_CUDA_DRIVER_LIB, $DLC_CUBLAS_LIB and $DLC_CUBLASLT_LIB at it.
//
// Device memory is host memory. The fake is strict where a real driver is:
// it needs cuInit, a current context for work, ranges inside allocations
// for copies and GEMMs, valid launch dimensions, a non-capturing stream to
// synchronize, and it reports a kernel argument outside every allocation as
// the sticky CUDA_ERROR_ILLEGAL_ADDRESS at the next synchronization.
//
// Kernels really run when the module image is a "fake cubin" (below): it
// names a shared object compiled by the sim device from the package's CUDA
// source (buildSimKernelLibrary), and the fake runs its dlc_sim_entry_<name>
// trampolines on the sim executor. A real cubin (an ELF image from NVRTC)
// loads too; its kernels run through the stand-in set with
// dlcFakeCudaSetCubinStandIn, or are only recorded without one.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TEST_RUNTIME_FAKECUDA_H
#define DLC_TEST_RUNTIME_FAKECUDA_H

#include <cstdint>
#include <string>
#include <vector>

#ifdef DLC_FAKE_CUDA_WITH_PACKAGE
#include "runtime/Package.h"
#endif

namespace dlc::rt::test {

/// What the fake driver holds and did, process-wide.
struct FakeCudaStats {
  int64_t contextRetains = 0; ///< primary context reference count
  int64_t pushedContexts = 0; ///< pushes minus pops, all threads
  int64_t allocations = 0;
  int64_t allocatedBytes = 0;
  int64_t modules = 0;
  int64_t streams = 0;
  int64_t graphs = 0;
  int64_t graphExecs = 0;
  int64_t events = 0;
  int64_t cublasHandles = 0;
  /// Objects still alive when the primary context was destroyed (its last
  /// release): leaks the driver cleans up, which a session must not rely on.
  int64_t leakedAtContextDestruction = 0;
  uint64_t kernelsRun = 0;      ///< launches executed through the sim
  uint64_t kernelsRecorded = 0; ///< launches of kernels without code to run
  uint64_t graphLaunches = 0;
  uint64_t gemms = 0;
  uint64_t copies = 0;
  int64_t cublasLtHandles = 0;
  /// cuBLASLt matmul, matrix layout and preference descriptors alive.
  int64_t cublasLtDescriptors = 0;
  uint64_t ltMatmuls = 0;    ///< cublasLtMatmul calls enqueued
  uint64_t ltHeuristics = 0; ///< cublasLtMatmulAlgoGetHeuristic calls
  int64_t cudnnHandles = 0;
  /// cuDNN tensor, filter, convolution and activation descriptors alive.
  int64_t cudnnDescriptors = 0;
  uint64_t cudnnConvs = 0; ///< cuDNN convolutions enqueued
};

/// The control functions the fake exports besides the CUDA API.
extern "C" {
typedef void (*DlcFakeCudaStatsFn)(FakeCudaStats *out);
/// Devices and compute capability the fake reports (default: 1, 9.0) and the
/// device memory it has (default 1 GiB).
typedef void (*DlcFakeCudaConfigureFn)(int devices, int major, int minor,
                                       uint64_t memoryBytes);
/// A fake cubin (NUL-terminated text) whose kernels run in place of those of
/// any real cubin loaded afterwards; null to only record them.
typedef void (*DlcFakeCudaSetCubinStandInFn)(const char *fakeCubin);
/// Why the last failing call failed, in the fake's words.
typedef const char *(*DlcFakeCudaLastErrorFn)();
}

/// The first line of a fake cubin.
constexpr const char *kFakeCubinMagic = "DLC-FAKE-CUBIN 1";

/// A fake cubin:
///   DLC-FAKE-CUBIN 1
///   library <path of the sim shared object>
///   kernel <name> <parameter count> <uses barriers: 0|1>
///   ...
/// followed by a NUL (cuModuleLoadData gets no size).
inline std::vector<uint8_t> fakeCubin(const std::string &library,
                                      const std::vector<std::string> &names,
                                      const std::vector<unsigned> &paramCounts,
                                      const std::vector<bool> &usesBarriers) {
  std::string text =
      std::string(kFakeCubinMagic) + "\nlibrary " + library + "\n";
  for (size_t i = 0; i < names.size(); ++i)
    text += "kernel " + names[i] + " " + std::to_string(paramCounts[i]) + " " +
            (usesBarriers[i] ? "1" : "0") + "\n";
  std::vector<uint8_t> out(text.begin(), text.end());
  out.push_back(0);
  return out;
}

#ifdef DLC_FAKE_CUDA_WITH_PACKAGE
/// The fake cubin of `package`, its kernels compiled into `library`.
/// Parameter counts come from the package's launches.
inline std::vector<uint8_t> fakeCubinFor(const Package &package,
                                         const std::string &library) {
  std::vector<std::string> names;
  std::vector<unsigned> params(package.kernels.size(), 0);
  std::vector<bool> barriers;
  for (const KernelInfo &k : package.kernels) {
    names.push_back(k.name);
    barriers.push_back(k.usesBarriers);
  }
  for (const Step &s : package.steps) {
    if (s.kind == Step::Kind::Kernel && s.kernel.kernel < params.size())
      params[s.kernel.kernel] = unsigned(s.kernel.args.size());
    // A GEMM step's epilogue kernel takes C and the bias.
    if (s.kind == Step::Kind::Gemm && s.gemm.epilogueKernel >= 0 &&
        size_t(s.gemm.epilogueKernel) < params.size())
      params[size_t(s.gemm.epilogueKernel)] = 2;
  }
  return fakeCubin(library, names, params, barriers);
}
#endif

} // namespace dlc::rt::test

#endif // DLC_TEST_RUNTIME_FAKECUDA_H
