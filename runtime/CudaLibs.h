//===- CudaLibs.h - The CUDA driver, NVRTC and cuBLAS via dlopen --*- C++
//-*-===//
//
// dlc never links a CUDA library: like Triton's launcher and IREE's dynamic
// symbol tables, it opens libcuda.so.1, libnvrtc.so.13, libcublas.so.13 and
// libcublasLt.so.13 at run time and resolves each entry point by name, so
// one binary runs on machines with and without a GPU. Internal to the
// runtime (and its tests).
//
// cuda.h renames versioned entry points with macros (cuMemAlloc ->
// cuMemAlloc_v2); the tables below go through the same macros, so the
// member `cuMemAlloc` and the symbol looked up are the _v2 ones.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_CUDALIBS_H
#define DLC_RUNTIME_CUDALIBS_H

#include <cublasLt.h>
#include <cublas_api.h>
#include <cuda.h>
#include <cudnn.h>
#include <nvrtc.h>

#include "runtime/FaultInjection.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace dlc::rt {

// The entry points, one row each:
//   X(function, injected error, fault mode, resource, delta)
// `injected error` is what the call returns when its fault site (the
// function's name, runtime/FaultInjection.h) fires: the error that API
// really returns in that situation. The mode says how the fault behaves
// (detail::FaultMode); a successful call changes the live count of
// `resource` by `delta` (liveCudaObjects()), so tests see leaks.
#define DLC_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuInit, CUDA_ERROR_NO_DEVICE, Before, None, 0)                             \
  X(cuDriverGetVersion, CUDA_ERROR_INVALID_VALUE, Before, None, 0)             \
  X(cuGetErrorName, CUDA_ERROR_INVALID_VALUE, Before, None, 0)                 \
  X(cuGetErrorString, CUDA_ERROR_INVALID_VALUE, Before, None, 0)               \
  X(cuDeviceGetCount, CUDA_ERROR_NOT_INITIALIZED, Before, None, 0)             \
  X(cuDeviceGet, CUDA_ERROR_INVALID_DEVICE, Before, None, 0)                   \
  X(cuDeviceGetName, CUDA_ERROR_INVALID_DEVICE, Before, None, 0)               \
  X(cuDeviceGetAttribute, CUDA_ERROR_INVALID_DEVICE, Before, None, 0)          \
  X(cuDeviceTotalMem, CUDA_ERROR_INVALID_DEVICE, Before, None, 0)              \
  X(cuDevicePrimaryCtxRetain, CUDA_ERROR_OUT_OF_MEMORY, Before, Context, 1)    \
  X(cuDevicePrimaryCtxRelease, CUDA_ERROR_INVALID_DEVICE, After, Context, -1)  \
  X(cuCtxPushCurrent, CUDA_ERROR_INVALID_CONTEXT, Before, PushedContext, 1)    \
  X(cuCtxPopCurrent, CUDA_ERROR_INVALID_CONTEXT, After, PushedContext, -1)     \
  X(cuModuleLoadData, CUDA_ERROR_INVALID_IMAGE, Before, Module, 1)             \
  X(cuModuleUnload, CUDA_ERROR_INVALID_HANDLE, After, Module, -1)              \
  X(cuModuleGetFunction, CUDA_ERROR_NOT_FOUND, Before, None, 0)                \
  X(cuFuncSetAttribute, CUDA_ERROR_INVALID_VALUE, Before, None, 0)             \
  X(cuLaunchKernel, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, Launch, None, 0)       \
  X(cuMemAlloc, CUDA_ERROR_OUT_OF_MEMORY, Before, Allocation, 1)               \
  X(cuMemFree, CUDA_ERROR_INVALID_VALUE, After, Allocation, -1)                \
  X(cuMemcpyHtoD, CUDA_ERROR_INVALID_VALUE, Before, None, 0)                   \
  X(cuMemcpyHtoDAsync, CUDA_ERROR_INVALID_VALUE, Before, None, 0)              \
  X(cuMemcpyDtoHAsync, CUDA_ERROR_INVALID_VALUE, Before, None, 0)              \
  X(cuMemcpyDtoDAsync, CUDA_ERROR_INVALID_VALUE, Before, None, 0)              \
  X(cuStreamCreate, CUDA_ERROR_OUT_OF_MEMORY, Before, Stream, 1)               \
  X(cuStreamDestroy, CUDA_ERROR_INVALID_HANDLE, After, Stream, -1)             \
  X(cuStreamSynchronize, CUDA_ERROR_LAUNCH_FAILED, Synchronize, None, 0)       \
  X(cuStreamBeginCapture, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, Before, None, \
    0)                                                                         \
  X(cuStreamEndCapture, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, EndCapture,     \
    Graph, 1)                                                                  \
  X(cuGraphInstantiate, CUDA_ERROR_OUT_OF_MEMORY, Before, GraphExec, 1)        \
  X(cuGraphLaunch, CUDA_ERROR_INVALID_VALUE, Launch, None, 0)                  \
  X(cuGraphExecDestroy, CUDA_ERROR_INVALID_VALUE, After, GraphExec, -1)        \
  X(cuGraphDestroy, CUDA_ERROR_INVALID_VALUE, After, Graph, -1)                \
  X(cuEventCreate, CUDA_ERROR_OUT_OF_MEMORY, Before, Event, 1)                 \
  X(cuEventDestroy, CUDA_ERROR_INVALID_HANDLE, After, Event, -1)               \
  X(cuEventRecord, CUDA_ERROR_INVALID_HANDLE, Before, None, 0)                 \
  X(cuEventElapsedTime, CUDA_ERROR_INVALID_HANDLE, Before, None, 0)

