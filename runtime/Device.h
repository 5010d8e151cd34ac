//===- Device.h - The interface of device back ends -------------*- C++ -*-===//
//
// The step executor (StepExecutor.h) runs a package's steps once for every
// device: it checks the caller's inputs, resolves each BufferRef to an
// address, walks the steps, decides when a GEMM's epilogue runs as its own
// kernel, and drives profiling and benchmark loops. A Device does the rest:
// the operations a step needs on resolved addresses (launch a kernel, a
// GEMM, a copy), where a run's inputs and outputs live, timestamps, and how
// a whole run is submitted (a CUDA Graph replay, or the steps one by one).
//
// Two back ends implement it: cuda (CudaDevice.h: the driver API, cuBLAS and
// cuBLASLt, CUDA Graphs) and sim (SimDevice.cpp: the generated CUDA source
// compiled for the host and run by the sim executor). A new kind of step is
// a Step::Kind, one case in StepExecutor::enqueueSteps and one operation
// here.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_DEVICE_H
#define DLC_RUNTIME_DEVICE_H

#include "runtime/Runtime.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dlc::rt {

/// An address in the device's memory: a CUDA device pointer, or a host
/// pointer on sim.
using DevicePtr = uint64_t;

inline DevicePtr toDevicePtr(const void *p) {
  return DevicePtr(reinterpret_cast<uintptr_t>(p));
}
inline void *fromDevicePtr(DevicePtr p) {
  return reinterpret_cast<void *>(uintptr_t(p));
}

/// The step a device operation belongs to, for its errors.
struct StepOp {
  /// Index into Package::steps.
  size_t step = 0;
  /// Which of a step's several operations this is ("the addend", "its
  /// epilogue kernel"), or null for the step's only one.
  const char *part = nullptr;
};

/// "step 3 (k3: add+exp)", with " (the addend)" for a part.
std::string describeStepOp(const Package &package, const StepOp &op);

/// The launch configuration of a kernel.
struct LaunchDims {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedBytes = 0;
};

/// The resolved operands of a GEMM step; `bias` and `addend` are 0 when the
/// step has none.
struct GemmOperands {
  DevicePtr a = 0, b = 0, c = 0, bias = 0, addend = 0;
};

/// The resolved operands of a convolution step; `bias` and `addend` are 0
/// when the step has none.
struct ConvOperands {
  DevicePtr x = 0, filter = 0, y = 0, bias = 0, addend = 0;
};

/// Where a run reads its inputs and writes its outputs, in the package's
/// order.
struct RunBuffers {
  std::vector<DevicePtr> inputs, outputs;
  /// Host copies that keep inputs aligned (sim), alive as long as the run.
  std::vector<std::vector<uint8_t>> hostCopies;
};

/// Timestamps taken in the device's order of work (CUDA events on the
/// stream, the host's clock on sim), for profile() and benchmark().
class Timeline {
public:
  virtual ~Timeline();
  /// Records timestamp `index` once the work enqueued so far is done.
  virtual Status record(size_t index, const std::string &what) = 0;
  /// Milliseconds from timestamp `from` to `to`; the device must have been
  /// synchronized since both were recorded.
  virtual Result<double> elapsed(size_t from, size_t to,
                                 const std::string &what) = 0;
};

/// A device back end of the step executor. Operations may be asynchronous
/// (enqueued on a stream); synchronize() waits for them. Every call but
/// the destructor is made between enter() and leave().
class Device {
public:
  virtual ~Device();

  /// "NVIDIA H100 80GB HBM3 (sm_90)" or "sim (CPU emulation)".
  virtual std::string description() const = 0;
  /// Whether runs replay a CUDA Graph (Session::usesCudaGraph).
  virtual bool usesCudaGraph() const { return false; }

  /// Makes the device usable from this thread for one call of the session
  /// (the CUDA context current); fails when it is not usable at all.
  virtual Status enter() { return Status::ok(); }
  /// Undoes a successful enter().
  virtual void leave() {}

  /// The base addresses of the package's arena and constants.
  virtual DevicePtr arena() const = 0;
  virtual DevicePtr constants() const = 0;

