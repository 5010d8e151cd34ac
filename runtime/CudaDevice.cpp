//===- CudaDevice.cpp - The cuda back end of the step executor ------------===//
//
// A CUDA device uses the GPU's primary context (the one the CUDA runtime
// inside cuBLAS also uses), one stream, one arena allocation and the
// constants uploaded once. Steps run in order on the stream: kernels through
// cuLaunchKernel, GEMMs through cuBLAS or cuBLASLt (CudaBlas.cpp),
// convolutions through cuDNN (CudaDnn.cpp), copies
// through cuMemcpyDtoDAsync; runs after the first replay a CUDA Graph
// (CudaGraph.cpp). CudaDevice.h lists the parts.
//
// Set DLC_CUDA_SYNC_STEPS=1 to synchronize after every step (and skip the
// graph), so an asynchronous fault is reported against the step causing it.
//
// A sticky error leaves the session unusable (CudaContext); every other
// failure leaves it usable. test/runtime/FaultInjectionTest.cpp checks
// both, and that nothing leaks, for every CUDA call, on the fake driver of
// FakeCuda.cpp.
//
//===----------------------------------------------------------------------===//

#include "runtime/CudaDevice.h"

#include "runtime/RuntimeImpl.h"
#include "runtime/Support.h"
#include <algorithm>

#include <cstdlib>
#include <set>

