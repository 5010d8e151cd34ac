//===- dlc.cpp - The dlc driver: compile and run models -------------------===//
//
//   dlc import model.onnx [-o model.mlir] [--input-shape name=1x3x224x224]
//   dlc compile model.mlir|model.onnx -o model.dlcpkg [--emit=dlc|fused|cuda]
//   dlc run model.dlcpkg|model.mlir|model.onnx [--device=cuda|sim]
//           [--input [name=]a.npy|a.pb ...] [--output-dir DIR] [--check]
//           [--benchmark N [--warmup W] [--benchmark-json FILE]]
//
//===----------------------------------------------------------------------===//
#include "dlc/dlc.h"
#include "api/Compiler.h"
#include "api/PackageCache.h"
#include "codegen/Codegen.h"
#include "frontend/onnx/OnnxImporter.h"
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "passes/Passes.h"
#include "runtime/Sandbox.h"
#include "runtime/Support.h"
#include "tools/dlc-run/BenchmarkReport.h"
#include "tools/dlc/FusionReport.h"
#include "tools/dlc/Train.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <new>
#include <type_traits>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = ::dlc::rt;

// Each subcommand takes the options of its categories and refuses the rest
// (see checkArguments); `dlc run` takes the compile options only for a
// model, not for a compiled package.
static cl::OptionCategory importCategory("dlc import options");
static cl::OptionCategory compileCategory("dlc compile options");
static cl::OptionCategory
    modelCategory("Compile options (dlc compile; dlc run of a model)");
static cl::OptionCategory runCategory("dlc run options");
static cl::OptionCategory trainCategory("dlc train options");

static cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model>"));
static cl::opt<std::string> outputPath("o",
                                       cl::desc("Output path (package, or "
                                                "MLIR for 'dlc import')"),
                                       cl::value_desc("file"),
                                       cl::cat(importCategory),
                                       cl::cat(compileCategory));
static cl::opt<std::string>
    emit("emit",
         cl::desc("Print an intermediate form instead of writing a package: "
                  "dlc (after lowering), fused (after fusion and memory "
                  "planning), cuda (the generated CUDA source)"),
         cl::value_desc("dlc|fused|cuda"), cl::cat(compileCategory));
static cl::opt<bool> printPipelineCommand(
    "print-pipeline",
    cl::desc("Print the dlc-opt command that runs this compile's pipeline "
             "on the model (its output is the IR --emit=fused prints, "
             "without the report's comments; with --emit=dlc, the IR "
             "--emit=dlc prints) instead of compiling"),
    cl::cat(compileCategory));
static cl::list<std::string>
    archs("arch",
          cl::desc("GPU architectures to build cubins for "
                   "(default: the present GPU's, else sm_90)"),
          cl::value_desc("sm_80,sm_90"), cl::CommaSeparated,
          cl::cat(modelCategory));

namespace {
/// A pipeline knob as a flag of the compiling subcommands.
template <typename T> class KnobFlag;

/// A knob on by default is turned off by --no-OPTION, one off by default
/// turned on by --OPTION.
template <> class KnobFlag<bool> {
public:
  KnobFlag(const char *option, bool init, const char *description)
      : onByDefault(init), name((init ? "no-" : "") + std::string(option)),
        help((init ? "Disable " : "Enable ") + std::string(description)),
        flag(llvm::StringRef(name), cl::desc(help), cl::cat(modelCategory)) {}
  bool value() const { return flag ? !onByDefault : onByDefault; }

private:
  bool onByDefault;
  std::string name, help;
  cl::opt<bool> flag;
};

/// A count is set by --OPTION=N.
template <> class KnobFlag<unsigned> {
public:
  KnobFlag(const char *option, unsigned init, const char *description)
      : help(description),
        flag(llvm::StringRef(option), cl::desc(help), cl::init(init),
             cl::value_desc("N"), cl::cat(modelCategory)) {
    help[0] = llvm::toUpper(help[0]);
  }
  unsigned value() const { return flag; }

private:
  std::string help;
  cl::opt<unsigned> flag;
};

/// A number is set by --OPTION=X.
template <> class KnobFlag<double> {
public:
  KnobFlag(const char *option, double init, const char *description)
      : help(description),
        flag(llvm::StringRef(option), cl::desc(help), cl::init(init),
             cl::value_desc("X"), cl::cat(modelCategory)) {
    help[0] = llvm::toUpper(help[0]);
  }
  double value() const { return flag; }

private:
  std::string help;
  cl::opt<double> flag;
};

/// A choice is set by --OPTION=VALUE.
template <> class KnobFlag<std::string> {
public:
  KnobFlag(const char *option, const char *init, const char *description)
      : help(description),
        flag(llvm::StringRef(option), cl::desc(help), cl::init(init),
             cl::value_desc("VALUE"), cl::cat(modelCategory)) {
    help[0] = llvm::toUpper(help[0]);
  }
  std::string value() const { return flag; }

private:
  std::string help;
  cl::opt<std::string> flag;
};

/// The pipeline's knobs (DLC_PIPELINE_KNOBS) as flags.
struct PipelineFlags {
#define DLC_PIPELINE_FLAG(type, field, defaultValue, option, description)      \
  KnobFlag<type> field{option, defaultValue, description};
  DLC_PIPELINE_KNOBS(DLC_PIPELINE_FLAG)
#undef DLC_PIPELINE_FLAG

  void apply(::dlc::PipelineOptions &options) const {
#define DLC_PIPELINE_APPLY(type, field, defaultValue, option, description)     \
  options.field = field.value();
    DLC_PIPELINE_KNOBS(DLC_PIPELINE_APPLY)
#undef DLC_PIPELINE_APPLY
  }
};
} // namespace

static PipelineFlags pipelineFlags;

static cl::opt<bool>
    tf32("tf32",
         cl::desc("Run f32 matrix products on tensor cores with their "
                  "operands rounded to TF32 (10 mantissa bits), as PyTorch's "
                  "allow_tf32; --check then allows the TF32 tolerance"),
         cl::cat(modelCategory));
static cl::opt<bool> precisionReport(
    "precision-report",
    cl::desc("With --precision=bf16, fp16 or fp8: print the relative error of "
             "every GEMM, attention and fused-kernel result against the f32 "
             "reference interpreter, worst first, with its source location "
             "(measured on sim, seeded inputs; docs/precision.md)"),
    cl::cat(modelCategory));
static cl::opt<double> precisionTolerance(
    "precision-tolerance",
    cl::desc(
        "With --precision=bf16, fp16 or fp8: keep in f32 the ops that bring "
        "in a relative error above T (measured as --precision-report "
        "does) and say which"),
    cl::value_desc("T"), cl::init(0), cl::cat(modelCategory));
static cl::list<std::string> calibrationInputs(
    "calibration-input",
    cl::desc("Calibration tensor file (.npy or .pb) for the model input "
             "named NAME, or in argument order: fp16's range check, fp8's "
             "activation scales, --precision-report and --precision-tolerance "
             "measure on these instead of seeded inputs (dlc run MODEL: on its "
             "--input files when none are given)"),
    cl::value_desc("[name=]file.npy"), cl::cat(modelCategory));
