//===- PrecisionReport.cpp - Per-value accuracy of a low precision --------===//
//
// `--precision-report` and `--precision-tolerance` (docs/precision.md).
// The values measured are those the compiled model stores: every GEMM,
// attention and fused-kernel result. Which ones those are comes from a
// fused compile whose ops carry their index in their location; each is
// then made an extra output of the model (as Polygraphy marks every layer
// an output), the model is compiled and run on sim, and every tap is
// compared with the same value of the f32 reference interpreter. The
// interpreter is the one oracle: no second implementation of any op.
//
//===----------------------------------------------------------------------===//
#include "api/Compiler.h"
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "ir/Reference.h"
#include "ir/Traits.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace dlc {
namespace {

constexpr llvm::StringLiteral kTapPrefix = "dlc.tap.";

/// The tap index a location names (kTapPrefix + N inside it), or -1. A
/// rewrite that replaces a chain of ops fuses their locations with the
/// op whose value it replaces last (dlc-form-attention's scores, then
/// output product): the last tap is the value's.
int64_t tapOf(Location loc) {
  int64_t tap = -1;
  loc->walk([&](Location l) {
    auto name = dyn_cast<NameLoc>(l);
    int64_t index;
    if (name && name.getName().getValue().starts_with(kTapPrefix) &&
        !name.getName()
             .getValue()
             .drop_front(kTapPrefix.size())
             .getAsInteger(10, index))
      tap = index;
    return WalkResult::advance();
  });
  return tap;
}

/// The ops of `func`'s body that compute one float tensor, in order: the
/// values a report may tap.
SmallVector<Operation *> tappableOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front()) {
    // A view or copy of a value has that value's error.
    if (op.getNumResults() != 1 || isa<mlir::dlc::ConstantOp>(op) ||
        op.hasTrait<mlir::dlc::trait::DataMovement>())
      continue;
    auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (type && isa<FloatType>(type.getElementType()))
      ops.push_back(&op);
  }
  return ops;
}

