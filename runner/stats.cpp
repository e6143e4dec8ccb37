#include "runner/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gemm {
namespace {

double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

}  // namespace

Quartiles quartiles(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("quartiles of no samples");
  std::sort(samples.begin(), samples.end());
  return {quantile_of_sorted(samples, 0.25), quantile_of_sorted(samples, 0.5), quantile_of_sorted(samples, 0.75)};
}

double tflops(int m, int n, int k, double ms) { return 2.0 * m * static_cast<double>(n) * k / (ms * 1e-3) / 1e12; }

double speedup_vs_cublas(double kernel_ms, double cublas_ms) { return cublas_ms / kernel_ms; }

}  // namespace gemm
