//===- FakeCuda.cpp - A fake CUDA driver and cuBLAS for the tests ---------===//
//
// Built as libdlc-fakecuda.so; FakeCuda.h describes what it emulates and
// how tests use it. Everything runs synchronously on the calling thread
// under one lock: an asynchronous operation is done when it is enqueued (or
// recorded into the graph of a capturing stream, and done when the graph is
// launched). Its errors are the driver's asynchronous errors: sticky, and
// reported by the next call, as on a GPU, until the primary context is
// destroyed by its last release. Releases (cuMemFree, cuModuleUnload,
// cuStreamDestroy) still release and succeed under a sticky error, so that
// the runtime's count of live objects stays exact.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"
#include "runtime/SimExecutor.h"

#include <cublasLt.h>
#include <cublas_api.h>
#include <cuda.h>
#include <cudnn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

using dlc::rt::test::FakeCudaStats;
namespace sim = dlc::rt::sim;

//===----------------------------------------------------------------------===//
// Handles: cuda.h declares them as pointers to incomplete structs, which the
// fake defines.
//===----------------------------------------------------------------------===//

struct CUctx_st {
  int device = 0;
  int refcount = 0;
};

struct CUmod_st;

struct CUfunc_st {
  CUmod_st *module = nullptr;
  std::string name;
  sim::EntryFn entry = nullptr; ///< null: recorded, not run
  unsigned params = 0;
  bool usesBarriers = false;
  int maxDynamicShared = 48 * 1024;
};

struct CUmod_st {
  void *library = nullptr;
  std::unique_ptr<sim::Executor> executor;
  std::vector<std::unique_ptr<CUfunc_st>> functions;
  ~CUmod_st() {
    executor.reset();
    if (library)
      ::dlclose(library);
  }
};

/// An operation of a stream or a graph; returns the asynchronous error it
/// causes.
using Op = std::function<CUresult()>;

struct CUgraph_st {
  std::vector<Op> ops;
};

struct CUgraphExec_st {
  std::vector<Op> ops;
};

/// An event records the host clock when the stream reaches it; the fake
/// runs stream work when it is enqueued, so the difference of two records is
/// the time the work between them took.
struct CUevent_st {
  std::chrono::steady_clock::time_point when;
  bool recorded = false;
};

struct CUstream_st {
  std::unique_ptr<CUgraph_st> capture;
  bool captureInvalidated = false;
};

struct cublasContext {
  CUstream stream = nullptr;
  cublasMath_t mathMode = CUBLAS_DEFAULT_MATH;
};

struct cublasLtContext {};

namespace {

constexpr int kMaxDevices = 4;

struct State {
  bool initialized = false;
  int devices = 1, major = 9, minor = 0;
  uint64_t memoryBytes = uint64_t(1) << 30;
  uint64_t usedBytes = 0;
  CUctx_st contexts[kMaxDevices];
  std::map<uintptr_t, size_t> allocations;
  std::set<CUmod_st *> modules;
  std::set<CUfunc_st *> functions;
  std::set<CUstream_st *> streams;
  std::set<CUgraph_st *> graphs;
  std::set<CUgraphExec_st *> graphExecs;
  std::set<CUevent_st *> events;
  std::set<cublasContext *> blasHandles;
  /// The sticky asynchronous error, cleared when the context is destroyed.
  CUresult sticky = CUDA_SUCCESS;
  std::string standIn;
  std::string lastError;
  FakeCudaStats stats;
};

std::recursive_mutex gMutex;
std::atomic<int64_t> gPushed{0};
thread_local std::vector<CUcontext> tContextStack;

State &state() {
  static State s;
  return s;
}

CUresult fail(CUresult r, const std::string &why) {
  state().lastError = why;
  return r;
}

/// An f32 operand as tensor cores read it under
/// CUBLAS_COMPUTE_32F_FAST_TF32: 10 mantissa bits, to nearest with ties
/// away from zero (the rounding the sim's CpuGemm models).
float roundToTf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if ((bits & 0x7f800000u) != 0x7f800000u)
    bits = (bits + 0x1000u) & ~0x1fffu;
  std::memcpy(&x, &bits, 4);
  return x;
}

cublasStatus_t blasFail(cublasStatus_t r, const std::string &why) {
  state().lastError = why;
  return r;
}

/// cuBLASLt's objects: the opaque structs cublasLt.h declares are allocated
/// as handles only; what they describe lives here.
struct LtDesc {
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType scale = CUDA_R_32F;
  int32_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void *bias = nullptr;
  /// CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE; -1: D's type.
  int32_t biasType = -1;
};
struct LtLayout {
  cudaDataType type = CUDA_R_32F;
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int32_t batch = 1;
  int64_t stride = 0;
  bool operator==(const LtLayout &o) const {
    return type == o.type && rows == o.rows && cols == o.cols && ld == o.ld &&
           batch == o.batch && stride == o.stride;
  }
};
struct LtPreference {
  uint64_t maxWorkspace = 0;
  uint32_t alignment[4] = {256, 256, 256, 256}; ///< A, B, C, D
};
struct LtState {
  std::set<cublasLtContext *> handles;
  std::map<const void *, LtDesc> descs;
  std::map<const void *, LtLayout> layouts;
  std::map<const void *, LtPreference> prefs;
};
LtState &ltState() {
  static LtState s;
  return s;
}
/// Marks algorithms made by the fake heuristic (cublasLtMatmulAlgo_t data[0]).
constexpr uint64_t kFakeAlgoMagic = 0x646c632d6c74616cull;

/// Copies an attribute of exactly `size` bytes, as cuBLASLt checks.
template <typename T>
cublasStatus_t setAttr(T &field, const void *buf, size_t size,
                       const char *what) {
  if (!buf || size != sizeof(T))
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    std::string(what) + ": wrong attribute size");
  std::memcpy(&field, buf, sizeof(T));
  return CUBLAS_STATUS_SUCCESS;
}

/// The largest power of two (at most 256) dividing `p`.
uint32_t fakeAlignment(const void *p) {
  uintptr_t v = reinterpret_cast<uintptr_t>(p);
  uintptr_t low = v & (~v + 1);
  return v == 0 || low > 256 ? 256u : uint32_t(low);
}

bool isBiasEpilogue(uint32_t e) {
  return e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_RELU_BIAS ||
         e == CUBLASLT_EPILOGUE_GELU_BIAS;
}

/// Checks a matmul's configuration as cuBLASLt does: known objects,
/// emulated types and epilogues, operand shapes that agree (column-major:
/// D (m x n) = op(A) (m x k) op(B) (k x n)). Sets `why` on failure.
cublasStatus_t checkLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                             cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                             cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                             const char *call) {
  LtState &L = ltState();
  std::string where = call;
  if (!L.handles.count(handle))
    return blasFail(CUBLAS_STATUS_NOT_INITIALIZED, where + ": bad handle");
  if (!L.descs.count(desc) || !L.layouts.count(a) || !L.layouts.count(b) ||
      !L.layouts.count(c) || !L.layouts.count(d))
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    where + ": bad descriptor or layout");
  const LtDesc &o = L.descs[desc];
  const LtLayout &la = L.layouts[a], &lb = L.layouts[b], &lc = L.layouts[c],
                 &ld = L.layouts[d];
  // FP8 (E4M3 A and B, bf16 or f16 C and D, f32 compute) as cuBLASLt
  // runs it on sm_89 and sm_90: A transposed and B not ("TN"), their
  // leading dimensions multiples of 16, a bias of C's type or bf16.
  const bool fp8 = la.type == CUDA_R_8F_E4M3;
  if (fp8) {
    if (lb.type != CUDA_R_8F_E4M3 || lc.type != ld.type ||
        (ld.type != CUDA_R_16BF && ld.type != CUDA_R_16F) ||
        o.compute != CUBLAS_COMPUTE_32F || o.scale != CUDA_R_32F ||
        (o.biasType != -1 && o.biasType != ld.type &&
         o.biasType != CUDA_R_16BF))
      return blasFail(CUBLAS_STATUS_NOT_SUPPORTED,
                      where + ": FP8 types not supported");
    if (o.transa != CUBLAS_OP_T || o.transb != CUBLAS_OP_N)
      return blasFail(CUBLAS_STATUS_NOT_SUPPORTED,
                      where + ": FP8 needs A transposed and B not (TN)");
    if (la.ld % 16 != 0 || lb.ld % 16 != 0)
      return blasFail(CUBLAS_STATUS_NOT_SUPPORTED,
                      where + ": FP8 leading dimensions must be multiples "
                              "of 16");
  } else if ((o.compute != CUBLAS_COMPUTE_32F &&
              !(o.compute == CUBLAS_COMPUTE_32F_FAST_TF32 &&
                la.type == CUDA_R_32F)) ||
             o.scale != CUDA_R_32F || la.type != lb.type ||
             la.type != lc.type || la.type != ld.type ||
             (la.type != CUDA_R_32F && la.type != CUDA_R_16F &&
              la.type != CUDA_R_16BF) ||
             (o.biasType != -1 && o.biasType != ld.type))
    return blasFail(CUBLAS_STATUS_NOT_SUPPORTED,
                    where + ": types not emulated");
  switch (o.epilogue) {
  case CUBLASLT_EPILOGUE_DEFAULT:
  case CUBLASLT_EPILOGUE_RELU:
  case CUBLASLT_EPILOGUE_GELU:
  case CUBLASLT_EPILOGUE_BIAS:
  case CUBLASLT_EPILOGUE_RELU_BIAS:
  case CUBLASLT_EPILOGUE_GELU_BIAS:
    break;
  default:
    return blasFail(CUBLAS_STATUS_NOT_SUPPORTED,
                    where + ": epilogue not emulated");
  }
  if (isBiasEpilogue(o.epilogue) && !o.bias)
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    where + ": a bias epilogue without a bias pointer");
  auto op = [](int32_t t, uint64_t rows, uint64_t cols, bool wantRows) {
    bool n = t == CUBLAS_OP_N;
    return wantRows == n ? rows : cols;
  };
  if ((o.transa != CUBLAS_OP_N && o.transa != CUBLAS_OP_T) ||
      (o.transb != CUBLAS_OP_N && o.transb != CUBLAS_OP_T))
    return blasFail(CUBLAS_STATUS_INVALID_VALUE, where + ": bad transpose");
  uint64_t m = ld.rows, n = ld.cols;
  uint64_t k = op(o.transa, la.rows, la.cols, false);
  if (op(o.transa, la.rows, la.cols, true) != m ||
      op(o.transb, lb.rows, lb.cols, true) != k ||
      op(o.transb, lb.rows, lb.cols, false) != n || !(lc == ld))
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    where + ": operand shapes do not agree");
  for (const LtLayout *l : {&la, &lb, &lc, &ld})
    if (l->ld < int64_t(std::max<uint64_t>(1, l->rows)) || l->batch < 1 ||
        l->stride < 0)
      return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                      where + ": bad leading dimension, batch or stride");
  if (la.batch != ld.batch || lb.batch != ld.batch)
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    where + ": batch counts differ");
  return CUBLAS_STATUS_SUCCESS;
}

