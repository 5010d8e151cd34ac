//===- AttentionEmitter.cpp - Flash-attention kernels for dlc.attention ---===//
//
// Every dlc.attention becomes one kernel: a thin `extern "C" __global__`
// wrapper, specific to the op's shapes, that finds its batch's q, k, v, mask
// and output and calls one of two templates, emitted once per source:
//
// - dlc_attn_portable: one block per (batch, tile of BR queries), TPR
//   threads per query row. Tiles of Q, K and V are staged in shared memory
//   in their storage type; scores are plain f32 FMAs. Each row keeps a
//   running maximum m and sum l of its exponentiated scores and rescales its
//   output accumulator by exp(m_old - m_new) when the maximum grows (online
//   softmax), so the Sq x Sk scores never reach device memory. With
//   `causal`, key tiles above the diagonal are skipped entirely; mask
//   elements are read per tile, for the scores computed.
// - dlc_attn_mma (f16/bf16, head sizes multiples of 16, sm_80+): the same
//   algorithm with 16 query rows per warp; S = Q K^T and O += P V are
//   `mma.sync.aligned.m16n8k16` tensor-core products with f32 accumulation,
//   Q held in registers as A fragments, K and V^T staged in shared memory.
//   It is compiled only for sm_80+ GPUs: the sim device and older GPUs run
//   the portable template with the same launch configuration (64 queries
//   per 128-thread block). For tests, DLC_ATTENTION_SIM_MMA=1 in the
//   environment of code generation makes the sim run it too, with each
//   tensor-core product emulated by warp shuffles from the fragment layout.
//
// Both paths compute in f32 and round only the result; a row whose scores
// are all -inf (or that sees no key) is written as zeros, as dlc.attention
// defines it.
//
//===----------------------------------------------------------------------===//
#include "codegen/AttentionEmitter.h"
#include "codegen/KernelEntry.h"
#include "ir/ElementType.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// Threads per block of every attention kernel.
constexpr int64_t kThreads = 128;
/// Static shared memory a block may use without opting in (and what the sim
/// device supports: static __shared__ arrays only).
constexpr int64_t kSharedLimit = 48 * 1024;
/// Query rows per block of the tensor-core configuration: 4 warps of 16.
constexpr int64_t kMmaRows = 64;

const char *kLibrary = R"cuda(
// Flash attention for dlc.attention (codegen/AttentionEmitter.cpp). E and ME
// select the element types of q/k/v/result and of the mask: 0 f32, 1 f16,
// 2 bf16.
template <int E> struct dlc_attn_elem;
template <> struct dlc_attn_elem<0> {
  typedef float T;
  static __device__ __forceinline__ float load(float x) { return x; }
  static __device__ __forceinline__ float store(float x) { return x; }
};
template <> struct dlc_attn_elem<1> {
  typedef unsigned short T;
  static __device__ __forceinline__ float load(unsigned short x) { return dlc_h2f(x); }
  static __device__ __forceinline__ unsigned short store(float x) { return dlc_f2h(x); }
};
template <> struct dlc_attn_elem<2> {
  typedef unsigned short T;
  static __device__ __forceinline__ float load(unsigned short x) { return dlc_bf2f(x); }
  static __device__ __forceinline__ unsigned short store(float x) { return dlc_f2bf(x); }
};

__device__ __forceinline__ float dlc_attn_neg_inf() { return __uint_as_float(0xff800000u); }

// The keys [0, result) that some query of [q0, q0 + rows) may see: with
// CAUSAL, the key tiles above the diagonal are never loaded.
template <bool CAUSAL>
__device__ __forceinline__ int dlc_attn_key_end(int sq, int sk, int q0, int rows) {
  if (!CAUSAL)
    return sk;
  const int last = (q0 + rows < sq ? q0 + rows : sq) - 1;
  const int end = last + (sk - sq) + 1;
  return end < 0 ? 0 : end < sk ? end : sk;
}

