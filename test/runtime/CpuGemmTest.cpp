//===- CpuGemmTest.cpp - The blocked CPU GEMM against naive loops --------===//
//
// cpuGemm promises (runtime/CpuGemm.h) a fixed arithmetic per output
// element: its K products added in increasing k order in f32 (rounded
// product, rounded sum), then alpha * acc + beta * C. The naive loop below
// does exactly that, so results are compared bit for bit, on
// sizes that cross every cache block and micro-tile edge, with transposes,
// broadcast batches, padded leading dimensions, f16/bf16, alpha/beta, and
// with several thread counts. Both micro-kernels are tested.
//
//===----------------------------------------------------------------------===//

#include "runtime/CpuGemm.h"
#include "TestUtil.h"
#include "runtime/Tensor.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

using namespace dlc::rt;
using namespace dlc::rt::test;

namespace {

struct Case {
  DType dtype;
  bool transA, transB;
  int64_t m, n, k, batch;
  bool broadcastA, broadcastB;
  double alpha, beta;
};

std::string caseName(const Case &c) {
  std::string s = dtypeName(c.dtype);
  s += std::string("_") + (c.transA ? "T" : "N") + (c.transB ? "T" : "N");
  s += "_" + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
       std::to_string(c.k) + "_b" + std::to_string(c.batch);
  if (c.broadcastA)
    s += "_bcastA";
  if (c.broadcastB)
    s += "_bcastB";
  if (c.alpha != 1.0 || c.beta != 0.0)
    s += "_ab";
  return s;
}

/// Random values of `type`, uniform in [-1, 1] (rounded to the type).
HostTensor randomOperand(DType type, std::vector<int64_t> shape,
                         unsigned seed) {
  HostTensor t(type, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setFromDouble(i, dist(rng));
  return t;
}

struct Problem {
  GemmStep g;
  HostTensor a, b, c;
};

Problem makeProblem(const Case &cs, unsigned seed) {
  Problem p;
  GemmStep &g = p.g;
  g.dtype = cs.dtype;
  g.transA = cs.transA;
  g.transB = cs.transB;
  g.m = cs.m;
  g.n = cs.n;
  g.k = cs.k;
  g.batch = cs.batch;
  // Padded leading dimensions, to catch stride mix-ups.
  g.lda = (cs.transA ? cs.m : cs.k) + 3;
  g.ldb = (cs.transB ? cs.k : cs.n) + 5;
  g.ldc = cs.n + 2;
  const int64_t rowsA = cs.transA ? cs.k : cs.m;
  const int64_t rowsB = cs.transB ? cs.n : cs.k;
  g.strideA = cs.broadcastA ? 0 : rowsA * g.lda;
  g.strideB = cs.broadcastB ? 0 : rowsB * g.ldb;
  g.strideC = cs.m * g.ldc;
  g.alpha = cs.alpha;
  g.beta = cs.beta;
  p.a = randomOperand(cs.dtype, {cs.broadcastA ? 1 : cs.batch, rowsA, g.lda},
                      seed);
  p.b = randomOperand(cs.dtype, {cs.broadcastB ? 1 : cs.batch, rowsB, g.ldb},
                      seed + 1);
  p.c = randomOperand(cs.dtype, {cs.batch, cs.m, g.ldc}, seed + 2);
  if (cs.beta == 0) // C must not be read: NaNs would show
    for (int64_t i = 0; i < p.c.numElements(); ++i)
      p.c.setFromDouble(i, NAN);
  return p;
}

/// The documented arithmetic, one element at a time.
HostTensor naiveGemm(const Problem &p) {
  const GemmStep &g = p.g;
  HostTensor c = p.c;
  const float alpha = float(g.alpha), beta = float(g.beta);
  for (int64_t bt = 0; bt < g.batch; ++bt)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        float acc = 0.0f;
        for (int64_t q = 0; q < g.k; ++q) {
          float av = float(p.a.getAsDouble(
              bt * g.strideA + (g.transA ? q * g.lda + i : i * g.lda + q)));
          float bv = float(p.b.getAsDouble(
              bt * g.strideB + (g.transB ? j * g.ldb + q : q * g.ldb + j)));
          if (g.tf32) {
            av = roundToTf32(av);
            bv = roundToTf32(bv);
          }
          volatile float prod = av * bv; // no contraction into an FMA
          acc = acc + prod;
        }
        const int64_t ci = bt * g.strideC + i * g.ldc + j;
        float r = alpha * acc;
        if (beta != 0.0f) {
          volatile float scaled = beta * float(c.getAsDouble(ci));
          r = r + scaled;
        }
        c.setFromDouble(ci, r);
      }
  return c;
}

/// Element-by-element equality, NaN equal to NaN (the untouched padding).
void expectSameBits(const HostTensor &got, const HostTensor &want,
                    const GemmStep &g, const std::string &what) {
  ASSERT_EQ(got.data.size(), want.data.size());
  int64_t reported = 0;
  for (int64_t e = 0; e < got.numElements(); ++e) {
    double x = got.getAsDouble(e), y = want.getAsDouble(e);
    if (x == y || (std::isnan(x) && std::isnan(y)))
      continue;
    const int64_t bt = e / g.strideC, i = (e % g.strideC) / g.ldc,
                  j = e % g.ldc;
    ADD_FAILURE() << what << ": batch " << bt << " row " << i << " col " << j
                  << ": got " << x << ", want " << y;
    if (++reported == 5)
      return;
  }
}

/// Runs the test body once per micro-kernel the CPU has.
template <typename Fn> void forEachKernel(Fn fn) {
  {
    ScopedEnv portable("DLC_GEMM_PORTABLE", "1");
    ASSERT_STREQ(cpuGemmKernel(), "portable");
    fn();
  }
  ScopedEnv native("DLC_GEMM_PORTABLE", "0");
  if (std::string(cpuGemmKernel()) != "portable")
    fn();
}

class CpuGemmBlocked : public ::testing::TestWithParam<Case> {};

TEST_P(CpuGemmBlocked, MatchesTheNaiveLoopBitForBit) {
  const Case &cs = GetParam();
  const Problem p = makeProblem(cs, 7);
  const HostTensor want = naiveGemm(p);
  forEachKernel([&] {
    for (int threads : {1, 2, 3, 8}) {
      HostTensor c = p.c;
      cpuGemm(p.g, p.a.data.data(), p.b.data.data(), c.data.data(), threads);
      expectSameBits(c, want, p.g,
                     std::string(cpuGemmKernel()) + ", " +
                         std::to_string(threads) + " threads");
    }
  });
}

// kMR = 6, kNR = 16, kKC = 256, kMC = 72, kNC = 256, kMaxTaskRows = 2048
// in CpuGemm.cpp: the sizes below land on, below and above those edges, with
// A packed up front (more than kNC columns, or A broadcast over the batch)
// and in each task.
INSTANTIATE_TEST_SUITE_P(
    Sizes, CpuGemmBlocked,
    ::testing::Values(
        Case{DType::F32, false, false, 1, 1, 1, 1, false, false, 1.0, 0.0},
        Case{DType::F32, false, false, 6, 16, 256, 1, false, false, 1.0, 0.0},
        Case{DType::F32, false, false, 7, 17, 257, 1, false, false, 1.0, 0.0},
        Case{DType::F32, false, false, 73, 259, 515, 2, false, false, 1.0, 0.0},
        Case{DType::F32, true, false, 73, 259, 515, 2, false, false, 1.0, 0.0},
        Case{DType::F32, false, true, 73, 259, 515, 2, false, false, 1.0, 0.0},
        Case{DType::F32, true, true, 73, 259, 515, 2, false, false, 1.0, 0.0},
        Case{DType::F32, false, false, 145, 31, 40, 3, true, false, 1.0, 0.0},
        Case{DType::F32, false, true, 5, 300, 77, 4, false, true, 1.0, 0.0},
        Case{DType::F32, true, false, 71, 513, 9, 2, true, true, 0.75, 0.0},
        Case{DType::F32, false, false, 37, 45, 300, 3, false, false, -1.5, 0.5},
        Case{DType::F32, true, true, 80, 20, 33, 1, false, false, 1.0, 1.0},
        Case{DType::F32, false, false, 3, 4, 0, 2, false, false, 1.0, 0.5},
        Case{DType::F32, false, false, 3, 4, 0, 2, false, false, 1.0, 0.0},
        Case{DType::F32, false, false, 1, 1000, 512, 8, false, true, 1.0, 0.0},
        Case{DType::F32, false, false, 300, 1, 70, 1, false, false, 1.0, 0.0},
        Case{DType::F32, true, false, 2200, 20, 30, 1, false, false, 1.0, 0.0},
        Case{DType::F32, false, false, 64, 300, 147, 3, true, false, 1.0, 0.0},
        Case{DType::F16, false, true, 75, 270, 300, 2, false, false, 1.0, 0.0},
        Case{DType::F16, true, false, 13, 19, 260, 3, true, false, 1.0, 1.0},
        Case{DType::F16, true, true, 8, 33, 17, 2, false, true, 0.5, -2.0},
        Case{DType::BF16, false, false, 74, 258, 270, 2, false, true, 1.0, 0.0},
        Case{DType::BF16, true, true, 6, 10, 12, 1, false, false, 2.0, 0.5},
        Case{DType::BF16, true, false, 20, 40, 600, 2, true, false, 1.0, 0.0}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return caseName(info.param);
    });

TEST(CpuGemmTf32, RoundsToNearestTiesAwayFromZero) {
  EXPECT_EQ(roundToTf32(1.0f), 1.0f);
  EXPECT_EQ(roundToTf32(0.0f), 0.0f);
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 (10 mantissa bits).
  EXPECT_EQ(roundToTf32(1.0f + 0x1p-11f), 1.0f + 0x1p-10f);
  EXPECT_EQ(roundToTf32(-(1.0f + 0x1p-11f)), -(1.0f + 0x1p-10f));
  EXPECT_EQ(roundToTf32(1.0f + 0x1p-12f), 1.0f);
  EXPECT_EQ(roundToTf32(1.0f + 0x1p-11f - 0x1p-23f), 1.0f);
  EXPECT_EQ(roundToTf32(3.0f * 0x1p-136f), 3.0f * 0x1p-136f); // subnormal
  EXPECT_EQ(roundToTf32(3.0f * 0x1p-140f), 0.0f); // below the last TF32 bit
  EXPECT_EQ(roundToTf32(2.0f - 0x1p-23f), 2.0f);  // a carry into the exponent
  EXPECT_TRUE(std::isinf(roundToTf32(INFINITY)));
  EXPECT_TRUE(std::isnan(roundToTf32(NAN)));
}

TEST(CpuGemmTf32, MatchesTheNaiveLoopOnRoundedOperands) {
  for (Case cs :
       {Case{DType::F32, false, false, 73, 259, 515, 2, false, false, 1.0, 0.0},
        Case{DType::F32, true, true, 37, 45, 300, 3, false, true, -1.5, 0.5}}) {
    Problem p = makeProblem(cs, 11);
    p.g.tf32 = true;
    const HostTensor want = naiveGemm(p);
    forEachKernel([&] {
      HostTensor c = p.c;
      cpuGemm(p.g, p.a.data.data(), p.b.data.data(), c.data.data(), 2);
      expectSameBits(c, want, p.g, caseName(cs) + " tf32");
    });
    // And the rounding matters: full f32 gives other results.
    Problem full = p;
    full.g.tf32 = false;
    HostTensor c = p.c;
    cpuGemm(full.g, p.a.data.data(), p.b.data.data(), c.data.data(), 2);
    EXPECT_NE(c.data, want.data) << caseName(cs);
  }
}

/// Epilogues (runtime/CpuGemm.h): act(alpha * acc + beta * addend +
/// bias[j]) in f32, rounded once; C itself is not read when there is an
/// addend. The naive loop again, element by element.
TEST(CpuGemmEpilogue, MatchesTheNaiveLoopBitForBit) {
  struct EpilogueCase {
    Case shape;
    GemmEpilogue act;
    bool bias, addend;
  };
  const EpilogueCase cases[] = {
      {{DType::F32, false, true, 73, 259, 40, 2, false, false, 1.0, 1.0},
       GemmEpilogue::Relu,
       true,
       true},
      {{DType::F32, true, false, 7, 17, 257, 3, true, false, 1.0, 0.0},
       GemmEpilogue::GeluTanh,
       true,
       false},
      {{DType::F32, false, false, 6, 16, 5, 1, false, false, 0.5, 1.0},
       GemmEpilogue::None,
       false,
       true},
      {{DType::F32, false, false, 3, 4, 0, 2, false, false, 1.0, 1.0},
       GemmEpilogue::Relu,
       true,
       true},
      {{DType::F16, false, true, 75, 270, 30, 2, false, false, 1.0, 0.0},
       GemmEpilogue::GeluTanh,
       true,
       false},
      {{DType::F16, true, true, 8, 33, 17, 2, false, true, 1.0, 1.0},
       GemmEpilogue::None,
       true,
       true},
      {{DType::BF16, false, false, 20, 40, 60, 2, true, false, 1.0, 1.0},
       GemmEpilogue::Relu,
       false,
       true},
      {{DType::BF16, true, true, 6, 10, 12, 1, false, false, 2.0, 0.0},
       GemmEpilogue::GeluTanh,
       false,
       false},
  };
  for (const EpilogueCase &ec : cases) {
    SCOPED_TRACE(caseName(ec.shape) + " " + gemmEpilogueName(ec.act) +
                 (ec.bias ? " bias" : "") + (ec.addend ? " addend" : ""));
    Problem p = makeProblem(ec.shape, 11);
    GemmStep &g = p.g;
    g.epilogue = ec.act;
    HostTensor bias = randomOperand(g.dtype, {g.n}, 12);
    HostTensor addend = randomOperand(g.dtype, {g.batch, g.m, g.ldc}, 13);
    if (ec.bias)
      g.bias = BufferRef();
    if (ec.addend) {
      g.addend = BufferRef();
      // With an addend, C is output only.
      for (int64_t i = 0; i < p.c.numElements(); ++i)
        p.c.setFromDouble(i, NAN);
    }
    // The naive loop, then the epilogue on its f32 value.
    HostTensor want = p.c;
    const float alpha = float(g.alpha), beta = float(g.beta);
    for (int64_t bt = 0; bt < g.batch; ++bt)
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) {
          float acc = 0.0f;
          for (int64_t q = 0; q < g.k; ++q) {
            float av = float(p.a.getAsDouble(
                bt * g.strideA + (g.transA ? q * g.lda + i : i * g.lda + q)));
            float bv = float(p.b.getAsDouble(
                bt * g.strideB + (g.transB ? j * g.ldb + q : q * g.ldb + j)));
            volatile float prod = av * bv;
            acc = acc + prod;
          }
          const int64_t ci = bt * g.strideC + i * g.ldc + j;
          float r = alpha * acc;
          if (beta != 0.0f) {
            const HostTensor &x = ec.addend ? addend : p.c;
            volatile float scaled = beta * float(x.getAsDouble(ci));
            r = r + scaled;
          }
          if (ec.bias)
            r = r + float(bias.getAsDouble(j));
          if (ec.act == GemmEpilogue::Relu) {
            r = std::fmax(r, 0.0f);
          } else if (ec.act == GemmEpilogue::GeluTanh) {
            volatile float cube = 0.044715f * r * r * r;
            volatile float inner = 0.7978845608f * (r + cube);
            volatile float half = 0.5f * r;
            r = half * (1.0f + std::tanh(float(inner)));
          }
          want.setFromDouble(ci, r);
        }
    forEachKernel([&] {
      for (int threads : {1, 3}) {
        HostTensor c = p.c;
        cpuGemm(g, p.a.data.data(), p.b.data.data(), c.data.data(), threads,
                bias.data.data(), addend.data.data());
        expectSameBits(c, want, g,
                       std::string(cpuGemmKernel()) + ", " +
                           std::to_string(threads) + " threads");
      }
    });
  }
}

