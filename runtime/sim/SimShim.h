//===- SimShim.h - CUDA device builtins for the sim device ------*- C++ -*-===//
//
// The sim device compiles generated CUDA source with the host C++ compiler:
//
//   c++ -std=c++17 -O1 -fPIC -shared -DDLC_SIM -nostdinc -nostdinc++
//       -include SimShim.h kernels.cpp
//
// after checking that the source is what dlc's code generator writes
// (runtime/SimSourceCheck.cpp): the names it may use of this header are
// listed there too. The shim is ours and is not checked; it includes no
// header, so nothing but it and the checked source is compiled.
//
// This header supplies what that source may use from CUDA: the execution
// space keywords, threadIdx/blockIdx/blockDim/gridDim, barriers, warp
// shuffles and votes, atomics, vector types, math functions, half/bfloat16
// types and conversions. The runtime embeds this file as a string, writes it
// next to the source and passes it with -include; docs/sim.md explains the
// execution model.
//
// The first part (the ABI) is shared with the runtime, which includes this
// file with DLC_SIM_ABI_ONLY defined. Kernel code reaches the runtime only
// through dlc_sim::ThreadState: one per OS thread, where the runtime stores
// the current thread's coordinates and the hooks that implement barriers.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_SIM_SHIM_H
#define DLC_SIM_SHIM_H

