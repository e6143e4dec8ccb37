// The round barrier (common/round_barrier.h) with the schedules of kernels 10-14 (common/stream_k.h,
// common/gpc_rounds.h): the counter's arithmetic across launches and wrap-around, and that no worker can wait for
// an arrival that never comes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/gpc_rounds.h"
#include "common/round_barrier.h"
#include "common/stream_k.h"
#include "tests/host/probed_gpcs.h"

namespace gemm {
namespace {

TEST(RoundBarrier, OpensWhenEveryCtaHasArrivedInEachRoundBefore) {
  const RoundBarrier barrier{nullptr, 1000, 132};
  EXPECT_TRUE(barrier.open(1000, 0));  // round 0 never waits
  EXPECT_FALSE(barrier.open(1000, 1));
  EXPECT_FALSE(barrier.open(1131, 1));  // one CTA missing
  EXPECT_TRUE(barrier.open(1132, 1));
  EXPECT_FALSE(barrier.open(1263, 2));
  EXPECT_TRUE(barrier.open(1264, 2));
  EXPECT_TRUE(barrier.open(1300, 2));  // CTAs already past round 2 do not close it
}

TEST(RoundBarrier, ExactAcrossWrapAround) {
  // The launch starts 64 arrivals short of 2^32: round 1 opens after the counter wraps to 68.
  const RoundBarrier barrier{nullptr, 0xffffffc0u, 132};
  EXPECT_FALSE(barrier.open(0xffffffc0u, 1));
  EXPECT_FALSE(barrier.open(0xffffffffu, 1));
  EXPECT_FALSE(barrier.open(67, 1));
  EXPECT_TRUE(barrier.open(68, 1));
  EXPECT_FALSE(barrier.open(199, 2));
  EXPECT_TRUE(barrier.open(200, 2));
}

TEST(RoundBarrier, LaunchAfterLaunchTheBaseFollowsTheCounter) {
  // 16384³ on an H100: 132 CTAs, 62 full rounds (4092 whole tiles on 66 clusters) per launch. The counter and
  // the launcher's base advance in step for more launches than it takes to wrap, and each launch's rounds open
  // exactly when the last CTA of the round before arrives.
  const uint32_t ctas = 132;
  const StreamKSchedule schedule = StreamKSchedule::make(4096, 256, 66);
  ASSERT_EQ(schedule.full_rounds(), 62);
  const uint32_t arrivals = RoundBarrier::arrivals_per_launch(ctas, schedule.full_rounds());
  EXPECT_EQ(arrivals, 132u * 62u);
  uint32_t counter = 0, base = 0;
  const uint64_t launches = (uint64_t{1} << 32) / arrivals + 3;  // past one wrap of the counter
  for (uint64_t launch = 0; launch < launches; ++launch) {
    const RoundBarrier barrier{nullptr, base, ctas};
    // Check every round of the first launches and of those around the wrap; the counter just advances elsewhere.
    const bool check = launch < 3 || launch + 5 > launches;
    for (int round = 0; round < schedule.full_rounds(); ++round) {
      if (check) {
        EXPECT_TRUE(barrier.open(counter, round)) << "launch " << launch << ", round " << round;
        EXPECT_FALSE(barrier.open(counter, round + 1)) << "launch " << launch << ", round " << round + 1;
      }
      counter += ctas;
    }
    EXPECT_EQ(counter, base + arrivals);
    base += arrivals;
  }
}

// Every whole tile of a full round is one worker's, one per worker; each worker's whole tiles come first, in
// round order; a partial last round (unsplit schedules) is round full_rounds(). So every CTA arrives in every
// full round, and a simulation in which each worker waits at each whole tile for the rounds before it finishes.
void check_rounds(const StreamKSchedule& schedule) {
  SCOPED_TRACE(testing::Message() << schedule.tiles << " tiles of " << schedule.k_blocks << " k blocks on "
                                  << schedule.workers << " workers, " << schedule.whole_tiles << " whole");
  const int full_rounds = schedule.full_rounds();
  std::vector<std::vector<WorkUnit>> units(schedule.workers);
  std::vector<std::vector<int>> whole_per_round(full_rounds + 1, std::vector<int>(schedule.workers, 0));
  for (int worker = 0; worker < schedule.workers; ++worker) {
    bool split_seen = false;
    int next_round = 0;
    for (WorkUnit unit = schedule.first(worker); unit.valid(); unit = schedule.next(worker, unit)) {
      units[worker].push_back(unit);
      ASSERT_LT(units[worker].size(), 100'000u);
      if (unit.tile >= schedule.whole_tiles) {
        split_seen = true;
        continue;
      }
      EXPECT_FALSE(split_seen) << "a whole tile after a split unit";
      const int round = schedule.round_of(unit);
      EXPECT_EQ(round, next_round++) << "worker " << worker << ": rounds out of order";
      ASSERT_LE(round, full_rounds);
      ++whole_per_round[round][worker];
    }
  }
  for (int round = 0; round < full_rounds; ++round)
    for (int worker = 0; worker < schedule.workers; ++worker)
      EXPECT_EQ(whole_per_round[round][worker], 1) << "round " << round << ", worker " << worker;
  if (schedule.splits()) {
    for (int worker = 0; worker < schedule.workers; ++worker) EXPECT_EQ(whole_per_round[full_rounds][worker], 0);
  }
  // Simulate with the kernel's rule (wait at a whole tile of round r for r × workers arrivals, arrive after a
  // whole tile of a full round): some worker can always move until all are done.
  std::vector<size_t> position(schedule.workers, 0);
  uint32_t arrived = 0;
  const RoundBarrier barrier{nullptr, 0, static_cast<uint32_t>(schedule.workers)};
  for (bool moved = true; moved;) {
    moved = false;
    for (int worker = 0; worker < schedule.workers; ++worker) {
      if (position[worker] == units[worker].size()) continue;
      const WorkUnit& unit = units[worker][position[worker]];
      const bool whole = unit.tile < schedule.whole_tiles;
      if (whole && !barrier.open(arrived, schedule.round_of(unit))) continue;
      if (whole && schedule.round_of(unit) < full_rounds) ++arrived;
      ++position[worker];
      moved = true;
    }
  }
  for (int worker = 0; worker < schedule.workers; ++worker)
    EXPECT_EQ(position[worker], units[worker].size()) << "worker " << worker << " waits forever";
  EXPECT_EQ(arrived, RoundBarrier::arrivals_per_launch(schedule.workers, full_rounds));
}

TEST(RoundBarrier, EveryWorkerArrivesInEveryFullRound) {
  check_rounds(StreamKSchedule::make(4096, 256, 66));  // 16384³: even runs after 62 rounds
  check_rounds(StreamKSchedule::make(1024, 128, 66));  // 8192³
  check_rounds(StreamKSchedule::make(896, 64, 66));    // 4096 × 14336 × 4096: unsplit, 14 rounds on 64
  check_rounds(StreamKSchedule::make(256, 64, 66));    // 4096³: unsplit, 4 rounds on 64 clusters
  check_rounds(StreamKSchedule::make(30, 1, 66));      // fewer tiles than workers: one partial round
  for (int workers : {1, 2, 7, 66})
    for (int tiles = 1; tiles <= 300; tiles += 7)
      for (int k_blocks : {1, 40, 64}) check_rounds(StreamKSchedule::make(tiles, k_blocks, workers));
}

TEST(RoundBarrier, EachLaunchsBaseIsTheArrivalsBeforeIt) {
  // A GPC of 9 clusters (18 CTAs), 19 full rounds a launch (the LLM shape's ping-pong kernel): the base a launch
  // works out from its index is the counter's value when it starts, past a wrap of the counter.
  const uint32_t ctas = 18;
  const int full_rounds = 19;
  const uint32_t arrivals = RoundBarrier::arrivals_per_launch(ctas, full_rounds);
  const uint64_t launches = (uint64_t{1} << 32) / arrivals + 3;
  uint32_t counter = 0;
  int wraps = 0;
  for (uint64_t launch = 0; launch < launches; ++launch) {
    // Every launch's base (ASSERT: one line, not millions, if it goes wrong).
    ASSERT_EQ(RoundBarrier::base_of_launch(static_cast<uint32_t>(launch), ctas, full_rounds), counter)
        << "launch " << launch;
    const uint32_t before = counter;
    counter += arrivals;
    wraps += counter < before;
  }
  EXPECT_EQ(wraps, 1);
}

// The ping-pong kernel's rule, simulated over three launches of one prepared problem: each CTA's producer waits
// before round r for every CTA of its GPC to have arrived in the rounds before, and arrives after each full round;
// a cluster has rounds up to its last tile. No producer may wait forever, and the counters end where the next
// launch's bases begin.
void check_gpc_barriers(const GroupedTileOrder& order, const std::vector<int>& labels) {
  const int clusters = static_cast<int>(labels.size()), cluster_size = 2;
  SCOPED_TRACE(testing::Message() << order.tiles_m << " × " << order.tiles_n << " tiles on " << clusters
                                  << " clusters");
  const std::vector<int> table = gpc_grouped_rounds(tiles_in_order(order), labels, GpcDealing::kRowPerGpc);
  const int rounds = static_cast<int>(table.size()) / clusters;
  const GpcGroups groups = gpc_groups(labels, cluster_size);
  std::vector<uint32_t> counters(groups.ctas_of_group.size(), 0);
  for (uint32_t launch = 0; launch < 3; ++launch) {
    const GroupRoundBarriers barriers{counters.data(), groups.group_of_cluster.data(), groups.ctas_of_group.data(),
                                      launch, full_rounds_of(table, clusters)};
    std::vector<int> next_round(clusters * cluster_size, 0);
    for (bool moved = true; moved;) {
      moved = false;
      for (int cta = 0; cta < clusters * cluster_size; ++cta) {
        const int cluster = cta / cluster_size, round = next_round[cta];
        if (round == rounds || table[static_cast<size_t>(round) * clusters + cluster] == kNoTile) continue;
        const RoundBarrier barrier = barriers.of_cluster(static_cast<uint32_t>(cluster));
        if (!barrier.open(*barrier.counter, round)) continue;
        if (round < barriers.full_rounds) ++*barrier.counter;
        ++next_round[cta];
        moved = true;
      }
    }
    for (int cta = 0; cta < clusters * cluster_size; ++cta) {
      const int cluster = cta / cluster_size, round = next_round[cta];
      EXPECT_TRUE(round == rounds || table[static_cast<size_t>(round) * clusters + cluster] == kNoTile)
          << "launch " << launch << ": CTA " << cta << " waits forever before round " << round;
    }
    for (size_t group = 0; group < counters.size(); ++group)
      EXPECT_EQ(counters[group],
                RoundBarrier::base_of_launch(launch + 1, groups.ctas_of_group[group], barriers.full_rounds))
          << "launch " << launch << ", group " << group;
  }
}

TEST(GroupRoundBarriers, NoProducerWaitsForever) {
  // The probed GPCs of 66 clusters, ragged grids, one partial round, one cluster.
  const std::vector<int> probed = probed_cluster_labels();
  check_gpc_barriers({16, 82, 8}, probed);  // the LLM shape: 19 full rounds and one of 58 tiles
  check_gpc_barriers({17, 9, 8}, probed);
  check_gpc_barriers({3, 5, 8}, probed);    // fewer tiles than clusters
  check_gpc_barriers({64, 47, 8}, probed);  // 16384 × 8192: whole rounds only
  std::vector<int> dealt(7);
  for (int cluster = 0; cluster < 7; ++cluster) dealt[cluster] = cluster % 3;
  check_gpc_barriers({9, 13, 4}, dealt);
  check_gpc_barriers({1, 1, 8}, {0});
}

}  // namespace
}  // namespace gemm
