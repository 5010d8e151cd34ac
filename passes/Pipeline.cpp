//===- Pipeline.cpp - The dlc compilation pipeline ------------------------===//
#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::dlc;

void mlir::dlc::buildLoweringPipeline(OpPassManager &pm) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createLowerTosa());
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(createCSEPass());
}

void mlir::dlc::buildOptimizationPipeline(OpPassManager &pm,
                                          const PipelineOptions &options) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  // Without fusion every op still becomes a kernel of its own: code
  // generation only knows kernels, matrix products and views.
  FuseOptions fuseOptions;
  if (!options.fuse)
    fuseOptions.maxOpsPerKernel = 1;
  fpm.addPass(createFuse(fuseOptions));
  if (options.planMemory) {
    PlanMemoryOptions planOptions;
    planOptions.allowInPlace = options.inPlace;
    fpm.addPass(createPlanMemory(planOptions));
  }
}

void mlir::dlc::buildDlcPipeline(OpPassManager &pm,
                                 const PipelineOptions &options) {
  buildLoweringPipeline(pm);
  if (!options.lowerOnly)
    buildOptimizationPipeline(pm, options);
}

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
  PassPipelineRegistration<>("dlc-lower",
                             "Lower TOSA to dlc and canonicalize",
                             buildLoweringPipeline);
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