/// `dlc compile --stats-json FILE`. LLVM registers an option of that name
/// (a switch printing its own statistics as JSON) when the command line is
/// first read; main puts this one in its place (registerStatsJsonOption).
static std::optional<cl::opt<std::string>> statsJsonPath;
static void registerStatsJsonOption() {
  llvm::StringMap<cl::Option *> &registered = cl::getRegisteredOptions();
  if (auto it = registered.find("stats-json"); it != registered.end())
    it->second->removeArgument();
  statsJsonPath.emplace(
      "stats-json",
      cl::desc("Write the compiled model's figures as one JSON object: "
               "kernels, GEMMs, launches, bytes moved against the least "
               "possible, arena and its lower bound, FLOPs, data-movement "
               "and cast-only kernels (docs/fusion.md)"),
      cl::value_desc("file"), cl::cat(compileCategory));
}
static cl::opt<bool> noReferenceModel(
    "no-reference-model",
    cl::desc("Leave the reference model out of the package (`dlc run "
             "--check` cannot check it; the weights are stored once either "
             "way)"),
    cl::cat(modelCategory));
static cl::opt<bool> noCubin(
    "no-cubin",
    cl::desc("Store CUDA source only; cubins are built when first loaded"),
    cl::cat(modelCategory));
static cl::opt<bool>
    noCache("no-cache",
            cl::desc("Always compile the model, neither reusing nor storing a "
                     "package in the compile cache (docs/compile-cache.md)"),
            cl::cat(modelCategory));
static cl::opt<std::string> entry("entry", cl::desc("Function to compile"),
                                  cl::init("main"), cl::cat(importCategory),
                                  cl::cat(modelCategory));
static cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("Static shape of an ONNX graph input (needed for dynamic "
             "dimensions): NAME=1x3x224x224"),
    cl::value_desc("name=DxDx..."), cl::cat(importCategory),
    cl::cat(modelCategory));

static cl::opt<std::string> device("device",
                                   cl::desc("Device to run on: cuda or sim "
                                            "(default: cuda with a GPU, else "
                                            "sim)"),
                                   cl::value_desc("cuda|sim"),
                                   cl::cat(runCategory),
                                   cl::cat(trainCategory));
static cl::list<std::string>
    inputs("input",
           cl::desc("Input tensor file (.npy, or an ONNX TensorProto .pb), in "
                    "the order of @main's arguments, or NAME=FILE for the "
                    "input named NAME: its ONNX name, or argN for input N"),
           cl::value_desc("[name=]file.npy"), cl::cat(runCategory),
           cl::cat(trainCategory));
static cl::opt<std::string> outputDir("output-dir",
                                      cl::desc("Write output_N.npy here"),
                                      cl::value_desc("dir"),
                                      cl::cat(runCategory));
static cl::opt<bool> check("check",
                           cl::desc("Compare every output with the reference "
                                    "interpreter; exit 1 above tolerance"),
                           cl::cat(runCategory));
static cl::opt<double> rtol("rtol",
                            cl::desc("Relative error (by norm) allowed by "
                                     "--check, 0 < X <= 1 (default: by "
                                     "output type)"),
                            cl::init(-1.0), cl::cat(runCategory));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the random inputs used when "
                                       "no --input is given (dlc train: of "
                                       "--shuffle's permutations)"),
                              cl::init(0), cl::cat(runCategory),
                              cl::cat(trainCategory));
static cl::opt<unsigned> iterations("iterations",
                                    cl::desc("Run the model this many times "
                                             "(reports the time per run)"),
                                    cl::init(1), cl::cat(runCategory));
static cl::opt<std::string> maxMemory(
    "max-memory",
    cl::desc("The most device memory the package may use (its arena, inputs, "
             "outputs and constants; default: all the device has), checked "
             "before anything is allocated: 512M, 8GiB, ... (K, M, G and T "
             "are powers of 1024)"),
    cl::value_desc("bytes"), cl::cat(runCategory), cl::cat(trainCategory));
static cl::opt<bool> quiet("quiet", cl::desc("Print errors only"),
                           cl::cat(compileCategory), cl::cat(runCategory),
                           cl::cat(trainCategory));

static cl::opt<std::string>
    labels("labels",
           cl::desc("The labels of the data sets: int64 class indices [N] "
                    "for --loss=cross_entropy, targets shaped like the "
                    "output for mse"),
           cl::value_desc("file.npy"), cl::cat(trainCategory));
static cl::opt<uint64_t> trainSteps("steps", cl::desc("Optimizer steps to run"),
                                    cl::init(1), cl::cat(trainCategory));
static cl::opt<int64_t>
    batchSize("batch-size",
              cl::desc("Rows per step; the model's batch size (checked)"),
              cl::init(0), cl::cat(trainCategory));
static cl::opt<bool>
    shuffle("shuffle",
            cl::desc("Visit the rows in a seeded permutation per epoch "
                     "(--seed)"),
            cl::cat(trainCategory));
static cl::opt<std::string>
    loadWeights("load-weights",
                cl::desc("Start from the parameters of this .npz (names as "
                         "--save-weights writes them)"),
                cl::value_desc("file.npz"), cl::cat(trainCategory));
static cl::opt<std::string>
    saveWeights("save-weights",
                cl::desc("Write the trained parameters to this .npz (keys: "
                         "the parameters' names, ONNX initializer names)"),
                cl::value_desc("file.npz"), cl::cat(trainCategory));
static cl::opt<std::string>
    lossLog("loss-log",
            cl::desc("Write 'step,loss' lines (the loss of each step before "
                     "its update) to this CSV file"),
            cl::value_desc("file.csv"), cl::cat(trainCategory));
static cl::opt<bool>
    profile("profile",
            cl::desc("Time every step (kernel, GEMM, copy): the median of "
                     "--iterations runs, bytes moved, GB/s, GEMM GFLOP/s and "
                     "the share of the total"),
            cl::cat(runCategory));

static cl::opt<unsigned> benchmarkRuns(
    "benchmark",
    cl::desc("Time N whole runs of the model after --warmup runs (inputs "
             "uploaded once, outputs left on the device; CUDA events around "
             "each CUDA Graph replay, the host clock on sim) and print the "
             "median, min, p10 and p90"),
    cl::value_desc("N"), cl::init(0), cl::cat(runCategory));
static cl::opt<unsigned>
    warmupRuns("warmup",
               cl::desc("Warm-up runs before the timed runs of --benchmark"),
               cl::value_desc("W"), cl::init(10), cl::cat(runCategory));
static cl::opt<std::string> benchmarkJsonPath(
    "benchmark-json",
    cl::desc("Write the --benchmark results (every time, the statistics, the "
             "bytes of inputs and outputs, the device; with --profile the "
             "steps too) as JSON"),
    cl::value_desc("file"), cl::cat(runCategory));

