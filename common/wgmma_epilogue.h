// Writing a warpgroup's wgmma accumulators to C, introduced by kernel 03 (kernel 08 replaces it with a
// staged TMA store).
#pragma once

#include "common/fragment_layout.h"
#include "common/gemm_problem.h"

namespace gemm {

// Store the fp32 accumulators of one m64nN wgmma tile (common/fragment_layout.h gives the layout,
// wgmma_m64_accumulator) as bf16 into the rows first_row .. first_row + 63 and columns first_col ..
// first_col + N - 1 of the M × N matrix C, skipping what lies outside. Each thread writes column pairs (its
// registers 4j + 2h and 4j + 2h + 1, 4 bytes): N must be a multiple of 8, as the TMA kernels require, so a
// pair never straddles the right edge.
template <int kN>
__device__ __forceinline__ void store_accumulators_m64(const float (&acc)[kN / 2], bf16* c, int M, int N,
                                                       int first_row, int first_col) {
  const int warp_in_group = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int row = first_row + wgmma_m64_accumulator(warp_in_group, lane, 2 * half).row;
    if (row >= M) continue;
    bf16* out_row = c + static_cast<size_t>(row) * N;
#pragma unroll
    for (int chunk = 0; chunk < kN / 8; ++chunk) {
      const int col = first_col + wgmma_m64_accumulator(warp_in_group, lane, 4 * chunk + 2 * half).col;
      if (col < N)
        *reinterpret_cast<__nv_bfloat162*>(out_row + col) =
            __floats2bfloat162_rn(acc[4 * chunk + 2 * half], acc[4 * chunk + 2 * half + 1]);
    }
  }
}

}  // namespace gemm
