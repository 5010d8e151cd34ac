//===- Checker.cpp - Differential check of one program --------------------===//
#include "tools/dlc-fuzz/Checker.h"

#include "api/Compiler.h"
#include "dlc/dlc.h"
#include "ir/Dialect.h"
#include "ir/ElementType.h"
#include "ir/Reference.h"
#include "passes/GradientCheck.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

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

/// Session::runOnDevice on host buffers (the sim device's memory) that
/// start 8 bytes past a 16-byte boundary: aligned for every element type,
/// never for a 16-byte vector.
static rt::Result<std::vector<HostTensor>>
runShifted(rt::Session &session, const rt::Package &package,
           const std::vector<HostTensor> &inputs) {
  constexpr size_t kShift = 8;
  auto place = [](std::vector<uint8_t> &storage, size_t bytes) {
    storage.assign(bytes + 16 + kShift, 0);
    auto raw = reinterpret_cast<uintptr_t>(storage.data());
    return reinterpret_cast<uint8_t *>((raw + 15) / 16 * 16 + kShift);
  };
  std::vector<std::vector<uint8_t>> inStorage(inputs.size()),
      outStorage(package.outputs.size());
  std::vector<const void *> in;
  std::vector<void *> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    uint8_t *p = place(inStorage[i], inputs[i].data.size());
    std::copy(inputs[i].data.begin(), inputs[i].data.end(), p);
    in.push_back(p);
  }
  std::vector<HostTensor> outputs;
  for (size_t i = 0; i < package.outputs.size(); ++i) {
    outputs.emplace_back(package.outputs[i].dtype, package.outputs[i].shape);
    out.push_back(place(outStorage[i], outputs.back().data.size()));
  }
  if (rt::Status st = session.runOnDevice(in, out); !st)
    return rt::Status::error(st.message());
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto *p = static_cast<const uint8_t *>(out[i]);
    std::copy(p, p + outputs[i].data.size(), outputs[i].data.begin());
  }
  return outputs;
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
                      std::to_string(n) +
                      " elements not bit-identical; largest difference at " +
                      indexString(expected.shape, worst) + ": got " +
                      fmt(got.getAsDouble(worst)) + ", expected " +
                      fmt(expected.getAsDouble(worst)) + ")";
  if (!mlir::dlc::isFloat(expected.dtype) || tolerance == 0)
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
  bool fuse = true, inPlace = true, canonicalize = true, rewrites = true;
  /// f32 matrix products with TF32 operands (CompileOptions::tf32).
  bool tf32 = false;
  /// CompileOptions::precision: "bf16" and "fp16" are mixed precision,
  /// calibrated on the checked inputs.
  std::string precision = "f32";
  /// CompileOptions::layout: auto, nchw or nhwc.
  std::string layout = "auto";
};

} // namespace

namespace {

/// A program parsed and lowered (without fusion or code generation) in a
/// context of its own, with its diagnostics.
struct LoweredProgram {
  explicit LoweredProgram(const std::string &text, const char *name) {
    registerDlcDialects(registry);
    context.appendDialectRegistry(registry);
    context.disableMultithreading();
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
    module = parseModule(sourceMgr, context);
    if (!module)
      return;
    CompileOptions options;
    CompileResult result;
    lowered = mlir::succeeded(
        compileModule(*module, options, Stage::Lowered, result));
  }
  mlir::DialectRegistry registry;
  mlir::MLIRContext context;
  DiagnosticText diagnostics{context};
  llvm::SourceMgr sourceMgr;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  bool lowered = false;
};

} // namespace

