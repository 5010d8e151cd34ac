//===- ScheduleMemory.cpp - Move ops to where they free memory ------------===//
//
// dlc-schedule-memory (Passes.td): an op that is the last reader of some
// intermediate values moves up to right after the latest of its operands,
// when what it frees there is at least what it creates. In a training step
// this is each parameter's update moving up to its gradient (the update
// writes the step's outputs, so the gradient's buffer is freed as soon as
// it is complete), as a memory-aware list scheduler would place it. Then
// the whole block is list-scheduled for memory (the ready op freeing the
// most bytes net first), kept where that lowers the estimate's peak.
// docs/memory.md.
//
//===----------------------------------------------------------------------===//
#include "ir/ElementType.h"
#include "passes/Buffers.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <limits>
#include <set>

namespace mlir::dlc {
#define GEN_PASS_DEF_SCHEDULEMEMORY
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// Values this small computed from arguments only are computed first.
constexpr int64_t kSmallBytes = 256;
/// The most ops one move takes along.
constexpr size_t kMaxCone = 256;

struct ScheduleMemoryPass
    : public mlir::dlc::impl::ScheduleMemoryBase<ScheduleMemoryPass> {
  using ScheduleMemoryBase::ScheduleMemoryBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &block = func.getBody().front();
    DenseSet<Value> returned;
    for (Value v : block.getTerminator()->getOperands())
      returned.insert(viewRoot(v));

    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    // Scalars computed from arguments and constants only (an optimizer's
    // step count and bias corrections) go first, so that what reads them
    // is not held back.
    DenseSet<Operation *> first;
    Operation *cursor = nullptr;
    for (Operation *op : ops) {
      if (op->getNumRegions() || !isPure(op) || isa<ConstantOp>(op) ||
          isa<ReshapeOp>(op) || !llvm::all_of(op->getOperands(), [&](Value v) {
            return isResident(v) || first.contains(viewRoot(v).getDefiningOp());
          }))
        continue;
      int64_t bytes = 0;
      for (Value r : op->getResults())
        bytes += valueBytes(r);
      if (bytes > kSmallBytes)
        continue;
      if (cursor)
        op->moveAfter(cursor);
      else
        op->moveBefore(&block.front());
      cursor = op;
      first.insert(op);
      for (OpOperand &use : op->getOpOperands())
        use.set(placeBefore(use.get(), op));
    }
    // Each value whose readers all lead only to the step's outputs (a
    // parameter's update from its gradient) has them moved up to it.
    for (Operation *def : ops)
      for (Value g : def->getResults())
        if (!returned.contains(g) && !isResident(g))
          hoistCone(block, g);
    if (listScheduling)
      listSchedule(block, returned);
  }

