//===- CudaLibs.cpp - The CUDA driver, NVRTC, cuBLAS(Lt) via dlopen -------===//

#include "runtime/CudaLibs.h"

#include <atomic>
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

/// Resolves `symbol` into `slot`, an Entry, with its fault site and what it
/// counts.
template <typename E, typename R>
static bool resolveEntry(void *handle, const char *symbol, E &slot,
                         const char *site, R injected, detail::FaultMode mode,
                         detail::Resource resource, int delta,
                         const void *table, const std::string &library,
                         std::string &error) {
  void *sym = ::dlsym(handle, symbol);
  if (!sym) {
    error = library + " lacks " + symbol + " (too old?)";
    return false;
  }
  slot.bind(sym, site, injected, mode, resource, delta, table);
  return true;
}

//===----------------------------------------------------------------------===//
// Live objects and pending kernel faults
//===----------------------------------------------------------------------===//

namespace {
constexpr int kResourceKinds = int(detail::Resource::CudnnDescriptor) + 1;
std::atomic<int64_t> gLive[kResourceKinds];
std::atomic<int> gPendingKernelFault{CUDA_SUCCESS};
} // namespace

void detail::countResource(Resource resource, int delta) {
  gLive[int(resource)].fetch_add(delta, std::memory_order_relaxed);
}

CUresult detail::takePendingKernelFault() {
  return CUresult(gPendingKernelFault.exchange(CUDA_SUCCESS));
}

void detail::setPendingKernelFault(CUresult result) {
  gPendingKernelFault.store(result);
}

void detail::destroyGraph(const void *table, CUgraph graph) {
  static_cast<const CudaDriver *>(table)->cuGraphDestroy(graph);
}

LiveCudaObjects liveCudaObjects() {
  auto get = [](detail::Resource r) { return gLive[int(r)].load(); };
  using detail::Resource;
  LiveCudaObjects o;
  o.contexts = get(Resource::Context);
  o.pushedContexts = get(Resource::PushedContext);
  o.streams = get(Resource::Stream);
  o.modules = get(Resource::Module);
  o.allocations = get(Resource::Allocation);
  o.graphs = get(Resource::Graph);
  o.graphExecs = get(Resource::GraphExec);
  o.events = get(Resource::Event);
  o.nvrtcPrograms = get(Resource::NvrtcProgram);
  o.cublasHandles = get(Resource::CublasHandle);
  o.cublasLtHandles = get(Resource::CublasLtHandle);
  o.cublasLtDescriptors = get(Resource::CublasLtDescriptor);
  o.cudnnHandles = get(Resource::CudnnHandle);
  o.cudnnDescriptors = get(Resource::CudnnDescriptor);
  return o;
}

bool LiveCudaObjects::operator==(const LiveCudaObjects &o) const {
  return contexts == o.contexts && pushedContexts == o.pushedContexts &&
         streams == o.streams && modules == o.modules &&
         allocations == o.allocations && graphs == o.graphs &&
         graphExecs == o.graphExecs && events == o.events &&
         nvrtcPrograms == o.nvrtcPrograms && cublasHandles == o.cublasHandles &&
         cublasLtHandles == o.cublasLtHandles &&
         cublasLtDescriptors == o.cublasLtDescriptors &&
         cudnnHandles == o.cudnnHandles &&
         cudnnDescriptors == o.cudnnDescriptors;
}

