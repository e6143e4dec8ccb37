// The split of the last round (common/stream_k.h): every (tile, k block) iteration done exactly once, partials
// before owned heads (one per worker, its first split unit), each slot written once, an owner's contributors exactly
// those of its tile's partials, balance, the policy on the benchmark shapes, and the order of each unit's k blocks
// (up in even rounds, down in odd ones).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "common/few_tiles.h"
#include "common/gemm_problem.h"  // ceil_div
#include "common/stream_k.h"
#include "tests/host/h200_memory.h"

namespace gemm {
namespace {

std::vector<WorkUnit> units_of(const StreamKSchedule& schedule, int worker) {
  std::vector<WorkUnit> units;
  for (WorkUnit unit = schedule.first(worker); unit.valid(); unit = schedule.next(worker, unit)) {
    units.push_back(unit);
    if (units.size() > 1'000'000) break;  // a loop that never ends fails below instead of hanging
  }
  return units;
}

// Everything the kernel relies on, for one schedule.
void check_schedule(const StreamKSchedule& schedule) {
  SCOPED_TRACE(testing::Message() << schedule.tiles << " tiles of " << schedule.k_blocks << " k blocks on "
                                  << schedule.workers << " workers, " << schedule.whole_tiles << " whole");
  std::map<int, std::vector<int>> done;      // tile -> how often each k block was done
  std::map<int, int> owner;                  // split tile -> its owner
  std::map<int, std::set<int>> tile_slots;   // split tile -> the slots its partials were written to
  std::set<int> written_slots;
  std::vector<int64_t> split_work(schedule.workers, 0);
  for (int worker = 0; worker < schedule.workers; ++worker) {
    const std::vector<WorkUnit> units = units_of(schedule, worker);
    bool owned_head_seen = false;
    for (size_t i = 0; i < units.size(); ++i) {
      const WorkUnit& unit = units[i];
      ASSERT_GE(unit.tile, 0);
      ASSERT_LT(unit.tile, schedule.tiles);
      ASSERT_LE(0, unit.k_begin);
      ASSERT_LT(unit.k_begin, unit.k_end) << "an empty unit";
      ASSERT_LE(unit.k_end, schedule.k_blocks);
      auto& blocks = done[unit.tile];
      blocks.resize(schedule.k_blocks);
      // The unit's k blocks in the kernel's order: up in even rounds, down in odd ones, each in the unit once.
      EXPECT_EQ(schedule.runs_down(unit), schedule.round_of(unit) % 2 == 1);
      const int split_round = schedule.whole_tiles / schedule.workers;  // the round of every split tile
      if (unit.tile >= schedule.whole_tiles) {
        EXPECT_EQ(schedule.round_of(unit), split_round);
      }
      for (int iteration = 0; iteration < unit.k_blocks(); ++iteration) {
        const int k = schedule.k_block(unit, iteration);
        ASSERT_GE(k, unit.k_begin);
        ASSERT_LT(k, unit.k_end);
        ++blocks[k];
        if (iteration > 0) {
          EXPECT_EQ(k - schedule.k_block(unit, iteration - 1), schedule.runs_down(unit) ? -1 : 1);
        }
      }
      const bool whole = unit.k_begin == 0 && unit.k_end == schedule.k_blocks;
      if (unit.tile < schedule.whole_tiles) {
        EXPECT_TRUE(whole) << "tile " << unit.tile << " is in the whole part";
        EXPECT_EQ(unit.tile % schedule.workers, worker) << "whole tiles go round robin";
        continue;
      }
      split_work[worker] += unit.k_end - unit.k_begin;
      if (unit.is_partial()) {
        // No worker waits for a partial before writing its own: partials come before an owned head.
        EXPECT_FALSE(owned_head_seen) << "a partial after an owned head";
        // The partial is the worker's first split unit; everything before it is whole tiles.
        for (size_t j = 0; j < i; ++j) EXPECT_LT(units[j].tile, schedule.whole_tiles) << "partial unit not first";
        EXPECT_TRUE(schedule.contributes_to(worker, unit.tile));
        const int slot = schedule.partial_slot(worker, unit);
        ASSERT_GE(slot, 0);
        ASSERT_LT(slot, schedule.partial_slots());
        EXPECT_TRUE(written_slots.insert(slot).second) << "slot " << slot << " written twice";
        tile_slots[unit.tile].insert(slot);
      } else {
        EXPECT_FALSE(schedule.contributes_to(worker, unit.tile));
        if (!whole) {
          EXPECT_EQ(i + 1, units.size()) << "an owned head must be its worker's last unit";
          owner[unit.tile] = worker;
          owned_head_seen = true;
        }
      }
    }
  }
  for (int tile = 0; tile < schedule.tiles; ++tile) {
    ASSERT_EQ(done[tile].size(), static_cast<size_t>(schedule.k_blocks)) << "tile " << tile << " never visited";
    for (int k = 0; k < schedule.k_blocks; ++k)
      EXPECT_EQ(done[tile][k], 1) << "tile " << tile << ", k block " << k;
  }
  // Each split tile has one owner, and the slots it adds (those of the contributors the kernel walks: worker + 1
  // up to contributors_end, where contributes_to) are exactly those its tile's partials went to.
  for (const auto& [tile, slots] : tile_slots) {
    ASSERT_TRUE(owner.count(tile)) << "tile " << tile << " has partials but no owner";
    const int head = owner[tile];
    std::set<int> listed;
    for (int contributor = head + 1; contributor < schedule.contributors_end(head, tile); ++contributor)
      if (schedule.contributes_to(contributor, tile)) listed.insert(schedule.partial_slot(contributor, {}));
    EXPECT_EQ(listed, slots) << "tile " << tile;
  }
  for (const auto& [tile, head] : owner) EXPECT_TRUE(tile_slots.count(tile)) << "tile " << tile;
  // Balance: the workers' split work differs by at most one k block.
  if (schedule.splits()) {
    const auto [least, most] = std::minmax_element(split_work.begin(), split_work.end());
    EXPECT_LE(*most - *least, 1);
  }
}

// Round r + 1 starts on the k block where round r ended, for every worker, down into the split round.
TEST(StreamK, EachRoundStartsWhereTheRoundBeforeEnded) {
  int split = 0;
  for (int workers : {1, 3, 66})
    for (int tiles : {1, 67, 200, 1024})
      for (int k_blocks : {1, 7, 64, 128}) {  // 1024 × 128 on 66: split
        const StreamKSchedule schedule = StreamKSchedule::make(tiles, k_blocks, workers);
        split += schedule.splits();
        SCOPED_TRACE(testing::Message() << tiles << " tiles of " << k_blocks << " k blocks on " << workers);
        for (int worker = 0; worker < schedule.workers; ++worker) {
          const std::vector<WorkUnit> units = units_of(schedule, worker);
          for (size_t i = 1; i < units.size(); ++i) {
            const WorkUnit &before = units[i - 1], &unit = units[i];
            if (schedule.round_of(unit) == schedule.round_of(before)) continue;  // two units of the split round
            EXPECT_EQ(schedule.round_of(unit), schedule.round_of(before) + 1);
            const int last = schedule.k_block(before, before.k_blocks() - 1);
            const int first = schedule.k_block(unit, 0);
            if (unit.k_begin == 0 && unit.k_end == k_blocks) {
              EXPECT_EQ(first, last) << "worker " << worker << ", unit " << i;
            } else {  // a split unit starts at its own end nearest to where the round before ended
              EXPECT_EQ(std::abs(first - last),
                        std::min(std::abs(unit.k_begin - last), std::abs(unit.k_end - 1 - last)));
            }
          }
        }
      }
  EXPECT_GE(split, 3);
}

// Each worker's units as plain 64-bit arithmetic gives them, worked out here: its whole tiles round robin, then one
// contiguous run of split iterations [S + W·i/P, S + W·(i+1)/P) (S the whole tiles' iterations, W the split ones, P
// workers), cut at tile ends; and a worker contributes to a tile exactly when its run starts inside it. The cases put
// W·i and the iterations themselves on both sides of 2^32, and include a schedule without split tiles, where a
// worker's units are its whole tiles alone (first_split_unit returns at once).
TEST(StreamK, UnitsAsPlainArithmeticGivesThem) {
  struct Case {
    int tiles, k_blocks, workers, whole_tiles;
  };
  for (const Case c : {Case{66, 64, 132, 0}, Case{1000, 40000, 132, 0}, Case{200000, 40000, 132, 0},
                       Case{200000, 40000, 132, 199900}, Case{264, 64, 132, 264}}) {
    SCOPED_TRACE(testing::Message() << c.tiles << " tiles of " << c.k_blocks << " k blocks on " << c.workers
                                    << " workers, " << c.whole_tiles << " whole");
    const StreamKSchedule schedule{c.tiles, c.k_blocks, c.workers, c.whole_tiles};
    const uint64_t k = static_cast<uint64_t>(c.k_blocks);
    const uint64_t split_iterations = static_cast<uint64_t>(c.tiles - c.whole_tiles) * k;
    const uint64_t split_start = static_cast<uint64_t>(c.whole_tiles) * k;
    for (int worker = 0; worker < c.workers; ++worker) {
      const uint64_t begin = split_start + split_iterations * static_cast<uint64_t>(worker) / c.workers;
      const uint64_t end = split_start + split_iterations * static_cast<uint64_t>(worker + 1) / c.workers;
      ASSERT_EQ(schedule.split_begin(worker), static_cast<int64_t>(begin));
      const std::vector<WorkUnit> units = units_of(schedule, worker);
      size_t unit = 0;
      for (int tile = worker; tile < c.whole_tiles; tile += c.workers, ++unit) {
        ASSERT_LT(unit, units.size());
        EXPECT_EQ(units[unit].tile, tile);
        EXPECT_EQ(units[unit].k_begin, 0);
        EXPECT_EQ(units[unit].k_end, c.k_blocks);
      }
      for (uint64_t at = begin; at < end; ++unit) {
        ASSERT_LT(unit, units.size());
        const uint64_t tile = at / k, unit_end = std::min(end, (tile + 1) * k);
        EXPECT_EQ(static_cast<uint64_t>(units[unit].tile), tile);
        EXPECT_EQ(static_cast<uint64_t>(units[unit].k_begin), at - tile * k);
        EXPECT_EQ(static_cast<uint64_t>(units[unit].k_end), unit_end - tile * k);
        at = unit_end;
      }
      EXPECT_EQ(unit, units.size()) << "units past the worker's run";
      if (begin < end) {
        const int tile = static_cast<int>(begin / k);
        EXPECT_EQ(schedule.contributes_to(worker, tile), begin % k != 0);
        EXPECT_FALSE(schedule.contributes_to(worker, tile + 1));
      }
    }
  }
}

// The order pinned: 10 tiles of 8 k blocks on 4 workers (left unsplit: rounds 0 and 1 whole, round 2 half).
TEST(StreamK, KBlockOrderPinned) {
  const StreamKSchedule schedule = StreamKSchedule::make(10, 8, 4);
  ASSERT_FALSE(schedule.splits());
  const auto order = [&](const WorkUnit& unit) {
    std::vector<int> blocks;
    for (int iteration = 0; iteration < unit.k_blocks(); ++iteration)
      blocks.push_back(schedule.k_block(unit, iteration));
    return blocks;
  };
  const std::vector<WorkUnit> units = units_of(schedule, 1);
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[0].tile, 1);
  EXPECT_EQ(order(units[0]), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(units[1].tile, 5);
  EXPECT_EQ(order(units[1]), (std::vector<int>{7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(units[2].tile, 9);
  EXPECT_EQ(order(units[2]), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  // The split round runs downwards when it is odd: 13 tiles of 64 k blocks on 4 workers, the last tile forced
  // into four runs of 16 in round 3. Worker 0's head goes from k block 15 down to 0, worker 1's partial from 31
  // down to 16.
  const StreamKSchedule split{13, 64, 4, 12};
  const WorkUnit head = units_of(split, 0).back(), partial = units_of(split, 1).back();
  ASSERT_EQ(head.tile, 12);
  ASSERT_EQ(partial.tile, 12);
  EXPECT_EQ(split.k_block(head, 0), 15);
  EXPECT_EQ(split.k_block(head, head.k_blocks() - 1), 0);
  EXPECT_EQ(split.k_block(partial, 0), 31);
  EXPECT_EQ(split.k_block(partial, partial.k_blocks() - 1), 16);
}

TEST(StreamK, EveryIterationOnceOnePartialPerWorkerOwnersAndContributors) {
  for (int workers : {1, 2, 3, 7, 66, 132})
    for (int tiles : {1, 2, 5, 66, 67, 100, 131, 1024, 1000})
      for (int k_blocks : {1, 2, 7, 64, 128, 224}) {
        check_schedule(StreamKSchedule::make(tiles, k_blocks, workers));
        // The split forced on every remainder, past the policy, to cover thin splits (down to one k block a
        // worker and tiles shared by many workers).
        StreamKSchedule forced{tiles, k_blocks, workers, tiles - tiles % workers};
        check_schedule(forced);
      }
}

// The benchmark shapes with 128 × 256 tiles in 2-CTA clusters on 66 clusters (132 SMs): whole rounds, then
// the remainder split into 66 runs of k blocks, or left whole.
// The policy's two thresholds, each at its boundary (66 workers, 64 k blocks).
TEST(StreamK, PolicyBoundaries) {
  // 99 tiles: 33 left over, idle (66 - 33) · 64 = 2112 = 32 · 66 k blocks, exactly kMinIdleIterations per
  // worker: split.
  const StreamKSchedule at_idle_threshold = StreamKSchedule::make(99, 64, 66);
  EXPECT_TRUE(at_idle_threshold.splits());
  EXPECT_EQ(at_idle_threshold.whole_tiles, 66);
  // 100 tiles: 34 left over, 2048 idle k blocks, one short: two rounds on the 50 clusters they need.
  const StreamKSchedule past_idle_threshold = StreamKSchedule::make(100, 64, 66);
  EXPECT_FALSE(past_idle_threshold.splits());
  EXPECT_EQ(past_idle_threshold.workers, 50);
  // 67 tiles of 132 k blocks: one left over, 132 k blocks on 66 workers is 2 each, under kMinIterations: whole.
  // With 264 k blocks, 4 each: split.
  EXPECT_FALSE(StreamKSchedule::make(67, 132, 66).splits());
  EXPECT_TRUE(StreamKSchedule::make(67, 264, 66).splits());
}

TEST(StreamK, PolicyOnTheBenchmarkShapes) {
  // 8192³: 1024 cluster tiles of 128 k blocks, 15 rounds and 34 tiles; each cluster gets 34 · 128 / 66 ≈ 65.9
  const StreamKSchedule cube = StreamKSchedule::make(1024, 128, 66);
  EXPECT_EQ(cube.whole_tiles, 990);
  EXPECT_EQ(cube.split_iterations(), 34 * 128);
  EXPECT_EQ(cube.first(0).tile, 0);
  EXPECT_EQ(cube.next(0, {924, 0, 128}).tile, 990);  // after its 15th whole tile, worker 0's split run
  const WorkUnit first_split = cube.next(0, {924, 0, 128});
  EXPECT_EQ(first_split.k_begin, 0);
  EXPECT_EQ(first_split.k_end, 65);  // 4352 · 1 / 66 = 65.9: worker 1 starts at iteration 65
  const WorkUnit partial = cube.next(1, {925, 0, 128});
  EXPECT_EQ(partial.tile, 990);
  EXPECT_EQ(partial.k_begin, 65);
  EXPECT_EQ(partial.k_end, 128);
  // 16384 × 4096 × 14336: the same 1024 tiles with 224 k blocks
  EXPECT_EQ(StreamKSchedule::make(1024, 224, 66).whole_tiles, 990);
  // 4096 × 14336 × 4096: 896 cluster tiles of 64, 13 rounds and 38 tiles: 28 of 66 clusters idle for 64 k
  // blocks is 27 per cluster, under 32: whole, 14 rounds on 64 clusters (kernel 16 gives this shape to kernel 14)
  const StreamKSchedule llm = StreamKSchedule::make(896, 64, 66);
  EXPECT_FALSE(llm.splits());
  EXPECT_EQ(llm.workers, 64);
  // 4096³: 256 cluster tiles, 3 rounds and 58: 8 idle clusters, 7.8 k blocks each: whole, on 64 clusters
  EXPECT_EQ(StreamKSchedule::make(256, 64, 66).whole_tiles, 256);
  EXPECT_EQ(StreamKSchedule::make(256, 64, 66).workers, 64);
  // 6144³: 576 cluster tiles of 96 k blocks, 8 rounds and 48: 18 idle clusters, 26.2 k blocks each: whole, in 9
  // rounds of 64 clusters
  EXPECT_EQ(StreamKSchedule::make(576, 96, 66).whole_tiles, 576);
  EXPECT_EQ(StreamKSchedule::make(576, 96, 66).workers, 64);
  // Split schedules keep every worker.
  EXPECT_EQ(cube.workers, 66);
  EXPECT_EQ(StreamKSchedule::make(4096, 256, 66).workers, 66);
  // 16384³: 4096 cluster tiles, 62 rounds and 4: 62 idle clusters for 256 k blocks; 4 · 256 / 66 = 15.5 k
  // blocks a cluster: split
  EXPECT_EQ(StreamKSchedule::make(4096, 256, 66).whole_tiles, 4092);
  // The GPU suite's split shapes (runner/shapes.cpp): 2300 × 2040 × 4000 (72 cluster tiles of 63 k blocks, the
  // last partial; 2304 × 2048 × 4096, 64 k blocks, splits the same way) and 4352 × 1024 × 8448 (68 of 132: two
  // tiles, each shared by 33 clusters)
  EXPECT_EQ(StreamKSchedule::make(72, 63, 66).whole_tiles, 66);
  EXPECT_EQ(StreamKSchedule::make(72, 64, 66).whole_tiles, 66);
  EXPECT_EQ(StreamKSchedule::make(68, 132, 66).whole_tiles, 66);
  EXPECT_EQ(StreamKSchedule::make(68, 132, 66).contributors_end(0, 66), 33);
  // scripts/sanitize.sh's example, 2304 × 2048 × 2816: 72 cluster tiles of 44 k blocks, just split (6 · 44 =
  // 4 · 66); with 43 k blocks left whole, two rounds on 36 clusters
  EXPECT_EQ(StreamKSchedule::make(72, 44, 66).whole_tiles, 66);
  EXPECT_FALSE(StreamKSchedule::make(72, 43, 66).splits());
  EXPECT_EQ(StreamKSchedule::make(72, 43, 66).workers, 36);
  // The GPU suite's 2500 × 2504 × 4000: 100 cluster tiles of 63 k blocks; a split would leave 30.5 idle k blocks
  // per cluster, under 32: two whole rounds on 50 clusters
  EXPECT_FALSE(StreamKSchedule::make(100, 63, 66).splits());
  EXPECT_EQ(StreamKSchedule::make(100, 63, 66).workers, 50);
  // No remainder: nothing split, every worker kept.
  EXPECT_EQ(StreamKSchedule::make(132, 64, 66).whole_tiles, 132);
  EXPECT_EQ(StreamKSchedule::make(132, 64, 66).workers, 66);
  // Too few k blocks to give every worker 4 (two tiles of 64 on 66 workers): whole, two rounds on 34 workers.
  EXPECT_FALSE(StreamKSchedule::make(68, 64, 66).splits());
  EXPECT_EQ(StreamKSchedule::make(68, 64, 66).workers, 34);
  // Fewer tiles than workers, one k block each (nothing to split): one round, one worker per tile.
  EXPECT_EQ(StreamKSchedule::make(30, 1, 66).workers, 30);
}

// Unsplit schedules keep the fewest workers that need the same number of rounds, never more than given.
TEST(StreamK, UnsplitScheduleKeepsTheWorkersItsRoundsNeed) {
  for (int workers : {1, 2, 3, 7, 66, 132})
    for (int tiles = 1; tiles <= 400; ++tiles)
      for (int k_blocks : {1, 4, 64}) {
        const StreamKSchedule schedule = StreamKSchedule::make(tiles, k_blocks, workers);
        int last_round = 0;  // rounds() against the rounds of the units the schedule hands out
        for (int worker = 0; worker < schedule.workers; ++worker)
          for (const WorkUnit& unit : units_of(schedule, worker))
            last_round = std::max(last_round, schedule.round_of(unit));
        EXPECT_EQ(schedule.rounds(), last_round + 1) << tiles << " tiles, " << workers;
        if (schedule.splits()) {
          EXPECT_EQ(schedule.workers, workers);
          continue;
        }
        const int rounds = ceil_div(tiles, workers);
        EXPECT_LE(schedule.workers, workers);
        EXPECT_EQ(ceil_div(tiles, schedule.workers), rounds) << tiles << " tiles, " << workers;
        if (schedule.workers > 1) {
          EXPECT_GT(ceil_div(tiles, schedule.workers - 1), rounds) << "one worker fewer needs a round more";
        }
      }
}

// ---- kernel 15's policy for few tiles (make_few_tiles) ------------------------------------------------------------

// The fix-up order of a split tile: its owner's head [0, e0), then the contributors the kernel walks (owner + 1 up
// to contributors_end, where contributes_to), in that order, each holding the k blocks right after the one before,
// the last ending at the tile's last k block. An owner that added them in another order, or skipped one, would
// add a partial the test cannot account for.
void check_fix_up_chains(const StreamKSchedule& schedule) {
  for (int owner = 0; owner < schedule.workers; ++owner) {
    std::vector<WorkUnit> units = units_of(schedule, owner);
    if (units.empty()) continue;
    const WorkUnit head = units.back();
    if (head.tile < schedule.whole_tiles || head.is_partial() || head.k_end == schedule.k_blocks) continue;
    int next_k = head.k_end;
    for (int contributor = owner + 1; contributor < schedule.contributors_end(owner, head.tile); ++contributor) {
      if (!schedule.contributes_to(contributor, head.tile)) continue;
      WorkUnit partial;  // the contributor's first split unit (its whole tiles come before it)
      for (const WorkUnit& unit : units_of(schedule, contributor))
        if (unit.tile >= schedule.whole_tiles) {
          partial = unit;
          break;
        }
      EXPECT_EQ(partial.tile, head.tile);
      EXPECT_EQ(partial.k_begin, next_k) << "tile " << head.tile << ", contributor " << contributor;
      next_k = partial.k_end;
    }
    EXPECT_EQ(next_k, schedule.k_blocks) << "tile " << head.tile << " of owner " << owner << " not covered";
  }
}

TEST(FewTiles, EveryIterationOnceBalancedSharesAndFixUpOrder) {
  for (int workers : {1, 2, 7, 33, 66, 132})
    for (int tiles : {1, 2, 5, 8, 16, 32, 65, 66, 67, 200})
      for (int k_blocks : {1, 2, 7, 16, 64, 224, 448}) {
        const StreamKSchedule schedule = StreamKSchedule::make_few_tiles(tiles, k_blocks, workers);
        SCOPED_TRACE(testing::Message() << tiles << " tiles, " << k_blocks << " k blocks, " << workers << " workers");
        check_schedule(schedule);
        check_fix_up_chains(schedule);
        EXPECT_LE(schedule.workers, workers);
        if (tiles >= workers) {  // kernel 13's policy, unchanged
          const StreamKSchedule thirteen = StreamKSchedule::make(tiles, k_blocks, workers);
          EXPECT_EQ(schedule.workers, thirteen.workers);
          EXPECT_EQ(schedule.whole_tiles, thirteen.whole_tiles);
          continue;
        }
        // The choice is the best of the model's candidates: whole tiles (k_blocks), or a split over any worker
        // count from tiles + 1 up (each worker at least one k block).
        double best = k_blocks;
        for (int split = tiles + 1; split <= workers && split <= int64_t{tiles} * k_blocks; ++split)
          best = std::min(best, StreamKSchedule::split_blocks(tiles, k_blocks, split));
        EXPECT_DOUBLE_EQ(schedule.few_tiles_blocks(), best);
        if (schedule.splits()) {
          EXPECT_EQ(schedule.whole_tiles, 0) << "with fewer tiles than workers, all of it is split";
          EXPECT_GT(schedule.workers, tiles);
        } else {
          EXPECT_EQ(schedule.workers, tiles) << "unsplit: one worker per tile";
        }
      }
}

// make_even_split: S = ⌊workers / tiles⌋ workers a tile, where S is at least 2 and at most k_blocks (kernel 15 takes
// it only where 2 · tiles ≤ workers and a share keeps 16 k blocks). Every iteration once, the fix-up chains whole, and each
// worker one run of one tile: worker w holds tile ⌊w / S⌋, share w mod S, of ⌊k / S⌋ or ⌈k / S⌉ k blocks, so an owner
// waits only for partners that finish with it.
TEST(FewTiles, EvenSplitSharesAreOneRunOfOneTile) {
  for (int workers : {4, 33, 64, 66, 132})
    for (int tiles : {1, 2, 5, 12, 16, 22, 32, 33})
      for (int k_blocks : {16, 17, 64, 129, 224, 4096}) {
        if (2 * tiles > workers || workers / tiles > k_blocks) continue;  // two shares or more, each a k block or more
        const StreamKSchedule schedule = StreamKSchedule::make_even_split(tiles, k_blocks, workers);
        SCOPED_TRACE(testing::Message() << tiles << " tiles, " << k_blocks << " k blocks, " << workers << " workers");
        const int shares = workers / tiles;
        EXPECT_EQ(schedule.workers, shares * tiles);
        EXPECT_EQ(schedule.even_shares(), shares);
        EXPECT_EQ(schedule.whole_tiles, 0);
        EXPECT_TRUE(schedule.splits());
        check_schedule(schedule);
        check_fix_up_chains(schedule);
        for (int worker = 0; worker < schedule.workers; ++worker) {
          const std::vector<WorkUnit> units = units_of(schedule, worker);
          ASSERT_EQ(units.size(), 1u) << "worker " << worker;
          EXPECT_EQ(units[0].tile, worker / shares) << "worker " << worker;
          const int blocks = units[0].k_end - units[0].k_begin;
          EXPECT_GE(blocks, k_blocks / shares) << "worker " << worker;
          EXPECT_LE(blocks, (k_blocks + shares - 1) / shares) << "worker " << worker;
          EXPECT_EQ(units[0].k_begin == 0, worker % shares == 0) << "the first share of each tile owns it";
        }
      }
  // Worked by hand: 16 tiles of 224 k blocks on 66 workers (128 × 4096 × 14336 in 128 × 128 tiles): 4 shares of 56
  // on 64 workers; worker 5 holds tile 1, k blocks 56 to 111, a partial its owner, worker 4, adds.
  const StreamKSchedule thin = StreamKSchedule::make_even_split(16, 224, 66);
  EXPECT_EQ(thin.workers, 64);
  const std::vector<WorkUnit> fifth = units_of(thin, 5);
  ASSERT_EQ(fifth.size(), 1u);
  EXPECT_EQ(fifth[0].tile, 1);
  EXPECT_EQ(fifth[0].k_begin, 56);
  EXPECT_EQ(fifth[0].k_end, 112);
  EXPECT_TRUE(thin.contributes_to(5, 1));
  EXPECT_EQ(thin.contributors_end(4, 1), 8);
}

// even_shares() names the even splits, whoever built them, and nothing else: whole tiles, the hybrid's split last
// round, and splits over workers that are not a multiple of the tiles (shares that straddle two tiles) give 0.
TEST(FewTiles, EvenSharesOnlyForEvenSplits) {
  EXPECT_EQ(StreamKSchedule::make_even_split(22, 224, 66).even_shares(), 3);
  EXPECT_EQ((StreamKSchedule{22, 224, 66, 0}).even_shares(), 3);  // a split over 3 × 22 workers is one too
  EXPECT_EQ((StreamKSchedule{32, 224, 66, 0}).even_shares(), 0);  // 66 workers on 32 tiles: shares straddle tiles
  EXPECT_EQ((StreamKSchedule{32, 64, 32, 32}).even_shares(), 0);  // whole tiles, one a worker
  EXPECT_EQ((StreamKSchedule{32, 64, 64, 32}).even_shares(), 0);  // whole tiles on half the workers
  EXPECT_EQ(StreamKSchedule::make(1024, 128, 66).even_shares(), 0);  // the hybrid: whole rounds, the last split
  EXPECT_TRUE(StreamKSchedule::make(1024, 128, 66).splits());
  EXPECT_EQ((StreamKSchedule{0, 64, 66, 0}).even_shares(), 0);
}

// The slices of an evenly split tile's 8-column chunks: disjoint, in order, covering every chunk, sizes within one.
TEST(FewTiles, EvenShareSlicesCoverTheTileOnce) {
  for (int chunks : {16, 24, 32})
    for (int shares = 2; shares <= 40; ++shares) {
      SCOPED_TRACE(testing::Message() << chunks << " chunks, " << shares << " shares");
      int next = 0;
      for (int share = 0; share < shares; ++share) {
        const ChunkSlice slice = even_share_slice(share, shares, chunks);
        EXPECT_EQ(slice.begin, next);
        EXPECT_GE(slice.end - slice.begin, chunks / shares);
        EXPECT_LE(slice.end - slice.begin, (chunks + shares - 1) / shares);
        next = slice.end;
      }
      EXPECT_EQ(next, chunks);
    }
  // By hand: 24 chunks (a 192-wide tile) in 5 shares: 4, 5, 5, 5, 5 chunks.
  EXPECT_EQ(even_share_slice(0, 5, 24).end, 4);
  EXPECT_EQ(even_share_slice(1, 5, 24).begin, 4);
  EXPECT_EQ(even_share_slice(1, 5, 24).end, 9);
  EXPECT_EQ(even_share_slice(4, 5, 24).begin, 19);
}

// The cost model's figures, worked by hand: split_blocks(T, k, W) = 1.1 · T · k / W + 24 + 5 · W / T for 1024-cycle
// k blocks; for 512-cycle ones the fixed part is 48 blocks.
TEST(FewTiles, SplitCostModel) {
  EXPECT_DOUBLE_EQ(StreamKSchedule::split_blocks(32, 224, 66), 1.1 * 32 * 224 / 66 + 24 + 5.0 * 66 / 32);
  EXPECT_NEAR(StreamKSchedule::split_blocks(8, 64, 32), 17.6 + 24 + 20, 1e-12);
  EXPECT_NEAR(StreamKSchedule::split_blocks(8, 64, 32, 512), 17.6 + 48 + 20, 1e-12);
}

// Pinned on shapes of the model presets, on 66 clusters.
TEST(FewTiles, PolicyOnFewTileShapes) {
  // 512 × 4096 × 14336 in 2 × 1 clusters: 2 × 16 = 32 cluster tiles of 224 k blocks. 1.1 · 32 · 224 / W + 24 +
  // 5 W / 32 falls all the way to W = 66 (119.5 + 24 + 10.3 = 154 k blocks against 224 whole): 108 or 109 k blocks
  // each. Tile 0: worker 0 has k 0..107, worker 1 108..216 (⌊2 · 7168 / 66⌋ = 217), worker 2 217..223; the owner
  // adds worker 1's partial, then worker 2's.
  const StreamKSchedule mlp = StreamKSchedule::make_few_tiles(32, 224, 66);
  EXPECT_EQ(mlp.workers, 66);
  EXPECT_EQ(mlp.whole_tiles, 0);
  EXPECT_EQ(mlp.first(0).k_end, 108);
  EXPECT_EQ(mlp.contributors_end(0, 0), 3);
  EXPECT_EQ(mlp.first(1).k_begin, 108);
  EXPECT_EQ(mlp.first(1).k_end, 217);
  EXPECT_EQ(mlp.first(2).k_begin, 217);
  EXPECT_EQ(mlp.first(2).k_end, 224);
  EXPECT_EQ(mlp.next(2, mlp.first(2)).tile, 1);  // worker 2 then owns tile 1's head, 0..100 (325 - 224 = 101)
  EXPECT_EQ(mlp.next(2, mlp.first(2)).k_end, 101);
  // 8 cluster tiles of 64 k blocks (128 × 256 tiles at 128 × 4096 × 4096, 1 × 2 clusters). 563.2 / W + 24 + 5 W / 8
  // is least at W = √(563.2 · 8 / 5) = 30.02: 29 gives 19.42 + 24 + 18.13 = 61.55, 30 gives 18.77 + 24 + 18.75 =
  // 61.52, 31 gives 18.17 + 24 + 19.38 = 61.54.
  EXPECT_EQ(StreamKSchedule::make_few_tiles(8, 64, 66).workers, 30);
  // 2048³: 64 cluster tiles of 32 k blocks on 66 clusters: a split (34.1 + 24 + 5.2 at best) loses to whole tiles
  // (32).
  EXPECT_FALSE(StreamKSchedule::make_few_tiles(64, 32, 66).splits());
  EXPECT_EQ(StreamKSchedule::make_few_tiles(64, 32, 66).workers, 64);
  // 1024³: 16 tiles of 16 k blocks: whole (a split costs 24 k blocks before any gain).
  EXPECT_FALSE(StreamKSchedule::make_few_tiles(16, 16, 66).splits());
  // 128 × 57344 × 8192 in 1 × 2 clusters: 112 cluster tiles, more than 66: kernel 13's policy (two rounds, 46 left
  // over, 20 idle clusters for 128 k blocks is 38.8 each, over 32: the last round split).
  EXPECT_EQ(StreamKSchedule::make_few_tiles(112, 128, 66).whole_tiles, 66);
  // One k block a tile (K ≤ 64): nothing to split, one worker per tile.
  EXPECT_FALSE(StreamKSchedule::make_few_tiles(30, 1, 66).splits());
  EXPECT_EQ(StreamKSchedule::make_few_tiles(30, 1, 66).workers, 30);
}

TEST(FewTiles, ClusterAlongNOnlyWhereItComputesFewerTiles) {
  EXPECT_TRUE(few_tiles_cluster_along_n(128, 4096));    // 16 CTA tiles along N against 32 with a wasted row
  EXPECT_FALSE(few_tiles_cluster_along_n(256, 4096));   // 32 either way: kernel 13's 2 × 1
  EXPECT_TRUE(few_tiles_cluster_along_n(384, 4096));    // 3 × 16 = 48 against 4 × 16 = 64
  EXPECT_TRUE(few_tiles_cluster_along_n(100, 768));     // 1 × 4 = 4 (3 tiles rounded to 4) against 2 × 3 = 6
  EXPECT_FALSE(few_tiles_cluster_along_n(128, 256));    // 1 × 2 = 2 against 2 × 1 = 2: a tie stays 2 × 1
  EXPECT_FALSE(few_tiles_cluster_along_n(8192, 8192));  // no waste either way
  EXPECT_TRUE(few_tiles_cluster_along_n(384, 2816));    // 3 × 12 = 36 against 4 × 11 = 44
  EXPECT_EQ(cluster_cta_tiles(384, 2816, 1, 2), 36);
  EXPECT_EQ(cluster_cta_tiles(384, 2816, 2, 1), 44);
  // 65535 tile rows (odd) and 2 columns: 131070 against 131072, along N; with 65537 rows a 1 × 2 cluster's row
  // coordinate would not fit the tile table's 16 bits: 2 × 1, though it computes two tiles more.
  EXPECT_TRUE(few_tiles_cluster_along_n(65535 * 128, 512));
  EXPECT_FALSE(few_tiles_cluster_along_n(65537 * 128, 512));
}

// Which cluster orientation kernel 15 takes where the tiles are many: by the rounds its schedule makes, not by the CTA
// tiles it computes alone. 640 × 13824 × 5120 (80 k blocks, 5 tile rows, 54 columns of 256): 1 × 2 clusters compute
// 5 × 54 = 270 CTA tiles, 135 cluster tiles, 2 rounds on 66 clusters and 3 left over, too few k blocks (240) to split
// over 66 workers (the policy wants 4 each): a third whole round, 240 k blocks a worker. 2 × 1 clusters compute 6 × 54
// (a row outside C): 162 cluster tiles, 2 rounds and 30 split over all 66, 160 + 2400 / 66 + 24 = 220.4 k blocks.
TEST(FewTiles, ClusterOrientationByTheScheduleWhereTilesAreMany) {
  const StreamKSchedule along_n = StreamKSchedule::make_few_tiles(135, 80, 66);
  EXPECT_FALSE(along_n.splits());
  EXPECT_DOUBLE_EQ(round_schedule_blocks(along_n, 1024), 240);
  const StreamKSchedule along_m = StreamKSchedule::make_few_tiles(162, 80, 66);
  EXPECT_TRUE(along_m.splits());
  EXPECT_DOUBLE_EQ(round_schedule_blocks(along_m, 1024), 160 + 2400.0 / 66 + 24);
  const FewTilesPlan plan = plan_few_tiles(640, 13824, 5120, 66);
  EXPECT_EQ(plan.block_n, 256);
  EXPECT_FALSE(plan.cluster_along_n());
  EXPECT_EQ(plan.cluster_tiles, 162);
  // 128 tokens through a wide layer: 2 × 1 clusters would compute a row of zeros below C in every cluster (112
  // cluster tiles, two rounds, the second split), 1 × 2 clusters 56 tiles in one whole round.
  const FewTilesPlan tokens = plan_few_tiles(128, 28672, 4096, 66);
  EXPECT_TRUE(tokens.cluster_along_n());
  EXPECT_EQ(tokens.cluster_tiles, 56);
}

// Even splits with shares of 20-31 k blocks: candidates of a second pass, whose pick is taken only where its cycles are
// at most 0.95 of the first pass's (shares of 32 or more). A k block: 64 × 128 1.87 · 256 = 478.72 cycles, 128 × 128
// 1.19 · 512 = 609.28; an even split 1.25 · k / S k blocks, 4800 cycles for each of the S − 1 partials a 128-column
// owner adds, and one 3300-cycle boundary.
TEST(FewTiles, ShortSharesWhereFivePerCentAhead) {
  // 700 × 896 × 4864, 76 k blocks. First pass: 64 × 128 tiles, 11 rows → 6 cluster rows × 7 = 42 cluster tiles whole
  // on 42 clusters, 76 · 478.72 + 3300 = 39682.72. 128 × 128 tiles: 6 rows → 3 × 7 = 21 cluster tiles, ⌊66 / 21⌋ = 3
  // shares of 25 (under 32): 1.25 · 76 / 3 · 609.28 + 2 · 4800 + 3300 = 32193.87, 0.81 of the first: taken.
  const FewTilesPlan first = plan_few_tiles_weighing(700, 896, 4864, 66, -1, 0, {}, kLongCandidateShareBlocks);
  EXPECT_EQ(first.block_m, 64);
  EXPECT_EQ(first.cluster_tiles, 42);
  EXPECT_FALSE(first.schedule.splits());
  EXPECT_NEAR(first.cycles, 76 * 478.72 + 3300, 1e-6);
  const FewTilesPlan plan = plan_few_tiles(700, 896, 4864, 66);
  EXPECT_EQ(plan.block_m, 128);
  EXPECT_EQ(plan.block_n, 128);
  EXPECT_FALSE(plan.cluster_along_n());
  EXPECT_EQ(plan.cluster_tiles, 21);
  EXPECT_EQ(plan.schedule.even_shares(), 3);
  EXPECT_NEAR(plan.cycles, 1.25 * 76 / 3 * 609.28 + 2 * 4800 + 3300, 1e-6);
  // 192 × 2048 × K: first pass 64 × 128 tiles in 1 × 2 clusters, 3 × 8 = 24 cluster tiles in ⌊66 / 24⌋ = 2 shares;
  // second 128 × 128 in 2 × 1, 1 × 16 = 16 cluster tiles in 4 shares, under 32 k blocks each where K ≤ 8128.
  // K = 6144 (96 k blocks): 1.25 · 48 · 478.72 + 4800 + 3300 = 36823.2 against 1.25 · 24 · 609.28 + 3 · 4800 + 3300 =
  // 35978.4, 0.977: the first pass's pick stays.
  const FewTilesPlan stays = plan_few_tiles(192, 2048, 6144, 66);
  EXPECT_EQ(stays.block_m, 64);
  EXPECT_TRUE(stays.cluster_along_n());
  EXPECT_EQ(stays.schedule.even_shares(), 2);
  EXPECT_NEAR(stays.cycles, 1.25 * 48 * 478.72 + 4800 + 3300, 1e-6);
  EXPECT_NEAR(plan_few_tiles_weighing(192, 2048, 6144, 66, -1, 0, {}, kShortCandidateShareBlocks).cycles,
              1.25 * 24 * 609.28 + 3 * 4800 + 3300, 1e-6);
  // K = 7680 (120 k blocks): 44004 against 1.25 · 30 · 609.28 + 3 · 4800 + 3300 = 40548, 0.921: four shares of 30.
  const FewTilesPlan moves = plan_few_tiles(192, 2048, 7680, 66);
  EXPECT_EQ(moves.block_m, 128);
  EXPECT_EQ(moves.cluster_tiles, 16);
  EXPECT_EQ(moves.schedule.even_shares(), 4);
  EXPECT_NEAR(moves.cycles, 1.25 * 30 * 609.28 + 3 * 4800 + 3300, 1e-6);
}

// Two shares of 128 × 192 or 128 × 256 tiles charged 1.1 a k block (a third pass), taken only where each share keeps 64
// k blocks, the pick before runs whole tiles and the model puts the pair 5 % ahead. A 128 × 192 k block: 1.04 · 768 =
// 798.72 cycles, 1.25 times that in pairs off the lines; a 128 × 128 one in 2 × 2 clusters 1.06 · 609.28.
TEST(FewTiles, TwoLongSharesOfWideTilesOnlyAgainstWholeTiles) {
  // 968 × 1536 × 12296 (off the lines), 193 k blocks. Whole 128 × 128 tiles in 2 × 2 clusters: 4 × 6 = 24 cluster tiles
  // on 24 of 30, 193 · 1.06 · 609.28 + 3300 = 127946.52. 128 × 192 in 2 × 1: 4 × 8 = 32 cluster tiles, ⌊66 / 32⌋ = 2
  // shares of 96-97: 1.1 · 193 / 2 · 1.25 · 798.72 + 1.5 · 4800 + 3300 = 116480.16, 0.91 of it: taken.
  const FewTilesPlan before = plan_few_tiles_weighing(968, 1536, 12296, 66, -1, 30, {}, kLongCandidateShareBlocks);
  EXPECT_TRUE(before.quad_clusters());
  EXPECT_EQ(before.block_n, 128);
  EXPECT_FALSE(before.schedule.splits());
  EXPECT_NEAR(before.cycles, 193 * 1.06 * 609.28 + 3300, 1e-6);
  const FewTilesPlan pair = plan_few_tiles(968, 1536, 12296, 66, -1, 30);
  EXPECT_EQ(pair.block_m, 128);
  EXPECT_EQ(pair.block_n, 192);
  EXPECT_FALSE(pair.cluster_along_n());
  EXPECT_FALSE(pair.quad_clusters());
  EXPECT_EQ(pair.cluster_tiles, 32);
  EXPECT_EQ(pair.schedule.even_shares(), 2);
  EXPECT_NEAR(pair.cycles, 1.1 * 193 / 2 * 1.25 * 798.72 + 1.5 * 4800 + 3300, 1e-6);
  // 152 × 6072 × 16184, 253 k blocks: 128 × 192 tiles split over all 30 clusters of four (16 cluster tiles). Two shares
  // in 2 × 1 clusters are 0.93 of it by the third pass (section 30 measured them 6-7 % slower), but the pick before is
  // a split: it stays.
  const FewTilesPlan split = plan_few_tiles(152, 6072, 16184, 66, -1, 30);
  EXPECT_TRUE(split.quad_clusters());
  EXPECT_EQ(split.schedule.even_shares(), 0);
  EXPECT_TRUE(split.schedule.splits());
  EXPECT_EQ(split.schedule.workers, 30);
  // 256 × 6144 × 4096, 64 k blocks: whole 128 × 96 tiles (64 cluster tiles), 64 · 1.41 · 384 + 3300 = 37952.16; 128 ×
  // 192 in two shares of 32 would be 1.1 · 32 · 798.72 + 1.5 · 4800 + 3300 = 38614.94, not 5 % ahead (and shares under
  // 64 k blocks): the whole tiles stay. Before 128 × 96 tiles the pick was whole 64 × 192 ones, 64 · 1.56 · 384 + 3300.
  const FewTilesPlan third =
      plan_few_tiles_weighing(256, 6144, 4096, 66, -1, 0, {}, kLongCandidateShareBlocks, kTwoSharesSlowdown);
  EXPECT_NEAR(third.cycles, 1.1 * 32 * 798.72 + 1.5 * 4800 + 3300, 1e-6);
  const FewTilesPlan short_shares = plan_few_tiles(256, 6144, 4096, 66);
  EXPECT_EQ(short_shares.block_m, 128);
  EXPECT_EQ(short_shares.block_n, 96);
  EXPECT_FALSE(short_shares.schedule.splits());
  EXPECT_NEAR(short_shares.cycles, 64 * 1.41 * 384 + 3300, 1e-6);
  const FewTilesPlan one_consumer = plan_few_tiles(256, 6144, 4096, 66, 3);
  EXPECT_NEAR(one_consumer.cycles, 64 * 1.56 * 384 + 3300, 1e-6);
}

// Narrower tiles where kernel 13's 128 × 256 tiles (2 × 1 clusters) make fewer than two rounds; from two to four, only
// 128-row ones in 2 × 1 clusters and whole rounds; from four, kernel 15 is kernel 13. And every plan's tiles cover C:
// its cluster tiles are its tiling's, counted here.
TEST(FewTiles, NarrowTilesBelowTwoRoundsOfWideOnesOrInWholeRounds) {
  int narrow = 0, narrow_in_rounds = 0;
  for (int m : {64, 128, 200, 256, 384, 512, 640, 1024, 2048, 3072, 4096, 8192})
    for (int n : {1024, 2816, 3072, 4096, 6144, 8192, 9216, 11008, 14336, 28672, 37888, 57344})
      for (int k : {1024, 3072, 4096, 14336}) {
        const FewTilesPlan plan = plan_few_tiles(m, n, k, 66);
        SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k);
        const long long wide_cluster_tiles = cluster_cta_tiles(m, n, 2, 1) / 2;
        if (plan.narrow()) {
          ++narrow;
          if (wide_cluster_tiles >= 2 * 66) {
            ++narrow_in_rounds;
            EXPECT_LT(wide_cluster_tiles, 4 * 66);
            EXPECT_EQ(plan.block_m, 128);
            EXPECT_FALSE(plan.cluster_along_n());
            EXPECT_FALSE(plan.schedule.splits());
          }
        }
        const int cluster_m = plan.cluster_along_n() ? 1 : 2;
        EXPECT_EQ(plan.cluster_tiles * 2LL,
                  cluster_cta_tiles(m, n, cluster_m, 3 - cluster_m, plan.block_n, plan.block_m));
        EXPECT_EQ(plan.schedule.tiles, plan.cluster_tiles);
        EXPECT_EQ(plan.k_blocks, (k + 63) / 64);
      }
  EXPECT_GT(narrow, 20) << "the sweep must reach the narrow tilings";
  EXPECT_GT(narrow_in_rounds, 2) << "and the narrow tilings in rounds";
}

// Between two and four rounds of 128 × 256 cluster tiles, a narrow tiling in whole rounds where the model puts it 6 %
// ahead (kNarrowRoundsMargin), 3300 cycles a round, a 128 × 192 k block 798.72 cycles (1.04 × 768).
TEST(FewTiles, NarrowTilesInWholeRoundsWhereSixPerCentAhead) {
  // 3072³, 48 k blocks: 12 × 12 = 144 cluster tiles of 128 × 256, two rounds and the last 12 split over 66 clusters,
  // (96 + 576 / 66 + 24) · 1024 + 3 · 3300 = 141716.7; 12 × 16 = 192 of 128 × 192, three whole rounds (the last 60:
  // 6 idle clusters of 48 k blocks are below the stream-K policy's threshold) on ⌈192 / 3⌉ = 64 clusters,
  // 3 · 48 · 798.72 + 3 · 3300 = 124915.68, times 1.06 = 132410.6. 128 × 192.
  const FewTilesPlan cube = plan_few_tiles(3072, 3072, 3072, 66);
  EXPECT_EQ(cube.block_m, 128);
  EXPECT_EQ(cube.block_n, 192);
  EXPECT_FALSE(cube.cluster_along_n());
  EXPECT_EQ(cube.cluster_tiles, 192);
  EXPECT_EQ(cube.schedule.workers, 64);
  EXPECT_FALSE(cube.schedule.splits());
  EXPECT_NEAR(cube.schedule_cycles, 3 * 48 * 798.72 + 3 * 3300, 1e-6);
  // 3576 × 2680 × 16072, 252 k blocks: 14 × 11 = 154 cluster tiles of 128 × 256, two rounds and 22 split,
  // (504 + 84 + 24) · 1024 + 3 · 3300 = 636588; 14 × 14 = 196 of 128 × 192 in three whole rounds,
  // 3 · 252 · 798.72 + 3 · 3300 = 613732.32, 3.6 % ahead, times 1.06 = 650556.3. 128 × 256.
  const FewTilesPlan margin = plan_few_tiles(3576, 2680, 16072, 66);
  EXPECT_EQ(margin.block_n, 256);
  EXPECT_EQ(margin.schedule.split_tiles(), 22);
  EXPECT_NEAR(margin.schedule_cycles, 612 * 1024 + 3 * 3300, 1e-6);
  // 808 × 9616 × 8992, 141 k blocks: 4 × 38 = 152 cluster tiles of 128 × 256, two rounds and 20 split. Its 128 × 192
  // tiles (4 × 51 = 204) would split their last 6, its 128 × 128 ones (4 × 76 = 304) their last 40: no candidates.
  const FewTilesPlan split = plan_few_tiles(808, 9616, 8992, 66);
  EXPECT_EQ(split.block_n, 256);
  EXPECT_FALSE(split.cluster_along_n());
  EXPECT_EQ(split.schedule.split_tiles(), 20);
}

// One tiling forced (what measuring the tilings against each other takes): wherever it fits, even where the plan
// would not take it. 2048³ in 128 × 128 tiles: 16 × 16 CTA tiles, 128 cluster tiles, two whole rounds on 64 clusters;
// in 64 × 192 tiles: 32 rows × 11 columns, 176 cluster tiles, three rounds (the last 44 whole: 22 idle clusters for
// 32 k blocks is below the stream-K policy's threshold) on 59 clusters.
TEST(FewTiles, OneTilingForced) {
  const FewTilesPlan narrow = plan_few_tiles(2048, 2048, 2048, 66, 2);
  EXPECT_EQ(narrow.block_m, 128);
  EXPECT_EQ(narrow.block_n, 128);
  EXPECT_EQ(narrow.cluster_tiles, 128);
  EXPECT_EQ(narrow.schedule.workers, 64);
  EXPECT_FALSE(narrow.schedule.splits());
  const FewTilesPlan short_rows = plan_few_tiles(2048, 2048, 2048, 66, 3);
  EXPECT_EQ(short_rows.block_m, 64);
  EXPECT_EQ(short_rows.block_n, 192);
  EXPECT_EQ(short_rows.cluster_tiles, 176);
  EXPECT_EQ(short_rows.schedule.workers, 59);
  // At 4096³ (four whole rounds of 128 × 256 tiles) the plan itself takes no other tiling.
  EXPECT_FALSE(plan_few_tiles(4096, 4096, 4096, 66).narrow());
  EXPECT_TRUE(plan_few_tiles(4096, 4096, 4096, 66, 4).narrow());
}

// Rows off the L2's lines (K % 64 != 0): 2 × 2 clusters are costed over the resident clusters of four, each k block
// charged 1.06 times (1.25 in clusters of two), and only where K % 64 != 0, the tiles are few and clusters of four were
// given. 512 × 3840 × 4088, 64 k blocks (4088 = 63.9 · 64): in 128 × 128 tiles 4 × 30 CTA tiles, 2 × 15 = 30 cluster
// tiles of 2 × 2 on 30 clusters of four, one whole round: 64 · 512 · 1.19 · 1.06 + 3300 = 44633.8 cycles; in 2 × 1
// clusters 60 cluster tiles whole on 66, 64 · 512 · 1.19 · 1.25 + 3300 = 52042 (no split pays: even 61 workers need
// 1.1 · 3840 / 61 + 24 · 1024 / 761.6 > 64 k blocks). 128 × 192 in 2 × 2 (2 × 10 = 20 cluster tiles whole):
// 64 · 768 · 1.04 · 1.06 + 3300 = 57485.6; 128 × 256 in 2 × 2 (2 × 8 = 16 whole): 64 · 1024 · 1.06 + 3300 = 72766.
TEST(FewTiles, QuadClustersWhereRowsAreOffTheLines) {
  const FewTilesPlan quad = plan_few_tiles(512, 3840, 4088, 66, -1, 30);
  EXPECT_EQ(quad.block_m, 128);
  EXPECT_EQ(quad.block_n, 128);
  EXPECT_TRUE(quad.quad_clusters());
  EXPECT_EQ(quad.cluster_tiles, 30);
  EXPECT_EQ(quad.resident_clusters, 30);
  EXPECT_EQ(quad.schedule.workers, 30);
  EXPECT_FALSE(quad.schedule.splits());
  EXPECT_DOUBLE_EQ(quad.pair_slowdown, 1.25);
  EXPECT_NEAR(quad.schedule_cycles, 64 * 512 * 1.19 * 1.06 + 3300, 1e-6);
  // Without clusters of four the plan is what it was: 2 × 1, 60 cluster tiles whole, nothing charged for the lines.
  const FewTilesPlan pairs = plan_few_tiles(512, 3840, 4088, 66);
  EXPECT_FALSE(pairs.quad_clusters());
  EXPECT_FALSE(pairs.cluster_along_n());
  EXPECT_EQ(pairs.cluster_tiles, 60);
  EXPECT_EQ(pairs.resident_clusters, 66);
  EXPECT_DOUBLE_EQ(pairs.pair_slowdown, 1.0);
  EXPECT_NEAR(pairs.schedule_cycles, 64 * 512 * 1.19 + 3300, 1e-6);
  // With K a multiple of 64 the rows are on the lines: no 2 × 2 candidate, whatever clusters of four there are.
  const FewTilesPlan aligned = plan_few_tiles(512, 3840, 4096, 66, -1, 30);
  EXPECT_FALSE(aligned.quad_clusters());
  EXPECT_EQ(aligned.cluster_tiles, 60);
  EXPECT_DOUBLE_EQ(aligned.pair_slowdown, 1.0);
  // Many tiles (8192 × 8192 × 4088: 32 × 32 CTA tiles of 128 × 256, 512 cluster tiles): kernel 13's plan, in pairs.
  const FewTilesPlan many = plan_few_tiles(8192, 8192, 4088, 66, -1, 30);
  EXPECT_FALSE(many.quad_clusters());
  EXPECT_FALSE(many.narrow());
  EXPECT_DOUBLE_EQ(many.pair_slowdown, 1.0);
}

// The L2's fills for A and B: 128 bytes where K % 64 != 0 (each row starts K · 2 bytes after the last, so only where K
// is a multiple of 64 do all start on 128-byte lines), 256 on the lines; whatever the tiles.
TEST(FewTiles, OperandFillsOf128BytesOffTheLines) {
  EXPECT_EQ(operand_fill_bytes(4096), 256);
  EXPECT_EQ(operand_fill_bytes(4032), 256);
  EXPECT_EQ(operand_fill_bytes(64), 256);
  EXPECT_EQ(operand_fill_bytes(4088), 128);  // K % 16 == 8
  EXPECT_EQ(operand_fill_bytes(4080), 128);  // K % 16 == 0, K % 64 == 48
  EXPECT_EQ(operand_fill_bytes(4128), 128);  // K % 64 == 32
  EXPECT_EQ(operand_fill_bytes(8), 128);
}

// A last round of a few tiles split over many clusters of four is charged its owners' partials (5 k blocks each).
// 968 × 3856 × 24400, 382 k blocks: 128 × 256 tiles in 2 × 2 clusters, 4 × 8 = 32 cluster tiles on 30, a whole round
// and 2 tiles split over 30 clusters (30 / 2 = 15 partials charged an owner): 382 + 2 · 382 / 30 + 24 · 1024 / 1085.44
// + 5 · 15 = 505.1 k blocks of 1024 · 1.06 cycles, 555 k cycles with two boundaries, where without the partials it
// would be 473 k. In 2 × 1 clusters 64 cluster tiles whole on 66: 382 · 1024 · 1.25 + 3300 = 492260. 2 tiles over 30
// clusters measured 16 % slower than the whole round in pairs on an H100 (docs/log/15_few_tiles.md, section 17).
TEST(FewTiles, QuadClustersChargeAFewTilesSplitOverMany) {
  const FewTilesPlan plan = plan_few_tiles(968, 3856, 24400, 66, -1, 30);
  EXPECT_FALSE(plan.quad_clusters());
  EXPECT_EQ(plan.block_n, 256);
  EXPECT_EQ(plan.cluster_tiles, 64);
  EXPECT_FALSE(plan.schedule.splits());
  EXPECT_NEAR(plan.schedule_cycles, 382 * 1024 * 1.25 + 3300, 1e-6);
  const StreamKSchedule quad = StreamKSchedule::make_few_tiles(32, 382, 30, 1024 * 1.06);
  EXPECT_EQ(quad.split_tiles(), 2);
  EXPECT_NEAR(round_schedule_blocks(quad, 1024 * 1.06, true) - round_schedule_blocks(quad, 1024 * 1.06), 75, 1e-9);
}

// The DRAM (common/few_tiles.h): a split over every cluster reads from DRAM each operand that outgrows half the L2
// once for each cluster that needs it, one that fits once. 1032 × 1872 × 20928 in 128 × 192 tiles, 1 × 2 clusters:
// 9 tile rows (9 cluster rows), 10 tile columns (5 cluster columns); A is 1032 · 20928 · 2 = 43195392 bytes, B
// 1872 · 20928 · 2 = 78354432, both over 30 MiB: 5 · A + 9 · B = 921166848 bytes. With a 256 MiB L2 both fit: A + B.
// 208 × 8608 × 12160, 2 × 1 clusters of 128 × 192: A (5058560 bytes) fits in 30 MiB, B (209346560) is read by the one
// cluster row: A + B either way.
TEST(FewTiles, SplitDramBytesByWhatItReadsAgain) {
  FewTilesPlan wide_k;
  wide_k.block_m = 128;
  wide_k.block_n = 192;
  wide_k.cluster_m = 1;
  wide_k.cluster_n = 2;
  const double mib = 1024.0 * 1024.0;
  EXPECT_DOUBLE_EQ(split_dram_bytes(wide_k, 1032, 1872, 20928, 60 * mib), 5.0 * 43195392 + 9.0 * 78354432);
  EXPECT_DOUBLE_EQ(split_dram_bytes(wide_k, 1032, 1872, 20928, 256 * mib), 43195392.0 + 78354432.0);
  FewTilesPlan one_row = wide_k;
  one_row.cluster_m = 2;
  one_row.cluster_n = 1;
  EXPECT_DOUBLE_EQ(split_dram_bytes(one_row, 208, 8608, 12160, 60 * mib), 5058560.0 + 209346560.0);
  // No L2 given: every operand counted as read again by each cluster that needs it (45 cluster columns for A).
  EXPECT_DOUBLE_EQ(split_dram_bytes(one_row, 208, 8608, 12160, 0), 45.0 * 5058560 + 209346560.0);
}

// Whole tiles replace a split over every cluster where they are 0.88 of its DRAM time or less, K % 16 == 0 (H200: 2310
// bytes an SM cycle, 60 MiB of L2). 1032 × 1872 × 20928 (327 k blocks): the plan's pick is 128 × 192 tiles in 1 × 2
// clusters, 45 cluster tiles, split over all 66 clusters by compute; its DRAM bytes (above) take 921166848 / 2310 =
// 398773 cycles, whole tiles 327 · 768 · 1.04 + 3300 = 264481 ≤ 0.88 · 398773: whole, 45 clusters, those cycles.
TEST(FewTiles, WholeTilesWhereASplitWaitsOnTheDram) {
  const FewTilesPlan compute_only = plan_few_tiles(1032, 1872, 20928, 66);
  EXPECT_EQ(compute_only.block_n, 192);
  EXPECT_TRUE(compute_only.cluster_along_n());
  EXPECT_EQ(compute_only.cluster_tiles, 45);
  EXPECT_TRUE(compute_only.schedule.splits());
  EXPECT_EQ(compute_only.schedule.workers, 66);
  EXPECT_FALSE(compute_only.whole_over_dram);
  const FewTilesPlan plan = plan_few_tiles(1032, 1872, 20928, 66, -1, 0, kH200Memory);
  EXPECT_EQ(plan.block_n, 192);
  EXPECT_TRUE(plan.cluster_along_n());
  EXPECT_FALSE(plan.schedule.splits());
  EXPECT_EQ(plan.schedule.workers, 45);
  EXPECT_EQ(plan.schedule.whole_tiles, 45);
  EXPECT_TRUE(plan.whole_over_dram);
  EXPECT_NEAR(plan.cycles, 327 * 768 * 1.04 + 3300, 1e-6);
  check_schedule(plan.schedule);
  // The tilings are compared by compute as before: the split's cost is what the pick was chosen by.
  EXPECT_DOUBLE_EQ(plan.schedule_cycles, compute_only.schedule_cycles);
}

// Where the split does not wait on the DRAM it stays: 192 × 8608 × 12160 (one cluster row, A in the L2) reads
// 4669440 + 209346560 bytes, 92647 cycles, under its compute (208 rows read as much, but there a fitted width's last
// tile is more than half full, and the plan takes 60 whole 128 × 144 cluster tiles). With K % 16 == 8 (1032 × 1872 ×
// 20936: rows off the 32-byte sectors, where whole tiles measured as DRAM-bound as the split) no whole tiles replace
// it, whatever its DRAM time. And without the DRAM's rate nothing is weighed.
TEST(FewTiles, SplitKeptWhereTheDramDoesNotDecide) {
  const FewTilesPlan one_row = plan_few_tiles(192, 8608, 12160, 66, -1, 0, kH200Memory);
  EXPECT_EQ(one_row.block_n, 192);
  EXPECT_EQ(one_row.cluster_tiles, 45);
  EXPECT_TRUE(one_row.schedule.splits());
  EXPECT_FALSE(one_row.whole_over_dram);
  EXPECT_DOUBLE_EQ(one_row.cycles, plan_few_tiles(192, 8608, 12160, 66).cycles);
  const FewTilesPlan off_sectors = plan_few_tiles(1032, 1872, 20936, 66, -1, 0, kH200Memory);
  EXPECT_FALSE(rows_on_sectors(20936));
  EXPECT_TRUE(off_sectors.schedule.splits());
  EXPECT_FALSE(off_sectors.whole_over_dram);
  const FewTilesPlan no_rate = plan_few_tiles(1032, 1872, 20928, 66, -1, 0, {0, 60.0 * 1024 * 1024});
  EXPECT_TRUE(no_rate.schedule.splits());
}

// Fitted widths (128 × 176, 160, 144; 96 below): one round of whole tiles on more than half the clusters, in clusters
// of two, with M's last 128-row tile more than half full, where the model puts them 5 % ahead; in 1 × 2 clusters each k
// block charged 1.10 more; against a split over every cluster that stays, at the larger of its compute and its DRAM
// time.
// Figures by hand from the constants (k blocks of 576 · 1.20 = 691.2 cycles for 144, 640 · 1.155 = 739.2 for 160,
// 704 · 1.125 = 792 for 176; 768 · 1.04 = 798.72 for 128 × 192; 3300 a tile boundary).
TEST(FewTiles, FittedWidthsMakeOneRound) {
  // 1024 × 2304 × 2048, 32 k blocks: 128 × 192 makes 4 · 12 = 48 cluster tiles in 2 × 1 clusters, 32 · 798.72 + 3300 =
  // 28859.04; 128 × 144 makes 4 · 16 = 64, 32 · 691.2 + 3300 = 25418.4, times 1.05 = 26689.32: ahead.
  const FewTilesPlan fills = plan_few_tiles(1024, 2304, 2048, 66, -1, 0, kH200Memory);
  EXPECT_EQ(fills.block_m, 128);
  EXPECT_EQ(fills.block_n, 144);
  EXPECT_EQ(fills.cluster_m, 2);
  EXPECT_EQ(fills.cluster_tiles, 64);
  EXPECT_EQ(fills.schedule.workers, 64);
  EXPECT_EQ(fills.schedule.whole_tiles, 64);
  EXPECT_NEAR(fills.cycles, 32 * 691.2 + 3300, 1e-6);
  check_schedule(fills.schedule);
  // 640 × 3584 × 18944, 296 k blocks: the pick without fitted widths is 35 cluster tiles of 128 × 256 in 1 × 2
  // clusters split over all 66, by compute ~214k cycles; its DRAM bytes, A (24248320, under 30 MiB) once and B
  // (135790592) by each of 5 cluster rows, take 703201280 / 2310 = 304416 cycles. 128 × 144 in 1 × 2 clusters: 5 rows ×
  // 13 cluster columns (25 tiles across) = 65, 296 · 691.2 · 1.10 + 3300 = 228354.72, times 1.05 = 239772.5: ahead of
  // the DRAM time, not of the compute.
  const FewTilesPlan long_k = plan_few_tiles(640, 3584, 18944, 66, -1, 0, kH200Memory);
  EXPECT_EQ(long_k.block_n, 144);
  EXPECT_TRUE(long_k.cluster_along_n());
  EXPECT_EQ(long_k.cluster_tiles, 65);
  EXPECT_FALSE(long_k.schedule.splits());
  EXPECT_NEAR(long_k.cycles, 296 * 691.2 * 1.10 + 3300, 1e-6);
  const FewTilesPlan compute_only = plan_few_tiles(640, 3584, 18944, 66);  // no DRAM rate: the split stays
  EXPECT_EQ(compute_only.block_n, 256);
  EXPECT_TRUE(compute_only.schedule.splits());
  // 181 × 9496 × 15808: the last 128-row tile holds 53 rows, so no fitted width.
  const FewTilesPlan ragged = plan_few_tiles(181, 9496, 15808, 66, -1, 0, kH200Memory);
  EXPECT_FALSE(fitted_width(ragged.block_m, ragged.block_n));
  EXPECT_TRUE(fitted_rows_fill(1024));
  EXPECT_TRUE(fitted_rows_fill(193));
  EXPECT_FALSE(fitted_rows_fill(192));
  EXPECT_FALSE(fitted_rows_fill(129));
  // Never in rounds: 2048 × 2304 × 2048 has 8 · 16 = 128 cluster tiles of 144, two rounds; the plan keeps kernel 13's
  // tiles there.
  const FewTilesPlan rounds = plan_few_tiles(2048, 2304, 2048, 66, -1, 0, kH200Memory);
  EXPECT_FALSE(fitted_width(rounds.block_m, rounds.block_n));
  // The tilings' table: the four fitted widths after the five others.
  EXPECT_EQ(kFewTilesTilings, 9);
  for (int index = 0; index < kFewTilesTilings; ++index) {
    const FewTilesTiling tiling = few_tiles_tiling(index);
    EXPECT_EQ(fitted_width(tiling.block_m, tiling.block_n), index >= 5) << index;
  }
  EXPECT_DOUBLE_EQ(few_tiles_tiling(5).block_cycles, 792);
  EXPECT_DOUBLE_EQ(few_tiles_tiling(6).block_cycles, 739.2);
  EXPECT_DOUBLE_EQ(few_tiles_tiling(7).block_cycles, 691.2);
  EXPECT_DOUBLE_EQ(few_tiles_tiling(8).block_cycles, 541.44);  // 128 × 96: 384 · 1.41
}

// 128 × 96 tiles in 2 × 1 clusters only where no CTA's rows lie wholly below M: an even count of 128-row tile rows. 384
// × 3072 × 8000 (125 k blocks), three tile rows: 128 × 96 would be 64 cluster tiles, 125 · 1.41 · 384 + 3300 = 70980,
// times 1.05 = 74529, ahead of whole 64 × 192 tiles (48 cluster tiles, 125 · 1.56 · 384 + 3300 = 78180), but it is no
// candidate there; at 256 × 6144 × 4096 (two tile rows) it is the pick
// (FewTiles.TwoLongSharesOfWideTilesOnlyAgainstWholeTiles).
TEST(FewTiles, NinetySixWideOnlyWhereClusterRowsFill) {
  EXPECT_TRUE(cluster_rows_filled(256, 128));
  EXPECT_TRUE(cluster_rows_filled(129, 128));  // two tile rows, the second with one row
  EXPECT_FALSE(cluster_rows_filled(384, 128));
  EXPECT_FALSE(cluster_rows_filled(352, 128));
  EXPECT_TRUE(cluster_rows_filled(480, 128));
  EXPECT_FALSE(cluster_rows_filled(128, 128));
  for (int index = 0; index < kFewTilesTilings; ++index) {  // the rule is 128 × 96's alone
    const FewTilesTiling tiling = few_tiles_tiling(index);
    EXPECT_EQ(needs_filled_cluster_rows(tiling.block_m, tiling.block_n), index == 8) << index;
  }
  const FewTilesPlan odd = plan_few_tiles(384, 3072, 8000, 66);
  EXPECT_EQ(odd.block_m, 64);
  EXPECT_EQ(odd.block_n, 192);
  EXPECT_EQ(odd.cluster_tiles, 48);
  EXPECT_FALSE(odd.schedule.splits());
  EXPECT_NEAR(odd.cycles, 125 * 1.56 * 384 + 3300, 1e-6);
  EXPECT_EQ(plan_few_tiles(384, 3072, 8000, 66, 8).cluster_tiles, 0);  // 128 × 96 forced: no candidate
  const FewTilesPlan forced = plan_few_tiles(512, 3072, 8000, 66, 8);  // four tile rows: one
  EXPECT_EQ(forced.block_n, 96);
  EXPECT_EQ(forced.cluster_tiles, 2 * 32);
  EXPECT_FALSE(forced.cluster_along_n());
}

// The shapes of the GPU tests gpu_fitted_widths_kernel_15 and gpu_fitted_rows64_kernel_15 (tests/CMakeLists.txt) take
// what they say they take, as kernel 15's launcher plans them (2 × 2 clusters costed only off the lines): each 128-row
// fitted width in 2 × 1 and in 1 × 2 clusters (128 × 96 in 2 × 1 only), 144 and 96 for Cᵀ (on 400000 shapes drawn at
// random, M 150-2100, the plan took 160 and 176 for Cᵀ on none); and each 64-row fitted width, in 2 × 1 clusters.
TEST(FewTiles, FittedWidthTestShapesTakeThem) {
  struct Case {
    int m, n, k, block_m, block_n;
    bool along_n, transposed;
  };
  const Case cases[] = {
      {1733, 1288, 1024, 128, 144, false, false}, {2033, 1264, 720, 128, 160, false, false},
      {630, 3864, 15760, 128, 176, false, false}, {792, 2776, 488, 128, 144, false, true},
      {637, 3576, 14208, 128, 144, true, false},  {634, 4000, 20736, 128, 160, true, false},
      {863, 3032, 24048, 128, 176, true, false},  {242, 5240, 5824, 128, 96, false, false},
      {452, 2568, 6464, 128, 96, false, false},   {263, 4816, 18240, 128, 96, false, true},
      {405, 3304, 16128, 128, 96, false, true},   {128, 4608, 3584, 64, 80, false, false},
      {189, 3048, 3200, 64, 96, false, false},    {350, 2184, 1216, 64, 112, false, false},
      {899, 880, 456, 64, 112, false, false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.m << "x" << c.n << "x" << c.k);
    const FewTilesPlan plan =
        plan_few_tiles_or_transposed(c.m, c.n, c.k, 66, rows_off_lines(c.k) ? 30 : 0, kH200Memory);
    EXPECT_EQ(plan.block_m, c.block_m);
    EXPECT_EQ(plan.block_n, c.block_n);
    EXPECT_EQ(plan.cluster_along_n(), c.along_n);
    EXPECT_FALSE(plan.quad_clusters());
    EXPECT_EQ(plan.transposed, c.transposed);
    EXPECT_FALSE(plan.schedule.splits());
  }
}

// A fitted width's plan as it replaces a pick: one round of whole block_m × block_n tiles in 2 × 1 clusters, a cluster
// tile a cluster, for C, with the pick's cycles (measured in its place, not modelled).
void expect_fitted_round(const FewTilesPlan& plan, const FewTilesPlan& pick, int block_m, int block_n,
                         int cluster_tiles) {
  EXPECT_EQ(plan.block_m, block_m);
  EXPECT_EQ(plan.block_n, block_n);
  EXPECT_EQ(plan.cluster_m, 2);
  EXPECT_EQ(plan.cluster_n, 1);
  EXPECT_FALSE(plan.transposed);
  EXPECT_EQ(plan.cluster_tiles, cluster_tiles);
  EXPECT_EQ(plan.schedule.tiles, cluster_tiles);
  EXPECT_EQ(plan.schedule.workers, cluster_tiles);  // one whole tile a cluster
  EXPECT_EQ(plan.schedule.whole_tiles, cluster_tiles);
  EXPECT_DOUBLE_EQ(plan.cycles, pick.cycles);
  EXPECT_DOUBLE_EQ(plan.schedule_cycles, pick.schedule_cycles);
}

// 64-row fitted widths (with_fitted_rows64_width): where the plan runs one round of whole tiles on fewer clusters than
// resident, one round of whole 64 × 80, 96 or 112 tiles in 2 × 1 clusters, the narrowest whose cluster tiles fit,
// replaces it where they are more, and keeps the replaced pick's cycles. The tile counts are worked by hand: a cluster
// row is two 64-row tiles, so 128 and 256 tokens make one and two of them; 4608 / 80 = 57.6 makes 58 columns, 3072 / 80
// = 38.4 makes 39 (78 cluster tiles over two rows: too many), 3072 / 96 = 32; 3584 needs 112 (45 and 38 columns of 80
// and 96 over two rows are 90 and 76).
TEST(FewTiles, FittedRows64WidthsWhereOneRoundLeavesClustersIdle) {
  EXPECT_EQ(fitted_rows64_width(0), 80);
  EXPECT_EQ(fitted_rows64_width(1), 96);
  EXPECT_EQ(fitted_rows64_width(2), 112);
  for (const int width : {80, 96, 112}) EXPECT_TRUE(fitted_width(64, width)) << width;
  EXPECT_FALSE(fitted_width(64, 128));
  EXPECT_FALSE(fitted_width(64, 192));
  struct Case {
    int m, n, k, block_n, cluster_tiles;
  };
  const Case cases[] = {{128, 4608, 3584, 80, 58}, {256, 3072, 3072, 96, 64}, {256, 3584, 3584, 112, 64}};
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.m << "x" << c.n << "x" << c.k);
    const FewTilesPlan pick = plan_few_tiles(c.m, c.n, c.k, 66, -1, 0, kH200Memory);
    EXPECT_EQ(pick.block_m, 64);  // 64 × 128 tiles whole on fewer than the 66 clusters
    EXPECT_EQ(pick.block_n, 128);
    EXPECT_FALSE(pick.schedule.splits());
    EXPECT_LT(pick.cluster_tiles, 66);
    const FewTilesPlan plan = plan_few_tiles_or_transposed(c.m, c.n, c.k, 66, 0, kH200Memory);
    expect_fitted_round(plan, pick, 64, c.block_n, c.cluster_tiles);
    EXPECT_EQ(plan.k_blocks, c.k / 64);
  }
  // Not where the pick splits (128 × 4096 × 4096: 64 × 128 tiles in two equal shares), at 64 tokens or fewer, where no
  // width fits in one round (512 × 4096 × 4096: 4 cluster rows of 52 columns of 80), nor for Cᵀ.
  const FewTilesPlan split = plan_few_tiles_or_transposed(128, 4096, 4096, 66, 0, kH200Memory);
  EXPECT_EQ(split.block_n, 128);
  EXPECT_EQ(split.schedule.even_shares(), 2);
  const FewTilesPlan few_tokens = plan_few_tiles_or_transposed(64, 4608, 3584, 66, 0, kH200Memory);
  EXPECT_FALSE(fitted_width(few_tokens.block_m, few_tokens.block_n));
  const FewTilesPlan no_fit = plan_few_tiles_or_transposed(512, 4096, 4096, 66, 0, kH200Memory);
  EXPECT_EQ(no_fit.block_m, 128);
  const FewTilesPlan transposed = plan_few_tiles_or_transposed(568, 5384, 14128, 66, 0, kH200Memory);
  EXPECT_TRUE(transposed.transposed);
  EXPECT_EQ(transposed.block_m, 128);
}

// 128-row wide fitted widths (with_wide_fitted_width): where the compared plan is one round of whole 128 × 256 tiles on
// fewer clusters than resident, with K on the lines or in 1 × 2 clusters, one round of whole 128 × 208, 224 or 240
// tiles in 2 × 1 clusters, the narrowest whose cluster tiles fit, replaces it where they are more, and keeps the pick's
// cycles. The counts by hand: 1500 tokens are 12 tile rows, 6 cluster rows; 2304 / 256 = 9 columns (54 cluster tiles),
// / 208 = 11.1 → 12 (72: too many), / 224 = 10.3 → 11 (66). 2015 tokens are 16 tile rows, 8 cluster rows; 1576 / 256 =
// 6.2 → 7 (56), / 208 = 7.6 → 8 (64). 740 tokens are 6 tile rows, 3 cluster rows; 5272 / 256 = 20.6 → 21 (63), / 208 →
// 26 (78), / 224 → 24 (72), / 240 = 21.97 → 22 (66). 1850 tokens are 15 tile rows: in 1 × 2 clusters 15 rows of 4
// cluster columns of 2 × 256 (1888 / 256 = 7.4 → 8 tiles, 60 cluster tiles), in 2 × 1 clusters of 240 8 rows of 8
// columns (64); K = 2232 is off the lines.
TEST(FewTiles, WideFittedWidthsWhereOneRoundOfWideTilesLeavesClustersIdle) {
  EXPECT_EQ(wide_fitted_width(0), 208);
  EXPECT_EQ(wide_fitted_width(1), 224);
  EXPECT_EQ(wide_fitted_width(2), 240);
  struct Case {
    int m, n, k, pick_tiles, block_n, cluster_tiles;
    bool pick_along_n;
  };
  const Case cases[] = {{1500, 2304, 2048, 54, 224, 66, false},
                        {2015, 1576, 4544, 56, 208, 64, false},
                        {740, 5272, 21312, 63, 240, 66, false},
                        {1850, 1888, 2232, 60, 240, 64, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.m << "x" << c.n << "x" << c.k);
    const int quad_clusters = rows_off_lines(c.k) ? 30 : 0;
    const FewTilesPlan pick = plan_few_tiles_compared(c.m, c.n, c.k, 66, quad_clusters, kH200Memory);
    EXPECT_EQ(pick.block_m, 128);
    EXPECT_EQ(pick.block_n, 256);
    EXPECT_EQ(pick.cluster_tiles, c.pick_tiles);
    EXPECT_EQ(pick.cluster_along_n(), c.pick_along_n);
    EXPECT_FALSE(pick.schedule.splits());
    const FewTilesPlan plan = plan_few_tiles_or_transposed(c.m, c.n, c.k, 66, quad_clusters, kH200Memory);
    expect_fitted_round(plan, pick, 128, c.block_n, c.cluster_tiles);
  }
  // Not below six tile rows: 581 × 5088 × 1728 (5 tile rows: 128 × 256 in 1 × 2 clusters, 5 × 10 = 50 cluster tiles)
  // keeps its tiles, where 240 would make 3 × 22 = 66; 768 × 4608 × 4096 (6 tile rows, 3 cluster rows; 4608 / 256 = 18
  // columns (54), / 208 → 23 (69), / 224 → 21 (63)) takes 224.
  const FewTilesPlan five_rows = plan_few_tiles_compared(581, 5088, 1728, 66, 0, kH200Memory);
  EXPECT_EQ(five_rows.block_n, 256);
  EXPECT_TRUE(five_rows.cluster_along_n());
  EXPECT_EQ(five_rows.cluster_tiles, 50);
  EXPECT_EQ(plan_few_tiles_or_transposed(581, 5088, 1728, 66, 0, kH200Memory).block_n, 256);
  EXPECT_EQ(plan_few_tiles_compared(768, 4608, 4096, 66, 0, kH200Memory).block_n, 256);
  EXPECT_EQ(plan_few_tiles_or_transposed(768, 4608, 4096, 66, 0, kH200Memory).block_n, 224);
  EXPECT_EQ(plan_few_tiles_or_transposed(768, 4608, 4096, 66, 0, kH200Memory).cluster_tiles, 63);
  // Not where the pick's operands take 0.75 of its cycles from DRAM or more, which from six tile rows only a GPU with
  // slower DRAM a cycle than an H100's meets: at 1500 × 2304 × 2048 they are (1500 + 2304) · 2048 · 2 bytes, 15.6 M, at
  // 500 bytes a cycle 31.2 k cycles against the pick's 36 k (0.87 of them), at an H100's 1608 9.7 k (0.27).
  const FewTilesPlan dram_pick = plan_few_tiles_compared(1500, 2304, 2048, 66, 0, kH200Memory);
  const FewTilesMemory slow_memory{500, 50.0 * 1024 * 1024}, h100_memory{1608, 50.0 * 1024 * 1024};
  EXPECT_GT(2.0 * (1500 + 2304) * 2048 / 500, kWideFittedMaxDramShare * dram_pick.cycles);
  EXPECT_EQ(with_wide_fitted_width(dram_pick, 1500, 2304, 2048, slow_memory).block_n, 256);
  EXPECT_LT(2.0 * (1500 + 2304) * 2048 / 1608, kWideFittedMaxDramShare * dram_pick.cycles);
  EXPECT_EQ(with_wide_fitted_width(dram_pick, 1500, 2304, 2048, h100_memory).block_n, 224);
  // The GPU test's exact inputs (wide_fitted_widths_exact_inputs_kernel_15, tests/CMakeLists.txt): 720 tokens are 6
  // tile rows, 3 cluster rows; 3840 / 256 = 15 columns (45), / 208 = 18.5 → 19 (57), at K = 2^18.
  EXPECT_EQ(plan_few_tiles_compared(720, 3840, 262144, 66, 0, kH200Memory).cluster_tiles, 45);
  const FewTilesPlan exact = plan_few_tiles_or_transposed(720, 3840, 262144, 66, 0, kH200Memory);
  EXPECT_EQ(exact.block_n, 208);
  EXPECT_EQ(exact.cluster_tiles, 57);
  EXPECT_FALSE(exact.schedule.splits());
  // Nor under 24 k blocks: 1500 × 2304 × 1472 (23) keeps its 54 cluster tiles of 128 × 256, at 1536 (24) takes 224.
  EXPECT_EQ(plan_few_tiles_or_transposed(1500, 2304, 1472, 66, 0, kH200Memory).block_n, 256);
  EXPECT_EQ(plan_few_tiles_or_transposed(1500, 2304, 1536, 66, 0, kH200Memory).block_n, 224);
  // Nor off the lines where the pick is in 2 × 1 clusters: 1813 × 1544 × 4120 (8 cluster rows of 7 columns of 256, 8
  // of 208) keeps its 56 cluster tiles.
  const FewTilesPlan off_lines = plan_few_tiles_or_transposed(1813, 1544, 4120, 66, 30, kH200Memory);
  EXPECT_TRUE(rows_off_lines(4120));
  EXPECT_EQ(off_lines.block_n, 256);
  EXPECT_EQ(off_lines.cluster_tiles, 56);
  EXPECT_FALSE(off_lines.cluster_along_n());
  // Nor where no width adds clusters (2048³: 8 cluster rows of 8 columns; 2048 / 240 = 8.5 → 9 makes 72), nor where the
  // pick splits, is narrower or is in 1 × 2 clusters at 128 tokens, nor for Cᵀ or 2 × 2 clusters.
  EXPECT_EQ(plan_few_tiles_or_transposed(2048, 2048, 2048, 66, 0, kH200Memory).block_n, 256);
  EXPECT_EQ(plan_few_tiles_or_transposed(512, 4096, 4096, 66, 0, kH200Memory).block_n, 128);
  const FewTilesPlan base = plan_few_tiles_compared(1500, 2304, 2048, 66, 0, kH200Memory);
  FewTilesPlan split = base;
  split.schedule = {base.cluster_tiles, base.k_blocks, 66, 0};  // split over every cluster
  EXPECT_TRUE(split.schedule.splits());
  EXPECT_EQ(with_wide_fitted_width(split, 1500, 2304, 2048, kH200Memory).block_n, 256);
  FewTilesPlan transposed = base;
  transposed.transposed = true;
  EXPECT_EQ(with_wide_fitted_width(transposed, 1500, 2304, 2048, kH200Memory).block_n, 256);
  FewTilesPlan quad = base;
  quad.cluster_n = 2;
  EXPECT_EQ(with_wide_fitted_width(quad, 1500, 2304, 2048, kH200Memory).block_n, 256);
  EXPECT_EQ(with_wide_fitted_width(base, 128, 2304, 2048, kH200Memory).block_n, 256);
  EXPECT_EQ(with_wide_fitted_width(base, 1500, 2304, 2048, kH200Memory).block_n, 224);
}

// 128-row wide fitted widths in whole rounds (with_wide_fitted_rounds): where the launched plan is two rounds or more
// of whole 128 × 256 tiles in 2 × 1 clusters on the lines, from two cluster rows, the width of 208, 224 or 240 whose
// rounds times width is least replaces it, where that is at most 0.90 of the pick's rounds times 256, in ⌈T / r⌉
// clusters. The counts by hand, on 66 clusters: 1196 tokens are 10 tile rows, 5 cluster rows; 8296 / 256 = 32.4 → 33
// columns (165 cluster tiles, 3 rounds: 768 column-rounds, 0.90 of them 691.2), / 208 = 39.9 → 40 (200, 4 rounds: 832),
// / 224 = 37.04 → 38 (190, 3 rounds: 672), / 240 = 34.6 → 35 (175, 3 rounds: 720). 2048 tokens are 8 cluster rows;
// 4800 / 256 = 18.75 → 19 (152, 3 rounds: 768), / 208 = 23.1 → 24 (192, 3 rounds: 624), / 224 → 22 (176, 3: 672). 712
// tokens are 6 tile rows, 3 cluster rows; 18136 / 256 = 70.8 → 71 (213, 4 rounds: 1024, 0.90 of them 921.6), / 208 =
// 87.2 → 88 (264, 4 rounds: 832), / 224 = 80.96 → 81 (243, 4 rounds: 896). The GPU tests
// (wide_fitted_rounds_kernels_15_16, tests/CMakeLists.txt) run these widths at 1196 × 8296 × 3520, 712 × 18136 × 1856
// and 2040 × 4792 × 1600 (as 2048 × 4800, but M and N ragged).
TEST(FewTiles, WideFittedWidthsInWholeRoundsWhereTheLastRoundLeavesClustersIdle) {
  struct Case {
    int m, n, k, pick_tiles, pick_workers, block_n, cluster_tiles, workers;
  };
  const Case cases[] = {{1196, 8296, 3520, 165, 55, 224, 190, 64},
                        {2048, 4800, 1600, 152, 51, 208, 192, 64},
                        {2040, 4792, 1600, 152, 51, 208, 192, 64},
                        {712, 18136, 1856, 213, 54, 208, 264, 66}};
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.m << "x" << c.n << "x" << c.k);
    const FewTilesPlan pick = plan_few_tiles_compared(c.m, c.n, c.k, 66, 0, kH200Memory);
    EXPECT_EQ(pick.block_m, 128);
    EXPECT_EQ(pick.block_n, 256);
    EXPECT_EQ(pick.cluster_tiles, c.pick_tiles);
    EXPECT_EQ(pick.schedule.workers, c.pick_workers);
    EXPECT_FALSE(pick.schedule.splits());
    const FewTilesPlan plan = plan_few_tiles_or_transposed(c.m, c.n, c.k, 66, 0, kH200Memory);
    EXPECT_EQ(plan.block_m, 128);
    EXPECT_EQ(plan.block_n, c.block_n);
    EXPECT_EQ(plan.cluster_m, 2);
    EXPECT_EQ(plan.cluster_n, 1);
    EXPECT_EQ(plan.cluster_tiles, c.cluster_tiles);
    EXPECT_EQ(plan.schedule.tiles, c.cluster_tiles);
    EXPECT_EQ(plan.schedule.whole_tiles, c.cluster_tiles);
    EXPECT_EQ(plan.schedule.workers, c.workers);
    EXPECT_EQ(plan.k_blocks, pick.k_blocks);
    EXPECT_DOUBLE_EQ(plan.cycles, pick.cycles);  // kernel 16 weighs the pick
    check_schedule(plan.schedule);
  }
  // Not where the best width saves under 10 %: 4096 × 8192 × 8192 (16 cluster rows; 32 columns of 256, 512 cluster
  // tiles in 8 rounds: 2048; 224 → 37 columns, 592 in 9 rounds: 2016, 0.984 of them).
  EXPECT_EQ(plan_few_tiles_compared(4096, 8192, 8192, 66, 0, kH200Memory).cluster_tiles, 512);
  EXPECT_EQ(plan_few_tiles_or_transposed(4096, 8192, 8192, 66, 0, kH200Memory).block_n, 256);
  // Nor in one cluster row: 256 × 28672 × 4096 (112 columns of 256 in 2 rounds: 512; 224 → 128 in 2: 448, 0.875).
  EXPECT_EQ(plan_few_tiles_compared(256, 28672, 4096, 66, 0, kH200Memory).cluster_tiles, 112);
  EXPECT_EQ(plan_few_tiles_or_transposed(256, 28672, 4096, 66, 0, kH200Memory).block_n, 256);
  // Nor off the lines (K = 3528), nor where the pick splits its last round, nor for Cᵀ.
  const FewTilesPlan base = plan_few_tiles_compared(1196, 8296, 3520, 66, 0, kH200Memory);
  EXPECT_EQ(with_wide_fitted_rounds(base, 1196, 8296, 3520).block_n, 224);
  EXPECT_EQ(with_wide_fitted_rounds(base, 1196, 8296, 3528).block_n, 256);
  FewTilesPlan split = base;
  split.schedule = {base.cluster_tiles, base.k_blocks, 66, 132};  // 2 whole rounds, the last 33 tiles split
  EXPECT_TRUE(split.schedule.splits());
  EXPECT_EQ(with_wide_fitted_rounds(split, 1196, 8296, 3520).block_n, 256);
  FewTilesPlan transposed = base;
  transposed.transposed = true;
  EXPECT_EQ(with_wide_fitted_rounds(transposed, 1196, 8296, 3520).block_n, 256);
}

// Wide tiles in whole rounds (with_wide_rounds): where the compared plan splits along K and M has 1024 tokens or more,
// 128 × 320 tiles in 2 × 1 clusters replace it where they make at most two rounds, fewer than the pick's (its split
// round counted), the last on at least 0.85 of the 66 clusters (56.1), on ⌈T / r⌉ clusters; the pick's cycles stay.
// The counts by hand: 1024 tokens are 8 tile rows, 4 cluster rows; 1400 and 1290 are 11 tile rows, 6 cluster rows;
// 10240 / 320 = 32 columns, 6640 / 320 = 20.75 → 21, 3280 / 320 = 10.25 → 11, 9632 / 320 = 30.1 → 31. So 128 cluster
// tiles in two rounds on 64 clusters, 126 on 63, 66 in one round, 124 in two on 62. The last three are the GPU test's
// shapes (wide_rounds_kernels_15_16, tests/CMakeLists.txt).
TEST(FewTiles, WideTilesInWholeRoundsWhereThePickSplits) {
  struct Case {
    int m, n, k, cluster_tiles, workers;
  };
  const Case cases[] = {
      {1024, 10240, 8192, 128, 64},
      {1400, 6640, 3344, 126, 63},
      {1290, 3280, 7040, 66, 66},
      {1024, 9632, 6688, 124, 62},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.m << "x" << c.n << "x" << c.k);
    const FewTilesPlan pick = plan_few_tiles_compared(c.m, c.n, c.k, 66, 30, kH200Memory);
    EXPECT_TRUE(pick.schedule.splits());
    EXPECT_NE(pick.block_n, 320);
    const FewTilesPlan plan = plan_few_tiles_or_transposed(c.m, c.n, c.k, 66, 30, kH200Memory);
    EXPECT_EQ(plan.block_m, 128);
    EXPECT_EQ(plan.block_n, 320);
    EXPECT_EQ(plan.cluster_m, 2);
    EXPECT_EQ(plan.cluster_n, 1);
    EXPECT_FALSE(plan.transposed);
    EXPECT_EQ(plan.cluster_tiles, c.cluster_tiles);
    EXPECT_EQ(plan.schedule.tiles, c.cluster_tiles);
    EXPECT_EQ(plan.schedule.workers, c.workers);
    EXPECT_EQ(plan.schedule.whole_tiles, c.cluster_tiles);  // no split
    EXPECT_EQ(plan.k_blocks, (c.k + 63) / 64);
    EXPECT_DOUBLE_EQ(plan.cycles, pick.cycles);
    EXPECT_DOUBLE_EQ(plan.schedule_cycles, pick.schedule_cycles);
  }
  // Not under 1024 tokens (512 × 10240 × 8192, which splits), nor where the wide tiles' last round is short
  // (2040 × 4800 × 4096: 8 cluster rows of 15 columns, 120 tiles, the second round 54 of 66), nor where the pick is
  // whole (1024 × 8192 × 8192: 128 × 256 tiles in two whole rounds).
  for (const auto& [m, n, k] : {std::array{512, 10240, 8192}, std::array{2040, 4800, 4096}}) {
    const FewTilesPlan pick = plan_few_tiles_compared(m, n, k, 66, 30, kH200Memory);
    EXPECT_TRUE(pick.schedule.splits()) << m << "x" << n << "x" << k;
    EXPECT_NE(plan_few_tiles_or_transposed(m, n, k, 66, 30, kH200Memory).block_n, 320) << m << "x" << n << "x" << k;
  }
  const FewTilesPlan whole = plan_few_tiles_or_transposed(1024, 8192, 8192, 66, 30, kH200Memory);
  EXPECT_FALSE(whole.schedule.splits());
  EXPECT_EQ(whole.block_n, 256);
  // Nor for Cᵀ or 2 × 2 clusters: the same pick so marked stays as it is.
  FewTilesPlan transposed = plan_few_tiles_compared(1024, 10240, 8192, 66, 30, kH200Memory);
  transposed.transposed = true;
  EXPECT_EQ(with_wide_rounds(transposed, 1024, 10240).block_n, 256);
  FewTilesPlan quad = plan_few_tiles_compared(1024, 10240, 8192, 66, 30, kH200Memory);
  quad.cluster_n = 2;
  EXPECT_EQ(with_wide_rounds(quad, 1024, 10240).block_n, 256);
}

