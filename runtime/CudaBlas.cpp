//===- CudaBlas.cpp - GEMM steps on cuBLAS and cuBLASLt -------------------===//
//
// Plain products run as one cublasGemmStridedBatchedEx each; those with a
// bias, an addend or an activation, and FP8 products (E4M3 operands, whose
// per-tensor scales are static and multiply alpha: the same product as
// cuBLASLt's A and B scale pointers without device scalars to keep), as
// one cublasLtMatmul, whose descriptors
// are made once per step and whose algorithm is chosen once per step and
// combination of operand alignments. Without an algorithm the step's own
// epilogue kernel runs after a plain product (StepExecutor.cpp). cuBLAS and
// cuBLASLt share one workspace, allocated before any graph capture.
//
//===----------------------------------------------------------------------===//

#include "runtime/CudaDevice.h"
#include "runtime/RuntimeImpl.h"

namespace dlc::rt {
namespace {

/// 32 MiB is what cuBLAS recommends on Hopper; a user-owned workspace also
/// keeps cuBLAS from allocating during graph capture.
constexpr size_t kCublasWorkspaceBytes = 32u << 20;

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
  case DType::F8E4M3:
    return CUDA_R_8F_E4M3;
  default:
    return CUDA_R_32F;
  }
}

/// The cuBLAS compute type of a GEMM step: f32 accumulation, with f32
/// operands rounded to TF32 on tensor cores when the step allows it.
cublasComputeType_t computeTypeOf(const GemmStep &g) {
  return g.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

} // namespace

Status CudaBlas::checkLt(cublasStatus_t st, const char *call,
                         const std::string &what) const {
  if (st == CUBLAS_STATUS_SUCCESS)
    return Status::ok();
  return Status::error(std::string(call) + " failed" +
                       (what.empty() ? "" : " for " + what) + ": " +
                       lt_->statusName(st));
}

Status CudaBlas::ensureWorkspace() {
  if (workspace_)
    return Status::ok();
  return ctx_.allocate(workspace_, kCublasWorkspaceBytes,
                       "the cuBLAS workspace");
}

void CudaBlas::release() {
  if (blasHandle_)
    blas_->destroy(blasHandle_);
  blasHandle_ = nullptr;
  for (LtGemm &l : ltGemms_) {
    for (cublasLtMatrixLayout_t layout : {l.a, l.b, l.cd})
      if (layout)
        lt_->cublasLtMatrixLayoutDestroy(layout);
    if (l.desc)
      lt_->cublasLtMatmulDescDestroy(l.desc);
  }
  ltGemms_.clear();
  if (ltPreference_)
    lt_->cublasLtMatmulPreferenceDestroy(ltPreference_);
  ltPreference_ = nullptr;
  if (ltHandle_)
    lt_->cublasLtDestroy(ltHandle_);
  ltHandle_ = nullptr;
  if (workspace_)
    ctx_.cu->cuMemFree(workspace_);
  workspace_ = 0;
}

Status CudaBlas::initBlas() {
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
  DLC_RT_RETURN_IF_ERROR(ensureWorkspace());
  const char *call = "cublasSetStream";
  st = blas_->setStream(blasHandle_, ctx_.stream);
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

Status CudaBlas::initLt() {
  std::string why;
  lt_ = loadCublasLt(&why);
  if (!lt_)
    return Status::error("the package has GEMM steps with epilogues but "
                         "cuBLASLt is not available: " +
                         why);
  // One workspace serves cuBLAS and cuBLASLt: their calls are ordered on
  // the stream. Allocated now, never during a graph capture.
  DLC_RT_RETURN_IF_ERROR(ensureWorkspace());
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
    if (step.kind != Step::Kind::Gemm || !step.gemm.usesLt())
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
    // An FP8 product's C and D (and bias) are of its result type; cuBLASLt
    // wants its A transposed and its B not ("TN"), which dlc-assign-precision
    // arranges (transpose_b, not transpose_a).
    cudaDataType type = cudaTypeOf(g.dtype), cType = cudaTypeOf(g.outType());
    if (g.isFp8() && !(g.transB && !g.transA))
      return Status::error(what + ": an FP8 GEMM needs B transposed and A "
                                  "not (cuBLASLt's TN layout)");
    if (g.isFp8() && g.bias) {
      int32_t biasType = cType;
      DLC_RT_RETURN_IF_ERROR(
          checkLt(lt_->cublasLtMatmulDescSetAttribute(
                      l.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType,
                      sizeof(biasType)),
                  "cublasLtMatmulDescSetAttribute", what));
    }
    DLC_RT_RETURN_IF_ERROR(makeLtLayout(l.a, type, g.transB ? g.k : g.n,
                                        g.transB ? g.n : g.k, g.ldb, g.strideB,
                                        g.batch, what));
    DLC_RT_RETURN_IF_ERROR(makeLtLayout(l.b, type, g.transA ? g.m : g.k,
                                        g.transA ? g.k : g.m, g.lda, g.strideA,
                                        g.batch, what));
    DLC_RT_RETURN_IF_ERROR(
        makeLtLayout(l.cd, cType, g.n, g.m, g.ldc, g.strideC, g.batch, what));
  }
  return Status::ok();
}

Status CudaBlas::makeLtLayout(cublasLtMatrixLayout_t &layout, cudaDataType type,
                              int64_t rows, int64_t cols, int64_t ld,
                              int64_t stride, int64_t batch,
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

Result<bool> CudaBlas::ltGemm(size_t i, const GemmOperands &ops) {
  const GemmStep &g = pkg_.steps[i].gemm;
  CUdeviceptr a = ops.a, b = ops.b, c = ops.c, bias = ops.bias,
              addend = ops.addend;
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
        return false;
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
      return false;
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
  // FP8 scales are 1 on other products.
  float alpha = float(g.alpha * g.scaleA * g.scaleB), beta = float(g.beta);
  DLC_RT_RETURN_IF_ERROR(checkLt(
      lt_->cublasLtMatmul(ltHandle_, l.desc, &alpha, ptr(ltA), l.a, ptr(ltB),
                          l.b, &beta, ptr(ltC), l.cd, ptr(ltD), l.cd, algo,
                          ptr(workspace_), kCublasWorkspaceBytes, ctx_.stream),
      "cublasLtMatmul", what));
  return true;
}

Status CudaBlas::gemm(size_t i, const GemmStep &g, CUdeviceptr a, CUdeviceptr b,
                      CUdeviceptr c) {
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

} // namespace dlc::rt
