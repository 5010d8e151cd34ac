//===- ArenaSearch.h - Exact search for arena offsets -----------*- C++ -*-===//
//
// dlc-plan-memory's exact half (docs/memory.md): given buffers with live
// ranges over the schedule and sizes in the arena's aligned units, find
// offsets so that no two buffers whose lives overlap share a unit and all
// fit under a capacity. This is dynamic storage allocation (NP-hard); the
// search is MiniMalloc's (Moffitt, ASPLOS 2024): a depth-first search over
// canonical solutions, which place buffers in order of offset, each at the
// lowest offset the buffers placed before it leave (every packing can be
// moved down to one of those), with its pruning rules: a section of the
// schedule whose floor plus the sizes of its unplaced buffers exceeds the
// capacity fails, and no buffer is placed at or above a level that an
// unplaced buffer could still have ended below.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_ARENASEARCH_H
#define DLC_PASSES_ARENASEARCH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir::dlc {

/// A buffer: live from schedule position `start` to `end` (inclusive),
/// `units` aligned units large (more than 0; `end` below UINT_MAX).
struct ArenaInterval {
  unsigned start = 0, end = 0;
  int64_t units = 0;
};

/// Offsets (in units) for `items` with every buffer below `capacity`
/// units, or nothing when the search finds none within `work` (its steps,
/// counted in buffers and sections visited; decremented by what it used).
/// Deterministic: the same items, capacity and work give the same answer.
std::optional<llvm::SmallVector<int64_t>>
searchArenaOffsets(llvm::ArrayRef<ArenaInterval> items, int64_t capacity,
                   uint64_t &work);

} // namespace mlir::dlc

#endif // DLC_PASSES_ARENASEARCH_H
