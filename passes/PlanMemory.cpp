//===- PlanMemory.cpp - Assign intermediate tensors to one arena ----------===//
//
// Every result of a top-level dlc.kernel, dlc.matmul or dlc.attention is a
// buffer. A buffer lives from its producer to its last user in the schedule,
// where users of a reshape view count as users of the viewed buffer. Buffers
// that hold a returned value are written straight into the output (offset
// -1); the rest share one arena, each at an aligned offset that no buffer
// with an overlapping live range occupies: packed in a few orders (largest
// first among them) with first and best fit, the smallest kept, then, when
// that is above the lower bound, by an exact search (ArenaSearch.h) within
// the bound or a little above it, and a local search where that finds
// nothing. A single-result pointwise kernel that reads an operand only at
// its own output index may write its result over that operand when the
// operand dies there (in-place).
//
//===----------------------------------------------------------------------===//
#include "analysis/KernelAnalysis.h"
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "passes/ArenaSearch.h"
#include "passes/Buffers.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#include <algorithm>
#include <limits>
#include <random>

#define DEBUG_TYPE "dlc-plan-memory"

namespace mlir::dlc {
#define GEN_PASS_DEF_PLANMEMORY
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

int64_t alignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

struct Buffer {
  Value value;
  int64_t bytes = 0;
  unsigned start = 0, end = 0;
  /// Written straight into a function output.
  bool returned = false;
  /// Already overwritten in place by a later kernel result.
  bool reusedInPlace = false;
  /// The set of buffers sharing one memory block (in-place chains).
  unsigned cls = 0;
  int64_t offset = -1;
};

struct PlanMemoryPass
    : public ::mlir::dlc::impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;

  void runOnOperation() override;
};

void PlanMemoryPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  if (failed(checkTensorSizes(func)))
    return signalPassFailure();
  if (alignment <= 0) {
    func.emitError() << "dlc-plan-memory needs a positive alignment, but got "
                     << static_cast<int64_t>(alignment);
    return signalPassFailure();
  }
  if (!func.getBody().hasOneBlock()) {
    func.emitError() << "dlc-plan-memory expects a function with one block";
    return signalPassFailure();
  }
  Block &block = func.getBody().front();

  DenseMap<Operation *, unsigned> position;
  std::vector<Buffer> buffers;
  DenseMap<Value, unsigned> bufferOf;
  for (auto [i, op] : llvm::enumerate(block)) {
    position[&op] = i;
    if (!isa<KernelOp, MatmulOp, ConvOp, AttentionOp>(op))
      continue;
    for (Value result : op.getResults()) {
      Buffer buffer;
      buffer.value = result;
      buffer.bytes = valueBytes(result);
      buffer.start = buffer.end = i;
      bufferOf[result] = buffers.size();
      buffers.push_back(buffer);
    }
  }

  // Live ranges: a use of a view keeps the viewed buffer alive.
  for (auto [index, op] : llvm::enumerate(block)) {
    // C++17 lambdas cannot capture a structured binding (clang rejects it).
    const unsigned i = index;
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        auto it = bufferOf.find(viewRoot(operand));
        if (it != bufferOf.end())
          buffers[it->second].end =
              std::max<unsigned>(buffers[it->second].end, i);
      }
    });
  }

  // Returned values: the first output naming a buffer receives it directly.
  if (auto ret = dyn_cast_or_null<func::ReturnOp>(
          block.mightHaveTerminator() ? block.getTerminator() : nullptr)) {
    for (Value v : ret.getOperands()) {
      // A block of a buffer (a slice view) is copied into its output; the
      // buffer stays in the arena.
      Value whole = v;
      while (auto reshape = whole.getDefiningOp<ReshapeOp>())
        whole = reshape.getInput();
      if (whole != viewRoot(whole))
        continue;
      auto it = bufferOf.find(whole);
      if (it != bufferOf.end())
        buffers[it->second].returned = true;
    }
  }

  for (auto [i, buffer] : llvm::enumerate(buffers))
    buffer.cls = i;

  // In-place: a pointwise kernel result takes over an operand buffer of the
  // same size that dies at this kernel and is read only at the identity
  // index.
  if (allowInPlace) {
    for (Operation &op : block) {
      // With several results a thread may store one result before it loads
      // the operands of the next, so an overwritten operand could be read
      // back; only single-result kernels write in place.
      auto kernel = dyn_cast<KernelOp>(op);
      if (!kernel || kernel->getNumResults() != 1)
        continue;
      FailureOr<KernelPlan> plan = analyzeKernel(kernel);
      if (failed(plan) || plan->kind != KernelTemplate::Pointwise)
        continue;
      unsigned here = position[kernel];
      Block &body = kernel.getBodyBlock();
      for (Value result : kernel.getResults()) {
        Buffer &out = buffers[bufferOf[result]];
        if (out.returned || out.bytes == 0)
          continue;
        auto resultShape = cast<RankedTensorType>(result.getType()).getShape();
        for (Value operand : kernel.getInputs()) {
          auto it = bufferOf.find(viewRoot(operand));
          if (it == bufferOf.end())
            continue;
          Buffer &in = buffers[it->second];
          if (in.returned || in.reusedInPlace || in.end != here ||
              in.bytes != out.bytes)
            continue;
          // Every operand viewing this buffer must read at the identity
          // index of the result.
          bool safe = true;
          for (auto [j, other] : llvm::enumerate(kernel.getInputs())) {
            if (viewRoot(other) != in.value)
              continue;
            BlockArgument arg = body.getArgument(j);
            if (cast<RankedTensorType>(arg.getType()).getShape() !=
                    resultShape ||
                KernelOp::nonElementwiseReader(arg, resultShape)) {
              safe = false;
              break;
            }
          }
          if (!safe)
            continue;
          in.reusedInPlace = true;
          unsigned cls = in.cls;
          for (Buffer &b : buffers)
            if (b.cls == out.cls)
              b.cls = cls;
          break;
        }
      }
    }
  }

  // One block of memory per class of buffers sharing storage.
  struct Slot {
    unsigned cls;
    int64_t bytes = 0;
    unsigned start = ~0u, end = 0;
    int64_t offset = 0;
  };
  DenseMap<unsigned, unsigned> slotOf;
  SmallVector<Slot> slots;
  int64_t intermediateBytes = 0;
  for (Buffer &buffer : buffers) {
    if (buffer.returned)
      continue;
    intermediateBytes += buffer.bytes;
    auto [it, inserted] = slotOf.try_emplace(buffer.cls, slots.size());
    if (inserted) {
      slots.push_back({});
      slots.back().cls = buffer.cls;
    }
    Slot &b = slots[it->second];
    b.bytes = std::max(b.bytes, buffer.bytes);
    b.start = std::min(b.start, buffer.start);
    b.end = std::max(b.end, buffer.end);
  }

  // No arena is smaller than the most bytes live at one point of the
  // schedule, each buffer counted at the size it takes in the arena (its
  // bytes rounded up to the alignment: offsets are aligned, so no two
  // buffers share an aligned unit): a sweep over the positions, each slot
  // adding its size where its life starts and taking it away after it ends
  // (linear in the slots and positions).
  int64_t lowerBound = 0;
  {
    size_t positions = block.getOperations().size() + 1;
    SmallVector<int64_t> change(positions + 1, 0);
    for (const Slot &b : slots) {
      if (b.start >= positions || b.start > b.end)
        continue;
      int64_t size = alignUp(b.bytes, alignment);
      change[b.start] += size;
      change[std::min<size_t>(b.end, positions - 1) + 1] -= size;
    }
    int64_t live = 0;
    for (size_t i = 0; i < positions; ++i) {
      live += change[i];
      lowerBound = std::max(lowerBound, live);
    }
  }

  // Packing: buffers in some order, each at an aligned offset that no
  // placed buffer with an overlapping life occupies; either the lowest
  // such offset (first fit) or the one in the smallest gap that holds it
  // (best fit, as XLA's GlobalDecreasingSizeBestFitHeap). Several orders
  // and both rules are tried and the smallest arena kept: one order packs
  // one schedule's shapes better than another's, and trying is cheap next
  // to the rest of the compile.
  auto occupied = [&](const Slot &b) { return alignUp(b.bytes, alignment); };
  auto overlapping = [&](const Slot &a, const Slot &b) {
    return a.bytes > 0 && b.bytes > 0 && a.start <= b.end && b.start <= a.end;
  };
  // Every pair of sized slots whose lives overlap, once: a sweep in order
  // of start (linear in the slots and the pairs). Each slot's list of them
  // lets a packing look only at those, not at every slot placed before;
  // where the pairs would be too many to keep (over 4M, 32 MiB of lists: a
  // huge step), packing scans all as before.
  SmallVector<unsigned> byStart(slots.size());
  for (unsigned i = 0; i < slots.size(); ++i)
    byStart[i] = i;
  llvm::stable_sort(byStart, [&](unsigned a, unsigned b) {
    return slots[a].start < slots[b].start;
  });
  auto forEachOverlap = [&](auto fn) {
    for (size_t x = 0; x < byStart.size(); ++x)
      for (size_t y = x + 1; y < byStart.size() &&
                             slots[byStart[y]].start <= slots[byStart[x]].end;
           ++y)
        if (overlapping(slots[byStart[x]], slots[byStart[y]]))
          fn(byStart[x], byStart[y]);
  };
  SmallVector<SmallVector<unsigned, 8>> overlaps;
  uint64_t pairs = 0;
  forEachOverlap([&](unsigned, unsigned) { ++pairs; });
  if (pairs <= (uint64_t(1) << 22)) {
    overlaps.resize(slots.size());
    forEachOverlap([&](unsigned a, unsigned b) {
      overlaps[a].push_back(b);
      overlaps[b].push_back(a);
    });
  }
  auto pack = [&](ArrayRef<unsigned> order, bool bestFit,
                  SmallVectorImpl<int64_t> &offsets) {
    offsets.assign(slots.size(), 0);
    SmallVector<unsigned> placed;
    SmallVector<char> isPlaced(slots.size(), 0);
    int64_t arena = 0;
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (unsigned i : order) {
      const Slot &b = slots[i];
      taken.clear();
      if (!overlaps.empty()) {
        for (unsigned j : overlaps[i])
          if (isPlaced[j])
            taken.push_back({offsets[j], offsets[j] + slots[j].bytes});
      } else {
        for (unsigned j : placed)
          if (overlapping(slots[j], b))
            taken.push_back({offsets[j], offsets[j] + slots[j].bytes});
      }
      llvm::sort(taken);
      int64_t offset = 0;
      if (b.bytes > 0) {
        // The gaps between taken ranges, then the space above them all.
        int64_t best = -1, bestGap = std::numeric_limits<int64_t>::max();
        int64_t cursor = 0;
        for (auto [lo, hi] : taken) {
          if (cursor + b.bytes <= lo) {
            if (!bestFit) {
              best = cursor;
              break;
            }
            if (lo - cursor < bestGap) {
              bestGap = lo - cursor;
              best = cursor;
            }
          }
          cursor = std::max(cursor, alignUp(hi, alignment));
        }
        offset = best >= 0 ? best : cursor;
      }
      offsets[i] = offset;
      arena = std::max(arena, offset + b.bytes);
      placed.push_back(i);
      isPlaced[i] = 1;
    }
    return alignUp(arena, alignment);
  };
  SmallVector<unsigned> identity(slots.size());
  for (unsigned i = 0; i < slots.size(); ++i)
    identity[i] = i;
  auto sorted = [&](auto key) {
    SmallVector<unsigned> order = identity;
    std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
      auto ka = key(slots[a]), kb = key(slots[b]);
      if (ka != kb)
        return ka > kb;
      return slots[a].start < slots[b].start;
    });
    return order;
  };
  // Sizes as occupied in the arena: small tensors all take one aligned
  // unit and are then placed in schedule order, which packs short chains
  // tightly.
  SmallVector<SmallVector<unsigned>> orders = {
      sorted([&](const Slot &b) { return occupied(b); }),
      sorted([&](const Slot &b) { return int64_t(b.end - b.start); }),
      sorted([&](const Slot &b) {
        return occupied(b) * int64_t(b.end - b.start + 1);
      }),
      sorted([&](const Slot &b) { return -int64_t(b.start); }),
      sorted([&](const Slot &b) { return int64_t(b.end); })};
  // Each try is quadratic in the buffers: fewer tries for big steps.
  if (slots.size() > 4000)
    orders.resize(1);
  int64_t arenaBytes = std::numeric_limits<int64_t>::max();
  SmallVector<int64_t> offsets, bestOffsets;
  SmallVector<unsigned> bestOrder;
  bool bestRule = false;
  for (const SmallVector<unsigned> &order : orders)
    for (bool bestFit : {false, true}) {
      int64_t arena = pack(order, bestFit, offsets);
      if (arena < arenaBytes) {
        arenaBytes = arena;
        bestOffsets = offsets;
        bestOrder = order;
        bestRule = bestFit;
      }
    }

  // Then, while the arena is above its lower bound, the exact search
  // (ArenaSearch.h) for a smaller packing: first within the bound; where
  // that finds none within its work, within 1/64 above it, then halving
  // the range between the least capacity not yet tried and the best
  // packing found (at most eight tries, 2^26 steps in all, a step a buffer
  // or a section visited: a try that finds nothing in its share is taken
  // as none there).
  int64_t bound = alignUp(lowerBound, alignment);
  bool searched = false;
  if (arenaBytes > bound) {
    SmallVector<ArenaInterval> items;
    SmallVector<unsigned> itemSlot;
    bool ranged = true;
    for (auto [i, b] : llvm::enumerate(slots)) {
      if (b.bytes == 0)
        continue;
      ranged &= b.start <= b.end;
      items.push_back({b.start, b.end, occupied(b) / alignment});
      itemSlot.push_back(unsigned(i));
    }
    const uint64_t total = uint64_t(1) << 26;
    uint64_t work = ranged ? total : 0;
    // A packing is looked for within [lo, hi] units.
    int64_t lo = bound / int64_t(alignment);
    int64_t hi = arenaBytes / int64_t(alignment) - 1;
    for (int attempt = 0; attempt < 8 && lo <= hi && work > 0; ++attempt) {
      int64_t capacity = attempt == 0 ? lo
                         : attempt == 1
                             ? std::min(hi, lo + std::max<int64_t>(1, lo >> 6))
                             : lo + (hi - lo) / 2;
      uint64_t share = std::min(work, attempt == 0 ? total / 4 : total / 8);
      uint64_t left = share;
      std::optional<SmallVector<int64_t>> found =
          searchArenaOffsets(items, capacity, left);
      work -= share - left;
      if (!found) {
        lo = capacity + 1;
        continue;
      }
      offsets.assign(slots.size(), 0);
      int64_t arena = 0;
      for (auto [k, i] : llvm::enumerate(itemSlot)) {
        offsets[i] = (*found)[k] * int64_t(alignment);
        arena = std::max(arena, offsets[i] + slots[i].bytes);
      }
      arena = alignUp(arena, alignment);
      // The search's packing is checked: two slots whose lives overlap
      // never share a byte.
      bool clash = false;
      forEachOverlap([&](unsigned a, unsigned b) {
        clash |= offsets[a] < offsets[b] + slots[b].bytes &&
                 offsets[b] < offsets[a] + slots[a].bytes;
      });
      if (clash) {
        func.emitError("dlc-plan-memory: the arena search placed two "
                       "buffers with overlapping lives at overlapping "
                       "offsets");
        return signalPassFailure();
      }
      if (arena < arenaBytes) {
        arenaBytes = arena;
        bestOffsets = offsets;
      }
      searched = true;
      hi = std::min(hi, arena / int64_t(alignment) - 1);
    }
  }

  // Where the exact search found nothing, a local search: a random slot
  // moves to a random place in the best order, and the new order is kept
  // when it packs no larger (so the search walks across plateaus). The
  // work is bounded (about 2^27 steps of packing, each a slot and the
  // slots whose lives overlap it, at most 50000 tries) and the random
  // sequence fixed, so the plan is the same on every run.
  uint64_t work = overlaps.empty() ? uint64_t(slots.size()) * slots.size() + 1
                                   : uint64_t(slots.size()) + 2 * pairs + 1;
  unsigned tries = unsigned(std::min<uint64_t>(50000, (1ull << 27) / work));
  std::mt19937 random(0x5eed);
  for (unsigned t = 0;
       t < tries && !searched && slots.size() > 1 && arenaBytes > bound; ++t) {
    SmallVector<unsigned> order = bestOrder;
    unsigned from = unsigned(random() % order.size());
    unsigned to = unsigned(random() % order.size());
    // Every other try moves a slot that reaches the arena's top to an
    // earlier place (where it can take a lower offset): half of those to
    // the front, where it is placed first.
    if (t % 2 == 1) {
      SmallVector<unsigned> top;
      for (auto [k, i] : llvm::enumerate(order))
        if (bestOffsets[i] + slots[i].bytes > arenaBytes - int64_t(alignment))
          top.push_back(unsigned(k));
      if (!top.empty()) {
        from = top[random() % top.size()];
        to = from == 0 || random() % 2 ? 0 : unsigned(random() % from);
      }
    }
    unsigned moved = order[from];
    order.erase(order.begin() + from);
    order.insert(order.begin() + to, moved);
    for (bool bestFit : {bestRule, !bestRule}) {
      int64_t arena = pack(order, bestFit, offsets);
      if (arena <= arenaBytes) {
        arenaBytes = arena;
        bestOffsets = offsets;
        bestOrder = std::move(order);
        bestRule = bestFit;
        break;
      }
    }
  }
  if (slots.empty())
    arenaBytes = 0;
  for (auto [i, b] : llvm::enumerate(slots))
    b.offset = bestOffsets.empty() ? 0 : bestOffsets[i];

  for (Buffer &buffer : buffers)
    if (!buffer.returned)
      buffer.offset = slots[slotOf[buffer.cls]].offset;

  for (Operation &op : block) {
    if (!isa<KernelOp, MatmulOp, ConvOp, AttentionOp>(op))
      continue;
    SmallVector<int64_t> offsets;
    for (Value result : op.getResults())
      offsets.push_back(buffers[bufferOf[result]].offset);
    setPlannedOffsets(&op, offsets);
  }
  LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE ": " << func.getSymName() << ": "
                          << intermediateBytes << " intermediate bytes in an "
                          << arenaBytes << "-byte arena\n");
  setArenaBytes(func, arenaBytes);
  setIntermediateBytes(func, intermediateBytes);
  setArenaLowerBound(func, lowerBound);
}

} // namespace
