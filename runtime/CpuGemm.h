//===- CpuGemm.h - Blocked GEMM on the CPU ----------------------*- C++ -*-===//
//
// The sim device's implementation of GemmStep: a row-major batched matrix
// product on host memory with f32 accumulation (f16/bf16/FP8 operands are
// converted exactly to f32, the result rounded to C's type to nearest even),
// the same arithmetic cuBLAS uses with CUBLAS_COMPUTE_32F.
//
// Each output element is acc = sum over k in increasing order of
// A(i,k) * B(k,j), one product at a time in f32 (the product rounded, then
// the sum; no fused multiply-add), then alpha * acc (+ beta * C when
// beta != 0), rounded to C's type: the result does not depend on the thread
// count, on how the work is split or on the CPU, and equals that of the
// naive loop (and of the fake cuBLAS in test/runtime) bit for bit.
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
///
/// A step with an epilogue (GemmStep::hasEpilogue) also needs `bias` and
/// `addend` when it has them: after alpha * acc, beta * addend (instead of
/// beta * C) and bias[j] are added, in that order, then the activation is
/// applied (gemmActivation), all in f32, and the result is rounded once.
void cpuGemm(const GemmStep &gemm, const void *a, const void *b, void *c,
             int threads = 2, const void *bias = nullptr,
             const void *addend = nullptr);

/// `x` rounded to TF32 (10 explicit mantissa bits, the operand precision
/// of tensor-core f32 products): to nearest, ties away from zero, as
/// `cvt.rna.tf32.f32`; Inf and NaN unchanged. A GemmStep with `tf32` rounds
/// every element of A and B so before multiplying.
float roundToTf32(float x);

/// The epilogue's activation in f32, as cuBLASLt applies it (and the fake
/// cuBLASLt of the tests, bit for bit): relu is fmax(x, 0); GELU is the
/// tanh approximation.
float gemmActivation(GemmEpilogue epilogue, float x);

/// The micro-kernel cpuGemm uses now: "avx2" or "portable" (GCC vector
/// code; same results, slower). DLC_GEMM_PORTABLE=1 in the environment
/// forces the portable one.
const char *cpuGemmKernel();

} // namespace dlc::rt

#endif // DLC_RUNTIME_CPUGEMM_H
