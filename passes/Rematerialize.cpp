//===- Rematerialize.cpp - Recompute values to fit a memory budget --------===//
//
// dlc-rematerialize (Passes.td): where the intermediate values live at one
// point of the schedule exceed the budget, some of them are recomputed
// where they are used again instead of being kept across that point
// (activation checkpointing, as XLA's HloRematerialization does on its
// schedule). Greedy: at the point of the highest estimate, the value whose
// recomputation frees the most bytes per operation is recomputed before
// its next use, and the estimate redone, until it fits or nothing frees
// memory. In a training step a second plan first recomputes whole forward
// segments chosen by a 0-1 program (Segments.h); the plan that fits with
// less work is kept. A recomputed pointwise chain fuses into the kernel
// that uses it. docs/memory.md.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "passes/Buffers.h"
#include "passes/Passes.h"
#include "passes/Segments.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mlir::dlc {
#define GEN_PASS_DEF_REMATERIALIZE
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// Whether `op` may be computed a second time: a pure dlc op of one result
/// whose cost is known. Attention is not (its backward recomputes its
/// scores itself), nor are constants and views (free anyway).
bool isRecomputable(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      !isa<DlcDialect>(op->getDialect()) || !isPure(op) ||
      isa<ConstantOp, ReshapeOp, AttentionOp, KernelOp>(op))
    return false;
  return op->hasTrait<trait::Elementwise>() ||
         op->hasTrait<trait::DataMovement>() ||
         op->hasTrait<trait::Reduction>() ||
         isa<MatmulOp, ConvOp, Conv2DOp, Pool2DOp>(op);
}

/// A value kept across the peak that could be recomputed after it.
struct Candidate {
  Value value;
  /// The first use after the peak (through views): where it is recomputed.
  Operation *at = nullptr;
  /// The ops recomputed, in schedule order: the value's, and those of its
  /// operands that are not there any more (a chain back to live values).
  SmallVector<Operation *> ops;
  double flops = 0;
};

/// How many ops one recomputation may chain back through.
constexpr size_t kMaxChain = 8;
/// Steps without a lower peak before the search gives up.
constexpr size_t kPatience = 16;

struct RematerializePass
    : public mlir::dlc::impl::RematerializeBase<RematerializePass> {
  using RematerializeBase::RematerializeBase;

  void runOnOperation() override;

  /// The best candidate at the profile's peak, if any frees memory there.
  std::optional<Candidate> choose(const Profile &profile);
  /// Recomputes `c.value` before `c.at` for all its uses from there on.
  void recompute(const Profile &profile, const Candidate &c);
  /// Recomputes single values, the best at the peak first, until the
  /// estimate is at most `target` or no step lowers it; returns the peak
  /// and adds the operations to `flops`.
  int64_t greedy(func::FuncOp func, int64_t target, double &flops);
};

std::optional<Candidate> RematerializePass::choose(const Profile &profile) {
  unsigned peak = profile.peakAt;
  std::optional<Candidate> best;
  double bestScore = -1;
  for (const Profile::Buffer &b : profile.buffers) {
    if (b.bytes == 0 || !(b.def < peak && peak < b.last))
      continue;
    Operation *op = b.value.getDefiningOp();
    if (!op || !isRecomputable(op))
      continue;
    // Its first use after the peak; none at the peak itself.
    unsigned first = std::numeric_limits<unsigned>::max();
    bool usedAtPeak = false;
    SmallVector<Value> worklist{b.value};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (auto reshape = dyn_cast<ReshapeOp>(user)) {
          worklist.push_back(reshape.getResult());
          continue;
        }
        unsigned at = profile.position.lookup(user);
        usedAtPeak |= at == peak;
        if (at > peak)
          first = std::min(first, at);
      }
    }
    if (usedAtPeak || first == std::numeric_limits<unsigned>::max())
      continue;
    // Its operands must be there again at `first`: those live at the peak
    // (or resident) are; the others are recomputed too where they can be
    // (a chain of at most kMaxChain ops), else kept across the peak.
    SmallVector<Operation *> chain{op};
    llvm::SmallPtrSet<Operation *, 8> inChain{op};
    int64_t extra = 0;
    for (size_t i = 0; i < chain.size(); ++i) {
      for (Value operand : chain[i]->getOperands()) {
        Value root = viewRoot(operand);
        if (isResident(root))
          continue;
        const Profile::Buffer *in = profile.bufferFor(root);
        if (!in || profile.liveAt(*in, peak))
          continue;
        Operation *def = root.getDefiningOp();
        if (inChain.contains(def))
          continue;
        if (chain.size() < kMaxChain && isRecomputable(def)) {
          chain.push_back(def);
          inChain.insert(def);
        } else {
          extra += in->bytes;
        }
      }
    }
    int64_t saved = b.bytes - extra;
    if (saved <= 0)
      continue;
    double flops = 0;
    for (Operation *o : chain)
      flops += operationsOf(o);
    double score = double(saved) / (flops + 1);
    if (score > bestScore) {
      bestScore = score;
      llvm::sort(chain, [&](Operation *a, Operation *c) {
        return profile.position.lookup(a) < profile.position.lookup(c);
      });
      best = Candidate{b.value, profile.ops[first], chain, flops};
    }
  }
  return best;
}

