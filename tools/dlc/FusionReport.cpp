//===- FusionReport.cpp - The report of `dlc compile --emit=fused` --------===//
//
// Above every top-level dlc.kernel, dlc.matmul and dlc.attention of the
// printed IR: the ops fused and the kernel template (analysis/
// KernelAnalysis.h decides it, as for code generation), the bytes read and
// written, and why each neighbour not fused stayed out (the notes dlc-fuse
// recorded in dlc.fusion_notes).
//
//===----------------------------------------------------------------------===//
#include "tools/dlc/FusionReport.h"
#include "analysis/KernelAnalysis.h"
#include "ir/Attributes.h"
#include "ir/ElementType.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::dlc;

/// Bytes of a tensor value in device memory (i1 is one byte per element).
static int64_t tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return mlir::dlc::tensorBytes(tensor);
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
    else if (auto conv = dyn_cast<ConvOp>(op))
      reportConv(conv, lines);
    else if (auto attention = dyn_cast<AttentionOp>(op))
      reportAttention(attention, lines);
    else if (auto slice = dyn_cast<SliceOp>(op);
             slice && slice->hasAttr(attr::kView))
      lines.push_back("view: a contiguous block of " + name(slice.getInput()) +
                      " (" + producerKind(slice.getInput()) +
                      "), read in place: no kernel, no bytes moved");
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
  /// (looking through views).
  std::string producerKind(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return "a function argument";
    auto it = kernelNames.find(def);
    if (it != kernelNames.end())
      return "kernel " + it->second;
    if (isBufferView(def))
      return "a view of " + producerKind(def->getOperand(0));
    return "'" + def->getName().getStringRef().str() + "'";
  }

  /// Whether `v` is a matmul result, possibly through views.
  static bool fromMatmul(Value v) {
    Operation *def = v.getDefiningOp();
    while (isBufferView(def))
      def = def->getOperand(0).getDefiningOp();
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
    FailureOr<KernelPlan> plan = analyzeKernel(kernel);
    // A generated GEMM computes its product itself; the kernels reading a
    // library call's product are its epilogues.
    bool epilogue = (failed(plan) || plan->kind != KernelTemplate::Gemm) &&
                    llvm::any_of(kernel->getOperands(), fromMatmul);
    std::string templ = failed(plan)                        ? "no template"
                        : plan->kind == KernelTemplate::Row ? "row template"
                        : plan->kind == KernelTemplate::Gemm
                            ? "generated GEMM template"
                            : "pointwise template";
    lines.push_back("kernel " + kernelNames[kernel] + ": " +
                    std::to_string(count) + (count == 1 ? " op" : " ops") +
                    " (" + (epilogue ? "matmul epilogue: " : "") +
                    llvm::join(kinds, ", ") + "; " + templ + ")" +
                    (kernel.isCastOnly()
                         ? "; only converts types: a model input or output "
                           "no other kernel touches"
                         : ""));
    int64_t read = 0, written = 0;
    for (Value v : kernel->getOperands())
      read += tensorBytes(v.getType());
    for (Value v : kernel->getResults())
      written += tensorBytes(v.getType());
    lines.push_back("  " + bytesLine(read, kernel->getNumOperands(), written,
                                     kernel->getNumResults()));
    ArrayAttr notes = getFusionNotes(kernel);
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
          // Report what reads through views.
          if (isBufferView(top)) {
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

  void reportConv(ConvOp conv, std::vector<std::string> &lines) {
    int64_t read = 0;
    for (Value v : conv->getOperands())
      read += tensorBytes(v.getType());
    int64_t written = tensorBytes(conv.getType());
    SmallVector<StringRef> parts;
    if (conv.getBias())
      parts.push_back("bias");
    if (conv.getAddend())
      parts.push_back("addend");
    if (conv.getEpilogue() != EpilogueKind::none)
      parts.push_back(stringifyEpilogueKind(conv.getEpilogue()));
    lines.push_back("convolution: a cuDNN call (a CPU convolution on sim)" +
                    (parts.empty()
                         ? std::string()
                         : " with epilogue " + llvm::join(parts, "+")) +
                    ", no im2col buffer, never fused");
    lines.push_back("  " + bytesLine(read, conv->getNumOperands(), written, 1));
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
  // Layout selection's choice per cluster of convolutions, before each
  // function (its dlc.layouts stays in the printed IR, as dlc-opt prints
  // it).
  std::vector<std::vector<std::string>> layouts;
  for (auto func : module.getOps<func::FuncOp>()) {
    reports.emplace_back();
    layouts.emplace_back();
    if (ArrayAttr choices = getLayoutChoices(func)) {
      for (Attribute choice : choices) {
        auto dict = cast<DictionaryAttr>(choice);
        auto get = [&](StringRef name) {
          return cast<IntegerAttr>(dict.get(name)).getInt();
        };
        std::string line;
        llvm::raw_string_ostream ls(line);
        int64_t convs = get("convolutions");
        ls << "layout " << cast<StringAttr>(dict.get("layout")).getValue()
           << " for a cluster of " << convs << " GEMM convolution"
           << (convs == 1 ? "" : "s") << ": "
           << cast<StringAttr>(dict.get("reason")).getValue() << "; ";
        int64_t saved = get("bytes_saved");
        if (saved >= 1048576)
          ls << llvm::format("%.1f MiB", saved / 1048576.0);
        else
          ls << llvm::format("%.1f KiB", saved / 1024.0);
        ls << " saved (estimate)";
        layouts.back().push_back(line);
      }
    }
    if (func.isExternal())
      continue;
    Block &block = func.getBody().front();
    FusionReporter reporter(block, state);
    for (Operation &op : block)
      reports.back().push_back(reporter.report(&op));
  }
  // The notes are in the report now; the printed IR does without them.
  module.walk([](KernelOp kernel) { removeFusionNotes(kernel); });

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
      if (func < layouts.size())
        for (const std::string &l : layouts[func])
          os << "  // " << l << "\n";
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
