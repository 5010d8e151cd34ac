//===- Checker.cpp - Differential check of one program --------------------===//
#include "tools/dlc-fuzz/Checker.h"

#include "api/Compiler.h"
#include "dlc/dlc.h"
#include "ir/Reference.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace dlc::fuzz {

using rt::DType;
using rt::HostTensor;

//===----------------------------------------------------------------------===//
// Failure
//===----------------------------------------------------------------------===//

std::string Failure::describe() const {
  // Diagnostics can run over many lines; the first few say what happened.
  std::string text = message;
  size_t pos = 0;
  for (int lines = 0; lines < 6 && pos != std::string::npos; ++lines)
    pos = text.find('\n', pos == 0 ? 0 : pos + 1);
  if (pos != std::string::npos)
    text = text.substr(0, pos) + "\n  ...";
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  return "[" + config + "] " + kind + ": " + text;
}

std::string Failure::serialize() const {
  return kind + "\t" + config + "\t" + message;
}

Failure Failure::deserialize(const std::string &text) {
  Failure f;
  size_t a = text.find('\t');
  size_t b = a == std::string::npos ? a : text.find('\t', a + 1);
  if (b == std::string::npos) {
    f.kind = "crash";
    f.config = "-";
    f.message = "malformed report from the checking process: " + text;
    return f;
  }
  f.kind = text.substr(0, a);
  f.config = text.substr(a + 1, b - a - 1);
  f.message = text.substr(b + 1);
  return f;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

double fuzzTolerance(DType type) {
  switch (type) {
  case DType::F32:
    return 1e-4;
  case DType::F16:
    return 2e-2;
  case DType::BF16:
    return 4e-2;
  default:
    return 0;
  }
}

static bool isFloatType(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16;
}

static std::string shapeString(const HostTensor &t) {
  return rt::describe(t.dtype, t.shape);
}

static std::string fmt(double v) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

/// Row-major index of element `i` as "[a, b, c]".
static std::string indexString(const std::vector<int64_t> &shape, int64_t i) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

static std::optional<std::string> compareWith(const HostTensor &got,
                                              const HostTensor &expected,
                                              double tolerance) {
  if (got.dtype != expected.dtype || got.shape != expected.shape)
    return "got " + shapeString(got) + ", expected " + shapeString(expected);
  int64_t n = expected.numElements();
  // Where the elements differ most, for the report.
  int64_t worst = -1, mismatches = 0;
  double worstDiff = -1;
  for (int64_t i = 0; i < n; ++i) {
    double a = got.getAsDouble(i), b = expected.getAsDouble(i);
    double diff = std::fabs(a - b);
    if (std::isnan(a) != std::isnan(b) || (std::isnan(a) && std::isnan(b)))
      diff = INFINITY;
    if (diff > 0 || std::isnan(diff)) {
      ++mismatches;
      if (!(diff <= worstDiff)) {
        worstDiff = diff;
        worst = i;
      }
    }
  }
  if (mismatches == 0)
    return std::nullopt;
  std::string where = " (" + std::to_string(mismatches) + " of " +
                      std::to_string(n) + " elements differ; worst at " +
                      indexString(expected.shape, worst) + ": got " +
                      fmt(got.getAsDouble(worst)) + ", expected " +
                      fmt(expected.getAsDouble(worst)) + ")";
  if (!isFloatType(expected.dtype) || tolerance == 0)
    return "not equal" + where;
  double err = rt::relativeError(got, expected);
  if (err <= tolerance)
    return std::nullopt;
  return "relative error " + fmt(err) + " > " + fmt(tolerance) + where;
}

std::optional<std::string> compareOutput(const HostTensor &got,
                                         const HostTensor &expected) {
  return compareWith(got, expected, fuzzTolerance(expected.dtype));
}

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

namespace {

/// Collects every diagnostic of a context as text.
class DiagnosticText {
public:
  explicit DiagnosticText(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          os << diag.getLocation() << ": " << diag << "\n";
          for (const mlir::Diagnostic &note : diag.getNotes())
            os << "  note: " << note << "\n";
          return mlir::success();
        }) {}
  std::string text;

private:
  mlir::ScopedDiagnosticHandler handler;
};

struct Config {
  std::string name;
  bool fuse = true, inPlace = true;
};

} // namespace