// nvrtcGetErrorString returns a string: its fault returns null.
#define DLC_NVRTC_FUNCTIONS(X)                                                 \
  X(nvrtcVersion, NVRTC_ERROR_INTERNAL_ERROR, Before, None, 0)                 \
  X(nvrtcGetErrorString, nullptr, Before, None, 0)                             \
  X(nvrtcCreateProgram, NVRTC_ERROR_OUT_OF_MEMORY, Before, NvrtcProgram, 1)    \
  X(nvrtcDestroyProgram, NVRTC_ERROR_INVALID_PROGRAM, After, NvrtcProgram, -1) \
  X(nvrtcCompileProgram, NVRTC_ERROR_COMPILATION, Before, None, 0)             \
  X(nvrtcGetProgramLogSize, NVRTC_ERROR_INVALID_PROGRAM, Before, None, 0)      \
  X(nvrtcGetProgramLog, NVRTC_ERROR_INVALID_PROGRAM, Before, None, 0)          \
  X(nvrtcGetCUBINSize, NVRTC_ERROR_INVALID_INPUT, Before, None, 0)             \
  X(nvrtcGetCUBIN, NVRTC_ERROR_INVALID_INPUT, Before, None, 0)

// cuBLAS: X(member of Cublas, symbol, fault site, injected status, mode,
// resource, delta). cublasGetStatusName returns a string: its fault returns
// null.
#define DLC_CUBLAS_FUNCTIONS(X)                                                \
  X(create, cublasCreate_v2, cublasCreate, CUBLAS_STATUS_NOT_INITIALIZED,      \
    Before, CublasHandle, 1)                                                   \
  X(destroy, cublasDestroy_v2, cublasDestroy, CUBLAS_STATUS_NOT_INITIALIZED,   \
    After, CublasHandle, -1)                                                   \
  X(setStream, cublasSetStream_v2, cublasSetStream,                            \
    CUBLAS_STATUS_NOT_INITIALIZED, Before, None, 0)                            \
  X(setWorkspace, cublasSetWorkspace_v2, cublasSetWorkspace,                   \
    CUBLAS_STATUS_INVALID_VALUE, Before, None, 0)                              \
  X(setMathMode, cublasSetMathMode, cublasSetMathMode,                         \
    CUBLAS_STATUS_INVALID_VALUE, Before, None, 0)                              \
  X(getStatusName, cublasGetStatusName, cublasGetStatusName, nullptr, Before,  \
    None, 0)                                                                   \
  X(gemmStridedBatchedEx, cublasGemmStridedBatchedEx,                          \
    cublasGemmStridedBatchedEx, CUBLAS_STATUS_EXECUTION_FAILED, Before, None,  \
    0)