#define FAKE_LOCK                                                              \
  std::lock_guard<std::recursive_mutex> lock(gMutex);                          \
  State &S = state();                                                          \
  (void)S
#define FAKE_REQUIRE_INIT                                                      \
  if (!S.initialized)                                                          \
    return fail(CUDA_ERROR_NOT_INITIALIZED,                                    \
                std::string(__func__) + ": cuInit was not called");
#define FAKE_REQUIRE_CONTEXT                                                   \
  FAKE_REQUIRE_INIT                                                            \
  if (tContextStack.empty() || tContextStack.back()->refcount <= 0)            \
    return fail(CUDA_ERROR_INVALID_CONTEXT,                                    \
                std::string(__func__) + ": no current context");
#define FAKE_CHECK_STICKY                                                      \
  if (S.sticky != CUDA_SUCCESS)                                                \
    return S.sticky;

std::string hexPointer(uintptr_t p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)p);
  return buf;
}

/// Whether [p, p + bytes) lies inside one allocation.
bool inAllocation(uintptr_t p, uint64_t bytes) {
  State &S = state();
  auto it = S.allocations.upper_bound(p);
  if (it == S.allocations.begin())
    return false;
  --it;
  return p >= it->first && p - it->first <= it->second &&
         bytes <= it->second - (p - it->first);
}

/// Runs `op` now, or records it when `stream` captures. Its error becomes
/// the sticky error.
CUresult enqueue(CUstream stream, Op op) {
  State &S = state();
  if (stream && stream->capture) {
    stream->capture->ops.push_back(std::move(op));
    return CUDA_SUCCESS;
  }
  CUresult r = op();
  if (r != CUDA_SUCCESS && S.sticky == CUDA_SUCCESS)
    S.sticky = r;
  return CUDA_SUCCESS;
}

bool validStream(CUstream s) { return !s || state().streams.count(s); }

/// Frees everything when the primary context is destroyed, counting what a
/// caller left behind.
void destroyContextObjects() {
  State &S = state();
  int64_t left =
      int64_t(S.allocations.size() + S.modules.size() + S.streams.size() +
              S.graphs.size() + S.graphExecs.size() + S.events.size());
  S.stats.leakedAtContextDestruction += left;
  for (auto &a : S.allocations)
    std::free(reinterpret_cast<void *>(a.first));
  S.allocations.clear();
  S.usedBytes = 0;
  for (CUmod_st *m : S.modules) {
    for (auto &f : m->functions)
      S.functions.erase(f.get());
    delete m;
  }
  S.modules.clear();
  for (CUstream_st *s : S.streams)
    delete s;
  S.streams.clear();
  for (CUgraph_st *g : S.graphs)
    delete g;
  S.graphs.clear();
  for (CUgraphExec_st *e : S.graphExecs)
    delete e;
  S.graphExecs.clear();
  for (CUevent_st *e : S.events)
    delete e;
  S.events.clear();
  S.sticky = CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Module images
//===----------------------------------------------------------------------===//

struct KernelDecl {
  std::string name;
  unsigned params = 0;
  bool usesBarriers = false;
};

struct FakeImage {
  std::string library;
  std::vector<KernelDecl> kernels;
};

bool parseFakeImage(const char *text, FakeImage &out, std::string &error) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != dlc::rt::test::kFakeCubinMagic) {
    error = "not a fake cubin";
    return false;
  }
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word == "library") {
      std::getline(words >> std::ws, out.library);
    } else if (word == "kernel") {
      KernelDecl k;
      int barriers = 0;
      if (!(words >> k.name >> k.params >> barriers)) {
        error = "bad kernel line '" + line + "'";
        return false;
      }
      k.usesBarriers = barriers != 0;
      out.kernels.push_back(k);
    } else if (!word.empty()) {
      error = "unknown line '" + line + "'";
      return false;
    }
  }
  return true;
}

