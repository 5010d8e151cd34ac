//===- Dlc.cpp - Staged compilation and the public C++ API ----------------===//
#include "api/Compiler.h"
#include "api/PackageCache.h"
#include "codegen/Codegen.h"
#include "frontend/onnx/OnnxImporter.h"
#include "ir/Attributes.h"
#include "ir/Dialect.h"
#include "ir/Parse.h"
#include "ir/Reference.h"
#include "passes/Passes.h"
#include "runtime/SafeFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <random>

using namespace mlir;

namespace dlc {

void registerDlcDialects(DialectRegistry &registry) {
  mlir::dlc::registerModelDialects(registry);
}

rt::Result<std::unique_ptr<llvm::MemoryBuffer>>
readModelFile(const std::string &path) {
  rt::Result<rt::RegularFile> file = rt::RegularFile::open(path);
  if (!file)
    return file.status();
  if (file->size() > uint64_t(SIZE_MAX) - 1)
    return rt::Status::error(file->error("the file is too large"));
  // getNewUninitMemBuffer adds the null terminator.
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(size_t(file->size()),
                                                        path);
  if (!buffer)
    return rt::Status::error(file->error("out of memory"));
  rt::Status read =
      file->read(0, buffer->getBufferStart(), buffer->getBufferSize());
  if (!read.isOk())
    return read;
  return std::unique_ptr<llvm::MemoryBuffer>(std::move(buffer));
}

OwningOpRef<ModuleOp> parseModule(llvm::SourceMgr &sourceMgr,
                                  MLIRContext &context) {
  return mlir::dlc::parseSourceChecked(sourceMgr, ParserConfig(&context));
}

FailureOr<func::FuncOp> findEntry(ModuleOp module, StringRef name) {
  if (auto func = module.lookupSymbol<func::FuncOp>(name)) {
    if (func.isExternal())
      return func.emitError()
             << "'@" << name << "' is a declaration without a body";
    return func;
  }
  return module.emitError()
         << "the model has no 'func.func @" << name << "' to compile";
}

/// The calibration of fp16's ranges on given inputs, and the precision
/// report and tolerance (CompileOptions), on the lowered `module`.
static LogicalResult measurePrecision(ModuleOp module, func::FuncOp func,
                                      const CompileOptions &options,
                                      CompileResult &result) {
  bool measured = options.precisionReport || options.precisionTolerance != 0;
  bool low = options.precision == "bf16" || options.precision == "fp16" ||
             options.precision == "fp8";
  // The precisions whose assignment reads calibrated ranges.
  bool calibrated = options.precision == "fp16" || options.precision == "fp8";
  if (!(options.precisionTolerance >= 0) ||
      !std::isfinite(options.precisionTolerance))
    return emitError(func.getLoc())
           << "the precision tolerance must be a finite number >= 0";
  if (measured && !low)
    return emitError(func.getLoc())
           << "a precision report or tolerance needs a low precision "
              "(--precision=bf16, fp16 or fp8), not '"
           << options.precision << "'";
  if (!measured && (!calibrated || options.calibrationInputs.empty()))
    return success();
  std::vector<rt::HostTensor> inputs = options.calibrationInputs;
  if (inputs.empty()) {
    FailureOr<std::vector<rt::HostTensor>> seeded =
        mlir::dlc::seededInputs(func, options.calibrationSeed);
    if (failed(seeded))
      return emitError(func.getLoc())
             << "the precision report needs inputs: an argument of the model "
                "is not a static tensor";
    inputs = std::move(*seeded);
  }
  // fp16's ranges and fp8's scales from these inputs; dlc-calibrate-ranges
  // then does nothing. A model the interpreter cannot evaluate compiles
  // without them (with a warning).
  if (calibrated && !mlir::dlc::isCalibrated(func))
    (void)mlir::dlc::calibrateRanges(func, inputs);
  if (!measured)
    return success();
  PrecisionReport report;
  report.inputs = options.calibrationInputs.empty()
                      ? "seeded inputs (seed " +
                            std::to_string(options.calibrationSeed) + ")"
                      : std::string("given inputs");
  if (failed(assignPrecisionByAccuracy(module, options, inputs, report)))
    return failure();
  result.precisionReport = std::move(report);
  return success();
}

LogicalResult
compileModule(ModuleOp module, const CompileOptions &options, Stage stop,
              CompileResult &result,
              const std::function<LogicalResult(PassManager &)> &configure) {
  MLIRContext *context = module.getContext();
  if (failed(findEntry(module, options.entry)))
    return failure();

  PassManager lower(context);
  if (std::string error = checkPipelineOptions(options); !error.empty())
    return emitError(UnknownLoc::get(context)) << error;
  mlir::dlc::buildLoweringPipeline(lower, options.canonicalize, &options);
  if (configure && failed(configure(lower)))
    return failure();
  if (failed(lower.run(module)))
    return failure();

  func::FuncOp func = *findEntry(module, options.entry);
  if (stop == Stage::Lowered)
    return success();

  // The reference model is the lowered one, written once the package's
  // constants are known (its weights are theirs where they can be). With
  // --io-precision=low it takes and returns the package's types.
  OwningOpRef<ModuleOp> reference;
  if (options.referenceModel) {
    reference = module.clone();
    if (options.ioPrecision == "low") {
      Type lowType = options.precision == "fp16"
                         ? Type(Float16Type::get(context))
                         : Type(BFloat16Type::get(context));
      mlir::dlc::castSignature(*findEntry(*reference, options.entry),
                               cast<FloatType>(lowType));
    }
  }
  if (failed(measurePrecision(module, func, options, result)))
    return failure();
  mlir::dlc::PipelineOptions pipelineOptions;
  static_cast<PipelineOptions &>(pipelineOptions) = options;
  // Only the printed fused stage shows why neighbours were not fused.
  pipelineOptions.fusionNotes = stop == Stage::Fused;
  // With TF32 an f32 product belongs on the library's tensor cores, not in
  // a generated GEMM (dlc-fuse-gemm's main loop is f32 FMA).
  if (options.tf32)
    pipelineOptions.generatedGemm = false;
  // dlc-rematerialize fits an estimate before fusion to --memory-budget;
  // fusion moves where buffers live, so the plan is measured after memory
  // planning, and a plan above the budget is made again from the lowered
  // module with the estimate's target lowered by the miss (a few tries).
  // --activation-budget is a fraction of the keep-everything plan's
  // arena, which a first run without recomputation measures; the arena is
  // then held to that fraction the same way.
  uint64_t budget = 0;
  ::dlc::parseByteSize(options.memoryBudget, budget);
  const double fraction = options.activationBudget;
  const bool measured = fraction > 0 && fraction < 1 && options.planMemory;
  OwningOpRef<ModuleOp> lowered;
  if ((budget || measured) && options.planMemory)
    lowered = module.clone();
  auto runOptimization = [&](const mlir::dlc::PipelineOptions &o) {
    PassManager optimize(context);
    mlir::dlc::buildOptimizationPipeline(optimize, o);
    if (configure && failed(configure(optimize)))
      return failure();
    return optimize.run(module);
  };
  auto restoreLowered = [&] {
    OwningOpRef<ModuleOp> again = lowered->clone();
    module.getBodyRegion().takeBody(again->getBodyRegion());
  };
  int64_t keepEverything = 0;
  if (measured) {
    mlir::dlc::PipelineOptions keep = pipelineOptions;
    keep.activationBudget = 0;
    if (failed(runOptimization(keep)))
      return failure();
    keepEverything =
        mlir::dlc::getArenaBytes(*findEntry(module, options.entry)).value_or(0);
    pipelineOptions.activationArena = keepEverything;
    restoreLowered();
  }
  int64_t best = -1;
  for (int attempt = 0;; ++attempt) {
    if (failed(runOptimization(pipelineOptions)))
      return failure();
    if (!lowered)
      break;
    func = *findEntry(module, options.entry);
    int64_t resident = mlir::dlc::residentBytes(func);
    int64_t arena = mlir::dlc::getArenaBytes(func).value_or(0);
    // What the arena may take.
    int64_t limit =
        budget ? int64_t(budget) - resident
               : int64_t(std::floor(fraction * double(keepEverything)));
    best = best < 0 ? arena : std::min(best, arena);
    if (arena <= limit)
      break;
    if (attempt == 4) {
      InFlightDiagnostic d = func.emitError();
      if (budget)
        d << "no plan fits the memory budget of " << budget
          << " bytes after fusion and memory planning: the smallest found "
             "takes "
          << best + resident << " (" << resident
          << " of inputs, outputs, parameters, state and constants)";
      else {
        // A diagnostic keeps a const char * argument by pointer: the
        // numbers are std::strings, which it copies.
        char given[32], found[32];
        std::snprintf(given, sizeof given, "%g", fraction);
        std::snprintf(found, sizeof found, "%.4f",
                      double(best) /
                          double(std::max<int64_t>(keepEverything, 1)));
        d << "no plan fits the activation budget of " << std::string(given)
          << " of the keep-everything plan's arena (" << keepEverything
          << " bytes) after fusion and memory planning: the smallest found "
             "takes "
          << best << " bytes, " << std::string(found) << " of it";
      }
      return d;
    }
    // The next try's target for the estimate: lower by the miss. Where
    // this try recomputed nothing, its estimate sat below the target
    // (fusion and the arena's alignment make the arena larger than the
    // estimate): below what the estimate kept, or the next try repeats
    // this plan.
    double miss = arena > 0 && limit > 0
                      ? std::min(0.9, 0.97 * limit / double(arena))
                      : 0.5;
    double next = pipelineOptions.rematTighten * miss;
    int64_t base = budget ? int64_t(budget) - resident
                          : int64_t(std::floor(fraction * keepEverything));
    auto kept =
        func->getAttrOfType<IntegerAttr>(mlir::dlc::attr::kActivationBytes);
    auto recomputed =
        func->getAttrOfType<FloatAttr>(mlir::dlc::attr::kRecomputeFlops);
    if (kept && recomputed && recomputed.getValueAsDouble() == 0 && base > 0)
      next = std::min(next, miss * double(kept.getInt()) / double(base));
    pipelineOptions.rematTighten = next;
    restoreLowered();
  }
  func = *findEntry(module, options.entry);
  if (stop == Stage::Fused)
    return success();

  mlir::dlc::CodegenOptions codegenOptions;
  codegenOptions.archs = options.archs;
  if (codegenOptions.archs.empty())
    codegenOptions.archs = {rt::defaultCudaArch("sm_90")};
  codegenOptions.compileCubins = options.compileCubins;
  // --precision=tf32 is --tf32; bf16 and fp16 products have no TF32.
  codegenOptions.tf32 = options.tf32 || options.precision == "tf32";
  FailureOr<rt::Package> package =
      mlir::dlc::generatePackage(func, codegenOptions);
  if (failed(package))
    return failure();
  result.package = std::move(*package);
  result.package.entry = options.entry;
  result.package.precision =
      options.tf32 && options.precision == "f32" ? "tf32" : options.precision;
  if (reference && failed(writeReferenceModel(*reference, result.package)))
    return failure();
  return success();
}

DiagnosticCollector::DiagnosticCollector(MLIRContext &context)
    : handler(&context, [this](Diagnostic &diag) {
        llvm::raw_string_ostream os(text);
        // The first file location inside the diagnostic's (an inlined op's
        // call-site location holds the callee's and the call's).
        FileLineColLoc loc;
        diag.getLocation()->walk([&](Location l) {
          loc = dyn_cast<FileLineColLoc>(l);
          return loc ? WalkResult::interrupt() : WalkResult::advance();
        });
        if (loc)
          os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
             << loc.getColumn() << ": ";
        switch (diag.getSeverity()) {
        case DiagnosticSeverity::Error:
          os << "error: ";
          break;
        case DiagnosticSeverity::Warning:
          os << "warning: ";
          break;
        default:
          os << "note: ";
          break;
        }
        os << diag << "\n";
        return success();
      }) {}

/// The package of `model` (named `name`) compiled by `compile`, through the
/// compile cache when options.packageCache is set: a hit, or `compile`'s
/// package stored with the files it read besides the model.
static rt::Result<rt::Package> throughCache(
    llvm::StringRef model, llvm::StringRef name, const CompileOptions &options,
    llvm::function_ref<rt::Result<rt::Package>(std::vector<std::string> &)>
        compile) {
  std::optional<std::string> cacheKey;
  // A report is made by compiling; given calibration inputs are not part
  // of the key.
  if (options.packageCache && !options.precisionReport &&
      options.calibrationInputs.empty())
    cacheKey = packageCacheKey(model, name, options);
  // `model` and `name` may point into the buffer `compile` consumes: keep
  // the name for storing.
  const std::string modelName = name.str();
  if (cacheKey)
    if (std::optional<CachedPackage> cached =
            lookupCachedPackage(*cacheKey, modelName))
      return std::move(cached->package);
  std::vector<std::string> files;
  rt::Result<rt::Package> package = compile(files);
  if (package && cacheKey)
    storeCachedPackage(*cacheKey, rt::serializePackage(*package), files,
                       modelName);
  return package;
}

/// The package of the module `load` makes in a fresh context (null: it
/// failed, `loadError` unless it diagnosed why), with the context's
/// diagnostics as the error of a failure.
static rt::Result<rt::Package>
compileLoaded(const CompileOptions &options, const char *loadError,
              llvm::function_ref<OwningOpRef<ModuleOp>(MLIRContext &)> load) {
  DialectRegistry registry;
  registerDlcDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  DiagnosticCollector diagnostics(context);
  OwningOpRef<ModuleOp> module = load(context);
  if (!module)
    return rt::Status::error(diagnostics.text.empty() ? loadError
                                                      : diagnostics.text);
  CompileResult result;
  if (failed(compileModule(*module, options, Stage::Package, result)))
    return rt::Status::error(diagnostics.text.empty() ? "compilation failed"
                                                      : diagnostics.text);
  return std::move(result.package);
}

static rt::Result<rt::Package>
compileBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
              const CompileOptions &options) {
  llvm::StringRef model = buffer->getBuffer();
  llvm::StringRef name = buffer->getBufferIdentifier();
  return throughCache(model, name, options, [&](std::vector<std::string> &) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    return compileLoaded(
        options, "cannot parse the model",
        [&](MLIRContext &context) { return parseModule(sourceMgr, context); });
  });
}

