//===- CpuConv.cpp - Convolution steps on the CPU -------------------------===//
//
// The sim device's convolution step: for each image and group, the input's
// windows gathered into a [P*Q, R*S*C/G] panel of the step's element type,
// then one CPU GEMM against the filter's [K/G, R*S*C/G] rows (transposed),
// writing the output's [P*Q, K] rows with its row stride, with the bias, the
// residual and the relu as the GEMM's epilogue. The panel lives in host
// memory of this call; the device traffic is the step's, as on cuDNN.
//
//===----------------------------------------------------------------------===//
#include "runtime/CpuConv.h"
#include "runtime/CpuGemm.h"
#include "runtime/Tensor.h"

#include <cstring>
#include <vector>

namespace dlc::rt {

void cpuConv(const ConvStep &c, const void *x, const void *filter, void *y,
             int threads, const void *bias, const void *addend) {
  const uint64_t es = dtypeSize(c.dtype);
  const int64_t cg = c.c / c.groups, kg = c.k / c.groups;
  const int64_t rsc = c.r * c.s * cg, pq = c.p * c.q;
  if (pq == 0 || kg == 0)
    return;
  const auto *in = static_cast<const uint8_t *>(x);
  const auto *w = static_cast<const uint8_t *>(filter);
  auto *out = static_cast<uint8_t *>(y);
  const auto *b = static_cast<const uint8_t *>(bias);
  const auto *z = static_cast<const uint8_t *>(addend);
  std::vector<uint8_t> panel(uint64_t(pq) * uint64_t(rsc) * es);

  GemmStep g;
  g.dtype = g.cType = c.dtype;
  g.accType = DType::F32;
  g.transB = true;
  g.m = pq;
  g.n = kg;
  g.k = rsc;
  g.lda = rsc;
  g.ldb = rsc;
  g.ldc = c.k;
  g.epilogue = c.epilogue;
  g.tf32 = c.tf32;
  g.beta = addend ? 1.0 : 0.0;
  // cpuGemm reads the bias and addend through its pointers; their presence
  // in the step says that they are there.
  if (bias)
    g.bias = BufferRef{};
  if (addend)
    g.addend = BufferRef{};

  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t grp = 0; grp < c.groups; ++grp) {
      // The panel: row (oh, ow), columns (r, s, channel of the group).
      for (int64_t oh = 0; oh < c.p; ++oh)
        for (int64_t ow = 0; ow < c.q; ++ow) {
          uint8_t *row = panel.data() + uint64_t(oh * c.q + ow) * rsc * es;
          for (int64_t r = 0; r < c.r; ++r)
            for (int64_t s = 0; s < c.s; ++s) {
              uint8_t *dst = row + uint64_t((r * c.s + s) * cg) * es;
              int64_t ih = oh * c.strideH - c.padH + r * c.dilH;
              int64_t iw = ow * c.strideW - c.padW + s * c.dilW;
              if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w) {
                std::memset(dst, 0, uint64_t(cg) * es);
                continue;
              }
              std::memcpy(
                  dst,
                  in + uint64_t(((n * c.h + ih) * c.w + iw) * c.c + grp * cg) *
                           es,
                  uint64_t(cg) * es);
            }
        }
      uint64_t outOffset = uint64_t(n * pq * c.k + grp * kg) * es;
      cpuGemm(g, panel.data(), w + uint64_t(grp * kg * rsc) * es,
              out + outOffset, threads,
              b ? b + uint64_t(grp * kg) * es : nullptr,
              z ? z + outOffset : nullptr);
    }
}

} // namespace dlc::rt