// The portable path: BR query rows per block, TPR consecutive threads per
// row, BC keys per tile, all in f32 with plain FMAs.
template <int E, int ME, int BR, int BC, int TPR, int D, int DV, bool CAUSAL, bool MASK>
__device__ __forceinline__ void dlc_attn_portable(
    const typename dlc_attn_elem<E>::T *__restrict__ q,
    const typename dlc_attn_elem<E>::T *__restrict__ k,
    const typename dlc_attn_elem<E>::T *__restrict__ v,
    const typename dlc_attn_elem<ME>::T *__restrict__ mask, long long maskRow,
    long long maskCol, typename dlc_attn_elem<E>::T *__restrict__ out,
    long long qP, long long kP, long long vP, long long oP, int sq, int sk,
    int q0, float scale) {
  typedef dlc_attn_elem<E> El;
  typedef typename El::T T;
  constexpr int NT = BR * TPR;
  constexpr int DP = D + 1; // an odd pitch spreads a column over the banks
  constexpr int NS = (BC + TPR - 1) / TPR;
  constexpr int NA = (DV + TPR - 1) / TPR;
  __shared__ T qs[BR * DP];
  __shared__ T ks[BC * DP];
  __shared__ T vs[BC * DV];
  __shared__ float ps[BR * (BC + 1)];
  const int tid = threadIdx.x, r = tid / TPR, t = tid % TPR;
  const int row = q0 + r;
  for (int i = tid; i < BR * D; i += NT) {
    const int rr = i / D, c = i - rr * D;
    qs[rr * DP + c] = q0 + rr < sq ? q[(long long)(q0 + rr) * qP + c] : (T)0;
  }
  const int kEnd = dlc_attn_key_end<CAUSAL>(sq, sk, q0, BR);
  float m = dlc_attn_neg_inf(), l = 0.0f;
  float acc[NA];
#pragma unroll
  for (int a = 0; a < NA; ++a)
    acc[a] = 0.0f;
  for (int k0 = 0; k0 < kEnd; k0 += BC) {
    __syncthreads(); // the previous tile is consumed (and qs is complete)
    for (int i = tid; i < BC * D; i += NT) {
      const int j = i / D, c = i - j * D;
      ks[j * DP + c] = k0 + j < sk ? k[(long long)(k0 + j) * kP + c] : (T)0;
    }
    for (int i = tid; i < BC * DV; i += NT) {
      const int j = i / DV, c = i - j * DV;
      vs[i] = k0 + j < sk ? v[(long long)(k0 + j) * vP + c] : (T)0;
    }
    __syncthreads();
    float s[NS];
    float tileMax = dlc_attn_neg_inf();
#pragma unroll
    for (int jj = 0; jj < NS; ++jj) {
      const int j = t + jj * TPR, key = k0 + j;
      float x = dlc_attn_neg_inf();
      if (j < BC && key < kEnd && row < sq &&
          (!CAUSAL || key <= row + (sk - sq))) {
        float dot = 0.0f;
        for (int c = 0; c < D; ++c)
          dot = fmaf(El::load(qs[r * DP + c]), El::load(ks[j * DP + c]), dot);
        x = dot * scale;
        if (MASK)
          x += dlc_attn_elem<ME>::load(mask[row * maskRow + key * maskCol]);
      }
      s[jj] = x;
      tileMax = fmaxf(tileMax, x);
    }
#pragma unroll
    for (int o = TPR / 2; o > 0; o /= 2)
      tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, o));
    const float mNew = fmaxf(m, tileMax);
    // Hidden keys give exp(-inf) = 0. While a row has seen nothing but
    // hidden keys (mNew = -inf) it subtracts 0, so it stays 0 and not NaN.
    const float base = mNew == dlc_attn_neg_inf() ? 0.0f : mNew;
    const float alpha = expf(m - base);
    float sum = 0.0f;
#pragma unroll
    for (int jj = 0; jj < NS; ++jj) {
      const int j = t + jj * TPR;
      if (j < BC) {
        const float p = expf(s[jj] - base);
        ps[r * (BC + 1) + j] = p;
        sum += p;
      }
    }
#pragma unroll
    for (int o = TPR / 2; o > 0; o /= 2)
      sum += __shfl_xor_sync(0xffffffffu, sum, o);
    l = l * alpha + sum;
    m = mNew;
#pragma unroll
    for (int a = 0; a < NA; ++a)
      acc[a] *= alpha;
    __syncwarp(); // a row's probabilities come from the lanes of its group
    const int n = kEnd - k0 < BC ? kEnd - k0 : BC;
    for (int j = 0; j < n; ++j) {
      const float p = ps[r * (BC + 1) + j];
#pragma unroll
      for (int a = 0; a < NA; ++a) {
        const int c = t + a * TPR;
        if (c < DV)
          acc[a] = fmaf(p, El::load(vs[j * DV + c]), acc[a]);
      }
    }
  }
  if (row < sq) {
    const float inv = l == 0.0f ? 0.0f : 1.0f / l;
#pragma unroll
    for (int a = 0; a < NA; ++a) {
      const int c = t + a * TPR;
      if (c < DV)
        out[(long long)row * oP + c] = El::store(acc[a] * inv);
    }
  }
}

