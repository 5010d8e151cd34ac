//===- CudaSession.cpp - Running packages on a GPU ------------------------===//
//
// A CUDA session uses the device's primary context (the one the CUDA runtime
// inside cuBLAS also uses), one stream, one arena allocation and the
// constants uploaded once. Steps run in order on the stream: kernels through
// cuLaunchKernel, GEMMs through cublasGemmStridedBatchedEx (cublasLtMatmul
// for those with a bias, an addend or an activation), copies through
// cuMemcpyDtoDAsync. The first run executes the steps directly (which also
// lets cuBLAS finish its lazy setup); the next one captures them into a CUDA
// Graph that later runs replay, re-captured when the input or output
// pointers change.
//
// Set DLC_CUDA_SYNC_STEPS=1 to synchronize after every step (and skip the
// graph), so an asynchronous fault is reported against the step causing it.
//
// A kernel fault (CUDA_ERROR_ILLEGAL_ADDRESS and the like) is sticky: the
// context, and so the session, cannot be used again; later runs say so
// instead of failing in some unrelated call. Every other failure leaves the
// session usable. test/runtime/FaultInjectionTest.cpp checks both, and that
// nothing leaks, for every CUDA call, on the fake driver of FakeCuda.cpp.
//
//===----------------------------------------------------------------------===//

#include "runtime/CudaLibs.h"
#include "runtime/RuntimeImpl.h"
#include "runtime/Support.h"

#include <algorithm>
#include <array>
#include <cstdlib>

