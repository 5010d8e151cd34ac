//===- Runtime.cpp - Devices, sessions and the kernel cache's place -------===//

#include "runtime/CacheDir.h"
#include "runtime/CudaLibs.h"
#include "runtime/RuntimeImpl.h"
#include "runtime/Support.h"

#include <mutex>
#include <unistd.h>

namespace dlc::rt {

Result<DeviceKind> parseDeviceKind(const std::string &name) {
  if (name == "cuda")
    return DeviceKind::Cuda;
  if (name == "sim")
    return DeviceKind::Sim;
  return Status::error("unknown device '" + name + "' (expected cuda or sim)");
}

const char *deviceKindName(DeviceKind kind) {
  return kind == DeviceKind::Cuda ? "cuda" : "sim";
}

namespace {
/// The outcome of loading the driver and cuInit.
struct CudaProbe {
  bool available = false;
  std::string why;
};

CudaProbe runProbe() {
  CudaProbe probe;
  std::string why;
  const CudaDriver *cu = loadCudaDriver(&why);
  if (!cu) {
    probe.why = why;
    return probe;
  }
  CUresult r = cu->cuInit(0);
  if (r != CUDA_SUCCESS) {
    probe.why = "cuInit failed: " + cu->errorName(r);
    return probe;
  }
  int count = 0;
  r = cu->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    probe.why = "cuDeviceGetCount failed: " + cu->errorName(r);
    return probe;
  }
  if (count == 0) {
    probe.why = "no CUDA device";
    return probe;
  }
  probe.available = true;
  return probe;
}

/// Probes once, except that an outcome caused by an injected fault
/// (FaultInjection.h) is not remembered: the next call probes again.
CudaProbe probeCuda() {
  static std::mutex mutex;
  static bool known = false;
  static CudaProbe cached;
  std::lock_guard<std::mutex> lock(mutex);
  if (known)
    return cached;
  uint64_t firedBefore = fault::firedTotal();
  CudaProbe probe = runProbe();
  if (probe.available || fault::firedTotal() == firedBefore) {
    cached = probe;
    known = true;
  }
  return probe;
}
} // namespace

bool cudaAvailable(std::string *why) {
  // The driver loader is asked every time so that its libcuda-missing fault
  // site is reached even after a successful probe.
  std::string loadWhy;
  if (!loadCudaDriver(&loadWhy)) {
    if (why)
      *why = loadWhy;
    return false;
  }
  CudaProbe probe = probeCuda();
  if (!probe.available && why)
    *why = probe.why;
  return probe.available;
}

DeviceKind defaultDeviceKind() {
  return cudaAvailable() ? DeviceKind::Cuda : DeviceKind::Sim;
}

std::string defaultCudaArch(const std::string &fallback) {
  if (!cudaAvailable())
    return fallback;
  const CudaDriver *cu = loadCudaDriver(nullptr);
  CUdevice dev;
  int major = 0, minor = 0;
  if (cu->cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
      cu->cuDeviceGetAttribute(&major,
                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                               dev) != CUDA_SUCCESS ||
      cu->cuDeviceGetAttribute(&minor,
                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                               dev) != CUDA_SUCCESS)
    return fallback;
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

KernelCacheCounters &kernelCacheCounters() {
  static KernelCacheCounters counters;
  return counters;
}

KernelCacheStats kernelCacheStats() {
  KernelCacheCounters &c = kernelCacheCounters();
  KernelCacheStats s;
  s.hits = c.hits.load();
  s.misses = c.misses.load();
  s.corruptEntries = c.corruptEntries.load();
  return s;
}

std::string kernelCacheDir() { return cacheRootCandidate(); }

std::string describeStep(const Package &package, size_t index) {
  std::string s = "step " + std::to_string(index);
  if (index < package.steps.size() && !package.steps[index].label.empty())
    s += " (" + package.steps[index].label + ")";
  return s;
}

Status checkRunInputs(const Package &package,
                      const std::vector<HostTensor> &inputs) {
  if (inputs.size() != package.inputs.size())
    return Status::error("expected " + std::to_string(package.inputs.size()) +
                         " input" + (package.inputs.size() == 1 ? "" : "s") +
                         ", got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorDesc &want = package.inputs[i];
    const HostTensor &got = inputs[i];
    std::string name =
        "input #" + std::to_string(i) + " (arg" + std::to_string(i) + ")";
    if (got.dtype != want.dtype || got.shape != want.shape)
      return Status::error(name + ": expected " +
                           describe(want.dtype, want.shape) + ", got " +
                           describe(got.dtype, got.shape));
    if (got.data.size() != want.byteSize())
      return Status::error(name + ": " + describe(got.dtype, got.shape) +
                           " should hold " + std::to_string(want.byteSize()) +
                           " bytes, but its data has " +
                           std::to_string(got.data.size()));
  }
  return Status::ok();
}

Status checkMemoryFits(const Package &package, uint64_t capacity,
                       const std::string &capacityWhat, uint64_t maxMemory) {
  MemoryNeeds needs = memoryNeeds(package);
  Checked total = needs.total();
  const bool lowered = maxMemory != 0 && maxMemory < capacity;
  const uint64_t limit = lowered ? maxMemory : capacity;
  if (total.fitsIn(limit))
    return Status::ok();
  std::string need = total.ok() ? formatBytes(*total.value())
                                : std::string("2^64 bytes or more");
  std::string has = formatBytes(capacity);
  return Status::error("the package needs " + need + " of device memory (" +
                       needs.describe() + ") but " +
                       (lowered
                            ? "--max-memory allows " + formatBytes(maxMemory) +
                                  " (" + capacityWhat + " " + has + ")"
                            : capacityWhat + " " + has));
}

Session::~Session() = default;

Result<std::unique_ptr<Session>>
Session::create(const Package &package, const SessionOptions &options) {
  Status valid = validatePackage(package);
  if (!valid)
    return Status::error("invalid package: " + valid.message());
  // The devices check that the package fits before they allocate; this is
  // the last line for an allocation that fails anyway.
  try {
    if (options.device == DeviceKind::Cuda)
      return createCudaSession(package, options);
    return createSimSession(package, options);
  } catch (const std::bad_alloc &e) {
    return Status::error(std::string("out of host memory creating the "
                                     "session: ") +
                         e.what());
  }
}

} // namespace dlc::rt
