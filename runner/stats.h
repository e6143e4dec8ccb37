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

// The rate of an m × n × k GEMM (2·m·n·k floating-point operations) that took `ms` milliseconds, in TFLOP/s.
double tflops(int m, int n, int k, double ms);

// How many times faster than cuBLAS a kernel is: cuBLAS's time over the kernel's (above 1: faster).
double speedup_vs_cublas(double kernel_ms, double cublas_ms);

}  // namespace gemm