static const char *kUsage =
    "dlc - compile a deep-learning model to fused CUDA kernels and run it\n\n"
    "usage:\n"
    "  dlc import <model.onnx> [-o model.mlir] [--input-shape "
    "name=1x3x224x224 ...]\n"
    "  dlc compile <model.mlir|model.onnx> [-o model.dlcpkg] "
    "[--emit=dlc|fused|cuda]\n"
    "              [--print-pipeline] [--arch=sm_80,sm_90] [MLIR options "
    "such as\n"
    "              --mlir-print-ir-after-all]\n"
    "  dlc run <model.dlcpkg|model.mlir|model.onnx> [--device=cuda|sim]\n"
    "          [--input [name=]a.npy|a.pb ...] [--output-dir DIR] [--check] "
    "[--seed N]\n"
    "          [--iterations N] [--profile] [--benchmark N [--warmup W]\n"
    "          [--benchmark-json FILE]] [--max-memory BYTES]\n"
    "  dlc train <model.mlir|model.onnx|step.dlcpkg> --loss=... "
    "--optimizer=...\n"
    "          --input [name=]x.npy ... [--labels y.npy] [--steps N] "
    "[--shuffle --seed N]\n"
    "          [--load-weights w.npz] [--save-weights w.npz] [--loss-log "
    "f.csv] [--device=cuda|sim]\n"
    "  dlc <command> --help   for every option\n";

static int fail(const llvm::Twine &message) {
  std::string text = message.str();
  llvm::StringRef trimmed = llvm::StringRef(text).rtrim('\n');
  // Diagnostics passed on as they are ("model.mlir:2:8: error: ..." from
  // the reference interpreter or a compile): they already say "error:".
  llvm::StringRef first = trimmed.split('\n').first;
  if (first.starts_with("error: ") || first.contains(": error: "))
    llvm::errs() << trimmed << "\n";
  else
    llvm::errs() << "dlc: error: " << trimmed << "\n";
  return 1;
}

/// The option `arg` names (its dashes and any "=value" removed).
static llvm::StringRef optionName(llvm::StringRef arg) {
  return arg.ltrim('-').split('=').first;
}

/// Whether `option` is one of dlc's own (not MLIR's or LLVM's).
static bool isDlcOption(const cl::Option &option) {
  return llvm::any_of(option.Categories, [](cl::OptionCategory *c) {
    return c == &importCategory || c == &compileCategory ||
           c == &modelCategory || c == &runCategory;
  });
}

static bool inCategories(const cl::Option &option,
                         llvm::ArrayRef<cl::OptionCategory *> categories) {
  return llvm::any_of(option.Categories, [&](cl::OptionCategory *c) {
    return llvm::is_contained(categories, c);
  });
}

/// LLVM's help options (--help, -h, --help-list, ...), which it registers
/// only while parsing.
static bool isHelpOption(llvm::StringRef name) {
  return llvm::is_contained<llvm::StringRef>(
      {"h", "help", "help-hidden", "help-list", "help-list-hidden",
       "print-options", "print-all-options"},
      name);
}

/// MLIR's switches given to `dlc compile` (--mlir-print-ir-after-all, ...),
/// as given: --print-pipeline passes them on to dlc-opt, which has them too.
static std::vector<std::string> mlirArguments;

/// Refuses, before LLVM parses them, the options `command` does not take:
/// dlc's options of other subcommands, and names that are no option at all
/// (which LLVM may read otherwise: "--half" as -h, the help). MLIR's and
/// LLVM's generic switches pass. Hides the other subcommands' options from
/// --help.
static int checkArguments(const std::string &command,
                          llvm::ArrayRef<char *> args,
                          llvm::ArrayRef<cl::OptionCategory *> categories) {
  llvm::StringMap<cl::Option *> &registered = cl::getRegisteredOptions();
  // --help lists an option under the command's categories only.
  for (auto &entry : registered) {
    cl::Option &option = *entry.second;
    if (!isDlcOption(option))
      continue;
    if (!inCategories(option, categories)) {
      option.setHiddenFlag(cl::ReallyHidden);
      continue;
    }
    llvm::erase_if(option.Categories, [&](cl::OptionCategory *c) {
      return !llvm::is_contained(categories, c);
    });
  }
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (arg == "--")
      break;
    if (!arg.starts_with("-") || arg == "-")
      continue;
    llvm::StringRef name = optionName(arg);
    auto it = registered.find(name);
    if (it == registered.end() && isHelpOption(name))
      continue;
    if (it == registered.end() ||
        (isDlcOption(*it->second) && !inCategories(*it->second, categories)))
      return fail("dlc " + command + " does not take " + arg.split('=').first +
                  " (see 'dlc " + command + " --help')");
    bool separateValue =
        !arg.contains('=') &&
        it->second->getValueExpectedFlag() == cl::ValueRequired &&
        i + 1 < args.size();
    if (name.starts_with("mlir-")) {
      mlirArguments.push_back(arg.str());
      if (separateValue)
        mlirArguments.push_back(args[i + 1]);
    }
    if (separateValue)
      ++i;
  }
  return 0;
}

/// Refuses the compile options for a compiled package, which `dlc
/// <command>` (run, train: options also in `own`) runs as it is.
static int checkPackageArguments(const char *command, cl::OptionCategory &own) {
  for (auto &entry : cl::getRegisteredOptions()) {
    const cl::Option &option = *entry.second;
    if (option.getNumOccurrences() && inCategories(option, {&modelCategory}) &&
        !inCategories(option, {&own}))
      return fail("dlc " + llvm::Twine(command) + " does not take --" +
                  option.ArgStr + " for '" + inputPath +
                  "': it is compiled already (the option "
                  "applies to a model, .mlir or .onnx)");
  }
  return 0;
}

/// `dlc train`: a model is compiled as a training step.
static bool trainCommand = false;

static ::dlc::CompileOptions compileOptions() {
  ::dlc::CompileOptions options;
  options.archs.assign(archs.begin(), archs.end());
  pipelineFlags.apply(options);
  options.train |= trainCommand;
  options.referenceModel = !noReferenceModel;
  options.compileCubins = !noCubin;
  options.tf32 = tf32;
  options.entry = entry;
  options.precisionReport = precisionReport;
  options.precisionTolerance = precisionTolerance;
  return options;
}

/// The --input-shape options, or an error.
static int onnxOptions(::dlc::OnnxImportOptions &options) {
  options.entry = entry;
  for (const std::string &spec : inputShapes) {
    std::string error;
    if (!::dlc::parseOnnxInputShape(spec, options, error))
      return fail(error);
  }
  return 0;
}

/// An error unless --input-shape is absent or the model is an ONNX model.
static int checkInputShapesApply(bool onnx) {
  if (onnx || inputShapes.empty())
    return 0;
  return fail("--input-shape applies to ONNX models only");
}

/// Reads the model in `path` (MLIR text, or an ONNX model imported to dlc
/// IR) into a module; diagnostics go through `sourceMgr`'s handler.
static OwningOpRef<ModuleOp>
loadModel(const std::string &path, MLIRContext &context,
          llvm::SourceMgr &sourceMgr,
          std::vector<std::string> *externalFiles = nullptr) {
  if (path != "-" && ::dlc::isOnnxModelFile(path)) {
    ::dlc::OnnxImportOptions options;
    if (onnxOptions(options))
      return nullptr;
    options.externalDataFiles = externalFiles;
    options.markParameters = pipelineFlags.train.value() || trainCommand;
    return ::dlc::importOnnxFile(path, context, options);
  }
  if (checkInputShapesApply(/*onnx=*/false))
    return nullptr;
  // "-" is standard input; a path must name a regular file.
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  if (path == "-") {
    auto stdinBuffer = llvm::MemoryBuffer::getSTDIN();
    if (!stdinBuffer) {
      fail("cannot read '" + path + "': " + stdinBuffer.getError().message());
      return nullptr;
    }
    buffer = std::move(*stdinBuffer);
  } else {
    auto file = ::dlc::readModelFile(path);
    if (!file) {
      fail(file.message());
      return nullptr;
    }
    buffer = file.take();
  }
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  return ::dlc::parseModule(sourceMgr, context);
}