// The shapes the GPU tests give kernel 15 for its splits take the schedules their comments name, as kernel 15's
// launcher plans them on an H200 (66 clusters of two, 30 of four where the rows are off the lines, its DRAM rate and
// L2; the launcher asks the GPU for these, so on another GPU some may plan otherwise): the check suite's
// (runner/shapes.cpp), the sanitizer's (scripts/sanitize.sh) and those of the fix-up order's tests
// (partial_split_shapes, tests/CMakeLists.txt). Between them they reach each kind of split: every tile in equal shares
// (two: an owner adds; three or more: by slices), a split over every cluster (shares across tiles, owners), in clusters
// of two and of four, and a split last round after whole ones, for C and for Cᵀ.
TEST(FewTiles, GpuTestShapesTakeTheSplitsTheyAreThereFor) {
  struct Case {
    int m, n, k;
    int block_m, block_n, cluster_m, cluster_n, cluster_tiles, workers, whole_tiles, even_shares;
    bool transposed;
  };
  const Case cases[] = {
      // Every tile in 4 equal shares, 128 × 128 tiles in 2 × 1 clusters (N ragged; K too in the second).
      {256, 2048, 8192, 128, 128, 2, 1, 16, 64, 0, 4, false},
      {256, 2040, 8000, 128, 128, 2, 1, 16, 64, 0, 4, false},
      // 64 × 128 tiles in 2 × 2 clusters, 3 equal shares (off the lines; M, N and K ragged).
      {100, 1800, 8200, 64, 128, 2, 2, 8, 24, 0, 3, false},
      // 128 × 192 tiles in 2 × 2 clusters, 3 equal shares (off the lines, M ragged).
      {200, 3000, 20000, 128, 192, 2, 2, 8, 24, 0, 3, false},
      // 64 × 192 tiles in 1 × 2 clusters, 3 equal shares; 64 × 128 tiles in 2 equal shares (an owner adds).
      {64, 8192, 16384, 64, 192, 1, 2, 22, 66, 0, 3, false},
      {128, 4096, 8192, 64, 128, 2, 1, 32, 64, 0, 2, false},
      // A split over every cluster, fewer tiles than clusters: 34 cluster tiles of 128 × 256 (2 × 1, M and N ragged)
      // over 66, and 16 of 128 × 192 in 2 × 2 clusters over 30 (off the lines, K % 16 = 8).
      {136, 8696, 10240, 128, 256, 2, 1, 34, 66, 0, 0, false},
      {136, 5808, 14008, 128, 192, 2, 2, 16, 30, 0, 0, false},
      // A whole round, then the last 46 tiles split over every cluster (128 × 256 in 1 × 2 clusters).
      {128, 57344, 8192, 128, 256, 1, 2, 112, 66, 66, 0, false},
      // Cᵀ: 128 × 192 tiles in 4 equal shares; 128 × 256 tiles in 1 × 2 clusters, a round and a split last round.
      {264, 2032, 8576, 128, 192, 2, 1, 16, 64, 0, 4, true},
      {776, 4632, 3584, 128, 256, 1, 2, 74, 66, 66, 0, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.m << "x" << c.n << "x" << c.k);
    const FewTilesPlan plan =
        plan_few_tiles_or_transposed(c.m, c.n, c.k, 66, rows_off_lines(c.k) ? 30 : 0, kH200Memory);
    EXPECT_EQ(plan.transposed, c.transposed);
    EXPECT_EQ(plan.block_m, c.block_m);
    EXPECT_EQ(plan.block_n, c.block_n);
    EXPECT_EQ(plan.cluster_m, c.cluster_m);
    EXPECT_EQ(plan.cluster_n, c.cluster_n);
    EXPECT_EQ(plan.cluster_tiles, c.cluster_tiles);
    EXPECT_TRUE(plan.schedule.splits());
    EXPECT_EQ(plan.schedule.workers, c.workers);
    EXPECT_EQ(plan.schedule.whole_tiles, c.whole_tiles);
    EXPECT_EQ(plan.schedule.even_shares(), c.even_shares);
    check_schedule(plan.schedule);
  }
}