namespace dlc::rt {
namespace {

/// Errors after which the CUDA context cannot be used any more ("the
/// process must be terminated and relaunched", says the CUDA documentation).
bool isStickyError(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
    return true;
  default:
    return false;
  }
}

/// Makes a context current for a scope, restoring the caller's afterwards,
/// so sessions work from any thread.
class ContextScope {
public:
  ContextScope(const CudaDriver *cu, CUcontext ctx) : cu_(cu) {
    if (ctx)
      result_ = cu->cuCtxPushCurrent(ctx);
    pushed_ = ctx && result_ == CUDA_SUCCESS;
  }
  ~ContextScope() { pop(); }
  ContextScope(const ContextScope &) = delete;
  ContextScope &operator=(const ContextScope &) = delete;
  /// Whether the context became current; without it every later call
  /// would fail with an error that does not say why.
  Status status() const {
    if (result_ == CUDA_SUCCESS)
      return Status::ok();
    return Status::error("cuCtxPushCurrent failed: " + cu_->errorName(result_));
  }
  /// Restores the caller's context now.
  void pop() {
    if (!pushed_)
      return;
    CUcontext ignored;
    cu_->cuCtxPopCurrent(&ignored);
    pushed_ = false;
  }

private:
  const CudaDriver *cu_;
  CUresult result_ = CUDA_SUCCESS;
  bool pushed_;
};

/// CUDA events on the session's stream.
class CudaTimeline final : public Timeline {
public:
  explicit CudaTimeline(CudaContext &ctx) : ctx_(ctx) {}
  ~CudaTimeline() override {
    for (CUevent e : events_)
      ctx_.cu->cuEventDestroy(e);
  }
  Status create(size_t count, const std::string &what) {
    for (size_t i = 0; i < count; ++i) {
      CUevent e = nullptr;
      DLC_RT_RETURN_IF_ERROR(ctx_.check(
          ctx_.cu->cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate", what));
      events_.push_back(e);
    }
    return Status::ok();
  }
  Status record(size_t index, const std::string &what) override {
    return ctx_.check(ctx_.cu->cuEventRecord(events_[index], ctx_.stream),
                      "cuEventRecord", what);
  }
  Result<double> elapsed(size_t from, size_t to,
                         const std::string &what) override {
    float ms = 0;
    DLC_RT_RETURN_IF_ERROR(
        ctx_.check(ctx_.cu->cuEventElapsedTime(&ms, events_[from], events_[to]),
                   "cuEventElapsedTime", what));
    return double(ms);
  }

private:
  CudaContext &ctx_;
  std::vector<CUevent> events_;
};

class CudaDevice final : public Device {
public:
  CudaDevice(const Package &pkg, const SessionOptions &opts, bool forceFallback,
             const CudaDriver *cu)
      : pkg_(pkg), opts_(opts), forceFallback_(forceFallback), ctx_(cu),
        blas_(ctx_, pkg), dnn_(ctx_, pkg) {
    const char *sync = std::getenv("DLC_CUDA_SYNC_STEPS");
    syncSteps_ = sync && *sync && std::string(sync) != "0";
  }
  ~CudaDevice() override;

  Status init();

  std::string description() const override { return description_; }
  bool usesCudaGraph() const override {
    return opts_.useCudaGraph && !syncSteps_;
  }
  Status enter() override;
  void leave() override { scope_.reset(); }
  DevicePtr arena() const override { return arena_; }
  DevicePtr constants() const override { return constants_; }

  Result<RunBuffers> stage(const std::vector<HostTensor> &inputs,
                           std::vector<HostTensor> &outputs) override;
  Status fetchOutputs(const RunBuffers &buffers,
                      std::vector<HostTensor> &outputs) override;
  Status synchronize(const std::string &what) override;
  Status execute(const RunBuffers &buffers,
                 const std::function<Status()> &enqueueSteps) override;
  bool replayPending(const RunBuffers &buffers) const override;
  Result<std::unique_ptr<Timeline>>
  createTimeline(size_t count, const std::string &what) override;
  Result<DevicePtr> allocateMemory(uint64_t bytes,
                                   const std::string &what) override;
  void freeMemory(DevicePtr p) override;
  Status upload(DevicePtr dst, const void *src, uint64_t bytes,
                const std::string &what) override;
  Status download(void *dst, DevicePtr src, uint64_t bytes,
                  const std::string &what) override;

  Status launch(const StepOp &op, uint32_t kernel, const LaunchDims &dims,
                const std::vector<DevicePtr> &args) override;
  Result<bool> gemm(const StepOp &op, const GemmStep &g,
                    const GemmOperands &ops) override;
  Status prepareGemm() override { return blas_.initBlas(); }
  Status conv(const StepOp &op, const ConvStep &,
              const ConvOperands &ops) override {
    return dnn_.conv(op.step, ops);
  }
  Status copy(const StepOp &op, DevicePtr dst, DevicePtr src,
              uint64_t bytes) override {
    return ctx_.check(ctx_.cu->cuMemcpyDtoDAsync(dst, src, bytes, ctx_.stream),
                      "cuMemcpyDtoDAsync", describeStepOp(pkg_, op));
  }
  Status afterStep(size_t step) override {
    if (!syncSteps_)
      return Status::ok();
    return ctx_.check(ctx_.cu->cuStreamSynchronize(ctx_.stream),
                      "cuStreamSynchronize", describeStep(pkg_, step));
  }

private:
  /// Allocates the buffers run() stages inputs and outputs in (once).
  Status ensureStaging();
  /// The pointers a graph bakes in: the inputs', then the outputs'.
  static std::vector<CUdeviceptr> graphPointers(const RunBuffers &buffers);

  const Package &pkg_;
  SessionOptions opts_;
  /// DLC_GEMM_EPILOGUE_FALLBACK at creation (forceEpilogueFallback).
  const bool forceFallback_;
  bool syncSteps_ = false;
  std::string description_;
  std::string arch_;

  CudaContext ctx_;
  CudaModule module_;
  CudaBlas blas_;
  CudaDnn dnn_;
  CudaGraph graph_;
  /// The context made current by enter().
  std::unique_ptr<ContextScope> scope_;
  CUdeviceptr arena_ = 0, constants_ = 0;
  std::vector<CUdeviceptr> inputBuffers_, outputBuffers_;
  /// What allocateMemory returned.
  std::set<CUdeviceptr> memory_;
  bool stagingReady_ = false;
  /// Kernel parameters: the argument values and pointers to them.
  std::vector<CUdeviceptr> values_;
  std::vector<void *> params_;
};

} // namespace

Status CudaContext::check(CUresult r, const std::string &call,
                          const std::string &what) {
  if (r == CUDA_SUCCESS)
    return Status::ok();
  std::string msg = call + " failed" + (what.empty() ? "" : " for " + what) +
                    ": " + cu->errorName(r);
  noteError(r, msg);
  return Status::error(msg);
}

void CudaContext::noteError(CUresult r, const std::string &message) {
  if (isStickyError(r) && broken_.empty())
    broken_ = message;
}

Status CudaContext::usable() const {
  if (broken_.empty())
    return Status::ok();
  return Status::error("the CUDA context is unusable after an earlier "
                       "error (" +
                       broken_ + "); CUDA requires restarting the process");
}

Status CudaContext::allocate(CUdeviceptr &ptr, size_t bytes,
                             const std::string &what) {
  return check(cu->cuMemAlloc(&ptr, bytes ? bytes : 256), "cuMemAlloc",
               what + " (" + formatBytes(bytes) + ")");
}

namespace {

CudaDevice::~CudaDevice() {
  scope_.reset();
  if (!ctx_.ctx)
    return;
  const CudaDriver *cu = ctx_.cu;
  {
    ContextScope scope(cu, ctx_.ctx);
    if (ctx_.stream)
      cu->cuStreamSynchronize(ctx_.stream);
    graph_.release(cu);
    blas_.release();
    dnn_.release();
    for (CUdeviceptr p : inputBuffers_)
      if (p)
        cu->cuMemFree(p);
    for (CUdeviceptr p : outputBuffers_)
      if (p)
        cu->cuMemFree(p);
    for (CUdeviceptr p : memory_)
      cu->cuMemFree(p);
    for (CUdeviceptr p : {arena_, constants_})
      if (p)
        cu->cuMemFree(p);
    module_.unload(cu);
    if (ctx_.stream)
      cu->cuStreamDestroy(ctx_.stream);
  }
  cu->cuDevicePrimaryCtxRelease(ctx_.device);
}

Status CudaDevice::init() {
  const CudaDriver *cu = ctx_.cu;
  int count = 0;
  DLC_RT_RETURN_IF_ERROR(
      ctx_.check(cu->cuDeviceGetCount(&count), "cuDeviceGetCount"));
  if (opts_.cudaDevice < 0 || opts_.cudaDevice >= count)
    return Status::error("CUDA device " + std::to_string(opts_.cudaDevice) +
                         " does not exist (" + std::to_string(count) +
                         " device" + (count == 1 ? "" : "s") + ")");
  DLC_RT_RETURN_IF_ERROR(ctx_.check(
      cu->cuDeviceGet(&ctx_.device, opts_.cudaDevice), "cuDeviceGet"));
  // The package must fit in the GPU's memory before anything is allocated
  // (or a context made).
  size_t totalMemory = 0;
  DLC_RT_RETURN_IF_ERROR(ctx_.check(
      cu->cuDeviceTotalMem(&totalMemory, ctx_.device), "cuDeviceTotalMem"));
  DLC_RT_RETURN_IF_ERROR(checkMemoryFits(pkg_, uint64_t(totalMemory),
                                         "the device has", opts_.maxMemory));
  CUcontext ctx = nullptr;
  DLC_RT_RETURN_IF_ERROR(
      ctx_.check(cu->cuDevicePrimaryCtxRetain(&ctx, ctx_.device),
                 "cuDevicePrimaryCtxRetain"));
  // Set only once retained: the destructor releases what ctx_.ctx names.
  ctx_.ctx = ctx;
  ContextScope scope(cu, ctx_.ctx);
  DLC_RT_RETURN_IF_ERROR(scope.status());

  char name[256] = {0};
  DLC_RT_RETURN_IF_ERROR(
      ctx_.check(cu->cuDeviceGetName(name, sizeof(name) - 1, ctx_.device),
                 "cuDeviceGetName"));
  int major = 0, minor = 0;
  DLC_RT_RETURN_IF_ERROR(ctx_.check(
      cu->cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ctx_.device),
      "cuDeviceGetAttribute"));
  DLC_RT_RETURN_IF_ERROR(ctx_.check(
      cu->cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ctx_.device),
      "cuDeviceGetAttribute"));
  arch_ = "sm_" + std::to_string(major) + std::to_string(minor);
  description_ = std::string(name) + " (" + arch_ + ")";

