//===- KernelAnalysis.cpp - How a group of ops becomes one kernel ---------===//
//
// A group becomes a Row kernel when all of its reductions reduce the same
// trailing dimensions of one row shape S and everything computed from their
// results stays at the row's own index; each reduction then runs once per row
// cooperatively. Any other group whose outputs share one shape becomes a
// Pointwise kernel, with reductions evaluated as serial loops per element.
//
//===----------------------------------------------------------------------===//
#include "passes/KernelAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Twine.h"

#include <optional>

using namespace mlir;
using namespace mlir::dlc;

int64_t KernelPlan::numRows() const {
  int64_t n = 1;
  for (size_t i = 0; i + numInnerDims < space.size(); ++i)
    n *= space[i];
  return n;
}

int64_t KernelPlan::rowLength() const {
  int64_t n = 1;
  for (size_t i = space.size() - numInnerDims; i < space.size(); ++i)
    n *= space[i];
  return n;
}

/// The static shape of `v`, or nothing when it is not a static tensor.
static std::optional<ArrayRef<int64_t>> staticShape(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return type.getShape();
}

/// Bytes of one element in device memory (i1 is stored as a byte).
static int64_t elementBytes(Type type) {
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
  return 4;
}

static int64_t valueBytes(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  return type.getNumElements() * elementBytes(type.getElementType());
}

/// A splat constant becomes a literal in the generated code, so reading it
/// costs no memory traffic.
static bool isSplatConstant(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat();
}

namespace {
/// What a row reduction reduces: its input shape and how many trailing
/// dimensions it folds.
struct RowReduction {
  SmallVector<int64_t> inputShape;
  int64_t numInnerDims = 0;
};
} // namespace

/// Describes `op` as a reduction over trailing dimensions, or explains why it
/// is not one.
static FailureOr<RowReduction> asRowReduction(Operation *op, std::string &why) {
  RowReduction info;
  Value input = op->getOperand(0);
  auto shape = staticShape(input);
  if (!shape) {
    why = "a reduction input is not a static tensor";
    return failure();
  }
  info.inputShape.assign(shape->begin(), shape->end());
  int64_t rank = shape->size();
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    ArrayRef<int64_t> axes = reduce.getAxes();
    int64_t k = axes.size();
    llvm::SmallDenseSet<int64_t> seen(axes.begin(), axes.end());
    for (int64_t d = rank - k; d < rank; ++d) {
      if (d < 0 || !seen.contains(d)) {
        why = "a reduction does not reduce exactly the trailing dimensions";
        return failure();
      }
    }
    info.numInnerDims = k;
    return info;
  }
  auto argmax = cast<ArgMaxOp>(op);
  if ((int64_t)argmax.getAxis() != rank - 1) {
    why = "an argmax is not over the last dimension";
    return failure();
  }
  info.numInnerDims = 1;
  return info;
}

/// Fills `plan` with a Row plan for the group, or fails with a reason.
static LogicalResult planRow(const llvm::SmallPtrSetImpl<Operation *> &inGroup,
                             ArrayRef<Operation *> reductions,
                             ArrayRef<Value> outputs, KernelPlan &plan,
                             std::string &why) {
  FailureOr<RowReduction> first = asRowReduction(reductions.front(), why);
  if (failed(first))
    return failure();
  SmallVector<int64_t> rowShape = first->inputShape;
  int64_t k = first->numInnerDims;
  for (Operation *r : reductions.drop_front()) {
    FailureOr<RowReduction> info = asRowReduction(r, why);
    if (failed(info))
      return failure();
    if (info->inputShape != rowShape || info->numInnerDims != k) {
      why = "reductions differ in row shape (" + formatShape(rowShape) +
            " vs " + formatShape(info->inputShape) +
            ") or in reduced dimensions";
      return failure();
    }
  }
  SmallVector<int64_t> reducedShape = rowShape;
  for (size_t d = rowShape.size() - k; d < rowShape.size(); ++d)
    reducedShape[d] = 1;
  auto isRowShape = [&](ArrayRef<int64_t> s) {
    return s == ArrayRef<int64_t>(rowShape) ||
           s == ArrayRef<int64_t>(reducedShape);
  };

  for (Value out : outputs) {
    auto shape = staticShape(out);
    if (!shape || !isRowShape(*shape)) {
      why = "an output of shape " + (shape ? formatShape(*shape) : "?") +
            " is neither the row shape " + formatShape(rowShape) +
            " nor the reduced shape " + formatShape(reducedShape);
      return failure();
    }
  }

  // Everything computed from a reduction's result must read it at the row's
  // own index: elementwise ops of row or reduced shape, or further row
  // reductions. A data movement op there would read another row's value.
  llvm::SmallPtrSet<Operation *, 8> reductionSet(reductions.begin(),
                                                 reductions.end());
  llvm::SmallPtrSet<Operation *, 16> visited;
  SmallVector<Operation *> worklist(reductions.begin(), reductions.end());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Operation *user : op->getUsers()) {
      if (!inGroup.contains(user) || !visited.insert(user).second)
        continue;
      if (reductionSet.contains(user))
        continue;
      bool ok = isElementwise(user) && user->getNumResults() == 1;
      if (ok) {
        auto shape = staticShape(user->getResult(0));
        ok = shape && isRowShape(*shape);
      }
      if (!ok) {
        why = "'" + user->getName().getStringRef().str() +
              "' uses a reduction result but does not keep it at the row's "
              "own index";
        return failure();
      }
      worklist.push_back(user);
    }
  }

  plan.kind = KernelTemplate::Row;
  plan.space = rowShape;
  plan.numInnerDims = k;
  plan.rowReductions.assign(reductions.begin(), reductions.end());
  return success();
}

