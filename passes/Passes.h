//===- Passes.h - dlc compiler passes and pipeline --------------*- C++ -*-===//
#ifndef DLC_PASSES_PASSES_H
#define DLC_PASSES_PASSES_H

#include "ir/Dialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "passes/PipelineOptions.h"
#include "runtime/Tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::dlc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// NCHW to NHWC and back, as permutations (new dimension i is old dimension
/// perm[i]): dlc-assign-layout and dlc-lower-conv.
inline constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
inline constexpr int64_t kToNCHW[] = {0, 3, 1, 2};

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// X(type, field, default, option, description), as DLC_PIPELINE_KNOBS:
/// where the pipeline stops and what it records for the printed report.
/// `dlc compile` derives them from --emit; dlc-opt takes them as
/// `--dlc-pipeline` options.
#define DLC_PIPELINE_STAGE_OPTIONS(X)                                          \
  X(bool, lowerOnly, false, "lower-only",                                      \
    "stop after lowering to dlc (no fusion, no planning)")                     \
  X(bool, fusionNotes, false, "fusion-notes",                                  \
    "dlc-fuse records dlc.fusion_notes on every kernel (the report of "        \
    "--emit=fused)")                                                           \
  X(double, rematTighten, 1.0, "remat-tighten",                                \
    "a factor on dlc-rematerialize's target: the compiler's later tries "      \
    "when the plan after fusion missed --memory-budget")                       \
  X(int64_t, activationArena, 0, "activation-arena",                           \
    "the keep-everything plan's arena in bytes, which --activation-budget "    \
    "is a fraction of (the compiler measures it; 0: the estimate's peak)")

/// The pipeline's knobs (shared with dlc::CompileOptions, `dlc compile`'s
/// flags and dlc-opt) and its stage options.
struct PipelineOptions : ::dlc::PipelineOptions {
  DLC_PIPELINE_STAGE_OPTIONS(DLC_PIPELINE_FIELD)

  /// Calls `visit(option, value)` for every knob, then every stage option.
  template <typename Visitor> void forEach(Visitor &&visit) const {
    ::dlc::PipelineOptions::forEach(visit);
    DLC_PIPELINE_STAGE_OPTIONS(DLC_PIPELINE_VISIT)
  }
};

/// The options as `--dlc-pipeline='...'` takes them: "fuse=true ...", every
/// option spelled out.
std::string formatPipelineOptions(const PipelineOptions &options);

/// Records on every op of `func` with one float result the largest
/// magnitude it takes when the reference interpreter evaluates `func` on
/// `inputs` (dlc.amax), and marks `func` calibrated (dlc-calibrate-ranges).
/// A function the interpreter cannot evaluate gets a warning, no ranges,
/// and failure.
LogicalResult calibrateRanges(func::FuncOp func,
                              const std::vector<rt::HostTensor> &inputs);

/// `--io-precision=low`: makes `func`'s f32 tensor arguments and results
/// `low`, with a dlc.cast to f32 after the entry and one to `low` before
/// the return (an argument's calibrated range goes to its cast).
/// dlc-assign-precision does this, and the compiler to the reference model
/// so that it takes and returns what the package does.
void castSignature(func::FuncOp func, FloatType low);

/// The value dlc-fuse-epilogue would make `matmul`'s result: the end of
/// the bias, residual and activation chain cuBLASLt's epilogue would
/// compute, or the product's own result when nothing follows it.
Value epilogueEnd(MatmulOp matmul);

/// Inputs for `func`'s arguments as rt::randomInputs makes them (floats
/// uniform in [-1, 1)), or failure for an argument that is not a static
/// tensor of a dlc element type.
FailureOr<std::vector<rt::HostTensor>> seededInputs(func::FuncOp func,
                                                    uint64_t seed);

/// Calls of the module's functions inlined (dlc-inline-calls), TOSA to dlc,
/// with `training->train` the training step (dlc-autodiff,
/// dlc-apply-optimizer), then (with `canonicalize`) canonicalization and
/// CSE, then each function's dlc.source_ops: the number of dlc ops before
/// fusion.
void buildLoweringPipeline(OpPassManager &pm, bool canonicalize = true,
                           const ::dlc::PipelineOptions *training = nullptr);
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