/// The reference results of `text` after lowering (without fusion or
/// code generation).
static rt::Result<std::vector<HostTensor>>
loweredReference(const std::string &text,
                 const std::vector<HostTensor> &inputs) {
  LoweredProgram program(text, "dlc-only");
  DiagnosticText &diagnostics = program.diagnostics;
  if (!program.module)
    return rt::Status::error("the dlc form does not parse:\n" +
                             diagnostics.text);
  if (!program.lowered)
    return rt::Status::error("the dlc form does not lower:\n" +
                             diagnostics.text);
  auto func = findEntry(*program.module, "main");
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
    if (!mlir::dlc::isFloat(t.dtype))
      continue;
    for (int64_t j = 0, e = t.numElements(); j < e; ++j)
      if (!std::isfinite(t.getAsDouble(j)))
        return "output " + std::to_string(i) +
               " of the reference is not finite at " + indexString(t.shape, j) +
               " (the generator should prevent this)";
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
checkGradientsOf(const std::string &mlirText,
                 const std::vector<rt::TensorDesc> &inputDescs,
                 uint64_t inputSeed, bool &checked) {
  checked = false;
  rt::Package package;
  package.inputs = inputDescs;
  std::vector<HostTensor> inputs = rt::randomInputs(package, inputSeed);
  LoweredProgram program(mlirText, "program");
  DiagnosticText &diagnostics = program.diagnostics;
  if (!program.lowered)
    return Failure{"lowering", "-", diagnostics.text};
  auto func = findEntry(*program.module, "main");
  if (mlir::failed(func))
    return std::nullopt;
  // Through a value rounded to a 16-bit type the loss is a staircase at
  // the differences' step (they see 0) while the rule passes the gradient
  // through the cast, as PyTorch's autograd does: such graphs are not
  // checked.
  bool reduced = false;
  func->walk([&](mlir::Operation *op) {
    for (mlir::Value v : op->getResults())
      if (auto t = mlir::dyn_cast<mlir::RankedTensorType>(v.getType()))
        reduced |= mlir::isa<mlir::FloatType>(t.getElementType()) &&
                   !t.getElementType().isF32();
  });
  if (reduced || mlir::failed(mlir::dlc::makeWeightedLoss(*func)))
    return std::nullopt;
  auto r = mlir::dlc::checkGradients(*func, inputs, 16);
  if (mlir::failed(r)) {
    if (diagnostics.text.find("has no gradient rule") != std::string::npos)
      return std::nullopt;
    return Failure{"gradient", "-", diagnostics.text};
  }
  checked = true;
  if (!r->mismatch.empty())
    return Failure{"gradient", "-", r->mismatch};
  return std::nullopt;
}

std::optional<Failure>
checkReferenceOnly(const std::string &mlirText, const std::string &dlcOnlyText,
                   const std::vector<rt::TensorDesc> &inputDescs,
                   uint64_t inputSeed) {
  rt::Package package;
  package.inputs = inputDescs;
  std::vector<HostTensor> inputs = rt::randomInputs(package, inputSeed);
  auto expected = loweredReference(mlirText, inputs);
  if (!expected)
    return Failure{"reference", "-", expected.message()};
  if (auto message = nonFinite(*expected))
    return Failure{"reference", "-", *message};
  if (auto message = compareLowering(dlcOnlyText, inputs, *expected))
    return Failure{"lowering", "-", *message};
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Rounding sensitivity
//===----------------------------------------------------------------------===//
//
// The reference computes f32 operations in double precision, the device in
// f32. Where a result depends on cancellation (1 + x with tiny x, then log;
// a sum of x and -x), f32 rounding alone moves it further than any fixed
// tolerance allows. To tell that apart from a bug, the reference is evaluated
// a second time with every rounding operation's result (and every element a
// sum, product or matrix product accumulates) multiplied by 1 +- eps, a
// pseudo-random sign per element, eps = 2^-23 for f32 (two unit roundoffs),
// 2^-10 for f16, 2^-7 for bf16. Operations the device computes exactly (data
// movement, abs, neg, max, min, clamp, select, casts, max/min reductions,
// products with a power of two) are not perturbed, so comparisons and argmax
// keep their exact inputs. How far each output moves is its rounding
// sensitivity; a mismatch within kSensitivityFactor times it is rounding,
// not a bug.
//
// The tf32 configuration rounds the f32 operands of matrix products to TF32
// (10 mantissa bits) on the device. Its outputs are compared with the
// sensitivity of a reference whose f32 matrix-product and convolution
// operands are perturbed by 2^-11 (TF32's unit roundoff) instead of 2^-23.
//
// The bf16 and fp16 configurations (--precision, dlc-assign-precision)
// round products' operands to the low type and may store any value between
// kernels in it: their reference perturbs products' operands and every
// rounding result by the low type's unit roundoff (2^-8 for bf16, 2^-11
// for fp16) instead of f32's, with random signs and, for the operands,
// all upward too; the larger sensitivity is the one allowed.

static constexpr double kSensitivityFactor = 8;

namespace {
class Perturber {
public:
  explicit Perturber(mlir::OpBuilder &builder) : builder(builder) {}

  /// `v` times a constant of 1 +- eps per element (1 + eps for every one
  /// when `upward`); `f32Eps` replaces 2^-23 for f32 values when given.
  mlir::Value perturb(mlir::Value v, mlir::Location loc, double f32Eps = 0,
                      bool upward = false, double scale = 1) {
    auto type = mlir::cast<mlir::RankedTensorType>(v.getType());
    auto element = mlir::cast<mlir::FloatType>(type.getElementType());
    double eps = scale * (element.isF32()   ? (f32Eps > 0 ? f32Eps : 0x1.0p-23)
                          : element.isF16() ? 0x1.0p-10
                                            : 0x1.0p-7);
    llvm::SmallVector<llvm::APFloat> values;
    for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      llvm::APFloat x(upward || (state >> 63) ? 1.0 + eps : 1.0 - eps);
      bool losesInfo;
      x.convert(element.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
      values.push_back(x);
    }
    auto attr = mlir::DenseElementsAttr::get(type, values);
    mlir::Value c = builder.create<mlir::dlc::ConstantOp>(loc, type, attr);
    return builder.create<mlir::dlc::MulOp>(loc, type, v, c);
  }

private:
  mlir::OpBuilder &builder;
  uint64_t state = 0x9e3779b97f4a7c15ull;
};
} // namespace

static bool isFloatTensor(mlir::Value v) {
  return mlir::isa<mlir::RankedTensorType>(v.getType()) &&
         mlir::dlc::isFloatElement(v.getType());
}

/// Whether `v` is a splat constant that is a power of two (a product with it
/// is exact).
static bool isPowerOfTwoSplat(mlir::Value v) {
  auto c = v.getDefiningOp<mlir::dlc::ConstantOp>();
  if (!c)
    return false;
  auto dense = mlir::dyn_cast<mlir::DenseElementsAttr>(c.getValue());
  if (!dense || !dense.isSplat() ||
      !mlir::isa<mlir::FloatType>(dense.getElementType()))
    return false;
  double x = std::fabs(dense.getSplatValue<llvm::APFloat>().convertToDouble());
  int e;
  return std::frexp(x, &e) == 0.5;
}

/// ceil(log2 N) (at least 1) for an operation that accumulates N terms
/// into each result element: a reduction, a matrix product, a convolution.
static double accumulationDepth(mlir::Operation *op) {
  auto elements = [](mlir::Value v) {
    return mlir::cast<mlir::RankedTensorType>(v.getType()).getNumElements();
  };
  int64_t n = 1;
  if (auto reduce = mlir::dyn_cast<mlir::dlc::ReduceOp>(op)) {
    int64_t out = elements(reduce.getResult());
    n = out > 0 ? elements(reduce.getInput()) / out : 1;
  } else if (auto mm = mlir::dyn_cast<mlir::dlc::MatmulOp>(op)) {
    auto a = mlir::cast<mlir::RankedTensorType>(mm.getLhs().getType());
    int64_t r = a.getRank();
    n = a.getDimSize(mm.getTransposeA() ? r - 2 : r - 1);
  } else if (op->getNumOperands() >= 2) {
    // Convolutions: the filter's elements per output channel.
    auto w = mlir::cast<mlir::RankedTensorType>(op->getOperand(1).getType());
    n = w.getRank() > 0 && w.getDimSize(0) > 0
            ? w.getNumElements() / w.getDimSize(0)
            : 1;
  }
  return std::max(1.0, std::ceil(std::log2(double(std::max<int64_t>(n, 1)))));
}

/// How a perturbed reference moves values: the operands of matrix products
/// and convolutions by `productEps` (all upward with `upward`), rounding
/// results by `storageEps`; 0 is f32's unit roundoff (2^-23).
struct Perturbation {
  double productEps = 0;
  double storageEps = 0;
  bool upward = false;
  bool operator<(const Perturbation &o) const {
    return std::tie(productEps, storageEps, upward) <
           std::tie(o.productEps, o.storageEps, o.upward);
  }
};

/// The perturbations whose largest sensitivity a configuration allows:
/// f32 roundings; TF32 operands of products with random signs, and all
/// upward (one random draw for a 1x1 product can cancel what TF32 adds
/// up); under bf16 and fp16 the low type's unit roundoff for operands and
/// stored values both.
static std::vector<Perturbation> perturbationsOf(const Config &config) {
  if (config.precision == "bf16" || config.precision == "fp16") {
    double eps = config.precision == "bf16" ? 0x1.0p-8 : 0x1.0p-11;
    return {{eps, eps, false}, {eps, eps, true}};
  }
  if (config.tf32)
    return {{0x1.0p-11, 0, false}, {0x1.0p-11, 0, true}};
  return {{}};
}

/// The reference results of the package's reference model with every
/// rounding perturbed as `how` says.
static rt::Result<std::vector<HostTensor>>
perturbedReference(const rt::Package &package,
                   const std::vector<HostTensor> &inputs,
                   const Perturbation &how) {
  mlir::DialectRegistry registry;
  registerDlcDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  DiagnosticText diagnostics(context);
  llvm::SourceMgr sourceMgr;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseReferenceModel(package, sourceMgr, context);
  if (!module)
    return rt::Status::error(diagnostics.text);
  auto func = findEntry(*module, "main");
  if (mlir::failed(func))
    return rt::Status::error(diagnostics.text);
  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation &op : func->getBody().front())
    ops.push_back(&op);
  mlir::OpBuilder builder(&context);
  Perturber perturber(builder);
  for (mlir::Operation *op : ops) {
    mlir::Location loc = op->getLoc();
    // Accumulations: perturb what they add up.
    bool accumulates = mlir::isa<mlir::dlc::MatmulOp, mlir::dlc::Conv2DOp,
                                 mlir::dlc::ConvTranspose2DOp>(op);
    if (auto reduce = mlir::dyn_cast<mlir::dlc::ReduceOp>(op))
      accumulates = reduce.getKind() == mlir::dlc::ReduceKind::sum ||
                    reduce.getKind() == mlir::dlc::ReduceKind::prod;
    if (accumulates) {
      bool product = mlir::isa<mlir::dlc::MatmulOp, mlir::dlc::Conv2DOp,
                               mlir::dlc::ConvTranspose2DOp>(op);
      builder.setInsertionPoint(op);
      // A value used twice (x times x) is rounded once on the device: one
      // perturbation for both uses, or the two would cancel.
      llvm::SmallDenseMap<mlir::Value, mlir::Value> moved;
      for (unsigned i = 0; i < op->getNumOperands(); ++i) {
        mlir::Value v = op->getOperand(i);
        if (!isFloatTensor(v))
          continue;
        auto it = moved.find(v);
        if (it == moved.end())
          it = moved
                   .try_emplace(v, perturber.perturb(v, loc,
                                                     product ? how.productEps
                                                             : how.storageEps,
                                                     product && how.upward))
                   .first;
        op->setOperand(i, it->second);
      }
    }
    bool rounds =
        mlir::isa<mlir::dlc::ExpOp, mlir::dlc::LogOp, mlir::dlc::TanhOp,
                  mlir::dlc::SigmoidOp, mlir::dlc::ErfOp, mlir::dlc::RsqrtOp,
                  mlir::dlc::SqrtOp, mlir::dlc::ReciprocalOp, mlir::dlc::AddOp,
                  mlir::dlc::SubOp, mlir::dlc::DivOp, mlir::dlc::PowOp>(op) ||
        accumulates;
    if (auto mul = mlir::dyn_cast<mlir::dlc::MulOp>(op))
      rounds =
          !isPowerOfTwoSplat(mul.getLhs()) && !isPowerOfTwoSplat(mul.getRhs());
    // Averages divide a sum; linear resampling interpolates; a cast to a
    // narrower float rounds (perturbed with the result type's epsilon).
    if (auto pool = mlir::dyn_cast<mlir::dlc::Pool2DOp>(op))
      rounds = pool.getKind() == mlir::dlc::PoolKind::avg;
    if (auto resize = mlir::dyn_cast<mlir::dlc::ResizeOp>(op))
      rounds = resize.getMode() == "linear";
    if (auto cast = mlir::dyn_cast<mlir::dlc::CastOp>(op)) {
      auto from = mlir::cast<mlir::RankedTensorType>(cast.getInput().getType())
                      .getElementType();
      auto to =
          mlir::cast<mlir::RankedTensorType>(cast.getType()).getElementType();
      // f32 -> f16/bf16 and f16 <-> bf16 round; widening is exact.
      rounds = mlir::isa<mlir::FloatType>(from) &&
               mlir::isa<mlir::FloatType>(to) && from != to && !to.isF32();
    }
    if (!rounds || op->getNumResults() != 1 || !isFloatTensor(op->getResult(0)))
      continue;
    builder.setInsertionPointAfter(op);
    mlir::Value result = op->getResult(0);
    // A sum of N terms rounds at every level of its tree: its result moves
    // by up to ceil(log2 N) roundings, not one.
    mlir::Value moved =
        perturber.perturb(result, loc, how.storageEps, false,
                          accumulates ? accumulationDepth(op) : 1.0);
    result.replaceAllUsesExcept(moved, moved.getDefiningOp());
  }
  auto outputs = mlir::dlc::evaluateReference(*func, inputs);
  if (mlir::failed(outputs))
    return rt::Status::error(diagnostics.text);
  return std::move(*outputs);
}

std::optional<Failure> checkProgramText(const std::string &mlirText,
                                        const std::string &dlcOnlyText,
                                        uint64_t inputSeed,
                                        const CheckOptions &options,
                                        std::vector<std::string> *notes) {
  auto fail = [](std::string kind, std::string config, std::string message) {
    return Failure{std::move(kind), std::move(config), std::move(message)};
  };
  auto progress = [&](const std::string &what) {
    if (options.progress)
      options.progress(what);
  };
  const Config configs[] = {
      {"", true, true, true, true},
      {" no-fuse", false, true, true, true},
      {" no-in-place", true, false, true, true},
      {" no-canonicalize", true, true, false, true},
      {" no-rewrites", true, true, true, false},
      {" tf32", true, true, true, true, true},
      {" bf16", true, true, true, true, false, "bf16"},
      {" fp16", true, true, true, true, false, "fp16"},
      {" nchw", true, true, true, true, false, "f32", "nchw"},
      {" nhwc", true, true, true, true, false, "f32", "nhwc"}};

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
    compileOptions.canonicalize = config.canonicalize;
    compileOptions.graphRewrites = config.rewrites;
    compileOptions.tf32 = config.tf32;
    compileOptions.precision = config.precision;
    compileOptions.layout = config.layout;
    // fp16's range check measures on the inputs the check runs.
    if (!first)
      compileOptions.calibrationInputs = inputs;
    progress("compile sim" + config.name);
    auto package = compile(mlirText, compileOptions, "fuzz.mlir");
    if (!package)
      return fail("compile", "sim" + config.name, package.message());
    if (first) {
      inputs = rt::randomInputs(*package, inputSeed);
      progress("run the reference");
      auto reference = runReference(*package, inputs);
      if (!reference)
        return fail("reference", "-", reference.message());
      expected = reference.take();
      if (auto message = nonFinite(expected))
        return fail("reference", "-", *message);
      progress("compare with the dlc form");
      if (!dlcOnlyText.empty() && !options.skipLowering)
        if (auto message = compareLowering(dlcOnlyText, inputs, expected))
          return fail("lowering", "-", *message);
    }
    packages.emplace_back(config, package.take());
  }

  // The perturbed references, computed when first needed.
  std::map<Perturbation, rt::Result<std::vector<HostTensor>>> perturbed;
  auto perturbedFor = [&](const Perturbation &how)
      -> const rt::Result<std::vector<HostTensor>> & {
    auto found = perturbed.find(how);
    if (found == perturbed.end())
      found = perturbed
                  .emplace(how, perturbedReference(packages.front().second,
                                                   inputs, how))
                  .first;
    return found->second;
  };
  std::vector<rt::DeviceKind> devices = {rt::DeviceKind::Sim};
  if (options.cuda)
    devices.push_back(rt::DeviceKind::Cuda);
  for (rt::DeviceKind device : devices) {
    for (auto &[config, package] : packages) {
      std::string name = std::string(rt::deviceKindName(device)) + config.name;
      if (!wanted(options, name))
        continue;
      rt::SessionOptions sessionOptions;
      sessionOptions.device = device;
      progress("load " + name);
      auto session = rt::Session::create(package, sessionOptions);
      if (!session)
        return fail("run", name, session.message());
      // Twice: a second run reuses the arena (and replays the CUDA graph).
      // On sim the second run takes caller buffers 8 bytes past a 16-byte
      // boundary, so kernels must take their element-by-element paths, and
      // give the first run's bits.
      std::vector<HostTensor> firstOutputs;
      for (int run = 0; run < 2; ++run) {
        progress("run " + name);
        bool shifted = run == 1 && device == rt::DeviceKind::Sim;
        auto outputs = shifted ? runShifted(**session, package, inputs)
                               : (*session)->run(inputs);
        if (!outputs)
          return fail("run", name, outputs.message());
        if (shifted)
          for (size_t i = 0; i < outputs->size() && i < firstOutputs.size();
               ++i)
            if ((*outputs)[i].data != firstOutputs[i].data)
              return fail("mismatch", name,
                          "output " + std::to_string(i) + " (" +
                              shapeString(firstOutputs[i]) +
                              ") on unaligned caller buffers: " +
                              compareWith((*outputs)[i], firstOutputs[i], 0)
                                  .value_or("differs"));
        if (run == 0)
          firstOutputs = *outputs;
        if (options.injectError && !outputs->empty() &&
            (*outputs)[0].numElements() > 0) {
          // Large enough for any tolerance: 16 times the largest element.
          HostTensor &t = (*outputs)[0];
          double largest = 0;
          for (int64_t j = 0, e = t.numElements(); j < e; ++j)
            largest = std::max(largest, std::fabs(t.getAsDouble(j)));
          double v = t.getAsDouble(0);
          t.setFromDouble(0, t.dtype == DType::I1 ? 1 - v
                                                  : v + 16 * (1 + largest));
        }
        if (outputs->size() != expected.size())
          return fail("run", name,
                      "got " + std::to_string(outputs->size()) +
                          " outputs, expected " +
                          std::to_string(expected.size()));
        for (size_t i = 0; i < expected.size(); ++i) {
          auto diff = compareOutput((*outputs)[i], expected[i]);
          if (!diff)
            continue;
          // Within the output's rounding sensitivity it is not a bug.
          std::string note;
          if (mlir::dlc::isFloat(expected[i].dtype)) {
            progress("check the rounding sensitivity");
            // The largest sensitivity of the configuration's ways of
            // moving the values.
            std::optional<double> sens;
            std::string unknown;
            for (const Perturbation &how : perturbationsOf(config)) {
              const auto &reference = perturbedFor(how);
              if (!reference) {
                unknown = reference.message();
                continue;
              }
              if (reference->size() == expected.size())
                sens =
                    std::max(sens.value_or(0.0),
                             rt::relativeError((*reference)[i], expected[i]));
            }
            if (sens) {
              double tolerance = std::max(fuzzTolerance(expected[i].dtype),
                                          kSensitivityFactor * *sens);
              if (!compareWith((*outputs)[i], expected[i], tolerance)) {
                if (notes && run == 0)
                  notes->push_back(name + " output " + std::to_string(i) +
                                   ": rounding sensitivity " + fmt(*sens));
                continue;
              }
              note = "; rounding sensitivity of the reference " + fmt(*sens);
            } else if (!unknown.empty()) {
              note = "; (sensitivity unknown: " + unknown + ")";
            }
          }
          return fail("mismatch", name,
                      "output " + std::to_string(i) + " (" +
                          shapeString(expected[i]) + ")" +
                          (run ? " on the second run" : "") + ": " + *diff +
                          note);
        }
      }
    }
  }
  return std::nullopt;
}

} // namespace dlc::fuzz