uint64_t readLE(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

/// The size of a 64-bit little-endian ELF image (cubins are), from its
/// section and program header tables; 0 if it is not one.
size_t elfSize(const uint8_t *p) {
  if (std::memcmp(p,
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      p[4] != 2 || p[5] != 1)
    return 0;
  uint64_t phoff = readLE(p + 0x20, 8), shoff = readLE(p + 0x28, 8);
  uint64_t phentsize = readLE(p + 0x36, 2), phnum = readLE(p + 0x38, 2);
  uint64_t shentsize = readLE(p + 0x3a, 2), shnum = readLE(p + 0x3c, 2);
  uint64_t size = std::max<uint64_t>(64, shoff + shnum * shentsize);
  size = std::max(size, phoff + phnum * phentsize);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint8_t *sh = p + shoff + i * shentsize;
    uint32_t type = uint32_t(readLE(sh + 4, 4));
    if (type == 8) // SHT_NOBITS
      continue;
    size = std::max(size, readLE(sh + 0x18, 8) + readLE(sh + 0x20, 8));
  }
  return size_t(size);
}

/// Whether `name` is a symbol-like string of the ELF image.
bool elfMentions(const uint8_t *p, size_t size, const std::string &name) {
  std::string needle = name + '\0';
  const uint8_t *end = p + size;
  for (const uint8_t *it = p; it < end;) {
    it = std::search(it, end, needle.begin(), needle.end());
    if (it == end)
      return false;
    if (it > p && (it[-1] == '\0' || it[-1] == '.'))
      return true;
    ++it;
  }
  return false;
}

CUresult loadModule(const void *image, CUmodule *out) {
  State &S = state();
  const auto *bytes = static_cast<const uint8_t *>(image);
  FakeImage fake;
  std::string error;
  std::unique_ptr<CUmod_st> module = std::make_unique<CUmod_st>();
  size_t elf = elfSize(bytes);
  if (elf) {
    // A real cubin. With a stand-in, the kernels it defines run through the
    // stand-in's library; without, cuModuleGetFunction makes record-only
    // functions for the names the image holds.
    if (!S.standIn.empty()) {
      FakeImage standIn;
      if (!parseFakeImage(S.standIn.c_str(), standIn, error))
        return fail(CUDA_ERROR_INVALID_IMAGE, "the stand-in: " + error);
      fake.library = standIn.library;
      for (const KernelDecl &k : standIn.kernels)
        if (elfMentions(bytes, elf, k.name))
          fake.kernels.push_back(k);
    }
  } else if (!parseFakeImage(static_cast<const char *>(image), fake, error)) {
    return fail(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData: " + error);
  }
  sim::StateFn stateFn = nullptr;
  if (!fake.library.empty()) {
    module->library = ::dlopen(fake.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!module->library) {
      const char *e = ::dlerror();
      return fail(CUDA_ERROR_INVALID_IMAGE,
                  "cannot load " + fake.library + ": " + (e ? e : "?"));
    }
    stateFn = reinterpret_cast<sim::StateFn>(
        ::dlsym(module->library, "dlc_sim_thread_state"));
    auto abi = reinterpret_cast<unsigned (*)()>(
        ::dlsym(module->library, "dlc_sim_abi_version"));
    if (!stateFn || !abi || abi() != dlc_sim::kAbiVersion)
      return fail(CUDA_ERROR_INVALID_IMAGE,
                  fake.library + " is not a sim kernel library");
    module->executor =
        std::make_unique<sim::Executor>(stateFn, 1, sim::defaultFiberBackend());
  }
  for (const KernelDecl &k : fake.kernels) {
    auto f = std::make_unique<CUfunc_st>();
    f->module = module.get();
    f->name = k.name;
    f->params = k.params;
    f->usesBarriers = k.usesBarriers;
    if (module->library) {
      f->entry = reinterpret_cast<sim::EntryFn>(
          ::dlsym(module->library, ("dlc_sim_entry_" + k.name).c_str()));
      if (!f->entry)
        continue; // not in the image: cuModuleGetFunction says NOT_FOUND
    }
    module->functions.push_back(std::move(f));
  }
  for (auto &f : module->functions)
    S.functions.insert(f.get());
  CUmod_st *m = module.release();
  S.modules.insert(m);
  *out = m;
  return CUDA_SUCCESS;
}

/// The fake cubin or the ELF image a module came from is gone; for
/// record-only ELF modules, cuModuleGetFunction needs the image again, so
/// remember it by module.
std::map<CUmod_st *, std::vector<uint8_t>> gElfImages;

//===----------------------------------------------------------------------===//
// Numbers for cuBLAS
//===----------------------------------------------------------------------===//

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {
      // Subnormal: normalize.
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      bits = sign | uint32_t(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
    }
  } else {
    bits = sign | (exp + 112) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) // inf or NaN
    return uint16_t(sign | 0x7c00 | (absx > 0x7f800000u ? 0x200 : 0));
  if (absx >= 0x477ff000u) // rounds to >= 65520: overflow
    return uint16_t(sign | 0x7c00);
  if (absx < 0x38800000u) { // subnormal or zero in half
    float a;
    std::memcpy(&a, &absx, 4);
    // Scale so that the half subnormal unit is 1, round to nearest even.
    float scaled = a * 16777216.0f; // 2^24
    return uint16_t(sign | uint32_t(std::nearbyint(scaled)));
  }
  uint32_t mant = absx & 0x7fffff;
  uint32_t exp = (absx >> 23) - 112;
  uint32_t h = exp << 10 | mant >> 13;
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return uint16_t(sign | h);
}

float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((x >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return uint16_t((x + rounding) >> 16);
}

/// OCP FP8 E4M3 (bias 7, no infinities, NaN S.1111.111) decoded.
float e4m3ToFloat(uint8_t b) {
  const float sign = (b & 0x80) ? -1.0f : 1.0f;
  const int e = (b >> 3) & 0xf, m = b & 7;
  if (e == 0xf && m == 7)
    return std::nanf("");
  if (e == 0)
    return sign * std::ldexp(float(m), -9);
  return sign * std::ldexp(1.0f + float(m) / 8.0f, e - 7);
}

size_t elementBytes(cudaDataType t) {
  switch (t) {
  case CUDA_R_8F_E4M3:
    return 1;
  case CUDA_R_16F:
  case CUDA_R_16BF:
    return 2;
  default:
    return 4;
  }
}

float loadElement(const void *base, cudaDataType t, int64_t i) {
  const auto *p = static_cast<const uint8_t *>(base);
  uint16_t h;
  switch (t) {
  case CUDA_R_8F_E4M3:
    return e4m3ToFloat(p[i]);
  case CUDA_R_16F:
    std::memcpy(&h, p + 2 * i, 2);
    return halfToFloat(h);
  case CUDA_R_16BF:
    std::memcpy(&h, p + 2 * i, 2);
    return bf16ToFloat(h);
  default: {
    float f;
    std::memcpy(&f, p + 4 * i, 4);
    return f;
  }
  }
}

void storeElement(void *base, cudaDataType t, int64_t i, float v) {
  auto *p = static_cast<uint8_t *>(base);
  uint16_t h;
  switch (t) {
  case CUDA_R_16F:
    h = floatToHalf(v);
    std::memcpy(p + 2 * i, &h, 2);
    return;
  case CUDA_R_16BF:
    h = floatToBf16(v);
    std::memcpy(p + 2 * i, &h, 2);
    return;
  default:
    std::memcpy(p + 4 * i, &v, 4);
    return;
  }
}

const char *errorName(CUresult r) {
  switch (r) {
#define FAKE_CASE(name)                                                        \
  case name:                                                                   \
    return #name;
    FAKE_CASE(CUDA_SUCCESS)
    FAKE_CASE(CUDA_ERROR_INVALID_VALUE)
    FAKE_CASE(CUDA_ERROR_OUT_OF_MEMORY)
    FAKE_CASE(CUDA_ERROR_NOT_INITIALIZED)
    FAKE_CASE(CUDA_ERROR_DEINITIALIZED)
    FAKE_CASE(CUDA_ERROR_NO_DEVICE)
    FAKE_CASE(CUDA_ERROR_INVALID_DEVICE)
    FAKE_CASE(CUDA_ERROR_INVALID_IMAGE)
    FAKE_CASE(CUDA_ERROR_INVALID_CONTEXT)
    FAKE_CASE(CUDA_ERROR_NO_BINARY_FOR_GPU)
    FAKE_CASE(CUDA_ERROR_INVALID_HANDLE)
    FAKE_CASE(CUDA_ERROR_ILLEGAL_STATE)
    FAKE_CASE(CUDA_ERROR_NOT_FOUND)
    FAKE_CASE(CUDA_ERROR_ILLEGAL_ADDRESS)
    FAKE_CASE(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    FAKE_CASE(CUDA_ERROR_LAUNCH_FAILED)
    FAKE_CASE(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    FAKE_CASE(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
#undef FAKE_CASE
  default:
    return nullptr;
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// cuDNN's state: the opaque handle and descriptor structs cudnn.h declares
//===----------------------------------------------------------------------===//

struct cudnnContext {
  CUstream stream = nullptr;
};
struct cudnnTensorStruct {
  bool set = false;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int n = 0, c = 0, h = 0, w = 0;
};
struct cudnnFilterStruct {
  bool set = false;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int k = 0, c = 0, h = 0, w = 0;
};
struct cudnnConvolutionStruct {
  bool set = false;
  int padH = 0, padW = 0, strideH = 1, strideW = 1, dilH = 1, dilW = 1;
  int groups = 1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};
struct cudnnActivationStruct {
  bool set = false;
  cudnnActivationMode_t mode = CUDNN_ACTIVATION_RELU;
};

namespace {
struct DnnState {
  std::set<cudnnContext *> handles;
  std::set<cudnnTensorStruct *> tensors;
  std::set<cudnnFilterStruct *> filters;
  std::set<cudnnConvolutionStruct *> convs;
  std::set<cudnnActivationStruct *> activations;
};
DnnState &dnnState() {
  static DnnState s;
  return s;
}
} // namespace

//===----------------------------------------------------------------------===//
// Control functions
//===----------------------------------------------------------------------===//

extern "C" void dlcFakeCudaStats(FakeCudaStats *out) {
  FAKE_LOCK;
  FakeCudaStats s = S.stats;
  s.contextRetains = 0;
  for (const CUctx_st &c : S.contexts)
    s.contextRetains += c.refcount;
  s.pushedContexts = gPushed.load();
  s.allocations = int64_t(S.allocations.size());
  s.allocatedBytes = int64_t(S.usedBytes);
  s.modules = int64_t(S.modules.size());
  s.streams = int64_t(S.streams.size());
  s.graphs = int64_t(S.graphs.size());
  s.graphExecs = int64_t(S.graphExecs.size());
  s.events = int64_t(S.events.size());
  s.cublasHandles = int64_t(S.blasHandles.size());
  s.cublasLtHandles = int64_t(ltState().handles.size());
  s.cublasLtDescriptors =
      int64_t(ltState().descs.size() + ltState().layouts.size() +
              ltState().prefs.size());
  s.cudnnHandles = int64_t(dnnState().handles.size());
  s.cudnnDescriptors =
      int64_t(dnnState().tensors.size() + dnnState().filters.size() +
              dnnState().convs.size() + dnnState().activations.size());
  *out = s;
}

extern "C" void dlcFakeCudaConfigure(int devices, int major, int minor,
                                     uint64_t memoryBytes) {
  FAKE_LOCK;
  S.devices = std::clamp(devices, 0, kMaxDevices);
  S.major = major;
  S.minor = minor;
  S.memoryBytes = memoryBytes;
}

extern "C" void dlcFakeCudaSetCubinStandIn(const char *fakeCubin) {
  FAKE_LOCK;
  S.standIn = fakeCubin ? fakeCubin : "";
}

extern "C" const char *dlcFakeCudaLastError() {
  FAKE_LOCK;
  return S.lastError.c_str();
}

//===----------------------------------------------------------------------===//
// The driver API
//===----------------------------------------------------------------------===//

extern "C" {

CUresult cuInit(unsigned int flags) {
  FAKE_LOCK;
  if (flags != 0)
    return fail(CUDA_ERROR_INVALID_VALUE, "cuInit: flags must be 0");
  S.initialized = true;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  *version = 13000;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **str) {
  if (!str)
    return CUDA_ERROR_INVALID_VALUE;
  *str = errorName(error);
  return *str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **str) {
  return cuGetErrorName(error, str);
}

CUresult cuDeviceGetCount(int *count) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = S.devices;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal < 0 || ordinal >= S.devices)
    return fail(CUDA_ERROR_INVALID_DEVICE, "cuDeviceGet: no such device");
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev < 0 || dev >= S.devices)
    return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, size_t(len), "dlc fake CUDA device %d", dev);
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev < 0 || dev >= S.devices)
    return CUDA_ERROR_INVALID_DEVICE;
  *bytes = size_t(S.memoryBytes);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attr,
                              CUdevice dev) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!value)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev < 0 || dev >= S.devices)
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attr) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = S.major;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = S.minor;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = 1024;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    *value = 32;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 4;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = 227 * 1024;
    return CUDA_SUCCESS;
  default:
    // Strict: a new query by the runtime should be added here on purpose.
    return fail(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetAttribute: attribute " +
                                              std::to_string(attr) +
                                              " is not emulated");
  }
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!ctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev < 0 || dev >= S.devices)
    return CUDA_ERROR_INVALID_DEVICE;
  S.contexts[dev].device = dev;
  ++S.contexts[dev].refcount;
  *ctx = &S.contexts[dev];
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (dev < 0 || dev >= S.devices)
    return CUDA_ERROR_INVALID_DEVICE;
  if (S.contexts[dev].refcount <= 0)
    return fail(CUDA_ERROR_INVALID_CONTEXT,
                "cuDevicePrimaryCtxRelease: not retained");
  if (--S.contexts[dev].refcount == 0)
    destroyContextObjects();
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext ctx) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!ctx || ctx->refcount <= 0)
    return fail(CUDA_ERROR_INVALID_CONTEXT, "cuCtxPushCurrent: bad context");
  tContextStack.push_back(ctx);
  ++gPushed;
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext *ctx) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (tContextStack.empty())
    return fail(CUDA_ERROR_INVALID_CONTEXT, "cuCtxPopCurrent: none current");
  if (ctx)
    *ctx = tContextStack.back();
  tContextStack.pop_back();
  --gPushed;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!module || !image)
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = loadModule(image, module);
  if (r == CUDA_SUCCESS) {
    const auto *bytes = static_cast<const uint8_t *>(image);
    if (size_t elf = elfSize(bytes))
      gElfImages[*module].assign(bytes, bytes + elf);
  }
  return r;
}

