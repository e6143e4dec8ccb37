// Which of kernel 09's two kernels the rule picks (common/pingpong_choice.h), on a 132-SM H100 (66 clusters of
// two): the benchmark's shapes and the sweep its notes measured the rule against.
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
  // 1792 tiles of 128 × 256 (13.6 per SM) of 64 k blocks, plus 14 boundaries; 1312 cluster tiles of 128 × 176: 20
  // rounds of 64 k blocks.
  const PingPongEstimate estimate = estimate_pingpong(4096, 14336, 4096, kClusters);
  EXPECT_NEAR(estimate.cooperative_cycles, 1792.0 * 64 * 1024 / 132 + 14 * 3300, 1e-6);
  EXPECT_EQ(estimate.pingpong_rounds, 20);
  EXPECT_NEAR(estimate.pingpong_cycles, 20.0 * 64 * 704 * 1.01, 1e-6);
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
  // The suite's shape for it (runner/shapes.cpp) and scripts/sanitize.sh's.
  EXPECT_TRUE(estimate_pingpong(3900, 14000, 1000, kClusters).pingpong);
  EXPECT_TRUE(estimate_pingpong(3900, 11600, 40, kClusters).pingpong);
}

TEST(PingPongChoice, FewerClustersMeanMoreRounds) {
  // A 114-SM H100 (PCIe) launches 57 clusters: the same shape takes more, fuller rounds.
  EXPECT_EQ(estimate_pingpong(4096, 14336, 4096, 57).pingpong_rounds, 24);  // 1312 / 57 = 23.02
  EXPECT_EQ(estimate_pingpong(1, 8, 8, 66).pingpong_rounds, 1);
}

}  // namespace
}  // namespace gemm