std::string LiveCudaObjects::describe() const {
  std::string out;
  auto add = [&](int64_t n, const char *what) {
    if (n == 0)
      return;
    if (!out.empty())
      out += ", ";
    out += std::to_string(n) + " " + what;
  };
  add(contexts, "context retains");
  add(pushedContexts, "pushed contexts");
  add(streams, "streams");
  add(modules, "modules");
  add(allocations, "allocations");
  add(graphs, "graphs");
  add(graphExecs, "graph execs");
  add(events, "events");
  add(nvrtcPrograms, "NVRTC programs");
  add(cublasHandles, "cuBLAS handles");
  add(cublasLtHandles, "cuBLASLt handles");
  add(cublasLtDescriptors, "cuBLASLt descriptors");
  add(cudnnHandles, "cuDNN handles");
  add(cudnnDescriptors, "cuDNN descriptors");
  return out.empty() ? "none" : out;
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

std::string Nvrtc::errorString(nvrtcResult result) const {
  if (nvrtcGetErrorString)
    if (const char *s = nvrtcGetErrorString(result))
      return s;
  switch (result) {
#define DLC_CASE(name)                                                         \
  case name:                                                                   \
    return #name;
    DLC_CASE(NVRTC_SUCCESS)
    DLC_CASE(NVRTC_ERROR_OUT_OF_MEMORY)
    DLC_CASE(NVRTC_ERROR_PROGRAM_CREATION_FAILURE)
    DLC_CASE(NVRTC_ERROR_INVALID_INPUT)
    DLC_CASE(NVRTC_ERROR_INVALID_PROGRAM)
    DLC_CASE(NVRTC_ERROR_INVALID_OPTION)
    DLC_CASE(NVRTC_ERROR_COMPILATION)
    DLC_CASE(NVRTC_ERROR_INTERNAL_ERROR)
#undef DLC_CASE
  default:
    return "NVRTC error " + std::to_string(int(result));
  }
}

/// Names of the cuBLAS statuses, for a library that cannot name them.
static std::string fallbackStatusName(cublasStatus_t status) {
  switch (status) {
#define DLC_CASE(name)                                                         \
  case name:                                                                   \
    return #name;
    DLC_CASE(CUBLAS_STATUS_SUCCESS)
    DLC_CASE(CUBLAS_STATUS_NOT_INITIALIZED)
    DLC_CASE(CUBLAS_STATUS_ALLOC_FAILED)
    DLC_CASE(CUBLAS_STATUS_INVALID_VALUE)
    DLC_CASE(CUBLAS_STATUS_ARCH_MISMATCH)
    DLC_CASE(CUBLAS_STATUS_EXECUTION_FAILED)
    DLC_CASE(CUBLAS_STATUS_INTERNAL_ERROR)
    DLC_CASE(CUBLAS_STATUS_NOT_SUPPORTED)
#undef DLC_CASE
  default:
    return "cuBLAS status " + std::to_string(int(status));
  }
}

std::string Cublas::statusName(cublasStatus_t status) const {
  if (getStatusName)
    if (const char *name = getStatusName(status))
      return name;
  return fallbackStatusName(status);
}

std::string CublasLt::statusName(cublasStatus_t status) const {
  if (cublasLtGetStatusName)
    if (const char *name = cublasLtGetStatusName(status))
      return name;
  return fallbackStatusName(status);
}

bool openCudaDriverLibrary(const std::string &path, CudaDriver &driver,
                           std::string &error, void **handle) {
  void *h = openFirst({path}, RTLD_NOW | RTLD_LOCAL, path, error);
  if (!h)
    return false;
  if (handle)
    *handle = h;
#define DLC_RESOLVE(fn, injected, mode, resource, delta)                       \
  if (!resolveEntry(h, DLC_STRINGIFY(fn), driver.fn, #fn, injected,            \
                    detail::FaultMode::mode, detail::Resource::resource,       \
                    delta, &driver, path, error))                              \
    return false;
  DLC_CUDA_DRIVER_FUNCTIONS(DLC_RESOLVE)
#undef DLC_RESOLVE
  return true;
}

/// A library path from the environment, or `fallback`.
static std::string libraryOverride(const char *var, const char *fallback) {
  if (const char *v = std::getenv(var))
    if (*v)
      return v;
  return fallback;
}

const CudaDriver *loadCudaDriver(std::string *why) {
  static CudaDriver driver;
  static std::string error;
  static bool ok = false;
  static std::once_flag once;
  // Checked on every call, before the cached outcome: an injected failure
  // is never remembered.
  if (fault::shouldFail("libcuda-missing")) {
    if (why)
      *why =
          libraryOverride("DLC_CUDA_DRIVER_LIB", "libcuda.so.1") + " not found";
    return nullptr;
  }
  std::call_once(once, [] {
    ok = openCudaDriverLibrary(
        libraryOverride("DLC_CUDA_DRIVER_LIB", "libcuda.so.1"), driver, error);
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
  static bool opened = false;
  static std::once_flag once;
  static std::mutex versionMutex;
  static std::atomic<bool> ok{false};
  if (fault::shouldFail("libnvrtc-missing")) {
    if (why)
      *why = "libnvrtc.so.13 not found";
    return nullptr;
  }
  std::call_once(once, [] {
    std::vector<std::string> candidates =
        cudaLibraryCandidates("libnvrtc.so.13");
    for (const std::string &c : cudaLibraryCandidates("libnvrtc.so"))
      candidates.push_back(c);
    void *h =
        openFirst(candidates, RTLD_NOW | RTLD_LOCAL, "libnvrtc.so.13", error);
    if (!h)
      return;
#define DLC_RESOLVE(fn, injected, mode, resource, delta)                       \
  if (!resolveEntry(h, DLC_STRINGIFY(fn), nvrtc.fn, #fn, injected,             \
                    detail::FaultMode::mode, detail::Resource::resource,       \
                    delta, &nvrtc, "libnvrtc", error))                         \
    return;
    DLC_NVRTC_FUNCTIONS(DLC_RESOLVE)
#undef DLC_RESOLVE
    opened = true;
  });
  if (!opened) {
    if (why)
      *why = error;
    return nullptr;
  }
  if (!ok.load()) {
    // Not part of the once-only loading: a failed version query is not
    // remembered.
    std::lock_guard<std::mutex> lock(versionMutex);
    if (!ok.load()) {
      nvrtcResult r = nvrtc.nvrtcVersion(&nvrtc.major, &nvrtc.minor);
      if (r != NVRTC_SUCCESS) {
        if (why)
          *why = "nvrtcVersion failed: " + nvrtc.errorString(r);
        return nullptr;
      }
      ok = true;
    }
  }
  return &nvrtc;
}

const Cublas *loadCublas(std::string *why) {
  static Cublas blas;
  static std::string error;
  static bool ok = false;
  static std::once_flag once;
  if (fault::shouldFail("libcublas-missing")) {
    if (why)
      *why =
          libraryOverride("DLC_CUBLAS_LIB", "libcublas.so.13") + " not found";
    return nullptr;
  }
  std::call_once(once, [] {
    std::string path = libraryOverride("DLC_CUBLAS_LIB", "");
    void *h = nullptr;
    if (!path.empty()) {
      h = openFirst({path}, RTLD_NOW | RTLD_LOCAL, path, error);
    } else {
      // libcublas needs libcublasLt; load it first from the same places so
      // the dependency resolves even when the toolkit is not on the loader
      // path.
      std::string ltError;
      openFirst(cudaLibraryCandidates("libcublasLt.so.13"),
                RTLD_NOW | RTLD_GLOBAL, "libcublasLt.so.13", ltError);
      path = "libcublas.so.13";
      h = openFirst(cudaLibraryCandidates(path), RTLD_NOW | RTLD_LOCAL, path,
                    error);
    }
    if (!h)
      return;
#define DLC_RESOLVE(member, symbol, site, injected, mode, resource, delta)     \
  if (!resolveEntry(h, #symbol, blas.member, #site, injected,                  \
                    detail::FaultMode::mode, detail::Resource::resource,       \
                    delta, &blas, path, error))                                \
    return;
    DLC_CUBLAS_FUNCTIONS(DLC_RESOLVE)
#undef DLC_RESOLVE
    ok = true;
  });
  if (!ok) {
    if (why)
      *why = error;
    return nullptr;
  }
  return &blas;
}

const CublasLt *loadCublasLt(std::string *why) {
  static CublasLt lt;
  static std::string error;
  static bool ok = false;
  static std::once_flag once;
  if (fault::shouldFail("libcublaslt-missing")) {
    if (why)
      *why = libraryOverride("DLC_CUBLASLT_LIB", "libcublasLt.so.13") +
             " not found";
    return nullptr;
  }
  std::call_once(once, [] {
    std::string path = libraryOverride("DLC_CUBLASLT_LIB", "");
    void *h = nullptr;
    if (!path.empty()) {
      h = openFirst({path}, RTLD_NOW | RTLD_LOCAL, path, error);
    } else {
      path = "libcublasLt.so.13";
      h = openFirst(cudaLibraryCandidates(path), RTLD_NOW | RTLD_LOCAL, path,
                    error);
    }
    if (!h)
      return;
#define DLC_RESOLVE(fn, injected, mode, resource, delta)                       \
  if (!resolveEntry(h, #fn, lt.fn, #fn, injected, detail::FaultMode::mode,     \
                    detail::Resource::resource, delta, &lt, path, error))      \
    return;
    DLC_CUBLASLT_FUNCTIONS(DLC_RESOLVE)
#undef DLC_RESOLVE
    ok = true;
  });
  if (!ok) {
    if (why)
      *why = error;
    return nullptr;
  }
  return &lt;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
std::string Cudnn::statusName(cudnnStatus_t status) const {
  const char *name =
      cudnnGetErrorString ? cudnnGetErrorString(status) : nullptr;
  return name ? name : "cuDNN status " + std::to_string(int(status));
}

const Cudnn *loadCudnn(std::string *why) {
  static Cudnn dnn;
  static std::string error;
  static bool ok = false;
  static std::once_flag once;
  if (fault::shouldFail("libcudnn-missing")) {
    if (why)
      *why = libraryOverride("DLC_CUDNN_LIB", "libcudnn.so.9") + " not found";
    return nullptr;
  }
  std::call_once(once, [] {
    std::string path = libraryOverride("DLC_CUDNN_LIB", "");
    void *h = nullptr;
    if (!path.empty()) {
      h = openFirst({path}, RTLD_NOW | RTLD_LOCAL, path, error);
    } else {
      path = "libcudnn.so.9";
      h = openFirst(cudaLibraryCandidates(path), RTLD_NOW | RTLD_LOCAL, path,
                    error);
    }
    if (!h)
      return;
#define DLC_RESOLVE(fn, injected, mode, resource, delta)                       \
  if (!resolveEntry(h, #fn, dnn.fn, #fn, injected, detail::FaultMode::mode,    \
                    detail::Resource::resource, delta, &dnn, path, error))     \
    return;
    DLC_CUDNN_FUNCTIONS(DLC_RESOLVE)
#undef DLC_RESOLVE
    ok = true;
  });
  if (!ok) {
    if (why)
      *why = error;
    return nullptr;
  }
  return &dnn;
}
#pragma GCC diagnostic pop

} // namespace dlc::rt