CUresult cuModuleUnload(CUmodule module) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!S.modules.erase(module))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuModuleUnload: unknown module");
  for (auto &f : module->functions)
    S.functions.erase(f.get());
  gElfImages.erase(module);
  delete module;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module,
                             const char *name) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  FAKE_CHECK_STICKY;
  if (!fn || !name)
    return CUDA_ERROR_INVALID_VALUE;
  if (!S.modules.count(module))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuModuleGetFunction: bad module");
  for (auto &f : module->functions)
    if (f->name == name) {
      *fn = f.get();
      return CUDA_SUCCESS;
    }
  auto elf = gElfImages.find(module);
  if (elf != gElfImages.end() && !module->library &&
      elfMentions(elf->second.data(), elf->second.size(), name)) {
    // A record-only kernel of a real cubin.
    auto f = std::make_unique<CUfunc_st>();
    f->module = module;
    f->name = name;
    *fn = f.get();
    S.functions.insert(f.get());
    module->functions.push_back(std::move(f));
    return CUDA_SUCCESS;
  }
  return fail(CUDA_ERROR_NOT_FOUND,
              std::string("cuModuleGetFunction: no kernel ") + name);
}

CUresult cuFuncSetAttribute(CUfunction fn, CUfunction_attribute attr,
                            int value) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  FAKE_CHECK_STICKY;
  if (!S.functions.count(fn))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuFuncSetAttribute: bad function");
  if (attr != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 ||
      value > 227 * 1024)
    return fail(CUDA_ERROR_INVALID_VALUE, "cuFuncSetAttribute: bad value");
  fn->maxDynamicShared = value;
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned sharedBytes, CUstream stream,
                        void **params, void **extra) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!S.functions.count(f))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuLaunchKernel: bad function");
  if (!validStream(stream))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuLaunchKernel: bad stream");
  uint64_t threads = uint64_t(blockX) * blockY * blockZ;
  if (!gridX || !gridY || !gridZ || !blockX || !blockY || !blockZ ||
      threads > 1024 || blockZ > 64 || gridY > 65535 || gridZ > 65535)
    return fail(CUDA_ERROR_INVALID_VALUE,
                "cuLaunchKernel: bad launch dimensions for " + f->name);
  if (int64_t(sharedBytes) > f->maxDynamicShared)
    return fail(CUDA_ERROR_INVALID_VALUE,
                "cuLaunchKernel: too much dynamic shared memory");
  if (extra)
    return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: `extra` is not "
                                          "emulated");
  if (f->params && !params)
    return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: no parameters");
  // The parameters are copied now, as the driver does.
  std::vector<void *> args(f->params);
  for (unsigned i = 0; i < f->params; ++i)
    std::memcpy(&args[i], params[i], sizeof(void *));
  unsigned grid[3] = {gridX, gridY, gridZ}, block[3] = {blockX, blockY, blockZ};
  CUmod_st *module = f->module;
  std::string name = f->name;
  sim::EntryFn entry = f->entry;
  bool barriers = f->usesBarriers;
  return enqueue(stream, [=]() -> CUresult {
    State &S = state();
    if (!S.modules.count(module))
      return fail(CUDA_ERROR_LAUNCH_FAILED, name + ": its module was unloaded");
    for (size_t i = 0; i < args.size(); ++i) {
      uintptr_t p = reinterpret_cast<uintptr_t>(args[i]);
      if (p && !inAllocation(p, 0))
        return fail(CUDA_ERROR_ILLEGAL_ADDRESS,
                    name + ": argument " + std::to_string(i) + " (" +
                        hexPointer(p) + ") is not device memory");
    }
    if (!entry || !module->executor) {
      ++S.stats.kernelsRecorded;
      return CUDA_SUCCESS;
    }
    // Dynamic shared memory is reserved but not provided: the sim shim has
    // no extern __shared__, so kernels run here never use it.
    sim::Launch launch;
    launch.entry = entry;
    launch.args = args.data();
    for (int d = 0; d < 3; ++d) {
      launch.grid[d] = grid[d];
      launch.block[d] = block[d];
    }
    launch.usesBarriers = barriers;
    dlc::rt::Status st = module->executor->launch(launch);
    if (!st)
      return fail(CUDA_ERROR_LAUNCH_FAILED, name + ": " + st.message());
    ++S.stats.kernelsRun;
    return CUDA_SUCCESS;
  });
}

CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!ptr || bytes == 0)
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc: zero bytes");
  if (bytes > S.memoryBytes - S.usedBytes)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc: device memory full");
  size_t rounded = (bytes + 255) / 256 * 256;
  void *p = std::aligned_alloc(256, rounded);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  // Device memory is not cleared; a pattern makes reads of it visible. A
  // large block (the runtime's 32 MiB cuBLAS workspace, which the fake's
  // GEMMs never read) gets it at both ends only: filling it whole made the
  // fault sweeps, a session per injected failure, spend most of their time
  // in memset and page faults.
  constexpr size_t kPatternWhole = 4u << 20, kPatternEnds = 256u << 10;
  if (rounded <= kPatternWhole) {
    std::memset(p, 0xcd, rounded);
  } else {
    std::memset(p, 0xcd, kPatternEnds);
    std::memset(static_cast<char *>(p) + rounded - kPatternEnds, 0xcd,
                kPatternEnds);
  }
  S.allocations[reinterpret_cast<uintptr_t>(p)] = bytes;
  S.usedBytes += bytes;
  *ptr = CUdeviceptr(reinterpret_cast<uintptr_t>(p));
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr ptr) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  auto it = S.allocations.find(uintptr_t(ptr));
  if (it == S.allocations.end())
    return fail(CUDA_ERROR_INVALID_VALUE,
                "cuMemFree: " + hexPointer(uintptr_t(ptr)) +
                    " is not an allocation");
  S.usedBytes -= it->second;
  std::free(reinterpret_cast<void *>(it->first));
  S.allocations.erase(it);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!inAllocation(uintptr_t(dst), bytes) || (!src && bytes))
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyHtoD: bad range");
  std::memcpy(reinterpret_cast<void *>(uintptr_t(dst)), src, bytes);
  ++S.stats.copies;
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes,
                           CUstream stream) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!validStream(stream))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuMemcpyHtoDAsync: bad stream");
  if (!inAllocation(uintptr_t(dst), bytes) || (!src && bytes))
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyHtoDAsync: bad range");
  return enqueue(stream, [=]() -> CUresult {
    if (!inAllocation(uintptr_t(dst), bytes))
      return fail(CUDA_ERROR_ILLEGAL_ADDRESS, "copy to freed memory");
    std::memcpy(reinterpret_cast<void *>(uintptr_t(dst)), src, bytes);
    ++state().stats.copies;
    return CUDA_SUCCESS;
  });
}

CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes,
                           CUstream stream) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!validStream(stream))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuMemcpyDtoHAsync: bad stream");
  if (!inAllocation(uintptr_t(src), bytes) || (!dst && bytes))
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoHAsync: bad range");
  return enqueue(stream, [=]() -> CUresult {
    if (!inAllocation(uintptr_t(src), bytes))
      return fail(CUDA_ERROR_ILLEGAL_ADDRESS, "copy from freed memory");
    std::memcpy(dst, reinterpret_cast<const void *>(uintptr_t(src)), bytes);
    ++state().stats.copies;
    return CUDA_SUCCESS;
  });
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                           CUstream stream) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!validStream(stream))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuMemcpyDtoDAsync: bad stream");
  if (!inAllocation(uintptr_t(dst), bytes) ||
      !inAllocation(uintptr_t(src), bytes))
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoDAsync: bad range");
  return enqueue(stream, [=]() -> CUresult {
    if (!inAllocation(uintptr_t(dst), bytes) ||
        !inAllocation(uintptr_t(src), bytes))
      return fail(CUDA_ERROR_ILLEGAL_ADDRESS, "copy between freed memory");
    std::memmove(reinterpret_cast<void *>(uintptr_t(dst)),
                 reinterpret_cast<const void *>(uintptr_t(src)), bytes);
    ++state().stats.copies;
    return CUDA_SUCCESS;
  });
}

CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!stream || flags > CU_STREAM_NON_BLOCKING)
    return CUDA_ERROR_INVALID_VALUE;
  CUstream_st *s = new CUstream_st;
  S.streams.insert(s);
  *stream = s;
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream stream) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!stream || !S.streams.erase(stream))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuStreamDestroy: bad stream");
  delete stream;
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  if (!validStream(stream))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuStreamSynchronize: bad stream");
  if (stream && stream->capture) {
    stream->captureInvalidated = true;
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                "cuStreamSynchronize: the stream is capturing");
  }
  return S.sticky;
}

