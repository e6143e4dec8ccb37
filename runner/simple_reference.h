// A reference result computed without cuBLAS: one thread per output element, an fp32 dot product in K
// order. Slow (a naive GEMM), but it uses nothing compute-sanitizer cannot follow: `gemm check --reference
// simple` is how scripts/sanitize.sh runs the kernels, because racecheck cannot run cuBLAS's cluster kernels.
#pragma once

#include <cuda_runtime.h>

#include "common/gemm_problem.h"

namespace gemm {

// Enqueues C = A·Bᵀ for `problem` (bf16 out, fp32 sums) on `stream`.
void simple_reference_gemm(const GemmProblem& problem, cudaStream_t stream);

}  // namespace gemm