// The tensor-core path exists on sm_80+ GPUs, and on the sim device only
// when the source asks for it (DLC_ATTN_SIM_MMA, a test hook: the products
// are then emulated with warp shuffles). One line: the sim device accepts
// no line continuation.
#if (!defined(DLC_SIM) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800) || (defined(DLC_SIM) && defined(DLC_ATTN_SIM_MMA))
#define DLC_ATTN_MMA 1

// Two 16-bit elements as one 32-bit word (the first in the low half).
__device__ __forceinline__ unsigned dlc_attn_ld32(const unsigned short *p) {
#ifdef DLC_SIM
  unsigned x;
  __builtin_memcpy(&x, p, 4);
  return x;
#else
  return *(const unsigned *)p;
#endif
}
__device__ __forceinline__ void dlc_attn_st32(unsigned short *p, unsigned x) {
#ifdef DLC_SIM
  __builtin_memcpy(p, &x, 4);
#else
  *(unsigned *)p = x;
#endif
}

// D (16x8, f32) += A (16x16, row) * B (16x8, col). Fragments of lane l
// (g = l / 4, t = l % 4): A holds rows g and g + 8, columns 2t, 2t + 1 and
// 2t + 8, 2t + 9 as a[0] = (g, 2t..), a[1] = (g + 8, 2t..), a[2] = (g, 2t +
// 8..), a[3] = (g + 8, 2t + 8..); B holds rows 2t, 2t + 1 (b0) and 2t + 8,
// 2t + 9 (b1) of column g; D holds (g, 2t), (g, 2t + 1), (g + 8, 2t),
// (g + 8, 2t + 1). Each register packs two elements, the first in its low
// half.
#ifndef DLC_SIM
template <int E>
__device__ __forceinline__ void dlc_attn_mma16816(float (&d)[4], const unsigned (&a)[4],
                                                  unsigned b0, unsigned b1);