/// Compiles `path` with diagnostics printed with their source lines. With an
/// `emitStage`, prints that stage to stdout instead of keeping a package.
/// `externalFiles` receives the files an ONNX model's weights were read
/// from.
static int readInputFiles(const char *option, llvm::ArrayRef<std::string> specs,
                          llvm::ArrayRef<std::string> argNames, size_t count,
                          std::vector<rt::HostTensor> &args);

/// Whether a compile measures on given inputs: --calibration-input files,
/// or the --input files of `dlc run MODEL` when the precision report or
/// tolerance, fp16's ranges or fp8's scales are taken on the inputs the
/// model runs on (not `dlc train`'s, which are whole data sets, not one
/// step's inputs).
static bool calibratesOnInputs() {
  if (!calibrationInputs.empty())
    return true;
  if (inputs.empty() || trainCommand)
    return false;
  std::string precision = pipelineFlags.precision.value();
  return precisionReport || precisionTolerance != 0 || precision == "fp16" ||
         precision == "fp8";
}

static int compileMlir(const std::string &path, ::dlc::Stage stop,
                       const std::string &emitKind, rt::Package *package,
                       std::vector<std::string> *externalFiles = nullptr) {
  DialectRegistry registry;
  ::dlc::registerDlcDialects(registry);
  MLIRContext context(registry);
  context.disableMultithreading();
  // A user reads located errors, not IR dumps: print the failing op only
  // when asked with --mlir-print-op-on-diagnostic.
  auto &registered = cl::getRegisteredOptions();
  auto it = registered.find("mlir-print-op-on-diagnostic");
  if (it == registered.end() || it->second->getNumOccurrences() == 0)
    context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      loadModel(path, context, sourceMgr, externalFiles);
  if (!module)
    return 1;
  ::dlc::CompileResult result;
  auto configure = [](PassManager &pm) -> LogicalResult {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    applyDefaultTimingPassManagerCLOptions(pm);
    return success();
  };
  ::dlc::CompileOptions options = compileOptions();
  if (calibratesOnInputs()) {
    FailureOr<func::FuncOp> func = ::dlc::findEntry(*module, entry);
    if (failed(func))
      return 1;
    std::vector<std::string> names;
    for (unsigned i = 0, e = func->getNumArguments(); i < e; ++i) {
      auto name =
          func->getArgAttrOfType<StringAttr>(i, mlir::dlc::attr::kOnnxName);
      names.push_back(name ? name.str() : std::string());
    }
    bool given = !calibrationInputs.empty();
    if (int rc = readInputFiles(given ? "calibration-input" : "input",
                                given ? calibrationInputs : inputs, names,
                                names.size(), options.calibrationInputs))
      return rc;
  }
  // --emit=cuda: the package's whole source (with the GEMM epilogue
  // kernels the package builder adds), no cubins.
  if (emitKind == "cuda")
    options.compileCubins = false;
  if (failed(::dlc::compileModule(*module, options, stop, result, configure)))
    return 1;
  if (result.precisionReport) {
    std::string text = ::dlc::formatPrecisionReport(*result.precisionReport);
    // --precision-tolerance alone: what it kept, without the table.
    if (!precisionReport)
      text = text.substr(text.find("precision tolerance"));
    // Whole, before the summary line on stderr.
    llvm::outs() << text;
    llvm::outs().flush();
  }
  if (emitKind == "fused") {
    // The fused IR with a report above every kernel and GEMM: what was
    // fused, the bytes moved, and why neighbours were not.
    mlir::dlc::printFusionReport(*module, llvm::outs());
    return 0;
  }
  if (emitKind == "dlc") {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }
  if (emitKind == "cuda") {
    llvm::outs() << result.package.cudaSource;
    return 0;
  }
  *package = std::move(result.package);
  return 0;
}

