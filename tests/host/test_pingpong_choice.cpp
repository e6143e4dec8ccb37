// Which of kernels 15 and 14 kernel 16's rule picks (common/pingpong_choice.h), on a 132-SM H100 or H200 (66
// clusters of two): the benchmark's shapes, the sweep the notes measured the rule against, and the few-tile shapes.
#include <gtest/gtest.h>

#include <array>

#include "common/pingpong_choice.h"

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
      {3900, 11600, 1000, 176, 16},    // 66 columns of 176: 16 rounds exactly; 64 of 184 would need 15.5, so 16
      {3900, 14000, 1000, 184, 19},    // 77 columns (18.7 rounds) against 80 (19.4)
      {16384, 16384, 16384, 176, 92},  // 94 columns (91.2 rounds) against 90 (87.3): 92 × 704 = 88 × 736, a tie
  };
  for (const Case& c : cases) {
    const PingPongEstimate estimate = estimate_pingpong(c.m, c.n, c.k, kClusters);
    EXPECT_EQ(estimate.pingpong_width, c.width) << c.m << "x" << c.n << "x" << c.k;
    EXPECT_EQ(estimate.pingpong_rounds, c.rounds) << c.m << "x" << c.n << "x" << c.k;
  }
}

TEST(PingPongChoice, TheSweepOfItsNotes) {
  struct Case {
    int m, n, k;
    bool pingpong;
  };
  const Case cases[] = {
      {4096, 14336, 2048, true},   {4096, 14336, 8192, false},  {4096, 14336, 14336, false},
      {4096, 8192, 4096, false},   {4096, 11008, 4096, false},  {4096, 28672, 4096, true},
      {2048, 14336, 4096, false},  // 10 rounds: too few, though the model puts it 2.8 % ahead
      {8192, 14336, 4096, true},   {16384, 14336, 4096, true},  {8192, 8192, 4096, true},
      {8192, 28672, 8192, false},
  };
  for (const Case& c : cases)
    EXPECT_EQ(estimate_pingpong(c.m, c.n, c.k, kClusters).pingpong, c.pingpong) << c.m << "x" << c.n << "x" << c.k;
}

TEST(PingPongChoice, TheShapesThatTestTheKernel) {
  // The suite's shapes for it (runner/shapes.cpp) and scripts/sanitize.sh's: each width on each list.
  for (const auto& [m, n, k, width] : {std::array<int, 4>{3900, 14000, 1000, 184}, {3900, 11600, 1000, 176},
                                       {3900, 14000, 40, 184}, {3900, 11600, 40, 176}}) {
    const PingPongEstimate estimate = estimate_pingpong(m, n, k, kClusters);
    EXPECT_TRUE(estimate.pingpong) << m << "x" << n << "x" << k;
    EXPECT_EQ(estimate.pingpong_width, width) << m << "x" << n << "x" << k;
  }
}

TEST(PingPongChoice, FewerClustersMeanMoreRounds) {
  // A 114-SM H100 (PCIe) launches 57 clusters: the same shape takes more, fuller rounds.
  EXPECT_EQ(estimate_pingpong(4096, 14336, 4096, 57).pingpong_rounds, 22);  // 1248 / 57 = 21.9 (of 184)
  EXPECT_EQ(estimate_pingpong(1, 8, 8, 66).pingpong_rounds, 1);
}

