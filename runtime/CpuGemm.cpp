//===- CpuGemm.cpp - Blocked GEMM on the CPU
//-------------------------------===//
//
// The sim device's GEMM, organized like BLIS/GotoBLAS:
//   - the output is cut into tasks: one batch, one block of kNC columns, a
//     group of kMC-row blocks (enough groups for every thread to stay busy);
//     threads take tasks from a shared counter;
//   - operands are packed into contiguous f32 panels (f16/bf16 converted
//     exactly, transposes applied) so that the micro-kernel reads both with
//     unit stride from L1/L2: op(A) as kMR-row panels, once up front when
//     several tasks use the same rows (the usual case: convolution weights
//     broadcast over the batch), else in the task; op(B) as kNR-column
//     panels, one kKC x kNC block at a time in the task, which runs it
//     against every row block of its group;
//   - a 6x16 micro-kernel keeps its tile of C in registers across the kKC
//     products: AVX2 intrinsics where the CPU has them, else portable GCC
//     vector code;
//   - partial sums stay in an f32 tile until K is done; then
//     alpha * acc + beta * C is rounded to C's type.
// Every output element accumulates its K products one after the other in
// increasing k order (a rounded product, then a rounded sum), whatever the
// thread count, task split or micro-kernel, so the result is bit-identical
// from run to run, with any DLC_SIM_THREADS and on any CPU.
//
//===----------------------------------------------------------------------===//

#include "runtime/CpuGemm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define DLC_GEMM_X86 1
#endif

// Products and sums stay separate even where the compiler could contract
// them into FMAs (-march=native): the results must not depend on build
// flags.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace dlc::rt {
namespace {

/// Micro-tile: kMR rows x kNR columns of C in registers (12 AVX registers).
constexpr int64_t kMR = 6, kNR = 16;
/// Cache blocks: a kMC x kKC block of A (72 KiB) and a kKC x kNC block of
/// B (256 KiB) stay in L2; one kKC x kNR panel of B (16 KiB) in L1.
constexpr int64_t kKC = 256, kMC = 72, kNC = 256;

inline int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

/// Reads element `index` of a GEMM operand as f32 (exact for f16/bf16).
struct Loader {
  const uint8_t *base;
  DType type;
  float operator()(int64_t index) const {
    switch (type) {
    case DType::F16: {
      uint16_t h;
      std::memcpy(&h, base + 2 * index, 2);
      return halfToFloat(h);
    }
    case DType::BF16: {
      uint16_t h;
      std::memcpy(&h, base + 2 * index, 2);
      return bfloat16ToFloat(h);
    }
    case DType::F8E4M3:
      return e4m3ToFloat(base[index]);
    default: {
      float f;
      std::memcpy(&f, base + 4 * index, 4);
      return f;
    }
    }
  }
};

/// Reads f32 operands: a plain load lets the packing loops vectorize.
struct LoadF32 {
  const float *p;
  float operator()(int64_t i) const { return p[i]; }
};

/// Reads f32 operands rounded to TF32 (roundToTf32).
struct LoadTf32 {
  const float *p;
  float operator()(int64_t i) const { return roundToTf32(p[i]); }
};

void storeElement(void *base, DType type, int64_t index, float v) {
  switch (type) {
  case DType::F16: {
    uint16_t h = floatToHalf(v);
    std::memcpy(static_cast<uint8_t *>(base) + 2 * index, &h, 2);
    return;
  }
  case DType::BF16: {
    uint16_t h = floatToBFloat16(v);
    std::memcpy(static_cast<uint8_t *>(base) + 2 * index, &h, 2);
    return;
  }
  default:
    std::memcpy(static_cast<uint8_t *>(base) + 4 * index, &v, 4);
    return;
  }
}

/// Packs rows [i0, i0+mc) x columns [p0, p0+kc) of op(A) (batch offset
/// `base`) as kMR-row panels: dst[panel][p][r], rows past mc zeroed.
template <typename Load>
void packA(const GemmStep &g, Load load, int64_t base, int64_t i0, int64_t mc,
           int64_t p0, int64_t kc, float *dst) {
  for (int64_t ir = 0; ir < mc; ir += kMR) {
    float *panel = dst + (ir / kMR) * kc * kMR;
    const int64_t rows = std::min(kMR, mc - ir);
    if (g.transA) {
      // A(i, p) = a[p * lda + i]: rows of a panel are contiguous in memory.
      for (int64_t p = 0; p < kc; ++p) {
        const int64_t src = base + (p0 + p) * g.lda + i0 + ir;
        float *out = panel + p * kMR;
        int64_t r = 0;
        for (; r < rows; ++r)
          out[r] = load(src + r);
        for (; r < kMR; ++r)
          out[r] = 0.0f;
      }
      continue;
    }
    // A(i, p) = a[i * lda + p].
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t src = base + (i0 + ir + r) * g.lda + p0;
      for (int64_t p = 0; p < kc; ++p)
        panel[p * kMR + r] = load(src + p);
    }
    for (int64_t r = rows; r < kMR; ++r)
      for (int64_t p = 0; p < kc; ++p)
        panel[p * kMR + r] = 0.0f;
  }
}

