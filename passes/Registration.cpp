//===- Registration.cpp - Registers dlc's passes and pipelines ------------===//
//
// Kept apart from the pipeline itself (passes/Pipeline.cpp): registering
// every pass of Passes.td includes the test passes, which link code
// generation and the reference interpreter; only dlc-opt needs that.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// `--dlc-pipeline`'s options: the pipeline's knobs and stage options, each
/// named as in PipelineOptions (the command `dlc compile --print-pipeline`
/// prints is formatPipelineOptions of the same struct).
struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
#define DLC_PIPELINE_OPTION(type, field, defaultValue, option, description)    \
  Option<type> field{*this, option, llvm::cl::desc(description),               \
                     llvm::cl::init(defaultValue)};
  DLC_PIPELINE_KNOBS(DLC_PIPELINE_OPTION)
  DLC_PIPELINE_STAGE_OPTIONS(DLC_PIPELINE_OPTION)
#undef DLC_PIPELINE_OPTION

  PipelineOptions options() const {
    PipelineOptions options;
#define DLC_PIPELINE_ASSIGN(type, field, defaultValue, option, description)    \
  options.field = field;
    DLC_PIPELINE_KNOBS(DLC_PIPELINE_ASSIGN)
    DLC_PIPELINE_STAGE_OPTIONS(DLC_PIPELINE_ASSIGN)
#undef DLC_PIPELINE_ASSIGN
    return options;
  }
};
} // namespace

void mlir::dlc::registerDlcPassesAndPipelines() {
  registerDlcPasses();
  PassPipelineRegistration<>(
      "dlc-lower", "Lower TOSA to dlc and canonicalize",
      [](OpPassManager &pm) { buildLoweringPipeline(pm); });
  PassPipelineRegistration<PipelineCLOptions>(
      "dlc-pipeline", "The whole dlc pipeline: lowering, fusion, planning",
      [](OpPassManager &pm, const PipelineCLOptions &cl) {
        buildDlcPipeline(pm, cl.options());
      });
}
