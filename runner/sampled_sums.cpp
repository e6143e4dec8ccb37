#include "runner/sampled_sums.h"

#include <algorithm>

namespace gemm {

std::vector<double> sampled_dot_products(const std::vector<int>& rows, const std::vector<int>& cols, int k,
                                         const SampledRowReader& read) {
  std::vector<double> sums(rows.size() * cols.size(), 0.0);
  const size_t chunk = static_cast<size_t>(std::min(k, kSampleChunk));
  std::vector<double> a_chunk(rows.size() * chunk), b_chunk(cols.size() * chunk);
  for (int64_t first = 0; first < k; first += kSampleChunk) {
    const int count = static_cast<int>(std::min<int64_t>(kSampleChunk, k - first));
    for (size_t i = 0; i < rows.size(); ++i) read(SampledMatrix::kA, rows[i], first, count, &a_chunk[i * chunk]);
    for (size_t j = 0; j < cols.size(); ++j) read(SampledMatrix::kB, cols[j], first, count, &b_chunk[j * chunk]);
    for (size_t i = 0; i < rows.size(); ++i)
      for (size_t j = 0; j < cols.size(); ++j) {
        const double* a = &a_chunk[i * chunk];
        const double* b = &b_chunk[j * chunk];
        double sum = sums[i * cols.size() + j];
        for (int e = 0; e < count; ++e) sum += a[e] * b[e];
        sums[i * cols.size() + j] = sum;
      }
  }
  return sums;
}

}  // namespace gemm
