// Which of kernels 15 and 14 kernel 16's rule picks (common/pingpong_choice.h), on a 132-SM H100 or H200 (66
// clusters of two): the benchmark's shapes, the sweep the notes measured the rule against, and the few-tile shapes.
#include <gtest/gtest.h>

#include <array>

#include "common/pingpong_choice.h"

namespace gemm {
namespace {

constexpr int kClusters = 66;

// Of the benchmark's shapes, the LLM shape and 1024³ (16 tiles, fewer than the clusters: kernel 15 leaves them whole,
// and kernel 14's one short round costs less; the few-tile figures below).
TEST(PingPongChoice, TheLlmShapeAnd1024CubedOfTheBenchmarkShapes) {
  EXPECT_TRUE(estimate_pingpong(4096, 14336, 4096, kClusters).pingpong);
  EXPECT_TRUE(estimate_pingpong(1024, 1024, 1024, kClusters).pingpong);
  for (const auto& [m, n, k] : {std::array<int, 3>{2048, 2048, 2048}, {4096, 4096, 4096},
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
TEST(PingPongChoice, FewTileFigures) {
  // 1024³: 16 cluster tiles of 16 k blocks, whole (no split pays): 30 · 1024 + 3300 = 34020. Kernel 14: 4 × 6 =
  // 24 cluster tiles of 176, one round: 16 · 704 · 1.01 + 20480 = 31856.6; 34020 ≥ 1.02 × that: kernel 14.
  const PingPongEstimate cube = estimate_pingpong(1024, 1024, 1024, kClusters);
  EXPECT_TRUE(cube.few_tiles);
  EXPECT_EQ(cube.cluster_tiles, 16);
  EXPECT_EQ(cube.split_workers, 0);
  EXPECT_NEAR(cube.cooperative_cycles, 30 * 1024 + 3300, 1e-6);
  EXPECT_NEAR(cube.pingpong_cycles, 16 * 704 * 1.01 + 20480, 1e-6);
  EXPECT_TRUE(cube.pingpong);
  // 512 × 4096 × 14336: 32 cluster tiles of 224 split over 66: (7168 / 66 + 16 + 330 / 32) · 1024 + 3300, against
  // one round of 224 k blocks of 128 × 176 (2 × 24 = 48 cluster tiles): 224 · 704 · 1.01 + 20480. Kernel 15.
  const PingPongEstimate down = estimate_pingpong(512, 4096, 14336, kClusters);
  EXPECT_EQ(down.split_workers, 66);
  EXPECT_NEAR(down.cooperative_cycles, (7168.0 / 66 + 16 + 330.0 / 32) * 1024 + 3300, 1e-6);
  EXPECT_FALSE(down.pingpong);
  // 128 × 4096 × 4096: 1 × 2 clusters, 8 cluster tiles split over 29 (the stream-K tests' figure). Kernel 15.
  const PingPongEstimate thin = estimate_pingpong(128, 4096, 4096, kClusters);
  EXPECT_TRUE(thin.cluster_along_n);
  EXPECT_EQ(thin.cluster_tiles, 8);
  EXPECT_EQ(thin.split_workers, 29);
  EXPECT_FALSE(thin.pingpong);
  // 2048³: 64 cluster tiles whole (46 · 1024 + 3300 = 50404) against two rounds of 176 (8 × 12 = 96 cluster tiles):
  // 2 · 32 · 704 · 1.01 + 20480 = 65987.8. Kernel 15.
  const PingPongEstimate square = estimate_pingpong(2048, 2048, 2048, kClusters);
  EXPECT_EQ(square.split_workers, 0);
  EXPECT_NEAR(square.cooperative_cycles, 46 * 1024 + 3300, 1e-6);
  EXPECT_FALSE(square.pingpong);
  // 200 × 11008 × 4096 (a width not a multiple of 256: 43 columns of 256): 43 cluster tiles whole, against one
  // round of 60 cluster tiles of 184 (11008 = 59.8 × 184): kernel 14.
  EXPECT_TRUE(estimate_pingpong(200, 11008, 4096, kClusters).pingpong);
  // With as many tiles as clusters or more, the old rule: 16 rounds at least. 512 × 28672 × 4096 (224 cluster tiles,
  // 5 rounds of kernel 14) stays with kernel 15 although the model puts 14 ahead.
  const PingPongEstimate wide = estimate_pingpong(512, 28672, 4096, kClusters);
  EXPECT_FALSE(wide.few_tiles);
  EXPECT_LT(wide.pingpong_cycles, wide.cooperative_cycles);
  EXPECT_FALSE(wide.pingpong);
}

}  // namespace
}  // namespace gemm