static std::string humanBytes(uint64_t bytes) {
  char buf[64];
  if (bytes >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%llu B", (unsigned long long)bytes);
  return buf;
}

static void printSummary(const rt::Package &package, llvm::raw_ostream &os) {
  unsigned kernels = 0, gemms = 0, convs = 0, copies = 0;
  for (const rt::Step &step : package.steps) {
    if (step.kind == rt::Step::Kind::Kernel)
      ++kernels;
    else if (step.kind == rt::Step::Kind::Gemm)
      ++gemms;
    else if (step.kind == rt::Step::Kind::Conv)
      ++convs;
    else
      ++copies;
  }
  uint64_t castKernels = package.stats ? package.stats->castKernels : 0;
  os << package.sourceOpCount << " ops -> " << kernels << " fused kernels, "
     << gemms << " GEMM calls";
  // Mixed precision's conversions of model inputs and outputs that no
  // other kernel touches (docs/precision.md).
  if (castKernels)
    os << " (" << castKernels
       << (castKernels == 1 ? " of them only converts a model input or output"
                            : " of them only convert model inputs or outputs")
       << ")";
  if (convs)
    os << ", " << convs << (convs == 1 ? " convolution" : " convolutions");
  if (copies)
    os << ", " << copies << " copies";
  os << "; arena " << humanBytes(package.arenaBytes) << " for "
     << humanBytes(package.intermediateBytes) << " of intermediates";
  // With a memory budget (or a package made with one): the peak against
  // it and what recomputation costs (docs/memory.md).
  const ::dlc::CompileOptions options = compileOptions();
  uint64_t budget = 0;
  ::dlc::parseByteSize(options.memoryBudget, budget);
  if (package.stats && (budget || package.stats->recomputeFlops > 0 ||
                        options.activationBudget > 0)) {
    const rt::PackageStats &s = *package.stats;
    os << "; peak memory " << humanBytes(s.peakBytes);
    char extra[96];
    if (budget) {
      os << " (budget " << humanBytes(budget) << ")";
    } else if (options.activationBudget > 0 && options.activationBudget < 1) {
      std::snprintf(extra, sizeof extra, "%g", options.activationBudget);
      os << " (arena budget " << extra << " of the keep-everything plan's)";
    }
    std::snprintf(extra, sizeof extra, "%.3g GFLOP recomputed (%.2f%% of %.3g",
                  s.recomputeFlops / 1e9,
                  s.flops > 0 ? 100.0 * s.recomputeFlops / s.flops : 0.0,
                  s.flops / 1e9);
    os << ", " << extra << " GFLOP in products)";
  }
  if (!package.cubins.empty()) {
    os << "; cubins:";
    for (const rt::Cubin &c : package.cubins) {
      os << " " << c.arch;
      // ptxas's report: the largest register count, and any spills.
      if (c.resources.empty())
        continue;
      uint32_t registers = 0, spilling = 0;
      for (const rt::KernelResources &r : c.resources) {
        registers = std::max(registers, r.registers);
        spilling += r.spills() ? 1 : 0;
      }
      os << " (at most " << registers << " registers, ";
      if (spilling)
        os << spilling << (spilling == 1 ? " kernel spills" : " kernels spill");
      else
        os << "no spills";
      os << ")";
    }
  }
  os << "\n";
}

/// The table of `dlc run --profile`: one line per step, then the total.
static void printProfile(const std::vector<rt::StepProfile> &steps,
                         const std::string &device, unsigned iterations,
                         llvm::raw_ostream &os) {
  os << "profile on " << device << ", median of " << iterations
     << (iterations == 1 ? " run" : " runs") << ":\n";
  os << "step  kind     time(ms)   share       bytes      GB/s   GFLOP/s  "
        "label\n";
  double totalMs = 0;
  uint64_t totalBytes = 0;
  double totalFlops = 0;
  for (const rt::StepProfile &s : steps) {
    std::string flops =
        s.flops > 0 ? llvm::formatv("{0:F2}", s.gigaflopsPerSecond()).str()
                    : "-";
    os << llvm::format("%4zu  %-6s %10.4f %6.1f%% %11s %9.3f %9s  %s\n", s.step,
                       rt::stepKindName(s.kind), s.milliseconds,
                       100.0 * s.share, humanBytes(s.bytes).c_str(),
                       s.gigabytesPerSecond(), flops.c_str(), s.label.c_str());
    totalMs += s.milliseconds;
    totalBytes += s.bytes;
    totalFlops += s.flops;
  }
  double gbps = totalMs > 0 ? double(totalBytes) / (totalMs * 1e6) : 0;
  os << llvm::format("total: %.4f ms, %s moved, %.3f GB/s", totalMs,
                     humanBytes(totalBytes).c_str(), gbps);
  if (totalFlops > 0)
    os << llvm::format(", %.0f FLOPs of matrix products", totalFlops);
  os << ", " << steps.size() << " steps\n";
}

/// `dlc import`: ONNX to dlc MLIR text, weights in the resource section.
static int runImport() {
  if (inputPath.empty())
    return fail("'dlc import' needs an ONNX model file (.onnx)");
  ::dlc::OnnxImportOptions options;
  if (int rc = onnxOptions(options))
    return rc;
  DialectRegistry registry;
  ::dlc::registerDlcDialects(registry);
  MLIRContext context(registry);
  context.disableMultithreading();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string out = outputPath.empty() ? "-" : outputPath.getValue();
  if (rt::Status st = rt::checkOutputPath(out, {inputPath}); !st)
    return fail(st.message());
  OwningOpRef<ModuleOp> module =
      ::dlc::importOnnxFile(inputPath, context, options);
  if (!module)
    return 1;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  os << "\n";
  os.flush();
  if (out == "-") {
    llvm::outs() << text;
    return 0;
  }
  if (rt::Status st = rt::writeFileAtomic(out, text.data(), text.size()); !st)
    return fail(st.message());
  return 0;
}

/// Whether `dlc compile` may use the compile cache: a model file (not
/// stdin; --input-shape only for ONNX, on MLIR it is an error a real
/// compile reports), and none of MLIR's debugging switches (--mlir-timing,
/// --mlir-print-ir-after-all, ...), whose output only a real compile
/// prints.
static bool useCompileCache(bool onnx) {
  // A report, and a tolerance's account of what it kept, are made by
  // compiling.
  if (noCache || inputPath == "-" || (!onnx && !inputShapes.empty()) ||
      precisionReport || precisionTolerance != 0 || calibratesOnInputs())
    return false;
  for (auto &option : cl::getRegisteredOptions())
    if (option.getKey().starts_with("mlir-") &&
        option.getValue()->getNumOccurrences() > 0)
      return false;
  return true;
}

/// A model compiled to a package, through the compile cache where it
/// applies.
struct CompiledModel {
  rt::Package package;
  /// The serialized package: the cache entry, mapped, or serialized here.
  std::unique_ptr<llvm::MemoryBuffer> mapped;
  std::vector<uint8_t> serialized;
  bool cached = false;
  /// The compile cache's entry when `cached`.
  std::string cachedPath;
  llvm::ArrayRef<uint8_t> bytes() const {
    if (mapped)
      return llvm::ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(mapped->getBufferStart()),
          mapped->getBufferSize());
    return serialized;
  }
};

/// Compiles the model in inputPath to a package (dlc compile, dlc run
/// MODEL): the compile cache's package of an earlier identical compile when
/// there is one, else a compile whose package is then stored. 0 or the
/// exit code after an error.
static int compileModel(CompiledModel &model) {
  std::optional<std::string> cacheKey;
  const bool onnx = inputPath != "-" && ::dlc::isOnnxModelFile(inputPath);
  if (useCompileCache(onnx)) {
    ::dlc::CompileOptions options = compileOptions();
    if (onnx) {
      // --input-shape is part of an ONNX model's compile (a malformed one
      // is reported here, as the compile would).
      ::dlc::OnnxImportOptions importOptions;
      if (int rc = onnxOptions(importOptions))
        return rc;
      options.onnxInputShapes = importOptions.inputShapes;
    }
    // A file that cannot be read is reported by the compile below.
    auto buffer = ::dlc::readModelFile(inputPath.getValue());
    if (buffer)
      cacheKey = ::dlc::packageCacheKey((*buffer)->getBuffer(),
                                        inputPath.getValue(), options);
    if (cacheKey)
      if (std::optional<::dlc::CachedPackage> hit =
              ::dlc::lookupCachedPackage(*cacheKey, inputPath)) {
        model.package = std::move(hit->package);
        model.mapped = std::move(hit->bytes);
        model.cachedPath = std::move(hit->path);
        model.cached = true;
        return 0;
      }
  }
  std::vector<std::string> externalFiles;
  if (int rc = compileMlir(inputPath, ::dlc::Stage::Package, "", &model.package,
                           &externalFiles))
    return rc;
  model.serialized = rt::serializePackage(model.package);
  if (cacheKey)
    ::dlc::storeCachedPackage(*cacheKey, model.serialized, externalFiles,
                              inputPath);
  return 0;
}