FailureOr<KernelPlan> mlir::dlc::analyzeKernel(ArrayRef<Operation *> ops,
                                               ArrayRef<Value> outputs,
                                               std::string *whyNot) {
  auto fail = [&](const Twine &message) -> FailureOr<KernelPlan> {
    if (whyNot)
      *whyNot = message.str();
    return failure();
  };
  if (outputs.empty())
    return fail("the group has no outputs");

  llvm::SmallPtrSet<Operation *, 32> inGroup(ops.begin(), ops.end());
  KernelPlan plan;

  // Traffic: every input read once, every output written once.
  llvm::DenseSet<Value> seenInputs;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && inGroup.contains(def))
        continue;
      if (isSplatConstant(operand) || !seenInputs.insert(operand).second)
        continue;
      plan.bytesRead += valueBytes(operand);
    }
  }
  llvm::DenseSet<Value> seenOutputs;
  for (Value out : outputs)
    if (seenOutputs.insert(out).second)
      plan.bytesWritten += valueBytes(out);

  SmallVector<Operation *> reductions;
  for (Operation *op : ops)
    if (isa<ReduceOp, ArgMaxOp>(op))
      reductions.push_back(op);

  std::string rowWhy;
  if (!reductions.empty()) {
    KernelPlan rowPlan = plan;
    if (succeeded(planRow(inGroup, reductions, outputs, rowPlan, rowWhy)))
      return rowPlan;
  }

  auto space = staticShape(outputs.front());
  if (!space)
    return fail("an output is not a static tensor");
  for (Value out : outputs.drop_front()) {
    auto shape = staticShape(out);
    if (!shape || *shape != *space) {
      std::string message = "outputs have different shapes (" +
                            formatShape(*space) + " and " +
                            (shape ? formatShape(*shape) : "?") + ")";
      if (!rowWhy.empty())
        message += " and no row plan fits: " + rowWhy;
      return fail(message);
    }
  }
  plan.kind = KernelTemplate::Pointwise;
  plan.space.assign(space->begin(), space->end());
  plan.numInnerDims = 0;
  return plan;
}

FailureOr<KernelPlan> mlir::dlc::analyzeKernel(KernelOp kernel,
                                               std::string *whyNot) {
  Block &body = kernel.getBodyBlock();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  SmallVector<Value> outputs;
  if (!body.mightHaveTerminator())
    return analyzeKernel(ops, outputs, whyNot);
  if (auto yield = dyn_cast<YieldOp>(body.getTerminator()))
    outputs.assign(yield.getValues().begin(), yield.getValues().end());
  return analyzeKernel(ops, outputs, whyNot);
}

//===----------------------------------------------------------------------===//
// The fusion report of `dlc compile --emit=fused`
//===----------------------------------------------------------------------===//

/// Bytes of a tensor value in device memory (i1 is one byte per element).
static int64_t tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  Type element = tensor.getElementType();
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
  return tensor.getNumElements() * ((bits + 7) / 8);
}

static std::string opKind(Operation *op) {
  StringRef name = op->getName().getStringRef();
  name.consume_front("dlc.");
  return name.str();
}

