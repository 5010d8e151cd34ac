//===- Runtime.h - Running compiled dlc packages ------------------*- C++
//-*-===//
//
// The public API of the dlc runtime. It never links MLIR or LLVM: it loads a
// Package, opens the CUDA driver, NVRTC and cuBLAS at run time (dlopen), and
// runs the package's steps on a GPU, or on the CPU through the sim device,
// which compiles the same CUDA source with the host C++ compiler.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_RUNTIME_H
#define DLC_RUNTIME_RUNTIME_H

#include "runtime/Nvrtc.h"
#include "runtime/Package.h"
#include "runtime/Status.h"
#include "runtime/Tensor.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dlc::rt {

enum class DeviceKind { Cuda, Sim };

/// Parses "cuda" or "sim".
Result<DeviceKind> parseDeviceKind(const std::string &name);
const char *deviceKindName(DeviceKind kind);

/// Whether a CUDA driver loads and reports at least one GPU. Otherwise `why`
/// says what is missing ("libcuda.so.1 not found", "no CUDA device").
bool cudaAvailable(std::string *why = nullptr);
/// cuDNN's version ("9.19.0"), which convolution steps on cuda need, or why
/// it does not load.
Result<std::string> cudnnVersion();
/// Cuda when a GPU is present, else Sim.
DeviceKind defaultDeviceKind();

/// "sm_90" for the present GPU, or `fallback` without one.
std::string defaultCudaArch(const std::string &fallback = "sm_90");

// Compiling CUDA source with NVRTC (compileCuda, compileCudaToCubin,
// parsePtxasInfo, nvrtcVersion): runtime/Nvrtc.h, included above.

/// $DLC_CACHE_DIR, else $XDG_CACHE_HOME/dlc (when absolute), else
/// ~/.cache/dlc; "" when there is no home directory. Unchecked: the caches
/// use the verified privateCacheDirectory() of runtime/CacheDir.h.
std::string kernelCacheDir();

/// Counters of the on-disk kernel cache of this process (NVRTC cubins and
/// sim shared objects), for tests and `--verbose`.
struct KernelCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  /// Entries found corrupt or truncated, ignored and rewritten.
  uint64_t corruptEntries = 0;
};
KernelCacheStats kernelCacheStats();

struct SessionOptions {
  DeviceKind device = DeviceKind::Sim;
  /// CUDA device ordinal.
  int cudaDevice = 0;
  /// Capture the steps once and replay them as a CUDA Graph on later runs.
  bool useCudaGraph = true;
  /// The most memory the session may use on its device, in bytes (0: all
  /// the device has; `--max-memory`). The package's arena, inputs, outputs
  /// and constants must fit in the smaller of the two, checked when the
  /// session is created, before anything is allocated.
  uint64_t maxMemory = 0;
};

/// Whether `package`'s memory (memoryNeeds: arena, inputs, outputs,
/// constants) fits in `capacity` bytes, lowered to `maxMemory` when that is
/// set and smaller. `capacityWhat` says where the capacity comes from ("the
/// device has", "the host has"). The error names what the package needs,
/// part by part, and the limit:
///   the package needs 256 GiB of device memory (arena 1 KiB, inputs 0
///   bytes, outputs 256 GiB, constants 0 bytes) but the device has 23.4 GiB
Status checkMemoryFits(const Package &package, uint64_t capacity,
                       const std::string &capacityWhat, uint64_t maxMemory);

/// The measured cost of one step of a package (Session::profile).
struct StepProfile {
  /// Index into Package::steps, its kind and label ("k3: add+exp").
  size_t step = 0;
  Step::Kind kind = Step::Kind::Kernel;
  std::string label;
  /// Median time of the step over the profiled runs, in milliseconds.
  double milliseconds = 0;
  /// Bytes the step reads and writes: each buffer it references (kernel
  /// arguments, GEMM operands and result, copy source and destination)
  /// once, at its full size; an in-place kernel's operand and result both
  /// count.
  uint64_t bytes = 0;
  /// Floating-point operations: 2*m*n*k*batch for a GEMM, the products of
  /// a kernel that has them (flash attention), 0 otherwise.
  double flops = 0;
  /// This step's fraction of the sum of all steps' medians (0..1).
  double share = 0;

  /// Achieved bandwidth (bytes / time), 0 for a step that took no time.
  double gigabytesPerSecond() const {
    return milliseconds > 0 ? double(bytes) / (milliseconds * 1e6) : 0;
  }
  /// Achieved GFLOP/s, 0 for steps without FLOPs.
  double gigaflopsPerSecond() const {
    return milliseconds > 0 ? flops / (milliseconds * 1e6) : 0;
  }
};

