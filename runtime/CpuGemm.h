//===- CpuGemm.h - Reference GEMM on the CPU ----------------------*- C++ -*-===//
//
// The sim device's implementation of GemmStep: a row-major batched matrix
// product on host memory with f32 accumulation (f16/bf16 operands are
// converted exactly to f32, the result rounded back to nearest even), the
// same arithmetic cuBLAS uses with CUBLAS_COMPUTE_32F.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_CPUGEMM_H
#define DLC_RUNTIME_CPUGEMM_H

#include "runtime/Package.h"

namespace dlc::rt {

/// C[b] = alpha * op(A[b]) * op(B[b]) + beta * C[b] as `gemm` describes
/// (its BufferRefs are ignored; `a`, `b` and `c` point at the first
/// element). With beta == 0, C is not read (NaNs in it do not propagate).
/// Uses up to `threads` threads.
void cpuGemm(const GemmStep &gemm, const void *a, const void *b, void *c,
             int threads = 2);

} // namespace dlc::rt

#endif // DLC_RUNTIME_CPUGEMM_H
