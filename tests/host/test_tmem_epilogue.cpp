// The TMEM epilogue's staging boxes (common/tmem_epilogue.h): the order in which a warp's TMA stores take them,
// replayed against what cp.async.bulk.wait_group.read lets a warp assume before it writes a box.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "common/tmem_epilogue.h"

namespace gemm {
namespace {

// Replays one epilogue warp storing a tile after another, `chunks[t]` chunks in tile t, each chunk through the
// box `box_for(tile, chunk, stores so far)`. Before writing a box the warp waits, as store_tmem_accumulator
// does, until at most kTmemStoreBuffers - 1 of its stores are still reading shared memory (the oldest finish
// first). Returns the number of chunks written into a box that a store in flight may still be reading.
int overwrites_in_flight(const std::vector<int>& chunks,
                         const std::function<uint32_t(int tile, int chunk, uint32_t stores)>& box_for) {
  std::deque<uint32_t> reading;  // the boxes of the stores that may still be reading, oldest first
  uint32_t stores = 0;
  int overwrites = 0;
  for (int tile = 0; tile < static_cast<int>(chunks.size()); ++tile)
    for (int chunk = 0; chunk < chunks[tile]; ++chunk) {
      const uint32_t box = box_for(tile, chunk, stores);
      while (reading.size() > static_cast<size_t>(kTmemStoreBuffers - 1)) reading.pop_front();  // wait_group.read kTmemStoreBuffers - 1
      for (uint32_t busy : reading) overwrites += busy == box;
      reading.push_back(box);
      ++stores;
    }
  return overwrites;
}

// Kernels 18-19's epilogue warps store tile after tile; at the N edge a tile of 256 columns may store 1-3 of its
// four 64-column chunks (common/tmem_epilogue.h skips chunks past N).
const std::vector<int> kPersistentWalk = {4, 3, 4, 1, 2, 3, 3, 4};

TEST(TmemStoreBoxes, NeverWriteABoxAStoreInFlightMayStillRead) {
  const int overwrites = overwrites_in_flight(kPersistentWalk, [](int, int, uint32_t stores) {
    TmemStoreBoxes boxes;
    boxes.stores = stores;
    return boxes.next();
  });
  EXPECT_EQ(overwrites, 0);
}

TEST(TmemStoreBoxes, BoxesRestartedPerTileWouldRaceAfterAnOddTile) {
  // The rule the epilogue used before TmemStoreBoxes: box = chunk % 2, restarted in every tile. After a tile
  // of 3 or 1 chunks the next tile's first chunk writes the box of the store still in flight; the replay
  // above must see that (or it could not catch the bug it guards against).
  const auto per_tile = [](int, int chunk, uint32_t) { return static_cast<uint32_t>(chunk % kTmemStoreBuffers); };
  EXPECT_GT(overwrites_in_flight(kPersistentWalk, per_tile), 0);
  EXPECT_EQ(overwrites_in_flight({4, 4, 2, 4}, per_tile), 0);  // even tiles only: no race, why it hid
}

TEST(TmemStoreBoxes, TakeTurnsOverEveryStore) {
  TmemStoreBoxes boxes;
  std::vector<uint32_t> order;
  for (int i = 0; i < 5; ++i) {
    order.push_back(boxes.next());
    ++boxes.stores;
  }
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 0, 1, 0}));
}

}  // namespace
}  // namespace gemm
