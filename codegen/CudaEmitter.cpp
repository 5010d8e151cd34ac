//===- CudaEmitter.cpp - CUDA C++ for fused kernels -----------------------===//
//
// The source of a function's kernels: the prelude, then one kernel per
// dlc.kernel, each by the emitter its plan's kind picks (KernelEmitter.h),
// then the attention kernels (AttentionEmitter.h).
//
//===----------------------------------------------------------------------===//
#include "codegen/CudaEmitter.h"
#include "codegen/AttentionEmitter.h"
#include "codegen/KernelEmitter.h"
#include "codegen/KernelEntry.h"
#include "codegen/Prelude.h"

#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

using namespace mlir;
using namespace mlir::dlc;

KernelEmitter::KernelEmitter(KernelOp kernel, const KernelPlan &plan,
                             unsigned number)
    : SourceBuilder(fmt::format("k{}", number)), kernel(kernel), plan(plan) {}

KernelEmitter::~KernelEmitter() = default;

/// "add+exp+reduce": the kinds of the kernel's ops, in order.
static std::string joinOpNames(Block &block) {
  SmallVector<std::string> names;
  for (Operation &op : block) {
    if (isa<YieldOp, ConstantOp>(op))
      continue;
    std::string n = op.getName().stripDialect().str();
    if (!llvm::is_contained(names, n))
      names.push_back(n);
  }
  if (names.empty())
    return "copy";
  if (names.size() > 8) {
    names.resize(8);
    names.push_back("...");
  }
  return llvm::join(names, "+");
}

LogicalResult KernelEmitter::emit(std::string &source, EmittedKernel &out) {
  // What may stand in the body, and of which types, the dlc.kernel verifier
  // has checked (KernelBody ops over dlc's element types).
  Block &body = kernel.getBodyBlock();
  auto yield = cast<YieldOp>(body.getTerminator());

  // 32-bit index arithmetic unless some tensor is too large for it.
  int64_t largest = ShapedType::getNumElements(plan.space);
  auto consider = [&](Value v) {
    largest = std::max(largest, ShapedType::getNumElements(shapeOf(v)));
  };
  for (Value v : body.getArguments())
    consider(v);
  for (Operation &op : body)
    for (Value v : op.getResults())
      consider(v);
  if (largest >= (int64_t(1) << 31) - 4096)
    idxType = "long long";

  int64_t outputElements = 0;
  for (Value v : yield.getValues())
    outputElements += ShapedType::getNumElements(shapeOf(v));
  std::string kind;
  if (outputElements == 0) {
    kind = "empty";
    out.info.usesBarriers = false;
  } else {
    emitTemplate(out);
    kind = describeTemplate();
    out.info.usesBarriers = usesBarriers();
  }
  if (hadError)
    return failure();

  std::string ops = joinOpNames(body);
  out.op = kernel;
  out.info.name = name;
  out.label = fmt::format("{}: {}", name, ops);

  // Parameters: inputs, then outputs.
  SmallVector<KernelParam> params;
  for (auto [i, arg] : llvm::enumerate(body.getArguments()))
    params.push_back(
        {fmt::format("const {}", cudaStorageType(dtypeOfValue(arg))),
         fmt::format("in{}", i)});
  for (auto [i, v] : llvm::enumerate(yield.getValues()))
    params.push_back(
        {cudaStorageType(dtypeOfValue(v)), fmt::format("out{}", i)});

  source += fmt::format("\n// {}: {} ({}; {} bytes moved)\n", name, ops, kind,
                        plan.bytesRead + plan.bytesWritten);
  source += globals;
  writeKernelEntry(source, name, params, renderBody());
  return success();
}

std::unique_ptr<KernelEmitter>
mlir::dlc::createKernelEmitter(KernelOp kernel, const KernelPlan &plan,
                               unsigned number) {
  switch (plan.kind) {
  case KernelTemplate::Pointwise:
    return createPointwiseEmitter(kernel, plan, number);
  case KernelTemplate::Row:
    return createRowEmitter(kernel, plan, number);
  case KernelTemplate::Gemm:
    return createGemmEmitter(kernel, plan, number);
  }
  llvm_unreachable("a kernel template without an emitter");
}

LogicalResult mlir::dlc::emitCudaKernels(func::FuncOp func, std::string &source,
                                         std::vector<EmittedKernel> &kernels) {
  source = kCudaPrelude;
  unsigned number = 0;
  if (func.getBody().empty())
    return func.emitOpError(
        "cannot generate code for a function without a body");
  for (Operation &op : func.getBody().front()) {
    auto kernel = dyn_cast<KernelOp>(op);
    if (!kernel)
      continue;
    std::string whyNot;
    FailureOr<KernelPlan> plan = analyzeKernel(kernel, &whyNot);
    if (failed(plan))
      return kernel.emitOpError()
             << "has no kernel template that covers it: " << whyNot;
    EmittedKernel emitted;
    if (failed(createKernelEmitter(kernel, *plan, number++)
                   ->emit(source, emitted)))
      return failure();
    kernels.push_back(std::move(emitted));
  }
  return success();
}

LogicalResult
mlir::dlc::generateCudaSource(func::FuncOp func, std::string &source,
                              std::vector<rt::KernelInfo> *infos) {
  std::vector<EmittedKernel> kernels;
  if (failed(emitCudaKernels(func, source, kernels)))
    return failure();
  std::vector<EmittedAttention> attentions;
  if (failed(emitAttentionKernels(func, source, attentions)))
    return failure();
  if (infos) {
    for (EmittedKernel &k : kernels)
      infos->push_back(k.info);
    for (EmittedAttention &a : attentions)
      infos->push_back(a.info);
  }
  return success();
}