  /// Puts host `inputs` where runs read them and says where outputs go: on
  /// cuda its staging buffers (allocated once) after asynchronous uploads,
  /// on sim the host tensors themselves (made in `outputs` here).
  virtual Result<RunBuffers> stage(const std::vector<HostTensor> &inputs,
                                   std::vector<HostTensor> &outputs) = 0;
  /// Copies a staged run's outputs into `outputs` (made here when stage()
  /// left them empty); synchronize() finishes the copies.
  virtual Status fetchOutputs(const RunBuffers &buffers,
                              std::vector<HostTensor> &outputs) = 0;
  /// Waits until the work enqueued so far is done.
  virtual Status synchronize(const std::string &what) = 0;

  /// Submits one run: `enqueueSteps` enqueues every step on `buffers`, or
  /// the device replays what it recorded of an earlier call on the same
  /// buffers (a CUDA Graph).
  virtual Status execute(const RunBuffers &buffers,
                         const std::function<Status()> &enqueueSteps) {
    (void)buffers;
    return enqueueSteps();
  }
  /// Whether the next execute() on `buffers` would not replay although the
  /// device replays runs (the graph is not captured yet).
  virtual bool replayPending(const RunBuffers &buffers) const {
    (void)buffers;
    return false;
  }
  /// Memory a caller of runOnDevice keeps its buffers in
  /// (Session::allocateDeviceMemory): `bytes` (at least 1) on the device,
  /// 256-byte aligned, until freeMemory or the device's end.
  virtual Result<DevicePtr> allocateMemory(uint64_t bytes,
                                           const std::string &what) = 0;
  /// Frees what allocateMemory returned; ignores 0 and other addresses.
  virtual void freeMemory(DevicePtr p) = 0;
  /// Copies `bytes` from the host to the device, or back, and waits for the
  /// copy (and so for the work enqueued before it).
  virtual Status upload(DevicePtr dst, const void *src, uint64_t bytes,
                        const std::string &what) = 0;
  virtual Status download(void *dst, DevicePtr src, uint64_t bytes,
                          const std::string &what) = 0;
  /// `count` timestamps, released with the returned object.
  virtual Result<std::unique_ptr<Timeline>>
  createTimeline(size_t count, const std::string &what) = 0;

  // The operations of steps, on resolved addresses.

  /// Launches kernel `kernel` (an index into Package::kernels) with `args`
  /// as its parameters.
  virtual Status launch(const StepOp &op, uint32_t kernel,
                        const LaunchDims &dims,
                        const std::vector<DevicePtr> &args) = 0;
  /// The GEMM `gemm` with its epilogue, if it has one. Returns false, with
  /// nothing enqueued, when the device has no fused path for this
  /// epilogue on these operands and the step has an epilogue kernel: the
  /// executor then runs the product and the kernel. Never false for a GEMM
  /// without an epilogue.
  virtual Result<bool> gemm(const StepOp &op, const GemmStep &gemm,
                            const GemmOperands &operands) = 0;
  /// Sets up what plain GEMMs need when the device does it lazily (cuBLAS
  /// for a package whose GEMMs all have epilogues), before an epilogue
  /// fallback.
  virtual Status prepareGemm() { return Status::ok(); }
  /// The convolution `conv` with its epilogue (cuDNN on cuda, a CPU
  /// convolution on sim).
  virtual Status conv(const StepOp &op, const ConvStep &conv,
                      const ConvOperands &operands) = 0;
  /// Copies `bytes` bytes from `src` to `dst` in device memory.
  virtual Status copy(const StepOp &op, DevicePtr dst, DevicePtr src,
                      uint64_t bytes) = 0;
  /// Called after each step's operations are enqueued (DLC_CUDA_SYNC_STEPS
  /// waits there).
  virtual Status afterStep(size_t step) {
    (void)step;
    return Status::ok();
  }
};

/// Both take a package that validatePackage accepted and keep a reference
/// to it; `forceEpilogueFallback` is the executor's forceEpilogueFallback().
/// Each checks that the package's memory fits the device (checkMemoryFits:
/// the GPU's memory on cuda, the host's on sim, lowered by
/// options.maxMemory) before it allocates anything.
Result<std::unique_ptr<Device>> createCudaDevice(const Package &package,
                                                 const SessionOptions &options,
                                                 bool forceEpilogueFallback);
Result<std::unique_ptr<Device>> createSimDevice(const Package &package,
                                                const SessionOptions &options);

} // namespace dlc::rt

#endif // DLC_RUNTIME_DEVICE_H
