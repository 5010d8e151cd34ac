//===- CudaLibs.h - The CUDA driver, NVRTC and cuBLAS via dlopen --*- C++ -*-===//
//
// dlc never links a CUDA library: like Triton's launcher and IREE's dynamic
// symbol tables, it opens libcuda.so.1, libnvrtc.so.13 and libcublas.so.13
// at run time and resolves each entry point by name, so one binary runs on
// machines with and without a GPU. Internal to the runtime (and its tests).
//
// cuda.h renames versioned entry points with macros (cuMemAlloc ->
// cuMemAlloc_v2); the tables below go through the same macros, so the
// member `cuMemAlloc` and the symbol looked up are the _v2 ones.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_CUDALIBS_H
#define DLC_RUNTIME_CUDALIBS_H

#include <cublas_api.h>
#include <cuda.h>
#include <nvrtc.h>

#include <string>
#include <vector>

namespace dlc::rt {

#define DLC_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuModuleLoadData)                                                          \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiate)                                                        \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)

#define DLC_NVRTC_FUNCTIONS(X)                                                 \
  X(nvrtcVersion)                                                              \
  X(nvrtcGetErrorString)                                                       \
  X(nvrtcCreateProgram)                                                        \
  X(nvrtcDestroyProgram)                                                       \
  X(nvrtcCompileProgram)                                                       \
  X(nvrtcGetProgramLogSize)                                                    \
  X(nvrtcGetProgramLog)                                                        \
  X(nvrtcGetCUBINSize)                                                         \
  X(nvrtcGetCUBIN)

#define DLC_DECLARE_ENTRY(fn) decltype(&::fn) fn = nullptr;

struct CudaDriver {
  DLC_CUDA_DRIVER_FUNCTIONS(DLC_DECLARE_ENTRY)
  /// "CUDA_ERROR_ILLEGAL_ADDRESS".
  std::string errorName(CUresult result) const;
};

struct Nvrtc {
  DLC_NVRTC_FUNCTIONS(DLC_DECLARE_ENTRY)
  int major = 0, minor = 0;
};

/// cuBLAS declares some entry points twice (C++ overloads), so the table
/// spells out its types.
struct Cublas {
  cublasStatus_t (*create)(cublasHandle_t *) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*setStream)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*setWorkspace)(cublasHandle_t, void *, size_t) = nullptr;
  cublasStatus_t (*setMathMode)(cublasHandle_t, cublasMath_t) = nullptr;
  const char *(*getStatusName)(cublasStatus_t) = nullptr;
  cublasStatus_t (*gemmStridedBatchedEx)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
      const void *, const void *, cudaDataType, int, long long int,
      const void *, cudaDataType, int, long long int, const void *, void *,
      cudaDataType, int, long long int, int, cublasComputeType_t,
      cublasGemmAlgo_t) = nullptr;
  /// "CUBLAS_STATUS_EXECUTION_FAILED".
  std::string statusName(cublasStatus_t status) const;
};

#undef DLC_DECLARE_ENTRY

/// Each loader opens its library once per process (thread-safe) and returns
/// the table, or null with `why` set ("libcuda.so.1 not found").
/// $DLC_CUDA_DRIVER_LIB overrides the driver library path (for tests with
/// the toolkit's stub library).
const CudaDriver *loadCudaDriver(std::string *why);
/// Opens `path` (not cached) and resolves every driver entry point into
/// `driver`; false with `error` set when the library or a symbol is missing.
/// `handle`, when given, receives the dlopen handle (for dlclose).
bool openCudaDriverLibrary(const std::string &path, CudaDriver &driver,
                           std::string &error, void **handle = nullptr);
const Nvrtc *loadNvrtc(std::string *why);
const Cublas *loadCublas(std::string *why);

/// Where a CUDA library is looked for: its soname (the dynamic loader's
/// search path) first, then the CUDA toolkit's lib64 directories.
std::vector<std::string> cudaLibraryCandidates(const std::string &soname);

} // namespace dlc::rt

#endif // DLC_RUNTIME_CUDALIBS_H
