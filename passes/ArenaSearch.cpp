//===- ArenaSearch.cpp - Exact search for arena offsets -------------------===//
//
// See ArenaSearch.h. The schedule is cut into sections (the spans between
// consecutive starts and ends of lives, in which the same buffers live);
// where no buffer crosses from one section to the next, the buffers before
// and after are independent problems. Each is searched depth first:
//
// - Every unplaced buffer has a lowest offset: the highest top of the
//   placed buffers whose lives overlap its own.
// - Placement is in nondecreasing order of offset, each buffer at its
//   lowest offset (a canonical solution); buffers placed at the same offset
//   never overlap in life, so among those only one order (by a preorder
//   rank) is tried.
// - A buffer is not placed at or above the lowest top an unplaced buffer
//   could reach: that buffer would fit below it, and the solution with it
//   placed there first is searched in another branch.
// - A section fails when the higher of its floor (the top of its placed
//   buffers) and the last placed offset, plus the units of its unplaced
//   buffers, exceeds the capacity: those buffers all live there at once,
//   above both.
//
// The search runs with a node limit under several preorders in turn (the
// rank that decides among buffers at one offset, and so which is tried
// first), the limit doubling each round, until one finds a solution, one
// proves there is none, or the work runs out.
//
//===----------------------------------------------------------------------===//

#include "passes/ArenaSearch.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace mlir::dlc;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace {

enum class Outcome { Found, Infeasible, OutOfWork };

/// One independent part of the problem: its buffers (indices into the
/// caller's items) and their section ranges, counted from the part's
/// first section.
class PartSearch {
public:
  PartSearch(ArrayRef<ArenaInterval> items, ArrayRef<unsigned> members,
             ArrayRef<unsigned> lo, ArrayRef<unsigned> hi, unsigned sections,
             int64_t capacity)
      : items(items), members(members), lo(lo), hi(hi), sections(sections),
        capacity(capacity) {
    size_t m = members.size();
    overlaps.resize(m);
    // Lives overlap where section ranges do: a sweep in order of first
    // section.
    SmallVector<unsigned> byLo(m);
    std::iota(byLo.begin(), byLo.end(), 0);
    llvm::stable_sort(byLo,
                      [&](unsigned a, unsigned b) { return lo[a] < lo[b]; });
    for (size_t x = 0; x < m; ++x)
      for (size_t y = x + 1; y < m && lo[byLo[y]] < hi[byLo[x]]; ++y) {
        overlaps[byLo[x]].push_back(byLo[y]);
        overlaps[byLo[y]].push_back(byLo[x]);
      }
  }

  /// Searches with `rank` deciding among buffers at one offset, visiting at
  /// most `nodes` nodes and `work` steps.
  Outcome run(ArrayRef<unsigned> rankOf, uint64_t nodes, uint64_t &work) {
    size_t m = members.size();
    rank = rankOf;
    lowest.assign(m, 0);
    offset.assign(m, -1);
    floor.assign(sections, 0);
    unplaced.assign(sections, 0);
    for (size_t k = 0; k < m; ++k)
      for (unsigned s = lo[k]; s < hi[k]; ++s)
        unplaced[s] += units(k);
    placedCount = 0;
    trail.clear();
    nodesLeft = nodes;
    workLeft = &work;
    return search(0, -1);
  }

  /// The offset of each member after a search that found a solution.
  ArrayRef<int64_t> offsets() const { return offset; }

private:
  int64_t units(size_t k) const { return items[members[k]].units; }

  void set(int64_t &slot, int64_t value) {
    trail.push_back({&slot, slot});
    slot = value;
  }
  void undo(size_t mark) {
    while (trail.size() > mark) {
      *trail.back().first = trail.back().second;
      trail.pop_back();
    }
  }
  bool spend(uint64_t steps) {
    if (*workLeft < steps) {
      *workLeft = 0;
      return false;
    }
    *workLeft -= steps;
    return true;
  }

