//===- StepExecutor.cpp - The step loop, once for every device ------------===//
//
// What a session does independently of the device: the checks of what
// callers pass, buffer references resolved to addresses, the step loop with
// errors naming the step, the epilogue fallback of GEMM steps, and the
// loops of profile() and benchmark(). Device.h says what back ends do.
//
//===----------------------------------------------------------------------===//

#include "runtime/StepExecutor.h"

namespace dlc::rt {

namespace {
/// Runs `fn`, an entry point of a session, turning an allocation that fails
/// into an error: the devices check sizes before they allocate (outputs
/// through HostTensor::allocate, the package's memory when the session is
/// made), so this is only the last line.
template <typename Fn>
auto catchAllocation(const char *what, Fn &&fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::bad_alloc &e) {
    return Status::error(std::string("out of host memory ") + what + ": " +
                         e.what());
  }
}
} // namespace

Timeline::~Timeline() = default;
Device::~Device() = default;

std::string describeStepOp(const Package &package, const StepOp &op) {
  std::string s = describeStep(package, op.step);
  if (op.part)
    s += std::string(" (") + op.part + ")";
  return s;
}

/// Leaves the device at the end of a scope if enter() succeeded.
class StepExecutor::DeviceScope {
public:
  explicit DeviceScope(Device &device) : device_(device) {}
  ~DeviceScope() {
    if (entered_)
      device_.leave();
  }
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;
  Status enter() {
    Status st = device_.enter();
    entered_ = st.isOk();
    return st;
  }

private:
  Device &device_;
  bool entered_ = false;
};

StepExecutor::~StepExecutor() = default;

DevicePtr StepExecutor::resolve(const RunBuffers &buffers,
                                const BufferRef &ref) const {
  switch (ref.kind) {
  case BufferRef::Kind::Input:
    return buffers.inputs[ref.index] + ref.offset;
  case BufferRef::Kind::Output:
    return buffers.outputs[ref.index] + ref.offset;
  case BufferRef::Kind::Arena:
    return device_->arena() + ref.offset;
  case BufferRef::Kind::Constant:
    return device_->constants() + ref.offset;
  }
  return 0;
}

Status StepExecutor::enqueueSteps(const RunBuffers &buffers,
                                  Timeline *timeline) {
  for (size_t i = 0; i < pkg_.steps.size(); ++i) {
    const Step &step = pkg_.steps[i];
    if (timeline)
      DLC_RT_RETURN_IF_ERROR(timeline->record(i, describeStep(pkg_, i)));
    switch (step.kind) {
    case Step::Kind::Kernel: {
      const KernelStep &k = step.kernel;
      args_.resize(k.args.size());
      for (size_t a = 0; a < k.args.size(); ++a)
        args_[a] = resolve(buffers, k.args[a]);
      LaunchDims dims;
      for (int d = 0; d < 3; ++d) {
        dims.grid[d] = k.grid[d];
        dims.block[d] = k.block[d];
      }
      dims.sharedBytes = k.sharedBytes;
      DLC_RT_RETURN_IF_ERROR(device_->launch({i}, k.kernel, dims, args_));
      break;
    }
    case Step::Kind::Gemm: {
      const GemmStep &g = step.gemm;
      if (g.m == 0 || g.n == 0)
        break;
      GemmOperands ops;
      ops.a = resolve(buffers, g.a);
      ops.b = resolve(buffers, g.b);
      ops.c = resolve(buffers, g.c);
      if (g.bias)
        ops.bias = resolve(buffers, *g.bias);
      if (g.addend)
        ops.addend = resolve(buffers, *g.addend);
      DLC_RT_RETURN_IF_ERROR(enqueueGemm(i, g, ops));
      break;
    }
    case Step::Kind::Conv: {
      const ConvStep &c = step.conv;
      ConvOperands ops;
      ops.x = resolve(buffers, c.x);
      ops.filter = resolve(buffers, c.filter);
      ops.y = resolve(buffers, c.y);
      if (c.bias)
        ops.bias = resolve(buffers, *c.bias);
      if (c.addend)
        ops.addend = resolve(buffers, *c.addend);
      DLC_RT_RETURN_IF_ERROR(device_->conv({i}, c, ops));
      break;
    }
    case Step::Kind::Copy: {
      const CopyStep &c = step.copy;
      if (c.src.bytes == 0)
        break;
      DLC_RT_RETURN_IF_ERROR(device_->copy(
          {i}, resolve(buffers, c.dst), resolve(buffers, c.src), c.src.bytes));
      break;
    }
    }
    DLC_RT_RETURN_IF_ERROR(device_->afterStep(i));
  }
  if (timeline)
    DLC_RT_RETURN_IF_ERROR(
        timeline->record(pkg_.steps.size(), "the end of the last step"));
  return Status::ok();
}