/// Packs rows [p0, p0+kc) x columns [j0, j0+nc) of op(B) (batch offset
/// `base`) as kNR-column panels: dst[panel][p][j], columns past nc zeroed.
template <typename Load>
void packB(const GemmStep &g, Load load, int64_t base, int64_t p0, int64_t kc,
           int64_t j0, int64_t nc, float *dst) {
  for (int64_t jr = 0; jr < nc; jr += kNR) {
    float *panel = dst + (jr / kNR) * kc * kNR;
    const int64_t cols = std::min(kNR, nc - jr);
    if (!g.transB) {
      // B(p, j) = b[p * ldb + j]: a panel row is contiguous in memory.
      if constexpr (std::is_same_v<Load, LoadF32>) {
        if (cols == kNR) {
          for (int64_t p = 0; p < kc; ++p)
            std::memcpy(panel + p * kNR,
                        load.p + base + (p0 + p) * g.ldb + j0 + jr,
                        kNR * sizeof(float));
          continue;
        }
      }
      for (int64_t p = 0; p < kc; ++p) {
        const int64_t src = base + (p0 + p) * g.ldb + j0 + jr;
        float *out = panel + p * kNR;
        int64_t j = 0;
        for (; j < cols; ++j)
          out[j] = load(src + j);
        for (; j < kNR; ++j)
          out[j] = 0.0f;
      }
      continue;
    }
    // B(p, j) = b[j * ldb + p].
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t src = base + (j0 + jr + j) * g.ldb + p0;
      for (int64_t p = 0; p < kc; ++p)
        panel[p * kNR + j] = load(src + p);
    }
    for (int64_t j = cols; j < kNR; ++j)
      for (int64_t p = 0; p < kc; ++p)
        panel[p * kNR + j] = 0.0f;
  }
}

/// C tile (kMR x kNR, row stride ldc) = (accumulate ? C : 0) + A panel *
/// B panel over kc products, each element's products added in k order.
using MicroKernel = void (*)(int64_t kc, const float *a, const float *b,
                             float *c, int64_t ldc, bool accumulate);

/// Portable version: GCC/Clang vector extensions (two 8-float halves per
/// row), separate multiply and add.
typedef float V8 __attribute__((vector_size(32)));

void microKernelPortable(int64_t kc, const float *__restrict a,
                         const float *__restrict b, float *__restrict c,
                         int64_t ldc, bool accumulate) {
  V8 acc[kMR][2];
  for (int r = 0; r < kMR; ++r)
    for (int h = 0; h < 2; ++h) {
      if (accumulate)
        std::memcpy(&acc[r][h], c + r * ldc + 8 * h, sizeof(V8));
      else
        acc[r][h] = V8{};
    }
  for (int64_t p = 0; p < kc; ++p) {
    V8 b0, b1;
    std::memcpy(&b0, b + p * kNR, sizeof(V8));
    std::memcpy(&b1, b + p * kNR + 8, sizeof(V8));
    const float *ap = a + p * kMR;
#pragma GCC unroll 6
    for (int r = 0; r < kMR; ++r) {
      const float av = ap[r];
      acc[r][0] += av * b0;
      acc[r][1] += av * b1;
    }
  }
  for (int r = 0; r < kMR; ++r)
    for (int h = 0; h < 2; ++h)
      std::memcpy(c + r * ldc + 8 * h, &acc[r][h], sizeof(V8));
}