  Outcome search(int64_t lastOffset, int64_t lastRank) {
    size_t m = members.size();
    if (placedCount == m)
      return Outcome::Found;
    if (nodesLeft == 0 || !spend(m + sections))
      return Outcome::OutOfWork;
    --nodesLeft;
    // The lowest top an unplaced buffer can reach: nothing goes at or above
    // it.
    int64_t lowestTop = std::numeric_limits<int64_t>::max();
    for (size_t k = 0; k < m; ++k)
      if (offset[k] < 0)
        lowestTop = std::min(lowestTop, lowest[k] + units(k));
    SmallVector<unsigned, 8> candidates;
    for (size_t k = 0; k < m; ++k) {
      if (offset[k] >= 0)
        continue;
      int64_t at = lowest[k];
      if (at < lastOffset || (at == lastOffset && rank[k] < lastRank) ||
          at >= lowestTop || at + units(k) > capacity)
        continue;
      candidates.push_back(unsigned(k));
    }
    llvm::sort(candidates, [&](unsigned a, unsigned b) {
      if (lowest[a] != lowest[b])
        return lowest[a] < lowest[b];
      return rank[a] < rank[b];
    });
    for (unsigned k : candidates) {
      if (!spend(overlaps[k].size() + 2 * (hi[k] - lo[k])))
        return Outcome::OutOfWork;
      size_t mark = trail.size();
      int64_t at = lowest[k], top = at + units(k);
      offset[k] = at;
      ++placedCount;
      for (unsigned j : overlaps[k])
        if (offset[j] < 0 && lowest[j] < top)
          set(lowest[j], top);
      for (unsigned s = lo[k]; s < hi[k]; ++s) {
        set(floor[s], std::max(floor[s], top));
        set(unplaced[s], unplaced[s] - units(k));
      }
      bool fits = true;
      for (unsigned s = 0; s < sections && fits; ++s)
        fits = unplaced[s] == 0 ||
               std::max(floor[s], at) + unplaced[s] <= capacity;
      Outcome outcome =
          fits ? search(at, int64_t(rank[k])) : Outcome::Infeasible;
      if (outcome == Outcome::Found)
        return outcome;
      undo(mark);
      offset[k] = -1;
      --placedCount;
      if (outcome == Outcome::OutOfWork)
        return outcome;
    }
    return Outcome::Infeasible;
  }

  ArrayRef<ArenaInterval> items;
  ArrayRef<unsigned> members, lo, hi;
  unsigned sections;
  int64_t capacity;
  SmallVector<SmallVector<unsigned, 8>> overlaps;
  ArrayRef<unsigned> rank;
  SmallVector<int64_t> lowest, offset, floor, unplaced;
  SmallVector<std::pair<int64_t *, int64_t>> trail;
  size_t placedCount = 0;
  uint64_t nodesLeft = 0;
  uint64_t *workLeft = nullptr;
};

} // namespace