namespace dlc_sim {

/// Bumped whenever ThreadState or Hooks change.
constexpr unsigned kAbiVersion = 1;

struct Uint3 {
  unsigned int x, y, z;
};

struct Dim3 {
  unsigned int x, y, z;
  constexpr Dim3(unsigned int x = 1, unsigned int y = 1, unsigned int z = 1)
      : x(x), y(y), z(z) {}
  constexpr Dim3(Uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator Uint3() const { return Uint3{x, y, z}; }
};

/// Warp collectives; the runtime does the exchange between the threads.
enum WarpOp : int {
  kWarpSync = 0, ///< __syncwarp
  kShflIdx = 1,  ///< __shfl_sync
  kShflUp = 2,   ///< __shfl_up_sync
  kShflDown = 3, ///< __shfl_down_sync
  kShflXor = 4,  ///< __shfl_xor_sync
  kBallot = 5,   ///< __ballot_sync
  kAny = 6,      ///< __any_sync
  kAll = 7,      ///< __all_sync
};

struct Hooks {
  unsigned abiVersion;
  /// __syncthreads(): returns once every thread of the block arrived.
  void (*syncthreads)(void *ctx);
  /// A warp collective over the lanes in `mask`. `value` is the calling
  /// lane's operand (bits of up to 8 bytes, or the predicate), `param` the
  /// source lane, delta or lane mask, `width` the shuffle segment width.
  unsigned long long (*warpOp)(void *ctx, int op, unsigned mask,
                               unsigned long long value, int param, int width);
};

/// Per OS thread: the CUDA thread currently running on it.
struct ThreadState {
  Uint3 tid; ///< threadIdx
  Uint3 bid; ///< blockIdx
  Dim3 bdim; ///< blockDim
  Dim3 gdim; ///< gridDim
  const Hooks *hooks;
  void *ctx;
};

} // namespace dlc_sim

#ifndef DLC_SIM_ABI_ONLY

// The C library's math functions, declared here rather than through
// <math.h>: in C++ that header brings in all of <cmath>, which made every
// kernel compilation 0.2 s slower (most of the cost of a small one). The
// float overloads of the unsuffixed names are <cmath>'s and CUDA's (`exp`
// of a float is expf).
extern "C" {
float expf(float) noexcept;
double exp(double) noexcept;
float exp2f(float) noexcept;
double exp2(double) noexcept;
float expm1f(float) noexcept;
double expm1(double) noexcept;
float logf(float) noexcept;
double log(double) noexcept;
float log2f(float) noexcept;
double log2(double) noexcept;
float log10f(float) noexcept;
double log10(double) noexcept;
float log1pf(float) noexcept;
double log1p(double) noexcept;
float sqrtf(float) noexcept;
double sqrt(double) noexcept;
float cbrtf(float) noexcept;
double cbrt(double) noexcept;
float sinf(float) noexcept;
double sin(double) noexcept;
float cosf(float) noexcept;
double cos(double) noexcept;
float tanf(float) noexcept;
double tan(double) noexcept;
float asinf(float) noexcept;
double asin(double) noexcept;
float acosf(float) noexcept;
double acos(double) noexcept;
float atanf(float) noexcept;
double atan(double) noexcept;
float sinhf(float) noexcept;
double sinh(double) noexcept;
float coshf(float) noexcept;
double cosh(double) noexcept;
float tanhf(float) noexcept;
double tanh(double) noexcept;
float asinhf(float) noexcept;
double asinh(double) noexcept;
float acoshf(float) noexcept;
double acosh(double) noexcept;
float atanhf(float) noexcept;
double atanh(double) noexcept;
float fabsf(float) noexcept;
double fabs(double) noexcept;
float floorf(float) noexcept;
double floor(double) noexcept;
float ceilf(float) noexcept;
double ceil(double) noexcept;
float truncf(float) noexcept;
double trunc(double) noexcept;
float roundf(float) noexcept;
double round(double) noexcept;
float rintf(float) noexcept;
double rint(double) noexcept;
float nearbyintf(float) noexcept;
double nearbyint(double) noexcept;
float erff(float) noexcept;
double erf(double) noexcept;
float erfcf(float) noexcept;
double erfc(double) noexcept;
float lgammaf(float) noexcept;
double lgamma(double) noexcept;
float tgammaf(float) noexcept;
double tgamma(double) noexcept;
float logbf(float) noexcept;
double logb(double) noexcept;
float powf(float, float) noexcept;
double pow(double, double) noexcept;
float atan2f(float, float) noexcept;
double atan2(double, double) noexcept;
float fminf(float, float) noexcept;
double fmin(double, double) noexcept;
float fmaxf(float, float) noexcept;
double fmax(double, double) noexcept;
float fmodf(float, float) noexcept;
double fmod(double, double) noexcept;
float remainderf(float, float) noexcept;
double remainder(double, double) noexcept;
float hypotf(float, float) noexcept;
double hypot(double, double) noexcept;
float copysignf(float, float) noexcept;
double copysign(double, double) noexcept;
float fdimf(float, float) noexcept;
double fdim(double, double) noexcept;
float nextafterf(float, float) noexcept;
double nextafter(double, double) noexcept;
float fmaf(float, float, float) noexcept;
double fma(double, double, double) noexcept;
float ldexpf(float, int) noexcept;
double ldexp(double, int) noexcept;
float frexpf(float, int *) noexcept;
double frexp(double, int *) noexcept;
float modff(float, float *) noexcept;
double modf(double, double *) noexcept;
float scalbnf(float, int) noexcept;
double scalbn(double, int) noexcept;
int ilogbf(float) noexcept;
int ilogb(double) noexcept;
long lrintf(float) noexcept;
long long llrintf(float) noexcept;
long lroundf(float) noexcept;
long long llroundf(float) noexcept;
long lrint(double) noexcept;
long long llrint(double) noexcept;
long lround(double) noexcept;
long long llround(double) noexcept;
}
static inline float exp(float x) { return expf(x); }
static inline float exp2(float x) { return exp2f(x); }
static inline float expm1(float x) { return expm1f(x); }
static inline float log(float x) { return logf(x); }
static inline float log2(float x) { return log2f(x); }
static inline float log10(float x) { return log10f(x); }
static inline float log1p(float x) { return log1pf(x); }
static inline float sqrt(float x) { return sqrtf(x); }
static inline float cbrt(float x) { return cbrtf(x); }
static inline float sin(float x) { return sinf(x); }
static inline float cos(float x) { return cosf(x); }
static inline float tan(float x) { return tanf(x); }
static inline float asin(float x) { return asinf(x); }
static inline float acos(float x) { return acosf(x); }
static inline float atan(float x) { return atanf(x); }
static inline float sinh(float x) { return sinhf(x); }
static inline float cosh(float x) { return coshf(x); }
static inline float tanh(float x) { return tanhf(x); }
static inline float asinh(float x) { return asinhf(x); }
static inline float acosh(float x) { return acoshf(x); }
static inline float atanh(float x) { return atanhf(x); }
static inline float fabs(float x) { return fabsf(x); }
static inline float floor(float x) { return floorf(x); }
static inline float ceil(float x) { return ceilf(x); }
static inline float trunc(float x) { return truncf(x); }
static inline float round(float x) { return roundf(x); }
static inline float rint(float x) { return rintf(x); }
static inline float nearbyint(float x) { return nearbyintf(x); }
static inline float erf(float x) { return erff(x); }
static inline float erfc(float x) { return erfcf(x); }
static inline float lgamma(float x) { return lgammaf(x); }
static inline float tgamma(float x) { return tgammaf(x); }
static inline float logb(float x) { return logbf(x); }
static inline float pow(float x, float y) { return powf(x, y); }
static inline float atan2(float x, float y) { return atan2f(x, y); }
static inline float fmin(float x, float y) { return fminf(x, y); }
static inline float fmax(float x, float y) { return fmaxf(x, y); }
static inline float fmod(float x, float y) { return fmodf(x, y); }
static inline float remainder(float x, float y) { return remainderf(x, y); }
static inline float hypot(float x, float y) { return hypotf(x, y); }
static inline float copysign(float x, float y) { return copysignf(x, y); }
static inline float fdim(float x, float y) { return fdimf(x, y); }
static inline float nextafter(float x, float y) { return nextafterf(x, y); }
static inline float fma(float x, float y, float z) { return fmaf(x, y, z); }
static inline float ldexp(float x, int e) { return ldexpf(x, e); }
static inline float scalbn(float x, int e) { return scalbnf(x, e); }
static inline int ilogb(float x) { return ilogbf(x); }
static inline bool isnan(float x) { return __builtin_isnan(x); }
static inline bool isnan(double x) { return __builtin_isnan(x); }
static inline bool isinf(float x) { return __builtin_isinf(x); }
static inline bool isinf(double x) { return __builtin_isinf(x); }
static inline bool isfinite(float x) { return __builtin_isfinite(x); }
static inline bool isfinite(double x) { return __builtin_isfinite(x); }
static inline bool signbit(float x) { return __builtin_signbit(x); }
static inline bool signbit(double x) { return __builtin_signbit(x); }
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define HUGE_VALF (__builtin_huge_valf())
#define HUGE_VAL (__builtin_huge_val())

// The source is compiled with -nostdinc -nostdinc++ (it may not read any
// file): the shim includes no header. What it needs of <type_traits> (for
// min and max) follows; memcpy is the compiler's __builtin_memcpy.
namespace dlc_sim {
template <bool B, typename T = void> struct EnableIf {};
template <typename T> struct EnableIf<true, T> { typedef T type; };
template <typename T> struct IsArithmetic {
  static constexpr bool value = false;
};
template <typename T> struct IsFloatingPoint {
  static constexpr bool value = false;
};
#define DLC_SIM_ARITHMETIC(T)                                                  \
  template <> struct IsArithmetic<T> { static constexpr bool value = true; };
DLC_SIM_ARITHMETIC(bool)
DLC_SIM_ARITHMETIC(char)
DLC_SIM_ARITHMETIC(signed char)
DLC_SIM_ARITHMETIC(unsigned char)
DLC_SIM_ARITHMETIC(wchar_t)
DLC_SIM_ARITHMETIC(char16_t)
DLC_SIM_ARITHMETIC(char32_t)
DLC_SIM_ARITHMETIC(short)
DLC_SIM_ARITHMETIC(unsigned short)
DLC_SIM_ARITHMETIC(int)
DLC_SIM_ARITHMETIC(unsigned int)
DLC_SIM_ARITHMETIC(long)
DLC_SIM_ARITHMETIC(unsigned long)
DLC_SIM_ARITHMETIC(long long)
DLC_SIM_ARITHMETIC(unsigned long long)
DLC_SIM_ARITHMETIC(float)
DLC_SIM_ARITHMETIC(double)
DLC_SIM_ARITHMETIC(long double)
#undef DLC_SIM_ARITHMETIC
template <> struct IsFloatingPoint<float> {
  static constexpr bool value = true;
};
template <> struct IsFloatingPoint<double> {
  static constexpr bool value = true;
};
template <> struct IsFloatingPoint<long double> {
  static constexpr bool value = true;
};
/// std::common_type of two arithmetic types: the usual arithmetic
/// conversions.
template <typename A, typename B> struct CommonType {
  typedef decltype(true ? A() : B()) type;
};
} // namespace dlc_sim

namespace dlc_sim {
// Internal linkage on purpose: an inline variable would be a GNU "unique"
// symbol, which makes the shared object impossible to unload.
static thread_local ThreadState tls;
} // namespace dlc_sim

extern "C" __attribute__((visibility("default"))) dlc_sim::ThreadState *
dlc_sim_thread_state(void) {
  return &dlc_sim::tls;
}
extern "C" __attribute__((visibility("default"))) unsigned
dlc_sim_abi_version(void) {
  return dlc_sim::kAbiVersion;
}

//===----------------------------------------------------------------------===//
// Execution space keywords and built-in variables
//===----------------------------------------------------------------------===//

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
// Each OS thread runs one block at a time, and all threads of a block run on
// the same OS thread (as fibers), so thread-local statics are exactly
// per-block shared memory. Only static __shared__ arrays are supported, not
// `extern __shared__` (dynamic shared memory).
#define __shared__ static thread_local
#define __constant__
#define __launch_bounds__(...)
// __restrict__ is already a keyword of GCC and Clang.

typedef dlc_sim::Uint3 uint3;
typedef dlc_sim::Dim3 dim3;

#define threadIdx (static_cast<const uint3 &>(::dlc_sim::tls.tid))
#define blockIdx (static_cast<const uint3 &>(::dlc_sim::tls.bid))
#define blockDim (static_cast<const dim3 &>(::dlc_sim::tls.bdim))
#define gridDim (static_cast<const dim3 &>(::dlc_sim::tls.gdim))
constexpr int warpSize = 32;

//===----------------------------------------------------------------------===//
// Barriers, shuffles and votes
//===----------------------------------------------------------------------===//

static inline void __syncthreads() {
  ::dlc_sim::tls.hooks->syncthreads(::dlc_sim::tls.ctx);
}

namespace dlc_sim {
inline unsigned long long
warpOp(int op, unsigned mask, unsigned long long value, int param, int width) {
  return tls.hooks->warpOp(tls.ctx, op, mask, value, param, width);
}
template <typename T> inline unsigned long long toBits(T v) {
  static_assert(sizeof(T) <= 8 && __is_trivially_copyable(T),
                "shuffles move values of up to 8 bytes");
  unsigned long long bits = 0;
  __builtin_memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <typename T> inline T fromBits(unsigned long long bits) {
  T v;
  __builtin_memcpy(&v, &bits, sizeof(T));
  return v;
}
} // namespace dlc_sim

static inline void __syncwarp(unsigned mask = 0xffffffffu) {
  dlc_sim::warpOp(dlc_sim::kWarpSync, mask, 0, 0, warpSize);
}

template <typename T>
inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize) {
  return dlc_sim::fromBits<T>(dlc_sim::warpOp(
      dlc_sim::kShflIdx, mask, dlc_sim::toBits(var), srcLane, width));
}
template <typename T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned int delta,
                        int width = warpSize) {
  return dlc_sim::fromBits<T>(dlc_sim::warpOp(
      dlc_sim::kShflUp, mask, dlc_sim::toBits(var), int(delta), width));
}
template <typename T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned int delta,
                          int width = warpSize) {
  return dlc_sim::fromBits<T>(dlc_sim::warpOp(
      dlc_sim::kShflDown, mask, dlc_sim::toBits(var), int(delta), width));
}
template <typename T>
inline T __shfl_xor_sync(unsigned mask, T var, int laneMask,
                         int width = warpSize) {
  return dlc_sim::fromBits<T>(dlc_sim::warpOp(
      dlc_sim::kShflXor, mask, dlc_sim::toBits(var), laneMask, width));
}
static inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return unsigned(
      dlc_sim::warpOp(dlc_sim::kBallot, mask, predicate != 0, 0, warpSize));
}
static inline int __any_sync(unsigned mask, int predicate) {
  return int(dlc_sim::warpOp(dlc_sim::kAny, mask, predicate != 0, 0, warpSize));
}
static inline int __all_sync(unsigned mask, int predicate) {
  return int(dlc_sim::warpOp(dlc_sim::kAll, mask, predicate != 0, 0, warpSize));
}

