// Quartiles of timing samples (runner/stats.h): linear interpolation between order statistics, as numpy.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "runner/stats.h"

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

}  // namespace
}  // namespace gemm
