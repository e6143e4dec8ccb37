#include "runner/simple_reference.h"

#include <cstdint>

#include "common/cuda_check.h"
#include "common/errors.h"

namespace gemm {
namespace {

constexpr int kTile = 16;  // a 16 × 16 block of outputs per CTA

// One CTA per 16 × 16 block of outputs, the blocks numbered row by row along a 1-D grid: a 2-D grid's y
// dimension (at most 65535 blocks) would cap M at about a million rows.
__global__ void simple_reference_kernel(GemmProblem problem, int tiles_n) {
  const int row = static_cast<int>(blockIdx.x / tiles_n) * kTile + threadIdx.y;
  const int col = static_cast<int>(blockIdx.x % tiles_n) * kTile + threadIdx.x;
  if (row >= problem.m || col >= problem.n) return;
  const float sum = simple_reference_sum(problem, row, col);
  problem.c[static_cast<size_t>(row) * problem.n + col] = __float2bfloat16_rn(sum);
}

}  // namespace

void simple_reference_gemm(const GemmProblem& problem, cudaStream_t stream) {
  const int tiles_n = ceil_div(problem.n, kTile);
  const int64_t tiles = static_cast<int64_t>(ceil_div(problem.m, kTile)) * tiles_n;
  if (tiles > 0x7fffffff) throw UsageError("the simple reference takes at most 2^31 - 1 blocks of 16 x 16 outputs");
  simple_reference_kernel<<<static_cast<unsigned>(tiles), dim3(kTile, kTile), 0, stream>>>(problem, tiles_n);
  check_launch("simple_reference_kernel");
}

}  // namespace gemm