void RematerializePass::recompute(const Profile &profile, const Candidate &c) {
  unsigned from = profile.position.lookup(c.at);
  OpBuilder b(c.at);
  // The chain in order, each op reading the clones of those before it
  // (through views rebuilt on them).
  IRMapping mapping;
  for (Operation *op : c.ops) {
    for (Value operand : op->getOperands()) {
      if (mapping.contains(operand))
        continue;
      SmallVector<ReshapeOp> views;
      Value v = operand;
      while (auto reshape = v.getDefiningOp<ReshapeOp>()) {
        views.push_back(reshape);
        v = reshape.getInput();
      }
      if (!mapping.contains(v))
        continue;
      Value mapped = mapping.lookup(v);
      for (ReshapeOp view : llvm::reverse(views)) {
        mapped = b.create<ReshapeOp>(view.getLoc(), view.getType(), mapped);
        mapping.map(view.getResult(), mapped);
      }
    }
    Operation *clone = b.clone(*op, mapping);
    clone->setAttr(attr::kRecompute, b.getUnitAttr());
  }
  // The uses from `from` on read the clone, through views rebuilt on it.
  DenseMap<Value, Value> rebuilt{{c.value, mapping.lookup(c.value)}};
  std::function<Value(Value)> onClone = [&](Value v) -> Value {
    auto it = rebuilt.find(v);
    if (it != rebuilt.end())
      return it->second;
    auto reshape = v.getDefiningOp<ReshapeOp>();
    Value input = onClone(reshape.getInput());
    Value view =
        b.create<ReshapeOp>(reshape.getLoc(), reshape.getType(), input);
    rebuilt[v] = view;
    return view;
  };
  SmallVector<std::pair<OpOperand *, Value>> uses;
  SmallVector<Value> worklist{c.value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto reshape = dyn_cast<ReshapeOp>(user)) {
        worklist.push_back(reshape.getResult());
        continue;
      }
      auto at = profile.position.find(user);
      if (at != profile.position.end() && at->second >= from)
        uses.push_back({&use, v});
    }
  }
  for (auto [use, v] : uses)
    use->set(onClone(v));
}

int64_t RematerializePass::greedy(func::FuncOp func, int64_t target,
                                  double &flops) {
  // Each step recomputes one value. A step can move the peak elsewhere
  // without lowering it: the best plan so far is kept (a copy of the
  // function), and the search ends after kPatience steps without a lower
  // peak, returning to it.
  Block &block = func.getBody().front();
  Profile initial(block);
  int64_t peak = initial.peak;
  if (peak <= target)
    return peak;
  OwningOpRef<func::FuncOp> initialCopy = func.clone();
  OwningOpRef<func::FuncOp> best;
  int64_t bestPeak = peak;
  double bestFlops = flops;
  size_t sinceBest = 0;
  for (size_t step = 0, limit = 4 * initial.ops.size() + 16;
       step < limit && sinceBest < kPatience; ++step) {
    Profile profile(block);
    peak = profile.peak;
    if (peak < bestPeak) {
      bestPeak = peak;
      bestFlops = flops;
      best = func.clone();
      sinceBest = 0;
    }
    if (peak <= target)
      break;
    std::optional<Candidate> c = choose(profile);
    if (!c)
      break;
    recompute(profile, *c);
    flops += c->flops;
    ++sinceBest;
  }
  peak = Profile(block).peak;
  if (sinceBest > 0 && peak >= bestPeak) {
    // Back to the best plan (or, where no step lowered the peak, to the
    // start).
    func::FuncOp from = best ? *best : *initialCopy;
    func.getBody().takeBody(from.getBody());
    peak = bestPeak;
    flops = bestFlops;
  }
  return peak;
}

