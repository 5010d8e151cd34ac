//===- SimDevice.cpp - The sim device: CUDA source run on the CPU ---------===//
//
// The sim back end of the step executor (Device.h). It checks
// Package::cudaSource (SimSourceCheck.h) and the package's kernels and
// steps against the kernels it defines, then runs each kernel step through
// its dlc_sim_entry_<name> trampoline in the shared object SimCompile.cpp
// builds from the checked source, on the sim executor
// (SimExecutor.h); GEMM steps use the CPU reference GEMM, copies memmove.
// The arena and the constants live in host memory, and a run reads and
// writes the host tensors themselves. docs/sim.md describes the model and
// its limits.
//
//===----------------------------------------------------------------------===//

#include "runtime/CpuConv.h"
#include "runtime/CpuGemm.h"
#include "runtime/Device.h"
#include "runtime/FaultInjection.h"
#include "runtime/RuntimeImpl.h"
#include "runtime/SimExecutor.h"
#include "runtime/SimSourceCheck.h"
#include "runtime/Support.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <optional>
#include <sys/mman.h>

namespace dlc::rt {
namespace {

/// Host memory for the arena and the constants: an anonymous private
/// mapping without swap reservation, page-aligned (more than cudaMalloc's
/// 256 bytes). Its pages read as zeros and cost nothing until a step
/// touches them, so a large arena of which a package uses little is not
/// zero-filled up front.
class HostMapping {
public:
  HostMapping() = default;
  HostMapping(const HostMapping &) = delete;
  HostMapping &operator=(const HostMapping &) = delete;
  ~HostMapping() { release(); }
  bool allocate(uint64_t bytes) {
    release();
    if (fault::shouldFail("sim-alloc"))
      return false;
    std::optional<uint64_t> rounded =
        checkedAlignUp(std::max<uint64_t>(bytes, 1), 4096);
    if (!rounded || *rounded > SIZE_MAX)
      return false;
    void *p = ::mmap(nullptr, size_t(*rounded), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return false;
    data_ = static_cast<uint8_t *>(p);
    size_ = size_t(*rounded);
    return true;
  }
  uint8_t *data() const { return data_; }

private:
  void release() {
    if (data_)
      ::munmap(data_, size_);
    data_ = nullptr;
    size_ = 0;
  }
  uint8_t *data_ = nullptr;
  size_t size_ = 0;
};

/// Every kernel of the package is one the checked source defines, with its
/// trampoline, and every launch passes as many arguments as that kernel
/// has parameters (the trampoline reads exactly that many).
Status checkKernelsAgainstSource(const Package &pkg,
                                 const CheckedSimSource &source) {
  std::vector<const SimKernelSignature *> signatures;
  for (const KernelInfo &k : pkg.kernels) {
    const SimKernelSignature *sig = source.kernel(k.name);
    if (!sig)
      return Status::error("sim: kernel " + k.name +
                           " of the package is not defined in its CUDA "
                           "source");
    if (!sig->hasTrampoline)
      return Status::error("sim: the CUDA source has no trampoline "
                           "dlc_sim_entry_" +
                           k.name + " for kernel " + k.name +
                           " (expected under #ifdef DLC_SIM)");
    signatures.push_back(sig);
  }
  auto arguments = [](size_t n) {
    return std::to_string(n) + (n == 1 ? " argument" : " arguments");
  };
  for (size_t i = 0; i < pkg.steps.size(); ++i) {
    const Step &s = pkg.steps[i];
    if (s.kind == Step::Kind::Kernel) {
      const SimKernelSignature &sig = *signatures[s.kernel.kernel];
      if (s.kernel.args.size() != sig.params)
        return Status::error(describeStep(pkg, i) + ": kernel " + sig.name +
                             " takes " + arguments(sig.params) +
                             ", the step passes " +
                             std::to_string(s.kernel.args.size()));
    } else if (s.kind == Step::Kind::Gemm && s.gemm.epilogueKernel >= 0) {
      const SimKernelSignature &sig = *signatures[s.gemm.epilogueKernel];
      if (sig.params != 2)
        return Status::error(describeStep(pkg, i) + ": its epilogue kernel " +
                             sig.name + " takes " + arguments(sig.params) +
                             ", the step passes 2 (C and the bias)");
    }
  }
  return Status::ok();
}

/// The host's steady clock: sim runs synchronously, so a timestamp taken
/// when recorded is taken when the work before it is done.
class SimTimeline final : public Timeline {
public:
  explicit SimTimeline(size_t count) : stamps_(count) {}
  Status record(size_t index, const std::string &) override {
    stamps_[index] = std::chrono::steady_clock::now();
    return Status::ok();
  }
  Result<double> elapsed(size_t from, size_t to, const std::string &) override {
    return std::chrono::duration<double, std::milli>(stamps_[to] -
                                                     stamps_[from])
        .count();
  }

private:
  std::vector<std::chrono::steady_clock::time_point> stamps_;
};

class SimDevice final : public Device {
public:
  SimDevice(const Package &pkg, const SessionOptions &options)
      : pkg_(pkg), options_(options) {}
  ~SimDevice() override {
    executor_.reset();
    if (library_)
      ::dlclose(library_);
  }

