//===- MergeKernels.cpp - One launch for independent pointwise kernels ----===//
//
// Kernels are visited in block order. Each pointwise kernel looks for the
// nearest earlier pointwise kernel over the same iteration space whose
// results have no user before it: then neither depends on the other, and a
// kernel computing both can stand where the later one was. The merged body
// is the earlier body followed by the later one over the union of their
// inputs; it yields the earlier results, then the later ones.
//
//===----------------------------------------------------------------------===//
#include "analysis/KernelAnalysis.h"
#include "ir/Attributes.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dlc-merge-kernels"

namespace mlir::dlc {
#define GEN_PASS_DEF_MERGEKERNELS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Operations in a kernel body, the terminator excluded.
size_t bodySize(KernelOp kernel) {
  return kernel.getBodyBlock().getOperations().size() - 1;
}

/// Whether every user of `earlier`'s results comes after `later` in the
/// block (users inside other kernels count as those kernels).
bool usersAllAfter(KernelOp earlier, KernelOp later) {
  for (Value result : earlier->getResults())
    for (Operation *user : result.getUsers()) {
      Operation *top = later->getBlock()->findAncestorOpInBlock(*user);
      if (!top || top == later.getOperation() || !later->isBeforeInBlock(top))
        return false;
    }
  return true;
}

/// A kernel computing the results of `a` and `b` (b after a), at b's place;
/// `a` and `b` stay until commitMerge.
KernelOp buildMerged(KernelOp a, KernelOp b) {
  llvm::SetVector<Value> inputs;
  inputs.insert(a.getInputs().begin(), a.getInputs().end());
  inputs.insert(b.getInputs().begin(), b.getInputs().end());
  SmallVector<Type> resultTypes(a->getResultTypes());
  resultTypes.append(b->getResultTypes().begin(), b->getResultTypes().end());

  OpBuilder builder(b);
  Location loc = builder.getFusedLoc({a.getLoc(), b.getLoc()});
  auto merged =
      builder.create<KernelOp>(loc, resultTypes, inputs.getArrayRef());
  Block &body = merged.getBodyBlock();
  OpBuilder bodyBuilder = OpBuilder::atBlockEnd(&body);
  SmallVector<Value> yielded;
  SmallVector<unsigned> operandMaps[2];
  std::array<KernelOp, 2> parts{a, b};
  for (auto [k, kernel] : llvm::enumerate(parts)) {
    IRMapping mapping;
    for (auto [i, input] : llvm::enumerate(kernel.getInputs())) {
      unsigned index = inputs.getArrayRef().size();
      for (auto [j, v] : llvm::enumerate(inputs))
        if (v == input) {
          index = j;
          break;
        }
      mapping.map(kernel.getBodyBlock().getArgument(i),
                  body.getArgument(index));
      operandMaps[k].push_back(index);
    }
    for (Operation &op : kernel.getBodyBlock().without_terminator())
      bodyBuilder.clone(op, mapping);
    auto yield = cast<YieldOp>(kernel.getBodyBlock().getTerminator());
    for (Value v : yield.getValues())
      yielded.push_back(mapping.lookup(v));
  }
  bodyBuilder.create<YieldOp>(loc, yielded);

  SmallVector<Attribute> notes;
  remapFusionNotes(a, operandMaps[0], 0, notes);
  remapFusionNotes(b, operandMaps[1], a->getNumResults(), notes);
  if (!notes.empty())
    setFusionNotes(merged, ArrayAttr::get(merged.getContext(), notes));
  return merged;
}

/// Replaces `a` and `b` by `merged`.
void commitMerge(KernelOp a, KernelOp b, KernelOp merged) {
  unsigned n = a->getNumResults();
  a->replaceAllUsesWith(merged->getResults().take_front(n));
  b->replaceAllUsesWith(merged->getResults().drop_front(n));
  a->erase();
  b->erase();
}

struct MergeKernelsPass
    : public mlir::dlc::impl::MergeKernelsBase<MergeKernelsPass> {
  using MergeKernelsBase::MergeKernelsBase;

  void runOnOperation() override {
    for (Block &block : getOperation().getBody()) {
      // Earlier pointwise kernels that later ones may merge into.
      SmallVector<std::pair<KernelOp, SmallVector<int64_t>>> open;
      for (Operation &op : llvm::make_early_inc_range(block)) {
        auto kernel = dyn_cast<KernelOp>(&op);
        if (!kernel)
          continue;
        FailureOr<KernelPlan> plan = analyzeKernel(kernel);
        if (failed(plan) || plan->kind != KernelTemplate::Pointwise ||
            numElements(plan->space) > maxElements)
          continue;
        bool merged = false;
        for (auto it = open.rbegin(); it != open.rend(); ++it) {
          KernelOp earlier = it->first;
          if (it->second != plan->space ||
              bodySize(earlier) + bodySize(kernel) > maxOpsPerKernel ||
              earlier->getNumResults() + kernel->getNumResults() >
                  maxOutputsPerKernel ||
              !usersAllAfter(earlier, kernel))
            continue;
          KernelOp result = buildMerged(earlier, kernel);
          LLVM_DEBUG(llvm::dbgs()
                     << DEBUG_TYPE ": trying to merge kernels at "
                     << earlier.getLoc() << " and " << kernel.getLoc() << "\n");
          FailureOr<KernelPlan> check = analyzeKernel(result);
          if (failed(check) || check->kind != KernelTemplate::Pointwise ||
              check->space != plan->space) {
            result->erase();
            continue;
          }
          commitMerge(earlier, kernel, result);
          open.erase(std::next(it).base());
          open.push_back({result, plan->space});
          merged = true;
          break;
        }
        if (!merged)
          open.push_back({kernel, plan->space});
      }
    }
  }
};

} // namespace