#ifdef DLC_GEMM_X86
/// AVX2 version: 12 accumulator registers, 2 for B, 1 for A. Multiply then
/// add, not FMA: the same bits as the portable kernel, the fake cuBLAS of
/// the tests and any CPU (on AMD Zen the separate multiply and add pipes
/// give the same throughput as FMA).
__attribute__((target("avx2"))) void
microKernelAvx2(int64_t kc, const float *__restrict a,
                const float *__restrict b, float *__restrict c, int64_t ldc,
                bool accumulate) {
  __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  if (accumulate) {
    c00 = _mm256_loadu_ps(c + 0 * ldc), c01 = _mm256_loadu_ps(c + 0 * ldc + 8);
    c10 = _mm256_loadu_ps(c + 1 * ldc), c11 = _mm256_loadu_ps(c + 1 * ldc + 8);
    c20 = _mm256_loadu_ps(c + 2 * ldc), c21 = _mm256_loadu_ps(c + 2 * ldc + 8);
    c30 = _mm256_loadu_ps(c + 3 * ldc), c31 = _mm256_loadu_ps(c + 3 * ldc + 8);
    c40 = _mm256_loadu_ps(c + 4 * ldc), c41 = _mm256_loadu_ps(c + 4 * ldc + 8);
    c50 = _mm256_loadu_ps(c + 5 * ldc), c51 = _mm256_loadu_ps(c + 5 * ldc + 8);
  } else {
    c00 = c01 = c10 = c11 = c20 = c21 = _mm256_setzero_ps();
    c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(b + p * kNR);
    const __m256 b1 = _mm256_loadu_ps(b + p * kNR + 8);
    const float *ap = a + p * kMR;
    __m256 av = _mm256_broadcast_ss(ap + 0);
    c00 = _mm256_add_ps(c00, _mm256_mul_ps(av, b0)),
    c01 = _mm256_add_ps(c01, _mm256_mul_ps(av, b1));
    av = _mm256_broadcast_ss(ap + 1);
    c10 = _mm256_add_ps(c10, _mm256_mul_ps(av, b0)),
    c11 = _mm256_add_ps(c11, _mm256_mul_ps(av, b1));
    av = _mm256_broadcast_ss(ap + 2);
    c20 = _mm256_add_ps(c20, _mm256_mul_ps(av, b0)),
    c21 = _mm256_add_ps(c21, _mm256_mul_ps(av, b1));
    av = _mm256_broadcast_ss(ap + 3);
    c30 = _mm256_add_ps(c30, _mm256_mul_ps(av, b0)),
    c31 = _mm256_add_ps(c31, _mm256_mul_ps(av, b1));
    av = _mm256_broadcast_ss(ap + 4);
    c40 = _mm256_add_ps(c40, _mm256_mul_ps(av, b0)),
    c41 = _mm256_add_ps(c41, _mm256_mul_ps(av, b1));
    av = _mm256_broadcast_ss(ap + 5);
    c50 = _mm256_add_ps(c50, _mm256_mul_ps(av, b0)),
    c51 = _mm256_add_ps(c51, _mm256_mul_ps(av, b1));
  }
  _mm256_storeu_ps(c + 0 * ldc, c00), _mm256_storeu_ps(c + 0 * ldc + 8, c01);
  _mm256_storeu_ps(c + 1 * ldc, c10), _mm256_storeu_ps(c + 1 * ldc + 8, c11);
  _mm256_storeu_ps(c + 2 * ldc, c20), _mm256_storeu_ps(c + 2 * ldc + 8, c21);
  _mm256_storeu_ps(c + 3 * ldc, c30), _mm256_storeu_ps(c + 3 * ldc + 8, c31);
  _mm256_storeu_ps(c + 4 * ldc, c40), _mm256_storeu_ps(c + 4 * ldc + 8, c41);
  _mm256_storeu_ps(c + 5 * ldc, c50), _mm256_storeu_ps(c + 5 * ldc + 8, c51);
}
#endif

