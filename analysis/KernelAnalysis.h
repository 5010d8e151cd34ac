//===- KernelAnalysis.h - How a group of ops becomes one kernel -*- C++ -*-===//
//
// Shared by fusion (to judge whether a candidate group makes a good kernel)
// and code generation (to pick the kernel emitter), so the two never
// disagree. It sits below both: passes and codegen link it, it links neither.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_ANALYSIS_KERNELANALYSIS_H
#define DLC_ANALYSIS_KERNELANALYSIS_H

#include "ir/Dialect.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::dlc {

enum class KernelTemplate {
  /// One thread per output element (several with vector loads); any
  /// reduction inside is a serial loop evaluated per output element.
  Pointwise,
  /// One warp or block per row of `rowShape`; each reduction over the
  /// trailing `numInnerDims` dimensions is computed once per row
  /// cooperatively (warp shuffles) and broadcast to the row.
  Row,
  /// A generated GEMM (the body's one dlc.matmul): one block per 64x64
  /// tile of the product; each thread computes the kernel's results at its
  /// elements of the tile from the product in registers.
  Gemm,
};

struct KernelPlan {
  KernelTemplate kind = KernelTemplate::Pointwise;
  /// Pointwise: the shape of every output (the iteration space).
  /// Row: the row shape S = [outer..., inner...].
  llvm::SmallVector<int64_t> space;
  /// Row: the number of trailing dimensions of S that are reduced.
  int64_t numInnerDims = 0;
  /// Row: reductions (dlc.reduce, dlc.argmax) computed once per row, in
  /// topological order. Each has input shape S and reduces exactly the
  /// trailing numInnerDims dimensions.
  llvm::SmallVector<Operation *> rowReductions;
  /// Gemm: the product.
  MatmulOp product;
  /// Estimated bytes read from and written to device memory.
  int64_t bytesRead = 0, bytesWritten = 0;

  int64_t numRows() const;
  int64_t rowLength() const;
};

/// When `out` is a transpose of a value of the row shape `rowShape` that
/// keeps its `numInnerDims` trailing dimensions in place (it only moves
/// whole rows: a sequence-first view of a batch-first layer norm), the
/// permutation: a Row kernel writes each row at its permuted place.
std::optional<llvm::SmallVector<int64_t>>
rowOutputPerm(Value out, ArrayRef<int64_t> rowShape, int64_t numInnerDims);

/// Plans a kernel for `ops` (in topological order) producing `outputs`.
/// Values used by `ops` but not defined by them are the kernel's inputs.
/// Fails (with a reason, no diagnostic) when the group has no valid plan:
/// outputs of mixed shapes that neither template covers.
FailureOr<KernelPlan> analyzeKernel(ArrayRef<Operation *> ops,
                                    ArrayRef<Value> outputs,
                                    std::string *whyNot = nullptr);

/// Plans the body of a formed kernel.
FailureOr<KernelPlan> analyzeKernel(KernelOp kernel,
                                    std::string *whyNot = nullptr);

} // namespace mlir::dlc

#endif // DLC_ANALYSIS_KERNELANALYSIS_H
