//===- Segments.cpp - Recompute whole forward segments --------------------===//
//
// Segments.h. The model: the schedule's estimate (Profile) at every
// position, and for each run of segments the change recomputing it makes
// to that estimate: its values read by the backward pass are freed after
// their last forward reader and come back right before the first backward
// reader; what enters and leaves the run stays until then; the run's other
// values live for a moment there. The changes of disjoint runs add up, so
// the choice is a 0-1 program: the runs form a path over the cuts (each
// segment kept or in one recomputed run), and at every position the
// estimate plus the chosen runs' changes is at most the target.
//
//===----------------------------------------------------------------------===//
#include "passes/Segments.h"

#include "ir/Attributes.h"
#include "ir/Dialect.h"
#include "passes/Buffers.h"
#include "passes/IntegerProgram.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

using namespace mlir;
using namespace mlir::dlc;

double mlir::dlc::operationsOf(Operation *op) {
  if (isa<ConstantOp, ReshapeOp>(op))
    return 0;
  if (auto cost = dyn_cast<CostOpInterface>(op))
    return cost.getFlops();
  double result = 0;
  for (Value v : op->getResults())
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      result += double(t.getNumElements());
  if (auto pool = dyn_cast<Pool2DOp>(op)) {
    ArrayRef<int64_t> k = pool.getKernel();
    return result * double(k[0]) * double(k[1]);
  }
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    auto filter = cast<RankedTensorType>(conv.getFilter().getType());
    return 2 * result * double(filter.getNumElements()) /
           double(std::max<int64_t>(filter.getDimSize(0), 1));
  }
  double read = 0;
  for (Value v : op->getOperands())
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      read += double(t.getNumElements());
  return read;
}

namespace {

/// The solver's limit of work per program (branch-and-bound subproblems):
/// the compiler may solve it at each of its tries against a budget. On
/// BERT-base's step (800 columns, 40% dense rows) a subproblem takes
/// about 10-20 ms; 50 of them found the same ResNet-50 plans as 100 did,
/// and halved the 12-layer step's compile with --memory-budget
/// (docs/memory.md).
constexpr long kSolverNodes = 50;
/// Runs longer than this many segments are not tried.
constexpr unsigned kMaxRunLength = 8;

/// A run of consecutive segments, recomputable from the value entering it.
struct Run {
  /// The cuts it lies between (segments from+1 .. to).
  unsigned from = 0, to = 0;
  /// The ops cloned, in schedule order, and the values whose backward
  /// readers read the clones instead.
  SmallVector<Operation *> clone;
  SmallVector<Value> redirected;
  /// Position of the first backward reader: the clones go before it.
  unsigned at = 0;
  double flops = 0;
  /// The change to the estimate: from each position on, add `delta`.
  SmallVector<std::pair<unsigned, int64_t>> steps;
};

bool clonable(Operation *op) {
  return op->getNumResults() > 0 && op->getNumRegions() == 0 &&
         isa<DlcDialect>(op->getDialect()) && isPure(op) &&
         !isa<ConstantOp>(op);
}

} // namespace