/// How a user finds the op: its ONNX node name or file position.
std::string describeLocation(Location loc) {
  std::string text;
  loc->walk([&](Location l) {
    if (auto name = dyn_cast<NameLoc>(l);
        name && !name.getName().getValue().starts_with(kTapPrefix)) {
      text = name.getName().str();
      return WalkResult::interrupt();
    }
    if (auto file = dyn_cast<FileLineColLoc>(l)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text.empty() ? "unknown location" : text;
}

/// "bf16[2,64,256]": one column of the report.
std::string describeType(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  std::optional<rt::DType> dtype = mlir::dlc::dtypeOf(tensor.getElementType());
  std::string text = rt::describe(
      dtype ? *dtype : rt::DType::F32,
      std::vector<int64_t>(tensor.getShape().begin(), tensor.getShape().end()));
  llvm::erase(text, ' ');
  return text;
}

/// rt::relativeError against the reference's values, held as f32 (whose
/// rounding, 6e-8, is far below any low precision's error).
double relativeError(const rt::HostTensor &x, ArrayRef<double> ref) {
  rt::HostTensor expected(rt::DType::F32, x.shape);
  if (expected.numElements() != int64_t(ref.size()))
    return HUGE_VAL;
  for (size_t i = 0; i < ref.size(); ++i)
    expected.setFromDouble(int64_t(i), ref[i]);
  return rt::relativeError(x, expected);
}

/// One measurement: which ops were tapped and their errors.
struct Measurement {
  /// Indices into tappableOps of the tapped values, in program order.
  std::vector<size_t> taps;
  std::vector<PrecisionEntry> entries; ///< one per tap, in the same order
};

/// Runs `pm`'s passes on `module`, diagnostics and all.
LogicalResult runPipeline(ModuleOp module, const CompileOptions &options) {
  PassManager pm(module.getContext());
  mlir::dlc::PipelineOptions pipelineOptions;
  static_cast<PipelineOptions &>(pipelineOptions) = options;
  // The taps compare the model's own values on its declared inputs.
  pipelineOptions.ioPrecision = "declared";
  mlir::dlc::buildOptimizationPipeline(pm, pipelineOptions);
  return pm.run(module);
}

FailureOr<Measurement> measure(ModuleOp lowered, const CompileOptions &options,
                               const std::vector<rt::HostTensor> &inputs) {
  func::FuncOp func = *findEntry(lowered, options.entry);
  SmallVector<Operation *> ops = tappableOps(func);
  Measurement m;

  // Which values the compiled model stores, and in what type.
  llvm::DenseMap<int64_t, Type> storedType;
  llvm::DenseMap<int64_t, const char *> kindOf;
  {
    OwningOpRef<ModuleOp> fused = lowered.clone();
    func::FuncOp f = *findEntry(*fused, options.entry);
    for (auto [i, op] : llvm::enumerate(tappableOps(f)))
      op->setLoc(
          NameLoc::get(StringAttr::get(op->getContext(), kTapPrefix + Twine(i)),
                       op->getLoc()));
    if (failed(runPipeline(*fused, options)))
      return failure();
    auto see = [&](Operation *op, Value value, const char *kind) {
      int64_t tap = op ? tapOf(op->getLoc()) : -1;
      // An FP8 copy is scaled (x * 448 / amax): not the op's value. Its
      // rounding shows in the product that reads it.
      if (cast<RankedTensorType>(value.getType())
              .getElementType()
              .isFloat8E4M3FN())
        return;
      // A copy the op's rewrite made on the way (a convolution's im2col
      // windows) is not the op's result; a product merged with its
      // siblings (Q, K and V) is.
      if (tap < 0 || tap >= int64_t(ops.size()) ||
          (!isa<mlir::dlc::MatmulOp>(op) &&
           cast<RankedTensorType>(value.getType()).getNumElements() !=
               cast<RankedTensorType>(ops[tap]->getResult(0).getType())
                   .getNumElements()))
        return;
      kindOf.try_emplace(tap, kind);
      // A low value and its f32 copy (an output's) both name the op: the
      // low one is what the model stores.
      auto [found, inserted] = storedType.try_emplace(tap, value.getType());
      if (!inserted &&
          cast<RankedTensorType>(found->second).getElementType().isF32())
        found->second = value.getType();
    };
    for (Operation &op : f.getBody().front()) {
      if (auto kernel = dyn_cast<mlir::dlc::KernelOp>(op)) {
        for (Value v : kernel.getBodyBlock().getTerminator()->getOperands())
          see(v.getDefiningOp(), v, "kernel");
      } else if (isa<mlir::dlc::MatmulOp>(op)) {
        see(&op, op.getResult(0), "gemm");
      } else if (isa<mlir::dlc::ConvOp>(op)) {
        see(&op, op.getResult(0), "conv");
      } else if (isa<mlir::dlc::AttentionOp>(op)) {
        see(&op, op.getResult(0), "attention");
      }
    }
  }
  for (size_t i = 0; i < ops.size(); ++i)
    if (storedType.count(int64_t(i)))
      m.taps.push_back(i);

  // The same model with every tapped value an output.
  OwningOpRef<ModuleOp> tapped = lowered.clone();
  func::FuncOp t = *findEntry(*tapped, options.entry);
  SmallVector<Operation *> tappedOps = tappableOps(t);
  Operation *ret = t.getBody().front().getTerminator();
  std::vector<unsigned> outputOf;
  for (size_t i : m.taps) {
    Value v = tappedOps[i]->getResult(0);
    auto existing = llvm::find(ret->getOperands(), v);
    if (existing != ret->operand_end()) {
      outputOf.push_back(unsigned(existing - ret->operand_begin()));
      continue;
    }
    unsigned index = t.getNumResults();
    t.insertResult(index, v.getType(), DictionaryAttr::get(t.getContext()));
    ret->insertOperands(ret->getNumOperands(), v);
    outputOf.push_back(index);
  }
  CompileOptions tapOptions = options;
  tapOptions.referenceModel = false;
  tapOptions.compileCubins = false;
  tapOptions.packageCache = false;
  tapOptions.precisionReport = false;
  tapOptions.precisionTolerance = 0;
  CompileResult compiled;
  if (failed(compileModule(*tapped, tapOptions, Stage::Package, compiled)))
    return failure();
  rt::SessionOptions sessionOptions;
  sessionOptions.device = rt::DeviceKind::Sim;
  auto session = rt::Session::create(compiled.package, sessionOptions);
  if (!session)
    return emitError(func.getLoc())
           << "the precision report cannot load its sim package: "
           << session.message();
  auto outputs = (*session)->run(inputs);
  if (!outputs)
    return emitError(func.getLoc())
           << "the precision report cannot run the model on its inputs: "
           << outputs.message();

  // The f32 reference's values of the same ops.
  llvm::DenseMap<Operation *, std::vector<double>> reference;
  llvm::SmallPtrSet<Operation *, 32> wanted;
  for (size_t i : m.taps)
    wanted.insert(ops[i]);
  if (failed(mlir::dlc::evaluateReference(
          func, inputs, [&](OpResult result, ArrayRef<double> values) {
            if (wanted.contains(result.getOwner()))
              reference[result.getOwner()] = values.vec();
          })))
    return failure();

  llvm::DenseMap<Operation *, double> errorOf;
  for (auto [k, i] : llvm::enumerate(m.taps)) {
    PrecisionEntry entry;
    entry.op = ops[i]->getName().getStringRef().str();
    entry.kind = kindOf[int64_t(i)];
    entry.location = describeLocation(ops[i]->getLoc());
    entry.type = describeType(storedType[int64_t(i)]);
    entry.error = relativeError((*outputs)[outputOf[k]], reference[ops[i]]);
    errorOf[ops[i]] = entry.error;
    m.entries.push_back(std::move(entry));
  }
  // The error a value brings in: its own less the largest of the tapped
  // values it is computed from (through ops that are not tapped).
  llvm::DenseMap<Operation *, double> inherited;
  std::function<double(Operation *)> inputError = [&](Operation *op) {
    if (auto found = inherited.find(op); found != inherited.end())
      return found->second;
    double worst = 0;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def)
        continue;
      auto err = errorOf.find(def);
      worst =
          std::max(worst, err != errorOf.end() ? err->second : inputError(def));
    }
    return inherited[op] = worst;
  };
  for (auto [k, i] : llvm::enumerate(m.taps))
    m.entries[k].localError =
        std::max(0.0, m.entries[k].error - inputError(ops[i]));
  return m;
}

/// Pins `op` and the untapped ops it is computed from (back to tapped
/// values) to f32: the kernel whose error was too large.
void pinRegion(Operation *op,
               const llvm::SmallPtrSetImpl<Operation *> &tapped) {
  SmallVector<Operation *> work{op};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Operation *o = work.pop_back_val();
    if (!seen.insert(o).second || isa<mlir::dlc::ConstantOp>(o))
      continue;
    mlir::dlc::setKeepF32(o);
    for (Value operand : o->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && !tapped.contains(def))
        work.push_back(def);
  }
}

} // namespace