static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block() {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

//===----------------------------------------------------------------------===//
// Atomics: blocks run concurrently on several OS threads, so these are real
// atomic operations.
//===----------------------------------------------------------------------===//

#define DLC_SIM_ATOMIC_INT(T)                                                  \
  static inline T atomicAdd(T *a, T v) {                                       \
    return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                         \
  }                                                                            \
  static inline T atomicSub(T *a, T v) {                                       \
    return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                         \
  }                                                                            \
  static inline T atomicAnd(T *a, T v) {                                       \
    return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                         \
  }                                                                            \
  static inline T atomicOr(T *a, T v) {                                        \
    return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                          \
  }                                                                            \
  static inline T atomicXor(T *a, T v) {                                       \
    return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                         \
  }                                                                            \
  static inline T atomicExch(T *a, T v) {                                      \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                        \
  }                                                                            \
  static inline T atomicCAS(T *a, T compare, T v) {                            \
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST,       \
                                __ATOMIC_SEQ_CST);                             \
    return compare;                                                            \
  }                                                                            \
  static inline T atomicMax(T *a, T v) {                                       \
    T old = __atomic_load_n(a, __ATOMIC_SEQ_CST);                              \
    while (old < v &&                                                          \
           !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST,    \
                                        __ATOMIC_SEQ_CST)) {                   \
    }                                                                          \
    return old;                                                                \
  }                                                                            \
  static inline T atomicMin(T *a, T v) {                                       \
    T old = __atomic_load_n(a, __ATOMIC_SEQ_CST);                              \
    while (old > v &&                                                          \
           !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST,    \
                                        __ATOMIC_SEQ_CST)) {                   \
    }                                                                          \
    return old;                                                                \
  }
