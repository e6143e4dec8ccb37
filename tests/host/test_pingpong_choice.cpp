// Which of kernels 15 and 14 kernel 16's rule picks (common/pingpong_choice.h), on a 132-SM H100 or H200 (66
// clusters of two): the benchmark's shapes, the sweep the notes measured the rule against, and the few-tile shapes.
#include <gtest/gtest.h>

#include <array>

#include "common/pingpong_choice.h"
#include "tests/host/h200_memory.h"

namespace gemm {
namespace {

constexpr int kClusters = 66;

TEST(PingPongChoice, TheLlmShapeAloneOfTheBenchmarkShapes) {
  EXPECT_TRUE(estimate_pingpong(4096, 14336, 4096, kClusters).pingpong);
  for (const auto& [m, n, k] : {std::array<int, 3>{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},
                                {6144, 6144, 6144}, {8192, 8192, 8192}, {16384, 16384, 16384}, {512, 8192, 8192},
                                {16384, 4096, 14336}})
    EXPECT_FALSE(estimate_pingpong(m, n, k, kClusters).pingpong) << m << "x" << n << "x" << k;
}

TEST(PingPongChoice, TheLlmShapesFigures) {
  // 1792 tiles of 128 × 256 (13.6 per SM) of 64 k blocks, plus 14 boundaries; 1248 cluster tiles of 128 × 184 (78
  // columns): 19 rounds of 64 k blocks of 736 cycles, where 1312 of 128 × 176 (82 columns) need 20 of 704.
  const PingPongEstimate estimate = estimate_pingpong(4096, 14336, 4096, kClusters);
  EXPECT_NEAR(estimate.cooperative_cycles, 1792.0 * 64 * 1024 / 132 + 14 * 3300, 1e-6);
  EXPECT_EQ(estimate.pingpong_width, 184);
  EXPECT_EQ(estimate.pingpong_rounds, 19);
  EXPECT_NEAR(estimate.pingpong_cycles, 19.0 * 64 * 736 * 1.01, 1e-6);
}

TEST(PingPongChoice, TheWidthThatFillsTheRounds) {
  struct Case {
    int m, n, k, width, rounds;
  };
  const Case cases[] = {
      {8192, 8192, 4096, 176, 23},     // 47 columns of 176 and 45 of 184 on 32 cluster rows: 22.8 and 21.8 rounds,
                                       // the same cycles (23 × 704 = 22 × 736): a tie keeps cuBLAS's 176
      {8192, 14336, 4096, 184, 38},    // 2496 cluster tiles of 184 (37.8 rounds) against 2624 of 176 (39.8)
      {16384, 14336, 4096, 184, 76},   // 75.6 rounds against 79.5
      {4096, 28672, 4096, 184, 38},    // 156 columns (37.8 rounds) against 163 (39.5)
      {3900, 11600, 1008, 176, 16},    // 66 columns of 176: 16 rounds exactly; 64 of 184 would need 15.5, so 16
      {3900, 14000, 1008, 184, 19},    // 77 columns (18.7 rounds) against 80 (19.4)
      {16384, 16384, 16384, 176, 92},  // 94 columns (91.2 rounds) against 90 (87.3): 92 × 704 = 88 × 736, a tie
  };
  for (const Case& c : cases) {
    const PingPongEstimate estimate = estimate_pingpong(c.m, c.n, c.k, kClusters);
    EXPECT_EQ(estimate.pingpong_width, c.width) << c.m << "x" << c.n << "x" << c.k;
    EXPECT_EQ(estimate.pingpong_rounds, c.rounds) << c.m << "x" << c.n << "x" << c.k;
  }
}

// Whole 128-row tile rows on the L2's lines: the split clause weighs kernel 14 at the width it launches.
TEST(PingPongChoice, SplitClauseWeighsTheLaunchedWidthOnWholeRowsOnTheLines) {
  EXPECT_TRUE(weighs_launched_width(512, 8192));
  EXPECT_FALSE(weighs_launched_width(520, 8192));  // a ragged last tile row
  EXPECT_FALSE(weighs_launched_width(512, 8208));  // rows off the lines (8208 % 64 = 16)
  // 512 × 10240 × 8192, 128 k blocks: 2 × 40 = 80 cluster tiles of 128 × 256, one whole round and the last 14 split
  // over 66 clusters: (128 + 14 · 128 / 66 + 24) · 1024 + 2 · 3300 = 190051.2. The rule's 176: 59 columns, 118 cluster
  // tiles in 2 rounds, 2 · 128 · 704 · 1.01 = 182026.24, and 190051.2 < 1.05 · 182026.24 = 191127.6. Launched at 160:
  // 64 columns, 128 cluster tiles in 2 rounds, 2 · 128 · 640 · 1.02 · 1.01 = 168812.54, and 190051.2 ≥ 1.05 ·
  // 168812.54 = 177253.2: kernel 14 (measured 0.91 of kernel 15's time there, docs/log/15_few_tiles.md, section 36).
  const PingPongEstimate preset = estimate_pingpong(512, 10240, 8192, kClusters);
  EXPECT_TRUE(preset.split_last_round);
  EXPECT_NEAR(preset.few_tiles_plan.schedule_cycles, (128 + 14 * 128.0 / 66 + 24) * 1024 + 2 * 3300, 1e-6);
  EXPECT_EQ(preset.rule_width, 176);
  EXPECT_NEAR(preset.rule_cycles, 2 * 128 * 704 * 1.01, 1e-6);
  EXPECT_EQ(preset.pingpong_width, 160);
  EXPECT_NEAR(preset.pingpong_cycles, 2 * 128 * 640 * 1.02 * 1.01, 1e-6);
  EXPECT_TRUE(preset.weighs_launched);
  EXPECT_NEAR(preset.clause_cycles(), preset.pingpong_cycles, 1e-6);
  EXPECT_TRUE(preset.pingpong);
  // With a ragged last tile row the rule's width stays what the clause weighs.
  const PingPongEstimate ragged = estimate_pingpong(520, 10240, 8192, kClusters);
  EXPECT_FALSE(ragged.weighs_launched);
  EXPECT_NEAR(ragged.clause_cycles(), ragged.rule_cycles, 1e-6);
}

// Where kernel 15 launches a 128-row wide fitted width in place of one round of whole 128 × 256 tiles (common/
// few_tiles.h, with_wide_fitted_width), kernel 16 weighs the tiles it replaces too. 1500 × 2304 × 2048: 6 × 9 = 54
// cluster tiles of 128 × 256, launched as 6 × 11 = 66 of 128 × 224.
TEST(PingPongChoice, WideFittedWidthsWeighedAsThePlanTheyReplace) {
  const PingPongEstimate estimate = estimate_pingpong(1500, 2304, 2048, kClusters, 0, kH200Memory);
  const FewTilesPlan pick = plan_few_tiles_compared(1500, 2304, 2048, kClusters, 0, kH200Memory);
  EXPECT_EQ(pick.block_n, 256);
  EXPECT_EQ(pick.cluster_tiles, 54);
  EXPECT_TRUE(estimate.few_tiles);
  EXPECT_DOUBLE_EQ(estimate.cooperative_cycles, pick.cycles + kFewTilesWholeCycles);
  EXPECT_EQ(estimate.few_tiles_plan.block_n, 224);
  EXPECT_EQ(estimate.few_tiles_plan.cluster_tiles, 66);
  EXPECT_FALSE(estimate.few_tiles_plan.schedule.splits());
  EXPECT_DOUBLE_EQ(estimate.few_tiles_plan.cycles, pick.cycles);
}

// Where kernel 15 launches 128 × 320 tiles in whole rounds for a split (common/few_tiles.h, with_wide_rounds), kernel
// 16 weighs the plan they replace. 1024 × 10240 × 8192, 128 k blocks: 4 × 40 = 160 cluster tiles of 128 × 256, two
// whole rounds and the last 28 split over 66 clusters: (2 · 128 + 28 · 128 / 66 + 24) · 1024 + 3 · 3300; the split
// clause holds, not the few-tile one; it launches 4 × 32 = 128 cluster tiles of 128 × 320 in two rounds on 64 clusters.
TEST(PingPongChoice, WideTilesInWholeRoundsWeighedAsThePlanTheyReplace) {
  const PingPongEstimate estimate = estimate_pingpong(1024, 10240, 8192, kClusters);
  EXPECT_FALSE(estimate.few_tiles);
  EXPECT_TRUE(estimate.split_last_round);
  EXPECT_NEAR(estimate.few_tiles_plan.schedule_cycles, (2 * 128 + 28 * 128.0 / 66 + 24) * 1024 + 3 * 3300, 1e-6);
  EXPECT_EQ(estimate.few_tiles_plan.block_n, 320);
  EXPECT_EQ(estimate.few_tiles_plan.cluster_tiles, 128);
  EXPECT_EQ(estimate.few_tiles_plan.schedule.workers, 64);
  EXPECT_FALSE(estimate.few_tiles_plan.schedule.splits());
  const FewTilesPlan pick = plan_few_tiles_compared(1024, 10240, 8192, kClusters);
  EXPECT_EQ(pick.block_n, 256);
  EXPECT_EQ(pick.cluster_tiles, 160);
  EXPECT_DOUBLE_EQ(estimate.cooperative_cycles, pick.cycles);
}

// The idle clause: kernel 15's whole rounds on 0.95 of the clusters or fewer, whole tile rows on the lines, kernel 14 at
// 160 columns or more, 2 % ahead at its launched width. 2048 × 4800 × 1600, 25 k blocks: 16 × 19 = 304 tiles of
// 128 × 256, 152 cluster tiles in 3 rounds (no split pays) on ⌈152 / 3⌉ = 51 clusters; kernel 15 costed as kernel 13's
// tiles spread evenly, 304 · 25 · 1024 / 132 + 3 · 3300 = 68857.6. Kernel 14 at 160: 30 columns, 240 cluster tiles in
// 4 rounds, 4 · 25 · 640 · 1.02 · 1.01 = 65932.8, and 68857.6 ≥ 1.02 · 65932.8 = 67251.5: kernel 14 (the rule's 176, 4
// rounds of 704 cycles a k block: 71104, would not have been 2 % ahead). Measured on an H100, kernel 14 took 0.93 of
// kernel 15's time there (docs/log/15_few_tiles.md, section 52).
TEST(PingPongChoice, IdleClauseWhereKernelFifteensRoundsLeaveClustersIdle) {
  const PingPongEstimate idle = estimate_pingpong(2048, 4800, 1600, kClusters);
  EXPECT_FALSE(idle.few_tiles);
  EXPECT_FALSE(idle.split_last_round);
  const FewTilesPlan idle_pick = plan_few_tiles_compared(2048, 4800, 1600, kClusters);
  EXPECT_EQ(idle_pick.cluster_tiles, 152);
  EXPECT_EQ(idle_pick.schedule.workers, 51);
  // Kernel 15 would launch 128 × 208 tiles there (4800 / 208 = 23.1 → 24 columns, 192 cluster tiles in 3 rounds on
  // 64 clusters: with_wide_fitted_rounds); the clause weighs the pick, whose rounds were measured against kernel 14.
  EXPECT_EQ(idle.few_tiles_plan.block_n, 208);
  EXPECT_EQ(idle.few_tiles_plan.cluster_tiles, 192);
  EXPECT_TRUE(idle.idle_clusters);
  EXPECT_TRUE(idle.idle_clause);
  EXPECT_NEAR(idle.cooperative_cycles, 304 * 25 * 1024.0 / 132 + 3 * 3300, 1e-6);
  EXPECT_EQ(idle.pingpong_width, 160);
  EXPECT_NEAR(idle.pingpong_cycles, 4 * 25 * 640 * 1.02 * 1.01, 1e-6);
  EXPECT_NEAR(idle.rule_cycles, 4 * 25 * 704 * 1.01, 1e-6);
  EXPECT_TRUE(idle.weighs_launched);
  EXPECT_LT(idle.rule_rounds, kPingPongMinRounds);  // the rounds clause does not hold
  EXPECT_TRUE(idle.pingpong);
  // The same rounds, but a ragged last tile row (2040) or rows off the lines (K = 1616): kernel 15.
  for (const auto& [m, n, k] : {std::array{2040, 4800, 1600}, std::array{2048, 4800, 1616}}) {
    const PingPongEstimate off = estimate_pingpong(m, n, k, kClusters);
    EXPECT_TRUE(off.idle_clusters) << m << "x" << n << "x" << k;
    EXPECT_FALSE(off.idle_clause) << m << "x" << n << "x" << k;
    EXPECT_FALSE(off.pingpong) << m << "x" << n << "x" << k;
  }
  // 3072 × 6144 × 1152: 288 cluster tiles in 5 rounds on 58 clusters, the model 10 % ahead, but kernel 14 launches
  // 128 × 144: kernel 15.
  const PingPongEstimate narrow = estimate_pingpong(3072, 6144, 1152, kClusters);
  EXPECT_TRUE(narrow.idle_clusters);
  EXPECT_EQ(narrow.pingpong_width, 144);
  EXPECT_FALSE(narrow.idle_clause);
  EXPECT_FALSE(narrow.pingpong);
  // 1024 × 28672 × 4096 (a preset) and 4096 × 8192 × 4096 (the 16-round guard's shape): rounds on 64 of 66 clusters,
  // more than 0.95 of them: no idle clause, kernel 15.
  for (const auto& [m, n, k] : {std::array{1024, 28672, 4096}, std::array{4096, 8192, 4096}}) {
    const PingPongEstimate busy = estimate_pingpong(m, n, k, kClusters);
    EXPECT_EQ(plan_few_tiles_compared(m, n, k, kClusters).schedule.workers, 64) << m << "x" << n << "x" << k;
    EXPECT_FALSE(busy.idle_clusters) << m << "x" << n << "x" << k;
    EXPECT_FALSE(busy.pingpong) << m << "x" << n << "x" << k;
  }
}

// The rule weighs kernel 14 at 176 or 184 columns; the kernel then launches the best of 144, 160, 176 and 184, each
// weighed by its k block's factor (1.04, 1.02, 1, 1; docs/log/15_few_tiles.md, section 20).
TEST(PingPongChoice, TheRuleWeighsTwoWidthsTheKernelLaunchesFour) {
  // 1024 × 4672 × 4544, 71 k blocks, 4 cluster rows: 27 columns of 176 (108 cluster tiles, 2 rounds:
  // 2 · 71 · 704 · 1.01 = 100967.68 for the rule, which takes kernel 14 against kernel 15's split schedule, 114.9 k ≥
  // 1.05 · 100967.68); launched at 144, 33 columns (132 cluster tiles, 2 rounds): 2 · 71 · 576 · 1.04 · 1.01.
  const PingPongEstimate falcon = estimate_pingpong(1024, 4672, 4544, kClusters);
  EXPECT_TRUE(falcon.pingpong);
  EXPECT_EQ(falcon.rule_width, 176);
  EXPECT_EQ(falcon.rule_rounds, 2);
  EXPECT_NEAR(falcon.rule_cycles, 2 * 71 * 704 * 1.01, 1e-6);
  EXPECT_EQ(falcon.pingpong_width, 144);
  EXPECT_EQ(falcon.pingpong_cluster_tiles, 132);
  EXPECT_EQ(falcon.pingpong_rounds, 2);
  EXPECT_NEAR(falcon.pingpong_cycles, 2 * 71 * 576 * 1.04 * 1.01, 1e-6);
  // 400 × 10208 × 11792: at 160 columns kernel 14 would be modelled ahead of kernel 15 (64 columns, 128 cluster tiles
  // in 2 rounds, 2 · 185 · 640 · 1.02 · 1.01 = 243.9 k against its split schedule's 260.8 k), but the rule weighs 176
  // (58 columns, 2 rounds, 263.1 k): kernel 15, which measured 1.19 times faster there than kernel 14 at 160.
  const PingPongEstimate long_k = estimate_pingpong(400, 10208, 11792, kClusters);
  EXPECT_EQ(long_k.pingpong_width, 160);
  EXPECT_NEAR(long_k.pingpong_cycles, 2 * 185 * 640 * 1.02 * 1.01, 1e-6);
  EXPECT_EQ(long_k.rule_width, 176);
  EXPECT_NEAR(long_k.rule_cycles, 2 * 185 * 704 * 1.01, 1e-6);
  EXPECT_FALSE(long_k.pingpong);
  // Where the rule's width is the best of the four, both agree: the LLM shape's 19 rounds of 184.
  const PingPongEstimate llm = estimate_pingpong(4096, 14336, 4096, kClusters);
  EXPECT_EQ(llm.pingpong_width, 184);
  EXPECT_EQ(llm.rule_width, 184);
  EXPECT_EQ(llm.rule_rounds, llm.pingpong_rounds);
  EXPECT_NEAR(llm.rule_cycles, llm.pingpong_cycles, 1e-6);
}

TEST(PingPongChoice, TheSweepOfItsNotes) {
  struct Case {
    int m, n, k;
    bool pingpong;
  };
  const Case cases[] = {
      {4096, 14336, 2048, true},   {4096, 14336, 14336, false},  // 0.1 % behind in the model
      {4096, 8192, 4096, false},   // 11 rounds: too few, though the model puts it 2.2 % ahead
      {4096, 11008, 4096, false},  {4096, 28672, 4096, true},
      {2048, 14336, 4096, false},  // 10 rounds: too few, though the model puts it 2.8 % ahead
      {8192, 14336, 4096, true},   {16384, 14336, 4096, true},  {8192, 8192, 4096, true},
      // 1 % ahead in the model, taken since the margin is 0.5 % (the sweep measured them 0.4-0.7 % faster in kernel 14)
      {4096, 14336, 8192, true},   {8192, 28672, 8192, true},
  };
  for (const Case& c : cases)
    EXPECT_EQ(estimate_pingpong(c.m, c.n, c.k, kClusters).pingpong, c.pingpong) << c.m << "x" << c.n << "x" << c.k;
}

TEST(PingPongChoice, TheShapesThatTestTheKernel) {
  // The suite's shapes for it (runner/shapes.cpp) and scripts/sanitize.sh's: each width on each list.
  for (const auto& [m, n, k, width] :
       {std::array<int, 4>{3900, 14000, 1008, 184}, {3900, 11600, 1008, 176}, {3900, 12360, 1008, 160},
        {3900, 15880, 1008, 144}, {3900, 14000, 48, 184}, {3900, 11600, 48, 176}, {3900, 12360, 48, 160},
        {3900, 15880, 48, 144}}) {
    const PingPongEstimate estimate = estimate_pingpong(m, n, k, kClusters);
    EXPECT_TRUE(estimate.pingpong) << m << "x" << n << "x" << k;
    EXPECT_EQ(estimate.pingpong_width, width) << m << "x" << n << "x" << k;
  }
}

// Kernel 14's C only where K is a multiple of 16 (its Cᵀ: the transposed clause's test below). Otherwise each row of A
// and B starts 16 bytes into a 32-byte sector, and kernel 14 measured 2-15 % slower than kernel 15 where the rule would
// have taken it (kernel 16's notes): the LLM shape with K = 4104, 200 × 11008 × 4104 (few tiles) and 1024 × 4608 × 3592
// (the split clause) go to kernel 15, the same shapes with K one 16 further to kernel 14.
TEST(PingPongChoice, CAsGivenOnlyWhereKIsAMultipleOf16) {
  for (const auto& [m, n, k] : {std::array<int, 3>{4096, 14336, 4096}, {200, 11008, 4096}, {1024, 4608, 3584}}) {
    for (const int ragged_k : {k + 8, k + 24, k - 8}) {
      const PingPongEstimate estimate = estimate_pingpong(m, n, ragged_k, kClusters);
      EXPECT_FALSE(estimate.k_aligned) << m << "x" << n << "x" << ragged_k;
      EXPECT_FALSE(estimate.pingpong) << m << "x" << n << "x" << ragged_k;
    }
    for (const int aligned_k : {k, k + 16}) {
      const PingPongEstimate estimate = estimate_pingpong(m, n, aligned_k, kClusters);
      EXPECT_TRUE(estimate.k_aligned) << m << "x" << n << "x" << aligned_k;
      EXPECT_TRUE(estimate.pingpong) << m << "x" << n << "x" << aligned_k;
    }
  }
  // Measured on the H200 with K % 16 = 8: 6080 × 9664 × 8280, 20 rounds, the model 2 % ahead for kernel 14; it was
  // 12 % slower than kernel 15.
  EXPECT_FALSE(estimate_pingpong(6080, 9664, 8280, kClusters).pingpong);
  EXPECT_TRUE(estimate_pingpong(6080, 9664, 8288, kClusters).pingpong);
}

TEST(PingPongChoice, FewerClustersMeanMoreRounds) {
  // A 114-SM H100 (PCIe) launches 57 clusters: the same shape takes more, fuller rounds.
  EXPECT_EQ(estimate_pingpong(4096, 14336, 4096, 57).pingpong_rounds, 22);  // 1248 / 57 = 21.9 (of 184)
  EXPECT_EQ(estimate_pingpong(1, 8, 8, 66).pingpong_rounds, 1);
}

// Few tiles: fewer than two rounds of 128 × 256 cluster tiles. Figures worked by hand from the constants of
// common/few_tiles.h: kernel 15's plan costs every tiling (k blocks of 1024 cycles for 128 × 256, 768 · 1.04 = 798.72
// for 128 × 192, 512 · 1.19 = 609.28 for 128 × 128, 384 · 1.56 = 599.04 for 64 × 192, 256 · 1.87 = 478.72 for
// 64 × 128); with fewer tiles than clusters, whole tiles cost k blocks · block cycles + 3300 (plus 14 · 1024 against
// kernel 14, which pays its rounds plus 20 · 1024); with more, a worker's rounds of k blocks and 3300 a round.
TEST(PingPongChoice, FewTileFigures) {
  // 1024³, 16 k blocks: 64 × 128 tiles, 16 tile rows in 2 × 1 clusters × 8 columns = 64 cluster tiles, whole (a split's
  // fixed 24 · 1024 / 478.72 = 51 blocks cannot pay): 16 · 478.72 + 3300 = 10959.52, against 64 × 192 (48 cluster
  // tiles) 16 · 599.04 + 3300 = 12884.64 and 128 × 128 (32) 16 · 609.28 + 3300 = 13048.48. Kernel 14: 4 × 6 = 24
  // cluster tiles of 176, one round: 16 · 704 · 1.01 + 20480 = 31856.64. Kernel 15.
  const PingPongEstimate cube = estimate_pingpong(1024, 1024, 1024, kClusters);
  EXPECT_TRUE(cube.few_tiles);
  EXPECT_EQ(cube.few_tiles_plan.block_m, 64);
  EXPECT_EQ(cube.few_tiles_plan.block_n, 128);
  EXPECT_EQ(cube.few_tiles_plan.cluster_tiles, 64);
  EXPECT_FALSE(cube.few_tiles_plan.schedule.splits());
  EXPECT_NEAR(cube.few_tiles_plan.cycles, 16 * 478.72 + 3300, 1e-6);
  EXPECT_NEAR(cube.cooperative_cycles, 16 * 478.72 + 3300 + 14 * 1024, 1e-6);
  EXPECT_NEAR(cube.rule_cycles, 16 * 704 * 1.01 + 20480, 1e-6);
  EXPECT_FALSE(cube.pingpong);
  // 512 × 4096 × 14336, 224 k blocks: 64 cluster tiles of 128 × 128, whole: 224 · 609.28 + 3300 = 139778.72, against
  // 32 tiles of 128 × 256 split over 66 clusters, (1.1 · 7168 / 66 + 24 + 330 / 32) · 1024 + 3300 = 160.8 k, and 44
  // of 128 × 192 split over 66, (1.1 · 9856 / 66 + 30.77 + 7.5) · 798.72 + 3300 = 165.1 k. Kernel 15.
  const PingPongEstimate down = estimate_pingpong(512, 4096, 14336, kClusters);
  EXPECT_EQ(down.few_tiles_plan.block_m, 128);
  EXPECT_EQ(down.few_tiles_plan.block_n, 128);
  EXPECT_EQ(down.few_tiles_plan.cluster_tiles, 64);
  EXPECT_NEAR(down.few_tiles_plan.cycles, 224 * 609.28 + 3300, 1e-6);
  EXPECT_FALSE(down.pingpong);
  // 256 × 4096 × 4096, 64 k blocks: 32 cluster tiles of 128 × 128, each in 2 equal shares on 64 clusters:
  // 1.25 · 32 · 609.28 + 4800 + 3300 = 32471.2, against 64 of 64 × 128 whole (64 · 478.72 + 3300 = 33938.08), 44 of
  // 64 × 192 whole (41638.56), 22 of 128 × 192 in 3 shares (1.25 · 64 / 3 · 798.72 + 1.5 · 4800 · 2 + 3300 = 38999.2)
  // and 16 of 128 × 256 in 4 (1.25 · 16 · 1024 + 2 · 4800 · 3 + 3300 = 52580).
  const PingPongEstimate tokens256 = estimate_pingpong(256, 4096, 4096, kClusters);
  EXPECT_EQ(tokens256.few_tiles_plan.block_m, 128);
  EXPECT_EQ(tokens256.few_tiles_plan.block_n, 128);
  EXPECT_EQ(tokens256.few_tiles_plan.cluster_tiles, 32);
  EXPECT_EQ(tokens256.few_tiles_plan.schedule.workers, 64);
  EXPECT_NEAR(tokens256.few_tiles_plan.cycles, 1.25 * 32 * 609.28 + 4800 + 3300, 1e-6);
  // 512 × 6144 × 4096: 2 × 32 = 64 cluster tiles of 128 × 192 (6144 = 32 · 192), whole: 64 · 798.72 + 3300 =
  // 54418.08, against 48 of 128 × 256 whole, 64 · 1024 + 3300 = 68836.
  const PingPongEstimate wide = estimate_pingpong(512, 6144, 4096, kClusters);
  EXPECT_EQ(wide.few_tiles_plan.block_m, 128);
  EXPECT_EQ(wide.few_tiles_plan.block_n, 192);
  EXPECT_EQ(wide.few_tiles_plan.cluster_tiles, 64);
  EXPECT_NEAR(wide.few_tiles_plan.cycles, 64 * 798.72 + 3300, 1e-6);
  // 1024 × 6144 × 4096: 96 cluster tiles of 128 × 256 (1.45 rounds) split their last 30 over 66 clusters:
  // (64 + 1920 / 66 + 24) · 1024 + 2 · 3300 = 126.5 k; 4 × 32 = 128 of 128 × 192 take two whole rounds on 64
  // clusters: 128 · 798.72 + 2 · 3300 = 108836.16. Kernel 14: 4 × 35 = 140 cluster tiles of 176 in 3 rounds,
  // 3 · 64 · 704 · 1.01 + 20480 = 156999.68. Kernel 15 with 128 × 192 tiles.
  const PingPongEstimate rounds2 = estimate_pingpong(1024, 6144, 4096, kClusters);
  EXPECT_EQ(rounds2.few_tiles_plan.block_n, 192);
  EXPECT_EQ(rounds2.few_tiles_plan.cluster_tiles, 128);
  EXPECT_EQ(rounds2.few_tiles_plan.schedule.workers, 64);
  EXPECT_FALSE(rounds2.few_tiles_plan.schedule.splits());
  EXPECT_NEAR(rounds2.few_tiles_plan.cycles, 128 * 798.72 + 2 * 3300, 1e-6);
  EXPECT_NEAR(rounds2.rule_cycles, 3 * 64 * 704 * 1.01 + 20480, 1e-6);
  EXPECT_FALSE(rounds2.pingpong);
  // 128 × 4096 × 14336: 128 × 128 tiles in 1 × 2 clusters, 16 cluster tiles of 224 k blocks, split over all 66
  // clusters (1.1 · 3584 / W + 24 · 1024 / 609.28 + 5 W / 16 falls all the way to 66: 120.7 blocks, 73.5 k cycles),
  // ahead of 64 × 128 tiles split (32 cluster tiles, 181.1 blocks of 478.72: 86.7 k) and 128 × 192 ones (11 cluster
  // tiles, 101.8 blocks of 798.72: 81.3 k), with 3300 each: 76.8 k. Even splits, in 2 × 1 clusters only, where the
  // tiles are at most half of 66 clusters and a share keeps 16 k blocks: 22 cluster tiles of 64 × 192 in 3 shares,
  // 1.25 · 224 / 3 · 599.04 + 1.5 · 4800 · 2 + 3300 = 73610.4, ahead of the 1 × 2 split, of 32 tiles of 64 × 128 in 2
  // shares (1.25 · 112 · 478.72 + 4800 + 3300 = 75120.8) and of 32 of 128 × 128 in 2 (half their CTAs below row 128:
  // 1.25 · 112 · 609.28 + 4800 + 3300 = 93399.2). Kernel 15.
  const PingPongEstimate thin = estimate_pingpong(128, 4096, 14336, kClusters);
  EXPECT_EQ(thin.few_tiles_plan.block_m, 64);
  EXPECT_EQ(thin.few_tiles_plan.block_n, 192);
  EXPECT_FALSE(thin.few_tiles_plan.cluster_along_n());
  EXPECT_EQ(thin.few_tiles_plan.cluster_tiles, 22);
  EXPECT_EQ(thin.few_tiles_plan.schedule.workers, 66);
  EXPECT_EQ(thin.few_tiles_plan.schedule.whole_tiles, 0);
  EXPECT_NEAR(thin.few_tiles_plan.cycles, 1.25 * 224 / 3 * 599.04 + 1.5 * 4800 * 2 + 3300, 1e-6);
  EXPECT_FALSE(thin.pingpong);
  // 2048³: 64 cluster tiles of 128 × 256 whole (32 · 1024 + 3300 = 36068), against two rounds of 128 cluster tiles of
  // 128 × 128 on 64 clusters, 64 · 609.28 + 2 · 3300 = 45593.92, or of 88 of 128 × 192 on 44, 64 · 798.72 + 6600.
  // Kernel 15.
  const PingPongEstimate square = estimate_pingpong(2048, 2048, 2048, kClusters);
  EXPECT_EQ(square.few_tiles_plan.block_n, 256);
  EXPECT_NEAR(square.few_tiles_plan.cycles, 32 * 1024 + 3300, 1e-6);
  EXPECT_FALSE(square.pingpong);
  // 200 × 11008 × 4096: 58 cluster tiles of 128 × 192 whole (11008 / 192 = 57.3), 64 · 798.72 + 3300 + 14336 =
  // 68754.08, against one round of 60 cluster tiles of 176 plus 20480: 45507 + 20480 = 65987, times 1.02 = 67306.7.
  // Kernel 14.
  EXPECT_TRUE(estimate_pingpong(200, 11008, 4096, kClusters).pingpong);
  // 256 × 10240 × 8192: kernel 15's plan is 64 cluster tiles of the fitted width 128 × 160 whole, 128 · 640 · 1.155 +
  // 3300 = 97.9 k (ahead of 54 of 128 × 192, 128 · 798.72 + 3300 = 105.5 k, by more than 5 %); against kernel 14 whole
  // tiles pay 14336 more, 112.3 k, and kernel 14's one round of 59 cluster tiles of 176 plus 20480 is 111.5 k, not 2 %
  // ahead. Kernel 15 (level with kernel 14 there: docs/log/15_few_tiles.md, section 35).
  const PingPongEstimate fitted = estimate_pingpong(256, 10240, 8192, kClusters);
  EXPECT_FALSE(fitted.pingpong);
  EXPECT_EQ(fitted.few_tiles_plan.block_n, 160);
  EXPECT_NEAR(fitted.few_tiles_plan.cycles, 128 * 640 * 1.155 + 3300, 1e-6);
}

// Many tiles with a split last round: kernel 14 where kernel 15's own schedule (whole rounds, its share of the split
// tiles, the split's fixed 24 k blocks; 3300 cycles a round) puts it 5 % ahead, whatever the rounds.
TEST(PingPongChoice, SplitLastRoundByItsSchedule) {
  // 1024 × 4608 × 3584, 56 k blocks: 4 × 18 = 72 cluster tiles of 128 × 256, one whole round and the last 6 split over
  // 66 clusters: (56 + 336 / 66 + 24) · 1024 + 2 · 3300 = 93735.3 (evenly spread: 144 · 56 · 1024 / 132 + 6600 =
  // 69157.8); 96 of 128 × 192 would take two whole rounds on 48 clusters, 112 · 798.72 + 6600 = 96056.6. Kernel 14:
  // 4 × 27 = 108 cluster tiles of 176 in two rounds, 2 · 56 · 704 · 1.01 = 79636.48; 93735.3 ≥ 1.05 · 79636.48 =
  // 83618.3. Kernel 14 (the spread model alone, 69157.8, would keep kernel 15).
  const PingPongEstimate few_split = estimate_pingpong(1024, 4608, 3584, kClusters);
  EXPECT_FALSE(few_split.few_tiles);
  EXPECT_TRUE(few_split.split_last_round);
  // Weighed by the plan its model compares (kernel 15 would launch 60 cluster tiles of 128 × 320 in its place:
  // common/few_tiles.h, with_wide_rounds).
  const FewTilesPlan few_split_pick = plan_few_tiles_compared(1024, 4608, 3584, kClusters);
  EXPECT_EQ(few_split_pick.block_n, 256);
  EXPECT_EQ(few_split_pick.schedule.split_tiles(), 6);
  EXPECT_EQ(few_split.few_tiles_plan.block_n, 320);
  EXPECT_NEAR(few_split.few_tiles_plan.schedule_cycles, (56 + 336.0 / 66 + 24) * 1024 + 2 * 3300, 1e-6);
  EXPECT_NEAR(few_split.cooperative_cycles, 144.0 * 56 * 1024 / 132 + 2 * 3300, 1e-6);
  EXPECT_EQ(few_split.rule_rounds, 2);
  EXPECT_NEAR(few_split.rule_cycles, 2 * 56 * 704 * 1.01, 1e-6);
  EXPECT_TRUE(few_split.pingpong);
  // Launched at 144 columns (4608 = 32 · 144): 4 × 32 = 128 cluster tiles, two rounds of 576-cycle k blocks weighed
  // 1.04, 2 · 56 · 576 · 1.04 · 1.01 = 67763.4, ahead of 160 (4 × 29 = 116, 2 · 56 · 640 · 1.02 · 1.01) and 176.
  EXPECT_EQ(few_split.pingpong_width, 144);
  EXPECT_EQ(few_split.pingpong_cluster_tiles, 128);
  EXPECT_NEAR(few_split.pingpong_cycles, 2 * 56 * 576 * 1.04 * 1.01, 1e-6);
  // 512 × 28672 × 4096, 64 k blocks: 224 cluster tiles, three whole rounds and the last 26 split:
  // (192 + 1664 / 66 + 24) · 1024 + 4 · 3300 = 260.2 k; kernel 14: 326 cluster tiles of 176 in 5 rounds,
  // 5 · 64 · 704 · 1.01 = 227532.8, times 1.05 = 238.9 k. Kernel 14.
  const PingPongEstimate wide = estimate_pingpong(512, 28672, 4096, kClusters);
  EXPECT_TRUE(wide.split_last_round);
  EXPECT_NEAR(wide.few_tiles_plan.schedule_cycles, (192 + 1664.0 / 66 + 24) * 1024 + 4 * 3300, 1e-6);
  EXPECT_NEAR(wide.rule_cycles, 5 * 64 * 704 * 1.01, 1e-6);
  EXPECT_TRUE(wide.pingpong);
  // 3072 × 3584 × 6144, 96 k blocks: 12 × 14 = 168 cluster tiles, two whole rounds and the last 36 split:
  // (192 + 3456 / 66 + 24) · 1024 + 3 · 3300 = 284.7 k (its 128 × 192 and 128 × 128 tiles would split too); kernel 14:
  // 12 × 21 = 252 cluster tiles of 176 in 4 rounds, 4 · 96 · 704 · 1.01 = 273039.36, times 1.05 = 286.7 k. Kernel 15.
  const PingPongEstimate near = estimate_pingpong(3072, 3584, 6144, kClusters);
  EXPECT_TRUE(near.split_last_round);
  EXPECT_EQ(near.few_tiles_plan.block_n, 256);
  EXPECT_NEAR(near.few_tiles_plan.schedule_cycles, (192 + 3456.0 / 66 + 24) * 1024 + 3 * 3300, 1e-6);
  EXPECT_NEAR(near.rule_cycles, 4 * 96 * 704 * 1.01, 1e-6);
  EXPECT_FALSE(near.pingpong);
  // 3072³: kernel 15 takes 128 × 192 tiles in three whole rounds (test_stream_k.cpp), 124915.68 cycles, costed as a
  // narrow plan: plus 14 · 1024 against kernel 14's 4 · 48 · 704 · 1.01 + 20 · 1024 = 156999.68. Kernel 15.
  const PingPongEstimate cube = estimate_pingpong(3072, 3072, 3072, kClusters);
  EXPECT_TRUE(cube.few_tiles);
  EXPECT_FALSE(cube.split_last_round);
  EXPECT_NEAR(cube.cooperative_cycles, 3 * 48 * 798.72 + 3 * 3300 + 14 * 1024, 1e-6);
  EXPECT_NEAR(cube.rule_cycles, 4 * 48 * 704 * 1.01 + 20 * 1024, 1e-6);
  EXPECT_FALSE(cube.pingpong);
  // No split, no second clause: 4096 × 8192 × 4096 is 512 cluster tiles in 8 whole rounds on 64 clusters.
  const PingPongEstimate whole = estimate_pingpong(4096, 8192, 4096, kClusters);
  EXPECT_FALSE(whole.split_last_round);
  EXPECT_FALSE(whole.pingpong);
}

// Tiles at most half the clusters: every tile split into S = ⌊clusters / tiles⌋ equal shares, where a share keeps 16 k
// blocks (StreamKSchedule::kMinEvenShareBlocks), a candidate of each tiling in 2 × 1 clusters, and the plan's pick split
// so whatever its orientation; a share's k block costs 1.25 times a whole tile's, and the fix-up 4800 cycles for each
// of the S - 1 partials, per 64 × 128 partial of a consumer warpgroup.
TEST(PingPongChoice, EvenSplits) {
  // even_split_cycles by hand: 12 tiles of 64 × 128, 140 k blocks, 5 shares on 60 of 66 clusters:
  // 1.25 · 28 · 478.72 + 4800 · 4 + 3300 = 39255.2; 16 tiles of 128 × 256, 64 k blocks, 4 shares:
  // 1.25 · 16 · 1024 + 4800 · 2 · 3 + 3300 = 52580; none for 34 tiles (more than half of 66) or shares of 15 k blocks.
  EXPECT_NEAR(even_split_cycles(12, 140, kClusters, 64, 128, 478.72), 1.25 * 28 * 478.72 + 4800 * 4 + 3300, 1e-6);
  EXPECT_NEAR(even_split_cycles(16, 64, kClusters, 128, 256, 1024), 1.25 * 16 * 1024 + 4800 * 2 * 3 + 3300, 1e-6);
  EXPECT_EQ(even_split_cycles(34, 4096, kClusters, 64, 128, 478.72), 0);
  EXPECT_EQ(even_split_cycles(16, 4 * 15 + 3, kClusters, 64, 128, 478.72), 0);
  EXPECT_GT(even_split_cycles(16, 4 * 16, kClusters, 64, 128, 478.72), 0);
  // 128 × 4096 × 4096: 32 cluster tiles of 64 × 128 (whole by make_few_tiles), 2 shares of 32 k blocks on 64
  // clusters: 1.25 · 32 · 478.72 + 4800 + 3300 = 27248.8, ahead of 16 of 128 × 128 (1 × 2 clusters) in 4 shares,
  // 1.25 · 16 · 609.28 + 4800 · 3 + 3300 = 29885.6.
  const FewTilesPlan square = plan_few_tiles(128, 4096, 4096, kClusters);
  EXPECT_EQ(square.block_m, 64);
  EXPECT_EQ(square.cluster_tiles, 32);
  EXPECT_EQ(square.schedule.workers, 64);
  EXPECT_EQ(square.schedule.whole_tiles, 0);
  EXPECT_NEAR(square.cycles, 1.25 * 32 * 478.72 + 4800 + 3300, 1e-6);
  // Kernel 16 weighs that split as the plan costs it: no allowance for a short launch of whole tiles (the split's
  // fixed cost is in its cycles already), and not as a split last round (its tiles are few, not rounds of many).
  const PingPongEstimate square_choice = estimate_pingpong(128, 4096, 4096, kClusters);
  EXPECT_TRUE(square_choice.few_tiles);
  EXPECT_FALSE(square_choice.split_last_round);
  EXPECT_NEAR(square_choice.cooperative_cycles, 1.25 * 32 * 478.72 + 4800 + 3300, 1e-6);
  // 22 cluster tiles (128 × 2816 × 4096): 3 shares on all 66 clusters; 12 (128 × 1536 × 8960): 5 shares on 60.
  EXPECT_EQ(plan_few_tiles(128, 2816, 4096, kClusters).schedule.workers, 66);
  EXPECT_EQ(plan_few_tiles(128, 1536, 8960, kClusters).schedule.workers, 60);
  // A share of 8 k blocks is too short (128 × 4096 × 1024): whole tiles, as make_few_tiles had them.
  const FewTilesPlan short_k = plan_few_tiles(128, 4096, 1024, kClusters);
  EXPECT_EQ(short_k.cluster_tiles, 32);
  EXPECT_FALSE(short_k.schedule.splits());
  // 128 × 6144 × 4096: 48 cluster tiles of 64 × 128 are more than half of 66, whole (64 · 478.72 + 3300 = 33938.08),
  // ahead of 32 of 64 × 192 in 2 shares (1.25 · 32 · 599.04 + 1.5 · 4800 + 3300 = 34461.6). (24 of 128 × 128 in 1 × 2
  // clusters would cost 32471.2 split in two, but 1 × 2 clusters are no even-split candidates.)
  const FewTilesPlan wide = plan_few_tiles(128, 6144, 4096, kClusters);
  EXPECT_EQ(wide.block_m, 64);
  EXPECT_EQ(wide.block_n, 128);
  EXPECT_EQ(wide.cluster_tiles, 48);
  EXPECT_FALSE(wide.schedule.splits());
  EXPECT_NEAR(wide.cycles, 64 * 478.72 + 3300, 1e-6);
  // No even-split candidates with a CTA row wholly below M: at 320 × 1536 × 11008, 128-row tiles in 2 × 1 clusters
  // make 3 tile rows in 2 cluster rows (16 cluster tiles of 128 × 192 would cost 1.25 · 43 · 798.72 +
  // 1.5 · 4800 · 3 + 3300 = 67831.2); the pick is 18 of 128 × 128 in 1 × 2 clusters, split evenly in 3 on 54 clusters.
  const FewTilesPlan ragged = plan_few_tiles(320, 1536, 11008, kClusters);
  EXPECT_EQ(ragged.block_m, 128);
  EXPECT_EQ(ragged.block_n, 128);
  EXPECT_TRUE(ragged.cluster_along_n());
  EXPECT_EQ(ragged.cluster_tiles, 18);
  EXPECT_EQ(ragged.schedule.workers, 54);
  // Nor with shares under 32 k blocks: at 192 × 2560 × 3072 (48 k blocks), 20 cluster tiles of 128 × 128 in 3 shares
  // of 16 are no candidate; the pick, 30 of 64 × 128 in 1 × 2 clusters, is split in 2 (its shares of 24 allowed).
  const FewTilesPlan short_shares = plan_few_tiles(192, 2560, 3072, kClusters);
  EXPECT_EQ(short_shares.block_m, 64);
  EXPECT_TRUE(short_shares.cluster_along_n());
  EXPECT_EQ(short_shares.cluster_tiles, 30);
  EXPECT_EQ(short_shares.schedule.workers, 60);
  // 1024 × 1024 × 1024: 64 tiles of 64 × 128, whole; 32 of 128 × 128 would have shares of 8 k blocks, none.
  EXPECT_FALSE(plan_few_tiles(1024, 1024, 1024, kClusters).schedule.splits());
}

// Where kernel 15's plan costs 2 × 2 clusters (rows off the lines, few tiles), the ping-pong's k blocks are charged
// what its pairs are (1.25); elsewhere nothing. 704 × 3544 × 14000 (K % 16 = 0, K % 64 = 48): the ping-pong's rounds of
// k blocks cost 1.25 times as much, its allowance for a short launch (20 · 1024) the same; kernel 15 takes 128 × 192
// tiles in 2 × 2 clusters and kernel 16 it instead of the ping-pong it took before.
TEST(PingPongChoice, OffTheLinesThePingPongPaysAsPairsDo) {
  const PingPongEstimate before = estimate_pingpong(704, 3544, 14000, 66);
  const PingPongEstimate quads = estimate_pingpong(704, 3544, 14000, 66, 30);
  EXPECT_TRUE(before.pingpong);
  EXPECT_FALSE(quads.pingpong);
  EXPECT_TRUE(quads.few_tiles_plan.quad_clusters());
  EXPECT_EQ(quads.few_tiles_plan.block_n, 192);
  EXPECT_NEAR(quads.pingpong_cycles - 20 * 1024, 1.25 * (before.pingpong_cycles - 20 * 1024), 1e-6);
  // K a multiple of 64: the same estimate with or without clusters of four.
  const PingPongEstimate aligned = estimate_pingpong(704, 3544, 14016, 66, 30);
  EXPECT_DOUBLE_EQ(aligned.pingpong_cycles, estimate_pingpong(704, 3544, 14016, 66).pingpong_cycles);
  EXPECT_DOUBLE_EQ(aligned.cooperative_cycles, estimate_pingpong(704, 3544, 14016, 66).cooperative_cycles);
}

// Kernel 15's whole tiles in place of a split that waits on the DRAM (common/few_tiles.h) are weighed as its whole
// tiles always are, their cycles and kFewTilesWholeCycles; a split it keeps, by its compute as before (weighed at its
// DRAM time, the pick moved to kernel 14 where that was 4-5 % slower: docs/log/15_few_tiles.md, section 23). At
// 1032 × 1872 × 20928 (H200: 2310 bytes an SM cycle, 60 MiB of L2): 327 · 768 · 1.04 + 3300 + 14 · 1024 = 278817,
// against kernel 14's 253 k at the rule's width with the few-tile allowance, 2 % ahead: kernel 14, where by compute
// alone kernel 15's split (230 k) kept it. At 208 × 8608 × 12160 the split stays and so do the figures.
TEST(PingPongChoice, WholeTilesOverTheDramWeighedAsWholeTiles) {
  const PingPongEstimate compute_only = estimate_pingpong(1032, 1872, 20928, 66);
  const PingPongEstimate dram = estimate_pingpong(1032, 1872, 20928, 66, 0, kH200Memory);
  EXPECT_FALSE(compute_only.pingpong);
  EXPECT_TRUE(dram.few_tiles_plan.whole_over_dram);
  EXPECT_NEAR(dram.cooperative_cycles, 327 * 768 * 1.04 + 3300 + 14 * 1024, 1e-6);
  EXPECT_DOUBLE_EQ(dram.rule_cycles, compute_only.rule_cycles);
  EXPECT_GE(dram.cooperative_cycles, kPingPongMargin * dram.rule_cycles);
  EXPECT_TRUE(dram.pingpong);
  const PingPongEstimate kept = estimate_pingpong(208, 8608, 12160, 66, 0, kH200Memory);
  EXPECT_FALSE(kept.few_tiles_plan.whole_over_dram);
  EXPECT_DOUBLE_EQ(kept.cooperative_cycles, estimate_pingpong(208, 8608, 12160, 66).cooperative_cycles);
  EXPECT_EQ(kept.pingpong, estimate_pingpong(208, 8608, 12160, 66).pingpong);
}

// Kernel 14's own plan (plan_pingpong): Cᵀ where the token count is ragged and its rounds need kTransposedMargin fewer
// cycles. 704 × 4096 × 11008, 172 k blocks: as given 6 tile rows in 3 cluster rows, at best 29 columns of 144 in 2
// rounds (2 · 172 · 576 · 1.04 · 1.01); transposed 32 tile rows in 16 cluster rows, 4 columns of 176 (704 = 4 · 176)
// in 1 round (172 · 704 · 1.01), 0.59 of it.
TEST(PingPongChoice, KernelFourteenComputesCTransposedWhereItsRoundsNeedTenPerCentFewer) {
  const PingPongWidths given = pingpong_widths(704, 4096, 11008, kClusters);
  EXPECT_EQ(given.width, 144);
  EXPECT_EQ(given.rounds, 2);
  EXPECT_NEAR(given.cycles, 2 * 172 * 576 * 1.04 * 1.01, 1e-6);
  const PingPongPlan plan = plan_pingpong(704, 4096, 11008, kClusters);
  EXPECT_TRUE(plan.transposed);
  EXPECT_EQ(plan.widths.width, 176);
  EXPECT_EQ(plan.widths.cluster_tiles, 64);
  EXPECT_EQ(plan.widths.rounds, 1);
  EXPECT_NEAR(plan.widths.cycles, 172 * 704 * 1.01, 1e-6);
  // 1088 × 12288 × 4096, 64 k blocks: as given 5 cluster rows, 77 columns of 160 in 6 rounds (6 · 64 · 640 · 1.02 ·
  // 1.01); transposed 48 cluster rows, 8 columns of 144 in 6 rounds (6 · 64 · 576 · 1.04 · 1.01): 0.92 of it, under
  // the margin (measured 0.90 on an H200: docs/log/15_few_tiles.md, section 28).
  const PingPongPlan near = plan_pingpong(1088, 12288, 4096, kClusters);
  EXPECT_FALSE(near.transposed);
  EXPECT_EQ(near.widths.width, 160);
  EXPECT_NEAR(near.widths.cycles, 6 * 64 * 640 * 1.02 * 1.01, 1e-6);
  EXPECT_NEAR(pingpong_widths(12288, 1088, 4096, kClusters).cycles, 6 * 64 * 576 * 1.04 * 1.01, 1e-6);
}

// As in kernel 15's plan, only token counts of 129-1151 that are not multiples of 128 are candidates: 768 and 1280
// tokens keep C whatever the rounds transposed would need, and 120 too.
TEST(PingPongChoice, KernelFourteenKeepsCOutsideRaggedTokenCounts) {
  for (const auto& [m, n, k] : {std::array<int, 3>{768, 4096, 11008}, {1280, 4096, 11008}, {120, 12288, 4096},
                                {128, 12288, 4096}, {1152, 4096, 11008}}) {
    const PingPongPlan plan = plan_pingpong(m, n, k, kClusters);
    EXPECT_FALSE(plan.transposed) << m << "x" << n << "x" << k;
    EXPECT_EQ(plan.widths.width, pingpong_widths(m, n, k, kClusters).width) << m << "x" << n << "x" << k;
  }
  // The plan is the kernel's own: whatever kernel 15's plan and the GPU's memory, the same.
  const PingPongEstimate alone = estimate_pingpong(704, 4096, 11008, kClusters);
  const PingPongEstimate with_memory = estimate_pingpong(704, 4096, 11008, kClusters, 30, kH200Memory);
  EXPECT_TRUE(alone.pingpong_transposed);
  EXPECT_TRUE(with_memory.pingpong_transposed);
  EXPECT_EQ(with_memory.pingpong_width, alone.pingpong_width);
  EXPECT_EQ(with_memory.pingpong_rounds, alone.pingpong_rounds);
}

// Kernel 16 launches kernel 14's Cᵀ where the model puts it kPingPongTransposedMargin ahead of its other clauses'
// pick, and K is a multiple of 16. 888 × 9728 × 896, 14 k blocks: transposed 38 cluster rows, 5 columns of 184 in 3
// rounds (3 · 14 · 736 · 1.01 = 31221.12; as given at best 4 rounds of 160, 36922.37); kernel 15's 128 × 256 tiles
// in 3 rounds are not few tiles, and the rule's 176 as given (4 · 14 · 704 · 1.01) has 4 rounds, under its 16: only
// the new clause takes kernel 14. With K = 904 (K % 16 = 8) this clause alone still holds: kernel 15 plans clusters of
// two there. At 144 × 22920 × 10744 (K % 16 = 8) kernel 14's Cᵀ (275 k cycles) is 11 % ahead of kernel 15 (305 k), but
// kernel 15 plans 2 × 2 clusters where it may (K % 64 != 0): kernel 15. With K = 10736 (K % 16 = 0, K % 64 = 48) kernel
// 15 still plans 2 × 2 clusters, and the clause holds.
// At 280 × 19456 × 2560 kernel 14 plans Cᵀ, 0.94 of kernel 15's cycles: under the margin, kernel 15.
TEST(PingPongChoice, KernelSixteenLaunchesKernelFourteensCTransposedSevenAndAHalfPerCentAhead) {
  const PingPongEstimate estimate = estimate_pingpong(888, 9728, 896, kClusters);
  EXPECT_TRUE(estimate.pingpong_transposed);
  EXPECT_EQ(estimate.pingpong_width, 184);
  EXPECT_EQ(estimate.pingpong_rounds, 3);
  EXPECT_NEAR(estimate.pingpong_cycles, 3 * 14 * 736 * 1.01, 1e-6);
  EXPECT_NEAR(pingpong_widths(888, 9728, 896, kClusters).cycles, 4 * 14 * 640 * 1.02 * 1.01, 1e-6);
  EXPECT_FALSE(estimate.few_tiles);
  EXPECT_EQ(estimate.rule_width, 176);
  EXPECT_EQ(estimate.rule_rounds, 4);
  EXPECT_NEAR(estimate.rule_cycles, 4 * 14 * 704 * 1.01, 1e-6);
  EXPECT_GE(estimate.cooperative_cycles, kPingPongTransposedMargin * estimate.pingpong_cycles);
  EXPECT_LT(estimate.rule_rounds, kPingPongMinRounds);
  EXPECT_TRUE(estimate.pingpong);
  const PingPongEstimate off_sectors = estimate_pingpong(888, 9728, 904, kClusters, 30, kH200Memory);
  EXPECT_FALSE(off_sectors.k_aligned);
  EXPECT_TRUE(off_sectors.pingpong_transposed);
  EXPECT_FALSE(off_sectors.few_tiles_plan.quad_clusters());
  EXPECT_TRUE(off_sectors.pingpong);
  const PingPongEstimate beside_quads = estimate_pingpong(144, 22920, 10744, kClusters, 30, kH200Memory);
  EXPECT_FALSE(beside_quads.k_aligned);
  EXPECT_TRUE(beside_quads.pingpong_transposed);
  EXPECT_TRUE(beside_quads.few_tiles_plan.quad_clusters());
  EXPECT_GE(beside_quads.cooperative_cycles, 1.10 * beside_quads.pingpong_cycles);
  EXPECT_FALSE(beside_quads.pingpong);
  const PingPongEstimate on_sectors = estimate_pingpong(144, 22920, 10736, kClusters, 30, kH200Memory);
  EXPECT_TRUE(on_sectors.few_tiles_plan.quad_clusters());
  EXPECT_TRUE(on_sectors.pingpong);
  const PingPongEstimate under_margin = estimate_pingpong(280, 19456, 2560, kClusters);
  EXPECT_TRUE(under_margin.pingpong_transposed);
  EXPECT_LT(under_margin.cooperative_cycles, kPingPongTransposedMargin * under_margin.pingpong_cycles);
  EXPECT_FALSE(under_margin.pingpong);
}

// Where kernel 14 launches 160 columns or more for 192 tokens or more, the clause for Cᵀ takes it 4 % ahead
// (kPingPongTransposedWideMargin); at 144 columns or under 192 tokens, still 7.5 % ahead. Kernel 14's side by hand (its
// Cᵀ, N × M × K, in cluster tiles of 256 rows; k blocks of 4w cycles, 144 weighed 1.04 and 160 1.02, all 1.01, plus
// 20 · 1024 where kernel 15's plan has few tiles). 542 × 9320 × 9728: ⌈9320 / 256⌉ · ⌈542 / 184⌉ = 37 · 3 = 111 cluster
// tiles, 2 rounds of 152 k blocks, 2 · 152 · 736 · 1.01 + 20 · 1024; kernel 15's cycles 1.070 times that: kernel 14.
// 282 × 5888 × 6592: 23 · 2 = 46 of 128 × 144, 1 round, 103 · 576 · 1.04 · 1.01 + 20 · 1024, 1.073 times: kernel 15.
// 166 × 13472 × 5056: 53 · 1 of 128 × 176, 1 round, 79 · 704 · 1.01 + 20 · 1024, 1.053 times, 166 tokens: kernel 15.
// 317 × 14672 × 18944: 58 · 2 = 116 of 128 × 160, 2 rounds, 2 · 296 · 640 · 1.02 · 1.01, 1.0405 times: kernel 14, just.
TEST(PingPongChoice, TheClauseForCTransposedTakesFourPerCentWhereTheTilesAreWideAndTheTokensMany) {
  EXPECT_EQ(transposed_clause_margin(144, 1024), kPingPongTransposedMargin);
  EXPECT_EQ(transposed_clause_margin(160, 192), kPingPongTransposedWideMargin);
  EXPECT_EQ(transposed_clause_margin(184, 1024), kPingPongTransposedWideMargin);
  EXPECT_EQ(transposed_clause_margin(184, 191), kPingPongTransposedMargin);
  struct Case {
    int m, n, k, width, cluster_tiles, rounds;
    double pingpong_cycles, ratio, ratio_tolerance;
    bool pingpong;
  };
  for (const Case& c : {Case{542, 9320, 9728, 184, 111, 2, 2 * 152 * 736 * 1.01 + 20 * 1024, 1.070, 0.001, true},
                        Case{282, 5888, 6592, 144, 46, 1, 103 * 576 * 1.04 * 1.01 + 20 * 1024, 1.073, 0.001, false},
                        Case{166, 13472, 5056, 176, 53, 1, 79 * 704 * 1.01 + 20 * 1024, 1.053, 0.001, false},
                        Case{317, 14672, 18944, 160, 116, 2, 2 * 296 * 640 * 1.02 * 1.01, 1.0405, 0.0005, true}}) {
    SCOPED_TRACE(testing::Message() << c.m << "x" << c.n << "x" << c.k);
    const PingPongEstimate estimate = estimate_pingpong(c.m, c.n, c.k, kClusters);
    EXPECT_TRUE(estimate.pingpong_transposed);
    EXPECT_EQ(estimate.pingpong_width, c.width);
    EXPECT_EQ(estimate.pingpong_cluster_tiles, c.cluster_tiles);
    EXPECT_EQ(estimate.pingpong_rounds, c.rounds);
    EXPECT_NEAR(estimate.pingpong_cycles, c.pingpong_cycles, 1e-6);
    EXPECT_NEAR(estimate.cooperative_cycles / estimate.pingpong_cycles, c.ratio, c.ratio_tolerance);
    EXPECT_EQ(estimate.pingpong, c.pingpong);
  }
}

// The suite's shapes for kernel 14's Cᵀ (runner/shapes.cpp): three rounds at each width, and one kernel 16 launches.
TEST(PingPongChoice, TheTransposedShapesThatTestTheKernel) {
  for (const auto& [m, n, k, width] :
       {std::array<int, 4>{257, 16904, 1040, 144}, {289, 17432, 1040, 160}, {321, 18224, 1040, 176},
        {353, 19016, 1040, 184}}) {
    const PingPongPlan plan = plan_pingpong(m, n, k, kClusters);
    EXPECT_TRUE(plan.transposed) << m << "x" << n << "x" << k;
    EXPECT_EQ(plan.widths.width, width) << m << "x" << n << "x" << k;
    EXPECT_EQ(plan.widths.rounds, 3) << m << "x" << n << "x" << k;
    EXPECT_NE(m % width, 0) << m << "x" << n << "x" << k;  // C's last rows in a part-empty tile
  }
  const PingPongEstimate launched = estimate_pingpong(257, 11272, 1040, kClusters, 30, kH200Memory);
  EXPECT_TRUE(launched.pingpong);
  EXPECT_TRUE(launched.pingpong_transposed);
  EXPECT_EQ(launched.pingpong_width, 144);
  EXPECT_EQ(launched.pingpong_rounds, 2);
}

}  // namespace
}  // namespace gemm