/// Order statistics of Session::benchmark's times (milliseconds).
struct BenchmarkStats {
  size_t runs = 0;
  double median = 0, min = 0, max = 0, mean = 0;
  /// 10th and 90th percentiles, interpolated linearly between the closest
  /// ranks (numpy's default).
  double p10 = 0, p90 = 0;
};

/// The statistics of `times` (all zero when empty).
inline BenchmarkStats summarizeBenchmark(std::vector<double> times) {
  BenchmarkStats s;
  s.runs = times.size();
  if (times.empty())
    return s;
  std::sort(times.begin(), times.end());
  auto quantile = [&](double q) {
    double pos = q * double(times.size() - 1);
    size_t lo = size_t(pos);
    size_t hi = std::min(lo + 1, times.size() - 1);
    return times[lo] + (pos - double(lo)) * (times[hi] - times[lo]);
  };
  s.min = times.front();
  s.max = times.back();
  s.median = quantile(0.5);
  s.p10 = quantile(0.1);
  s.p90 = quantile(0.9);
  double sum = 0;
  for (double t : times)
    sum += t;
  s.mean = sum / double(times.size());
  return s;
}

/// A package loaded on a device, ready to run any number of times. A session
/// owns its arena and may be used from one thread at a time; open one
/// session per thread to run concurrently.
class Session {
public:
  static Result<std::unique_ptr<Session>> create(const Package &package,
                                                 const SessionOptions &options);
  virtual ~Session();

  /// Runs on host tensors, checking their count, shapes and types against
  /// the package, and returns the outputs.
  virtual Result<std::vector<HostTensor>>
  run(const std::vector<HostTensor> &inputs) = 0;

  /// Runs on caller-owned buffers in the device's memory (CUDA device
  /// pointers, or host pointers for sim), in the order of the package's
  /// inputs and outputs.
  virtual Status runOnDevice(const std::vector<const void *> &inputs,
                             const std::vector<void *> &outputs) = 0;

  /// Memory on the session's device for runOnDevice's buffers: CUDA device
  /// memory, host memory on sim; `bytes` (a zero-sized request gets a valid
  /// address), 256-byte aligned. It stays until freeDeviceMemory or the
  /// session's end. Not counted against SessionOptions::maxMemory.
  virtual Result<void *> allocateDeviceMemory(uint64_t bytes,
                                              const std::string &what) = 0;
  /// Frees what allocateDeviceMemory returned (null and other addresses
  /// are ignored).
  virtual void freeDeviceMemory(void *p) = 0;
  /// Copies `bytes` from host memory into device memory, or back, once the
  /// work before it is done; returns when the copy is.
  virtual Status copyToDevice(void *dst, const void *src, uint64_t bytes) = 0;
  virtual Status copyFromDevice(void *dst, const void *src, uint64_t bytes) = 0;

  /// Runs the package `iterations` times (after one warm-up run) on `inputs`
  /// and times every step: with CUDA events around each step on a GPU
  /// (direct launches, never the CUDA Graph, so each step is timed alone)
  /// and with the host's steady clock on sim. Returns one entry per step,
  /// in order, each with the median of its times.
  virtual Result<std::vector<StepProfile>>
  profile(const std::vector<HostTensor> &inputs, unsigned iterations) = 0;

  /// Times whole runs of the package, for benchmarks. Uploads `inputs` once
  /// and leaves the outputs on the device (nothing is copied back); runs the
  /// package `warmup` times, and on a GPU that replays a CUDA Graph once
  /// more if the graph for these buffers is not captured yet, so that every
  /// timed run is a replay; then runs it `iterations` (at least 1) times.
  /// On a GPU each timed run is bracketed by CUDA events recorded on the
  /// session's stream (one graph launch, or the direct launches of every
  /// step without graphs), the runs are enqueued back to back and
  /// synchronized once at the end; on sim each run is timed with the host's
  /// steady clock. Returns the time of each timed run in milliseconds, in
  /// order (summarizeBenchmark gives the median and percentiles).
  virtual Result<std::vector<double>>
  benchmark(const std::vector<HostTensor> &inputs, unsigned warmup,
            unsigned iterations) = 0;
  /// Whether runs replay a CUDA Graph (a GPU session with graphs enabled
  /// and DLC_CUDA_SYNC_STEPS unset); false on sim.
  virtual bool usesCudaGraph() const = 0;

  virtual const Package &package() const = 0;
  /// "NVIDIA H100 80GB HBM3 (sm_90)" or "sim (CPU emulation)".
  virtual std::string deviceDescription() const = 0;
};

} // namespace dlc::rt

#endif // DLC_RUNTIME_RUNTIME_H