CUresult cuEventCreate(CUevent *event, unsigned int flags) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!event || (flags & CU_EVENT_DISABLE_TIMING))
    return fail(CUDA_ERROR_INVALID_VALUE,
                "cuEventCreate: no pointer, or an event without timing");
  CUevent_st *e = new CUevent_st;
  S.events.insert(e);
  *event = e;
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent event) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!event || !S.events.erase(event))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventDestroy: bad event");
  delete event;
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!event || !S.events.count(event))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventRecord: bad event");
  if (!validStream(stream))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventRecord: bad stream");
  return enqueue(stream, [event] {
    event->when = std::chrono::steady_clock::now();
    event->recorded = true;
    return CUDA_SUCCESS;
  });
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!ms)
    return CUDA_ERROR_INVALID_VALUE;
  if (!start || !end || !S.events.count(start) || !S.events.count(end))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventElapsedTime: bad event");
  if (!start->recorded || !end->recorded)
    return fail(CUDA_ERROR_INVALID_HANDLE,
                "cuEventElapsedTime: an event was never recorded");
  *ms =
      std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return CUDA_SUCCESS;
}

CUresult cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  (void)mode;
  if (!stream)
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                "cuStreamBeginCapture: the legacy stream cannot capture");
  if (!S.streams.count(stream))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuStreamBeginCapture: bad stream");
  if (stream->capture)
    return fail(CUDA_ERROR_ILLEGAL_STATE, "cuStreamBeginCapture: capturing");
  stream->capture = std::make_unique<CUgraph_st>();
  stream->captureInvalidated = false;
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!graph)
    return CUDA_ERROR_INVALID_VALUE;
  if (!stream || !S.streams.count(stream))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuStreamEndCapture: bad stream");
  if (!stream->capture)
    return fail(CUDA_ERROR_ILLEGAL_STATE,
                "cuStreamEndCapture: the stream is not capturing");
  std::unique_ptr<CUgraph_st> g = std::move(stream->capture);
  if (stream->captureInvalidated) {
    *graph = nullptr;
    return fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
                "cuStreamEndCapture: the capture was invalidated");
  }
  S.graphs.insert(g.get());
  *graph = g.release();
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiate(CUgraphExec *exec, CUgraph graph,
                            unsigned long long flags) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  (void)flags;
  if (!exec || !S.graphs.count(graph))
    return fail(CUDA_ERROR_INVALID_VALUE, "cuGraphInstantiate: bad graph");
  CUgraphExec_st *e = new CUgraphExec_st;
  e->ops = graph->ops;
  S.graphExecs.insert(e);
  *exec = e;
  return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  FAKE_LOCK;
  FAKE_REQUIRE_CONTEXT;
  FAKE_CHECK_STICKY;
  if (!S.graphExecs.count(exec))
    return fail(CUDA_ERROR_INVALID_VALUE, "cuGraphLaunch: bad graph");
  if (!validStream(stream))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuGraphLaunch: bad stream");
  ++S.stats.graphLaunches;
  std::vector<Op> ops = exec->ops;
  return enqueue(stream, [ops]() -> CUresult {
    for (const Op &op : ops)
      if (CUresult r = op())
        return r;
    return CUDA_SUCCESS;
  });
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!S.graphExecs.erase(exec))
    return fail(CUDA_ERROR_INVALID_VALUE, "cuGraphExecDestroy: bad graph");
  delete exec;
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  FAKE_LOCK;
  FAKE_REQUIRE_INIT;
  if (!S.graphs.erase(graph))
    return fail(CUDA_ERROR_INVALID_VALUE, "cuGraphDestroy: bad graph");
  delete graph;
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// cuBLAS
//===----------------------------------------------------------------------===//

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
  FAKE_LOCK;
  if (!handle)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!S.initialized)
    return blasFail(CUBLAS_STATUS_NOT_INITIALIZED, "cublasCreate: no cuInit");
  cublasContext *h = new cublasContext;
  S.blasHandles.insert(h);
  *handle = h;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  FAKE_LOCK;
  if (!S.blasHandles.erase(handle))
    return blasFail(CUBLAS_STATUS_NOT_INITIALIZED, "cublasDestroy: bad handle");
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  FAKE_LOCK;
  if (!S.blasHandles.count(handle))
    return blasFail(CUBLAS_STATUS_NOT_INITIALIZED,
                    "cublasSetStream: bad handle");
  if (!validStream(stream))
    return blasFail(CUBLAS_STATUS_INVALID_VALUE, "cublasSetStream: bad stream");
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                     size_t bytes) {
  FAKE_LOCK;
  if (!S.blasHandles.count(handle))
    return blasFail(CUBLAS_STATUS_NOT_INITIALIZED,
                    "cublasSetWorkspace: bad handle");
  uintptr_t p = reinterpret_cast<uintptr_t>(workspace);
  if ((bytes && !inAllocation(p, bytes)) || p % 256 != 0)
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "cublasSetWorkspace: not device memory of that size");
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  FAKE_LOCK;
  if (!S.blasHandles.count(handle))
    return blasFail(CUBLAS_STATUS_NOT_INITIALIZED,
                    "cublasSetMathMode: bad handle");
  handle->mathMode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
#define FAKE_CASE(name)                                                        \
  case name:                                                                   \
    return #name;
    FAKE_CASE(CUBLAS_STATUS_SUCCESS)
    FAKE_CASE(CUBLAS_STATUS_NOT_INITIALIZED)
    FAKE_CASE(CUBLAS_STATUS_ALLOC_FAILED)
    FAKE_CASE(CUBLAS_STATUS_INVALID_VALUE)
    FAKE_CASE(CUBLAS_STATUS_ARCH_MISMATCH)
    FAKE_CASE(CUBLAS_STATUS_MAPPING_ERROR)
    FAKE_CASE(CUBLAS_STATUS_EXECUTION_FAILED)
    FAKE_CASE(CUBLAS_STATUS_INTERNAL_ERROR)
    FAKE_CASE(CUBLAS_STATUS_NOT_SUPPORTED)
    FAKE_CASE(CUBLAS_STATUS_LICENSE_ERROR)
#undef FAKE_CASE
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

/// Column-major, as cuBLAS: C = alpha op(A) op(B) + beta C per batch, with
/// products accumulated in order in f32.
cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
    int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
    int lda, long long strideA, const void *B, cudaDataType Btype, int ldb,
    long long strideB, const void *beta, void *C, cudaDataType Ctype, int ldc,
    long long strideC, int batch, cublasComputeType_t computeType,
    cublasGemmAlgo_t algo) {
  FAKE_LOCK;
  (void)algo;
  if (!S.blasHandles.count(handle))
    return blasFail(CUBLAS_STATUS_NOT_INITIALIZED, "gemm: bad handle");
  if (Atype != Btype || Atype != Ctype ||
      (Atype != CUDA_R_32F && Atype != CUDA_R_16F && Atype != CUDA_R_16BF) ||
      (computeType != CUBLAS_COMPUTE_32F &&
       !(computeType == CUBLAS_COMPUTE_32F_FAST_TF32 && Atype == CUDA_R_32F)))
    return blasFail(CUBLAS_STATUS_NOT_SUPPORTED, "gemm: types not emulated");
  auto rowsOf = [](cublasOperation_t t, int rows, int cols) {
    return t == CUBLAS_OP_N ? rows : cols;
  };
  if (m < 0 || n < 0 || k < 0 || batch < 0 || !alpha || !beta ||
      (transa != CUBLAS_OP_N && transa != CUBLAS_OP_T) ||
      (transb != CUBLAS_OP_N && transb != CUBLAS_OP_T) ||
      lda < std::max(1, rowsOf(transa, m, k)) ||
      ldb < std::max(1, rowsOf(transb, k, n)) || ldc < std::max(1, m))
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "gemm: invalid sizes or leading dimensions");
  // Host pointer mode: alpha and beta are read at the call.
  const float a = *static_cast<const float *>(alpha);
  const float b = *static_cast<const float *>(beta);
  const size_t elem = Atype == CUDA_R_32F ? 4 : 2;
  cudaDataType type = Atype;
  // TF32: operands rounded as the sim's CpuGemm rounds them.
  const bool tf32 = computeType == CUBLAS_COMPUTE_32F_FAST_TF32;
  CUstream stream = handle->stream;
  ++S.stats.gemms;
  enqueue(stream, [=]() -> CUresult {
    if (m == 0 || n == 0 || batch == 0)
      return CUDA_SUCCESS;
    // The extent each operand spans must be device memory, or the kernel
    // faults.
    auto extent = [&](const void *p, int rows, int cols, int ld,
                      long long stride) {
      uint64_t last = uint64_t(batch - 1) * uint64_t(std::max(0LL, stride)) +
                      uint64_t(cols - 1) * uint64_t(ld) + uint64_t(rows);
      return rows == 0 || cols == 0 ||
             inAllocation(reinterpret_cast<uintptr_t>(p), last * elem);
    };
    if ((k > 0 && !extent(A, rowsOf(transa, m, k),
                          transa == CUBLAS_OP_N ? k : m, lda, strideA)) ||
        (k > 0 && !extent(B, rowsOf(transb, k, n),
                          transb == CUBLAS_OP_N ? n : k, ldb, strideB)) ||
        !extent(C, m, n, ldc, strideC))
      return fail(CUDA_ERROR_ILLEGAL_ADDRESS,
                  "gemm: an operand lies outside device memory");
    for (int bi = 0; bi < batch; ++bi) {
      const int64_t aBase = int64_t(bi) * strideA,
                    bBase = int64_t(bi) * strideB,
                    cBase = int64_t(bi) * strideC;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
          float acc = 0.0f;
          for (int p = 0; p < k; ++p) {
            float av = loadElement(A, type,
                                   aBase + (transa == CUBLAS_OP_N
                                                ? int64_t(p) * lda + i
                                                : int64_t(i) * lda + p));
            float bv = loadElement(B, type,
                                   bBase + (transb == CUBLAS_OP_N
                                                ? int64_t(j) * ldb + p
                                                : int64_t(p) * ldb + j));
            if (tf32) {
              av = roundToTf32(av);
              bv = roundToTf32(bv);
            }
            acc += av * bv;
          }
          int64_t ci = cBase + int64_t(j) * ldc + i;
          float r = a * acc;
          if (b != 0.0f)
            r += b * loadElement(C, type, ci);
          storeElement(C, type, ci, r);
        }
    }
    return CUDA_SUCCESS;
  });
  return CUBLAS_STATUS_SUCCESS;
}

