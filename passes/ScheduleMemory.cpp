//===- ScheduleMemory.cpp - Move ops to where they free memory ------------===//
//
// dlc-schedule-memory (Passes.td): an op that is the last reader of some
// intermediate values moves up to right after the latest of its operands,
// when what it frees there is at least what it creates. In a training step
// this is each parameter's update moving up to its gradient (the update
// writes the step's outputs, so the gradient's buffer is freed as soon as
// it is complete), as a memory-aware list scheduler would place it.
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
