//===- CpuGemm.cpp - Reference GEMM on the CPU ----------------------------===//

#include "runtime/CpuGemm.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

namespace dlc::rt {
namespace {

inline float loadElement(const void *base, DType type, int64_t index) {
  switch (type) {
  case DType::F16: {
    uint16_t h;
    std::memcpy(&h, static_cast<const uint8_t *>(base) + 2 * index, 2);
    return halfToFloat(h);
  }
  case DType::BF16: {
    uint16_t h;
    std::memcpy(&h, static_cast<const uint8_t *>(base) + 2 * index, 2);
    return bfloat16ToFloat(h);
  }
  default: {
    float f;
    std::memcpy(&f, static_cast<const uint8_t *>(base) + 4 * index, 4);
    return f;
  }
  }
}

inline void storeElement(void *base, DType type, int64_t index, float v) {
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

/// Computes rows [rowBegin, rowEnd) of the flattened (batch x m) output.
void gemmRows(const GemmStep &g, const void *a, const void *b, void *c,
              int64_t rowBegin, int64_t rowEnd) {
  const int64_t m = g.m, n = g.n, k = g.k;
  std::vector<float> bmat(static_cast<size_t>(k * n));
  std::vector<float> arow(static_cast<size_t>(k));
  std::vector<float> acc(static_cast<size_t>(n));
  const float alpha = float(g.alpha), beta = float(g.beta);
  int64_t loadedBatch = -1;
  for (int64_t row = rowBegin; row < rowEnd; ++row) {
    const int64_t batch = row / m, i = row % m;
    // op(B) of this batch as a dense k x n row-major matrix; a broadcast B
    // (stride 0) is converted once.
    if (batch != loadedBatch && (loadedBatch < 0 || g.strideB != 0)) {
      int64_t base = batch * g.strideB;
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j)
          bmat[size_t(p * n + j)] = loadElement(
              b, g.dtype, base + (g.transB ? j * g.ldb + p : p * g.ldb + j));
    }
    loadedBatch = batch;
    int64_t aBase = batch * g.strideA;
    for (int64_t p = 0; p < k; ++p)
      arow[size_t(p)] = loadElement(
          a, g.dtype, aBase + (g.transA ? p * g.lda + i : i * g.lda + p));
    std::fill(acc.begin(), acc.end(), 0.0f);
    // Each output accumulates its k products in order, in f32.
    for (int64_t p = 0; p < k; ++p) {
      const float av = arow[size_t(p)];
      const float *brow = bmat.data() + p * n;
      float *out = acc.data();
      for (int64_t j = 0; j < n; ++j)
        out[j] += av * brow[j];
    }
    int64_t cBase = batch * g.strideC + i * g.ldc;
    for (int64_t j = 0; j < n; ++j) {
      float r = alpha * acc[size_t(j)];
      if (beta != 0.0f)
        r += beta * loadElement(c, g.dtype, cBase + j);
      storeElement(c, g.dtype, cBase + j, r);
    }
  }
}

} // namespace

void cpuGemm(const GemmStep &g, const void *a, const void *b, void *c,
             int threads) {
  if (g.m <= 0 || g.n <= 0 || g.batch <= 0)
    return;
  const int64_t rows = g.batch * g.m;
  const double work = double(rows) * double(g.n) * double(std::max<int64_t>(g.k, 1));
  // Threads only pay off for products of a few million multiply-adds.
  int64_t useThreads = work < double(1 << 22) ? 1 : std::max(1, threads);
  useThreads = std::min(useThreads, rows);
  if (useThreads <= 1) {
    gemmRows(g, a, b, c, 0, rows);
    return;
  }
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < useThreads; ++t)
    pool.emplace_back(gemmRows, std::cref(g), a, b, c, rows * t / useThreads,
                      rows * (t + 1) / useThreads);
  gemmRows(g, a, b, c, 0, rows / useThreads);
  for (std::thread &t : pool)
    t.join();
}

} // namespace dlc::rt
