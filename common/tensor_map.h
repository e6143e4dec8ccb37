// Creating TMA tensor maps on the host. Introduced by kernel 03.
//
// The driver function cuTensorMapEncodeTiled is reached through the runtime's entry-point query, so the
// program needs no link against libcuda. A map is passed to the kernel by value as a
// `const __grid_constant__ CUtensorMap` parameter: it then lives in the kernel's parameter space, where
// TMA can read it, with no copy to global memory.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "common/gemm_problem.h"

namespace gemm {

// A row-major `rows` × `cols` bf16 matrix read (or written) in boxes of `box_rows` × `box_cols`.
// `cols` · 2 bytes must be a multiple of 16 (TMA's stride rule); with SWIZZLE_128B, box_cols · 2 ≤ 128.
// Elements outside the matrix load as zero and are not stored. `promotion`: how much the L2 fetches when a load misses
// (256 bytes unless a chapter says otherwise).
CUtensorMap make_tensor_map_2d(const bf16* base, uint64_t rows, uint64_t cols, uint32_t box_rows, uint32_t box_cols,
                               CUtensorMapSwizzle swizzle,
                               CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B);

// The promotion under which the L2 fetches `fill_bytes` (64, 128 or 256) when a load through the map misses; throws
// std::invalid_argument for any other size.
CUtensorMapL2promotion l2_promotion(int fill_bytes);

}  // namespace gemm
