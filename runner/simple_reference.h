// A reference result computed without cuBLAS: one thread per output element, an fp32 dot product in K
// order. Slow (a naive GEMM), but it uses nothing compute-sanitizer cannot follow: `gemm check --reference
// simple` is how scripts/sanitize.sh runs the kernels, because racecheck cannot run cuBLAS's cluster kernels.
#pragma once

#include <cuda_runtime.h>

#include "common/gemm_problem.h"

namespace gemm {

// Enqueues C = A·Bᵀ for `problem` (bf16 out, fp32 sums) on `stream`.
void simple_reference_gemm(const GemmProblem& problem, cudaStream_t stream);

// The fp32 sum the simple reference rounds to bf16 for C[row, col]: fmaf over k in order. The `truncate` fault
// (runner/faults.cu) reads it too.
__device__ inline float simple_reference_sum(const GemmProblem& problem, int row, int col) {
  const bf16* a = problem.a + static_cast<size_t>(row) * problem.k;
  const bf16* b = problem.b + static_cast<size_t>(col) * problem.k;
  float sum = 0;
  for (int k = 0; k < problem.k; ++k) sum = fmaf(__bfloat162float(a[k]), __bfloat162float(b[k]), sum);
  return sum;
}

}  // namespace gemm
