//===- CudaDnn.cpp - Convolution steps on cuDNN ---------------------------===//
//
// A convolution step (channels-last, a KRSC filter, an optional bias,
// residual and relu) is one cuDNN call: cudnnConvolutionForward, or
// cudnnConvolutionBiasActivationForward for one with an epilogue (y =
// act(conv(x) + z + bias), z the residual, on the implicit precomputed
// GEMM). Every step's descriptors and algorithm (for a plain one the first
// of cuDNN's heuristics, cudnnGetConvolutionForwardAlgorithm_v7, that
// cuDNN can run) are made when the session starts, so a
// run only enqueues, and one workspace serves every step: their calls are
// ordered on the stream. f32 steps run in exact f32 (CUDNN_FMA_MATH) unless
// they allow TF32 (--precision=tf32), f16 and bf16 ones on tensor cores with
// f32 accumulation. cuDNN's legacy convolution API is deprecated in cuDNN 9
// but is what a fused convolution with a residual needs; the graph API is
// the way forward (docs/fusion.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/CudaDevice.h"
#include "runtime/Runtime.h"
#include "runtime/RuntimeImpl.h"

#include <array>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace dlc::rt {
namespace {

cudnnDataType_t cudnnTypeOf(DType t) {
  switch (t) {
  case DType::F16:
    return CUDNN_DATA_HALF;
  case DType::BF16:
    return CUDNN_DATA_BFLOAT16;
  default:
    return CUDNN_DATA_FLOAT;
  }
}

/// cuDNN takes sizes as int: a step validatePackage accepted may still
/// have larger ones.
bool fitsInt(int64_t v) { return v >= 0 && v <= INT32_MAX; }

} // namespace

Status CudaDnn::check(cudnnStatus_t st, const char *call, size_t step) const {
  if (st == CUDNN_STATUS_SUCCESS)
    return Status::ok();
  return Status::error(describeStep(pkg_, step) + ": " + call +
                       " failed: " + dnn_->statusName(st));
}