/// The reference results of `text` after lowering (without fusion or
/// code generation).
static rt::Result<std::vector<HostTensor>>
loweredReference(const std::string &text, const std::vector<HostTensor> &inputs) {
  mlir::DialectRegistry registry;
  registerDlcDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  DiagnosticText diagnostics(context);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "dlc-only"), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module = parseModule(sourceMgr, context);
  if (!module)
    return rt::Status::error("the dlc form does not parse:\n" + diagnostics.text);
  CompileOptions options;
  CompileResult result;
  if (mlir::failed(compileModule(*module, options, Stage::Lowered, result)))
    return rt::Status::error("the dlc form does not lower:\n" +
                             diagnostics.text);
  auto func = findEntry(*module, "main");
  if (mlir::failed(func))
    return rt::Status::error(diagnostics.text);
  auto outputs = mlir::dlc::evaluateReference(*func, inputs);
  if (mlir::failed(outputs))
    return rt::Status::error("the reference interpreter failed on the dlc "
                             "form:\n" +
                             diagnostics.text);
  return std::move(*outputs);
}

static bool wanted(const CheckOptions &options, const std::string &config) {
  if (options.onlyConfigs.empty())
    return true;
  for (const std::string &c : options.onlyConfigs)
    if (c == config)
      return true;
  return false;
}

/// A message if an output of the reference is not finite.
static std::optional<std::string>
nonFinite(const std::vector<HostTensor> &outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const HostTensor &t = outputs[i];
    if (!isFloatType(t.dtype))
      continue;
    for (int64_t j = 0, e = t.numElements(); j < e; ++j)
      if (!std::isfinite(t.getAsDouble(j)))
        return "output " + std::to_string(i) +
               " of the reference is not finite at " +
               indexString(t.shape, j) + " (the generator should prevent this)";
  }
  return std::nullopt;
}

/// A message if the reference results of the dlc form differ from
/// `expected`.
static std::optional<std::string>
compareLowering(const std::string &dlcOnlyText,
                const std::vector<HostTensor> &inputs,
                const std::vector<HostTensor> &expected) {
  auto lowered = loweredReference(dlcOnlyText, inputs);
  if (!lowered)
    return lowered.message();
  if (lowered->size() != expected.size())
    return std::string("the dlc form has a different number of outputs");
  for (size_t i = 0; i < expected.size(); ++i)
    if (auto diff = compareWith(expected[i], (*lowered)[i], 1e-6))
      return "output " + std::to_string(i) +
             ": the TOSA form lowers to a different result than the dlc "
             "form: " +
             *diff;
  return std::nullopt;
}

std::optional<Failure>
checkReferenceOnly(const std::string &mlirText, const std::string &dlcOnlyText,
                   const std::vector<rt::TensorDesc> &inputDescs,
                   uint64_t inputSeed) {
  rt::Package package;
  package.inputs = inputDescs;
  std::vector<HostTensor> inputs = randomInputs(package, inputSeed);
  auto expected = loweredReference(mlirText, inputs);
  if (!expected)
    return Failure{"reference", "-", expected.message()};
  if (auto message = nonFinite(*expected))
    return Failure{"reference", "-", *message};
  if (auto message = compareLowering(dlcOnlyText, inputs, *expected))
    return Failure{"lowering", "-", *message};
  return std::nullopt;
}

