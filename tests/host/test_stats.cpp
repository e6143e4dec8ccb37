// Quartiles of timing samples (runner/stats.h): linear interpolation between order statistics, as numpy.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "runner/stats.h"
#include "runner/timing.h"
#include "runner/watchdog.h"

namespace gemm {
namespace {

void expect_quartiles(const Quartiles& actual, double q1, double median, double q3) {
  EXPECT_DOUBLE_EQ(actual.q1, q1);
  EXPECT_DOUBLE_EQ(actual.median, median);
  EXPECT_DOUBLE_EQ(actual.q3, q3);
}

TEST(Quartiles, InterpolatesBetweenOrderStatisticsForEvenCount) {
  expect_quartiles(quartiles({1, 2, 3, 4}), 1.75, 2.5, 3.25);
}

TEST(Quartiles, OddCountMedianIsTheMiddleSample) {
  expect_quartiles(quartiles({1, 2, 3, 4, 5}), 2, 3, 4);
}

TEST(Quartiles, OddCountQuartilesInterpolate) {
  // Positions 1.5, 3 and 4.5 of 7 samples.
  expect_quartiles(quartiles({1, 2, 3, 4, 5, 6, 7}), 2.5, 4, 5.5);
}

TEST(Quartiles, InterpolationUsesTheSampleValuesNotTheirRanks) {
  // Positions 0.75, 1.5, 2.25: 0 + 0.75·10, 10 + 0.5·90, 100 + 0.25·900.
  expect_quartiles(quartiles({0, 10, 100, 1000}), 7.5, 55, 325);
}

TEST(Quartiles, SingleSampleGivesThatSampleThreeTimes) {
  expect_quartiles(quartiles({0.125}), 0.125, 0.125, 0.125);
}

TEST(Quartiles, UnsortedInputGivesTheSameResultAsSorted) {
  const Quartiles sorted = quartiles({1.5, 2.25, 3, 8, 9.5, 40});
  const Quartiles shuffled = quartiles({9.5, 3, 40, 1.5, 8, 2.25});
  expect_quartiles(shuffled, sorted.q1, sorted.median, sorted.q3);
  expect_quartiles(quartiles({4, 1, 3, 2}), 1.75, 2.5, 3.25);
}

TEST(Quartiles, EmptyInputThrows) {
  EXPECT_THROW(quartiles({}), std::exception);
}

// ---- the arithmetic of the reports ------------------------------------------------------------------------

TEST(Tflops, IsTwoMnkOverTheTime) {
  EXPECT_DOUBLE_EQ(tflops(1000, 1000, 1000, 1.0), 2.0);  // 2e9 operations in 1 ms
  EXPECT_DOUBLE_EQ(tflops(8192, 8192, 8192, 1.0), 2.0 * 8192.0 * 8192.0 * 8192.0 / 1e9);  // 1099.5
  EXPECT_NEAR(tflops(4096, 14336, 4096, 0.6), 802.0, 1.0);
}

TEST(Tflops, DoesNotOverflowAtLargeShapes) {
  EXPECT_DOUBLE_EQ(tflops(65536, 65536, 65536, 1000.0), 2.0 * 65536.0 * 65536.0 * 65536.0 / 1e12);  // 562.9
}

TEST(SpeedupVsCublas, AboveOneMeansFasterThanCublas) {
  EXPECT_DOUBLE_EQ(speedup_vs_cublas(1.0, 2.0), 2.0);   // the kernel took half cuBLAS's time
  EXPECT_DOUBLE_EQ(speedup_vs_cublas(2.0, 1.0), 0.5);   // twice cuBLAS's time
  EXPECT_DOUBLE_EQ(speedup_vs_cublas(1.5, 1.5), 1.0);
}

// ---- interleaved timing: which launch each sample belongs to ---------------------------------------------

TEST(InterleavedLaunch, EveryRepRunsEveryLaunchOnce) {
  for (int launches : {1, 2, 3, 10})
    for (int rep = 0; rep < 25; ++rep) {
      std::set<int> seen;
      for (int position = 0; position < launches; ++position) seen.insert(interleaved_launch(rep, position, launches));
      EXPECT_EQ(static_cast<int>(seen.size()), launches) << "rep " << rep;
      EXPECT_EQ(*seen.begin(), 0);
      EXPECT_EQ(*seen.rbegin(), launches - 1);
    }
}

TEST(InterleavedLaunch, EachLaunchGoesFirstOnceEveryNReps) {
  for (int launches : {1, 2, 3, 4, 5, 10, 11}) {
    std::vector<int> first(launches, 0);
    for (int rep = 0; rep < 4 * launches; ++rep) {
      ++first[interleaved_launch(rep, 0, launches)];
      if ((rep + 1) % launches != 0) continue;
      for (int count : first) EXPECT_EQ(count, (rep + 1) / launches) << launches << " launches, rep " << rep;
    }
  }
}

TEST(InterleavedLaunch, EachLaunchFollowsEveryOtherEquallyOften) {
  // Within a rep, the ordered pair (a, b) "b right after a" occurs equally often for every a != b over a
  // cycle of n reps (even n) or 2n reps (odd n). A plain rotation fails this: b always follows b - 1.
  for (int launches : {2, 3, 4, 5, 6, 7, 10, 11}) {
    const int cycle = interleaved_cycle(launches);
    std::vector<std::vector<int>> follows(launches, std::vector<int>(launches, 0));
    for (int rep = 0; rep < cycle; ++rep)
      for (int position = 1; position < launches; ++position)
        ++follows[interleaved_launch(rep, position - 1, launches)][interleaved_launch(rep, position, launches)];
    const int expected = cycle * (launches - 1) / (launches * (launches - 1));
    for (int a = 0; a < launches; ++a)
      for (int b = 0; b < launches; ++b)
        EXPECT_EQ(follows[a][b], a == b ? 0 : expected) << launches << " launches: " << b << " after " << a;
  }
}

TEST(InterleavedLaunch, PinnedOrder) {
  // Four launches: 0 1 3 2, then 1 2 0 3, 2 3 1 0, 3 0 2 1.
  const int expected[4][4] = {{0, 1, 3, 2}, {1, 2, 0, 3}, {2, 3, 1, 0}, {3, 0, 2, 1}};
  for (int rep = 0; rep < 8; ++rep)
    for (int position = 0; position < 4; ++position)
      EXPECT_EQ(interleaved_launch(rep, position, 4), expected[rep % 4][position]) << "rep " << rep;
  // Three launches: 0 1 2, 1 2 0, 2 0 1, then backwards: 2 1 0, 0 2 1, 1 0 2.
  const int odd[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}, {0, 2, 1}, {1, 0, 2}};
  for (int rep = 0; rep < 6; ++rep)
    for (int position = 0; position < 3; ++position)
      EXPECT_EQ(interleaved_launch(rep, position, 3), odd[rep][position]) << "rep " << rep;
}

// ---- the order compare times in: the square, relabelled every cycle --------------------------------------

// How many launches after `first` the launch `second` runs in a rep that runs `order` (1 .. n - 1; the reps run
// back to back).
int distance_after(const std::vector<int>& order, int first, int second) {
  const int launches = static_cast<int>(order.size());
  const int first_position = static_cast<int>(std::find(order.begin(), order.end(), first) - order.begin());
  const int second_position = static_cast<int>(std::find(order.begin(), order.end(), second) - order.begin());
  return ((second_position - first_position) % launches + launches) % launches;
}

TEST(RelabelledLaunch, EveryRepRunsEveryLaunchOnce) {
  for (int launches : {1, 2, 3, 10, 11})
    for (int rep = 0; rep < 60; ++rep) {
      std::set<int> seen;
      for (int position = 0; position < launches; ++position)
        seen.insert(relabelled_rep(rep, launches, 7)[position]);
      EXPECT_EQ(static_cast<int>(seen.size()), launches) << "rep " << rep;
      EXPECT_EQ(*seen.begin(), 0);
      EXPECT_EQ(*seen.rbegin(), launches - 1);
    }
}

TEST(RelabelledLaunch, EveryCycleKeepsTheSquaresBalanceOfPredecessors) {
  for (int launches : {2, 3, 4, 5, 10, 11}) {
    const int cycle = interleaved_cycle(launches);
    for (int first_rep = 0; first_rep < 5 * cycle; first_rep += cycle) {
      std::vector<std::vector<int>> follows(launches, std::vector<int>(launches, 0));
      for (int rep = first_rep; rep < first_rep + cycle; ++rep) {
        const std::vector<int> order = relabelled_rep(rep, launches, 99);
        for (int position = 1; position < launches; ++position) ++follows[order[position - 1]][order[position]];
      }
      const int expected = cycle / launches;
      for (int a = 0; a < launches; ++a)
        for (int b = 0; b < launches; ++b)
          EXPECT_EQ(follows[a][b], a == b ? 0 : expected) << launches << " launches, cycle from rep " << first_rep;
    }
  }
}

TEST(RelabelledLaunch, TheSeedDecidesTheOrder) {
  const auto order = [](uint64_t seed) {
    std::vector<int> launches;
    for (int rep = 0; rep < 40; ++rep)
      for (int launch : relabelled_rep(rep, 10, seed)) launches.push_back(launch);
    return launches;
  };
  EXPECT_EQ(order(5), order(5));
  EXPECT_NE(order(5), order(6));
}

TEST(RelabelledLaunch, NoLaunchRunsCloserBehindAnotherThanTheRest) {
  // In the square alone, where two launches run relative to each other is fixed by their places in the list:
  // with ten launches, launch 0 runs within two launches after launch 1 in half the reps, and a kernel run
  // close behind a cool one (kernel 01) gets a faster clock under the power limit. Relabelled, every ordered
  // pair is within two launches in 2/9 of the reps on average.
  constexpr int kLaunches = 10;
  int close = 0;
  for (int rep = 0; rep < kLaunches; ++rep) {
    std::vector<int> square(kLaunches);
    for (int position = 0; position < kLaunches; ++position)
      square[position] = interleaved_launch(rep, position, kLaunches);
    close += distance_after(square, 1, 0) <= 2;
  }
  EXPECT_EQ(close, kLaunches / 2);  // the bias being removed

  constexpr int kReps = 1000 * kLaunches;
  std::vector<std::vector<int>> near(kLaunches, std::vector<int>(kLaunches, 0));
  for (int rep = 0; rep < kReps; ++rep) {
    const std::vector<int> order = relabelled_rep(rep, kLaunches, 12345);
    for (int first = 0; first < kLaunches; ++first)
      for (int second = 0; second < kLaunches; ++second)
        if (first != second) near[first][second] += distance_after(order, first, second) <= 2;
  }
  for (int first = 0; first < kLaunches; ++first)
    for (int second = 0; second < kLaunches; ++second)
      if (first != second) {
        EXPECT_NEAR(static_cast<double>(near[first][second]) / kReps, 2.0 / 9.0, 0.025) << second << " after " << first;
      }
}

// ---- the watchdog's limits and message -------------------------------------------------------------------

TEST(Watchdog, KernelLimitIsSlackPlusAHundredTimesCublas) {
  EXPECT_DOUBLE_EQ(kernel_time_limit(0), 10.0);
  EXPECT_DOUBLE_EQ(kernel_time_limit(1.36), 10.0 + 0.136);
  EXPECT_DOUBLE_EQ(kernel_time_limit(50.0), 15.0);
}

TEST(Watchdog, ReferenceLimitAssumesOneTflops) {
  EXPECT_DOUBLE_EQ(reference_time_limit(1000, 1000, 1000), 10.0 + 0.002);
  EXPECT_NEAR(reference_time_limit(16384, 16384, 16384), 10.0 + 8.796, 0.001);
  EXPECT_GT(reference_time_limit(2147483647, 2, 2147483647), 1e6) << "no overflow";
}

TEST(Watchdog, HangMessageNamesTheActivityTheLimitAndTheLikelyCause) {
  const std::string message = hang_message("kernel 6 (persistent) at 256x256x64, seed 3", 12.34);
  EXPECT_EQ(message.find("gemm: kernel 6 (persistent) at 256x256x64, seed 3 did not finish within 12.3 s"), 0u)
      << message;
  EXPECT_NE(message.find("mbarrier"), std::string::npos) << message;
  EXPECT_NE(message.find("--timeout"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line";
}

TEST(Watchdog, HangMessageBlamesTheCauseItIsGiven) {
  const std::string message = hang_message("kernel 9 (hilbert) at 64x64x64, seed 1", 10, "the set-up did not end");
  EXPECT_EQ(message, "gemm: kernel 9 (hilbert) at 64x64x64, seed 1 did not finish within 10.0 s: the set-up did not "
                     "end");
}

}  // namespace
}  // namespace gemm