// cuBLASLt (GEMMs with epilogues): X(function, injected status, mode,
// resource, delta), as for the driver; the fault site is the function's
// name. cublasLtGetStatusName returns a string: its fault returns null.
#define DLC_CUBLASLT_FUNCTIONS(X)                                              \
  X(cublasLtCreate, CUBLAS_STATUS_NOT_INITIALIZED, Before, CublasLtHandle, 1)  \
  X(cublasLtDestroy, CUBLAS_STATUS_NOT_INITIALIZED, After, CublasLtHandle, -1) \
  X(cublasLtGetStatusName, nullptr, Before, None, 0)                           \
  X(cublasLtMatmulDescCreate, CUBLAS_STATUS_ALLOC_FAILED, Before,              \
    CublasLtDescriptor, 1)                                                     \
  X(cublasLtMatmulDescDestroy, CUBLAS_STATUS_INVALID_VALUE, After,             \
    CublasLtDescriptor, -1)                                                    \
  X(cublasLtMatmulDescSetAttribute, CUBLAS_STATUS_INVALID_VALUE, Before, None, \
    0)                                                                         \
  X(cublasLtMatrixLayoutCreate, CUBLAS_STATUS_ALLOC_FAILED, Before,            \
    CublasLtDescriptor, 1)                                                     \
  X(cublasLtMatrixLayoutDestroy, CUBLAS_STATUS_INVALID_VALUE, After,           \
    CublasLtDescriptor, -1)                                                    \
  X(cublasLtMatrixLayoutSetAttribute, CUBLAS_STATUS_INVALID_VALUE, Before,     \
    None, 0)                                                                   \
  X(cublasLtMatmulPreferenceCreate, CUBLAS_STATUS_ALLOC_FAILED, Before,        \
    CublasLtDescriptor, 1)                                                     \
  X(cublasLtMatmulPreferenceDestroy, CUBLAS_STATUS_INVALID_VALUE, After,       \
    CublasLtDescriptor, -1)                                                    \
  X(cublasLtMatmulPreferenceSetAttribute, CUBLAS_STATUS_INVALID_VALUE, Before, \
    None, 0)                                                                   \
  X(cublasLtMatmulAlgoGetHeuristic, CUBLAS_STATUS_NOT_SUPPORTED, Before, None, \
    0)                                                                         \
  X(cublasLtMatmul, CUBLAS_STATUS_EXECUTION_FAILED, Before, None, 0)