DLC_SIM_ATOMIC_INT(int)
DLC_SIM_ATOMIC_INT(unsigned int)
DLC_SIM_ATOMIC_INT(long long)
DLC_SIM_ATOMIC_INT(unsigned long long)
#undef DLC_SIM_ATOMIC_INT

static inline unsigned short
atomicCAS(unsigned short *a, unsigned short compare, unsigned short v) {
  __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST,
                              __ATOMIC_SEQ_CST);
  return compare;
}

#define DLC_SIM_ATOMIC_FLOAT(T, U)                                             \
  static inline T atomicAdd(T *a, T v) {                                       \
    U *bits = reinterpret_cast<U *>(a);                                        \
    U old = __atomic_load_n(bits, __ATOMIC_SEQ_CST);                           \
    while (true) {                                                             \
      T cur;                                                                   \
      __builtin_memcpy(&cur, &old, sizeof(T));                                 \
      T next = cur + v;                                                        \
      U nextBits;                                                              \
      __builtin_memcpy(&nextBits, &next, sizeof(T));                           \
      if (__atomic_compare_exchange_n(bits, &old, nextBits, true,              \
                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))     \
        return cur;                                                            \
    }                                                                          \
  }                                                                            \
  static inline T atomicExch(T *a, T v) {                                      \
    U nextBits;                                                                \
    __builtin_memcpy(&nextBits, &v, sizeof(T));                                \
    U old = __atomic_exchange_n(reinterpret_cast<U *>(a), nextBits,            \
                                __ATOMIC_SEQ_CST);                             \
    T r;                                                                       \
    __builtin_memcpy(&r, &old, sizeof(T));                                     \
    return r;                                                                  \
  }