/// `arg` quoted for a POSIX shell where it needs it.
static std::string shellQuote(llvm::StringRef arg) {
  if (!arg.empty() && llvm::all_of(arg, [](char c) {
        return llvm::isAlnum(c) || llvm::StringRef("_-+=/.,:@%").contains(c);
      }))
    return arg.str();
  std::string quoted = "'";
  for (char c : arg)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// The path of the dlc tool `name` beside this executable, or `name` for
/// the one on PATH.
static std::string siblingTool(llvm::StringRef name) {
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  llvm::SmallString<256> path(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(path, name);
  return llvm::sys::fs::can_execute(path) ? std::string(path) : name.str();
}

/// `dlc compile --print-pipeline`: the dlc-opt command that runs this
/// compile's pipeline on the model, so that any compile replays in dlc-opt.
/// It prints the IR of --emit=fused (--emit=dlc: of the lowering) without
/// the fusion report, which the driver adds; an ONNX model is imported by
/// `dlc import` first.
static int printPipeline() {
  mlir::dlc::PipelineOptions options;
  pipelineFlags.apply(options);
  options.lowerOnly = emit == "dlc";
  std::string command;
  const bool onnx = inputPath != "-" && ::dlc::isOnnxModelFile(inputPath);
  if (int rc = checkInputShapesApply(onnx))
    return rc;
  if (onnx) {
    command =
        shellQuote(siblingTool("dlc")) + " import " + shellQuote(inputPath);
    for (const std::string &shape : inputShapes)
      command += " --input-shape " + shellQuote(shape);
    if (entry.getNumOccurrences())
      command += " --entry " + shellQuote(entry);
    command += " | ";
  }
  command += shellQuote(siblingTool("dlc-opt")) + " --dlc-pipeline=" +
             shellQuote(mlir::dlc::formatPipelineOptions(options));
  for (const std::string &arg : mlirArguments)
    command += " " + shellQuote(arg);
  if (!onnx)
    command += " " + shellQuote(inputPath);
  llvm::outs() << command << "\n";
  return 0;
}

/// --stats-json: the package's figures (rt::PackageStats) as one JSON
/// object, in DLC_PACKAGE_STATS's order.
static int writeStatsJson(const rt::Package &package, const std::string &out) {
  if (!package.stats)
    return fail("the package records no figures for --stats-json (it was "
                "written by an older dlc; compile it again with --no-cache)");
  std::string text;
  llvm::raw_string_ostream os(text);
  {
    llvm::json::OStream json(os, 2);
    json.object([&] {
#define DLC_JSON_STAT(type, member, name)                                      \
  if (std::is_integral<type>::value)                                           \
    json.attribute(name, int64_t(package.stats->member));                      \
  else                                                                         \
    json.attribute(name, double(package.stats->member));
      DLC_PACKAGE_STATS(DLC_JSON_STAT)
#undef DLC_JSON_STAT
    });
  }
  os << "\n";
  if (rt::Status st =
          rt::writeFileAtomic(*statsJsonPath, text.data(), text.size());
      !st)
    return fail(st.message());
  return 0;
}

/// The pipeline options' values, checked before any work.
static int checkPipelineFlags() {
  ::dlc::PipelineOptions options;
  pipelineFlags.apply(options);
  options.train |= trainCommand;
  std::string error = ::dlc::checkPipelineOptions(options);
  return error.empty() ? 0 : fail(error);
}

static int runCompile() {
  if (inputPath.empty())
    return fail("'dlc compile' needs a model file (.mlir or .onnx)");
  if (int rc = checkPipelineFlags())
    return rc;
  ::dlc::Stage stop = ::dlc::Stage::Package;
  if (!emit.empty()) {
    if (emit == "dlc")
      stop = ::dlc::Stage::Lowered;
    else if (emit == "fused")
      stop = ::dlc::Stage::Fused;
    else if (emit != "cuda")
      return fail("unknown --emit value '" + emit +
                  "' (expected dlc, fused or cuda)");
  }
  if (printPipelineCommand)
    return printPipeline();
  if (!statsJsonPath->empty() && !emit.empty())
    return fail("--stats-json describes a compiled package; it does not "
                "combine with --emit");
  std::string out = outputPath;
  if (out.empty()) {
    llvm::SmallString<256> p(inputPath.getValue());
    llvm::sys::path::replace_extension(p, "dlcpkg");
    out = std::string(p);
  }
  if (emit.empty())
    if (rt::Status st = rt::checkOutputPath(out, {inputPath}); !st)
      return fail(st.message());
  // The figures' file is checked before anything is written: neither the
  // model nor the package.
  if (!statsJsonPath->empty())
    if (rt::Status st =
            rt::checkOutputPath(*statsJsonPath, {inputPath.getValue(), out});
        !st)
      return fail(st.message());
  CompiledModel model;
  if (emit.empty()) {
    if (int rc = compileModel(model))
      return rc;
  } else {
    // A stage printed: never cached.
    return compileMlir(inputPath, stop, emit, &model.package);
  }
  // A cache hit copies the entry's file (the kernel copies, or shares the
  // blocks: 268 MB in about 0.1-0.5 s instead of 0.8 s for writing the
  // mapped bytes); if the entry went away meanwhile, the mapped bytes are
  // written.
  bool copied =
      model.cached &&
      rt::copyPackageFile(model.cachedPath, out, model.bytes().size()).isOk();
  rt::Status written = copied ? rt::Status::ok()
                              : rt::writePackageBytes(out, model.bytes().data(),
                                                      model.bytes().size());
  if (!written)
    return fail(written.message());
  if (!quiet) {
    llvm::errs() << "compiled " << inputPath << " -> " << out
                 << (model.cached ? " (cached): " : ": ");
    printSummary(model.package, llvm::errs());
  }
  if (!statsJsonPath->empty())
    return writeStatsJson(model.package, out);
  return 0;
}

/// The files `dlc run` reads: the model and every --input file, which its
/// outputs must not replace.
static std::vector<std::string> runInputs() {
  std::vector<std::string> files{inputPath};
  for (const std::string &input : inputs) {
    files.push_back(input);
    // NAME=FILE: the file (a file name may hold '=' too, so both).
    if (size_t eq = input.find('='); eq != std::string::npos)
      files.push_back(input.substr(eq + 1));
  }
  return files;
}

/// The input `--input NAME=FILE` binds: the one the model names `name`
/// (its ONNX name), else input N for argN, the name errors give it.
static std::optional<size_t> inputIndex(llvm::ArrayRef<std::string> argNames,
                                        size_t count, llvm::StringRef name) {
  if (name.empty())
    return std::nullopt;
  if (auto it = llvm::find(argNames, name); it != argNames.end())
    return it - argNames.begin();
  size_t index;
  if (name.consume_front("arg") && !name.getAsInteger(10, index) &&
      std::to_string(index) == name && index < count)
    return index;
  return std::nullopt;
}

/// The error for a NAME=FILE that names no input, with the names there are.
static int unknownInputName(llvm::StringRef spec,
                            llvm::ArrayRef<std::string> argNames,
                            size_t count) {
  llvm::StringRef name = spec.split('=').first;
  std::string byPosition =
      count == 1 ? "arg0" : "arg0 to arg" + std::to_string(count - 1);
  if (llvm::none_of(argNames, [](const std::string &n) { return !n.empty(); }))
    return fail("--input '" + spec + "' binds input '" + name +
                "' by name, but the model records no input names (only "
                "ONNX models do); give the files in argument order, or name "
                "them " +
                byPosition);
  std::string names;
  for (size_t i = 0; i < count; ++i) {
    std::string position = "arg" + std::to_string(i);
    if (!names.empty())
      names += ", ";
    names += i < argNames.size() && !argNames[i].empty()
                 ? argNames[i] + " (" + position + ")"
                 : position;
  }
  return fail("--input '" + spec +
              "' does not name a model input; its "
              "inputs are " +
              names);
}

/// The tensor files `specs` (of --`option`: input or calibration-input) of
/// a model of `count` inputs named `argNames` (ONNX names, or empty), bound
/// by NAME=FILE or in argument order. 0 or the exit code after an error.
static int readInputFiles(const char *option, llvm::ArrayRef<std::string> specs,
                          llvm::ArrayRef<std::string> argNames, size_t count,
                          std::vector<rt::HostTensor> &args) {
  if (specs.size() != count)
    return fail("the model takes " + llvm::Twine(count) + " inputs, but " +
                llvm::Twine(specs.size()) + " --" + option +
                " files were given");
  // NAME=FILE binds by input name; otherwise files go in argument order.
  std::vector<std::string> paths(specs.begin(), specs.end());
  std::vector<std::optional<size_t>> bindings;
  bool named = false;
  for (const std::string &spec : specs) {
    auto [name, file] = llvm::StringRef(spec).split('=');
    std::optional<size_t> index =
        file.empty() ? std::nullopt : inputIndex(argNames, count, name);
    // A NAME=FILE whose name no input has (and no file is called so):
    // say which names the model takes rather than fail to open it.
    if (!file.empty() && !index && !llvm::sys::fs::exists(spec))
      return unknownInputName(spec, argNames, count);
    named |= index.has_value();
    bindings.push_back(index);
  }
  if (named) {
    std::vector<bool> bound(count, false);
    for (auto [spec, index] : llvm::zip(specs, bindings)) {
      auto [name, file] = llvm::StringRef(spec).split('=');
      if (!index)
        return fail("--" + llvm::Twine(option) + " '" + spec +
                    "' does not name a model input (give all inputs as "
                    "NAME=FILE, or all in argument order)");
      if (bound[*index])
        return fail("input '" + name + "' is given twice");
      bound[*index] = true;
      paths[*index] = file.str();
    }
  }
  args.clear();
  for (const std::string &path : paths) {
    auto t = llvm::StringRef(path).ends_with(".pb")
                 ? ::dlc::readTensorProtoFile(path)
                 : rt::readNpy(path);
    if (!t)
      return fail(t.message());
    args.push_back(t.take());
  }
  return 0;
}

static int runRun() {
  if (inputPath.empty())
    return fail("'dlc run' needs a package (.dlcpkg) or a model (.mlir)");
  // Given, --rtol is a relative error in (0, 1]: NaN, a negative value, 0
  // or one above 1 (an output of the wrong sign passes) is a mistake, not
  // a tolerance. An exact comparison is a tiny one such as 1e-300, which
  // no difference between dlc's element types passes.
  if (rtol.getNumOccurrences() && !(rtol > 0 && rtol <= 1)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.15g", rtol.getValue());
    return fail("--rtol needs a relative error greater than 0 and at most 1 "
                "(1e-300 for an exact comparison), not '" +
                std::string(text) + "'");
  }
  uint64_t memoryLimit = 0;
  if (maxMemory.getNumOccurrences()) {
    rt::Result<uint64_t> bytes = rt::parseByteSize(maxMemory);
    if (!bytes)
      return fail("--max-memory: " + bytes.message());
    memoryLimit = *bytes;
  }
  rt::DeviceKind kind = rt::defaultDeviceKind();
  if (!device.empty()) {
    auto parsed = rt::parseDeviceKind(device);
    if (!parsed)
      return fail(parsed.message());
    kind = *parsed;
  }

  rt::Package package;
  std::vector<std::string> argNames;
  if (llvm::StringRef(inputPath).ends_with(".mlir") ||
      ::dlc::isOnnxModelFile(inputPath)) {
    if (int rc = checkPipelineFlags())
      return rc;
    // A model compiled in one step only needs cubins for the GPU at hand.
    if (archs.empty() && kind == rt::DeviceKind::Cuda)
      archs.push_back(rt::defaultCudaArch("sm_90"));
    if (kind == rt::DeviceKind::Sim)
      noCubin = true;
    CompiledModel model;
    if (int rc = compileModel(model))
      return rc;
    package = std::move(model.package);
    // The model's argument names (onnx.name), one per input.
    argNames = package.inputNames;
    argNames.resize(package.inputs.size());
  } else {
    if (int rc = checkPackageArguments("run", runCategory))
      return rc;
    auto loaded = rt::readPackageFile(inputPath);
    if (!loaded)
      return fail(loaded.message());
    package = loaded.take();
    argNames = package.inputNames;
  }

  // Input files first (their errors come before the session's work);
  // random inputs once the session has checked that the package's memory
  // fits.
  std::vector<rt::HostTensor> args;
  if (!inputs.empty()) {
    if (int rc = readInputFiles("input", inputs, argNames,
                                package.inputs.size(), args))
      return rc;
    // numpy has no bf16: an f32 file for a bf16 or f16 input (a package
    // compiled with --io-precision=low) is rounded to it, as the caller
    // of such a package converts.
    for (auto [given, want] : llvm::zip(args, package.inputs))
      if (given.dtype == rt::DType::F32 &&
          (want.dtype == rt::DType::BF16 || want.dtype == rt::DType::F16) &&
          given.shape == want.shape) {
        rt::HostTensor rounded(want.dtype, given.shape);
        for (int64_t i = 0, n = given.numElements(); i < n; ++i)
          rounded.setFromDouble(i, given.getAsDouble(i));
        given = std::move(rounded);
      }
  }

  rt::SessionOptions sessionOptions;
  sessionOptions.device = kind;
  sessionOptions.maxMemory = memoryLimit;
  auto session = rt::Session::create(package, sessionOptions);
  if (!session)
    return fail(session.message());
  if (inputs.empty())
    args = ::dlc::randomInputs(package, seed);
  if (!quiet) {
    llvm::errs() << "running on " << (*session)->deviceDescription() << ": ";
    printSummary(package, llvm::errs());
  }

  if (!benchmarkJsonPath.empty() && benchmarkRuns == 0)
    return fail("--benchmark-json needs --benchmark N");
  // Outputs that would overwrite an input are refused before anything runs
  // (and checked again when written).
  if (!benchmarkJsonPath.empty())
    if (rt::Status st = rt::checkOutputPath(benchmarkJsonPath, runInputs());
        !st)
      return fail(st.message());
  if (!outputDir.empty())
    for (size_t i = 0; i < package.outputs.size(); ++i) {
      llvm::SmallString<256> p(outputDir.getValue());
      llvm::sys::path::append(p, "output_" + std::to_string(i) + ".npy");
      // A path that does not exist is no input (a directory that cannot
      // be made is reported when it is made).
      if (!llvm::sys::fs::exists(p))
        continue;
      if (rt::Status s = rt::checkOutputPath(std::string(p), runInputs()); !s)
        return fail(s.message());
    }

  std::vector<rt::HostTensor> outputs;
  double totalMs = 0;
  // With --profile the iterations are the profile's runs.
  unsigned runs = profile ? 1u : std::max(1u, iterations.getValue());
  for (unsigned i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto result = (*session)->run(args);
    auto end = std::chrono::steady_clock::now();
    if (!result)
      return fail(result.message());
    if (i > 0 || iterations == 1)
      totalMs += std::chrono::duration<double, std::milli>(end - start).count();
    outputs = result.take();
  }
  if (runs > 1 && !quiet)
    llvm::errs() << llvm::format("%.3f ms per run (host wall clock, mean of %u "
                                 "runs after the first)\n",
                                 totalMs / (iterations - 1), iterations - 1);

  ::dlc::tools::BenchmarkReport report;
  report.tool = "dlc run";
  report.packagePath = inputPath;
  report.package = &package;
  report.device = (*session)->deviceDescription();
  report.deviceKind = kind;
  report.cudaGraph = (*session)->usesCudaGraph();
  report.warmup = warmupRuns;
  if (profile) {
    auto steps = (*session)->profile(args, std::max(1u, iterations.getValue()));
    if (!steps)
      return fail(steps.message());
    printProfile(*steps, (*session)->deviceDescription(),
                 std::max(1u, iterations.getValue()), llvm::outs());
    report.profile = steps.take();
    report.profileRuns = std::max(1u, iterations.getValue());
  }
  if (benchmarkRuns > 0) {
    auto times = (*session)->benchmark(args, warmupRuns, benchmarkRuns);
    if (!times)
      return fail(times.message());
    report.times = times.take();
    llvm::outs() << ::dlc::tools::benchmarkText(report);
    if (!benchmarkJsonPath.empty()) {
      if (rt::Status st = rt::checkOutputPath(benchmarkJsonPath, runInputs());
          !st)
        return fail(st.message());
      std::string error;
      auto file = mlir::openOutputFile(benchmarkJsonPath, &error);
      if (!file)
        return fail(error);
      file->os() << ::dlc::tools::benchmarkJson(report);
      file->keep();
    }
  }

  if (!outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create '" + outputDir + "': " + ec.message());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const rt::HostTensor &t = outputs[i];
    if (!outputDir.empty()) {
      llvm::SmallString<256> p(outputDir.getValue());
      llvm::sys::path::append(p, "output_" + std::to_string(i) + ".npy");
      if (rt::Status s = rt::checkOutputPath(std::string(p), runInputs()); !s)
        return fail(s.message());
      if (rt::Status s = rt::writeNpy(std::string(p), t); !s)
        return fail(s.message());
    }
    if (!quiet) {
      llvm::outs() << "output_" << i << ": " << rt::describe(t.dtype, t.shape)
                   << " [";
      for (int64_t j = 0, e = std::min<int64_t>(t.numElements(), 6); j < e; ++j)
        llvm::outs() << (j ? ", " : "")
                     << llvm::format("%.6g", t.getAsDouble(j));
      llvm::outs() << (t.numElements() > 6 ? ", ...]\n" : "]\n");
    }
  }

  if (!check)
    return 0;
  auto reference = ::dlc::runReference(package, args);
  if (!reference)
    return fail(reference.message());
  bool ok = true;
  for (size_t i = 0; i < outputs.size(); ++i) {
    double tol = rtol >= 0 ? rtol.getValue()
                           : ::dlc::defaultTolerance(package, outputs[i].dtype);
    double err = rt::relativeError(outputs[i], (*reference)[i]);
    bool pass = err <= tol;
    ok &= pass;
    // The tolerance of a low precision says so (docs/precision.md).
    std::string of = rtol < 0 && !package.precision.empty() &&
                             package.precision != "f32" &&
                             mlir::dlc::isFloat(outputs[i].dtype)
                         ? " for " + package.precision
                         : "";
    llvm::outs() << "check output_" << i << ": relative error "
                 << llvm::format("%.3g", err) << " (tolerance "
                 << llvm::format("%.3g", tol) << of << ") "
                 << (pass ? "ok" : "FAILED") << "\n";
  }
  return ok ? 0 : 1;
}

/// `dlc train MODEL|STEP.dlcpkg`: compiles a model as a training step (or
/// loads one) and runs tools/dlc/Train.cpp's loop.
static int runTrain() {
  if (inputPath.empty())
    return fail("'dlc train' needs a model (.mlir, .onnx) or a training-step "
                "package (.dlcpkg)");
  ::dlc::tools::TrainSetup setup;
  setup.device = rt::defaultDeviceKind();
  if (!device.empty()) {
    auto parsed = rt::parseDeviceKind(device);
    if (!parsed)
      return fail(parsed.message());
    setup.device = *parsed;
  }
  if (maxMemory.getNumOccurrences()) {
    rt::Result<uint64_t> bytes = rt::parseByteSize(maxMemory);
    if (!bytes)
      return fail("--max-memory: " + bytes.message());
    setup.maxMemory = *bytes;
  }
  rt::Package package;
  if (llvm::StringRef(inputPath).ends_with(".mlir") ||
      ::dlc::isOnnxModelFile(inputPath)) {
    if (int rc = checkPipelineFlags())
      return rc;
    if (archs.empty() && setup.device == rt::DeviceKind::Cuda)
      archs.push_back(rt::defaultCudaArch("sm_90"));
    if (setup.device == rt::DeviceKind::Sim)
      noCubin = true;
    CompiledModel model;
    if (int rc = compileModel(model))
      return rc;
    package = std::move(model.package);
  } else {
    if (int rc = checkPackageArguments("train", trainCategory))
      return rc;
    auto loaded = rt::readPackageFile(inputPath);
    if (!loaded)
      return fail(loaded.message());
    package = loaded.take();
  }
  setup.inputSpecs.assign(inputs.begin(), inputs.end());
  setup.labels = labels;
  setup.loadWeights = loadWeights;
  setup.saveWeights = saveWeights;
  setup.lossLog = lossLog;
  setup.steps = trainSteps;
  setup.batchSize = batchSize;
  setup.shuffle = shuffle;
  setup.seed = seed;
  setup.quiet = quiet;
  setup.protectedFiles = runInputs();
  for (const std::string &f : {labels.getValue(), loadWeights.getValue()})
    if (!f.empty())
      setup.protectedFiles.push_back(f);
  if (rt::Status st = ::dlc::tools::runTraining(package, setup); !st)
    return fail(st.message());
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // InitLLVM makes a failed `new` abort with "LLVM ERROR: out of memory";
  // dlc checks sizes before it allocates and turns an allocation that
  // fails anyway into an error (below), so `new` throws std::bad_alloc.
  std::set_new_handler(nullptr);
  if (argc < 2 || llvm::StringRef(argv[1]) == "--help" ||
      llvm::StringRef(argv[1]) == "-h" || llvm::StringRef(argv[1]) == "help") {
    llvm::outs() << kUsage;
    return argc < 2 ? 1 : 0;
  }
  if (llvm::StringRef(argv[1]) == "--version") {
    llvm::outs() << "dlc 0.1.0 (package format " << rt::kPackageVersion
                 << ")\n";
    return 0;
  }
  std::string command = argv[1];
  if (command != "compile" && command != "run" && command != "import" &&
      command != "train")
    return fail("unknown command '" + command + "'\n" + kUsage);

  registerStatsJsonOption();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  std::vector<char *> args;
  std::string program = "dlc " + command;
  args.push_back(program.data());
  for (int i = 2; i < argc; ++i)
    args.push_back(argv[i]);
  std::vector<cl::OptionCategory *> categories;
  if (command == "import")
    categories = {&importCategory};
  else if (command == "compile")
    categories = {&compileCategory, &modelCategory};
  else if (command == "train")
    categories = {&trainCategory, &modelCategory};
  else
    categories = {&runCategory, &modelCategory};
  if (int rc = checkArguments(command, llvm::ArrayRef(args).drop_front(),
                              categories))
    return rc;
  if (!cl::ParseCommandLineOptions(args.size(), args.data(), kUsage))
    return 1;
  if (command == "import")
    return runImport();
  // The children that read bytecode and evaluate reference models come
  // from a fork server made now, while dlc has one thread
  // (runtime/Sandbox.h).
  rt::startForkServer();
  // Sizes are checked before anything large is allocated; an allocation
  // that fails anyway is an error, not an abort.
  try {
    if (command == "train") {
      trainCommand = true;
      return runTrain();
    }
    return command == "compile" ? runCompile() : runRun();
  } catch (const std::bad_alloc &e) {
    return fail(llvm::Twine("out of host memory: ") + e.what());
  }
}
