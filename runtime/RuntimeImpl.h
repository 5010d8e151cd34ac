//===- RuntimeImpl.h - Internal interfaces of the dlc runtime -----*- C++
//-*-===//
#ifndef DLC_RUNTIME_RUNTIMEIMPL_H
#define DLC_RUNTIME_RUNTIMEIMPL_H

#include "runtime/Runtime.h"
#include "runtime/SimSourceCheck.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

namespace dlc::rt {

/// Both take a package that validatePackage accepted.
Result<std::unique_ptr<Session>>
createCudaSession(const Package &package, const SessionOptions &options);
Result<std::unique_ptr<Session>>
createSimSession(const Package &package, const SessionOptions &options);

/// Compiles a checked CUDA source for the sim device (or finds it in the
/// kernel cache; `forceRebuild` ignores the cached one) and returns the
/// path of the shared object (SimCompile.cpp).
Result<std::string> buildSimKernelLibrary(const CheckedSimSource &source,
                                          bool forceRebuild = false);
/// The same after checkSimSource(source), whose error it returns. Tests use
/// it to hand the compiled kernels to the fake CUDA driver
/// (test/runtime/FakeCuda.cpp).
Result<std::string> buildSimKernelLibrary(const std::string &source,
                                          bool forceRebuild = false);

/// Checks the inputs of Session::run against the package: count, dtype,
/// shape and byte size, with errors naming the argument ("input #1 (arg1):
/// expected f32[4, 8], got f32[4, 9]").
Status checkRunInputs(const Package &package,
                      const std::vector<HostTensor> &inputs);

/// "step 3 (k3: add+exp)", for errors.
std::string describeStep(const Package &package, size_t index);

/// Whether GEMM steps with an epilogue kernel run it after a plain product
/// instead of the fused epilogue (DLC_GEMM_EPILOGUE_FALLBACK=1: tests, and a
/// way around a cuBLASLt problem on some GPU). Sessions read it once, when
/// they are created.
inline bool forceEpilogueFallback() {
  const char *v = std::getenv("DLC_GEMM_EPILOGUE_FALLBACK");
  return v && *v && std::string(v) != "0";
}

/// The product of epilogue step `g` without its epilogue: alpha * A * B +
/// beta * C, where C already holds the addend.
inline GemmStep plainGemmOf(const GemmStep &g) {
  GemmStep plain = g;
  plain.epilogue = GemmEpilogue::None;
  plain.bias.reset();
  plain.addend.reset();
  plain.epilogueKernel = -1;
  return plain;
}

/// Bytes of the contiguous result of a step with an epilogue kernel (which
/// validatePackage bounds by C's buffer reference; 0 if it did not fit).
inline uint64_t epilogueResultBytes(const GemmStep &g) {
  return (Checked::fromSigned(g.batch) * Checked::fromSigned(g.m) *
          Checked::fromSigned(g.n) * uint64_t(dtypeSize(g.outType())))
      .valueOr(0);
}

/// Blocks of the epilogue kernel's launch (it loops over the rest).
inline uint32_t epilogueGrid(const GemmStep &g) {
  uint64_t total = (Checked::fromSigned(g.batch) * Checked::fromSigned(g.m) *
                    Checked::fromSigned(g.n))
                       .valueOr(~uint64_t(0));
  uint64_t blocks = (total + kEpilogueThreads - 1) / kEpilogueThreads;
  return uint32_t(
      std::max<uint64_t>(1, std::min<uint64_t>(blocks, kEpilogueMaxBlocks)));
}

/// The profile of `package` from `times[i][r]`, the time of step i in run r
/// (milliseconds): medians, bytes, FLOPs and shares.
inline std::vector<StepProfile>
summarizeProfile(const Package &package,
                 std::vector<std::vector<double>> times) {
  std::vector<StepProfile> out(package.steps.size());
  double total = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const Step &step = package.steps[i];
    StepProfile &p = out[i];
    p.step = i;
    p.kind = step.kind;
    p.label = step.label;
    p.bytes = stepBytes(step);
    p.flops = stepFlops(step);
    std::vector<double> &t = times[i];
    if (!t.empty()) {
      std::sort(t.begin(), t.end());
      size_t n = t.size();
      p.milliseconds = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    }
    total += p.milliseconds;
  }
  for (StepProfile &p : out)
    p.share = total > 0 ? p.milliseconds / total : 0;
  return out;
}

/// The process-wide counters behind kernelCacheStats().
struct KernelCacheCounters {
  std::atomic<uint64_t> hits{0}, misses{0}, corruptEntries{0};
};
KernelCacheCounters &kernelCacheCounters();

} // namespace dlc::rt

#endif // DLC_RUNTIME_RUNTIMEIMPL_H