// Few tiles: fewer cluster tiles than clusters. Figures worked by hand from the constants: kernel 15 whole is
// (k blocks + 14) · 1024 + 3300 cycles, split (T · k / W + 16 + 5 W / T) · 1024 + 3300; kernel 14 its rounds
// plus 20 · 1024.
// Few tiles: fewer 128 × 256 cluster tiles than clusters. Figures worked by hand from the constants: kernel 15's
// plan (common/few_tiles.h) takes 128 × 128 tiles (k blocks of 512 · 1.09 = 558.08 cycles) where they too are fewer
// than the clusters and the model puts them ahead; whole tiles cost k blocks · block cycles + 3300, plus 14 · 1024
// against kernel 14, which pays its rounds plus 20 · 1024.
TEST(PingPongChoice, FewTileFigures) {
  // 1024³: 32 cluster tiles of 128 × 128 (4 cluster rows × 8), 16 k blocks, whole (a split's fixed 44 blocks of
  // 558.08 cycles cannot pay): 16 · 558.08 + 3300 = 12229.28, against 16 tiles of 128 × 256 at 16 · 1024 + 3300.
  // Kernel 14: 4 × 6 = 24 cluster tiles of 176, one round: 16 · 704 · 1.01 + 20480 = 31856.64. Kernel 15.
  const PingPongEstimate cube = estimate_pingpong(1024, 1024, 1024, kClusters);
  EXPECT_TRUE(cube.few_tiles);
  EXPECT_EQ(cube.few_tiles_plan.block_n, 128);
  EXPECT_EQ(cube.few_tiles_plan.cluster_tiles, 32);
  EXPECT_FALSE(cube.few_tiles_plan.schedule.splits());
  EXPECT_NEAR(cube.few_tiles_plan.cycles, 16 * 558.08 + 3300, 1e-6);
  EXPECT_NEAR(cube.cooperative_cycles, 16 * 558.08 + 3300 + 14 * 1024, 1e-6);
  EXPECT_NEAR(cube.pingpong_cycles, 16 * 704 * 1.01 + 20480, 1e-6);
  EXPECT_FALSE(cube.pingpong);
  // 512 × 4096 × 14336: 64 cluster tiles of 128 × 128, 224 k blocks, whole: 224 · 558.08 + 3300 = 128309.92,
  // against 32 tiles of 128 × 256 split over 66 clusters, (7168 / 66 + 24 + 330 / 32) · 1024 + 3300 = 149.6 k.
  // Kernel 15.
  const PingPongEstimate down = estimate_pingpong(512, 4096, 14336, kClusters);
  EXPECT_EQ(down.few_tiles_plan.block_n, 128);
  EXPECT_EQ(down.few_tiles_plan.cluster_tiles, 64);
  EXPECT_NEAR(down.few_tiles_plan.cycles, 224 * 558.08 + 3300, 1e-6);
  EXPECT_FALSE(down.pingpong);
  // 128 × 4096 × 14336: 128 × 128 tiles in 1 × 2 clusters, 16 cluster tiles of 224 k blocks, split over all 66
  // clusters (3584 / W + 44.04 + 5 W / 16 falls all the way to 66). Kernel 15.
  const PingPongEstimate thin = estimate_pingpong(128, 4096, 14336, kClusters);
  EXPECT_EQ(thin.few_tiles_plan.block_n, 128);
  EXPECT_TRUE(thin.few_tiles_plan.cluster_along_n);
  EXPECT_EQ(thin.few_tiles_plan.cluster_tiles, 16);
  EXPECT_EQ(thin.few_tiles_plan.schedule.workers, 66);
  EXPECT_EQ(thin.few_tiles_plan.schedule.whole_tiles, 0);
  EXPECT_FALSE(thin.pingpong);
  // 2048³: 64 cluster tiles of 128 × 256 whole (32 · 1024 + 3300 = 36068); 128 × 128 tiles would be 128, as many as
  // the clusters or more, so not considered. Kernel 15.
  const PingPongEstimate square = estimate_pingpong(2048, 2048, 2048, kClusters);
  EXPECT_EQ(square.few_tiles_plan.block_n, 256);
  EXPECT_NEAR(square.few_tiles_plan.cycles, 32 * 1024 + 3300, 1e-6);
  EXPECT_FALSE(square.pingpong);
  // 200 × 11008 × 4096 (43 columns of 256, 86 of 128: the narrow tiles would be 86 ≥ 66): 43 cluster tiles of
  // 128 × 256 whole, 64 · 1024 + 3300 + 14336 = 83172, against one round of 60 cluster tiles of 176 plus 20480:
  // 45507 + 20480 = 65987. Kernel 14.
  EXPECT_TRUE(estimate_pingpong(200, 11008, 4096, kClusters).pingpong);
  // 256 × 10240 × 8192: 40 cluster tiles of 128 × 256 split over 66, (5120 / 66 + 24 + 330 / 40) · 1024 + 3300 =
  // 115.8 k (128 × 128 tiles would be 80, not fewer than the clusters), against one round of 59 cluster tiles of 176
  // plus 20480: 111.5 k. Kernel 14.
  EXPECT_TRUE(estimate_pingpong(256, 10240, 8192, kClusters).pingpong);
}

}  // namespace
}  // namespace gemm