  DLC_RT_RETURN_IF_ERROR(
      ctx_.check(cu->cuStreamCreate(&ctx_.stream, CU_STREAM_NON_BLOCKING),
                 "cuStreamCreate"));
  DLC_RT_RETURN_IF_ERROR(module_.load(ctx_, pkg_, arch_));

  if (pkg_.arenaBytes > 0)
    DLC_RT_RETURN_IF_ERROR(ctx_.allocate(arena_, pkg_.arenaBytes, "the arena"));
  if (!pkg_.constants.empty()) {
    DLC_RT_RETURN_IF_ERROR(
        ctx_.allocate(constants_, pkg_.constants.size(), "the constants"));
    DLC_RT_RETURN_IF_ERROR(
        ctx_.check(cu->cuMemcpyHtoD(constants_, pkg_.constants.data(),
                                    pkg_.constants.size()),
                   "cuMemcpyHtoD", "the constants"));
  }

  bool hasGemm = false, hasLtGemm = false, hasFallback = false;
  for (const Step &s : pkg_.steps) {
    if (s.kind != Step::Kind::Gemm)
      continue;
    (s.gemm.usesLt() ? hasLtGemm : hasGemm) = true;
    hasFallback |= s.gemm.epilogueKernel >= 0;
  }
  if (hasLtGemm)
    DLC_RT_RETURN_IF_ERROR(blas_.initLt());
  // The epilogue fallback (epilogue kernels) needs plain GEMMs too: made
  // now when forced, else when first needed (on the first, uncaptured run).
  if (hasGemm || (hasFallback && forceFallback_))
    DLC_RT_RETURN_IF_ERROR(blas_.initBlas());
  if (std::any_of(pkg_.steps.begin(), pkg_.steps.end(),
                  [](const Step &s) { return s.kind == Step::Kind::Conv; }))
    DLC_RT_RETURN_IF_ERROR(dnn_.init());
  return Status::ok();
}

Status CudaDevice::enter() {
  DLC_RT_RETURN_IF_ERROR(ctx_.usable());
  auto scope = std::make_unique<ContextScope>(ctx_.cu, ctx_.ctx);
  DLC_RT_RETURN_IF_ERROR(scope->status());
  scope_ = std::move(scope);
  return Status::ok();
}

Status CudaDevice::ensureStaging() {
  if (stagingReady_)
    return Status::ok();
  // After a failed allocation the next run allocates only what is missing
  // (the destructor frees what this one got).
  inputBuffers_.resize(pkg_.inputs.size(), 0);
  outputBuffers_.resize(pkg_.outputs.size(), 0);
  for (size_t i = 0; i < pkg_.inputs.size(); ++i)
    if (!inputBuffers_[i])
      DLC_RT_RETURN_IF_ERROR(ctx_.allocate(inputBuffers_[i],
                                           pkg_.inputs[i].byteSize(),
                                           "input #" + std::to_string(i)));
  for (size_t i = 0; i < pkg_.outputs.size(); ++i)
    if (!outputBuffers_[i])
      DLC_RT_RETURN_IF_ERROR(ctx_.allocate(outputBuffers_[i],
                                           pkg_.outputs[i].byteSize(),
                                           "output #" + std::to_string(i)));
  stagingReady_ = true;
  return Status::ok();
}

Result<RunBuffers> CudaDevice::stage(const std::vector<HostTensor> &inputs,
                                     std::vector<HostTensor> &) {
  DLC_RT_RETURN_IF_ERROR(ensureStaging());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].data.empty())
      DLC_RT_RETURN_IF_ERROR(ctx_.check(
          ctx_.cu->cuMemcpyHtoDAsync(inputBuffers_[i], inputs[i].data.data(),
                                     inputs[i].data.size(), ctx_.stream),
          "cuMemcpyHtoDAsync", "input #" + std::to_string(i)));
  RunBuffers buffers;
  buffers.inputs.assign(inputBuffers_.begin(), inputBuffers_.end());
  buffers.outputs.assign(outputBuffers_.begin(), outputBuffers_.end());
  return buffers;
}