MicroKernel selectMicroKernel() {
  if (const char *env = std::getenv("DLC_GEMM_PORTABLE"); env && *env == '1')
    return microKernelPortable;
#ifdef DLC_GEMM_X86
  // Asked once (thread-safe static initialization).
  static const bool hasAvx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  if (hasAvx2)
    return microKernelAvx2;
#endif
  return microKernelPortable;
}

/// 64-byte aligned f32 buffer.
class FloatBuffer {
public:
  FloatBuffer() = default;
  explicit FloatBuffer(int64_t floats)
      : p_(static_cast<float *>(std::aligned_alloc(
            64, size_t(roundUp(std::max<int64_t>(floats, 1) * 4, 64))))) {
    if (!p_)
      throw std::bad_alloc();
  }
  float *get() const { return p_.get(); }

private:
  struct Free {
    void operator()(float *p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> p_;
};

/// Runs fn(worker, i) for i = 0 ... count-1 on up to `threads` threads
/// (the caller's included, worker 0), each index once.
template <typename Fn> void parallelFor(int64_t count, int64_t threads, Fn fn) {
  threads = std::max<int64_t>(1, std::min(threads, count));
  std::atomic<int64_t> next{0};
  auto loop = [&](int64_t worker) {
    for (int64_t i = next.fetch_add(1); i < count; i = next.fetch_add(1))
      fn(worker, i);
  };
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t)
    pool.emplace_back(loop, t);
  loop(0);
  for (std::thread &t : pool)
    t.join();
}

/// Packed copies of op(A) above this size are not kept (A is then packed
/// block by block in each task).
constexpr int64_t kMaxPrepackedFloats = int64_t(64) << 20; // 256 MiB
/// Rows of C one task accumulates (its f32 tile is at most this x kNC).
constexpr int64_t kMaxTaskRows = 2048;

/// One cpuGemm call. Tasks are (batch, column block, group of row blocks);
/// a task packs each kKC x kNC block of B once and runs it against every
/// kMC-row block of its group, whose A panels come from a copy of op(A)
/// packed up front when several tasks use them (B's columns span several
/// blocks, or A is broadcast over the batch), else are packed in the task.
class GemmRunner {
public:
  GemmRunner(const GemmStep &g, const void *a, const void *b, void *c,
             int64_t threads, const void *bias, const void *addend)
      : g_(g), a_{static_cast<const uint8_t *>(a), g.dtype},
        b_{static_cast<const uint8_t *>(b), g.dtype},
        c_(c), bias_{static_cast<const uint8_t *>(bias), g.outType()},
        addend_{static_cast<const uint8_t *>(addend), g.outType()},
        threads_(threads), kernel_(selectMicroKernel()) {
    mBlocks_ = (g.m + kMC - 1) / kMC;
    nBlocks_ = (g.n + kNC - 1) / kNC;
    mPad_ = roundUp(g.m, kMR);
    // Enough tasks to keep every thread busy to the end, and tiles of a
    // bounded size.
    const int64_t base = g.batch * nBlocks_;
    int64_t groups = std::max<int64_t>(1, (4 * threads + base - 1) / base);
    groups = std::max(groups, (g.m + kMaxTaskRows - 1) / kMaxTaskRows);
    groups = std::min(groups, mBlocks_);
    blocksPerGroup_ = (mBlocks_ + groups - 1) / groups;
    mGroups_ = (mBlocks_ + blocksPerGroup_ - 1) / blocksPerGroup_;
    distinctA_ = g.strideA == 0 ? 1 : g.batch;
    const bool aReused = nBlocks_ > 1 || (g.strideA == 0 && g.batch > 1);
    prepackA_ =
        aReused && g.k > 0 && distinctA_ * mPad_ * g.k <= kMaxPrepackedFloats;
  }