Status StepExecutor::enqueueGemm(size_t i, const GemmStep &g,
                                 const GemmOperands &ops) {
  if (g.epilogueKernel >= 0 && forceFallback_)
    return enqueueEpilogueFallback(i, g, ops);
  Result<bool> fused = device_->gemm({i}, g, ops);
  if (!fused)
    return fused.status();
  if (*fused)
    return Status::ok();
  return enqueueEpilogueFallback(i, g, ops);
}

Status StepExecutor::enqueueEpilogueFallback(size_t i, const GemmStep &g,
                                             const GemmOperands &ops) {
  DLC_RT_RETURN_IF_ERROR(device_->prepareGemm());
  if (g.addend && ops.addend != ops.c)
    DLC_RT_RETURN_IF_ERROR(device_->copy({i, "the addend"}, ops.c, ops.addend,
                                         epilogueResultBytes(g)));
  GemmOperands plain = ops;
  plain.bias = plain.addend = 0;
  Result<bool> product = device_->gemm({i}, plainGemmOf(g), plain);
  if (!product)
    return product.status();
  LaunchDims dims;
  dims.grid[0] = epilogueGrid(g);
  dims.block[0] = kEpilogueThreads;
  return device_->launch({i, "its epilogue kernel"}, uint32_t(g.epilogueKernel),
                         dims, {ops.c, ops.bias});
}

Result<RunBuffers>
StepExecutor::prepareRun(const std::vector<HostTensor> &inputs,
                         DeviceScope &scope, std::vector<HostTensor> &outputs) {
  DLC_RT_RETURN_IF_ERROR(checkRunInputs(pkg_, inputs));
  DLC_RT_RETURN_IF_ERROR(scope.enter());
  return device_->stage(inputs, outputs);
}

Status StepExecutor::execute(const RunBuffers &buffers) {
  return device_->execute(buffers, [&] { return enqueueSteps(buffers); });
}

Result<std::vector<HostTensor>>
StepExecutor::run(const std::vector<HostTensor> &inputs) {
  return catchAllocation("running the package",
                         [&] { return runChecked(inputs); });
}

Result<std::vector<HostTensor>>
StepExecutor::runChecked(const std::vector<HostTensor> &inputs) {
  DeviceScope scope(*device_);
  std::vector<HostTensor> outputs;
  Result<RunBuffers> buffers = prepareRun(inputs, scope, outputs);
  if (!buffers)
    return buffers.status();
  DLC_RT_RETURN_IF_ERROR(execute(*buffers));
  DLC_RT_RETURN_IF_ERROR(device_->fetchOutputs(*buffers, outputs));
  DLC_RT_RETURN_IF_ERROR(device_->synchronize("running the package"));
  return outputs;
}

Status StepExecutor::runOnDevice(const std::vector<const void *> &inputs,
                                 const std::vector<void *> &outputs) {
  return catchAllocation("running the package",
                         [&] { return runOnDeviceChecked(inputs, outputs); });
}

