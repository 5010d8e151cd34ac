//===- ArenaSearchTest.cpp - The exact arena search against brute force ---===//
//
// passes/ArenaSearch.h on random small problems: the least capacity any
// packing reaches, found by first fit over every order of the buffers
// (every packing pushed down is some order's first fit), must be what the
// search finds, and below it the search must prove there is none (it
// returns with work left, not for want of it). Small random problems
// almost always pack within the most units live at once; the search's
// pruning is what finds those packings in few steps.
//
//===----------------------------------------------------------------------===//

#include "passes/ArenaSearch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

using namespace mlir::dlc;

namespace {

bool liveTogether(const ArenaInterval &a, const ArenaInterval &b) {
  return a.start <= b.end && b.start <= a.end;
}

/// The top of a packing of `items` at `offsets`, or -1 when two buffers
/// that live together overlap or an offset is negative.
int64_t checkedTop(const std::vector<ArenaInterval> &items,
                   llvm::ArrayRef<int64_t> offsets) {
  int64_t top = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (offsets[i] < 0)
      return -1;
    top = std::max(top, offsets[i] + items[i].units);
    for (size_t j = 0; j < i; ++j)
      if (liveTogether(items[i], items[j]) &&
          offsets[i] < offsets[j] + items[j].units &&
          offsets[j] < offsets[i] + items[i].units)
        return -1;
  }
  return top;
}

/// The least top of any packing: first fit over every order.
int64_t bruteForce(const std::vector<ArenaInterval> &items) {
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  int64_t best = std::numeric_limits<int64_t>::max();
  do {
    std::vector<int64_t> offsets(items.size(), -1);
    int64_t top = 0;
    for (size_t i : order) {
      // The lowest offset clear of every placed buffer living with i.
      int64_t at = 0;
      for (bool moved = true; moved;) {
        moved = false;
        for (size_t j = 0; j < items.size(); ++j)
          if (offsets[j] >= 0 && liveTogether(items[i], items[j]) &&
              at < offsets[j] + items[j].units &&
              offsets[j] < at + items[i].units) {
            at = offsets[j] + items[j].units;
            moved = true;
          }
      }
      offsets[i] = at;
      top = std::max(top, at + items[i].units);
    }
    best = std::min(best, top);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

/// The most units live at one position.
int64_t liveBound(const std::vector<ArenaInterval> &items) {
  int64_t most = 0;
  for (const ArenaInterval &a : items) {
    int64_t live = 0;
    for (const ArenaInterval &b : items)
      if (b.start <= a.start && a.start <= b.end)
        live += b.units;
    most = std::max(most, live);
  }
  return most;
}

TEST(ArenaSearch, MatchesBruteForce) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 300; ++trial) {
    size_t n = 2 + random() % 6;
    std::vector<ArenaInterval> items;
    for (size_t i = 0; i < n; ++i) {
      unsigned start = random() % 8;
      unsigned end = start + random() % 5;
      items.push_back({start, end, int64_t(1 + random() % 6)});
    }
    int64_t optimum = bruteForce(items);
    EXPECT_GE(optimum, liveBound(items)) << "trial " << trial;
    uint64_t work = uint64_t(1) << 24;
    std::optional<llvm::SmallVector<int64_t>> found =
        searchArenaOffsets(items, optimum, work);
    ASSERT_TRUE(found.has_value()) << "trial " << trial;
    int64_t top = checkedTop(items, *found);
    EXPECT_GE(top, 0) << "trial " << trial << ": overlapping buffers";
    EXPECT_LE(top, optimum) << "trial " << trial;
    work = uint64_t(1) << 24;
    EXPECT_FALSE(searchArenaOffsets(items, optimum - 1, work).has_value())
        << "trial " << trial;
    EXPECT_GT(work, 0u) << "trial " << trial
                        << ": ran out of work instead of proving none fits";
  }
}

// Six buffers whose first-fit orders by size, life or start all take 21
// units; the search reaches the 19 live at once (the case of
// test/passes/plan-memory.mlir's @exact_search).
TEST(ArenaSearch, ReachesTheBoundFirstFitMisses) {
  std::vector<ArenaInterval> items = {{0, 4, 4}, {1, 5, 1}, {2, 4, 3},
                                      {3, 5, 6}, {4, 5, 5}, {5, 6, 6}};
  uint64_t work = uint64_t(1) << 20;
  std::optional<llvm::SmallVector<int64_t>> found =
      searchArenaOffsets(items, 19, work);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(checkedTop(items, *found), 19);
}

// Independent parts of the schedule (no life crosses between them) are
// searched apart; a part too big for the work is not searched at all.
TEST(ArenaSearch, PartsAndWork) {
  std::vector<ArenaInterval> items = {
      {0, 1, 3}, {1, 2, 2}, {5, 6, 4}, {6, 7, 1}};
  uint64_t work = uint64_t(1) << 20;
  std::optional<llvm::SmallVector<int64_t>> found =
      searchArenaOffsets(items, 5, work);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(checkedTop(items, *found), 5);
  uint64_t none = 3;
  EXPECT_FALSE(searchArenaOffsets(items, 5, none).has_value());
  // A buffer larger than the capacity never fits.
  work = uint64_t(1) << 20;
  EXPECT_FALSE(searchArenaOffsets(items, 3, work).has_value());
  // Nor does one outside the contract: a life that ends before it starts,
  // no units.
  work = uint64_t(1) << 20;
  EXPECT_FALSE(searchArenaOffsets({{3, 2, 1}}, 5, work).has_value());
  EXPECT_FALSE(searchArenaOffsets({{0, 2, 0}}, 5, work).has_value());
}

} // namespace