//===----------------------------------------------------------------------===//
// cuBLASLt
//===----------------------------------------------------------------------===//

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  FAKE_LOCK;
  if (!handle)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!S.initialized)
    return blasFail(CUBLAS_STATUS_NOT_INITIALIZED, "cublasLtCreate: no cuInit");
  cublasLtContext *h = new cublasLtContext;
  ltState().handles.insert(h);
  *handle = h;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  FAKE_LOCK;
  if (!ltState().handles.erase(handle))
    return blasFail(CUBLAS_STATUS_NOT_INITIALIZED,
                    "cublasLtDestroy: bad handle");
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

const char *cublasLtGetStatusName(cublasStatus_t status) {
  return cublasGetStatusName(status);
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                                        cublasComputeType_t compute,
                                        cudaDataType_t scale) {
  FAKE_LOCK;
  if (!desc)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *d = new cublasLtMatmulDescOpaque_t();
  LtDesc &state = ltState().descs[d];
  state.compute = compute;
  state.scale = scale;
  *desc = d;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  FAKE_LOCK;
  if (!ltState().descs.erase(desc))
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "cublasLtMatmulDescDestroy: bad descriptor");
  delete desc;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                               cublasLtMatmulDescAttributes_t attr,
                               const void *buf, size_t size) {
  FAKE_LOCK;
  auto it = ltState().descs.find(desc);
  if (it == ltState().descs.end())
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "cublasLtMatmulDescSetAttribute: bad descriptor");
  LtDesc &d = it->second;
  const char *what = "cublasLtMatmulDescSetAttribute";
  switch (attr) {
  case CUBLASLT_MATMUL_DESC_TRANSA:
    return setAttr(d.transa, buf, size, what);
  case CUBLASLT_MATMUL_DESC_TRANSB:
    return setAttr(d.transb, buf, size, what);
  case CUBLASLT_MATMUL_DESC_EPILOGUE:
    return setAttr(d.epilogue, buf, size, what);
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
    return setAttr(d.bias, buf, size, what);
  case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
    return setAttr(d.biasType, buf, size, what);
  default:
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    std::string(what) + ": attribute not emulated");
  }
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout,
                                          cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  FAKE_LOCK;
  if (!layout)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *l = new cublasLtMatrixLayoutOpaque_t();
  LtLayout &state = ltState().layouts[l];
  state.type = type;
  state.rows = rows;
  state.cols = cols;
  state.ld = ld;
  *layout = l;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  FAKE_LOCK;
  if (!ltState().layouts.erase(layout))
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "cublasLtMatrixLayoutDestroy: bad layout");
  delete layout;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                 cublasLtMatrixLayoutAttribute_t attr,
                                 const void *buf, size_t size) {
  FAKE_LOCK;
  auto it = ltState().layouts.find(layout);
  if (it == ltState().layouts.end())
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "cublasLtMatrixLayoutSetAttribute: bad layout");
  const char *what = "cublasLtMatrixLayoutSetAttribute";
  switch (attr) {
  case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
    return setAttr(it->second.batch, buf, size, what);
  case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
    return setAttr(it->second.stride, buf, size, what);
  default:
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    std::string(what) + ": attribute not emulated");
  }
}

cublasStatus_t
cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref) {
  FAKE_LOCK;
  if (!pref)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *p = new cublasLtMatmulPreferenceOpaque_t();
  ltState().prefs[p] = LtPreference();
  *pref = p;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  FAKE_LOCK;
  if (!ltState().prefs.erase(pref))
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "cublasLtMatmulPreferenceDestroy: bad preference");
  delete pref;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                     cublasLtMatmulPreferenceAttributes_t attr,
                                     const void *buf, size_t size) {
  FAKE_LOCK;
  auto it = ltState().prefs.find(pref);
  if (it == ltState().prefs.end())
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "cublasLtMatmulPreferenceSetAttribute: bad preference");
  LtPreference &p = it->second;
  const char *what = "cublasLtMatmulPreferenceSetAttribute";
  switch (attr) {
  case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES:
    return setAttr(p.maxWorkspace, buf, size, what);
  case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES:
    return setAttr(p.alignment[0], buf, size, what);
  case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
    return setAttr(p.alignment[1], buf, size, what);
  case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES:
    return setAttr(p.alignment[2], buf, size, what);
  case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES:
    return setAttr(p.alignment[3], buf, size, what);
  default:
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    std::string(what) + ": attribute not emulated");
  }
}

/// One algorithm, for any configuration checkLtMatmul accepts: it needs the
/// operand alignments of the preference (and the bias pointer's, as set on
/// the descriptor), which cublasLtMatmul checks. None at all with
/// DLC_FAKE_CUBLASLT_NO_ALGORITHM=1 in the environment (a cuBLASLt that
/// cannot do some epilogue).
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
    cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
    cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
    cublasLtMatmulPreference_t pref, int requested,
    cublasLtMatmulHeuristicResult_t results[], int *returned) {
  FAKE_LOCK;
  if (requested <= 0 || !results || !returned)
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "cublasLtMatmulAlgoGetHeuristic: bad result array");
  if (cublasStatus_t st = checkLtMatmul(handle, desc, a, b, c, d,
                                        "cublasLtMatmulAlgoGetHeuristic"))
    return st;
  auto it = ltState().prefs.find(pref);
  if (it == ltState().prefs.end())
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "cublasLtMatmulAlgoGetHeuristic: bad preference");
  ++S.stats.ltHeuristics;
  // No algorithm reads elements from addresses that are not multiples of
  // the element size.
  const uint32_t elem = uint32_t(elementBytes(ltState().layouts[d].type));
  const uint32_t biasAlignment = fakeAlignment(ltState().descs[desc].bias);
  bool aligned = biasAlignment >= elem;
  for (uint32_t a : it->second.alignment)
    aligned &= a >= elem;
  const char *none = std::getenv("DLC_FAKE_CUBLASLT_NO_ALGORITHM");
  if (!aligned || (none && std::string(none) == "1")) {
    *returned = 0;
    return CUBLAS_STATUS_SUCCESS;
  }
  cublasLtMatmulHeuristicResult_t r = {};
  r.algo.data[0] = kFakeAlgoMagic;
  for (int i = 0; i < 4; ++i)
    r.algo.data[1 + i] = it->second.alignment[i];
  r.algo.data[5] = biasAlignment;
  r.workspaceSize = 0;
  r.state = CUBLAS_STATUS_SUCCESS;
  r.wavesCount = 1.0f;
  results[0] = r;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

