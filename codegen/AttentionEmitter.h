//===- AttentionEmitter.h - Kernels for dlc.attention -------*- C++ -*-===//
//
// Internal to codegen/: every top-level dlc.attention becomes one
// `extern "C" __global__` kernel (named attn0, attn1, ... in schedule order)
// with the argument contract of the fused kernels (q, k, v, [mask], result
// pointers; a value that is several of q, k and v is passed once), so the
// package builder launches it as a KernelStep and the sim
// device runs it through its trampoline like any other kernel.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_CODEGEN_ATTENTIONEMITTER_H
#define DLC_CODEGEN_ATTENTIONEMITTER_H

#include "codegen/Codegen.h"

#include <string>
#include <vector>

namespace mlir::dlc {

/// One emitted attention kernel and how to launch it.
struct EmittedAttention {
  AttentionOp op;
  rt::KernelInfo info;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  /// "attn0: attention 8x64x64 d64 causal".
  std::string label;
  /// The kernel's input parameters, in order: q, k, v and the mask, each
  /// distinct value once (a packed QKV tensor is one parameter).
  SmallVector<Value> inputs;
  /// The two products' FLOPs over the query-key pairs computed (a causal
  /// attention skips the masked ones): 2 (d + dv) per pair and batch.
  double flops = 0;
};

/// Appends the kernels of every top-level dlc.attention of `func`, in order,
/// to `source`, which must already hold the CUDA emitter's prelude (the
/// f16/bf16 conversions the kernels call): emitCudaKernels writes it first.
/// Diagnoses, at the op, a shape the kernels cannot handle.
LogicalResult emitAttentionKernels(func::FuncOp func, std::string &source,
                                   std::vector<EmittedAttention> &kernels);

} // namespace mlir::dlc

#endif // DLC_CODEGEN_ATTENTIONEMITTER_H
