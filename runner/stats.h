// Summary statistics of timing samples.
#pragma once

#include <vector>

namespace gemm {

struct Quartiles {
  double q1 = 0;
  double median = 0;
  double q3 = 0;
};

// Quartiles by linear interpolation between order statistics (numpy's default). Needs ≥ 1 sample.
Quartiles quartiles(std::vector<double> samples);

}  // namespace gemm
