//===- Passes.h - dlc compiler passes and pipeline ----------------*- C++
//-*-===//
#ifndef DLC_PASSES_PASSES_H
#define DLC_PASSES_PASSES_H

#include "ir/Dialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace mlir::dlc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Knobs of the whole compilation pipeline.
struct PipelineOptions {
  /// Stop after lowering to dlc (no fusion, no planning).
  bool lowerOnly = false;
  bool fuse = true;
  /// dlc-merge-kernels after fusion (only with fuse).
  bool mergeKernels = true;
  /// The graph rewrites around fusion: dlc-horizontal-fuse,
  /// dlc-form-attention, dlc-fuse-epilogue and dlc-merge-kernels (off also
  /// without fuse). Off, dlc-fuzz checks that results do not depend on them.
  bool graphRewrites = true;
  /// dlc-fuse's max-ops-per-kernel; 0 keeps its default.
  unsigned maxOpsPerKernel = 0;
  /// dlc-fuse's and dlc-merge-kernels' max-outputs-per-kernel; 0 keeps
  /// their default.
  unsigned maxOutputsPerKernel = 0;
  bool planMemory = true;
  bool inPlace = true;
  /// dlc-fuse records dlc.fusion_notes on every kernel (--emit=fused).
  bool fusionNotes = false;
  /// Canonicalization and CSE after lowering. Off, the later passes see the
  /// lowering's output as it is (dlc-fuzz compiles every program this way
  /// too: results must not depend on it).
  bool canonicalize = true;
};

/// TOSA to dlc, then (with `canonicalize`) canonicalization and CSE.
void buildLoweringPipeline(OpPassManager &pm, bool canonicalize = true);
/// Fusion and memory planning on lowered dlc IR.
void buildOptimizationPipeline(OpPassManager &pm,
                               const PipelineOptions &options);
/// The whole pipeline from TOSA/dlc to planned kernels.
void buildDlcPipeline(OpPassManager &pm, const PipelineOptions &options);
/// Registers every pass (test passes included) and the `dlc-pipeline` /
/// `dlc-lower` pipelines. In the DLCPassRegistration library (passes/
/// Registration.cpp), which links code generation: for dlc-opt.
void registerDlcPassesAndPipelines();

} // namespace mlir::dlc

#endif // DLC_PASSES_PASSES_H
