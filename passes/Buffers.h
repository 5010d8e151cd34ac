//===- Buffers.h - Values' memory, for the memory passes --------*- C++ -*-===//
//
// Shared by dlc-schedule-memory, dlc-rematerialize and dlc-plan-memory:
// the estimate of a schedule (Profile);
// a reshape (or a slice dlc-fuse keeps as a view) is a view of its
// operand's buffer; arguments and constants
// take no intermediate memory.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_BUFFERS_H
#define DLC_PASSES_BUFFERS_H

#include "ir/Attributes.h"
#include "ir/Dialect.h"
#include "ir/ElementType.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::dlc {

/// The value whose buffer `v` shares: follows views (isBufferView) to
/// their source.
inline Value viewRoot(Value v) {
  while (isBufferView(v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  return v;
}

/// Whether `v` costs no intermediate memory and is free to read anywhere:
/// a function argument or a constant (packaged, or a literal), or a view
/// of one.
inline bool isResident(Value v) {
  Value root = viewRoot(v);
  return isa<BlockArgument>(root) || root.getDefiningOp<ConstantOp>();
}

/// The op-level memory estimate of a schedule: every value of a top-level
/// op other than constants, views and returned values is a buffer live
/// from its op to its last use (through views), as dlc-plan-memory counts
/// them after fusion (where the values inside a kernel need none).
struct Profile {
  DenseMap<Operation *, unsigned> position;
  SmallVector<Operation *> ops;
  struct Buffer {
    Value value;
    int64_t bytes = 0;
    unsigned def = 0, last = 0;
  };
  SmallVector<Buffer> buffers;
  DenseMap<Value, unsigned> bufferOf;
  unsigned peakAt = 0;
  int64_t peak = 0;
  /// The bytes live at each position.
  SmallVector<int64_t> live;

  explicit Profile(Block &block)
      : Profile(llvm::to_vector(
            llvm::map_range(block, [](Operation &op) { return &op; }))) {}
  /// The estimate of the ops in `order` (the block's, terminator last, in
  /// some order that respects their operands).
  explicit Profile(ArrayRef<Operation *> order) {
    for (Operation *op : order) {
      position[op] = ops.size();
      ops.push_back(op);
    }
    for (auto [i, op] : llvm::enumerate(ops)) {
      if (isa<ConstantOp>(op) || isBufferView(op))
        continue;
      for (Value r : op->getResults()) {
        bufferOf[r] = buffers.size();
        buffers.push_back({r, valueBytes(r), unsigned(i), unsigned(i)});
      }
    }
    DenseSet<unsigned> returned;
    for (auto [i, op] : llvm::enumerate(ops)) {
      for (Value operand : op->getOperands()) {
        auto it = bufferOf.find(viewRoot(operand));
        if (it == bufferOf.end())
          continue;
        if (isa<func::ReturnOp>(op))
          returned.insert(it->second);
        buffers[it->second].last =
            std::max(buffers[it->second].last, unsigned(i));
      }
    }
    // Bytes live at each position: a difference array, summed.
    SmallVector<int64_t> delta(ops.size() + 1, 0);
    for (auto [i, b] : llvm::enumerate(buffers)) {
      if (returned.contains(unsigned(i))) {
        b.bytes = 0; // written into the output
        continue;
      }
      delta[b.def] += b.bytes;
      delta[b.last + 1] -= b.bytes;
    }
    int64_t running = 0;
    live.resize(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      running += delta[i];
      live[i] = running;
      if (running > peak) {
        peak = running;
        peakAt = unsigned(i);
      }
    }
  }

  const Buffer *bufferFor(Value v) const {
    auto it = bufferOf.find(viewRoot(v));
    return it == bufferOf.end() ? nullptr : &buffers[it->second];
  }
  bool liveAt(const Buffer &b, unsigned p) const {
    return b.def <= p && p <= b.last;
  }
};

} // namespace mlir::dlc

#endif // DLC_PASSES_BUFFERS_H