void RematerializePass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return;
  Block &block = func.getBody().front();
  if (!(activationFraction >= 0 && activationFraction <= 1)) {
    func.emitError() << "dlc-rematerialize: the activation fraction must lie "
                        "in [0, 1]";
    return signalPassFailure();
  }
  // What the step holds besides the arena: its inputs and outputs
  // (parameters and state among them) and its packaged constants.
  int64_t resident = residentBytes(func);
  Profile initial(block);
  OwningOpRef<func::FuncOp> initialCopy = func.clone();
  int64_t target = -1;
  if (budget > 0)
    target = std::max<int64_t>(int64_t(budget) - resident, 0);
  // What the activation fraction is of: the measured keep-everything
  // arena where the compiler gives it, else the estimate's peak.
  const int64_t baseline =
      activationBaseline > 0 ? int64_t(activationBaseline) : initial.peak;
  if (budget == 0 && activationFraction > 0)
    target = int64_t(std::floor(activationFraction * double(baseline)));
  // The driver's second try, when the plan after fusion missed the budget
  // (fusion moves buffers' lives): a lower target for the estimate.
  if (target > 0 && tighten < 1)
    target =
        int64_t(std::floor(double(target) * std::max(double(tighten), 0.0)));
  int64_t peak = initial.peak;
  double flops = 0;
  if (target >= 0 && peak > target) {
    // Two plans: whole forward segments chosen exactly (then single
    // values where the estimate is still above), and single values alone;
    // the one that fits with less work is kept, else the lower.
    SegmentPlan segments = recomputeSegments(func, target, solverSeconds);
    double segmentFlops = segments.flops;
    int64_t segmentPeak = greedy(func, target, segmentFlops);
    if (segments.runs > 0) {
      OwningOpRef<func::FuncOp> withSegments = func.clone();
      func.getBody().takeBody(
          OwningOpRef<func::FuncOp>(initialCopy->clone())->getBody());
      double valueFlops = 0;
      int64_t valuePeak = greedy(func, target, valueFlops);
      bool segmentsFit = segmentPeak <= target, valuesFit = valuePeak <= target;
      bool useSegments = segmentsFit != valuesFit ? segmentsFit
                         : segmentsFit            ? segmentFlops <= valueFlops
                                                  : segmentPeak <= valuePeak;
      if (useSegments) {
        func.getBody().takeBody(withSegments->getBody());
        peak = segmentPeak;
        flops = segmentFlops;
      } else {
        peak = valuePeak;
        flops = valueFlops;
        segments.runs = 0;
        segments.how = "more work than single values";
      }
    } else {
      peak = segmentPeak;
      flops = segmentFlops;
    }
    std::string how = segments.runs > 0
                          ? std::to_string(segments.runs) + " of " +
                                std::to_string(segments.segments) +
                                " segments (" + segments.how + ")"
                          : "single values (segments: " + segments.how + ")";
    func->setAttr(attr::kRecomputePlan, StringAttr::get(&getContext(), how));
  }
  Builder b(&getContext());
  func->setAttr(attr::kActivationBytes, b.getI64IntegerAttr(peak));
  func->setAttr(attr::kRecomputeFlops, b.getF64FloatAttr(flops));
  // A later try of the driver's (tighten < 1), or a fraction of the arena
  // the driver measured (whose fused plan may keep less than this
  // estimate), does what it can: the driver measures the plan and reports.
  if (target >= 0 && peak > target && tighten >= 1 &&
      (budget > 0 || activationBaseline == 0)) {
    InFlightDiagnostic d = func.emitError();
    if (budget > 0)
      d << "no plan fits the memory budget of " << int64_t(budget)
        << " bytes: the inputs, outputs, parameters, state and constants "
           "take "
        << resident << ", which leaves " << target
        << " for intermediate values, and recomputing every value that "
           "frees memory still needs "
        << peak << " at one point; the smallest budget that fits is "
        << resident + peak << " bytes";
    else
      d << "no plan fits the activation budget: it leaves " << target
        << " bytes for intermediate values, and recomputing every value "
           "that frees memory still needs "
        << peak << " at one point; the smallest fraction that fits is "
        << double(peak) / double(std::max<int64_t>(baseline, 1));
    return signalPassFailure();
  }
}

} // namespace