DLC_SIM_ATOMIC_FLOAT(float, unsigned int)
DLC_SIM_ATOMIC_FLOAT(double, unsigned long long)
#undef DLC_SIM_ATOMIC_FLOAT

//===----------------------------------------------------------------------===//
// Vector types
//===----------------------------------------------------------------------===//

struct alignas(8) float2 {
  float x, y;
};
struct float3 {
  float x, y, z;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) int2 {
  int x, y;
};
struct alignas(16) int4 {
  int x, y, z, w;
};
struct alignas(8) uint2 {
  unsigned int x, y;
};
struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};
struct alignas(4) ushort2 {
  unsigned short x, y;
};
struct alignas(8) ushort4 {
  unsigned short x, y, z, w;
};
struct alignas(4) uchar4 {
  unsigned char x, y, z, w;
};

static inline float2 make_float2(float x, float y) { return {x, y}; }
static inline float3 make_float3(float x, float y, float z) {
  return {x, y, z};
}
static inline float4 make_float4(float x, float y, float z, float w) {
  return {x, y, z, w};
}
static inline int2 make_int2(int x, int y) { return {x, y}; }
static inline int4 make_int4(int x, int y, int z, int w) {
  return {x, y, z, w};
}
static inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
static inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) {
  return {x, y, z};
}
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  return {x, y, z, w};
}
static inline ushort2 make_ushort2(unsigned short x, unsigned short y) {
  return {x, y};
}
static inline ushort4 make_ushort4(unsigned short x, unsigned short y,
                                   unsigned short z, unsigned short w) {
  return {x, y, z, w};
}
static inline uchar4 make_uchar4(unsigned char x, unsigned char y,
                                 unsigned char z, unsigned char w) {
  return {x, y, z, w};
}