  void run() {
    if (prepackA_) {
      packedA_ = FloatBuffer(distinctA_ * mPad_ * g_.k);
      const int64_t kBlocks = (g_.k + kKC - 1) / kKC;
      parallelFor(distinctA_ * kBlocks, threads_, [&](int64_t, int64_t t) {
        prepackA(t / kBlocks, t % kBlocks);
      });
    }
    const int64_t tasks = g_.batch * nBlocks_ * mGroups_;
    std::vector<std::unique_ptr<Scratch>> scratch(
        static_cast<size_t>(threads_));
    parallelFor(tasks, threads_, [&](int64_t worker, int64_t t) {
      std::unique_ptr<Scratch> &s = scratch[size_t(worker)];
      if (!s)
        s = std::make_unique<Scratch>(blocksPerGroup_ * kMC);
      runTask(t, *s);
    });
  }

private:
  struct Scratch {
    explicit Scratch(int64_t rows)
        : packA(kMC * kKC), packB(kNC * kKC), acc(roundUp(rows, kMR) * kNC) {}
    FloatBuffer packA, packB, acc;
  };

  template <typename Fn> void withLoaders(Fn fn) {
    if (g_.dtype == DType::F32 && g_.tf32)
      fn(LoadTf32{reinterpret_cast<const float *>(a_.base)},
         LoadTf32{reinterpret_cast<const float *>(b_.base)});
    else if (g_.dtype == DType::F32)
      fn(LoadF32{reinterpret_cast<const float *>(a_.base)},
         LoadF32{reinterpret_cast<const float *>(b_.base)});
    else
      fn(a_, b_);
  }

  /// Packs K block `kb` of op(A) of (distinct) batch `batch`: at
  /// packedA + batch * mPad * k + mPad * p0, panels of kMR rows.
  void prepackA(int64_t batch, int64_t kb) {
    const int64_t p0 = kb * kKC, kc = std::min(kKC, g_.k - p0);
    float *dst = packedA_.get() + batch * mPad_ * g_.k + mPad_ * p0;
    withLoaders([&](auto loadA, auto) {
      packA(g_, loadA, batch * g_.strideA, 0, g_.m, p0, kc, dst);
    });
  }

  void runTask(int64_t task, Scratch &s) {
    withLoaders(
        [&](auto loadA, auto loadB) { runTaskTyped(task, s, loadA, loadB); });
  }

