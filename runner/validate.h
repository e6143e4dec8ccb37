// Validation of a kernel's C against the cuBLAS result R on the same inputs (elementwise, on the GPU), plus
// a sampled fp64 reference computed on the host that checks both C and R, and a guard band of poison around
// C that catches writes outside it.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <string>

#include "common/gemm_problem.h"
#include "runner/tolerance.h"

namespace gemm {

struct ElementReport {
  int64_t row = -1;
  int64_t col = -1;
  int64_t outside = 0;  // for kOutOfBounds: elements before C's start (< 0) or past its end (> 0)
  float value = 0;
  double expected = 0;
  ElementStatus status = ElementStatus::kOk;
  const char* matrix = "C";  // "R" for an element of the cuBLAS reference
  std::string describe() const;  // "C[12, 7] = nan (NaN), expected 3.25"
};

// Elements of matrices a kernel must not write that no longer hold what was there: its inputs A and B (what the
// runner wrote) or cuBLAS's result R (what cuBLAS wrote). A kernel that wrote into them fails, named, instead of the
// next kernel that reads them.
struct StrayWrites {
  uint64_t count = 0;
  ElementReport first;  // matrix "A" (row, k), "B" (column, k) or "R" (row, column); `expected` is what was there
  std::string culprit = "the kernel";  // who is blamed in the summary

  // Adds `changes` elements of `matrix` ("A", "B" or "R", row-major with `row_length` columns), the first at linear
  // index `first_index`, holding `value` where `expected` was. A and B may share one StrayWrites, R has its own.
  void record(const char* matrix, uint64_t changes, uint64_t first_index, int row_length, float value,
              float expected);
  std::string summary() const;  // one line, empty when nothing changed
};

// Writes into the inputs and into R as one line ("...; also ..."), empty when there were none.
std::string stray_writes_summary(const StrayWrites& input_writes, const StrayWrites& reference_writes);

struct Validation {
  std::array<uint64_t, static_cast<size_t>(ElementStatus::kCount)> counts{};  // elements per status
  ElementReport first_failure;  // the first failing element (row-major; inside C before the guard band)
  double max_abs_err = 0;       // max |C − R| over finite elements
  double max_rel_err = 0;       // max |C − R| / tolerance(R): the verdict's own measure, ≤ 1 passes
  double rel_l2_err = 0;        // ||C − R|| / ||R|| over finite elements
  int samples = 0;              // fp64 reference entries checked
  int sample_kernel_failures = 0;
  int sample_reference_failures = 0;
  ElementReport first_sample_failure;     // of the kernel
  ElementReport first_reference_failure;  // of the reference
  StrayWrites input_writes;      // elements of A and B the kernel changed
  StrayWrites reference_writes;  // elements of R the kernel changed
  BiasVerdict bias;              // the mean of (C − R)·sign(R) in R's bf16 steps over C (runner/tolerance.h)
  // The same statistic at the fp64 samples, of C and of R against the fp64 sums: not judged (a few hundred
  // elements), printed by `check` with GEMM_BIAS_STATS=1 to show how far cuBLAS itself is off.
  BiasVerdict sample_bias_kernel;
  BiasVerdict sample_bias_reference;

  uint64_t failures() const;  // elements of C (and its guard bands) that failed
  bool passed() const {
    return failures() == 0 && input_writes.count == 0 && reference_writes.count == 0 && sample_kernel_failures == 0 &&
           sample_reference_failures == 0 && !bias.failed();
  }
  // Whether the cuBLAS reference itself disagrees with the fp64 samples (then no kernel can be judged).
  bool reference_failed() const { return sample_reference_failures > 0; }
  std::string failure_summary() const;  // one line: what failed, how many, the first one
};

// "C is biased by -0.48 steps on average (...): rounding toward zero?": what a failed bias check says.
std::string bias_summary(const BiasVerdict& bias);

// Compare problem.c with `reference` (both m × n) elementwise; check the `guard_elements` poisoned elements
// just before and just after problem.c; and check both C and R against an fp64 dot product of the problem's
// A and B at ~256 sampled positions (corners included); and the mean signed error of C against R in bf16 steps
// (the bias check). With InputKind::kExact (A and B hold −1, 0 and 1) the tolerance is 0: C and R must equal bf16
// of the exact sums (runner/tolerance.h).
Validation validate(const GemmProblem& problem, const bf16* reference, size_t guard_elements, uint64_t sample_seed,
                    cudaStream_t stream, InputKind inputs = InputKind::kUniform);

}  // namespace gemm