Status StepExecutor::runOnDeviceChecked(const std::vector<const void *> &inputs,
                                        const std::vector<void *> &outputs) {
  if (inputs.size() != pkg_.inputs.size() ||
      outputs.size() != pkg_.outputs.size())
    return Status::error("runOnDevice: expected " +
                         std::to_string(pkg_.inputs.size()) + " inputs and " +
                         std::to_string(pkg_.outputs.size()) +
                         " outputs, got " + std::to_string(inputs.size()) +
                         " and " + std::to_string(outputs.size()));
  RunBuffers buffers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i] && pkg_.inputs[i].byteSize() > 0)
      return Status::error("runOnDevice: input #" + std::to_string(i) +
                           " is a null pointer");
    buffers.inputs.push_back(toDevicePtr(inputs[i]));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i] && pkg_.outputs[i].byteSize() > 0)
      return Status::error("runOnDevice: output #" + std::to_string(i) +
                           " is a null pointer");
    buffers.outputs.push_back(toDevicePtr(outputs[i]));
  }
  DeviceScope scope(*device_);
  DLC_RT_RETURN_IF_ERROR(scope.enter());
  DLC_RT_RETURN_IF_ERROR(execute(buffers));
  return device_->synchronize("running the package");
}

Result<void *> StepExecutor::allocateDeviceMemory(uint64_t bytes,
                                                  const std::string &what) {
  DeviceScope scope(*device_);
  DLC_RT_RETURN_IF_ERROR(scope.enter());
  Result<DevicePtr> p = catchAllocation("allocating device memory", [&] {
    return device_->allocateMemory(std::max<uint64_t>(bytes, 1), what);
  });
  if (!p)
    return p.status();
  return fromDevicePtr(*p);
}

void StepExecutor::freeDeviceMemory(void *p) {
  if (!p)
    return;
  DeviceScope scope(*device_);
  if (scope.enter().isOk())
    device_->freeMemory(toDevicePtr(p));
}

Status StepExecutor::copyToDevice(void *dst, const void *src, uint64_t bytes) {
  if (bytes && (!dst || !src))
    return Status::error("copyToDevice: a null pointer");
  DeviceScope scope(*device_);
  DLC_RT_RETURN_IF_ERROR(scope.enter());
  return device_->upload(toDevicePtr(dst), src, bytes, "a copy to the device");
}

Status StepExecutor::copyFromDevice(void *dst, const void *src,
                                    uint64_t bytes) {
  if (bytes && (!dst || !src))
    return Status::error("copyFromDevice: a null pointer");
  DeviceScope scope(*device_);
  DLC_RT_RETURN_IF_ERROR(scope.enter());
  return device_->download(dst, toDevicePtr(src), bytes,
                           "a copy from the device");
}

Result<std::vector<StepProfile>>
StepExecutor::profile(const std::vector<HostTensor> &inputs,
                      unsigned iterations) {
  return catchAllocation("profiling the package",
                         [&] { return profileChecked(inputs, iterations); });
}

Result<std::vector<StepProfile>>
StepExecutor::profileChecked(const std::vector<HostTensor> &inputs,
                             unsigned iterations) {
  DeviceScope scope(*device_);
  std::vector<HostTensor> outputs;
  Result<RunBuffers> buffers = prepareRun(inputs, scope, outputs);
  if (!buffers)
    return buffers.status();
  // A warm-up run of direct launches, outside the measurements: cuBLAS
  // finishes its lazy setup, kernels load, the arena's pages fault in.
  DLC_RT_RETURN_IF_ERROR(enqueueSteps(*buffers));
  DLC_RT_RETURN_IF_ERROR(device_->synchronize("the profiling warm-up run"));

  // Timestamps around every step of direct launches (a graph would time
  // the whole replay only).
  Result<std::unique_ptr<Timeline>> timeline =
      device_->createTimeline(pkg_.steps.size() + 1, "profiling");
  if (!timeline)
    return timeline.status();
  std::vector<std::vector<double>> times(pkg_.steps.size());
  for (unsigned r = 0; r < std::max(1u, iterations); ++r) {
    DLC_RT_RETURN_IF_ERROR(enqueueSteps(*buffers, timeline->get()));
    DLC_RT_RETURN_IF_ERROR(device_->synchronize("a profiled run"));
    for (size_t i = 0; i < pkg_.steps.size(); ++i) {
      Result<double> ms = (*timeline)->elapsed(i, i + 1, describeStep(pkg_, i));
      if (!ms)
        return ms.status();
      times[i].push_back(*ms);
    }
  }
  return summarizeProfile(pkg_, std::move(times));
}