namespace {
/// The report lines of the top-level ops of one function.
class FusionReporter {
public:
  FusionReporter(Block &block, AsmState &state) : block(block), state(state) {
    unsigned n = 0, attention = 0;
    for (Operation &op : block) {
      if (isa<KernelOp>(op))
        kernelNames[&op] = "k" + std::to_string(n++);
      // Code generation names attention kernels apart (attn0, attn1, ...).
      else if (isa<AttentionOp>(op))
        kernelNames[&op] = "attn" + std::to_string(attention++);
    }
  }

  std::vector<std::string> report(Operation *op) {
    std::vector<std::string> lines;
    if (auto kernel = dyn_cast<KernelOp>(op))
      reportKernel(kernel, lines);
    else if (auto matmul = dyn_cast<MatmulOp>(op))
      reportMatmul(matmul, lines);
    else if (auto attention = dyn_cast<AttentionOp>(op))
      reportAttention(attention, lines);
    return lines;
  }

private:
  std::string name(Value v) {
    std::string s;
    llvm::raw_string_ostream os(s);
    v.printAsOperand(os, state);
    return s;
  }

  /// "kernel k2", "dlc.matmul", "an argument", for the op defining `v`
  /// (looking through reshapes, which are views).
  std::string producerKind(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return "a function argument";
    auto it = kernelNames.find(def);
    if (it != kernelNames.end())
      return "kernel " + it->second;
    if (auto reshape = dyn_cast<ReshapeOp>(def))
      return "a view of " + producerKind(reshape->getOperand(0));
    return "'" + def->getName().getStringRef().str() + "'";
  }

  /// Whether `v` is a matmul result, possibly through reshapes.
  static bool fromMatmul(Value v) {
    Operation *def = v.getDefiningOp();
    while (auto reshape = dyn_cast_or_null<ReshapeOp>(def))
      def = reshape->getOperand(0).getDefiningOp();
    return isa_and_nonnull<MatmulOp>(def);
  }

  static std::string bytesLine(int64_t read, size_t inputs, int64_t written,
                               size_t outputs) {
    return "reads " + std::to_string(read) + " B (" + std::to_string(inputs) +
           (inputs == 1 ? " input" : " inputs") + "), writes " +
           std::to_string(written) + " B (" + std::to_string(outputs) +
           (outputs == 1 ? " output" : " outputs") + ")";
  }

  void reportKernel(KernelOp kernel, std::vector<std::string> &lines) {
    Block &body = kernel.getBodyBlock();
    SmallVector<std::string> kinds;
    unsigned count = 0;
    for (Operation &op : body.without_terminator()) {
      // Splat constants are literals in the generated code, not ops.
      if (isa<ConstantOp>(op))
        continue;
      ++count;
      std::string kind = opKind(&op);
      if (!llvm::is_contained(kinds, kind))
        kinds.push_back(kind);
    }
    bool epilogue = llvm::any_of(kernel->getOperands(), fromMatmul);
    FailureOr<KernelPlan> plan = analyzeKernel(kernel);
    std::string templ = failed(plan) ? "no template"
                        : plan->kind == KernelTemplate::Row
                            ? "row template"
                            : "pointwise template";
    lines.push_back("kernel " + kernelNames[kernel] + ": " +
                    std::to_string(count) + (count == 1 ? " op" : " ops") +
                    " (" + (epilogue ? "matmul epilogue: " : "") +
                    llvm::join(kinds, ", ") + "; " + templ + ")");
    int64_t read = 0, written = 0;
    for (Value v : kernel->getOperands())
      read += tensorBytes(v.getType());
    for (Value v : kernel->getResults())
      written += tensorBytes(v.getType());
    lines.push_back("  " + bytesLine(read, kernel->getNumOperands(), written,
                                     kernel->getNumResults()));
    auto notes = kernel->getAttrOfType<ArrayAttr>("dlc.fusion_notes");
    if (!notes)
      return;
    // Producers first, then consumers.
    SmallVector<Attribute> ordered;
    for (bool producers : {true, false})
      for (Attribute a : notes)
        if (auto note = dyn_cast<DictionaryAttr>(a))
          if (bool(note.get("operand")) == producers)
            ordered.push_back(a);
    for (Attribute a : ordered) {
      auto note = dyn_cast<DictionaryAttr>(a);
      auto reason = note ? note.getAs<StringAttr>("reason") : StringAttr();
      if (!reason)
        continue;
      if (auto operand = note.getAs<IntegerAttr>("operand")) {
        int64_t i = operand.getInt();
        if (i < 0 || i >= int64_t(kernel->getNumOperands()))
          continue;
        Value v = kernel->getOperand(i);
        lines.push_back("  not fused: producer " + name(v) + " (" +
                        producerKind(v) + "): " + reason.str());
      } else if (auto result = note.getAs<IntegerAttr>("result")) {
        int64_t i = result.getInt();
        if (i < 0 || i >= int64_t(kernel->getNumResults()))
          continue;
        Value v = kernel->getResult(i);
        SmallVector<std::string> consumers;
        SmallVector<Operation *> users(v.getUsers().begin(),
                                       v.getUsers().end());
        while (!users.empty()) {
          Operation *top = block.findAncestorOpInBlock(*users.pop_back_val());
          if (!top)
            continue;
          // Reshapes are views: report what reads through them.
          if (isa<ReshapeOp>(top)) {
            users.append(top->getUsers().begin(), top->getUsers().end());
            continue;
          }
          auto it = kernelNames.find(top);
          std::string c = it != kernelNames.end()
                              ? "kernel " + it->second
                              : "'" + top->getName().getStringRef().str() + "'";
          if (!llvm::is_contained(consumers, c))
            consumers.push_back(c);
        }
        lines.push_back("  not fused: consumer " + llvm::join(consumers, ", ") +
                        " of " + name(v) + ": " + reason.str());
      }
    }
  }