Result<DevicePtr> CudaDevice::allocateMemory(uint64_t bytes,
                                             const std::string &what) {
  if (bytes > SIZE_MAX)
    return Status::error("cannot allocate " + std::to_string(bytes) +
                         " bytes for " + what);
  CUdeviceptr p = 0;
  DLC_RT_RETURN_IF_ERROR(ctx_.allocate(p, size_t(bytes), what));
  memory_.insert(p);
  return DevicePtr(p);
}

void CudaDevice::freeMemory(DevicePtr p) {
  if (memory_.erase(CUdeviceptr(p)))
    ctx_.cu->cuMemFree(CUdeviceptr(p));
}

Status CudaDevice::upload(DevicePtr dst, const void *src, uint64_t bytes,
                          const std::string &what) {
  if (bytes)
    DLC_RT_RETURN_IF_ERROR(
        ctx_.check(ctx_.cu->cuMemcpyHtoDAsync(dst, src, bytes, ctx_.stream),
                   "cuMemcpyHtoDAsync", what));
  return synchronize(what);
}

Status CudaDevice::download(void *dst, DevicePtr src, uint64_t bytes,
                            const std::string &what) {
  if (bytes)
    DLC_RT_RETURN_IF_ERROR(
        ctx_.check(ctx_.cu->cuMemcpyDtoHAsync(dst, src, bytes, ctx_.stream),
                   "cuMemcpyDtoHAsync", what));
  return synchronize(what);
}