// cuDNN 9's convolution API (libcudnn.so.9; the legacy convolution calls
// are deprecated there but kept, and are what a fixed convolution with a
// fused bias, residual and relu needs): X(function, injected status, mode,
// resource, delta), the fault site the function's name. cudnnGetErrorString
// returns a string: its fault returns null.
#define DLC_CUDNN_FUNCTIONS(X)                                                 \
  X(cudnnGetVersion, size_t(0), Before, None, 0)                               \
  X(cudnnGetErrorString, nullptr, Before, None, 0)                             \
  X(cudnnCreate, CUDNN_STATUS_NOT_INITIALIZED, Before, CudnnHandle, 1)         \
  X(cudnnDestroy, CUDNN_STATUS_BAD_PARAM, After, CudnnHandle, -1)              \
  X(cudnnSetStream, CUDNN_STATUS_BAD_PARAM, Before, None, 0)                   \
  X(cudnnCreateTensorDescriptor, CUDNN_STATUS_ALLOC_FAILED, Before,            \
    CudnnDescriptor, 1)                                                        \
  X(cudnnDestroyTensorDescriptor, CUDNN_STATUS_BAD_PARAM, After,               \
    CudnnDescriptor, -1)                                                       \
  X(cudnnSetTensor4dDescriptor, CUDNN_STATUS_BAD_PARAM, Before, None, 0)       \
  X(cudnnCreateFilterDescriptor, CUDNN_STATUS_ALLOC_FAILED, Before,            \
    CudnnDescriptor, 1)                                                        \
  X(cudnnDestroyFilterDescriptor, CUDNN_STATUS_BAD_PARAM, After,               \
    CudnnDescriptor, -1)                                                       \
  X(cudnnSetFilter4dDescriptor, CUDNN_STATUS_BAD_PARAM, Before, None, 0)       \
  X(cudnnCreateConvolutionDescriptor, CUDNN_STATUS_ALLOC_FAILED, Before,       \
    CudnnDescriptor, 1)                                                        \
  X(cudnnDestroyConvolutionDescriptor, CUDNN_STATUS_BAD_PARAM, After,          \
    CudnnDescriptor, -1)                                                       \
  X(cudnnSetConvolution2dDescriptor, CUDNN_STATUS_BAD_PARAM, Before, None, 0)  \
  X(cudnnSetConvolutionGroupCount, CUDNN_STATUS_BAD_PARAM, Before, None, 0)    \
  X(cudnnSetConvolutionMathType, CUDNN_STATUS_BAD_PARAM, Before, None, 0)      \
  X(cudnnCreateActivationDescriptor, CUDNN_STATUS_ALLOC_FAILED, Before,        \
    CudnnDescriptor, 1)                                                        \
  X(cudnnDestroyActivationDescriptor, CUDNN_STATUS_BAD_PARAM, After,           \
    CudnnDescriptor, -1)                                                       \
  X(cudnnSetActivationDescriptor, CUDNN_STATUS_BAD_PARAM, Before, None, 0)     \
  X(cudnnGetConvolutionForwardAlgorithm_v7, CUDNN_STATUS_NOT_SUPPORTED,        \
    Before, None, 0)                                                           \
  X(cudnnGetConvolutionForwardWorkspaceSize, CUDNN_STATUS_NOT_SUPPORTED,       \
    Before, None, 0)                                                           \
  X(cudnnConvolutionForward, CUDNN_STATUS_EXECUTION_FAILED, Before, None, 0)   \
  X(cudnnConvolutionBiasActivationForward, CUDNN_STATUS_EXECUTION_FAILED,      \
    Before, None, 0)

/// Objects the CUDA libraries hand out, counted through the entry points
/// (successful acquisitions minus successful releases), process-wide.
struct LiveCudaObjects {
  int64_t contexts = 0;       ///< primary context retains
  int64_t pushedContexts = 0; ///< cuCtxPushCurrent without a pop
  int64_t streams = 0;
  int64_t modules = 0;
  int64_t allocations = 0;
  int64_t graphs = 0;
  int64_t graphExecs = 0;
  int64_t events = 0; ///< cuEventCreate without a destroy (profiling)
  int64_t nvrtcPrograms = 0;
  int64_t cublasHandles = 0;
  int64_t cublasLtHandles = 0;
  /// cuBLASLt matmul, matrix layout and preference descriptors.
  int64_t cublasLtDescriptors = 0;
  int64_t cudnnHandles = 0;
  /// cuDNN tensor, filter, convolution and activation descriptors.
  int64_t cudnnDescriptors = 0;
  bool operator==(const LiveCudaObjects &o) const;
  bool operator!=(const LiveCudaObjects &o) const { return !(*this == o); }
  /// "2 allocations, 1 module" (only the nonzero counts), for messages.
  std::string describe() const;
};
LiveCudaObjects liveCudaObjects();