  Status init();

  std::string description() const override { return "sim (CPU emulation)"; }
  DevicePtr arena() const override { return toDevicePtr(arena_.data()); }
  DevicePtr constants() const override {
    return toDevicePtr(constants_.data());
  }
  Result<RunBuffers> stage(const std::vector<HostTensor> &inputs,
                           std::vector<HostTensor> &outputs) override;
  Status fetchOutputs(const RunBuffers &, std::vector<HostTensor> &) override {
    return Status::ok();
  }
  Status synchronize(const std::string &) override { return Status::ok(); }
  Result<DevicePtr> allocateMemory(uint64_t bytes,
                                   const std::string &what) override;
  void freeMemory(DevicePtr p) override { memory_.erase(p); }
  Status upload(DevicePtr dst, const void *src, uint64_t bytes,
                const std::string &) override {
    if (bytes)
      std::memcpy(fromDevicePtr(dst), src, bytes);
    return Status::ok();
  }
  Status download(void *dst, DevicePtr src, uint64_t bytes,
                  const std::string &) override {
    if (bytes)
      std::memcpy(dst, fromDevicePtr(src), bytes);
    return Status::ok();
  }
  Result<std::unique_ptr<Timeline>>
  createTimeline(size_t count, const std::string &) override {
    return std::unique_ptr<Timeline>(std::make_unique<SimTimeline>(count));
  }

  Status launch(const StepOp &op, uint32_t kernel, const LaunchDims &dims,
                const std::vector<DevicePtr> &args) override;
  Result<bool> gemm(const StepOp &op, const GemmStep &g,
                    const GemmOperands &ops) override;
  Status conv(const StepOp &, const ConvStep &c,
              const ConvOperands &ops) override {
    cpuConv(c, fromDevicePtr(ops.x), fromDevicePtr(ops.filter),
            fromDevicePtr(ops.y), threads_,
            c.bias ? fromDevicePtr(ops.bias) : nullptr,
            c.addend ? fromDevicePtr(ops.addend) : nullptr);
    return Status::ok();
  }
  Status copy(const StepOp &, DevicePtr dst, DevicePtr src,
              uint64_t bytes) override {
    std::memmove(fromDevicePtr(dst), fromDevicePtr(src), bytes);
    return Status::ok();
  }

private:
  Status openLibrary(const std::string &path);