//===----------------------------------------------------------------------===//
// Math. The C library provides expf, logf, tanhf, erff, sqrtf, powf, fabsf,
// fmaxf, fminf, floorf, ceilf, roundf, rintf, truncf, log1pf, expm1f, exp2f,
// log2f, sinf, cosf, fmaf and the double versions; CUDA's extras follow.
// The intrinsics map to the exact functions: the sim is a correctness
// device, not a model of fast-math error.
//===----------------------------------------------------------------------===//

static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
// Macros rather than functions, as they were when glibc's math.h (which
// declares __expf, __logf, ... as its internal names) was included.
#define __expf(x) expf(x)
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __powf(x, y) powf(x, y)
static inline float __fdividef(float x, float y) { return x / y; }
static inline float fdividef(float x, float y) { return x / y; }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline double __drcp_rn(double x) { return 1.0 / x; }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float __saturatef(float x) {
  return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f);
}
static inline float __int2float_rn(int x) { return float(x); }
static inline int __float2int_rn(float x) { return int(rintf(x)); }
static inline int __float2int_rz(float x) { return int(x); }
static inline int __float2int_rd(float x) { return int(floorf(x)); }
static inline int __float2int_ru(float x) { return int(ceilf(x)); }
static inline long long __float2ll_rn(float x) { return (long long)rintf(x); }
static inline long long __float2ll_rz(float x) { return (long long)x; }

/// CUDA's min and max accept any pair of arithmetic types with the usual
/// conversions; for floating point they are fminf/fmaxf (a NaN operand
/// yields the other one).
template <typename A, typename B,
          typename =
              typename dlc_sim::EnableIf<dlc_sim::IsArithmetic<A>::value &&
                                         dlc_sim::IsArithmetic<B>::value>::type>
static inline typename dlc_sim::CommonType<A, B>::type min(A a, B b) {
  typedef typename dlc_sim::CommonType<A, B>::type T;
  if constexpr (dlc_sim::IsFloatingPoint<T>::value)
    return fmin(T(a), T(b));
  else
    return T(a) < T(b) ? T(a) : T(b);
}
template <typename A, typename B,
          typename =
              typename dlc_sim::EnableIf<dlc_sim::IsArithmetic<A>::value &&
                                         dlc_sim::IsArithmetic<B>::value>::type>
static inline typename dlc_sim::CommonType<A, B>::type max(A a, B b) {
  typedef typename dlc_sim::CommonType<A, B>::type T;
  if constexpr (dlc_sim::IsFloatingPoint<T>::value)
    return fmax(T(a), T(b));
  else
    return T(a) < T(b) ? T(b) : T(a);
}

//===----------------------------------------------------------------------===//
// Bit manipulation
//===----------------------------------------------------------------------===//

static inline int __float_as_int(float x) {
  int r;
  __builtin_memcpy(&r, &x, 4);
  return r;
}
static inline float __int_as_float(int x) {
  float r;
  __builtin_memcpy(&r, &x, 4);
  return r;
}
static inline unsigned int __float_as_uint(float x) {
  unsigned int r;
  __builtin_memcpy(&r, &x, 4);
  return r;
}
static inline float __uint_as_float(unsigned int x) {
  float r;
  __builtin_memcpy(&r, &x, 4);
  return r;
}
static inline long long __double_as_longlong(double x) {
  long long r;
  __builtin_memcpy(&r, &x, 8);
  return r;
}
static inline double __longlong_as_double(long long x) {
  double r;
  __builtin_memcpy(&r, &x, 8);
  return r;
}
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) {
  return __builtin_popcountll(x);
}
static inline int __clz(int x) {
  return x == 0 ? 32 : __builtin_clz(unsigned(x));
}
static inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}
static inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return unsigned((unsigned long long)a * b >> 32);
}
static inline int __mulhi(int a, int b) { return int((long long)a * b >> 32); }