  template <typename LoadA, typename LoadB>
  void runTaskTyped(int64_t task, Scratch &s, LoadA loadA, LoadB loadB) {
    const int64_t mg = task % mGroups_, nb = (task / mGroups_) % nBlocks_;
    const int64_t batch = task / (mGroups_ * nBlocks_);
    const int64_t iBegin = mg * blocksPerGroup_ * kMC;
    const int64_t iEnd = std::min(g_.m, iBegin + blocksPerGroup_ * kMC);
    const int64_t j0 = nb * kNC, nc = std::min(kNC, g_.n - j0);
    const int64_t ldAcc = roundUp(nc, kNR);
    float *acc = s.acc.get();
    if (g_.k == 0)
      std::fill(acc, acc + roundUp(iEnd - iBegin, kMR) * ldAcc, 0.0f);
    const int64_t aBatch = g_.strideA == 0 ? 0 : batch;
    for (int64_t p0 = 0; p0 < g_.k; p0 += kKC) {
      const int64_t kc = std::min(kKC, g_.k - p0);
      packB(g_, loadB, batch * g_.strideB, p0, kc, j0, nc, s.packB.get());
      for (int64_t i0 = iBegin; i0 < iEnd; i0 += kMC) {
        const int64_t mc = std::min(kMC, iEnd - i0);
        const float *aBlock;
        if (prepackA_) {
          aBlock = packedA_.get() + aBatch * mPad_ * g_.k + mPad_ * p0 +
                   (i0 / kMR) * kc * kMR;
        } else {
          packA(g_, loadA, batch * g_.strideA, i0, mc, p0, kc, s.packA.get());
          aBlock = s.packA.get();
        }
        float *accBlock = acc + (i0 - iBegin) * ldAcc;
        // One B panel (L1) against every A panel of the block (L2).
        for (int64_t jr = 0; jr < nc; jr += kNR) {
          const float *bp = s.packB.get() + (jr / kNR) * kc * kNR;
          for (int64_t ir = 0; ir < mc; ir += kMR)
            kernel_(kc, aBlock + (ir / kMR) * kc * kMR, bp,
                    accBlock + ir * ldAcc + jr, ldAcc, p0 != 0);
        }
      }
    }
    // C = alpha * acc + beta * C, rounded to C's type; with an epilogue,
    // act(alpha * acc + beta * addend + bias), rounded once. An FP8
    // product's scales multiply alpha (one f32 factor, as the device's).
    const float alpha = float(g_.alpha * g_.scaleA * g_.scaleB),
                beta = float(g_.beta);
    const DType cType = g_.outType();
    const Loader loadC{static_cast<const uint8_t *>(c_), cType};
    const bool epilogue = g_.hasEpilogue();
    for (int64_t i = iBegin; i < iEnd; ++i) {
      const int64_t row = batch * g_.strideC + i * g_.ldc + j0;
      const float *accRow = acc + (i - iBegin) * ldAcc;
      if (cType == DType::F32 && beta == 0.0f && !epilogue) {
        float *out = static_cast<float *>(c_) + row;
        for (int64_t j = 0; j < nc; ++j)
          out[j] = alpha * accRow[j];
        continue;
      }
      for (int64_t j = 0; j < nc; ++j) {
        float r = alpha * accRow[j];
        if (beta != 0.0f)
          r += beta * (addend_.base ? addend_(row + j) : loadC(row + j));
        if (bias_.base)
          r += bias_(j0 + j);
        if (g_.epilogue != GemmEpilogue::None)
          r = gemmActivation(g_.epilogue, r);
        storeElement(c_, cType, row + j, r);
      }
    }
  }

  const GemmStep &g_;
  Loader a_, b_;
  void *c_;
  /// Null bases when the step has no bias (addend).
  Loader bias_, addend_;
  int64_t threads_;
  MicroKernel kernel_;
  int64_t mBlocks_ = 0, nBlocks_ = 0, mPad_ = 0;
  int64_t blocksPerGroup_ = 1, mGroups_ = 1;
  int64_t distinctA_ = 1;
  bool prepackA_ = false;
  FloatBuffer packedA_;
};

} // namespace

const char *cpuGemmKernel() {
#ifdef DLC_GEMM_X86
  if (selectMicroKernel() == microKernelAvx2)
    return "avx2";
#endif
  return "portable";
}

float roundToTf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if ((bits & 0x7f800000u) != 0x7f800000u) {
    // Half of the dropped 13 bits' range, then truncate: to nearest, ties
    // away from zero (a carry into the exponent is the correct rounding).
    bits += 0x1000u;
    bits &= ~0x1fffu;
  }
  std::memcpy(&x, &bits, 4);
  return x;
}

float gemmActivation(GemmEpilogue epilogue, float x) {
  switch (epilogue) {
  case GemmEpilogue::Relu:
    return std::fmax(x, 0.0f);
  case GemmEpilogue::GeluTanh: {
    const float inner = 0.7978845608f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + std::tanh(inner));
  }
  case GemmEpilogue::None:
    break;
  }
  return x;
}

void cpuGemm(const GemmStep &g, const void *a, const void *b, void *c,
             int threads, const void *bias, const void *addend) {
  if (g.m <= 0 || g.n <= 0 || g.batch <= 0)
    return;
  const double work = double(g.batch) * double(g.m) * double(g.n) *
                      double(std::max<int64_t>(g.k, 1));
  // A thread costs ~50 us to start and join, more when the machine is busy
  // (it may wait to be scheduled): products under ~8 M multiply-adds
  // (~0.25 ms on one core) run on the calling thread.
  const int64_t useThreads = work < double(1 << 23) ? 1 : std::max(1, threads);
  GemmRunner(g, a, b, c, useThreads, g.bias ? bias : nullptr,
             g.addend ? addend : nullptr)
      .run();
}

} // namespace dlc::rt