  const Package &pkg_;
  SessionOptions options_;
  void *library_ = nullptr;
  sim::StateFn stateFn_ = nullptr;
  std::vector<sim::EntryFn> entries_;
  std::unique_ptr<sim::Executor> executor_;
  /// Host threads for kernels and GEMMs ($DLC_SIM_THREADS, default 2).
  int threads_ = 2;
  HostMapping arena_, constants_;
  /// What allocateMemory returned, by address.
  std::map<DevicePtr, std::unique_ptr<HostMapping>> memory_;
  /// Kernel arguments as the trampolines take them, reused across launches.
  std::vector<void *> args_;
};

Result<DevicePtr> SimDevice::allocateMemory(uint64_t bytes,
                                            const std::string &what) {
  auto mapping = std::make_unique<HostMapping>();
  if (!mapping->allocate(bytes))
    return Status::error("sim: out of host memory allocating " +
                         std::to_string(bytes) + " bytes for " + what);
  DevicePtr p = toDevicePtr(mapping->data());
  memory_[p] = std::move(mapping);
  return p;
}

Status SimDevice::openLibrary(const std::string &path) {
  if (fault::shouldFail("sim-load"))
    return Status::error("sim: cannot load " + path +
                         ": fault injected at site sim-load");
  library_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    const char *e = ::dlerror();
    return Status::error("sim: cannot load " + path + ": " +
                         (e ? e : "unknown error"));
  }
  auto abi = reinterpret_cast<unsigned (*)()>(
      ::dlsym(library_, "dlc_sim_abi_version"));
  stateFn_ =
      reinterpret_cast<sim::StateFn>(::dlsym(library_, "dlc_sim_thread_state"));
  if (!abi || !stateFn_)
    return Status::error("sim: " + path +
                         " was not built against the sim shim (it lacks "
                         "dlc_sim_thread_state)");
  if (abi() != dlc_sim::kAbiVersion)
    return Status::error("sim: " + path + " uses sim ABI version " +
                         std::to_string(abi()) + ", this runtime uses " +
                         std::to_string(dlc_sim::kAbiVersion));
  entries_.assign(pkg_.kernels.size(), nullptr);
  for (size_t i = 0; i < pkg_.kernels.size(); ++i) {
    const std::string symbol = "dlc_sim_entry_" + pkg_.kernels[i].name;
    entries_[i] =
        reinterpret_cast<sim::EntryFn>(::dlsym(library_, symbol.c_str()));
    if (!entries_[i])
      return Status::error("sim: the CUDA source has no trampoline " + symbol +
                           " for kernel " + pkg_.kernels[i].name +
                           " (expected under #ifdef DLC_SIM)");
  }
  return Status::ok();
}

Status SimDevice::init() {
  // The device's memory is the host's: the package must fit before
  // anything is compiled or allocated.
  MemoryLimit host = hostMemoryLimit();
  DLC_RT_RETURN_IF_ERROR(
      checkMemoryFits(pkg_, host.bytes, host.what, options_.maxMemory));
  for (size_t i = 0; i < pkg_.steps.size(); ++i) {
    const Step &s = pkg_.steps[i];
    if (s.kind == Step::Kind::Kernel && s.kernel.sharedBytes > 0)
      return Status::error(
          describeStep(pkg_, i) + " uses " +
          std::to_string(s.kernel.sharedBytes) +
          " bytes of dynamic shared memory (extern __shared__), which the "
          "sim device does not support; use static __shared__ arrays");
  }
  if (!pkg_.kernels.empty()) {
    // Nothing is written or compiled before the source passes the check.
    Result<CheckedSimSource> source = checkSimSource(pkg_.cudaSource);
    if (!source)
      return source.status();
    DLC_RT_RETURN_IF_ERROR(checkKernelsAgainstSource(pkg_, *source));
    Result<std::string> path = buildSimKernelLibrary(*source);
    if (!path)
      return path.status();
    Status opened = openLibrary(*path);
    if (!opened) {
      // A damaged cache entry that passed the checksum is unlikely, but a
      // rebuild costs only time.
      if (library_)
        ::dlclose(library_);
      library_ = nullptr;
      ++kernelCacheCounters().corruptEntries;
      path = buildSimKernelLibrary(*source, /*forceRebuild=*/true);
      if (!path)
        return path.status();
      DLC_RT_RETURN_IF_ERROR(openLibrary(*path));
    }
  }
  if (const char *env = std::getenv("DLC_SIM_THREADS")) {
    int v = std::atoi(env);
    if (v >= 1)
      threads_ = std::min(v, 64);
  }
  executor_ = std::make_unique<sim::Executor>(stateFn_, threads_,
                                              sim::defaultFiberBackend());
  if (!arena_.allocate(pkg_.arenaBytes))
    return Status::error("sim: cannot allocate the arena (" +
                         formatBytes(pkg_.arenaBytes) + ") in host memory");
  if (!constants_.allocate(pkg_.constants.size()))
    return Status::error("sim: cannot allocate the constants (" +
                         formatBytes(pkg_.constants.size()) +
                         ") in host memory");
  if (!pkg_.constants.empty())
    std::memcpy(constants_.data(), pkg_.constants.data(),
                pkg_.constants.size());
  return Status::ok();
}

Result<RunBuffers> SimDevice::stage(const std::vector<HostTensor> &inputs,
                                    std::vector<HostTensor> &outputs) {
  RunBuffers buffers;
  // Kernels may load inputs as float4; vectors are 16-byte aligned in
  // practice, but copy any that is not.
  buffers.hostCopies.reserve(inputs.size());
  for (const HostTensor &t : inputs) {
    const uint8_t *p = t.data.data();
    if (uintptr_t(p) % 16 != 0) {
      buffers.hostCopies.emplace_back(t.data);
      p = buffers.hostCopies.back().data();
    }
    buffers.inputs.push_back(toDevicePtr(p));
  }
  outputs.reserve(pkg_.outputs.size());
  for (size_t i = 0; i < pkg_.outputs.size(); ++i) {
    const TensorDesc &d = pkg_.outputs[i];
    Result<HostTensor> t =
        HostTensor::allocate(d.dtype, d.shape, "output #" + std::to_string(i));
    if (!t)
      return t.status();
    outputs.push_back(t.take());
    buffers.outputs.push_back(toDevicePtr(outputs.back().data.data()));
  }
  return buffers;
}

Status SimDevice::launch(const StepOp &op, uint32_t kernel,
                         const LaunchDims &dims,
                         const std::vector<DevicePtr> &args) {
  args_.resize(args.size());
  for (size_t a = 0; a < args.size(); ++a)
    args_[a] = fromDevicePtr(args[a]);
  sim::Launch launch;
  launch.entry = entries_[kernel];
  launch.args = args_.data();
  for (int d = 0; d < 3; ++d) {
    launch.grid[d] = dims.grid[d];
    launch.block[d] = dims.block[d];
  }
  launch.usesBarriers = pkg_.kernels[kernel].usesBarriers;
  // Fault site: the kernel faults (the sim cannot catch a real one).
  Status st = fault::shouldFail("kernel-fault")
                  ? Status::error("illegal memory access (fault injected "
                                  "at site kernel-fault)")
                  : executor_->launch(launch);
  if (!st)
    return Status::error(describeStep(pkg_, op.step) + ": kernel " +
                         pkg_.kernels[kernel].name + ": " + st.message());
  return Status::ok();
}

Result<bool> SimDevice::gemm(const StepOp &, const GemmStep &g,
                             const GemmOperands &ops) {
  // The CPU GEMM applies every epilogue itself.
  cpuGemm(g, fromDevicePtr(ops.a), fromDevicePtr(ops.b), fromDevicePtr(ops.c),
          threads_, g.bias ? fromDevicePtr(ops.bias) : nullptr,
          g.addend ? fromDevicePtr(ops.addend) : nullptr);
  return true;
}

} // namespace

Result<std::unique_ptr<Device>> createSimDevice(const Package &package,
                                                const SessionOptions &options) {
  auto device = std::make_unique<SimDevice>(package, options);
  DLC_RT_RETURN_IF_ERROR(device->init());
  return std::unique_ptr<Device>(std::move(device));
}

} // namespace dlc::rt