/// Column-major, as cuBLASLt: D = act(alpha op(A) op(B) + beta C + bias)
/// per batch, in f32, in the order of the sim device's cpuGemm.
cublasStatus_t
cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
               const void *alpha, const void *A, cublasLtMatrixLayout_t adesc,
               const void *B, cublasLtMatrixLayout_t bdesc, const void *beta,
               const void *C, cublasLtMatrixLayout_t cdesc, void *D,
               cublasLtMatrixLayout_t ddesc, const cublasLtMatmulAlgo_t *algo,
               void *workspace, size_t workspaceBytes, cudaStream_t stream) {
  FAKE_LOCK;
  if (cublasStatus_t st = checkLtMatmul(handle, desc, adesc, bdesc, cdesc,
                                        ddesc, "cublasLtMatmul"))
    return st;
  if (!alpha || !beta || !algo || algo->data[0] != kFakeAlgoMagic)
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "cublasLtMatmul: no alpha, beta or heuristic algorithm");
  const LtDesc o = ltState().descs[desc];
  // An algorithm chosen for some alignments runs only on pointers that
  // have them.
  const void *pointers[5] = {A, B, C, D, o.bias};
  for (int i = 0; i < 5; ++i)
    if (pointers[i] && fakeAlignment(pointers[i]) < algo->data[1 + i])
      return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                      "cublasLtMatmul: operand " + std::to_string(i) +
                          " is less aligned than its algorithm needs");
  if (workspaceBytes &&
      !inAllocation(reinterpret_cast<uintptr_t>(workspace), workspaceBytes))
    return blasFail(CUBLAS_STATUS_INVALID_VALUE,
                    "cublasLtMatmul: the workspace is not device memory");
  if (!validStream(stream))
    return blasFail(CUBLAS_STATUS_INVALID_VALUE, "cublasLtMatmul: bad stream");
  const LtLayout la = ltState().layouts[adesc], lb = ltState().layouts[bdesc],
                 ld = ltState().layouts[ddesc];
  const float al = *static_cast<const float *>(alpha);
  const float be = *static_cast<const float *>(beta);
  // A and B are of one type (E4M3 for FP8), C, D and the bias of another.
  const cudaDataType abType = la.type, type = ld.type;
  const cudaDataType biasType =
      o.biasType == -1 ? type : cudaDataType(o.biasType);
  const size_t abElem = elementBytes(abType), elem = elementBytes(type);
  const int64_t m = int64_t(ld.rows), n = int64_t(ld.cols);
  const int64_t k = int64_t(o.transa == CUBLAS_OP_N ? la.cols : la.rows);
  const int64_t batch = ld.batch;
  const bool hasBias = isBiasEpilogue(o.epilogue);
  const bool relu = o.epilogue == CUBLASLT_EPILOGUE_RELU ||
                    o.epilogue == CUBLASLT_EPILOGUE_RELU_BIAS;
  const bool gelu = o.epilogue == CUBLASLT_EPILOGUE_GELU ||
                    o.epilogue == CUBLASLT_EPILOGUE_GELU_BIAS;
  const void *bias = o.bias;
  ++S.stats.ltMatmuls;
  enqueue(stream, [=]() -> CUresult {
    if (m == 0 || n == 0)
      return CUDA_SUCCESS;
    auto extent = [&](const void *p, const LtLayout &l, size_t bytes) {
      if (l.rows == 0 || l.cols == 0)
        return true;
      uint64_t last = uint64_t(batch - 1) * uint64_t(l.stride) +
                      (l.cols - 1) * uint64_t(l.ld) + l.rows;
      return inAllocation(reinterpret_cast<uintptr_t>(p), last * bytes);
    };
    if ((k > 0 && (!extent(A, la, abElem) || !extent(B, lb, abElem))) ||
        !extent(D, ld, elem) || (be != 0.0f && !extent(C, ld, elem)) ||
        (hasBias && !inAllocation(reinterpret_cast<uintptr_t>(bias),
                                  uint64_t(m) * elementBytes(biasType))))
      return fail(CUDA_ERROR_ILLEGAL_ADDRESS,
                  "cublasLtMatmul: an operand lies outside device memory");
    for (int64_t bi = 0; bi < batch; ++bi) {
      const int64_t aBase = bi * la.stride, bBase = bi * lb.stride,
                    dBase = bi * ld.stride;
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
          float acc = 0.0f;
          for (int64_t p = 0; p < k; ++p) {
            float av =
                loadElement(A, abType,
                            aBase + (o.transa == CUBLAS_OP_N ? p * la.ld + i
                                                             : i * la.ld + p));
            float bv =
                loadElement(B, abType,
                            bBase + (o.transb == CUBLAS_OP_N ? j * lb.ld + p
                                                             : p * lb.ld + j));
            if (o.compute == CUBLAS_COMPUTE_32F_FAST_TF32) {
              av = roundToTf32(av);
              bv = roundToTf32(bv);
            }
            acc += av * bv;
          }
          const int64_t di = dBase + j * ld.ld + i;
          float r = al * acc;
          if (be != 0.0f)
            r += be * loadElement(C, type, di);
          if (hasBias)
            r += loadElement(bias, biasType, i);
          if (relu) {
            r = std::fmax(r, 0.0f);
          } else if (gelu) {
            const float inner = 0.7978845608f * (r + 0.044715f * r * r * r);
            r = 0.5f * r * (1.0f + std::tanh(inner));
          }
          storeElement(D, type, di, r);
        }
    }
    return CUDA_SUCCESS;
  });
  return CUBLAS_STATUS_SUCCESS;
}

} // extern "C"

//===----------------------------------------------------------------------===//
// cuDNN: the legacy convolution API dlc uses (runtime/CudaDnn.cpp)
//===----------------------------------------------------------------------===//

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

cudnnStatus_t dnnFail(cudnnStatus_t r, const std::string &why) {
  state().lastError = why;
  return r;
}

/// The element type cuDNN's data type names, as cuBLAS names it.
bool dnnType(cudnnDataType_t t, cudaDataType &out) {
  switch (t) {
  case CUDNN_DATA_FLOAT:
    out = CUDA_R_32F;
    return true;
  case CUDNN_DATA_HALF:
    out = CUDA_R_16F;
    return true;
  case CUDNN_DATA_BFLOAT16:
    out = CUDA_R_16BF;
    return true;
  default:
    return false;
  }
}

template <typename T> cudnnStatus_t create(T **out, std::set<T *> &live) {
  if (!out)
    return dnnFail(CUDNN_STATUS_BAD_PARAM, "create: null output");
  T *t = new T();
  live.insert(t);
  *out = t;
  return CUDNN_STATUS_SUCCESS;
}

template <typename T> cudnnStatus_t destroy(T *t, std::set<T *> &live) {
  if (!live.erase(t))
    return dnnFail(CUDNN_STATUS_BAD_PARAM, "destroy: unknown descriptor");
  delete t;
  return CUDNN_STATUS_SUCCESS;
}

/// Checks a convolution's descriptors as cuDNN does: known objects, set,
/// NHWC data of one emulated type, shapes that agree.
cudnnStatus_t checkConv(cudnnHandle_t handle, cudnnTensorStruct *x,
                        cudnnFilterStruct *w, cudnnConvolutionStruct *conv,
                        cudnnTensorStruct *y, const char *call) {
  DnnState &D = dnnState();
  std::string where = call;
  if (!D.handles.count(handle))
    return dnnFail(CUDNN_STATUS_NOT_INITIALIZED, where + ": bad handle");
  if (!D.tensors.count(x) || !D.tensors.count(y) || !D.filters.count(w) ||
      !D.convs.count(conv) || !x->set || !y->set || !w->set || !conv->set)
    return dnnFail(CUDNN_STATUS_BAD_PARAM, where + ": bad descriptor");
  cudaDataType t = CUDA_R_32F;
  if (x->format != CUDNN_TENSOR_NHWC || y->format != CUDNN_TENSOR_NHWC ||
      w->format != CUDNN_TENSOR_NHWC || x->type != y->type ||
      x->type != w->type || !dnnType(x->type, t))
    return dnnFail(CUDNN_STATUS_NOT_SUPPORTED,
                   where + ": the fake emulates NHWC f32, f16 and bf16 only");
  auto out = [](int in, int pad, int k, int dil, int stride) {
    return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  };
  if (x->c != w->c * conv->groups || y->c != w->k || y->n != x->n ||
      w->k % conv->groups != 0 ||
      y->h != out(x->h, conv->padH, w->h, conv->dilH, conv->strideH) ||
      y->w != out(x->w, conv->padW, w->w, conv->dilW, conv->strideW))
    return dnnFail(CUDNN_STATUS_BAD_PARAM, where + ": shapes disagree");
  return CUDNN_STATUS_SUCCESS;
}

/// Enqueues y = act(alpha * conv(x, w) + alpha2 * z + bias) (bias and act
/// optional) on the handle's stream, computed directly in f32.
cudnnStatus_t enqueueConv(cudnnHandle_t handle, float alpha,
                          const cudnnTensorStruct x, const void *xData,
                          const cudnnFilterStruct w, const void *wData,
                          const cudnnConvolutionStruct conv, float beta,
                          float alpha2, const void *z, const void *bias,
                          bool relu, const cudnnTensorStruct y, void *yData,
                          const char *call) {
  cudaDataType t = CUDA_R_32F;
  dnnType(x.type, t);
  const size_t es = elementBytes(t);
  // (By value: the operation may run later, from a graph.)
  auto bytes = [es](int64_t a, int64_t b, int64_t c, int64_t d) {
    return uint64_t(a) * uint64_t(b) * uint64_t(c) * uint64_t(d) * es;
  };
  ++state().stats.cudnnConvs;
  std::string where = call;
  return enqueue(
             handle->stream,
             [=]() -> CUresult {
               if (!inAllocation(uintptr_t(xData), bytes(x.n, x.h, x.w, x.c)) ||
                   !inAllocation(uintptr_t(wData), bytes(w.k, w.h, w.w, w.c)) ||
                   !inAllocation(uintptr_t(yData), bytes(y.n, y.h, y.w, y.c)) ||
                   (z &&
                    !inAllocation(uintptr_t(z), bytes(y.n, y.h, y.w, y.c))) ||
                   (bias &&
                    !inAllocation(uintptr_t(bias), bytes(1, 1, 1, y.c))))
                 return fail(CUDA_ERROR_ILLEGAL_ADDRESS,
                             where + ": an operand lies outside device memory");
               const int kg = w.k / conv.groups;
               std::vector<float> out(size_t(y.n) * y.h * y.w * y.c);
               for (int n = 0; n < y.n; ++n)
                 for (int p = 0; p < y.h; ++p)
                   for (int q = 0; q < y.w; ++q)
                     for (int k = 0; k < y.c; ++k) {
                       const int g = k / kg;
                       float acc = 0.0f;
                       for (int r = 0; r < w.h; ++r)
                         for (int s2 = 0; s2 < w.w; ++s2) {
                           int ih =
                               p * conv.strideH - conv.padH + r * conv.dilH;
                           int iw =
                               q * conv.strideW - conv.padW + s2 * conv.dilW;
                           if (ih < 0 || ih >= x.h || iw < 0 || iw >= x.w)
                             continue;
                           for (int c = 0; c < w.c; ++c) {
                             float xv = loadElement(
                                 xData, t,
                                 ((int64_t(n) * x.h + ih) * x.w + iw) * x.c +
                                     g * w.c + c);
                             float wv = loadElement(
                                 wData, t,
                                 ((int64_t(k) * w.h + r) * w.w + s2) * w.c + c);
                             if (t == CUDA_R_32F &&
                                 conv.math != CUDNN_FMA_MATH) {
                               xv = roundToTf32(xv);
                               wv = roundToTf32(wv);
                             }
                             acc += xv * wv;
                           }
                         }
                       const int64_t i =
                           ((int64_t(n) * y.h + p) * y.w + q) * y.c + k;
                       float v = alpha * acc;
                       if (beta != 0.0f)
                         v += beta * loadElement(yData, t, i);
                       if (z && alpha2 != 0.0f)
                         v += alpha2 * loadElement(z, t, i);
                       if (bias)
                         v += loadElement(bias, t, k);
                       if (relu)
                         v = std::fmax(v, 0.0f);
                       out[i] = v;
                     }
               for (size_t i = 0; i < out.size(); ++i)
                 storeElement(yData, t, int64_t(i), out[i]);
               return CUDA_SUCCESS;
             }) == CUDA_SUCCESS
             ? CUDNN_STATUS_SUCCESS
             : dnnFail(CUDNN_STATUS_EXECUTION_FAILED, where + ": bad stream");
}

} // namespace