std::optional<SmallVector<int64_t>>
mlir::dlc::searchArenaOffsets(ArrayRef<ArenaInterval> items, int64_t capacity,
                              uint64_t &work) {
  size_t n = items.size();
  // Sections: the spans between consecutive starts and ends of lives.
  SmallVector<unsigned> points;
  for (const ArenaInterval &item : items) {
    // Outside the contract (ArenaSearch.h) or larger than the capacity:
    // no packing.
    if (item.units <= 0 || item.units > capacity || item.start > item.end ||
        item.end == std::numeric_limits<unsigned>::max())
      return std::nullopt;
    points.push_back(item.start);
    points.push_back(item.end + 1);
  }
  llvm::sort(points);
  points.erase(std::unique(points.begin(), points.end()), points.end());
  auto sectionOf = [&](unsigned position) {
    return unsigned(llvm::lower_bound(points, position) - points.begin());
  };
  unsigned sections = points.empty() ? 0 : unsigned(points.size() - 1);
  SmallVector<unsigned> lo(n), hi(n);
  // Buffers crossing from each section into the next.
  SmallVector<unsigned> crossing(sections + 1, 0);
  for (auto [i, item] : llvm::enumerate(items)) {
    lo[i] = sectionOf(item.start);
    hi[i] = sectionOf(item.end + 1);
    for (unsigned s = lo[i] + 1; s < hi[i]; ++s)
      ++crossing[s];
  }
  SmallVector<unsigned> cuts = {0};
  for (unsigned s = 1; s < sections; ++s)
    if (crossing[s] == 0)
      cuts.push_back(s);
  cuts.push_back(sections);

  SmallVector<int64_t> result(n, 0);
  SmallVector<unsigned> byLo(n);
  std::iota(byLo.begin(), byLo.end(), 0);
  llvm::stable_sort(byLo,
                    [&](unsigned a, unsigned b) { return lo[a] < lo[b]; });
  size_t next = 0;
  for (size_t c = 0; c + 1 < cuts.size(); ++c) {
    unsigned first = cuts[c], last = cuts[c + 1];
    SmallVector<unsigned> members, partLo, partHi;
    for (; next < n && lo[byLo[next]] < last; ++next) {
      unsigned i = byLo[next];
      members.push_back(i);
      partLo.push_back(lo[i] - first);
      partHi.push_back(hi[i] - first);
    }
    size_t m = members.size();
    if (m == 0)
      continue;
    // A node visits every buffer and section of its part: a part too big
    // to descend once within the work is not searched.
    if (uint64_t(m) * (m + (last - first)) > work)
      return std::nullopt;
    PartSearch part(items, members, partLo, partHi, last - first, capacity);

    // Preorders (MiniMalloc's): by the most units live at once in a
    // buffer's sections, its sections spanned and its area, in three
    // priorities.
    SmallVector<int64_t> total(last - first, 0), most(m, 0), area(m), width(m);
    for (size_t k = 0; k < m; ++k)
      for (unsigned s = partLo[k]; s < partHi[k]; ++s)
        total[s] += items[members[k]].units;
    for (size_t k = 0; k < m; ++k) {
      for (unsigned s = partLo[k]; s < partHi[k]; ++s)
        most[k] = std::max(most[k], total[s]);
      const ArenaInterval &item = items[members[k]];
      width[k] = partHi[k] - partLo[k];
      area[k] = item.units * int64_t(item.end - item.start + 1);
    }
    SmallVector<SmallVector<unsigned>> ranks;
    for (int priority = 0; priority < 3; ++priority) {
      SmallVector<unsigned> order(m);
      std::iota(order.begin(), order.end(), 0);
      llvm::stable_sort(order, [&](unsigned a, unsigned b) {
        auto key = [&](unsigned k) {
          switch (priority) {
          case 0:
            return std::make_tuple(width[k], area[k], most[k]);
          case 1:
            return std::make_tuple(most[k], area[k], width[k]);
          default:
            return std::make_tuple(most[k], width[k], area[k]);
          }
        };
        return key(a) > key(b);
      });
      SmallVector<unsigned> rank(m);
      for (auto [r, k] : llvm::enumerate(order))
        rank[k] = unsigned(r);
      ranks.push_back(std::move(rank));
    }

    bool found = false;
    for (uint64_t nodes = 2 * m; !found && work > 0; nodes *= 2)
      for (const SmallVector<unsigned> &rank : ranks) {
        Outcome outcome = part.run(rank, nodes, work);
        if (outcome == Outcome::Infeasible)
          return std::nullopt;
        if (outcome == Outcome::Found) {
          found = true;
          break;
        }
        if (work == 0)
          break;
      }
    if (!found)
      return std::nullopt;
    for (auto [k, i] : llvm::enumerate(members))
      result[i] = part.offsets()[k];
  }
  return result;
}