template <typename T> static inline T __ldg(const T *p) { return *p; }

//===----------------------------------------------------------------------===//
// Half and bfloat16: storage types with exact round-to-nearest-even
// conversions, done in software.
//===----------------------------------------------------------------------===//

namespace dlc_sim {
inline unsigned short floatToHalfBits(float f) {
  unsigned int x;
  __builtin_memcpy(&x, &f, 4);
  unsigned int sign = (x >> 16) & 0x8000u;
  unsigned int a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) // Inf, or NaN made quiet with its top payload bits
    return (
        unsigned short)(sign | 0x7c00u |
                        (a > 0x7f800000u ? 0x200u | ((a >> 13) & 0x3ffu) : 0u));
  if (a >= 0x477ff000u) // rounds to beyond 65504
    return (unsigned short)(sign | 0x7c00u);
  unsigned int q, rem, half;
  if (a >= 0x38800000u) { // normal: rebias the exponent by 127 - 15
    unsigned int r = a - 0x38000000u;
    q = r >> 13;
    rem = r & 0x1fffu;
    half = 0x1000u;
  } else {
    if (a < 0x33000000u) // below half of the smallest subnormal
      return (unsigned short)sign;
    unsigned int e = a >> 23;
    unsigned int m = (a & 0x7fffffu) | 0x800000u;
    unsigned int shift = 126 - e; // 14 .. 24
    q = m >> shift;
    rem = m & ((1u << shift) - 1);
    half = 1u << (shift - 1);
  }
  if (rem > half || (rem == half && (q & 1u)))
    ++q; // a carry into the exponent is the correct rounding
  return (unsigned short)(sign | q);
}
inline float halfBitsToFloat(unsigned short h) {
  unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
  unsigned int e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
  if (e == 0x1fu) {
    bits = sign | 0x7f800000u | (m << 13);
  } else if (e == 0) {
    if (m == 0) {
      bits = sign;
    } else {
      int shift = __builtin_clz(m) - 21; // bring the leading one to bit 10
      m <<= shift;
      bits = sign | ((unsigned int)(113 - shift) << 23) | ((m & 0x3ffu) << 13);
    }
  } else {
    bits = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}
inline unsigned short floatToBFloat16Bits(float f) {
  unsigned int x;
  __builtin_memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return (unsigned short)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (unsigned short)(x >> 16);
}
inline float bfloat16BitsToFloat(unsigned short h) {
  unsigned int bits = (unsigned int)h << 16;
  float f;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}
} // namespace dlc_sim

struct __half {
  unsigned short __x;
  __half() = default;
  __half(float f) : __x(dlc_sim::floatToHalfBits(f)) {}
  __half(double f) : __x(dlc_sim::floatToHalfBits(float(f))) {}
  __half(int i) : __x(dlc_sim::floatToHalfBits(float(i))) {}
  operator float() const { return dlc_sim::halfBitsToFloat(__x); }
};
struct __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : __x(dlc_sim::floatToBFloat16Bits(f)) {}
  __nv_bfloat16(double f) : __x(dlc_sim::floatToBFloat16Bits(float(f))) {}
  __nv_bfloat16(int i) : __x(dlc_sim::floatToBFloat16Bits(float(i))) {}
  operator float() const { return dlc_sim::bfloat16BitsToFloat(__x); }
};
typedef __half half;
typedef __nv_bfloat16 nv_bfloat16;

static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline float __half2float(__half h) {
  return dlc_sim::halfBitsToFloat(h.__x);
}
static inline __nv_bfloat16 __float2bfloat16(float f) {
  return __nv_bfloat16(f);
}
static inline __nv_bfloat16 __float2bfloat16_rn(float f) {
  return __nv_bfloat16(f);
}
static inline float __bfloat162float(__nv_bfloat16 h) {
  return dlc_sim::bfloat16BitsToFloat(h.__x);
}
static inline unsigned short __half_as_ushort(__half h) { return h.__x; }
static inline __half __ushort_as_half(unsigned short x) {
  __half h;
  h.__x = x;
  return h;
}
static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) {
  return h.__x;
}
static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short x) {
  __nv_bfloat16 h;
  h.__x = x;
  return h;
}

#endif // DLC_SIM_ABI_ONLY
#endif // DLC_SIM_SHIM_H