/// Integers make every sum exact: a check that does not rest on the
/// naive loop's rounding model.
TEST(CpuGemmBlockedExact, IntegerProducts) {
  GemmStep g;
  g.m = 77;
  g.n = 263;
  g.k = 600;
  g.batch = 2;
  g.lda = g.k;
  g.ldb = g.n;
  g.ldc = g.n;
  g.strideA = g.m * g.k;
  g.strideB = g.k * g.n;
  g.strideC = g.m * g.n;
  std::vector<float> a(size_t(g.batch * g.strideA)),
      b(size_t(g.batch * g.strideB));
  std::vector<float> c(size_t(g.batch * g.strideC), NAN);
  std::mt19937 rng(3);
  for (float &x : a)
    x = float(int(rng() % 7) - 3);
  for (float &x : b)
    x = float(int(rng() % 7) - 3);
  forEachKernel([&] {
    cpuGemm(g, a.data(), b.data(), c.data(), 2);
    for (int64_t bt = 0; bt < g.batch; ++bt)
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) {
          long long want = 0;
          for (int64_t q = 0; q < g.k; ++q)
            want += (long long)a[size_t(bt * g.strideA + i * g.k + q)] *
                    (long long)b[size_t(bt * g.strideB + q * g.n + j)];
          ASSERT_EQ(c[size_t(bt * g.strideC + i * g.n + j)], float(want))
              << cpuGemmKernel() << " batch " << bt << " row " << i << " col "
              << j;
        }
  });
}

/// A ResNet-sized product (231 M multiply-adds) takes ~6 ms on 2 cores of
/// the development machine (the former row-at-a-time loop: ~30 ms); the
/// bound only catches a gross slowdown (say, lost vectorization) and
/// leaves room for slow CI machines and sanitizer builds.
TEST(CpuGemmBlockedSpeed, ConvSizedProduct) {
  GemmStep g;
  g.m = 256;  // output channels
  g.n = 784;  // 28 x 28 pixels
  g.k = 1152; // 128 channels x 3 x 3
  g.lda = g.k;
  g.ldb = g.n;
  g.ldc = g.n;
  std::vector<float> a(size_t(g.m * g.k), 0.5f), b(size_t(g.k * g.n), 0.25f),
      c(size_t(g.m * g.n));
  auto t0 = std::chrono::steady_clock::now();
  cpuGemm(g, a.data(), b.data(), c.data(), 2);
  double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_EQ(c[0], 0.125f * 1152);
  EXPECT_EQ(c.back(), 0.125f * 1152);
  RecordProperty("seconds", std::to_string(s));
  EXPECT_LT(s, 2.0) << "231 M multiply-adds took " << s << " s ("
                    << cpuGemmKernel() << ")";
}

} // namespace