template <>
__device__ __forceinline__ void dlc_attn_mma16816<1>(float (&d)[4], const unsigned (&a)[4],
                                                     unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void dlc_attn_mma16816<2>(float (&d)[4], const unsigned (&a)[4],
                                                     unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#else
// The same product from the fragment layout above: lane (g, t) gathers rows
// g and g + 8 of A from lanes 4g..4g+3 and columns 2t and 2t + 1 of B from
// lanes 8t..8t+3 and 8t+4..8t+7.
template <int E>
__device__ __forceinline__ void dlc_attn_mma16816(float (&d)[4], const unsigned (&a)[4],
                                                  unsigned b0, unsigned b1) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  for (int src = 0; src < 4; ++src) {
    unsigned ra[4], rb[4];
    for (int i = 0; i < 4; ++i)
      ra[i] = __shfl_sync(0xffffffffu, a[i], 4 * g + src);
    rb[0] = __shfl_sync(0xffffffffu, b0, 8 * t + src);
    rb[1] = __shfl_sync(0xffffffffu, b1, 8 * t + src);
    rb[2] = __shfl_sync(0xffffffffu, b0, 8 * t + 4 + src);
    rb[3] = __shfl_sync(0xffffffffu, b1, 8 * t + 4 + src);
    for (int h = 0; h < 2; ++h) {
      const int shift = 16 * h;
      float x[4], y[4];
      for (int i = 0; i < 4; ++i) {
        x[i] = dlc_attn_elem<E>::load((unsigned short)(ra[i] >> shift));
        y[i] = dlc_attn_elem<E>::load((unsigned short)(rb[i] >> shift));
      }
      // k = 2 src + h from a[0], a[1] and b0; k = 2 src + 8 + h from a[2],
      // a[3] and b1.
      d[0] += x[0] * y[0] + x[2] * y[1];
      d[1] += x[0] * y[2] + x[2] * y[3];
      d[2] += x[1] * y[0] + x[3] * y[1];
      d[3] += x[1] * y[2] + x[3] * y[3];
    }
  }
}
#endif

template <int E>
__device__ __forceinline__ unsigned dlc_attn_pack(float lo, float hi) {
  return (unsigned)dlc_attn_elem<E>::store(lo) |
         ((unsigned)dlc_attn_elem<E>::store(hi) << 16);
}

// The tensor-core path: 4 warps of 16 query rows, BC keys per tile. Q stays
// in registers as A fragments; K is staged by rows (the B operand of Q K^T
// reads two consecutive head elements of a key), V transposed (the B operand
// of P V reads two consecutive keys of a column). The probabilities of two
// adjacent 8-key score tiles are exactly the A fragment of P for 16 keys.
template <int E, int ME, int BC, int D, int DV, bool CAUSAL, bool MASK>
__device__ __forceinline__ void dlc_attn_mma(
    const unsigned short *__restrict__ q, const unsigned short *__restrict__ k,
    const unsigned short *__restrict__ v,
    const typename dlc_attn_elem<ME>::T *__restrict__ mask, long long maskRow,
    long long maskCol, unsigned short *__restrict__ out, long long qP,
    long long kP, long long vP, long long oP, int sq, int sk, int q0,
    float scale) {
  constexpr int KP = D + 8, VP = BC + 8; // even pitches: 32-bit loads stay aligned
  // Declared as words so that the arrays are 4-byte aligned.
  __shared__ unsigned ksWords[BC * KP / 2];
  __shared__ unsigned vtWords[DV * VP / 2];
  unsigned short *ks = (unsigned short *)ksWords;
  unsigned short *vt = (unsigned short *)vtWords;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, tg = lane % 4;
  const int r0 = q0 + warp * 16 + g, r1 = r0 + 8;
  unsigned qa[D / 16][4];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int c = kk * 16 + 2 * tg;
    const unsigned short *q0p = q + (long long)r0 * qP + c;
    const unsigned short *q1p = q + (long long)r1 * qP + c;
    qa[kk][0] = r0 < sq ? dlc_attn_ld32(q0p) : 0u;
    qa[kk][1] = r1 < sq ? dlc_attn_ld32(q1p) : 0u;
    qa[kk][2] = r0 < sq ? dlc_attn_ld32(q0p + 8) : 0u;
    qa[kk][3] = r1 < sq ? dlc_attn_ld32(q1p + 8) : 0u;
  }
  const int kEnd = dlc_attn_key_end<CAUSAL>(sq, sk, q0, 64);
  float m0 = dlc_attn_neg_inf(), m1 = dlc_attn_neg_inf(), l0 = 0.0f, l1 = 0.0f;
  float o[DV / 8][4];
#pragma unroll
  for (int nd = 0; nd < DV / 8; ++nd)
    o[nd][0] = o[nd][1] = o[nd][2] = o[nd][3] = 0.0f;
  for (int k0 = 0; k0 < kEnd; k0 += BC) {
    __syncthreads(); // the previous tile is consumed
    for (int i = tid; i < BC * (D / 2); i += 128) {
      const int j = i / (D / 2), c = (i - j * (D / 2)) * 2;
      dlc_attn_st32(ks + j * KP + c,
                    k0 + j < sk ? dlc_attn_ld32(k + (long long)(k0 + j) * kP + c) : 0u);
    }
    for (int i = tid; i < BC * DV; i += 128) {
      const int j = i / DV, c = i - j * DV;
      vt[c * VP + j] = k0 + j < sk ? v[(long long)(k0 + j) * vP + c] : (unsigned short)0;
    }
    __syncthreads();
    float s[BC / 8][4];
#pragma unroll
    for (int nt = 0; nt < BC / 8; ++nt) {
      s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.0f;
      const unsigned short *kr = ks + (nt * 8 + g) * KP + 2 * tg;
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk)
        dlc_attn_mma16816<E>(s[nt], qa[kk], dlc_attn_ld32(kr + kk * 16),
                             dlc_attn_ld32(kr + kk * 16 + 8));
    }
    float mx0 = dlc_attn_neg_inf(), mx1 = dlc_attn_neg_inf();
#pragma unroll
    for (int nt = 0; nt < BC / 8; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = e < 2 ? r0 : r1;
        const int key = k0 + nt * 8 + 2 * tg + (e & 1);
        float x = dlc_attn_neg_inf();
        if (key < kEnd && row < sq && (!CAUSAL || key <= row + (sk - sq))) {
          x = s[nt][e] * scale;
          if (MASK)
            x += dlc_attn_elem<ME>::load(mask[row * maskRow + key * maskCol]);
        }
        s[nt][e] = x;
        if (e < 2)
          mx0 = fmaxf(mx0, x);
        else
          mx1 = fmaxf(mx1, x);
      }
    }
#pragma unroll
    for (int sh = 1; sh < 4; sh *= 2) {
      mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, sh));
      mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, sh));
    }
    const float n0 = fmaxf(m0, mx0), n1 = fmaxf(m1, mx1);
    const float b0 = n0 == dlc_attn_neg_inf() ? 0.0f : n0;
    const float b1 = n1 == dlc_attn_neg_inf() ? 0.0f : n1;
    const float a0 = expf(m0 - b0), a1 = expf(m1 - b1);
    float sum0 = 0.0f, sum1 = 0.0f;