namespace detail {

enum class Resource : uint8_t {
  None,
  Context,
  PushedContext,
  Stream,
  Module,
  Allocation,
  Graph,
  GraphExec,
  Event,
  NvrtcProgram,
  CublasHandle,
  CublasLtHandle,
  CublasLtDescriptor,
  CudnnHandle,
  CudnnDescriptor,
};

/// What an armed fault site of an entry point does.
enum class FaultMode : uint8_t {
  /// The call does not happen; it returns the injected error.
  Before,
  /// The call happens (a release still releases), then returns the injected
  /// error: the runtime sees the failure without the test seeing a leak the
  /// fault itself caused.
  After,
  /// Like Before; besides, when the "kernel-fault" site fires the launch
  /// happens and the next cuStreamSynchronize returns
  /// CUDA_ERROR_ILLEGAL_ADDRESS, as after a kernel that faulted on the GPU.
  Launch,
  /// Like Before, and reports a kernel fault pending from a launch.
  Synchronize,
  /// cuStreamEndCapture: the capture ends and its graph is destroyed (a real
  /// invalidated capture yields no graph), then the injected error returns.
  EndCapture,
};

void countResource(Resource resource, int delta);
/// The kernel fault a "kernel-fault" launch left for the next
/// synchronization; CUDA_SUCCESS if none. Taking it clears it.
CUresult takePendingKernelFault();
void setPendingKernelFault(CUresult result);
/// Destroys `graph` through the driver `table` (a CudaDriver).
void destroyGraph(const void *table, CUgraph graph);

template <typename R> constexpr R successOf() {
  if constexpr (std::is_pointer_v<R>)
    return nullptr;
  else
    return R(0); // CUDA_SUCCESS, NVRTC_SUCCESS, CUBLAS_STATUS_SUCCESS
}

} // namespace detail

/// One entry point of a library opened with dlopen. Calls look like calls
/// of the function itself; they go through its fault site (the fast path is
/// one relaxed atomic load when no fault is armed) and count the objects it
/// creates or releases.
template <typename Fn> class Entry;
template <typename R, typename... Args> class Entry<R (*)(Args...)> {
public:
  using Pointer = R (*)(Args...);

  void bind(void *symbol, const char *site, R injected, detail::FaultMode mode,
            detail::Resource resource, int delta, const void *table) {
    fn_ = reinterpret_cast<Pointer>(symbol);
    site_ = site;
    injected_ = injected;
    mode_ = mode;
    resource_ = resource;
    delta_ = int8_t(delta);
    table_ = table;
  }

  R operator()(Args... args) const {
    if (fault::detail::gState.load(std::memory_order_relaxed) != 0)
      return callArmed(args...);
    return finish(fn_(args...));
  }

  explicit operator bool() const { return fn_ != nullptr; }
  friend bool operator==(const Entry &e, std::nullptr_t) { return !e.fn_; }
  friend bool operator!=(const Entry &e, std::nullptr_t) { return e.fn_; }
  /// The fault site: the API's name without version suffix ("cuMemAlloc").
  const char *site() const { return site_; }

private:
  R finish(R r) const {
    if (resource_ != detail::Resource::None && r == detail::successOf<R>())
      detail::countResource(resource_, delta_);
    return r;
  }

  R callArmed(Args... args) const {
    using detail::FaultMode;
    if constexpr (std::is_same_v<R, CUresult>) {
      if (mode_ == FaultMode::Synchronize)
        if (CUresult pending = detail::takePendingKernelFault())
          return pending;
    }
    if (!fault::shouldFail(site_))
      return launchOrFinish(args...);
    switch (mode_) {
    case FaultMode::After:
      (void)finish(fn_(args...));
      return injected_;
    case FaultMode::EndCapture:
      if constexpr (std::is_same_v<Pointer, decltype(&::cuStreamEndCapture)>) {
        if (finish(fn_(args...)) == CUDA_SUCCESS)
          discardGraph(args...);
      }
      return injected_;
    default:
      return injected_;
    }
  }

  R launchOrFinish(Args... args) const {
    R r = finish(fn_(args...));
    if constexpr (std::is_same_v<R, CUresult>) {
      if (mode_ == detail::FaultMode::Launch && r == CUDA_SUCCESS &&
          fault::shouldFail("kernel-fault"))
        detail::setPendingKernelFault(CUDA_ERROR_ILLEGAL_ADDRESS);
    }
    return r;
  }

  void discardGraph(CUstream, CUgraph *graph) const {
    if (graph && *graph) {
      detail::destroyGraph(table_, *graph);
      *graph = nullptr;
    }
  }
  template <typename... T> void discardGraph(T...) const {}

  Pointer fn_ = nullptr;
  const char *site_ = "";
  R injected_ = detail::successOf<R>();
  detail::FaultMode mode_ = detail::FaultMode::Before;
  detail::Resource resource_ = detail::Resource::None;
  int8_t delta_ = 0;
  const void *table_ = nullptr;
};