// The model presets (llama3-8b and -70b at 128-8192 tokens), 1024³ and 2048³ keep their plans: none is split over every
// cluster where the DRAM decides.
TEST(FewTiles, ThePresetsKeepTheirPlans) {
  const int layers[][2] = {{6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336},
                           {10240, 8192}, {8192, 8192}, {57344, 8192}, {8192, 28672}};
  std::vector<std::array<int, 3>> shapes = {{1024, 1024, 1024}, {2048, 2048, 2048}};
  for (const auto& layer : layers)
    for (int tokens = 128; tokens <= 8192; tokens *= 2) shapes.push_back({tokens, layer[0], layer[1]});
  for (const auto& [m, n, k] : shapes) {
    SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k);
    const FewTilesPlan before = plan_few_tiles(m, n, k, 66, -1, 30);
    const FewTilesPlan after = plan_few_tiles(m, n, k, 66, -1, 30, kH200Memory);
    EXPECT_EQ(after.block_m, before.block_m);
    EXPECT_EQ(after.block_n, before.block_n);
    EXPECT_EQ(after.cluster_m, before.cluster_m);
    EXPECT_EQ(after.cluster_n, before.cluster_n);
    EXPECT_EQ(after.schedule.workers, before.schedule.workers);
    EXPECT_EQ(after.schedule.whole_tiles, before.schedule.whole_tiles);
    EXPECT_DOUBLE_EQ(after.cycles, before.cycles);
  }
  EXPECT_EQ(shapes.size(), 2u + 8 * 7);
}

