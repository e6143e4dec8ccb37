// The fp64 sums behind validation's sampled elements (runner/sampled_sums.h): the same sums as whole rows give,
// read a bounded chunk of K at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "runner/sampled_sums.h"

namespace gemm {
namespace {

// Row-major host matrices standing in for A and B on the device, recording what was read of them.
struct HostMatrices {
  int k = 0;
  std::vector<double> a, b;
  int largest_read = 0;
  std::vector<std::vector<int64_t>> reads_of_a, reads_of_b;  // per row: the elements read, in order

  HostMatrices(int rows, int cols, int k_) : k(k_), reads_of_a(rows), reads_of_b(cols) {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int> value(-128, 127);  // bf16-sized values: products exact in double
    for (int i = 0; i < rows * k; ++i) a.push_back(value(rng) / 64.0);
    for (int i = 0; i < cols * k; ++i) b.push_back(value(rng) / 32.0);
  }

  SampledRowReader reader() {
    return [this](SampledMatrix matrix, int row, int64_t first, int count, double* out) {
      largest_read = std::max(largest_read, count);
      const std::vector<double>& data = matrix == SampledMatrix::kA ? a : b;
      auto& reads = (matrix == SampledMatrix::kA ? reads_of_a : reads_of_b)[row];
      for (int e = 0; e < count; ++e) {
        out[e] = data[static_cast<size_t>(row) * k + first + e];
        reads.push_back(first + e);
      }
    };
  }

  // The loop validation ran before: whole rows, products added in order of k.
  double whole_row_sum(int row, int col) const {
    double sum = 0;
    for (int e = 0; e < k; ++e) sum += a[static_cast<size_t>(row) * k + e] * b[static_cast<size_t>(col) * k + e];
    return sum;
  }
};

TEST(SampledDotProducts, AreTheWholeRowSumsBitForBitAtARaggedK) {
  const int k = 2 * kSampleChunk + 5;
  HostMatrices matrices(4, 3, k);
  const std::vector<int> rows = {0, 2, 3}, cols = {0, 1, 2};
  const std::vector<double> sums = sampled_dot_products(rows, cols, k, matrices.reader());
  ASSERT_EQ(sums.size(), rows.size() * cols.size());
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < cols.size(); ++j)
      EXPECT_EQ(sums[i * cols.size() + j], matrices.whole_row_sum(rows[i], cols[j])) << i << ", " << j;
}

TEST(SampledDotProducts, ReadNoMoreThanAChunkAtATimeAndEveryElementOnce) {
  const int k = 3 * kSampleChunk + 1;
  HostMatrices matrices(2, 2, k);
  sampled_dot_products({0, 1}, {1}, k, matrices.reader());
  EXPECT_LE(matrices.largest_read, kSampleChunk);
  std::vector<int64_t> all(static_cast<size_t>(k));
  for (int64_t e = 0; e < k; ++e) all[static_cast<size_t>(e)] = e;
  EXPECT_EQ(matrices.reads_of_a[0], all);
  EXPECT_EQ(matrices.reads_of_a[1], all);
  EXPECT_EQ(matrices.reads_of_b[1], all);
  EXPECT_TRUE(matrices.reads_of_b[0].empty()) << "column 0 was not sampled";
}

TEST(SampledDotProducts, TakeKBelowAChunk) {
  HostMatrices matrices(1, 1, 3);
  EXPECT_EQ(sampled_dot_products({0}, {0}, 3, matrices.reader()), std::vector<double>{matrices.whole_row_sum(0, 0)});
  EXPECT_EQ(matrices.largest_read, 3);
}

}  // namespace
}  // namespace gemm
