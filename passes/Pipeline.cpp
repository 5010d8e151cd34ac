//===- Pipeline.cpp - The dlc compilation pipeline ------------------------===//
#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::dlc;

void mlir::dlc::buildLoweringPipeline(OpPassManager &pm, bool canonicalize,
                                      const ::dlc::PipelineOptions *training) {
  pm.addPass(createInlineCalls());
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createLowerTosa());
  // A training step is built before canonicalization, which would fold
  // what parameters (constants until dlc-autodiff lifts them) feed.
  if (training && training->train) {
    AutodiffOptions autodiff;
    autodiff.loss = training->loss;
    autodiff.lossScale =
        training->lossScale == "dynamic" ||
        (training->lossScale == "auto" && training->precision == "fp16");
    fpm.addPass(createAutodiff(autodiff));
    ApplyOptimizerOptions optimizer;
    optimizer.optimizer = training->optimizer;
    optimizer.lr = training->lr;
    optimizer.momentum = training->momentum;
    optimizer.nesterov = training->nesterov;
    // -1: PyTorch's default (torch.optim.SGD 0, torch.optim.AdamW 0.01).
    optimizer.weightDecay = training->weightDecay >= 0 ? training->weightDecay
                            : training->optimizer == "adamw" ? 0.01
                                                             : 0.0;
    optimizer.eps = training->eps;
    optimizer.gradClip = training->gradClip;
    optimizer.accumulate = training->accumulate;
    optimizer.dropoutSeed = training->dropoutSeed;
    // checkPipelineOptions accepted the betas (sgd: the defaults).
    double beta1 = 0.9, beta2 = 0.999;
    ::dlc::parseBetas(training->betas, beta1, beta2);
    optimizer.beta1 = beta1;
    optimizer.beta2 = beta2;
    fpm.addPass(createApplyOptimizer(optimizer));
  }
  if (canonicalize) {
    fpm.addPass(createCanonicalizerPass());
    fpm.addPass(createCSEPass());
  }
  fpm.addPass(createRecordSourceOps());
}

void mlir::dlc::buildOptimizationPipeline(OpPassManager &pm,
                                          const PipelineOptions &options) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  // Without fusion every op still becomes a kernel of its own: code
  // generation only knows kernels, matrix products and views; the graph
  // rewrites around fusion are off too.
  bool rewrites = options.fuse && options.graphRewrites;
  // Sibling products and attention chains are found before convolutions
  // become GEMMs; dense convolutions become GEMMs before fusion groups their
  // im2col and epilogue with neighbouring ops.
  if (rewrites) {
    fpm.addPass(createHorizontalFuse());
    fpm.addPass(createFormAttention());
    fpm.addPass(createAttentionLayout());
  }
  // Before convolutions become products (their im2col then runs in the
  // low type) and before fusion (which absorbs the casts).
  if (options.precision != "f32") {
    // fp16's range is f32's precision needs without its range: the
    // values' ranges on calibration inputs say what must stay f32.
    // fp8's scales come from them too.
    if (options.precision == "fp16" || options.precision == "fp8")
      fpm.addPass(createCalibrateRanges());
    AssignPrecisionOptions precisionOptions;
    precisionOptions.precision = options.precision;
    precisionOptions.ioPrecision = options.ioPrecision;
    fpm.addPass(createAssignPrecision(precisionOptions));
  }
  // After precision (its choice reads the convolutions' types), before
  // convolutions become products (a channels-last one becomes another).
  AssignLayoutOptions layoutOptions;
  layoutOptions.layout =
      options.layout == "auto" && !rewrites ? "nchw" : options.layout;
  fpm.addPass(createAssignLayout(layoutOptions));
  LowerConvOptions convOptions;
  convOptions.libraryConv = options.libraryConv;
  fpm.addPass(createLowerConv(convOptions));
  if (rewrites) {
    // After convolutions become products (a 1x1 one reading a concat),
    // before their epilogues form (each partial sum an addend).
    fpm.addPass(createSplitConcatProduct());
    fpm.addPass(createFuseEpilogue());
  }
  // Right before fusion, which puts what is recomputed into the kernels
  // that use it.
  // A training step's updates move up to their gradients.
  if (options.train)
    fpm.addPass(createScheduleMemory());
  // Without a budget it only measures (dlc.activation_bytes).
  uint64_t budget = 0;
  ::dlc::parseByteSize(options.memoryBudget, budget);
  RematerializeOptions rematOptions;
  rematOptions.budget = budget;
  rematOptions.activationFraction = options.activationBudget;
  rematOptions.activationBaseline = options.activationArena;
  rematOptions.tighten = options.rematTighten;
  fpm.addPass(createRematerialize(rematOptions));
  FuseOptions fuseOptions;
  if (options.maxOpsPerKernel)
    fuseOptions.maxOpsPerKernel = options.maxOpsPerKernel;
  if (options.maxOutputsPerKernel)
    fuseOptions.maxOutputsPerKernel = options.maxOutputsPerKernel;
  if (!options.fuse)
    fuseOptions.maxOpsPerKernel = 1;
  fuseOptions.fusionNotes = options.fusionNotes;
  fpm.addPass(createFuse(fuseOptions));
  // tf32: an f32 product belongs on the library's tensor cores.
  bool generatedGemm = rewrites && options.fuse && options.generatedGemm &&
                       options.precision != "tf32";
  // Before merging, so that each product's reader is absorbed into its own
  // GEMM (a kernel holds one product); again after, for a product whose
  // readers were separate kernels that dlc-merge-kernels made one.
  FuseGemmOptions gemmOptions;
  gemmOptions.relativeSpeed = options.generatedGemmSpeed;
  if (generatedGemm)
    fpm.addPass(createFuseGemm(gemmOptions));
  if (rewrites && options.mergeKernels) {
    MergeKernelsOptions mergeOptions;
    if (options.maxOpsPerKernel)
      mergeOptions.maxOpsPerKernel = options.maxOpsPerKernel;
    if (options.maxOutputsPerKernel)
      mergeOptions.maxOutputsPerKernel = options.maxOutputsPerKernel;
    fpm.addPass(createMergeKernels(mergeOptions));
    if (generatedGemm)
      fpm.addPass(createFuseGemm(gemmOptions));
  }
  if (options.planMemory) {
    PlanMemoryOptions planOptions;
    planOptions.allowInPlace = options.inPlace;
    fpm.addPass(createPlanMemory(planOptions));
  }
}

void mlir::dlc::buildDlcPipeline(OpPassManager &pm,
                                 const PipelineOptions &options) {
  buildLoweringPipeline(pm, options.canonicalize, &options);
  if (!options.lowerOnly)
    buildOptimizationPipeline(pm, options);
}

std::string mlir::dlc::formatPipelineOptions(const PipelineOptions &options) {
  std::string text;
  llvm::raw_string_ostream os(text);
  options.forEach([&](const char *option, auto value) {
    if (!text.empty())
      os << " ";
    os << option << "=";
    if constexpr (std::is_same_v<decltype(value), bool>)
      os << (value ? "true" : "false");
    else if constexpr (std::is_floating_point_v<decltype(value)>)
      os << llvm::format("%.17g", value); // every bit, for the command
    else
      os << value;
  });
  return text;
}