// Cᵀ = B·Aᵀ for ragged token counts (plan_few_tiles_or_transposed). Where it is taken, the plan is the swapped
// problem's own plan, marked, and its cycles are at least 10 % fewer; the four shapes below are those section 26 of
// docs/log/15_few_tiles.md measured 11-21 % faster transposed (the swapped problem timed on its own), and 568 × 5384 ×
// 14128 is the one where the swap moves the ragged side across the tiles' width: 5 tile rows of 128 (640 rows for
// 568) become 3 columns of 192 (576).
TEST(FewTiles, TransposedWhereTheModelPutsItTenPerCentAhead) {
  const int measured[][3] = {{176, 3120, 23144}, {568, 5384, 14128}, {184, 20368, 18280}, {536, 1160, 13016}};
  for (const auto& [m, n, k] : measured) {
    SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k);
    const FewTilesPlan plan = plan_few_tiles_or_transposed(m, n, k, 66, 30, kH200Memory);
    const FewTilesPlan swapped = plan_few_tiles(n, m, k, 66, -1, 30, kH200Memory);
    const FewTilesPlan as_given = plan_few_tiles(m, n, k, 66, -1, 30, kH200Memory);
    EXPECT_TRUE(plan.transposed);
    EXPECT_FALSE(swapped.transposed);
    EXPECT_EQ(plan.block_m, swapped.block_m);
    EXPECT_EQ(plan.block_n, swapped.block_n);
    EXPECT_EQ(plan.cluster_tiles, swapped.cluster_tiles);
    EXPECT_DOUBLE_EQ(plan.cycles, swapped.cycles);
    EXPECT_LE(kTransposedMargin * plan.cycles, as_given.cycles);
  }
  const FewTilesPlan ragged = plan_few_tiles_or_transposed(568, 5384, 14128, 66, 30, kH200Memory);
  EXPECT_EQ(ragged.block_n, 192);
  EXPECT_EQ((568 + ragged.block_n - 1) / ragged.block_n, 3);
  EXPECT_EQ(ragged.cluster_tiles, 66);  // 5384 rows of Cᵀ in 43 tiles of 128, 22 cluster rows, times 3 columns
}

