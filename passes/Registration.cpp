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
struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  Option<bool> fuse{*this, "fuse", llvm::cl::desc("Form fused kernels"),
                    llvm::cl::init(true)};
  Option<bool> plan{*this, "plan-memory",
                    llvm::cl::desc("Plan the activation arena"),
                    llvm::cl::init(true)};
  Option<bool> inPlace{*this, "in-place",
                       llvm::cl::desc("Allow in-place kernel outputs"),
                       llvm::cl::init(true)};
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
        PipelineOptions options;
        options.fuse = cl.fuse;
        options.planMemory = cl.plan;
        options.inPlace = cl.inPlace;
        buildDlcPipeline(pm, options);
      });
}