/// How much output `i` of the reference moves when every f32 input element
/// is perturbed by a relative 2^-22 (a few f32 roundings): a result that moves
/// as much as the device's error is ill-conditioned, and the mismatch is more
/// likely rounding than a bug. Empty when nothing can be perturbed.
static std::string sensitivity(const rt::Package &package,
                               const std::vector<HostTensor> &inputs,
                               const std::vector<HostTensor> &expected,
                               size_t i) {
  if (!isFloatType(expected[i].dtype))
    return "";
  std::vector<HostTensor> perturbed = inputs;
  bool any = false;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (HostTensor &t : perturbed) {
    if (t.dtype != DType::F32)
      continue;
    any = true;
    for (int64_t j = 0, e = t.numElements(); j < e; ++j) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      double u = double(state >> 11) * 0x1.0p-53 * 2 - 1;
      t.setFromDouble(j, t.getAsDouble(j) * (1 + u * 0x1.0p-22));
    }
  }
  if (!any)
    return "";
  auto moved = runReference(package, perturbed);
  if (!moved || moved->size() <= i)
    return "";
  return "; the reference moves by " +
         fmt(rt::relativeError((*moved)[i], expected[i])) +
         " under 2^-22 relative input noise";
}

std::optional<Failure> checkProgramText(const std::string &mlirText,
                                        const std::string &dlcOnlyText,
                                        uint64_t inputSeed,
                                        const CheckOptions &options) {
  auto fail = [](std::string kind, std::string config, std::string message) {
    return Failure{std::move(kind), std::move(config), std::move(message)};
  };
  const Config configs[] = {
      {"", true, true}, {" no-fuse", false, true}, {" no-in-place", true, false}};

  // The full pipeline first: its package carries the reference model.
  std::vector<HostTensor> inputs, expected;
  std::vector<std::pair<Config, rt::Package>> packages;
  for (const Config &config : configs) {
    bool first = packages.empty();
    bool needed = first || wanted(options, "sim" + config.name) ||
                  (options.cuda && wanted(options, "cuda" + config.name));
    if (!needed)
      continue;
    CompileOptions compileOptions;
    compileOptions.compileCubins = false;
    compileOptions.fuse = config.fuse;
    compileOptions.inPlace = config.inPlace;
    auto package = compile(mlirText, compileOptions, "fuzz.mlir");
    if (!package)
      return fail("compile", "sim" + config.name, package.message());
    if (first) {
      inputs = randomInputs(*package, inputSeed);
      auto reference = runReference(*package, inputs);
      if (!reference)
        return fail("reference", "-", reference.message());
      expected = reference.take();
      if (auto message = nonFinite(expected))
        return fail("reference", "-", *message);
      if (!dlcOnlyText.empty() && !options.skipLowering)
        if (auto message = compareLowering(dlcOnlyText, inputs, expected))
          return fail("lowering", "-", *message);
    }
    packages.emplace_back(config, package.take());
  }

  std::vector<rt::DeviceKind> devices = {rt::DeviceKind::Sim};
  if (options.cuda)
    devices.push_back(rt::DeviceKind::Cuda);
  for (rt::DeviceKind device : devices) {
    for (auto &[config, package] : packages) {
      std::string name =
          std::string(rt::deviceKindName(device)) + config.name;
      if (!wanted(options, name))
        continue;
      rt::SessionOptions sessionOptions;
      sessionOptions.device = device;
      auto session = rt::Session::create(package, sessionOptions);
      if (!session)
        return fail("run", name, session.message());
      // Twice: a second run reuses the arena (and replays the CUDA graph).
      for (int run = 0; run < 2; ++run) {
        auto outputs = (*session)->run(inputs);
        if (!outputs)
          return fail("run", name, outputs.message());
        if (outputs->size() != expected.size())
          return fail("run", name,
                      "got " + std::to_string(outputs->size()) +
                          " outputs, expected " +
                          std::to_string(expected.size()));
        for (size_t i = 0; i < expected.size(); ++i)
          if (auto diff = compareOutput((*outputs)[i], expected[i]))
            return fail("mismatch", name,
                        "output " + std::to_string(i) + " (" +
                            shapeString(expected[i]) + ")" +
                            (run ? " on the second run" : "") + ": " + *diff +
                            sensitivity(packages.front().second, inputs,
                                        expected, i));
      }
    }
  }
  return std::nullopt;
}

} // namespace dlc::fuzz