namespace dlc::rt {
namespace {

/// 32 MiB is what cuBLAS recommends on Hopper; a user-owned workspace also
/// keeps cuBLAS from allocating during graph capture.
constexpr size_t kCublasWorkspaceBytes = 32u << 20;

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

/// The cuBLASLt epilogue of a GEMM step.
cublasLtEpilogue_t ltEpilogueOf(const GemmStep &g) {
  switch (g.epilogue) {
  case GemmEpilogue::Relu:
    return g.bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  case GemmEpilogue::GeluTanh:
    return g.bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
  case GemmEpilogue::None:
    break;
  }
  return g.bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
}

/// The alignment cuBLASLt can assume for a pointer (it asks for at most
/// 256 bytes).
uint32_t alignmentOf(CUdeviceptr p) {
  uint64_t low = p & (~p + 1);
  return p == 0 || low > 256 ? 256u : uint32_t(low);
}

cudaDataType cudaTypeOf(DType t) {
  switch (t) {
  case DType::F16:
    return CUDA_R_16F;
  case DType::BF16:
    return CUDA_R_16BF;
  default:
    return CUDA_R_32F;
  }
}

/// The cuBLAS compute type of a GEMM step: f32 accumulation, with f32
/// operands rounded to TF32 on tensor cores when the step allows it.
cublasComputeType_t computeTypeOf(const GemmStep &g) {
  return g.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

class CudaSession final : public Session {
public:
  CudaSession(const Package &pkg, const SessionOptions &opts,
              const CudaDriver *cu)
      : pkg_(pkg), opts_(opts), cu_(cu) {
    const char *sync = std::getenv("DLC_CUDA_SYNC_STEPS");
    syncSteps_ = sync && *sync && std::string(sync) != "0";
  }
  ~CudaSession() override;

  Status init();

  Result<std::vector<HostTensor>>
  run(const std::vector<HostTensor> &inputs) override;
  Status runOnDevice(const std::vector<const void *> &inputs,
                     const std::vector<void *> &outputs) override;
  Result<std::vector<StepProfile>>
  profile(const std::vector<HostTensor> &inputs, unsigned iterations) override;
  Result<std::vector<double>> benchmark(const std::vector<HostTensor> &inputs,
                                        unsigned warmup,
                                        unsigned iterations) override;
  bool usesCudaGraph() const override {
    return opts_.useCudaGraph && !syncSteps_;
  }
  const Package &package() const override { return pkg_; }
  std::string deviceDescription() const override { return description_; }

private:
  /// Makes the session's context current for a scope, restoring the
  /// caller's afterwards, so sessions work from any thread.
  class ContextScope {
  public:
    ContextScope(const CudaDriver *cu, CUcontext ctx) : cu_(cu) {
      if (ctx)
        result_ = cu->cuCtxPushCurrent(ctx);
      pushed_ = ctx && result_ == CUDA_SUCCESS;
    }
    ~ContextScope() {
      if (pushed_) {
        CUcontext ignored;
        cu_->cuCtxPopCurrent(&ignored);
      }
    }
    /// Whether the context became current; without it every later call
    /// would fail with an error that does not say why.
    Status status() const {
      if (result_ == CUDA_SUCCESS)
        return Status::ok();
      return Status::error("cuCtxPushCurrent failed: " +
                           cu_->errorName(result_));
    }

  private:
    const CudaDriver *cu_;
    CUresult result_ = CUDA_SUCCESS;
    bool pushed_;
  };

  Status check(CUresult r, const std::string &call,
               const std::string &what = "") {
    if (r == CUDA_SUCCESS)
      return Status::ok();
    std::string msg = call + " failed" + (what.empty() ? "" : " for " + what) +
                      ": " + cu_->errorName(r);
    if (isStickyError(r) && broken_.empty())
      broken_ = msg;
    return Status::error(msg);
  }
  /// An error once a sticky error broke the context.
  Status usable() const {
    if (broken_.empty())
      return Status::ok();
    return Status::error("the CUDA context is unusable after an earlier "
                         "error (" +
                         broken_ + "); CUDA requires restarting the process");
  }
  Status loadModule();
  Status allocate(CUdeviceptr &ptr, size_t bytes, const std::string &what);
  Status ensureStaging();
  /// Enqueues every step. With `events` (one more than there are steps),
  /// records events[i] before step i and the last one after all steps.
  Status enqueueSteps(const std::vector<CUdeviceptr> &in,
                      const std::vector<CUdeviceptr> &out,
                      const std::vector<CUevent> *events = nullptr);
  /// Copies host inputs into the staging buffers (asynchronously).
  Status uploadInputs(const std::vector<HostTensor> &inputs);
  /// Runs all steps on the stream (directly or through the graph) without
  /// waiting for them.
  Status execute(const std::vector<CUdeviceptr> &in,
                 const std::vector<CUdeviceptr> &out);
  /// Whether the next execute() on these buffers would launch directly or
  /// capture a graph although the session replays graphs.
  bool graphPending(const std::vector<CUdeviceptr> &in,
                    const std::vector<CUdeviceptr> &out) const;
  Status synchronize(const std::string &what);

  Package pkg_;
  SessionOptions opts_;
  const CudaDriver *cu_;
  const Cublas *blas_ = nullptr;
  bool syncSteps_ = false;
  std::string description_;
  std::string arch_;

  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
  CUstream stream_ = nullptr;
  CUmodule module_ = nullptr;
  std::vector<CUfunction> functions_;
  /// DLC_GEMM_EPILOGUE_FALLBACK at creation (forceEpilogueFallback).
  const bool forceFallback_ = forceEpilogueFallback();
  CUdeviceptr arena_ = 0, constants_ = 0, workspace_ = 0;
  std::vector<CUdeviceptr> inputBuffers_, outputBuffers_;
  bool stagingReady_ = false;
  cublasHandle_t blasHandle_ = nullptr;

  /// A GEMM step with an epilogue: its cuBLASLt descriptors, made once,
  /// and the algorithms chosen so far, one per combination of operand
  /// alignments it ran with (runOnDevice buffers may be less aligned than
  /// the session's own).
  struct LtGemm {
    cublasLtMatmulDesc_t desc = nullptr;
    /// cuBLASLt's A (our B), B (our A), and C and D (same layout).
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, cd = nullptr;
    struct Algo {
      std::array<uint32_t, 5> alignments; ///< A, B, C, D, bias
      cublasLtMatmulAlgo_t algo;
      /// No algorithm for these alignments: the epilogue kernel runs.
      bool fallback = false;
    };
    std::vector<Algo> algos;
  };
  Status checkLt(cublasStatus_t st, const char *call,
                 const std::string &what) const {
    if (st == CUBLAS_STATUS_SUCCESS)
      return Status::ok();
    return Status::error(std::string(call) + " failed" +
                         (what.empty() ? "" : " for " + what) + ": " +
                         lt_->statusName(st));
  }
  /// Loads cuBLAS and makes its handle (once).
  Status initBlas();
  /// Loads cuBLASLt and makes the handle, the heuristic preferences and the
  /// descriptors of every GEMM step with an epilogue.
  Status initLt();
  /// Enqueues GEMM `g` (of step `i`; no epilogue) as one cuBLAS call.
  Status enqueueGemm(size_t i, const GemmStep &g, CUdeviceptr a, CUdeviceptr b,
                     CUdeviceptr c);
  /// Enqueues GEMM step `i` without cuBLASLt: the addend copied into C, the
  /// plain product, then the step's epilogue kernel on C.
  Status enqueueEpilogueFallback(size_t i, CUdeviceptr a, CUdeviceptr b,
                                 CUdeviceptr c, CUdeviceptr bias,
                                 CUdeviceptr addend);
  Status makeLtLayout(cublasLtMatrixLayout_t &layout, cudaDataType type,
                      int64_t rows, int64_t cols, int64_t ld, int64_t stride,
                      int64_t batch, const std::string &what);
  /// Enqueues GEMM step `i` (which has an epilogue) on the stream.
  Status enqueueLtGemm(size_t i, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c,
                       CUdeviceptr bias, CUdeviceptr addend);
  const CublasLt *lt_ = nullptr;
  cublasLtHandle_t ltHandle_ = nullptr;
  cublasLtMatmulPreference_t ltPreference_ = nullptr;
  std::vector<LtGemm> ltGemms_;
  /// Index into ltGemms_ per step; -1 for the others.
  std::vector<int> ltIndex_;

  CUgraphExec graph_ = nullptr;
  std::vector<CUdeviceptr> graphPointers_;
  uint64_t runs_ = 0;
  /// The sticky error that made the context unusable, if any.
  std::string broken_;
};

CudaSession::~CudaSession() {
  if (!ctx_)
    return;
  {
    ContextScope scope(cu_, ctx_);
    if (stream_)
      cu_->cuStreamSynchronize(stream_);
    if (graph_)
      cu_->cuGraphExecDestroy(graph_);
    if (blasHandle_)
      blas_->destroy(blasHandle_);
    for (LtGemm &l : ltGemms_) {
      for (cublasLtMatrixLayout_t layout : {l.a, l.b, l.cd})
        if (layout)
          lt_->cublasLtMatrixLayoutDestroy(layout);
      if (l.desc)
        lt_->cublasLtMatmulDescDestroy(l.desc);
    }
    if (ltPreference_)
      lt_->cublasLtMatmulPreferenceDestroy(ltPreference_);
    if (ltHandle_)
      lt_->cublasLtDestroy(ltHandle_);
    for (CUdeviceptr p : inputBuffers_)
      if (p)
        cu_->cuMemFree(p);
    for (CUdeviceptr p : outputBuffers_)
      if (p)
        cu_->cuMemFree(p);
    for (CUdeviceptr p : {arena_, constants_, workspace_})
      if (p)
        cu_->cuMemFree(p);
    if (module_)
      cu_->cuModuleUnload(module_);
    if (stream_)
      cu_->cuStreamDestroy(stream_);
  }
  cu_->cuDevicePrimaryCtxRelease(device_);
}

Status CudaSession::allocate(CUdeviceptr &ptr, size_t bytes,
                             const std::string &what) {
  // Zero-sized tensors still get a valid, distinct address.
  return check(cu_->cuMemAlloc(&ptr, bytes ? bytes : 256), "cuMemAlloc",
               what + " (" + formatBytes(bytes) + ")");
}

Status CudaSession::init() {
  int count = 0;
  DLC_RT_RETURN_IF_ERROR(
      check(cu_->cuDeviceGetCount(&count), "cuDeviceGetCount"));
  if (opts_.cudaDevice < 0 || opts_.cudaDevice >= count)
    return Status::error("CUDA device " + std::to_string(opts_.cudaDevice) +
                         " does not exist (" + std::to_string(count) +
                         " device" + (count == 1 ? "" : "s") + ")");
  DLC_RT_RETURN_IF_ERROR(
      check(cu_->cuDeviceGet(&device_, opts_.cudaDevice), "cuDeviceGet"));
  CUcontext ctx = nullptr;
  DLC_RT_RETURN_IF_ERROR(check(cu_->cuDevicePrimaryCtxRetain(&ctx, device_),
                               "cuDevicePrimaryCtxRetain"));
  // Set only once retained: the destructor releases what ctx_ names.
  ctx_ = ctx;
  ContextScope scope(cu_, ctx_);
  DLC_RT_RETURN_IF_ERROR(scope.status());

  char name[256] = {0};
  DLC_RT_RETURN_IF_ERROR(
      check(cu_->cuDeviceGetName(name, sizeof(name) - 1, device_),
            "cuDeviceGetName"));
  int major = 0, minor = 0;
  DLC_RT_RETURN_IF_ERROR(
      check(cu_->cuDeviceGetAttribute(
                &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_),
            "cuDeviceGetAttribute"));
  DLC_RT_RETURN_IF_ERROR(
      check(cu_->cuDeviceGetAttribute(
                &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_),
            "cuDeviceGetAttribute"));
  arch_ = "sm_" + std::to_string(major) + std::to_string(minor);
  description_ = std::string(name) + " (" + arch_ + ")";

  DLC_RT_RETURN_IF_ERROR(check(
      cu_->cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  DLC_RT_RETURN_IF_ERROR(loadModule());

  if (pkg_.arenaBytes > 0)
    DLC_RT_RETURN_IF_ERROR(allocate(arena_, pkg_.arenaBytes, "the arena"));
  if (!pkg_.constants.empty()) {
    DLC_RT_RETURN_IF_ERROR(
        allocate(constants_, pkg_.constants.size(), "the constants"));
    DLC_RT_RETURN_IF_ERROR(
        check(cu_->cuMemcpyHtoD(constants_, pkg_.constants.data(),
                                pkg_.constants.size()),
              "cuMemcpyHtoD", "the constants"));
  }

  bool hasGemm = false, hasLtGemm = false, hasFallback = false;
  for (const Step &s : pkg_.steps) {
    if (s.kind != Step::Kind::Gemm)
      continue;
    (s.gemm.hasEpilogue() ? hasLtGemm : hasGemm) = true;
    hasFallback |= s.gemm.epilogueKernel >= 0;
  }
  if (hasLtGemm)
    DLC_RT_RETURN_IF_ERROR(initLt());
  // The epilogue fallback (epilogue kernels) needs plain GEMMs too: made
  // now when forced, else when first needed (on the first, uncaptured run).
  if (hasGemm || (hasFallback && forceFallback_))
    DLC_RT_RETURN_IF_ERROR(initBlas());
  return Status::ok();
}

Status CudaSession::initBlas() {
  if (blasHandle_)
    return Status::ok();
  std::string why;
  blas_ = loadCublas(&why);
  if (!blas_)
    return Status::error("the package has GEMM steps but cuBLAS is not "
                         "available: " +
                         why);
  cublasStatus_t st = blas_->create(&blasHandle_);
  if (st != CUBLAS_STATUS_SUCCESS) {
    blasHandle_ = nullptr;
    return Status::error("cublasCreate failed: " + blas_->statusName(st));
  }
  if (!workspace_)
    DLC_RT_RETURN_IF_ERROR(
        allocate(workspace_, kCublasWorkspaceBytes, "the cuBLAS workspace"));
  const char *call = "cublasSetStream";
  st = blas_->setStream(blasHandle_, stream_);
  if (st == CUBLAS_STATUS_SUCCESS) {
    call = "cublasSetWorkspace";
    st = blas_->setWorkspace(blasHandle_, reinterpret_cast<void *>(workspace_),
                             kCublasWorkspaceBytes);
  }
  // Default math: a step's compute type decides (CUBLAS_COMPUTE_32F is
  // full f32, CUBLAS_COMPUTE_32F_FAST_TF32 for steps marked tf32).
  if (st == CUBLAS_STATUS_SUCCESS) {
    call = "cublasSetMathMode";
    st = blas_->setMathMode(blasHandle_, CUBLAS_DEFAULT_MATH);
  }
  if (st != CUBLAS_STATUS_SUCCESS) {
    // Not half set up: a later call tries again from the start.
    blas_->destroy(blasHandle_);
    blasHandle_ = nullptr;
    return Status::error(std::string("setting up cuBLAS failed: ") + call +
                         " returned " + blas_->statusName(st));
  }
  return Status::ok();
}

Status CudaSession::initLt() {
  std::string why;
  lt_ = loadCublasLt(&why);
  if (!lt_)
    return Status::error("the package has GEMM steps with epilogues but "
                         "cuBLASLt is not available: " +
                         why);
  // One workspace serves cuBLAS and cuBLASLt: their calls are ordered on
  // the stream. Allocated now, never during a graph capture.
  if (!workspace_)
    DLC_RT_RETURN_IF_ERROR(
        allocate(workspace_, kCublasWorkspaceBytes, "the cuBLAS workspace"));
  cublasLtHandle_t handle = nullptr;
  DLC_RT_RETURN_IF_ERROR(
      checkLt(lt_->cublasLtCreate(&handle), "cublasLtCreate", ""));
  ltHandle_ = handle;
  cublasLtMatmulPreference_t preference = nullptr;
  DLC_RT_RETURN_IF_ERROR(
      checkLt(lt_->cublasLtMatmulPreferenceCreate(&preference),
              "cublasLtMatmulPreferenceCreate", "the heuristic preferences"));
  ltPreference_ = preference;
  uint64_t workspaceBytes = kCublasWorkspaceBytes;
  DLC_RT_RETURN_IF_ERROR(checkLt(
      lt_->cublasLtMatmulPreferenceSetAttribute(
          ltPreference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
          &workspaceBytes, sizeof(workspaceBytes)),
      "cublasLtMatmulPreferenceSetAttribute", "the heuristic preferences"));

  ltIndex_.assign(pkg_.steps.size(), -1);
  for (size_t i = 0; i < pkg_.steps.size(); ++i) {
    const Step &step = pkg_.steps[i];
    if (step.kind != Step::Kind::Gemm || !step.gemm.hasEpilogue())
      continue;
    const GemmStep &g = step.gemm;
    const std::string what = describeStep(pkg_, i);
    ltIndex_[i] = int(ltGemms_.size());
    ltGemms_.emplace_back();
    LtGemm &l = ltGemms_.back();
    // f32 accumulation with f32 alpha and beta (f32 operands on tensor
    // cores as TF32 where the step allows it), as the cuBLAS path.
    cublasLtMatmulDesc_t desc = nullptr;
    DLC_RT_RETURN_IF_ERROR(checkLt(
        lt_->cublasLtMatmulDescCreate(&desc, computeTypeOf(g), CUDA_R_32F),
        "cublasLtMatmulDescCreate", what));
    l.desc = desc;
    // Column-major, as in the cuBLAS path: the row-major C (m x n) is a
    // column-major n x m matrix, C^T = op(B)^T op(A)^T, so cuBLASLt's A is
    // our B and its B our A. The bias, one value per column of the
    // row-major C, is one per row of cuBLASLt's D, which is what its bias
    // epilogues add.
    int32_t transA = g.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    int32_t transB = g.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
    uint32_t epilogue = ltEpilogueOf(g);
    struct {
      cublasLtMatmulDescAttributes_t attr;
      const void *value;
      size_t size;
    } attributes[] = {
        {CUBLASLT_MATMUL_DESC_TRANSA, &transA, sizeof(transA)},
        {CUBLASLT_MATMUL_DESC_TRANSB, &transB, sizeof(transB)},
        {CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)}};
    for (const auto &a : attributes)
      DLC_RT_RETURN_IF_ERROR(checkLt(
          lt_->cublasLtMatmulDescSetAttribute(l.desc, a.attr, a.value, a.size),
          "cublasLtMatmulDescSetAttribute", what));
    cudaDataType type = cudaTypeOf(g.dtype);
    DLC_RT_RETURN_IF_ERROR(makeLtLayout(l.a, type, g.transB ? g.k : g.n,
                                        g.transB ? g.n : g.k, g.ldb, g.strideB,
                                        g.batch, what));
    DLC_RT_RETURN_IF_ERROR(makeLtLayout(l.b, type, g.transA ? g.m : g.k,
                                        g.transA ? g.k : g.m, g.lda, g.strideA,
                                        g.batch, what));
    DLC_RT_RETURN_IF_ERROR(
        makeLtLayout(l.cd, type, g.n, g.m, g.ldc, g.strideC, g.batch, what));
  }
  return Status::ok();
}

Status CudaSession::makeLtLayout(cublasLtMatrixLayout_t &layout,
                                 cudaDataType type, int64_t rows, int64_t cols,
                                 int64_t ld, int64_t stride, int64_t batch,
                                 const std::string &what) {
  cublasLtMatrixLayout_t made = nullptr;
  DLC_RT_RETURN_IF_ERROR(
      checkLt(lt_->cublasLtMatrixLayoutCreate(&made, type, uint64_t(rows),
                                              uint64_t(cols), ld),
              "cublasLtMatrixLayoutCreate", what));
  layout = made;
  if (batch <= 1)
    return Status::ok();
  int32_t count = int32_t(batch);
  DLC_RT_RETURN_IF_ERROR(checkLt(
      lt_->cublasLtMatrixLayoutSetAttribute(
          layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
      "cublasLtMatrixLayoutSetAttribute", what));
  return checkLt(lt_->cublasLtMatrixLayoutSetAttribute(
                     layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                     &stride, sizeof(stride)),
                 "cublasLtMatrixLayoutSetAttribute", what);
}

Status CudaSession::enqueueLtGemm(size_t i, CUdeviceptr a, CUdeviceptr b,
                                  CUdeviceptr c, CUdeviceptr bias,
                                  CUdeviceptr addend) {
  const GemmStep &g = pkg_.steps[i].gemm;
  if (g.epilogueKernel >= 0 && forceFallback_)
    return enqueueEpilogueFallback(i, a, b, c, bias, addend);
  LtGemm &l = ltGemms_[size_t(ltIndex_[i])];
  const std::string what = describeStep(pkg_, i);
  auto ptr = [](CUdeviceptr p) {
    return reinterpret_cast<void *>(uintptr_t(p));
  };
  // Buffers may move between runs (runOnDevice): the bias pointer is set
  // at every call, before the heuristic, which reads its alignment.
  if (g.bias) {
    const void *biasPointer = ptr(bias);
    DLC_RT_RETURN_IF_ERROR(checkLt(
        lt_->cublasLtMatmulDescSetAttribute(l.desc,
                                            CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                            &biasPointer, sizeof(biasPointer)),
        "cublasLtMatmulDescSetAttribute", what));
  }
  // cuBLASLt's A is our B, its B our A; its C the addend (beta scales it)
  // or, without one, the output itself.
  CUdeviceptr ltA = b, ltB = a, ltC = g.addend ? addend : c, ltD = c;
  std::array<uint32_t, 5> alignments = {alignmentOf(ltA), alignmentOf(ltB),
                                        alignmentOf(ltC), alignmentOf(ltD),
                                        g.bias ? alignmentOf(bias) : 256u};
  const cublasLtMatmulAlgo_t *algo = nullptr;
  for (const LtGemm::Algo &known : l.algos)
    if (known.alignments == alignments) {
      if (known.fallback)
        return enqueueEpilogueFallback(i, a, b, c, bias, addend);
      algo = &known.algo;
    }
  if (!algo) {
    // The heuristic runs on the host only, so it is safe during a graph
    // capture; its result is kept for the next runs.
    const cublasLtMatmulPreferenceAttributes_t alignAttrs[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int j = 0; j < 4; ++j)
      DLC_RT_RETURN_IF_ERROR(checkLt(
          lt_->cublasLtMatmulPreferenceSetAttribute(
              ltPreference_, alignAttrs[j], &alignments[j], sizeof(uint32_t)),
          "cublasLtMatmulPreferenceSetAttribute", what));
    cublasLtMatmulHeuristicResult_t result = {};
    int found = 0;
    DLC_RT_RETURN_IF_ERROR(checkLt(lt_->cublasLtMatmulAlgoGetHeuristic(
                                       ltHandle_, l.desc, l.a, l.b, l.cd, l.cd,
                                       ltPreference_, 1, &result, &found),
                                   "cublasLtMatmulAlgoGetHeuristic", what));
    if ((found < 1 || result.state != CUBLAS_STATUS_SUCCESS) &&
        g.epilogueKernel >= 0) {
      // Remembered for these alignments: the heuristic is not asked again.
      l.algos.push_back({alignments, {}, /*fallback=*/true});
      return enqueueEpilogueFallback(i, a, b, c, bias, addend);
    }
    if (found < 1 || result.state != CUBLAS_STATUS_SUCCESS)
      return Status::error(
          "cuBLASLt has no algorithm for " + what + ": a " +
          dtypeName(g.dtype) + " GEMM with epilogue " +
          gemmEpilogueName(g.epilogue) + (g.bias ? ", a bias" : "") +
          (g.addend ? ", an addend" : "") + " and operand alignments of " +
          std::to_string(alignments[0]) + ", " + std::to_string(alignments[1]) +
          ", " + std::to_string(alignments[2]) + " and " +
          std::to_string(alignments[3]) + " bytes");
    l.algos.push_back({alignments, result.algo, /*fallback=*/false});
    algo = &l.algos.back().algo;
  }
  float alpha = float(g.alpha), beta = float(g.beta);
  return checkLt(lt_->cublasLtMatmul(ltHandle_, l.desc, &alpha, ptr(ltA), l.a,
                                     ptr(ltB), l.b, &beta, ptr(ltC), l.cd,
                                     ptr(ltD), l.cd, algo, ptr(workspace_),
                                     kCublasWorkspaceBytes, stream_),
                 "cublasLtMatmul", what);
}

Status CudaSession::enqueueGemm(size_t i, const GemmStep &g, CUdeviceptr a,
                                CUdeviceptr b, CUdeviceptr c) {
  // cuBLAS is column-major: a row-major C (m x n) is a column-major C^T
  // (n x m), and C^T = op(B)^T op(A)^T, so swap the operands and pass the
  // row strides as leading dimensions.
  float alpha = float(g.alpha), beta = float(g.beta);
  cudaDataType type = cudaTypeOf(g.dtype);
  cublasStatus_t st = blas_->gemmStridedBatchedEx(
      blasHandle_, g.transB ? CUBLAS_OP_T : CUBLAS_OP_N,
      g.transA ? CUBLAS_OP_T : CUBLAS_OP_N, int(g.n), int(g.m), int(g.k),
      &alpha, reinterpret_cast<const void *>(b), type, int(g.ldb), g.strideB,
      reinterpret_cast<const void *>(a), type, int(g.lda), g.strideA, &beta,
      reinterpret_cast<void *>(c), type, int(g.ldc), g.strideC, int(g.batch),
      computeTypeOf(g), CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS)
    return Status::error("cublasGemmStridedBatchedEx failed for " +
                         describeStep(pkg_, i) + ": " + blas_->statusName(st));
  return Status::ok();
}

Status CudaSession::enqueueEpilogueFallback(size_t i, CUdeviceptr a,
                                            CUdeviceptr b, CUdeviceptr c,
                                            CUdeviceptr bias,
                                            CUdeviceptr addend) {
  const GemmStep &g = pkg_.steps[i].gemm;
  const std::string what = describeStep(pkg_, i);
  DLC_RT_RETURN_IF_ERROR(initBlas());
  if (g.addend && addend != c)
    DLC_RT_RETURN_IF_ERROR(check(
        cu_->cuMemcpyDtoDAsync(c, addend, epilogueResultBytes(g), stream_),
        "cuMemcpyDtoDAsync", what + " (the addend)"));
  DLC_RT_RETURN_IF_ERROR(enqueueGemm(i, plainGemmOf(g), a, b, c));
  void *params[2] = {&c, &bias};
  return check(cu_->cuLaunchKernel(functions_[size_t(g.epilogueKernel)],
                                   epilogueGrid(g), 1, 1, kEpilogueThreads, 1,
                                   1, 0, stream_, params, nullptr),
               "cuLaunchKernel", what + " (its epilogue kernel)");
}

Status CudaSession::loadModule() {
  if (pkg_.kernels.empty())
    return Status::ok();
  // The cubin for this GPU: its exact architecture, or the same one with
  // architecture-specific features ("sm_90a" runs on sm_90 only).
  const Cubin *match = nullptr;
  for (const Cubin &c : pkg_.cubins)
    if (c.arch == arch_ || (!match && c.arch == arch_ + "a"))
      match = &c;

  CUresult r = CUDA_ERROR_NO_BINARY_FOR_GPU;
  if (match)
    r = cu_->cuModuleLoadData(&module_, match->image.data());
  if (r != CUDA_SUCCESS) {
    // No cubin for this GPU, or one it rejects: compile the source for it.
    std::string reason = match ? "its " + arch_ + " cubin does not load (" +
                                     cu_->errorName(r) + ")"
                               : "the package has no cubin for " + arch_;
    Result<std::vector<uint8_t>> cubin =
        compileCudaToCubin(pkg_.cudaSource, arch_);
    if (!cubin)
      return Status::error(reason + ", and compiling its CUDA source failed: " +
                           cubin.message());
    module_ = nullptr;
    DLC_RT_RETURN_IF_ERROR(check(cu_->cuModuleLoadData(&module_, cubin->data()),
                                 "cuModuleLoadData",
                                 "the kernels compiled for " + arch_));
  }

  functions_.resize(pkg_.kernels.size(), nullptr);
  for (size_t i = 0; i < pkg_.kernels.size(); ++i)
    DLC_RT_RETURN_IF_ERROR(
        check(cu_->cuModuleGetFunction(&functions_[i], module_,
                                       pkg_.kernels[i].name.c_str()),
              "cuModuleGetFunction", pkg_.kernels[i].name));

  // Kernels using more than 48 KiB of dynamic shared memory must opt in.
  std::vector<uint32_t> maxShared(pkg_.kernels.size(), 0);
  for (const Step &s : pkg_.steps)
    if (s.kind == Step::Kind::Kernel)
      maxShared[s.kernel.kernel] =
          std::max(maxShared[s.kernel.kernel], s.kernel.sharedBytes);
  for (size_t i = 0; i < maxShared.size(); ++i)
    if (maxShared[i] > 48 * 1024)
      DLC_RT_RETURN_IF_ERROR(check(
          cu_->cuFuncSetAttribute(
              functions_[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              int(maxShared[i])),
          "cuFuncSetAttribute", pkg_.kernels[i].name));
  return Status::ok();
}

Status CudaSession::ensureStaging() {
  if (stagingReady_)
    return Status::ok();
  // After a failed allocation the next run allocates only what is missing
  // (the destructor frees what this one got).
  inputBuffers_.resize(pkg_.inputs.size(), 0);
  outputBuffers_.resize(pkg_.outputs.size(), 0);
  for (size_t i = 0; i < pkg_.inputs.size(); ++i)
    if (!inputBuffers_[i])
      DLC_RT_RETURN_IF_ERROR(allocate(inputBuffers_[i],
                                      pkg_.inputs[i].byteSize(),
                                      "input #" + std::to_string(i)));
  for (size_t i = 0; i < pkg_.outputs.size(); ++i)
    if (!outputBuffers_[i])
      DLC_RT_RETURN_IF_ERROR(allocate(outputBuffers_[i],
                                      pkg_.outputs[i].byteSize(),
                                      "output #" + std::to_string(i)));
  stagingReady_ = true;
  return Status::ok();
}

Status CudaSession::enqueueSteps(const std::vector<CUdeviceptr> &in,
                                 const std::vector<CUdeviceptr> &out,
                                 const std::vector<CUevent> *events) {
  auto resolve = [&](const BufferRef &ref) -> CUdeviceptr {
    switch (ref.kind) {
    case BufferRef::Kind::Input:
      return in[ref.index] + ref.offset;
    case BufferRef::Kind::Output:
      return out[ref.index] + ref.offset;
    case BufferRef::Kind::Arena:
      return arena_ + ref.offset;
    case BufferRef::Kind::Constant:
      return constants_ + ref.offset;
    }
    return 0;
  };

  std::vector<CUdeviceptr> argValues;
  std::vector<void *> argPointers;
  for (size_t i = 0; i < pkg_.steps.size(); ++i) {
    const Step &step = pkg_.steps[i];
    if (events)
      DLC_RT_RETURN_IF_ERROR(check(cu_->cuEventRecord((*events)[i], stream_),
                                   "cuEventRecord", describeStep(pkg_, i)));
    switch (step.kind) {
    case Step::Kind::Kernel: {
      const KernelStep &k = step.kernel;
      argValues.resize(k.args.size());
      argPointers.resize(k.args.size());
      for (size_t a = 0; a < k.args.size(); ++a) {
        argValues[a] = resolve(k.args[a]);
        argPointers[a] = &argValues[a];
      }
      // cuLaunchKernel copies the parameter values, so reusing the vectors
      // for the next launch is fine.
      DLC_RT_RETURN_IF_ERROR(check(
          cu_->cuLaunchKernel(
              functions_[k.kernel], k.grid[0], k.grid[1], k.grid[2], k.block[0],
              k.block[1], k.block[2], k.sharedBytes, stream_,
              argPointers.empty() ? nullptr : argPointers.data(), nullptr),
          "cuLaunchKernel", describeStep(pkg_, i)));
      break;
    }
    case Step::Kind::Gemm: {
      const GemmStep &g = step.gemm;
      if (g.m == 0 || g.n == 0)
        break;
      if (g.hasEpilogue()) {
        DLC_RT_RETURN_IF_ERROR(enqueueLtGemm(
            i, resolve(g.a), resolve(g.b), resolve(g.c),
            g.bias ? resolve(*g.bias) : 0, g.addend ? resolve(*g.addend) : 0));
        break;
      }
      DLC_RT_RETURN_IF_ERROR(
          enqueueGemm(i, g, resolve(g.a), resolve(g.b), resolve(g.c)));
      break;
    }
    case Step::Kind::Copy: {
      const CopyStep &c = step.copy;
      if (c.src.bytes == 0)
        break;
      DLC_RT_RETURN_IF_ERROR(
          check(cu_->cuMemcpyDtoDAsync(resolve(c.dst), resolve(c.src),
                                       c.src.bytes, stream_),
                "cuMemcpyDtoDAsync", describeStep(pkg_, i)));
      break;
    }
    }
    if (syncSteps_)
      DLC_RT_RETURN_IF_ERROR(check(cu_->cuStreamSynchronize(stream_),
                                   "cuStreamSynchronize",
                                   describeStep(pkg_, i)));
  }
  if (events)
    DLC_RT_RETURN_IF_ERROR(check(cu_->cuEventRecord(events->back(), stream_),
                                 "cuEventRecord", "the end of the last step"));
  return Status::ok();
}

Status CudaSession::execute(const std::vector<CUdeviceptr> &in,
                            const std::vector<CUdeviceptr> &out) {
  bool useGraph = opts_.useCudaGraph && !syncSteps_ && !pkg_.steps.empty();
  if (!useGraph || runs_ == 0) {
    DLC_RT_RETURN_IF_ERROR(enqueueSteps(in, out));
    ++runs_;
    return Status::ok();
  }
  std::vector<CUdeviceptr> pointers = in;
  pointers.insert(pointers.end(), out.begin(), out.end());
  if (!graph_ || pointers != graphPointers_) {
    if (graph_) {
      cu_->cuGraphExecDestroy(graph_);
      graph_ = nullptr;
    }
    DLC_RT_RETURN_IF_ERROR(check(
        cu_->cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_RELAXED),
        "cuStreamBeginCapture"));
    Status enqueued = enqueueSteps(in, out);
    CUgraph graph = nullptr;
    CUresult ended = cu_->cuStreamEndCapture(stream_, &graph);
    if (!enqueued.isOk()) {
      if (graph)
        cu_->cuGraphDestroy(graph);
      return enqueued;
    }
    DLC_RT_RETURN_IF_ERROR(check(ended, "cuStreamEndCapture"));
    CUresult r = cu_->cuGraphInstantiate(&graph_, graph, 0);
    cu_->cuGraphDestroy(graph);
    if (r != CUDA_SUCCESS) {
      graph_ = nullptr;
      return check(r, "cuGraphInstantiate");
    }
    graphPointers_ = pointers;
  }
  DLC_RT_RETURN_IF_ERROR(
      check(cu_->cuGraphLaunch(graph_, stream_), "cuGraphLaunch"));
  ++runs_;
  return Status::ok();
}

Status CudaSession::synchronize(const std::string &what) {
  CUresult r = cu_->cuStreamSynchronize(stream_);
  if (r == CUDA_SUCCESS)
    return Status::ok();
  std::string msg =
      "cuStreamSynchronize failed after " + what + ": " + cu_->errorName(r);
  if (isStickyError(r) && broken_.empty())
    broken_ = msg;
  if (!syncSteps_)
    msg += " (set DLC_CUDA_SYNC_STEPS=1 to find the failing step)";
  return Status::error(msg);
}

Result<std::vector<HostTensor>>
CudaSession::run(const std::vector<HostTensor> &inputs) {
  DLC_RT_RETURN_IF_ERROR(checkRunInputs(pkg_, inputs));
  DLC_RT_RETURN_IF_ERROR(usable());
  ContextScope scope(cu_, ctx_);
  DLC_RT_RETURN_IF_ERROR(scope.status());
  DLC_RT_RETURN_IF_ERROR(ensureStaging());
  DLC_RT_RETURN_IF_ERROR(uploadInputs(inputs));
  DLC_RT_RETURN_IF_ERROR(execute(inputBuffers_, outputBuffers_));
  std::vector<HostTensor> outputs;
  outputs.reserve(pkg_.outputs.size());
  for (size_t i = 0; i < pkg_.outputs.size(); ++i) {
    outputs.emplace_back(pkg_.outputs[i].dtype, pkg_.outputs[i].shape);
    HostTensor &t = outputs.back();
    if (!t.data.empty())
      DLC_RT_RETURN_IF_ERROR(
          check(cu_->cuMemcpyDtoHAsync(t.data.data(), outputBuffers_[i],
                                       t.data.size(), stream_),
                "cuMemcpyDtoHAsync", "output #" + std::to_string(i)));
  }
  DLC_RT_RETURN_IF_ERROR(synchronize("running the package"));
  return outputs;
}

Status CudaSession::uploadInputs(const std::vector<HostTensor> &inputs) {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].data.empty())
      DLC_RT_RETURN_IF_ERROR(
          check(cu_->cuMemcpyHtoDAsync(inputBuffers_[i], inputs[i].data.data(),
                                       inputs[i].data.size(), stream_),
                "cuMemcpyHtoDAsync", "input #" + std::to_string(i)));
  return Status::ok();
}

Result<std::vector<StepProfile>>
CudaSession::profile(const std::vector<HostTensor> &inputs,
                     unsigned iterations) {
  DLC_RT_RETURN_IF_ERROR(checkRunInputs(pkg_, inputs));
  DLC_RT_RETURN_IF_ERROR(usable());
  ContextScope scope(cu_, ctx_);
  DLC_RT_RETURN_IF_ERROR(scope.status());
  DLC_RT_RETURN_IF_ERROR(ensureStaging());
  DLC_RT_RETURN_IF_ERROR(uploadInputs(inputs));
  // A warm-up run of direct launches: cuBLAS finishes its lazy setup and
  // the first launch of each kernel loads it, outside the measurements.
  DLC_RT_RETURN_IF_ERROR(enqueueSteps(inputBuffers_, outputBuffers_));
  DLC_RT_RETURN_IF_ERROR(synchronize("the profiling warm-up run"));

  // Events around every step of direct launches (a graph would time the
  // whole replay only), destroyed however the profile ends.
  struct Events {
    const CudaDriver *cu;
    std::vector<CUevent> list;
    ~Events() {
      for (CUevent e : list)
        cu->cuEventDestroy(e);
    }
  } events{cu_, {}};
  for (size_t i = 0; i <= pkg_.steps.size(); ++i) {
    CUevent e = nullptr;
    DLC_RT_RETURN_IF_ERROR(check(cu_->cuEventCreate(&e, CU_EVENT_DEFAULT),
                                 "cuEventCreate", "profiling"));
    events.list.push_back(e);
  }
  std::vector<std::vector<double>> times(pkg_.steps.size());
  for (unsigned r = 0; r < std::max(1u, iterations); ++r) {
    DLC_RT_RETURN_IF_ERROR(
        enqueueSteps(inputBuffers_, outputBuffers_, &events.list));
    DLC_RT_RETURN_IF_ERROR(synchronize("a profiled run"));
    for (size_t i = 0; i < pkg_.steps.size(); ++i) {
      float ms = 0;
      DLC_RT_RETURN_IF_ERROR(check(
          cu_->cuEventElapsedTime(&ms, events.list[i], events.list[i + 1]),
          "cuEventElapsedTime", describeStep(pkg_, i)));
      times[i].push_back(ms);
    }
  }
  return summarizeProfile(pkg_, std::move(times));
}

bool CudaSession::graphPending(const std::vector<CUdeviceptr> &in,
                               const std::vector<CUdeviceptr> &out) const {
  if (!usesCudaGraph() || pkg_.steps.empty())
    return false;
  if (runs_ == 0 || !graph_)
    return true;
  std::vector<CUdeviceptr> pointers = in;
  pointers.insert(pointers.end(), out.begin(), out.end());
  return pointers != graphPointers_;
}

Result<std::vector<double>>
CudaSession::benchmark(const std::vector<HostTensor> &inputs, unsigned warmup,
                       unsigned iterations) {
  if (iterations == 0)
    return Status::error("benchmark: at least one timed run is needed");
  DLC_RT_RETURN_IF_ERROR(checkRunInputs(pkg_, inputs));
  DLC_RT_RETURN_IF_ERROR(usable());
  ContextScope scope(cu_, ctx_);
  DLC_RT_RETURN_IF_ERROR(scope.status());
  DLC_RT_RETURN_IF_ERROR(ensureStaging());
  DLC_RT_RETURN_IF_ERROR(uploadInputs(inputs));
  for (unsigned i = 0; i < warmup; ++i)
    DLC_RT_RETURN_IF_ERROR(execute(inputBuffers_, outputBuffers_));
  // A session's first run launches directly and its second captures the
  // graph: run until the graph for the staging buffers exists, so that no
  // timed run includes a capture (two runs at most).
  for (int extra = 0; extra < 2 && graphPending(inputBuffers_, outputBuffers_);
       ++extra)
    DLC_RT_RETURN_IF_ERROR(execute(inputBuffers_, outputBuffers_));
  DLC_RT_RETURN_IF_ERROR(synchronize("the benchmark's warm-up runs"));

  // A start and an end event per run, destroyed however the benchmark ends.
  struct Events {
    const CudaDriver *cu;
    std::vector<CUevent> list;
    ~Events() {
      for (CUevent e : list)
        cu->cuEventDestroy(e);
    }
  } events{cu_, {}};
  events.list.reserve(2 * size_t(iterations));
  for (size_t i = 0; i < 2 * size_t(iterations); ++i) {
    CUevent e = nullptr;
    DLC_RT_RETURN_IF_ERROR(check(cu_->cuEventCreate(&e, CU_EVENT_DEFAULT),
                                 "cuEventCreate", "the benchmark"));
    events.list.push_back(e);
  }
  // Enqueued back to back, so the GPU never waits for the host between
  // runs; each run's time is its own events' difference.
  for (unsigned r = 0; r < iterations; ++r) {
    const std::string what = "benchmark run " + std::to_string(r + 1);
    DLC_RT_RETURN_IF_ERROR(
        check(cu_->cuEventRecord(events.list[2 * r], stream_), "cuEventRecord",
              what));
    DLC_RT_RETURN_IF_ERROR(execute(inputBuffers_, outputBuffers_));
    DLC_RT_RETURN_IF_ERROR(
        check(cu_->cuEventRecord(events.list[2 * r + 1], stream_),
              "cuEventRecord", what));
  }
  DLC_RT_RETURN_IF_ERROR(synchronize("the benchmark runs"));
  std::vector<double> times;
  times.reserve(iterations);
  for (unsigned r = 0; r < iterations; ++r) {
    float ms = 0;
    DLC_RT_RETURN_IF_ERROR(
        check(cu_->cuEventElapsedTime(&ms, events.list[2 * r],
                                      events.list[2 * r + 1]),
              "cuEventElapsedTime", "benchmark run " + std::to_string(r + 1)));
    times.push_back(ms);
  }
  return times;
}

Status CudaSession::runOnDevice(const std::vector<const void *> &inputs,
                                const std::vector<void *> &outputs) {
  if (inputs.size() != pkg_.inputs.size() ||
      outputs.size() != pkg_.outputs.size())
    return Status::error("runOnDevice: expected " +
                         std::to_string(pkg_.inputs.size()) + " inputs and " +
                         std::to_string(pkg_.outputs.size()) +
                         " outputs, got " + std::to_string(inputs.size()) +
                         " and " + std::to_string(outputs.size()));
  std::vector<CUdeviceptr> in, out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i] && pkg_.inputs[i].byteSize() > 0)
      return Status::error("runOnDevice: input #" + std::to_string(i) +
                           " is a null pointer");
    in.push_back(CUdeviceptr(reinterpret_cast<uintptr_t>(inputs[i])));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i] && pkg_.outputs[i].byteSize() > 0)
      return Status::error("runOnDevice: output #" + std::to_string(i) +
                           " is a null pointer");
    out.push_back(CUdeviceptr(reinterpret_cast<uintptr_t>(outputs[i])));
  }
  DLC_RT_RETURN_IF_ERROR(usable());
  ContextScope scope(cu_, ctx_);
  DLC_RT_RETURN_IF_ERROR(scope.status());
  DLC_RT_RETURN_IF_ERROR(execute(in, out));
  return synchronize("running the package");
}

} // namespace

Result<std::unique_ptr<Session>>
createCudaSession(const Package &package, const SessionOptions &options) {
  std::string why;
  if (!cudaAvailable(&why))
    return Status::error("no CUDA GPU: " + why + " (use --device=sim)");
  auto session =
      std::make_unique<CudaSession>(package, options, loadCudaDriver(nullptr));
  DLC_RT_RETURN_IF_ERROR(session->init());
  return std::unique_ptr<Session>(std::move(session));
}

} // namespace dlc::rt