rt::Result<rt::Package> compile(const std::string &mlirText,
                                const CompileOptions &options,
                                const std::string &bufferName) {
  return compileBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(mlirText, bufferName), options);
}

rt::Result<rt::Package> compileFile(const std::string &path,
                                    const CompileOptions &options) {
  if (isOnnxModelFile(path)) {
    // The key needs the model's bytes only when the cache is on.
    std::unique_ptr<llvm::MemoryBuffer> bytes;
    if (options.packageCache)
      if (auto file = readModelFile(path))
        bytes = file.take();
    CompileOptions effective = options;
    effective.packageCache = options.packageCache && bytes;
    return throughCache(
        bytes ? bytes->getBuffer() : llvm::StringRef(), path, effective,
        [&](std::vector<std::string> &externalFiles) {
          OnnxImportOptions importOptions;
          importOptions.inputShapes = options.onnxInputShapes;
          importOptions.entry = options.entry;
          importOptions.externalDataFiles = &externalFiles;
          importOptions.markParameters = options.train;
          return compileLoaded(options, "cannot import the ONNX model",
                               [&](MLIRContext &context) {
                                 return importOnnxFile(path, context,
                                                       importOptions);
                               });
        });
  }
  auto buffer = readModelFile(path);
  if (!buffer)
    return buffer.status();
  return compileBuffer(buffer.take(), options);
}

std::vector<rt::HostTensor> randomInputs(const rt::Package &package,
                                         uint64_t seed) {
  return rt::randomInputs(package, seed);
}

double defaultTolerance(rt::DType type) { return rt::defaultTolerance(type); }
double defaultTolerance(const rt::Package &package, rt::DType type) {
  return rt::defaultTolerance(package, type);
}

} // namespace dlc