  /// Memory-aware list scheduling: repeatedly the ready op (every operand
  /// computed) that frees the most bytes net of what it creates, the
  /// earlier in the current order on a tie. Kept only where it lowers the
  /// estimate's peak.
  static void listSchedule(Block &block, const DenseSet<Value> &returned) {
    SmallVector<Operation *> current;
    for (Operation &op : block.without_terminator())
      current.push_back(&op);
    // Only data orders pure ops; an op with effects or regions keeps the
    // block as it is.
    if (llvm::any_of(current, [](Operation *op) {
          return !isPure(op) || op->getNumRegions() != 0;
        }))
      return;
    size_t n = current.size();
    DenseMap<Operation *, unsigned> index;
    for (auto [i, op] : llvm::enumerate(current))
      index[op] = i;
    // Readers of each buffer (through views), and unscheduled producers of
    // each op's operands.
    DenseMap<Value, unsigned> readersLeft;
    SmallVector<unsigned> waiting(n, 0);
    SmallVector<SmallVector<unsigned>> users(n);
    for (auto [i, op] : llvm::enumerate(current)) {
      DenseSet<Operation *> producers;
      DenseSet<Value> roots;
      for (Value operand : op->getOperands()) {
        if (Operation *def = operand.getDefiningOp();
            def && index.count(def) && producers.insert(def).second) {
          users[index[def]].push_back(i);
          ++waiting[i];
        }
        Value root = viewRoot(operand);
        if (!isa<ReshapeOp>(op) && roots.insert(root).second)
          ++readersLeft[root];
      }
    }
    auto created = [&](Operation *op) {
      int64_t bytes = 0;
      if (!isa<ReshapeOp>(op))
        for (Value r : op->getResults())
          if (!isResident(r) && !returned.contains(r))
            bytes += valueBytes(r);
      return bytes;
    };
    auto freed = [&](Operation *op) {
      if (isa<ReshapeOp>(op))
        return int64_t(0);
      int64_t bytes = 0;
      DenseSet<Value> roots;
      for (Value operand : op->getOperands()) {
        Value root = viewRoot(operand);
        if (roots.insert(root).second && !isResident(root) &&
            !returned.contains(root) && readersLeft.lookup(root) == 1)
          bytes += valueBytes(root);
      }
      return bytes;
    };
    std::set<unsigned> ready;
    for (unsigned i = 0; i < n; ++i)
      if (waiting[i] == 0)
        ready.insert(i);
    SmallVector<Operation *> order;
    while (!ready.empty()) {
      unsigned pick = *ready.begin();
      int64_t best = std::numeric_limits<int64_t>::max();
      for (unsigned i : ready) {
        Operation *op = current[i];
        // Views and constants cost nothing: take them as they come.
        int64_t score = created(op) - freed(op);
        if (score < best) {
          best = score;
          pick = i;
        }
      }
      ready.erase(pick);
      Operation *op = current[pick];
      order.push_back(op);
      if (!isa<ReshapeOp>(op)) {
        DenseSet<Value> roots;
        for (Value operand : op->getOperands())
          if (Value root = viewRoot(operand); roots.insert(root).second)
            --readersLeft[root];
      }
      for (unsigned u : users[pick])
        if (--waiting[u] == 0)
          ready.insert(u);
    }
    if (order.size() != n)
      return;
    Operation *terminator = block.getTerminator();
    order.push_back(terminator);
    current.push_back(terminator);
    if (Profile(order).peak >= Profile(current).peak)
      return;
    order.pop_back();
    for (Operation *op : order)
      op->moveBefore(terminator);
  }

  /// The ops that read `g`, and those that read their results, when all of
  /// them end in returned values (nothing outside reads them): moved, in
  /// order, to right after the latest value they read from outside.
  static void hoistCone(Block &block, Value g) {
    SetVector<Operation *> cone;
    SmallVector<Value> worklist{g};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (user == block.getTerminator()) {
          if (v == g)
            return;
          continue;
        }
        if (user->getNumRegions() || !isPure(user))
          return;
        if (!cone.insert(user))
          continue;
        if (cone.size() > kMaxCone)
          return;
        for (Value r : user->getResults())
          worklist.push_back(r);
      }
    }
    if (cone.empty())
      return;
    // Where it may start: after `g` and every value it reads from outside
    // that is not free to recreate.
    Operation *after = g.getDefiningOp();
    for (Operation *op : cone)
      for (Value operand : op->getOperands()) {
        if (isResident(operand))
          continue;
        Operation *producer = viewRoot(operand).getDefiningOp();
        if (!producer || cone.contains(producer))
          continue;
        if (after->isBeforeInBlock(producer))
          after = producer;
      }
    SmallVector<Operation *> ordered(cone.begin(), cone.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    // Already there.
    if (after->getNextNode() == ordered.front() &&
        llvm::all_of(
            llvm::zip(ordered, llvm::drop_begin(ordered)), [](auto pair) {
              return std::get<0>(pair)->getNextNode() == std::get<1>(pair);
            }))
      return;
    // Its results have no readers outside, so none precedes the new place.
    Operation *at = after;
    for (Operation *op : ordered) {
      op->moveAfter(at);
      at = op;
    }
    for (Operation *op : ordered)
      for (OpOperand &use : op->getOpOperands())
        use.set(placeBefore(use.get(), op));
  }

  /// `v` defined before `op`: a free value defined later is moved (one
  /// reader) or copied before it; others already are.
  static Value placeBefore(Value v, Operation *op) {
    Operation *def = v.getDefiningOp();
    if (!def || def->isBeforeInBlock(op))
      return v;
    if (def->hasOneUse()) {
      def->moveBefore(op);
      for (OpOperand &use : def->getOpOperands())
        use.set(placeBefore(use.get(), def));
      return v;
    }
    OpBuilder b(op);
    Operation *copy = b.clone(*def);
    for (OpOperand &use : copy->getOpOperands())
      use.set(placeBefore(use.get(), copy));
    return copy->getResult(0);
  }
};

} // namespace