Result<std::vector<double>>
StepExecutor::benchmark(const std::vector<HostTensor> &inputs, unsigned warmup,
                        unsigned iterations) {
  return catchAllocation("benchmarking the package", [&] {
    return benchmarkChecked(inputs, warmup, iterations);
  });
}

Result<std::vector<double>>
StepExecutor::benchmarkChecked(const std::vector<HostTensor> &inputs,
                               unsigned warmup, unsigned iterations) {
  if (iterations == 0)
    return Status::error("benchmark: at least one timed run is needed");
  // The inputs are staged once; the outputs stay on the device.
  DeviceScope scope(*device_);
  std::vector<HostTensor> outputs;
  Result<RunBuffers> buffers = prepareRun(inputs, scope, outputs);
  if (!buffers)
    return buffers.status();
  for (unsigned i = 0; i < warmup; ++i)
    DLC_RT_RETURN_IF_ERROR(execute(*buffers));
  // A session's first run launches directly and its second captures the
  // graph: run until the graph for these buffers exists, so that no timed
  // run includes a capture (two runs at most).
  for (int extra = 0; extra < 2 && device_->replayPending(*buffers); ++extra)
    DLC_RT_RETURN_IF_ERROR(execute(*buffers));
  DLC_RT_RETURN_IF_ERROR(device_->synchronize("the benchmark's warm-up runs"));

  // A start and an end timestamp per run.
  Result<std::unique_ptr<Timeline>> timeline =
      device_->createTimeline(2 * size_t(iterations), "the benchmark");
  if (!timeline)
    return timeline.status();
  // Enqueued back to back, so the GPU never waits for the host between
  // runs; each run's time is its own timestamps' difference.
  for (unsigned r = 0; r < iterations; ++r) {
    const std::string what = "benchmark run " + std::to_string(r + 1);
    DLC_RT_RETURN_IF_ERROR((*timeline)->record(2 * size_t(r), what));
    DLC_RT_RETURN_IF_ERROR(execute(*buffers));
    DLC_RT_RETURN_IF_ERROR((*timeline)->record(2 * size_t(r) + 1, what));
  }
  DLC_RT_RETURN_IF_ERROR(device_->synchronize("the benchmark runs"));
  std::vector<double> times;
  times.reserve(iterations);
  for (unsigned r = 0; r < iterations; ++r) {
    Result<double> ms =
        (*timeline)->elapsed(2 * size_t(r), 2 * size_t(r) + 1,
                             "benchmark run " + std::to_string(r + 1));
    if (!ms)
      return ms.status();
    times.push_back(*ms);
  }
  return times;
}

Result<std::unique_ptr<Session>>
createCudaSession(const Package &package, const SessionOptions &options) {
  auto executor = std::make_unique<StepExecutor>(package);
  Result<std::unique_ptr<Device>> device = createCudaDevice(
      executor->package(), options, executor->forcesEpilogueFallback());
  if (!device)
    return device.status();
  executor->setDevice(device.take());
  return std::unique_ptr<Session>(std::move(executor));
}

Result<std::unique_ptr<Session>>
createSimSession(const Package &package, const SessionOptions &options) {
  auto executor = std::make_unique<StepExecutor>(package);
  Result<std::unique_ptr<Device>> device =
      createSimDevice(executor->package(), options);
  if (!device)
    return device.status();
  executor->setDevice(device.take());
  return std::unique_ptr<Session>(std::move(executor));
}

} // namespace dlc::rt