#pragma unroll
    for (int nt = 0; nt < BC / 8; ++nt) {
      s[nt][0] = expf(s[nt][0] - b0);
      s[nt][1] = expf(s[nt][1] - b0);
      s[nt][2] = expf(s[nt][2] - b1);
      s[nt][3] = expf(s[nt][3] - b1);
      sum0 += s[nt][0] + s[nt][1];
      sum1 += s[nt][2] + s[nt][3];
    }
#pragma unroll
    for (int sh = 1; sh < 4; sh *= 2) {
      sum0 += __shfl_xor_sync(0xffffffffu, sum0, sh);
      sum1 += __shfl_xor_sync(0xffffffffu, sum1, sh);
    }
    l0 = l0 * a0 + sum0;
    l1 = l1 * a1 + sum1;
    m0 = n0;
    m1 = n1;
#pragma unroll
    for (int nd = 0; nd < DV / 8; ++nd) {
      o[nd][0] *= a0;
      o[nd][1] *= a0;
      o[nd][2] *= a1;
      o[nd][3] *= a1;
    }
#pragma unroll
    for (int kk = 0; kk < BC / 16; ++kk) {
      const unsigned pa[4] = {dlc_attn_pack<E>(s[2 * kk][0], s[2 * kk][1]),
                              dlc_attn_pack<E>(s[2 * kk][2], s[2 * kk][3]),
                              dlc_attn_pack<E>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                              dlc_attn_pack<E>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int nd = 0; nd < DV / 8; ++nd) {
        const unsigned short *vr = vt + (nd * 8 + g) * VP + kk * 16 + 2 * tg;
        dlc_attn_mma16816<E>(o[nd], pa, dlc_attn_ld32(vr), dlc_attn_ld32(vr + 8));
      }
    }
  }
  const float i0 = l0 == 0.0f ? 0.0f : 1.0f / l0;
  const float i1 = l1 == 0.0f ? 0.0f : 1.0f / l1;
#pragma unroll
  for (int nd = 0; nd < DV / 8; ++nd) {
    const int c = nd * 8 + 2 * tg;
    if (r0 < sq)
      dlc_attn_st32(out + (long long)r0 * oP + c,
                    dlc_attn_pack<E>(o[nd][0] * i0, o[nd][1] * i0));
    if (r1 < sq)
      dlc_attn_st32(out + (long long)r1 * oP + c,
                    dlc_attn_pack<E>(o[nd][2] * i1, o[nd][3] * i1));
  }
}
#endif
)cuda";

