//===- StepExecutor.h - The session that runs steps on a Device -*- C++ -*-===//
//
// One Session implementation for every device: it owns the package and a
// Device (Device.h), checks what callers pass, resolves buffer references
// and runs the step loop; the device does the work of each step.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_STEPEXECUTOR_H
#define DLC_RUNTIME_STEPEXECUTOR_H

#include "runtime/Device.h"
#include "runtime/RuntimeImpl.h"

namespace dlc::rt {

class StepExecutor final : public Session {
public:
  explicit StepExecutor(const Package &package) : pkg_(package) {}
  ~StepExecutor() override;

  /// The executor's copy of the package, which its device refers to.
  const Package &package() const override { return pkg_; }
  /// DLC_GEMM_EPILOGUE_FALLBACK when the executor was made.
  bool forcesEpilogueFallback() const { return forceFallback_; }
  /// Sets the device, made for package() (once, before any run).
  void setDevice(std::unique_ptr<Device> device) {
    device_ = std::move(device);
  }

  Result<std::vector<HostTensor>>
  run(const std::vector<HostTensor> &inputs) override;
  Status runOnDevice(const std::vector<const void *> &inputs,
                     const std::vector<void *> &outputs) override;
  Result<std::vector<StepProfile>>
  profile(const std::vector<HostTensor> &inputs, unsigned iterations) override;
  Result<std::vector<double>> benchmark(const std::vector<HostTensor> &inputs,
                                        unsigned warmup,
                                        unsigned iterations) override;
  Result<void *> allocateDeviceMemory(uint64_t bytes,
                                      const std::string &what) override;
  void freeDeviceMemory(void *p) override;
  Status copyToDevice(void *dst, const void *src, uint64_t bytes) override;
  Status copyFromDevice(void *dst, const void *src, uint64_t bytes) override;
  bool usesCudaGraph() const override { return device_->usesCudaGraph(); }
  std::string deviceDescription() const override {
    return device_->description();
  }

private:
  class DeviceScope;
  /// run(), runOnDevice(), profile() and benchmark() without the last-line
  /// conversion of a failed allocation into an error.
  Result<std::vector<HostTensor>>
  runChecked(const std::vector<HostTensor> &inputs);
  Status runOnDeviceChecked(const std::vector<const void *> &inputs,
                            const std::vector<void *> &outputs);
  Result<std::vector<StepProfile>>
  profileChecked(const std::vector<HostTensor> &inputs, unsigned iterations);
  Result<std::vector<double>>
  benchmarkChecked(const std::vector<HostTensor> &inputs, unsigned warmup,
                   unsigned iterations);
  /// Checks host `inputs` against the package, enters the device for
  /// `scope` and stages them (Device::stage).
  Result<RunBuffers> prepareRun(const std::vector<HostTensor> &inputs,
                                DeviceScope &scope,
                                std::vector<HostTensor> &outputs);
  /// The address `ref` names in a run on `buffers`.
  DevicePtr resolve(const RunBuffers &buffers, const BufferRef &ref) const;
  /// Enqueues every step. With `timeline` (one more timestamp than there
  /// are steps), records timestamp i before step i and the last one after
  /// all steps.
  Status enqueueSteps(const RunBuffers &buffers, Timeline *timeline = nullptr);
  /// Submits one run through the device (which may replay a graph).
  Status execute(const RunBuffers &buffers);
  /// GEMM step `i` on resolved operands.
  Status enqueueGemm(size_t i, const GemmStep &g, const GemmOperands &ops);
  /// GEMM step `i` without a fused epilogue: the addend copied into C, the
  /// plain product, then the step's epilogue kernel on C.
  Status enqueueEpilogueFallback(size_t i, const GemmStep &g,
                                 const GemmOperands &ops);

  Package pkg_;
  /// Declared after the package, which it refers to.
  std::unique_ptr<Device> device_;
  /// DLC_GEMM_EPILOGUE_FALLBACK at creation (forceEpilogueFallback).
  const bool forceFallback_ = forceEpilogueFallback();
  /// Kernel arguments, reused from step to step.
  std::vector<DevicePtr> args_;
};

} // namespace dlc::rt

#endif // DLC_RUNTIME_STEPEXECUTOR_H