// Not transposed: token counts that are multiples of 128 (128 × 4096 × 14336 and 128 × 8192 × 8192: the model puts Cᵀ
// 18 and 12 % ahead, and it measured 1.00-1.02 of the time), one past the range measured (4384 × 1232 × 1256), a
// ragged one the model puts level (520 × 3720 × 9360), and one whose Cᵀ plan splits its 36 tiles of 128 × 192 over
// all 66 clusters (544 × 3016 × 27448: 17 % ahead by the model, 1.09-1.10 of the time measured).
TEST(FewTiles, NotTransposedOutsideRaggedTokenCounts) {
  const int shapes[][3] = {
      {128, 4096, 14336}, {128, 8192, 8192}, {4384, 1232, 1256}, {520, 3720, 9360}, {544, 3016, 27448}};
  for (const auto& [m, n, k] : shapes) {
    SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k);
    const FewTilesPlan plan = plan_few_tiles_or_transposed(m, n, k, 66, 30, kH200Memory);
    const FewTilesPlan as_given = plan_few_tiles(m, n, k, 66, -1, 30, kH200Memory);
    EXPECT_FALSE(plan.transposed);
    EXPECT_EQ(plan.block_m, as_given.block_m);
    EXPECT_EQ(plan.block_n, as_given.block_n);
    EXPECT_DOUBLE_EQ(plan.cycles, as_given.cycles);
  }
  // The first three would be taken on the model alone: only the candidates' rule keeps them as given.
  for (int index = 0; index < 3; ++index) {
    const auto& [m, n, k] = shapes[index];
    SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k);
    EXPECT_FALSE(transposed_candidate(m));
    EXPECT_LE(kTransposedMargin * plan_few_tiles(n, m, k, 66, -1, 30, kH200Memory).cycles,
              plan_few_tiles(m, n, k, 66, -1, 30, kH200Memory).cycles);
  }
  const FewTilesPlan split = plan_few_tiles(3016, 544, 27448, 66, -1, 30, kH200Memory);
  EXPECT_TRUE(transposed_candidate(544));
  EXPECT_EQ(split.cluster_tiles, 36);
  EXPECT_EQ(split.schedule.workers, 66);
  EXPECT_TRUE(split.schedule.splits());
  EXPECT_EQ(split.schedule.even_shares(), 0);
  EXPECT_TRUE(split.splits_over_every_cluster());
  EXPECT_LE(kTransposedMargin * split.cycles, plan_few_tiles(544, 3016, 27448, 66, -1, 30, kH200Memory).cycles);
  // Nor is any other plan such a split: an even split (128 × 4096 × 14336, 3 shares), whole few tiles (1024³), rounds
  // with a split last round (1024 × 4608 × 3584).
  EXPECT_GT(plan_few_tiles(128, 4096, 14336, 66).schedule.even_shares(), 0);
  EXPECT_FALSE(plan_few_tiles(128, 4096, 14336, 66).splits_over_every_cluster());
  EXPECT_FALSE(plan_few_tiles(1024, 1024, 1024, 66).schedule.splits());
  EXPECT_FALSE(plan_few_tiles(1024, 1024, 1024, 66).splits_over_every_cluster());
  EXPECT_TRUE(plan_few_tiles(1024, 4608, 3584, 66).schedule.splits());
  EXPECT_FALSE(plan_few_tiles(1024, 4608, 3584, 66).splits_over_every_cluster());
  EXPECT_TRUE(transposed_candidate(520));
  EXPECT_FALSE(transposed_candidate(48));
  EXPECT_TRUE(transposed_candidate(129));
  EXPECT_TRUE(transposed_candidate(1151));
  EXPECT_FALSE(transposed_candidate(1152));
  EXPECT_FALSE(transposed_candidate(640));
}