/// The template argument E/ME of an element type: 0 f32, 1 f16, 2 bf16
/// (the only element types dlc.attention's verifier admits).
int elemCode(rt::DType dtype) {
  return dtype == rt::DType::F16 ? 1 : dtype == rt::DType::BF16 ? 2 : 0;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Shared memory of dlc_attn_portable (tiles in the storage type).
int64_t portableShared(int64_t br, int64_t bc, int64_t d, int64_t dv,
                       int64_t elementBytes) {
  return (br * (d + 1) + bc * (d + 1) + bc * dv) * elementBytes +
         br * (bc + 1) * 4;
}

/// Shared memory of dlc_attn_mma.
int64_t mmaShared(int64_t bc, int64_t d, int64_t dv) {
  return (bc * (d + 8) + dv * (bc + 8)) * 2;
}

/// The launch shape: `rows` queries per block, and the tile sizes of both
/// templates.
struct Config {
  bool mma = false;
  int64_t rows = 0;
  /// dlc_attn_portable: keys per tile and threads per query row.
  int64_t keys = 0, threadsPerRow = 0;
  /// dlc_attn_mma: keys per tile.
  int64_t mmaKeys = 0;
};

std::optional<Config> chooseConfig(int elem, int64_t d, int64_t dv) {
  int64_t bytes = elem == 0 ? 4 : 2;
  if (elem != 0 && d > 0 && dv > 0 && d % 16 == 0 && dv % 16 == 0 && d <= 256 &&
      dv <= 256) {
    Config c;
    c.mma = true;
    c.rows = kMmaRows;
    c.threadsPerRow = kThreads / kMmaRows;
    for (int64_t bc : {64, 32, 16})
      if (!c.mmaKeys && mmaShared(bc, d, dv) <= kSharedLimit)
        c.mmaKeys = bc;
    for (int64_t bc : {32, 16, 8})
      if (!c.keys && portableShared(kMmaRows, bc, d, dv, bytes) <= kSharedLimit)
        c.keys = bc;
    if (c.mmaKeys && c.keys)
      return c;
  }
  for (int64_t br : {32, 16, 8, 4}) {
    if (portableShared(br, br, d, dv, bytes) > kSharedLimit)
      continue;
    Config c;
    c.rows = br;
    c.keys = br;
    c.threadsPerRow = kThreads / br;
    return c;
  }
  return std::nullopt;
}

/// A float for the generated source, exactly (9 significant digits).
std::string floatLiteral(double v) {
  return fmt::format("{:.9e}f", static_cast<float>(v));
}

/// Statements that add the offset of batch matrix `b` of a tensor of shape
/// `shape` (batch dimensions broadcast to `batch`) to `var`, given the
/// batch indices i0, i1, ... of the result.
std::string batchOffset(const std::string &var, ArrayRef<int64_t> shape,
                        ArrayRef<int64_t> batch) {
  size_t nb = batch.size();
  int64_t stride = shape[nb] * shape[nb + 1];
  std::string terms;
  for (int64_t d = int64_t(nb) - 1; d >= 0; --d) {
    if (shape[d] != 1 && batch[d] != 1)
      terms += fmt::format(" + i{} * {}LL", d, stride);
    stride *= shape[d];
  }
  if (terms.empty())
    return "";
  return fmt::format("  const long long {} = 0LL{};\n", var, terms);
}

LogicalResult emitOne(AttentionOp op, unsigned number, std::string &source,
                      EmittedAttention &out) {
  std::string name = fmt::format("attn{}", number);
  Value maskValue = op.getMask();
  rt::DType dtype = dtypeOf(op.getType()).value_or(rt::DType::F32);
  rt::DType maskDtype =
      maskValue ? dtypeOf(maskValue.getType()).value_or(rt::DType::F32)
                : rt::DType::F32;
  int elem = elemCode(dtype);
  int maskElem = elemCode(maskDtype);
  ArrayRef<int64_t> result = op.getType().getShape();
  size_t rank = result.size();
  bool headsLayout = op.isHeadsLayout();
  // The result matrices [Sq, Dv]: one per batch index, and per head in the
  // heads layout ([B, Sq, H, Dv]), where batch index b is (b / H, b % H).
  int64_t seqDim = headsLayout ? op.seqDim() : int64_t(rank) - 2;
  ArrayRef<int64_t> batch = headsLayout ? result.slice(op.batchDim(), 1)
                                        : result.take_front(rank - 2);
  size_t nb = batch.size();
  int64_t heads = headsLayout ? result[2] : 1;
  int64_t sq = result[seqDim];
  int64_t dv = result[rank - 1];
  int64_t sk = shapeOf(op.getK())[seqDim];
  int64_t d = shapeOf(op.getQ())[rank - 1];
  int64_t batches = ShapedType::getNumElements(batch) * heads;
  bool hasMask = static_cast<bool>(maskValue);

  out.op = op;
  out.info.name = name;
  // Query row i sees keys [0, i + 1 + sk - sq) when causal: none for the
  // first max(sq - sk, 0) rows, then 1 + first, 2 + first, ... sk keys (in
  // closed form: sq can be 2^32 in a tensor of no elements).
  double pairs = double(sq) * double(sk);
  if (op.getCausal()) {
    int64_t skipped = std::clamp<int64_t>(sq - sk, 0, sq);
    double rows = double(sq - skipped);
    double first = double(skipped + 1 + sk - sq);
    pairs = rows * (first + double(sk)) / 2;
  }
  out.flops = 2.0 * double(d + dv) * pairs * double(batches);
  out.label =
      fmt::format("{}: attention {}x{}x{} d{}", name, batches, sq, sk, d);
  if (dv != d)
    out.label += fmt::format("/{}", dv);
  if (headsLayout)
    out.label += op.getSeqFirst() ? " [s,b,h,d]" : " [b,s,h,d]";
  if (op.kvGroupSize() > 1)
    out.label += fmt::format(" kv/{}", op.kvGroupSize());
  if (op.getCausal())
    out.label += " causal";
  if (hasMask)
    out.label += " masked";

  // Parameters: each distinct input value once, then the result.
  SmallVector<KernelParam> params;
  DenseMap<Value, std::string> param;
  SmallVector<Value> operands = {op.getQ(), op.getK(), op.getV()};
  if (hasMask)
    operands.push_back(maskValue);
  for (Value v : operands) {
    if (param.count(v))
      continue;
    const char *type = cudaStorageType(v == maskValue ? maskDtype : dtype);
    std::string pname = fmt::format("in{}", params.size());
    params.push_back({fmt::format("const {}", type), pname});
    param[v] = pname;
    out.inputs.push_back(v);
  }
  params.push_back({cudaStorageType(dtype), "out0"});

  std::string body;
  std::string comment;
  if (ShapedType::getNumElements(result) == 0) {
    // Nothing to write: a kernel that returns at once keeps the step list
    // uniform.
    out.info.usesBarriers = false;
    comment = "empty result";
  } else {
    if (sq >= (int64_t(1) << 30) || sk >= (int64_t(1) << 30))
      return op.emitOpError()
             << "has " << sq << " queries and " << sk
             << " keys; the attention kernel supports fewer than 2^30 of each";
    std::optional<Config> config = chooseConfig(elem, d, dv);
    if (!config)
      return op.emitOpError()
             << "has head sizes " << d << " (q, k) and " << dv
             << " (v); the attention kernel's tiles of them do not fit in "
             << kSharedLimit << " bytes of shared memory";
    int64_t tiles = (sq + config->rows - 1) / config->rows;
    if (batches * tiles > int64_t(2147483647))
      return op.emitOpError() << "needs " << batches * tiles
                              << " thread blocks; at most 2^31 - 1 are "
                                 "supported";
    // A launch has at most rt::kMaxLaunchThreads threads (validatePackage).
    if (batches * tiles > int64_t(rt::kMaxLaunchThreads) / kThreads)
      return op.emitOpError()
             << "needs " << batches * tiles << " thread blocks of " << kThreads
             << " threads; a launch may have at most 2^31 - 1 threads";
    out.grid[0] = static_cast<uint32_t>(batches * tiles);
    out.block[0] = kThreads;
    out.info.usesBarriers = true;

    // Batch indices of the result, then each operand's batch offset.
    body += fmt::format("  const long long tile = (long long)blockIdx.x % "
                        "{0}LL;\n  const long long b = (long long)blockIdx.x "
                        "/ {0}LL;\n",
                        tiles);
    std::string common;
    std::string maskArg = "(const float*)0", maskRow = "0LL", maskCol = "0LL";
    if (headsLayout) {
      // b = bi * H + h. In a [B, S, N, D] or [S, B, N, D] tensor, dimension
      // 0 steps by dim1 * N * D elements and dimension 1 by N * D: the row
      // pitch is the sequence dimension's step, a batch's offset that of
      // the batch dimension (none where it broadcasts).
      ArrayRef<int64_t> offsets = *op.getHeadOffsets();
      int64_t batchDim = op.batchDim();
      auto stride = [](ArrayRef<int64_t> s, int64_t dim) {
        return dim == 0 ? s[1] * s[2] * s[3] : s[2] * s[3];
      };
      body += fmt::format("  const long long bi = b / {0}LL, h = b % {0}LL;\n",
                          heads);
      // With kv_groups, G query heads share a head of k and v: h / G.
      const int64_t groups = op.kvGroupSize();
      auto offsetOf = [&](const char *var, Value v, int64_t headOffset,
                          int64_t group) {
        ArrayRef<int64_t> s = shapeOf(v);
        std::string batchTerm =
            s[batchDim] == 1 ? ""
                             : fmt::format("bi * {}LL + ", stride(s, batchDim));
        std::string head =
            group == 1 ? std::string("h") : fmt::format("h / {}LL", group);
        body += fmt::format("  const long long {} = {}({}LL + {}) * {}LL;\n",
                            var, batchTerm, headOffset, head, s[3]);
        return stride(s, seqDim);
      };
      int64_t qPitch = offsetOf("qOff", op.getQ(), offsets[0], 1);
      int64_t kPitch = offsetOf("kOff", op.getK(), offsets[1], groups);
      int64_t vPitch = offsetOf("vOff", op.getV(), offsets[2], groups);
      if (hasMask) {
        ArrayRef<int64_t> ms = shapeOf(maskValue);
        body +=
            fmt::format("  const long long mOff = ({} * {}LL + {}) * {}LL;\n",
                        ms[0] == 1 ? "0LL" : "bi", ms[1],
                        ms[1] == 1 ? "0LL" : "h", ms[2] * ms[3]);
        maskArg = fmt::format("{} + mOff", param[maskValue]);
        if (ms[2] != 1)
          maskRow = fmt::format("{}LL", ms[3]);
        if (ms[3] != 1)
          maskCol = "1LL";
      }
      common = fmt::format(
          "{} + qOff, {} + kOff, {} + vOff, {}, {}, {}, out0 + bi * {}LL + h "
          "* {}LL, {}LL, {}LL, {}LL, {}LL",
          param[op.getQ()], param[op.getK()], param[op.getV()], maskArg,
          maskRow, maskCol, stride(result, batchDim), dv, qPitch, kPitch,
          vPitch, stride(result, seqDim));
    } else {
      SmallVector<int64_t> indexed; // batch dimensions above 1, innermost first
      for (int64_t i = int64_t(nb) - 1; i >= 0; --i)
        if (batch[i] != 1)
          indexed.push_back(i);
      if (indexed.size() == 1)
        body += fmt::format("  const long long i{} = b;\n", indexed.front());
      if (indexed.size() > 1) {
        body += "  long long rest = b;\n";
        for (auto [n, i] : llvm::enumerate(indexed)) {
          if (n + 1 == indexed.size()) {
            body += fmt::format("  const long long i{} = rest;\n", i);
            continue;
          }
          body += fmt::format("  const long long i{0} = rest % {1}LL;\n  rest "
                              "/= {1}LL;\n",
                              i, batch[i]);
        }
      }
      auto offsetOf = [&](const std::string &var, Value v) {
        std::string stmt = batchOffset(var, shapeOf(v), batch);
        body += stmt;
        return stmt.empty() ? std::string("0LL") : var;
      };
      std::string qOff = offsetOf("qOff", op.getQ());
      std::string kOff = offsetOf("kOff", op.getK());
      std::string vOff = offsetOf("vOff", op.getV());
      if (hasMask) {
        ArrayRef<int64_t> ms = shapeOf(maskValue);
        std::string mOff = offsetOf("mOff", maskValue);
        maskArg = fmt::format("{} + {}", param[maskValue], mOff);
        if (ms[rank - 2] != 1)
          maskRow = fmt::format("{}LL", ms[rank - 1]);
        if (ms[rank - 1] != 1)
          maskCol = "1LL";
      }
      common = fmt::format(
          "{} + {}, {} + {}, {} + {}, {}, {}, {}, out0 + b * {}LL, {}LL, "
          "{}LL, {}LL, {}LL",
          param[op.getQ()], qOff, param[op.getK()], kOff, param[op.getV()],
          vOff, maskArg, maskRow, maskCol, sq * dv, d, d, dv, dv);
    }
    common += fmt::format(", {}, {}, (int)tile * {}, {}", sq, sk, config->rows,
                          floatLiteral(op.getScale().convertToDouble()));
    std::string flags = fmt::format("{}, {}", op.getCausal() ? "true" : "false",
                                    hasMask ? "true" : "false");
    std::string portable = fmt::format(
        "  dlc_attn_portable<{}, {}, {}, {}, {}, {}, {}, {}>({});\n", elem,
        maskElem, config->rows, config->keys, config->threadsPerRow, d, dv,
        flags, common);
    if (config->mma) {
      body += "#ifdef DLC_ATTN_MMA\n";
      body += fmt::format("  dlc_attn_mma<{}, {}, {}, {}, {}, {}>({});\n", elem,
                          maskElem, config->mmaKeys, d, dv, flags, common);
      body += "#else\n" + portable + "#endif\n";
      comment = fmt::format("{} queries per block; tensor cores, {} keys per "
                            "tile (sm_80+), else {} keys per tile",
                            config->rows, config->mmaKeys, config->keys);
    } else {
      body += portable;
      comment = fmt::format("{} queries per block, {} keys per tile",
                            config->rows, config->keys);
    }
  }

  source += fmt::format("\n// {} ({})\n", out.label, comment);
  writeKernelEntry(source, name, params, body, kThreads);
  return success();
}

} // namespace

LogicalResult
mlir::dlc::emitAttentionKernels(func::FuncOp func, std::string &source,
                                std::vector<EmittedAttention> &kernels) {
  if (func.getBody().empty())
    return success();
  bool libraryEmitted = false;
  unsigned number = 0;
  for (Operation &op : func.getBody().front()) {
    auto attention = dyn_cast<AttentionOp>(op);
    if (!attention)
      continue;
    if (!libraryEmitted) {
      const char *simMma = std::getenv("DLC_ATTENTION_SIM_MMA");
      if (simMma && StringRef(simMma) != "" && StringRef(simMma) != "0")
        source += "\n#define DLC_ATTN_SIM_MMA 1\n";
      source += kLibrary;
      libraryEmitted = true;
    }
    EmittedAttention emitted;
    if (failed(emitOne(attention, number++, source, emitted)))
      return failure();
    kernels.push_back(std::move(emitted));
  }
  return success();
}
