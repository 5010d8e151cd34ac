//===- Segments.h - Recompute whole forward segments ------------*- C++ -*-===//
//
// dlc-rematerialize's exact half (Passes.td, docs/memory.md): a training
// step's forward pass is cut where one value alone crosses from the ops
// before to the ops after (a residual block's output, a layer's); a run of
// consecutive segments may be recomputed from the value that enters it,
// right before the backward pass first reads one of its values (Chen et
// al.'s checkpoints). Which runs, is a 0-1 program over the schedule's
// memory estimate solved by GLPK (IntegerProgram.h): least recomputed
// operations with the estimate at most the target everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_SEGMENTS_H
#define DLC_PASSES_SEGMENTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir::dlc {

/// Operations to compute `op` once (its cost interface where it has one).
double operationsOf(Operation *op);

struct SegmentPlan {
  /// Runs of segments recomputed, and their operations.
  size_t runs = 0;
  double flops = 0;
  /// Segments the forward pass was cut into (0: not a training step).
  size_t segments = 0;
  /// How the choice was made: "optimal", "time limit" (GLPK's best when
  /// its time ran out), or why no choice was made.
  std::string how;
};

/// Chooses and recomputes runs of forward segments of `func`'s body so
/// that its estimate peaks at most at `target` bytes (or as low as the
/// runs allow, with the least operations for that), the solver given at
/// most `seconds`. Does nothing where `seconds` is 0, `func` is no
/// training step (no result of dlc.gradient_of or dlc.updates), no run
/// frees memory, or the solver gives no answer; `how` then says why.
SegmentPlan recomputeSegments(func::FuncOp func, int64_t target,
                              double seconds);

} // namespace mlir::dlc

#endif // DLC_PASSES_SEGMENTS_H
