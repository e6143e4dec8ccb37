#include "runner/simple_reference.h"

#include "common/cuda_check.h"

namespace gemm {
namespace {

constexpr int kTile = 16;  // a 16 × 16 block of outputs per CTA

__global__ void simple_reference_kernel(GemmProblem problem) {
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  if (row >= problem.m || col >= problem.n) return;
  const bf16* a = problem.a + static_cast<size_t>(row) * problem.k;
  const bf16* b = problem.b + static_cast<size_t>(col) * problem.k;
  float sum = 0;
  for (int k = 0; k < problem.k; ++k) sum = fmaf(__bfloat162float(a[k]), __bfloat162float(b[k]), sum);
  problem.c[static_cast<size_t>(row) * problem.n + col] = __float2bfloat16_rn(sum);
}

}  // namespace

void simple_reference_gemm(const GemmProblem& problem, cudaStream_t stream) {
  const dim3 grid(ceil_div(problem.n, kTile), ceil_div(problem.m, kTile));
  simple_reference_kernel<<<grid, dim3(kTile, kTile), 0, stream>>>(problem);
  check_launch("simple_reference_kernel");
}

}  // namespace gemm