SegmentPlan mlir::dlc::recomputeSegments(func::FuncOp func, int64_t target,
                                         double seconds) {
  SegmentPlan plan;
  // No time for the solver: the plan of single values alone, as where
  // GLPK is missing.
  if (!(seconds > 0))
    return plan.how = "no solver time", plan;
  Block &block = func.getBody().front();
  auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
  if (!ret)
    return plan.how = "no return", plan;
  // The forward pass: what the results other than gradients, updates and
  // the skip flag (the loss) are computed from.
  bool training = false;
  SmallVector<Value> roots;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    if (func.getResultAttr(i, attr::kGradientOf) ||
        func.getResultAttr(i, attr::kUpdates)) {
      training = true;
      continue;
    }
    if (!func.getResultAttr(i, attr::kStepSkipped))
      roots.push_back(ret.getOperand(i));
  }
  if (!training || roots.empty())
    return plan.how = "not a training step", plan;
  for (Operation &op : block)
    if (op.getNumRegions() != 0)
      return plan.how = "an op with regions", plan;

  llvm::DenseSet<Operation *> forward;
  SmallVector<Operation *> work;
  auto reach = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (def && def->getBlock() == &block && forward.insert(def).second)
      work.push_back(def);
  };
  for (Value v : roots)
    reach(v);
  while (!work.empty())
    for (Value operand : work.pop_back_val()->getOperands())
      reach(operand);
  Operation *last = nullptr;
  for (Operation *op : forward)
    if (!last || last->isBeforeInBlock(op))
      last = op;
  if (!last)
    return plan.how = "no forward pass", plan;
  // Ops of the backward pass placed among the forward ops (a derivative's
  // factor computed from forward values, which a memory-aware schedule
  // may place early) go right before their first reader after the
  // forward pass, so that they read the recomputed values there: last
  // first, so that a chain of them moves together.
  {
    SmallVector<Operation *> early;
    for (Operation &op : block) {
      if (&op == last)
        break;
      if (!forward.contains(&op) && !op.use_empty() && isPure(&op))
        early.push_back(&op);
    }
    for (Operation *op : llvm::reverse(early)) {
      Operation *first = nullptr;
      for (Operation *user : op->getUsers())
        if (!first || user->isBeforeInBlock(first))
          first = user;
      if (first && !isa<func::ReturnOp>(first) && last->isBeforeInBlock(first))
        op->moveBefore(first);
    }
  }

  Profile profile(block);
  size_t n = profile.ops.size();
  unsigned forwardEnd = profile.position.lookup(last);

  // Each buffer's last reader up to the end of the forward pass, and
  // whether the backward pass reads it.
  size_t nb = profile.buffers.size();
  SmallVector<unsigned> lastForward(nb);
  SmallVector<bool> readLater(nb, false);
  for (auto [i, b] : llvm::enumerate(profile.buffers))
    lastForward[i] = b.def;
  for (auto [p, op] : llvm::enumerate(profile.ops)) {
    if (isa<func::ReturnOp>(op))
      continue;
    for (Value operand : op->getOperands()) {
      auto it = profile.bufferOf.find(viewRoot(operand));
      if (it == profile.bufferOf.end())
        continue;
      if (p <= forwardEnd)
        lastForward[it->second] =
            std::max(lastForward[it->second], unsigned(p));
      else
        readLater[it->second] = true;
    }
  }

  // The forward part of the schedule ends at the last op the loss is
  // computed from; the ops placed there that the loss does not need (a
  // derivative's factor computed from forward values) belong to it too.
  // The cuts: after an op of it where at most one buffer is still read by
  // a later op of it. Node 0 is the start.
  SmallVector<unsigned> cutAt{0};
  SmallVector<SmallVector<unsigned, 4>> cutKeeps{{}};
  {
    std::set<unsigned> crossing;
    SmallVector<SmallVector<unsigned>> endsAt(forwardEnd + 1);
    int64_t forwardBytes = 0, madeSince = 0;
    for (const Profile::Buffer &b : profile.buffers)
      if (b.def <= forwardEnd)
        forwardBytes += b.bytes;
    int64_t minSegmentBytes = forwardBytes / 256;
    for (unsigned p = 0; p <= forwardEnd; ++p) {
      Operation *op = profile.ops[p];
      for (Value r : op->getResults()) {
        auto it = profile.bufferOf.find(r);
        if (it == profile.bufferOf.end())
          continue;
        unsigned b = it->second;
        madeSince += profile.buffers[b].bytes;
        if (profile.buffers[b].bytes > 0 && lastForward[b] > p) {
          crossing.insert(b);
          endsAt[lastForward[b]].push_back(b);
        }
      }
      for (unsigned b : endsAt[p])
        crossing.erase(b);
      // A cut after an op that makes no buffer (a constant, a view) is
      // the one before it. What crosses a cut is kept; a cut is where one
      // value crosses, with at most small ones beside it (an eighth of
      // its size or less: a normalization's statistics, a parameter's
      // transform, the labels' one-hot).
      bool makesBuffer = llvm::any_of(op->getResults(), [&](Value r) {
        return profile.bufferOf.count(r) != 0;
      });
      if (!makesBuffer)
        continue;
      int64_t largest = 0;
      for (unsigned b : crossing)
        largest = std::max(largest, profile.buffers[b].bytes);
      size_t large = llvm::count_if(crossing, [&](unsigned b) {
        return profile.buffers[b].bytes * 8 > largest;
      });
      // A segment that makes less than 1/256 of the forward pass's bytes
      // joins the next one (fewer, no worse choices).
      if (large <= 1 && (madeSince >= minSegmentBytes || p == forwardEnd)) {
        cutAt.push_back(p + 1);
        cutKeeps.emplace_back(crossing.begin(), crossing.end());
        madeSince = 0;
      }
    }
  }
  size_t nodes = cutAt.size();
  plan.segments = nodes - 1;
  if (nodes < 2)
    return plan.how = "no segments", plan;

  // Every run of up to kMaxRunLength segments that frees memory.
  std::vector<Run> runs;
  for (unsigned from = 0; from + 1 < nodes; ++from) {
    for (unsigned to = from + 1; to < nodes && to - from <= kMaxRunLength;
         ++to) {
      Run run;
      run.from = from;
      run.to = to;
      llvm::DenseSet<unsigned> kept;
      kept.insert(cutKeeps[from].begin(), cutKeeps[from].end());
      kept.insert(cutKeeps[to].begin(), cutKeeps[to].end());
      llvm::DenseSet<Operation *> inRun;
      for (unsigned p = cutAt[from]; p < cutAt[to]; ++p)
        inRun.insert(profile.ops[p]);
      llvm::DenseSet<unsigned> dropped;
      for (Operation *op : inRun) {
        if (isa<ConstantOp, ReshapeOp>(op))
          continue;
        for (Value r : op->getResults()) {
          auto it = profile.bufferOf.find(r);
          if (it == profile.bufferOf.end())
            continue;
          int b = int(it->second);
          if (profile.buffers[b].bytes > 0 && readLater[b] &&
              !kept.contains(unsigned(b)))
            dropped.insert(unsigned(b));
        }
      }
      if (dropped.empty())
        continue;
      // The values read through the clones and where they are first read.
      bool ok = true;
      unsigned at = unsigned(n);
      for (unsigned p = cutAt[from]; p < cutAt[to]; ++p) {
        Operation *op = profile.ops[p];
        if (!inRun.contains(op))
          continue;
        for (Value r : op->getResults()) {
          auto it = profile.bufferOf.find(viewRoot(r));
          if (it == profile.bufferOf.end() || !dropped.contains(it->second))
            continue;
          run.redirected.push_back(r);
          for (Operation *user : r.getUsers()) {
            auto pos = profile.position.find(user);
            if (pos == profile.position.end()) {
              ok = false;
              continue;
            }
            if (pos->second > forwardEnd)
              at = std::min(at, pos->second);
          }
        }
      }
      if (!ok || at >= n)
        continue;
      // The ops to clone: what the redirected values are computed from
      // inside the run, down to the kept values, constants and arguments.
      llvm::DenseSet<Operation *> needed;
      llvm::DenseSet<int> readKept;
      SmallVector<Operation *> stack;
      for (Value v : run.redirected)
        if (needed.insert(v.getDefiningOp()).second)
          stack.push_back(v.getDefiningOp());
      while (ok && !stack.empty()) {
        Operation *op = stack.pop_back_val();
        if (!clonable(op)) {
          ok = false;
          break;
        }
        for (Value operand : op->getOperands()) {
          if (isResident(operand))
            continue;
          Value root = viewRoot(operand);
          auto it = profile.bufferOf.find(root);
          int buffer = it == profile.bufferOf.end() ? -1 : int(it->second);
          Operation *def = operand.getDefiningOp();
          bool isKept = buffer >= 0 && kept.contains(unsigned(buffer));
          if (def && inRun.contains(def) && !(isKept && operand == root)) {
            // Computed in the run: cloned too (a view of a kept value
            // included, cheaply).
            if (needed.insert(def).second)
              stack.push_back(def);
            continue;
          }
          // Read as it is: a kept value, or one returned (live to the end).
          if (isKept)
            readKept.insert(buffer);
          else if (buffer < 0 || profile.buffers[buffer].bytes != 0)
            ok = false;
        }
      }
      if (!ok)
        continue;
      for (unsigned p = cutAt[from]; p < cutAt[to]; ++p)
        if (needed.contains(profile.ops[p]))
          run.clone.push_back(profile.ops[p]);
      run.at = at;
      // The change to the estimate. The clones' values that the backward
      // pass does not read live among the clones only: the most of them
      // live at one clone is what the run adds for a moment.
      int64_t transient = 0;
      {
        llvm::DenseMap<Value, unsigned> lastClone;
        for (auto [i, op] : llvm::enumerate(run.clone))
          for (Value operand : op->getOperands())
            lastClone[viewRoot(operand)] = unsigned(i);
        SmallVector<int64_t> delta(run.clone.size() + 1, 0);
        for (auto [i, op] : llvm::enumerate(run.clone)) {
          run.flops += operationsOf(op);
          if (isa<ReshapeOp>(op))
            continue;
          for (Value r : op->getResults()) {
            auto it = profile.bufferOf.find(r);
            if (it == profile.bufferOf.end() || dropped.contains(it->second))
              continue;
            delta[i] += profile.buffers[it->second].bytes;
            delta[std::max<unsigned>(lastClone.lookup(r), unsigned(i)) + 1] -=
                profile.buffers[it->second].bytes;
          }
        }
        int64_t live = 0;
        for (int64_t d : delta)
          transient = std::max(transient, live += d);
      }
      bool frees = false;
      for (unsigned b : dropped) {
        unsigned freedFrom = lastForward[b] + 1;
        if (freedFrom >= at)
          continue;
        frees = true;
        run.steps.push_back({freedFrom, -profile.buffers[b].bytes});
        run.steps.push_back({at, profile.buffers[b].bytes});
      }
      if (!frees)
        continue;
      for (int k : readKept) {
        const Profile::Buffer &b = profile.buffers[k];
        if (b.bytes > 0 && b.last < at) {
          run.steps.push_back({b.last + 1, b.bytes});
          run.steps.push_back({at + 1, -b.bytes});
        }
      }
      if (transient > 0) {
        run.steps.push_back({at, transient});
        run.steps.push_back({at + 1, -transient});
      }
      llvm::sort(run.steps);
      runs.push_back(std::move(run));
    }
  }
  if (runs.empty())
    return plan.how = "no run frees memory", plan;

  // Positions where some run's change steps: between two of them every
  // run's change is constant, so the largest estimate there is the row.
  SmallVector<unsigned> cuts{0, unsigned(n)};
  for (const Run &r : runs)
    for (auto [p, d] : r.steps)
      cuts.push_back(std::min<unsigned>(p, unsigned(n)));
  llvm::sort(cuts);
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  size_t intervals = cuts.size() - 1;
  SmallVector<int64_t> rowEstimate(intervals, 0);
  for (size_t k = 0; k < intervals; ++k)
    for (unsigned p = cuts[k]; p < cuts[k + 1]; ++p)
      rowEstimate[k] = std::max(rowEstimate[k], profile.live[p]);
  // Each run's change on each interval (nonzero only).
  std::vector<std::vector<IntegerProgram::Term>> rowTerms(intervals);
  for (auto [j, r] : llvm::enumerate(runs)) {
    int64_t level = 0;
    size_t s = 0;
    for (size_t k = 0; k < intervals; ++k) {
      while (s < r.steps.size() && r.steps[s].first <= cuts[k])
        level += r.steps[s++].second;
      if (level != 0)
        rowTerms[k].push_back({int(j), double(level)});
    }
  }
  // The path: one column per run (its work times `scale`), one per kept
  // segment.
  auto buildProgram = [&](IntegerProgram &p, double scale) {
    for (const Run &r : runs)
      p.addColumn(scale * r.flops);
    int keepBase = int(runs.size());
    for (size_t s = 0; s + 1 < nodes; ++s)
      p.addColumn(0.0);
    for (size_t v = 0; v < nodes; ++v) {
      std::vector<IntegerProgram::Term> terms;
      for (auto [j, r] : llvm::enumerate(runs)) {
        if (r.from == v)
          terms.push_back({int(j), 1.0});
        if (r.to == v)
          terms.push_back({int(j), -1.0});
      }
      if (v + 1 < nodes)
        terms.push_back({keepBase + int(v), 1.0});
      if (v > 0)
        terms.push_back({keepBase + int(v) - 1, -1.0});
      double net = v == 0 ? 1.0 : v + 1 == nodes ? -1.0 : 0.0;
      p.addRow(std::move(terms), net, /*isEqual=*/true);
    }
  };
  auto started = std::chrono::steady_clock::now();
  auto left = [&] {
    return seconds - std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - started)
                         .count();
  };
  auto rise = [&](size_t k) {
    int64_t up = 0;
    for (const IntegerProgram::Term &t : rowTerms[k])
      up += std::max<int64_t>(int64_t(t.coefficient), 0);
    return up;
  };
  double allFlops = 1;
  for (const Run &r : runs)
    allFlops += r.flops;
  auto found = [](const IntegerSolution &s) {
    return s.status == IntegerSolution::Optimal ||
           s.status == IntegerSolution::Feasible;
  };
  // First the lowest excess over the target the runs reach (with the
  // work as a tie-break worth at most a KiB). Keeping every segment is
  // feasible, but GLPK must find a plan itself: on dense programs its
  // limit can end the search before any, and single values decide.
  IntegerProgram lowest;
  buildProgram(lowest, 1024.0 / allFlops);
  int excess = lowest.addColumn(1.0, /*isContinuous=*/true);
  for (size_t k = 0; k < intervals; ++k) {
    if (rowEstimate[k] + rise(k) <= target)
      continue;
    std::vector<IntegerProgram::Term> terms = rowTerms[k];
    terms.push_back({excess, -1.0});
    lowest.addRow(std::move(terms), double(target - rowEstimate[k]));
  }
  IntegerSolution solution =
      solveIntegerProgram(lowest, left() / 2, kSolverNodes);
  if (!found(solution)) {
    plan.how = solution.status == IntegerSolution::Infeasible
                   ? "no plan of segments"
                   : solution.why;
    return plan;
  }
  // Then the least work for that peak; where the solver finds no better
  // plan in its time, the first one stands.
  int64_t goal = target + int64_t(std::ceil(solution.x[excess]));
  IntegerProgram least;
  buildProgram(least, 1.0);
  for (size_t k = 0; k < intervals; ++k)
    if (rowEstimate[k] + rise(k) > goal)
      least.addRow(rowTerms[k], double(goal - rowEstimate[k]));
  IntegerSolution leastWork = solveIntegerProgram(least, left(), kSolverNodes);
  if (found(leastWork))
    solution = std::move(leastWork);
  else
    solution.status = IntegerSolution::Feasible;
  plan.how = solution.status == IntegerSolution::Optimal ? "optimal"
                                                         : "solver's limit";

  // Recompute the chosen runs.
  for (auto [j, r] : llvm::enumerate(runs)) {
    if (solution.x[j] < 0.5)
      continue;
    ++plan.runs;
    plan.flops += r.flops;
    OpBuilder b(profile.ops[r.at]);
    IRMapping mapping;
    for (Operation *op : r.clone)
      b.clone(*op, mapping)->setAttr(attr::kRecompute, b.getUnitAttr());
    for (Value v : r.redirected) {
      Value clone = mapping.lookupOrNull(v);
      if (!clone)
        continue;
      for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
        auto pos = profile.position.find(use.getOwner());
        if (pos != profile.position.end() && pos->second > forwardEnd)
          use.set(clone);
      }
    }
  }
  return plan;
}