#define DLC_DECLARE_ENTRY(fn, error, mode, resource, delta)                    \
  Entry<decltype(&::fn)> fn;

struct CudaDriver {
  DLC_CUDA_DRIVER_FUNCTIONS(DLC_DECLARE_ENTRY)
  /// "CUDA_ERROR_ILLEGAL_ADDRESS".
  std::string errorName(CUresult result) const;
};

struct Nvrtc {
  DLC_NVRTC_FUNCTIONS(DLC_DECLARE_ENTRY)
  int major = 0, minor = 0;
  /// "NVRTC_ERROR_COMPILATION".
  std::string errorString(nvrtcResult result) const;
};

/// cuBLAS declares some entry points twice (C++ overloads), so the table
/// spells out its types.
struct Cublas {
  Entry<cublasStatus_t (*)(cublasHandle_t *)> create;
  Entry<cublasStatus_t (*)(cublasHandle_t)> destroy;
  Entry<cublasStatus_t (*)(cublasHandle_t, cudaStream_t)> setStream;
  Entry<cublasStatus_t (*)(cublasHandle_t, void *, size_t)> setWorkspace;
  Entry<cublasStatus_t (*)(cublasHandle_t, cublasMath_t)> setMathMode;
  Entry<const char *(*)(cublasStatus_t)> getStatusName;
  Entry<cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                           int, int, int, const void *, const void *,
                           cudaDataType, int, long long int, const void *,
                           cudaDataType, int, long long int, const void *,
                           void *, cudaDataType, int, long long int, int,
                           cublasComputeType_t, cublasGemmAlgo_t)>
      gemmStridedBatchedEx;
  /// "CUBLAS_STATUS_EXECUTION_FAILED".
  std::string statusName(cublasStatus_t status) const;
};

struct CublasLt {
  DLC_CUBLASLT_FUNCTIONS(DLC_DECLARE_ENTRY)
  /// "CUBLAS_STATUS_NOT_SUPPORTED".
  std::string statusName(cublasStatus_t status) const;
};

// The legacy convolution API is deprecated in cuDNN 9 (its types too).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct Cudnn {
  DLC_CUDNN_FUNCTIONS(DLC_DECLARE_ENTRY)
  /// "CUDNN_STATUS_NOT_SUPPORTED".
  std::string statusName(cudnnStatus_t status) const;
};
#pragma GCC diagnostic pop

#undef DLC_DECLARE_ENTRY

/// Each loader opens its library once per process (thread-safe) and returns
/// the table, or null with `why` set ("libcuda.so.1 not found").
/// $DLC_CUDA_DRIVER_LIB and $DLC_CUBLAS_LIB override the driver and cuBLAS
/// library paths, $DLC_CUBLASLT_LIB the cuBLASLt one (for tests with the
/// toolkit's stub library or the fake driver of test/runtime/FakeCuda.cpp).
/// The fault sites libcuda-missing, libnvrtc-missing, libcublas-missing and
/// libcublaslt-missing make a loader fail as if its library were not
/// installed; such a failure is not cached.
const CudaDriver *loadCudaDriver(std::string *why);
/// Opens `path` (not cached) and resolves every driver entry point into
/// `driver`; false with `error` set when the library or a symbol is missing.
/// `handle`, when given, receives the dlopen handle (for dlclose).
bool openCudaDriverLibrary(const std::string &path, CudaDriver &driver,
                           std::string &error, void **handle = nullptr);
const Nvrtc *loadNvrtc(std::string *why);
const Cublas *loadCublas(std::string *why);
const CublasLt *loadCublasLt(std::string *why);
/// cuDNN 9 (libcudnn.so.9, or $DLC_CUDNN_LIB); the fault site
/// libcudnn-missing makes it fail as if it were not installed.
const Cudnn *loadCudnn(std::string *why);

/// Where a CUDA library is looked for: its soname (the dynamic loader's
/// search path) first, then the CUDA toolkit's lib64 directories.
std::vector<std::string> cudaLibraryCandidates(const std::string &soname);

} // namespace dlc::rt

#endif // DLC_RUNTIME_CUDALIBS_H