// Plans for shapes drawn at random (a fixed seed), as kernels 15 and 16 launch them on an H200 and with the clusters
// alone: each is a tiling kernel 15 has an instance of, in a cluster shape it has, over exactly the tiles its launcher
// counts (it refuses a plan whose tiles differ, and its 64-row branch takes any width but 192 for 128), with a
// schedule that does every k block of every tile once, in a fix-up order the kernel can follow, on at most the
// resident clusters; Cᵀ only for ragged token counts, 2 × 2 clusters only off the lines.
TEST(FewTiles, PlansForShapesDrawnAtRandomAreLaunchable) {
  const std::set<std::pair<int, int>> tilings = {{128, 256}, {128, 192}, {128, 176}, {128, 160}, {128, 144},
                                                 {128, 128}, {128, 96},  {64, 192},  {64, 128},  {64, 112},
                                                 {64, 96},   {64, 80},   {128, 320}, {128, 208}, {128, 224},
                                                 {128, 240}};
  std::mt19937 draw(20261205);
  std::uniform_int_distribution<int> tokens(1, 2300), eighths(1, 30000 / 8);
  int transposed = 0, quads = 0, splits = 0, fitted = 0, wide = 0, wide_fitted = 0, wide_fitted_rounds = 0;
  const auto check = [&](int m, int n, int k) {
    for (const bool with_memory : {true, false}) {
      SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k << (with_memory ? ", H200" : ", clusters alone"));
      const FewTilesPlan plan = with_memory ? plan_few_tiles_or_transposed(m, n, k, 66, 30, kH200Memory)
                                            : plan_few_tiles_or_transposed(m, n, k, 66);
      EXPECT_TRUE(tilings.count({plan.block_m, plan.block_n})) << plan.block_m << "x" << plan.block_n;
      EXPECT_TRUE((plan.cluster_m == 2 && plan.cluster_n == 1) || plan.cluster_along_n() || plan.quad_clusters());
      if (plan.quad_clusters()) {
        EXPECT_TRUE(rows_off_lines(k));
        EXPECT_FALSE(fitted_width(plan.block_m, plan.block_n)) << "no fitted width has a 2 x 2 instance";
        EXPECT_TRUE(with_memory) << "2 x 2 clusters without any resident";
        EXPECT_EQ(plan.resident_clusters, 30);
      } else {
        EXPECT_EQ(plan.resident_clusters, 66);
      }
      if (plan.transposed) {
        EXPECT_TRUE(transposed_candidate(m));
      }
      if (plan.block_m == 64 && fitted_width(plan.block_m, plan.block_n)) {  // kernel 15's only instances of them
        EXPECT_FALSE(plan.transposed);
        EXPECT_EQ(plan.cluster_m, 2);
        EXPECT_EQ(plan.cluster_n, 1);
        EXPECT_FALSE(plan.schedule.splits());
      }
      if (plan.block_n == 320) {  // kernel 15's only instance of them: for C, 2 × 1, whole rounds
        EXPECT_FALSE(plan.transposed);
        EXPECT_EQ(plan.cluster_m, 2);
        EXPECT_EQ(plan.cluster_n, 1);
        EXPECT_FALSE(plan.schedule.splits());
        EXPECT_GE(m, kWideRoundsMinTokens);
      }
      const bool wide_fitted_plan = plan.block_n > 192 && plan.block_n < 256;  // 208, 224 or 240 columns
      if (wide_fitted_plan) {  // wide fitted widths: for C, 2 × 1, whole tiles
        EXPECT_FALSE(plan.transposed);
        EXPECT_EQ(plan.cluster_m, 2);
        EXPECT_EQ(plan.cluster_n, 1);
        EXPECT_FALSE(plan.schedule.splits());
        if (plan.cluster_tiles <= plan.resident_clusters) {  // one round: six tile rows or more
          EXPECT_GT(m, 640);
        } else {  // whole rounds on the lines from two cluster rows, as few clusters as the rounds need
          EXPECT_FALSE(rows_off_lines(k));
          EXPECT_GT(m, 256);
          const int rounds = ceil_div(plan.cluster_tiles, plan.resident_clusters);
          EXPECT_EQ(plan.schedule.workers, ceil_div(plan.cluster_tiles, rounds));
          ++wide_fitted_rounds;
        }
      }
      const int rows = plan.transposed ? n : m, columns = plan.transposed ? m : n;
      EXPECT_EQ(plan.cluster_tiles, ceil_div(ceil_div(rows, plan.block_m), plan.cluster_m) *
                                        ceil_div(ceil_div(columns, plan.block_n), plan.cluster_n));
      EXPECT_EQ(plan.k_blocks, ceil_div(k, 64));
      EXPECT_EQ(plan.schedule.tiles, plan.cluster_tiles);
      EXPECT_EQ(plan.schedule.k_blocks, plan.k_blocks);
      EXPECT_GE(plan.schedule.workers, 1);
      EXPECT_LE(plan.schedule.workers, plan.resident_clusters);
      check_schedule(plan.schedule);
      check_fix_up_chains(plan.schedule);
      transposed += plan.transposed;
      quads += plan.quad_clusters();
      splits += plan.schedule.splits();
      fitted += fitted_width(plan.block_m, plan.block_n);
      wide += plan.block_n == 320;
      wide_fitted += wide_fitted_plan;
    }
  };
  for (int shape = 0; shape < 600; ++shape) {
    const int m = tokens(draw), n = 8 * eighths(draw), k = 8 * eighths(draw);
    check(m, n, k);
  }
  // Shapes like a model's layers at 641-2300 tokens (N and K multiples of 64), where 128-row wide fitted widths occur.
  std::uniform_int_distribution<int> many_tokens(641, 2300), columns64(16, 6144 / 64), depth64(24, 30000 / 64);
  for (int shape = 0; shape < 200; ++shape) {
    const int m = many_tokens(draw), n = 64 * columns64(draw), k = 64 * depth64(draw);
    check(m, n, k);
  }
  // Shapes of many tiles on the lines (257-4096 tokens, N up to 16384), where the wide fitted widths in whole rounds
  // occur.
  std::uniform_int_distribution<int> rounds_tokens(257, 4096), wide_columns64(32, 16384 / 64),
      rounds_depth64(16, 8192 / 64);
  for (int shape = 0; shape < 200; ++shape) {
    const int m = rounds_tokens(draw), n = 64 * wide_columns64(draw), k = 64 * rounds_depth64(draw);
    check(m, n, k);
  }
  // The draw reaches each kind of plan, so the checks above are not of one kind only.
  EXPECT_GT(transposed, 0);
  EXPECT_GT(quads, 0);
  EXPECT_GT(splits, 0);
  EXPECT_GT(fitted, 0);
  EXPECT_GT(wide, 0);
  EXPECT_GT(wide_fitted, 0);
  EXPECT_GT(wide_fitted_rounds, 0);
}

}  // namespace
}  // namespace gemm