LogicalResult
assignPrecisionByAccuracy(ModuleOp lowered, const CompileOptions &options,
                          const std::vector<rt::HostTensor> &inputs,
                          PrecisionReport &report) {
  func::FuncOp func = *findEntry(lowered, options.entry);
  SmallVector<Operation *> ops = tappableOps(func);
  report.precision = options.precision;
  report.tolerance = options.precisionTolerance;
  // Each round keeps in f32 what brought in too much error, then measures
  // again: what a kept op hid may show next (a few rounds at most).
  constexpr int kRounds = 4;
  for (int round = 0;; ++round) {
    FailureOr<Measurement> m = measure(lowered, options, inputs);
    if (failed(m))
      return failure();
    report.entries = m->entries;
    if (options.precisionTolerance <= 0 || round == kRounds)
      break;
    llvm::SmallPtrSet<Operation *, 32> tapped;
    for (size_t i : m->taps)
      tapped.insert(ops[i]);
    bool pinned = false;
    for (auto [k, i] : llvm::enumerate(m->taps)) {
      const PrecisionEntry &e = m->entries[k];
      if (e.localError <= options.precisionTolerance ||
          mlir::dlc::keepsF32(ops[i]))
        continue;
      pinRegion(ops[i], tapped);
      PrecisionEntry kept = e;
      kept.keptF32 = true;
      report.kept.push_back(std::move(kept));
      pinned = true;
    }
    if (!pinned)
      break;
  }
  for (PrecisionEntry &e : report.entries)
    e.keptF32 = llvm::any_of(report.kept, [&](const PrecisionEntry &k) {
      return k.location == e.location && k.op == e.op;
    });
  std::stable_sort(report.entries.begin(), report.entries.end(),
                   [](const PrecisionEntry &a, const PrecisionEntry &b) {
                     return a.error > b.error;
                   });
  return success();
}

std::string formatPrecisionReport(const PrecisionReport &report) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "precision report: " << report.precision << ", "
     << report.entries.size() << " stored values against the f32 reference, "
     << report.inputs << "\n";
  os << "  error     local     stored                   result of  source "
        "op      location\n";
  for (const PrecisionEntry &e : report.entries)
    os << llvm::format("  %-9.3g %-9.3g %-24s %-10s %-15s %s%s\n", e.error,
                       e.localError, e.type.c_str(), e.kind.c_str(),
                       e.op.c_str(), e.location.c_str(),
                       e.keptF32 ? "  [kept f32]" : "");
  if (report.tolerance > 0) {
    os << "precision tolerance " << llvm::format("%.3g", report.tolerance)
       << ": " << report.kept.size()
       << (report.kept.size() == 1 ? " op kept" : " ops kept") << " in f32\n";
    for (const PrecisionEntry &e : report.kept)
      os << "  kept f32: " << e.op << " at " << e.location
         << ": it brought in a relative error of "
         << llvm::format("%.3g", e.localError) << " (above "
         << llvm::format("%.3g", report.tolerance) << ") in " << e.type << "\n";
  }
  return text;
}

} // namespace dlc