extern "C" {

size_t cudnnGetVersion() { return CUDNN_VERSION; }

const char *cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
  case CUDNN_STATUS_SUCCESS:
    return "CUDNN_STATUS_SUCCESS";
  case CUDNN_STATUS_NOT_INITIALIZED:
    return "CUDNN_STATUS_NOT_INITIALIZED";
  case CUDNN_STATUS_ALLOC_FAILED:
    return "CUDNN_STATUS_ALLOC_FAILED";
  case CUDNN_STATUS_BAD_PARAM:
    return "CUDNN_STATUS_BAD_PARAM";
  case CUDNN_STATUS_NOT_SUPPORTED:
    return "CUDNN_STATUS_NOT_SUPPORTED";
  case CUDNN_STATUS_EXECUTION_FAILED:
    return "CUDNN_STATUS_EXECUTION_FAILED";
  default:
    return "CUDNN_STATUS_INTERNAL_ERROR";
  }
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
  FAKE_LOCK;
  if (!S.initialized)
    return dnnFail(CUDNN_STATUS_NOT_INITIALIZED, "cudnnCreate: no cuInit");
  return create(handle, dnnState().handles);
}
cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  FAKE_LOCK;
  return destroy(handle, dnnState().handles);
}
cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream) {
  FAKE_LOCK;
  CUstream s = reinterpret_cast<CUstream>(stream);
  if (!dnnState().handles.count(handle) || !validStream(s))
    return dnnFail(CUDNN_STATUS_BAD_PARAM,
                   "cudnnSetStream: bad handle or stream");
  handle->stream = s;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *d) {
  FAKE_LOCK;
  return create(d, dnnState().tensors);
}
cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) {
  FAKE_LOCK;
  return destroy(d, dnnState().tensors);
}
cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t d,
                                         cudnnTensorFormat_t format,
                                         cudnnDataType_t type, int n, int c,
                                         int h, int w) {
  FAKE_LOCK;
  if (!dnnState().tensors.count(d) || n <= 0 || c <= 0 || h <= 0 || w <= 0)
    return dnnFail(CUDNN_STATUS_BAD_PARAM, "cudnnSetTensor4dDescriptor");
  *d = {true, format, type, n, c, h, w};
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *d) {
  FAKE_LOCK;
  return create(d, dnnState().filters);
}
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d) {
  FAKE_LOCK;
  return destroy(d, dnnState().filters);
}
cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t d,
                                         cudnnDataType_t type,
                                         cudnnTensorFormat_t format, int k,
                                         int c, int h, int w) {
  FAKE_LOCK;
  if (!dnnState().filters.count(d) || k <= 0 || c <= 0 || h <= 0 || w <= 0)
    return dnnFail(CUDNN_STATUS_BAD_PARAM, "cudnnSetFilter4dDescriptor");
  *d = {true, format, type, k, c, h, w};
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t
cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *d) {
  FAKE_LOCK;
  return create(d, dnnState().convs);
}
cudnnStatus_t
cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d) {
  FAKE_LOCK;
  return destroy(d, dnnState().convs);
}
cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t d,
                                              int padH, int padW, int u, int v,
                                              int dilH, int dilW,
                                              cudnnConvolutionMode_t mode,
                                              cudnnDataType_t compute) {
  FAKE_LOCK;
  if (!dnnState().convs.count(d) || padH < 0 || padW < 0 || u <= 0 || v <= 0 ||
      dilH <= 0 || dilW <= 0 || mode != CUDNN_CROSS_CORRELATION ||
      compute != CUDNN_DATA_FLOAT)
    return dnnFail(CUDNN_STATUS_BAD_PARAM, "cudnnSetConvolution2dDescriptor");
  d->set = true;
  d->padH = padH;
  d->padW = padW;
  d->strideH = u;
  d->strideW = v;
  d->dilH = dilH;
  d->dilW = dilW;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t d,
                                            int groups) {
  FAKE_LOCK;
  if (!dnnState().convs.count(d) || groups <= 0)
    return dnnFail(CUDNN_STATUS_BAD_PARAM, "cudnnSetConvolutionGroupCount");
  d->groups = groups;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t d,
                                          cudnnMathType_t math) {
  FAKE_LOCK;
  if (!dnnState().convs.count(d))
    return dnnFail(CUDNN_STATUS_BAD_PARAM, "cudnnSetConvolutionMathType");
  d->math = math;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *d) {
  FAKE_LOCK;
  return create(d, dnnState().activations);
}
cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t d) {
  FAKE_LOCK;
  return destroy(d, dnnState().activations);
}
cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t d,
                                           cudnnActivationMode_t mode,
                                           cudnnNanPropagation_t, double) {
  FAKE_LOCK;
  if (!dnnState().activations.count(d) ||
      (mode != CUDNN_ACTIVATION_RELU && mode != CUDNN_ACTIVATION_IDENTITY))
    return dnnFail(CUDNN_STATUS_BAD_PARAM, "cudnnSetActivationDescriptor");
  d->set = true;
  d->mode = mode;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, int requested,
    int *returned, cudnnConvolutionFwdAlgoPerf_t *perf) {
  FAKE_LOCK;
  if (cudnnStatus_t st = checkConv(handle, x, w, conv, y,
                                   "cudnnGetConvolutionForwardAlgorithm_v7"))
    return st;
  if (requested < 1 || !returned || !perf)
    return dnnFail(CUDNN_STATUS_BAD_PARAM,
                   "cudnnGetConvolutionForwardAlgorithm_v7: no room");
  perf[0] = {};
  perf[0].algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  perf[0].status = CUDNN_STATUS_SUCCESS;
  perf[0].memory = 1024;
  *returned = 1;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y,
    cudnnConvolutionFwdAlgo_t, size_t *bytes) {
  FAKE_LOCK;
  if (cudnnStatus_t st = checkConv(handle, x, w, conv, y,
                                   "cudnnGetConvolutionForwardWorkspaceSize"))
    return st;
  if (!bytes)
    return dnnFail(CUDNN_STATUS_BAD_PARAM,
                   "cudnnGetConvolutionForwardWorkspaceSize: null size");
  *bytes = 1024; // the fake asks for a workspace, so that one is passed
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnConvolutionForward(
    cudnnHandle_t handle, const void *alpha, cudnnTensorDescriptor_t x,
    const void *xData, cudnnFilterDescriptor_t w, const void *wData,
    cudnnConvolutionDescriptor_t conv, cudnnConvolutionFwdAlgo_t,
    void *workspace, size_t workspaceBytes, const void *beta,
    cudnnTensorDescriptor_t y, void *yData) {
  FAKE_LOCK;
  if (cudnnStatus_t st =
          checkConv(handle, x, w, conv, y, "cudnnConvolutionForward"))
    return st;
  if (!alpha || !beta || workspaceBytes < 1024 ||
      !inAllocation(uintptr_t(workspace), workspaceBytes))
    return dnnFail(CUDNN_STATUS_BAD_PARAM,
                   "cudnnConvolutionForward: no scales or workspace");
  return enqueueConv(handle, *static_cast<const float *>(alpha), *x, xData, *w,
                     wData, *conv, *static_cast<const float *>(beta), 0.0f,
                     nullptr, nullptr, false, *y, yData,
                     "cudnnConvolutionForward");
}
cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void *alpha1, cudnnTensorDescriptor_t x,
    const void *xData, cudnnFilterDescriptor_t w, const void *wData,
    cudnnConvolutionDescriptor_t conv, cudnnConvolutionFwdAlgo_t algo,
    void *workspace, size_t workspaceBytes, const void *alpha2,
    cudnnTensorDescriptor_t zDesc, const void *z, cudnnTensorDescriptor_t bias,
    const void *biasData, cudnnActivationDescriptor_t act,
    cudnnTensorDescriptor_t y, void *yData) {
  FAKE_LOCK;
  const char *call = "cudnnConvolutionBiasActivationForward";
  if (cudnnStatus_t st = checkConv(handle, x, w, conv, y, call))
    return st;
  DnnState &D = dnnState();
  if (!alpha1 || !alpha2 || !D.tensors.count(zDesc) || !D.tensors.count(bias) ||
      !D.activations.count(act) || !act->set || !biasData || zDesc->c != y->c ||
      bias->c != y->c || workspaceBytes < 1024 ||
      !inAllocation(uintptr_t(workspace), workspaceBytes))
    return dnnFail(CUDNN_STATUS_BAD_PARAM,
                   std::string(call) +
                       ": bad z, bias, activation or workspace");
  // As cuDNN: the identity activation only with the implicit precomputed
  // GEMM.
  if (act->mode == CUDNN_ACTIVATION_IDENTITY &&
      algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
    return dnnFail(CUDNN_STATUS_NOT_SUPPORTED,
                   std::string(call) +
                       ": identity needs IMPLICIT_PRECOMP_GEMM");
  return enqueueConv(handle, *static_cast<const float *>(alpha1), *x, xData, *w,
                     wData, *conv, 0.0f, *static_cast<const float *>(alpha2), z,
                     biasData, act->mode == CUDNN_ACTIVATION_RELU, *y, yData,
                     call);
}

} // extern "C"

#pragma GCC diagnostic pop