Status CudaDnn::prepare(size_t i, Conv &c) {
  const ConvStep &s = pkg_.steps[i].conv;
  for (int64_t v : {s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.p, s.q, s.groups,
                    s.strideH, s.strideW, s.padH, s.padW, s.dilH, s.dilW})
    if (!fitsInt(v))
      return Status::error(describeStep(pkg_, i) + ": a convolution size of " +
                           std::to_string(v) + " is beyond cuDNN's int sizes");
  cudnnDataType_t type = cudnnTypeOf(s.dtype);
  DLC_RT_RETURN_IF_ERROR(check(dnn_->cudnnCreateTensorDescriptor(&c.x),
                               "cudnnCreateTensorDescriptor", i));
  DLC_RT_RETURN_IF_ERROR(check(
      dnn_->cudnnSetTensor4dDescriptor(c.x, CUDNN_TENSOR_NHWC, type, int(s.n),
                                       int(s.c), int(s.h), int(s.w)),
      "cudnnSetTensor4dDescriptor", i));
  DLC_RT_RETURN_IF_ERROR(check(dnn_->cudnnCreateTensorDescriptor(&c.y),
                               "cudnnCreateTensorDescriptor", i));
  DLC_RT_RETURN_IF_ERROR(check(
      dnn_->cudnnSetTensor4dDescriptor(c.y, CUDNN_TENSOR_NHWC, type, int(s.n),
                                       int(s.k), int(s.p), int(s.q)),
      "cudnnSetTensor4dDescriptor", i));
  DLC_RT_RETURN_IF_ERROR(check(dnn_->cudnnCreateFilterDescriptor(&c.filter),
                               "cudnnCreateFilterDescriptor", i));
  DLC_RT_RETURN_IF_ERROR(check(dnn_->cudnnSetFilter4dDescriptor(
                                   c.filter, type, CUDNN_TENSOR_NHWC, int(s.k),
                                   int(s.c / s.groups), int(s.r), int(s.s)),
                               "cudnnSetFilter4dDescriptor", i));
  DLC_RT_RETURN_IF_ERROR(check(dnn_->cudnnCreateConvolutionDescriptor(&c.conv),
                               "cudnnCreateConvolutionDescriptor", i));
  DLC_RT_RETURN_IF_ERROR(check(
      dnn_->cudnnSetConvolution2dDescriptor(
          c.conv, int(s.padH), int(s.padW), int(s.strideH), int(s.strideW),
          int(s.dilH), int(s.dilW), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
      "cudnnSetConvolution2dDescriptor", i));
  DLC_RT_RETURN_IF_ERROR(
      check(dnn_->cudnnSetConvolutionGroupCount(c.conv, int(s.groups)),
            "cudnnSetConvolutionGroupCount", i));
  cudnnMathType_t math = s.dtype != DType::F32 ? CUDNN_TENSOR_OP_MATH
                         : s.tf32              ? CUDNN_DEFAULT_MATH
                                               : CUDNN_FMA_MATH;
  DLC_RT_RETURN_IF_ERROR(check(dnn_->cudnnSetConvolutionMathType(c.conv, math),
                               "cudnnSetConvolutionMathType", i));
  if (s.hasEpilogue()) {
    DLC_RT_RETURN_IF_ERROR(check(dnn_->cudnnCreateTensorDescriptor(&c.bias),
                                 "cudnnCreateTensorDescriptor", i));
    DLC_RT_RETURN_IF_ERROR(
        check(dnn_->cudnnSetTensor4dDescriptor(c.bias, CUDNN_TENSOR_NHWC, type,
                                               1, int(s.k), 1, 1),
              "cudnnSetTensor4dDescriptor", i));
    DLC_RT_RETURN_IF_ERROR(
        check(dnn_->cudnnCreateActivationDescriptor(&c.activation),
              "cudnnCreateActivationDescriptor", i));
    // relu as dlc.max(x, 0): NaN becomes 0.
    DLC_RT_RETURN_IF_ERROR(check(
        dnn_->cudnnSetActivationDescriptor(c.activation,
                                           s.epilogue == GemmEpilogue::Relu
                                               ? CUDNN_ACTIVATION_RELU
                                               : CUDNN_ACTIVATION_IDENTITY,
                                           CUDNN_NOT_PROPAGATE_NAN, 0.0),
        "cudnnSetActivationDescriptor", i));
    if (!s.bias) {
      uint64_t bytes = uint64_t(s.k) * dtypeSize(s.dtype);
      DLC_RT_RETURN_IF_ERROR(
          ctx_.allocate(c.zeroBias, bytes, describeStep(pkg_, i) + "'s bias"));
      std::vector<uint8_t> zeros(bytes, 0);
      DLC_RT_RETURN_IF_ERROR(
          ctx_.check(ctx_.cu->cuMemcpyHtoD(c.zeroBias, zeros.data(), bytes),
                     "cuMemcpyHtoD", describeStep(pkg_, i) + "'s bias"));
    }
  }
  // The fused call takes the implicit precomputed GEMM (the one algorithm
  // it supports with every activation, identity included); a plain
  // convolution the heuristics' first algorithm that runs.
  if (s.hasEpilogue()) {
    c.algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  } else {
    std::array<cudnnConvolutionFwdAlgoPerf_t, 8> perf{};
    int count = 0;
    DLC_RT_RETURN_IF_ERROR(check(dnn_->cudnnGetConvolutionForwardAlgorithm_v7(
                                     handle_, c.x, c.filter, c.conv, c.y,
                                     int(perf.size()), &count, perf.data()),
                                 "cudnnGetConvolutionForwardAlgorithm_v7", i));
    int chosen = -1;
    for (int a = 0; a < count && a < int(perf.size()); ++a)
      if (perf[a].status == CUDNN_STATUS_SUCCESS) {
        chosen = a;
        break;
      }
    if (chosen < 0)
      return Status::error(describeStep(pkg_, i) +
                           ": cuDNN has no algorithm for this convolution "
                           "(compile with --no-library-conv to run it as "
                           "im2col and a GEMM)");
    c.algo = perf[chosen].algo;
  }
  size_t bytes = 0;
  DLC_RT_RETURN_IF_ERROR(check(dnn_->cudnnGetConvolutionForwardWorkspaceSize(
                                   handle_, c.x, c.filter, c.conv, c.y,
                                   cudnnConvolutionFwdAlgo_t(c.algo), &bytes),
                               "cudnnGetConvolutionForwardWorkspaceSize", i));
  c.workspaceBytes = bytes;
  return Status::ok();
}

Status CudaDnn::init() {
  std::string why;
  dnn_ = loadCudnn(&why);
  if (!dnn_)
    return Status::error("the package has convolution steps but cuDNN is not "
                         "available: " +
                         why +
                         " (install cuDNN 9, or compile with --no-library-conv "
                         "to run convolutions as im2col and GEMMs)");
  cudnnHandle_t handle = nullptr;
  cudnnStatus_t st = dnn_->cudnnCreate(&handle);
  if (st != CUDNN_STATUS_SUCCESS)
    return Status::error("cudnnCreate failed: " + dnn_->statusName(st));
  handle_ = handle;
  st = dnn_->cudnnSetStream(handle_,
                            reinterpret_cast<cudaStream_t>(ctx_.stream));
  if (st != CUDNN_STATUS_SUCCESS)
    return Status::error("cudnnSetStream failed: " + dnn_->statusName(st));
  index_.assign(pkg_.steps.size(), -1);
  for (size_t i = 0; i < pkg_.steps.size(); ++i) {
    if (pkg_.steps[i].kind != Step::Kind::Conv)
      continue;
    index_[i] = int(convs_.size());
    convs_.emplace_back();
    DLC_RT_RETURN_IF_ERROR(prepare(i, convs_.back()));
    workspaceBytes_ = std::max(workspaceBytes_, convs_.back().workspaceBytes);
  }
  if (workspaceBytes_)
    DLC_RT_RETURN_IF_ERROR(
        ctx_.allocate(workspace_, workspaceBytes_, "the cuDNN workspace"));
  return Status::ok();
}

void CudaDnn::release() {
  for (Conv &c : convs_) {
    for (cudnnTensorDescriptor_t t : {c.x, c.y, c.bias})
      if (t)
        dnn_->cudnnDestroyTensorDescriptor(t);
    if (c.filter)
      dnn_->cudnnDestroyFilterDescriptor(c.filter);
    if (c.conv)
      dnn_->cudnnDestroyConvolutionDescriptor(c.conv);
    if (c.activation)
      dnn_->cudnnDestroyActivationDescriptor(c.activation);
    if (c.zeroBias)
      ctx_.cu->cuMemFree(c.zeroBias);
  }
  convs_.clear();
  index_.clear();
  if (handle_)
    dnn_->cudnnDestroy(handle_);
  handle_ = nullptr;
  if (workspace_)
    ctx_.cu->cuMemFree(workspace_);
  workspace_ = 0;
  workspaceBytes_ = 0;
}

Status CudaDnn::conv(size_t i, const ConvOperands &ops) {
  if (i >= index_.size() || index_[i] < 0)
    return Status::error(describeStep(pkg_, i) +
                         ": cuDNN was not set up for this step");
  const ConvStep &s = pkg_.steps[i].conv;
  const Conv &c = convs_[index_[i]];
  const float one = 1.0f, zero = 0.0f;
  auto ptr = [](DevicePtr p) { return reinterpret_cast<void *>(p); };
  auto algo = cudnnConvolutionFwdAlgo_t(c.algo);
  if (!s.hasEpilogue())
    return check(dnn_->cudnnConvolutionForward(
                     handle_, &one, c.x, ptr(ops.x), c.filter, ptr(ops.filter),
                     c.conv, algo, ptr(workspace_), workspaceBytes_, &zero, c.y,
                     ptr(ops.y)),
                 "cudnnConvolutionForward", i);
  // y = act(conv(x) + alpha2 * z + bias): z the residual, or y itself with
  // alpha2 = 0.
  const bool residual = s.addend.has_value();
  return check(dnn_->cudnnConvolutionBiasActivationForward(
                   handle_, &one, c.x, ptr(ops.x), c.filter, ptr(ops.filter),
                   c.conv, algo, ptr(workspace_), workspaceBytes_,
                   residual ? &one : &zero, c.y,
                   residual ? ptr(ops.addend) : ptr(ops.y), c.bias,
                   s.bias ? ptr(ops.bias) : ptr(c.zeroBias), c.activation, c.y,
                   ptr(ops.y)),
               "cudnnConvolutionBiasActivationForward", i);
}

Result<std::string> cudnnVersion() {
  std::string why;
  const Cudnn *dnn = loadCudnn(&why);
  if (!dnn)
    return Status::error(why);
  size_t v = dnn->cudnnGetVersion();
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

} // namespace dlc::rt

#pragma GCC diagnostic pop