  void reportAttention(AttentionOp attention, std::vector<std::string> &lines) {
    // A packed QKV tensor that is q, k and v at once is read once.
    llvm::SetVector<Value> inputs(attention->operand_begin(),
                                  attention->operand_end());
    int64_t read = 0;
    for (Value v : inputs)
      read += tensorBytes(v.getType());
    int64_t written = tensorBytes(attention.getType());
    lines.push_back("kernel " + kernelNames[attention] +
                    ": attention (a flash-attention kernel; the scores stay "
                    "on chip), never fused");
    lines.push_back("  " + bytesLine(read, inputs.size(), written, 1));
  }

  void reportMatmul(MatmulOp matmul, std::vector<std::string> &lines) {
    int64_t read = 0;
    for (Value v : matmul->getOperands())
      read += tensorBytes(v.getType());
    int64_t written = tensorBytes(matmul->getResult(0).getType());
    if (!matmul.hasEpilogue()) {
      lines.push_back("matmul: a cuBLAS call, never fused");
    } else {
      // "bias+relu": what dlc-fuse-epilogue folded into the GEMM.
      SmallVector<StringRef> parts;
      if (matmul.getBias())
        parts.push_back("bias");
      if (matmul.getAddend())
        parts.push_back("addend");
      if (matmul.getEpilogue() != EpilogueKind::none)
        parts.push_back(stringifyEpilogueKind(matmul.getEpilogue()));
      lines.push_back("matmul: a cuBLASLt call with epilogue " +
                      llvm::join(parts, "+") + ", never fused");
    }
    lines.push_back("  " +
                    bytesLine(read, matmul->getNumOperands(), written, 1));
  }

  Block &block;
  AsmState &state;
  llvm::DenseMap<Operation *, std::string> kernelNames;
};
} // namespace

void mlir::dlc::printFusionReport(ModuleOp module, llvm::raw_ostream &os) {
  // The reports of every function's top-level ops, in printing order.
  AsmState state(module);
  std::vector<std::vector<std::vector<std::string>>> reports;
  for (auto func : module.getOps<func::FuncOp>()) {
    reports.emplace_back();
    if (func.isExternal())
      continue;
    Block &block = func.getBody().front();
    FusionReporter reporter(block, state);
    for (Operation &op : block)
      reports.back().push_back(reporter.report(&op));
  }
  // The notes are in the report now; the printed IR does without them.
  module.walk([](KernelOp kernel) { kernel->removeAttr("dlc.fusion_notes"); });

  std::string text;
  llvm::raw_string_ostream printed(text);
  module->print(printed, state);
  // A function's top-level ops are the lines indented by exactly four
  // spaces that start an op (not a block label, not the closing brace of a
  // kernel region).
  size_t func = 0, op = 0;
  bool inFunc = false;
  for (StringRef line : llvm::split(StringRef(text), '\n')) {
    if (line.starts_with("  func.func")) {
      inFunc = func < reports.size();
      op = 0;
      ++func;
    } else if (inFunc && line.starts_with("    ") && line.size() > 4 &&
               line[4] != ' ' && line[4] != '}' && line[4] != '^') {
      const auto &ops = reports[func - 1];
      if (op < ops.size())
        for (const std::string &r : ops[op])
          os << "    // " << r << "\n";
      ++op;
    }
    os << line << "\n";
  }
}
