//===- CudaLibs.cpp - The CUDA driver, NVRTC and cuBLAS via dlopen --------===//

#include "runtime/CudaLibs.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

#ifndef DLC_CUDA_ROOT
#define DLC_CUDA_ROOT "/usr/local/cuda"
#endif

#define DLC_STRINGIFY2(x) #x
/// Stringizes after macro expansion: DLC_STRINGIFY(cuMemAlloc) is
/// "cuMemAlloc_v2".
#define DLC_STRINGIFY(x) DLC_STRINGIFY2(x)

namespace dlc::rt {

std::vector<std::string> cudaLibraryCandidates(const std::string &soname) {
  std::vector<std::string> out = {soname};
  std::vector<std::string> roots;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *v = std::getenv(var))
      if (*v)
        roots.push_back(v);
  roots.push_back(DLC_CUDA_ROOT);
  roots.push_back("/usr/local/cuda");
  for (const std::string &root : roots) {
    std::string path = root + "/lib64/" + soname;
    bool seen = false;
    for (const std::string &o : out)
      seen |= o == path;
    if (!seen)
      out.push_back(path);
  }
  return out;
}

/// Opens the first candidate that loads; `what` names the library in errors.
static void *openFirst(const std::vector<std::string> &candidates, int flags,
                       const std::string &what, std::string &error) {
  std::string firstError;
  for (const std::string &c : candidates) {
    if (void *h = ::dlopen(c.c_str(), flags))
      return h;
    if (firstError.empty())
      if (const char *e = ::dlerror())
        firstError = e;
  }
  error = what + " not found";
  // A library that exists but fails to load (wrong architecture, missing
  // dependency) deserves its loader message.
  if (!firstError.empty() &&
      firstError.find("No such file") == std::string::npos &&
      firstError.find("cannot open shared object") == std::string::npos)
    error += " (" + firstError + ")";
  return nullptr;
}

template <typename T>
static bool resolve(void *handle, const char *name, T &slot,
                    const std::string &library, std::string &error) {
  void *sym = ::dlsym(handle, name);
  if (!sym) {
    error = library + " lacks " + name + " (too old?)";
    return false;
  }
  slot = reinterpret_cast<T>(sym);
  return true;
}

/// Names of the results a driver that cannot name them (a stub) gives.
static const char *fallbackErrorName(CUresult result) {
  switch (result) {
#define DLC_CASE(name)                                                         \
  case name:                                                                   \
    return #name;
    DLC_CASE(CUDA_ERROR_INVALID_VALUE)
    DLC_CASE(CUDA_ERROR_OUT_OF_MEMORY)
    DLC_CASE(CUDA_ERROR_NOT_INITIALIZED)
    DLC_CASE(CUDA_ERROR_DEINITIALIZED)
    DLC_CASE(CUDA_ERROR_STUB_LIBRARY)
    DLC_CASE(CUDA_ERROR_NO_DEVICE)
    DLC_CASE(CUDA_ERROR_INVALID_DEVICE)
    DLC_CASE(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    DLC_CASE(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    DLC_CASE(CUDA_ERROR_INVALID_IMAGE)
    DLC_CASE(CUDA_ERROR_INVALID_CONTEXT)
    DLC_CASE(CUDA_ERROR_NO_BINARY_FOR_GPU)
    DLC_CASE(CUDA_ERROR_NOT_FOUND)
    DLC_CASE(CUDA_ERROR_ILLEGAL_ADDRESS)
    DLC_CASE(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    DLC_CASE(CUDA_ERROR_LAUNCH_FAILED)
#undef DLC_CASE
  default:
    return nullptr;
  }
}

std::string CudaDriver::errorName(CUresult result) const {
  const char *name = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  if (const char *fallback = fallbackErrorName(result))
    return fallback;
  return "CUDA error " + std::to_string(int(result));
}

std::string Cublas::statusName(cublasStatus_t status) const {
  if (getStatusName)
    if (const char *name = getStatusName(status))
      return name;
  return "cuBLAS status " + std::to_string(int(status));
}

bool openCudaDriverLibrary(const std::string &path, CudaDriver &driver,
                           std::string &error, void **handle) {
  void *h = openFirst({path}, RTLD_NOW | RTLD_LOCAL, path, error);
  if (!h)
    return false;
  if (handle)
    *handle = h;
#define DLC_RESOLVE(fn)                                                        \
  if (!resolve(h, DLC_STRINGIFY(fn), driver.fn, path, error))                  \
    return false;
  DLC_CUDA_DRIVER_FUNCTIONS(DLC_RESOLVE)
#undef DLC_RESOLVE
  return true;
}

const CudaDriver *loadCudaDriver(std::string *why) {
  static CudaDriver driver;
  static std::string error;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string path = "libcuda.so.1";
    if (const char *override = std::getenv("DLC_CUDA_DRIVER_LIB"))
      if (*override)
        path = override;
    ok = openCudaDriverLibrary(path, driver, error);
  });
  if (!ok) {
    if (why)
      *why = error;
    return nullptr;
  }
  return &driver;
}

const Nvrtc *loadNvrtc(std::string *why) {
  static Nvrtc nvrtc;
  static std::string error;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<std::string> candidates = cudaLibraryCandidates("libnvrtc.so.13");
    for (const std::string &c : cudaLibraryCandidates("libnvrtc.so"))
      candidates.push_back(c);
    void *h = openFirst(candidates, RTLD_NOW | RTLD_LOCAL, "libnvrtc.so.13",
                        error);
    if (!h)
      return;
#define DLC_RESOLVE(fn)                                                        \
  if (!resolve(h, DLC_STRINGIFY(fn), nvrtc.fn, "libnvrtc", error))             \
    return;
    DLC_NVRTC_FUNCTIONS(DLC_RESOLVE)
#undef DLC_RESOLVE
    if (nvrtc.nvrtcVersion(&nvrtc.major, &nvrtc.minor) != NVRTC_SUCCESS) {
      error = "nvrtcVersion failed";
      return;
    }
    ok = true;
  });
  if (!ok) {
    if (why)
      *why = error;
    return nullptr;
  }
  return &nvrtc;
}

const Cublas *loadCublas(std::string *why) {
  static Cublas blas;
  static std::string error;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] {
    // libcublas needs libcublasLt; load it first from the same places so the
    // dependency resolves even when the toolkit is not on the loader path.
    std::string ltError;
    openFirst(cudaLibraryCandidates("libcublasLt.so.13"),
              RTLD_NOW | RTLD_GLOBAL, "libcublasLt.so.13", ltError);
    void *h = openFirst(cudaLibraryCandidates("libcublas.so.13"),
                        RTLD_NOW | RTLD_LOCAL, "libcublas.so.13", error);
    if (!h)
      return;
    const std::string lib = "libcublas.so.13";
    if (!resolve(h, "cublasCreate_v2", blas.create, lib, error) ||
        !resolve(h, "cublasDestroy_v2", blas.destroy, lib, error) ||
        !resolve(h, "cublasSetStream_v2", blas.setStream, lib, error) ||
        !resolve(h, "cublasSetWorkspace_v2", blas.setWorkspace, lib, error) ||
        !resolve(h, "cublasSetMathMode", blas.setMathMode, lib, error) ||
        !resolve(h, "cublasGetStatusName", blas.getStatusName, lib, error) ||
        !resolve(h, "cublasGemmStridedBatchedEx", blas.gemmStridedBatchedEx,
                 lib, error))
      return;
    ok = true;
  });
  if (!ok) {
    if (why)
      *why = error;
    return nullptr;
  }
  return &blas;
}

} // namespace dlc::rt
