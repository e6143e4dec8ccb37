// Which of kernels 13 and 14 kernel 16's rule picks (common/pingpong_choice.h), on a 132-SM H100 (66 clusters of
// two): the benchmark's shapes and the sweep the notes measured the rule against.
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

}  // namespace
}  // namespace gemm