Status CudaDevice::fetchOutputs(const RunBuffers &buffers,
                                std::vector<HostTensor> &outputs) {
  outputs.reserve(pkg_.outputs.size());
  for (size_t i = 0; i < pkg_.outputs.size(); ++i) {
    Result<HostTensor> allocated =
        HostTensor::allocate(pkg_.outputs[i].dtype, pkg_.outputs[i].shape,
                             "output #" + std::to_string(i));
    if (!allocated)
      return allocated.status();
    outputs.push_back(allocated.take());
    HostTensor &t = outputs.back();
    if (!t.data.empty())
      DLC_RT_RETURN_IF_ERROR(ctx_.check(
          ctx_.cu->cuMemcpyDtoHAsync(t.data.data(), buffers.outputs[i],
                                     t.data.size(), ctx_.stream),
          "cuMemcpyDtoHAsync", "output #" + std::to_string(i)));
  }
  return Status::ok();
}

Status CudaDevice::synchronize(const std::string &what) {
  CUresult r = ctx_.cu->cuStreamSynchronize(ctx_.stream);
  if (r == CUDA_SUCCESS)
    return Status::ok();
  std::string msg =
      "cuStreamSynchronize failed after " + what + ": " + ctx_.cu->errorName(r);
  ctx_.noteError(r, msg);
  if (!syncSteps_)
    msg += " (set DLC_CUDA_SYNC_STEPS=1 to find the failing step)";
  return Status::error(msg);
}

std::vector<CUdeviceptr> CudaDevice::graphPointers(const RunBuffers &buffers) {
  std::vector<CUdeviceptr> pointers(buffers.inputs.begin(),
                                    buffers.inputs.end());
  pointers.insert(pointers.end(), buffers.outputs.begin(),
                  buffers.outputs.end());
  return pointers;
}

Status CudaDevice::execute(const RunBuffers &buffers,
                           const std::function<Status()> &enqueueSteps) {
  bool useGraph = usesCudaGraph() && !pkg_.steps.empty();
  return graph_.execute(ctx_, useGraph, graphPointers(buffers), enqueueSteps);
}

bool CudaDevice::replayPending(const RunBuffers &buffers) const {
  if (!usesCudaGraph() || pkg_.steps.empty())
    return false;
  return graph_.pending(graphPointers(buffers));
}

Result<std::unique_ptr<Timeline>>
CudaDevice::createTimeline(size_t count, const std::string &what) {
  auto timeline = std::make_unique<CudaTimeline>(ctx_);
  DLC_RT_RETURN_IF_ERROR(timeline->create(count, what));
  return std::unique_ptr<Timeline>(std::move(timeline));
}

Status CudaDevice::launch(const StepOp &op, uint32_t kernel,
                          const LaunchDims &dims,
                          const std::vector<DevicePtr> &args) {
  values_.assign(args.begin(), args.end());
  params_.resize(values_.size());
  for (size_t a = 0; a < values_.size(); ++a)
    params_[a] = &values_[a];
  // cuLaunchKernel copies the parameter values, so reusing the vectors for
  // the next launch is fine.
  return ctx_.check(ctx_.cu->cuLaunchKernel(
                        module_.function(kernel), dims.grid[0], dims.grid[1],
                        dims.grid[2], dims.block[0], dims.block[1],
                        dims.block[2], dims.sharedBytes, ctx_.stream,
                        params_.empty() ? nullptr : params_.data(), nullptr),
                    "cuLaunchKernel", describeStepOp(pkg_, op));
}

Result<bool> CudaDevice::gemm(const StepOp &op, const GemmStep &g,
                              const GemmOperands &ops) {
  if (g.usesLt())
    return blas_.ltGemm(op.step, ops);
  DLC_RT_RETURN_IF_ERROR(blas_.gemm(op.step, g, ops.a, ops.b, ops.c));
  return true;
}

} // namespace

Result<std::unique_ptr<Device>> createCudaDevice(const Package &package,
                                                 const SessionOptions &options,
                                                 bool forceEpilogueFallback) {
  std::string why;
  if (!cudaAvailable(&why))
    return Status::error("no CUDA GPU: " + why + " (use --device=sim)");
  auto device = std::make_unique<CudaDevice>(
      package, options, forceEpilogueFallback, loadCudaDriver(nullptr));
  DLC_RT_RETURN_IF_ERROR(device->init());
  return std::unique_ptr<Device>(std::move(device));
}

} // namespace dlc::rt
