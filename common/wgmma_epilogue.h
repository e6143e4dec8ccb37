// Writing a warpgroup's wgmma accumulators to C: straight from the registers (store_accumulators_m64,
// introduced by kernel 03), staged in shared memory for a TMA store (stage_accumulators_m64, kernel 08), or
// packed to bf16 first and staged later, once the accumulators are busy again (pack_accumulator_chunks and
// stage_packed_m64, kernel 12). Kernel 14 stores one warp's rows at a time instead (store_warp_box, in its own
// file). Kernel 15 adds the transposed forms, for a tile of Cᵀ that goes into C.
#pragma once

#include "common/fragment_layout.h"
#include "common/gemm_problem.h"
#include "common/mbarrier.h"  // fence_proxy_async_shared
#include "common/smem_address.h"
#include "common/named_barrier.h"
#include "common/stmatrix.h"
#include "common/swizzle.h"
#include "common/tma.h"

namespace gemm {

// Store the fp32 accumulators of one m64nN wgmma tile (common/fragment_layout.h gives the layout,
// wgmma_m64_accumulator) as bf16 into the rows first_row .. first_row + 63 and columns first_col ..
// first_col + N - 1 of the M × N matrix C, skipping what lies outside. Each thread writes column pairs (its
// registers 4j + 2h and 4j + 2h + 1, 4 bytes): N must be even, so that a pair never straddles the right edge
// and stays 4-byte aligned. The kernels that call this (03-07) accept only N % 8 == 0, the ladder's shared rule
// for its TMA kernels (kTmaAligned), which TMA itself needs for N only where C is stored through a tensor map
// (kernel 08 on). Kernel 15 stores only the 8-column chunks [first_chunk, end_chunk) of a tile split evenly, the
// slice its share added.
// kTransposed (kernel 15): the accumulators are a tile of Cᵀ, M × N here, and element (row, col) goes to C's
// row col, column row (C is N × M, row-major): two 2-byte stores a column pair, into two rows of C.
template <int kN, bool kTransposed = false>
__device__ __forceinline__ void store_accumulators_m64(const float (&acc)[kN / 2], bf16* c, int M, int N,
                                                       int first_row, int first_col, int first_chunk = 0,
                                                       int end_chunk = kN / 8) {
  const int warp_in_group = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int row = first_row + wgmma_m64_accumulator(warp_in_group, lane, 2 * half).row;
    if (row >= M) continue;
    bf16* const out_row = kTransposed ? nullptr : c + static_cast<size_t>(row) * N;  // C's row: C as given only
#pragma unroll
    for (int chunk = 0; chunk < kN / 8; ++chunk) {
      if (chunk < first_chunk || chunk >= end_chunk) continue;
      const int col = first_col + wgmma_m64_accumulator(warp_in_group, lane, 4 * chunk + 2 * half).col;
      if (col >= N) continue;
      const __nv_bfloat162 pair = __floats2bfloat162_rn(acc[4 * chunk + 2 * half], acc[4 * chunk + 2 * half + 1]);
      if constexpr (kTransposed) {
        c[static_cast<size_t>(col) * M + row] = pair.x;
        if (col + 1 < N) c[static_cast<size_t>(col + 1) * M + row] = pair.y;
      } else {
        *reinterpret_cast<__nv_bfloat162*>(out_row + col) = pair;
      }
    }
  }
}

// Writes the 8-column chunks [first_chunk, first_chunk + 8 · kBoxes) of a warpgroup's m64nN accumulator
// (kAccumulators = N / 2 per thread; common/wgmma.h gives the layout) as bf16 into kBoxes boxes of 64 rows ×
// 64 columns (128 bytes, the widest box a 128B-swizzled TMA store takes), with stmatrix.x4: per instruction a
// warp writes a 16 × 16 block, four 8 × 8 matrices (rows 0-7 and 8-15 of its 16 rows, times two chunks). Lane
// l gives the address of row l % 8 of matrix l / 8 (stmatrix_lane_row); chunk c of row r of a box sits at
// swizzle_128b(r · 128 + c · 16), as the TMA store expects (stmatrix_box_address).
__device__ __forceinline__ int stmatrix_lane_row() {  // row of the warpgroup's 64 whose address this lane gives
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  return warp * 16 + lane % 8 + 8 * (lane / 8 % 2);
}
template <int kBoxes>
__device__ __forceinline__ uint32_t stmatrix_box_address(bf16 (&boxes)[kBoxes][64 * 64], int row, int pair) {
  const int local = 2 * pair + threadIdx.x % 32 / 16;  // the chunk this lane addresses, counted from the first box
  return smem_address(boxes[local / 8]) + swizzled_chunk_offset(row, local % 8);
}
// Transposed (kernel 15, a tile of Cᵀ stored into C): box b holds the tile's columns 64b .. 64b + 63 as its rows,
// each row the warpgroup's 64 tile rows (128 bytes). stmatrix .trans writes each 8 × 8 matrix transposed, so row q of
// matrix j is the accumulators' column q of it: lane l addresses box row 8 · (its chunk % 8) + l % 8, and in it the
// 16-byte chunk of its matrix's 8 tile rows, 2 · warp + (l / 8) % 2. The swizzle XORs a chunk with its row % 8 = l % 8,
// so the address is a per-lane offset (stmatrix_transposed_lane_offset) plus 1 KB for every 8 columns.
__device__ __forceinline__ uint32_t stmatrix_transposed_lane_offset() {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  return (lane / 16) * 1024 + swizzled_chunk_offset(lane % 8, 2 * warp + lane / 8 % 2);
}
// One stmatrix.x4 of a stage: registers in stage_accumulators_m64's order, written as is (`lane_place`: the lane's
// stmatrix_lane_row) or transposed (its stmatrix_transposed_lane_offset).
template <bool kTransposed, int kBoxes>
__device__ __forceinline__ void stmatrix_stage_pair(bf16 (&boxes)[kBoxes][64 * 64], uint32_t lane_place, int pair,
                                                    uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  if constexpr (kTransposed) {
    const uint32_t chunk = 2 * pair;  // this lane's chunk less lane / 16: whole boxes of 8 chunks, then 1 KB a chunk
    stmatrix_x4_trans(smem_address(boxes[chunk / 8]) + (chunk % 8) * 1024 + lane_place, r0, r1, r2, r3);
  } else {
    stmatrix_x4(stmatrix_box_address(boxes, static_cast<int>(lane_place), pair), r0, r1, r2, r3);
  }
}
template <bool kTransposed>
__device__ __forceinline__ uint32_t stmatrix_lane_place() {
  if constexpr (kTransposed) return stmatrix_transposed_lane_offset();
  return stmatrix_lane_row();
}
// kChunks (default 0: all 8 · kBoxes) stages only the boxes' first kChunks chunks, for a box narrower than 64
// columns: kernel 14's last box of Cᵀ, 2-7 chunks. An odd count (transposed only) ends with the last chunk's two
// 8 × 8 matrices in one stmatrix .x2 .trans, whose addresses lanes 0-15 give as for the x4.
template <bool kTransposed = false, int kChunks = 0, int kAccumulators, int kBoxes>
__device__ __forceinline__ void stage_accumulators_m64(const float (&acc)[kAccumulators], bf16 (&boxes)[kBoxes][64 * 64],
                                                       int first_chunk) {
  constexpr int kStaged = kChunks == 0 ? 8 * kBoxes : kChunks;
  static_assert(kStaged > 0 && kStaged <= 8 * kBoxes, "the chunks staged must fit in the boxes");
  static_assert(kStaged % 2 == 0 || kTransposed, "an odd chunk is staged transposed only");
  const uint32_t place = stmatrix_lane_place<kTransposed>();
#pragma unroll
  for (int pair = 0; pair < kStaged / 2; ++pair) {
    const int chunk = first_chunk + 2 * pair;  // accumulator chunks `chunk` and `chunk + 1`
    stmatrix_stage_pair<kTransposed>(boxes, place, pair, pack_bf16x2(acc[4 * chunk], acc[4 * chunk + 1]),
                                     pack_bf16x2(acc[4 * chunk + 2], acc[4 * chunk + 3]),
                                     pack_bf16x2(acc[4 * chunk + 4], acc[4 * chunk + 5]),
                                     pack_bf16x2(acc[4 * chunk + 6], acc[4 * chunk + 7]));
  }
  if constexpr (kStaged % 2 == 1) {
    constexpr int kLast = kStaged - 1;  // counted from the first box
    const int chunk = first_chunk + kLast;
    stmatrix_x2_trans(smem_address(boxes[kLast / 8]) + (kLast % 8) * 1024 + place,
                      pack_bf16x2(acc[4 * chunk], acc[4 * chunk + 1]), pack_bf16x2(acc[4 * chunk + 2], acc[4 * chunk + 3]));
  }
}

// The same chunks in two steps, so that the accumulators can be overwritten in between: first packed to bf16
// pairs in registers, two per chunk (packed[i] holds acc[4 · first_chunk + 2i] and the value after it, a row's
// two neighbouring columns), kPacked / 2 chunks from first_chunk ...
template <int kAccumulators, int kPacked>
__device__ __forceinline__ void pack_accumulator_chunks(const float (&acc)[kAccumulators], int first_chunk,
                                                        uint32_t (&packed)[kPacked]) {
#pragma unroll
  for (int i = 0; i < kPacked; ++i) packed[i] = pack_bf16x2(acc[4 * first_chunk + 2 * i], acc[4 * first_chunk + 2 * i + 1]);
}

// ... then staged: 16 packed registers per box, as stage_accumulators_m64 would have staged those chunks.
template <bool kTransposed = false, int kPacked, int kBoxes>
__device__ __forceinline__ void stage_packed_m64(const uint32_t (&packed)[kPacked], bf16 (&boxes)[kBoxes][64 * 64]) {
  static_assert(kPacked == 16 * kBoxes, "a box is 8 chunks of 2 packed registers");
  const uint32_t place = stmatrix_lane_place<kTransposed>();
#pragma unroll
  for (int pair = 0; pair < 4 * kBoxes; ++pair)
    stmatrix_stage_pair<kTransposed>(boxes, place, pair, packed[4 * pair], packed[4 * pair + 1], packed[4 * pair + 2],
                                     packed[4 * pair + 3]);
}

// One store round of a warpgroup's C through its staging boxes (kernel 08): wait until the boxes' previous TMA
// store has read them, let `stage` write the round into them (stage_accumulators_m64 or stage_packed_m64), make
// those writes visible to the async proxy, and have the store leader send box b to columns first_col + 64 b of
// rows row .. row + 63. `barrier` is the warpgroup's named barrier; only the leader may wait for its stores.
// kOtherBuffers: how many of the leader's latest stores read other buffers (taken in turn) and need not be done
// reading when this round rewrites `boxes`; 0 with one buffer. kTransposed: the round is of a tile of Cᵀ, staged
// transposed, and box b goes to C's rows first_col + 64 b .. + 63, columns row .. row + 63.
template <int kOtherBuffers = 0, bool kTransposed = false, int kBoxes, typename Stage>
__device__ __forceinline__ void store_staged_round(const CUtensorMap* map_c, bf16 (&boxes)[kBoxes][64 * 64], int row,
                                                   int first_col, bool store_leader, uint32_t barrier,
                                                   const Stage& stage) {
  constexpr uint32_t kWarpgroupThreads = 128;
  if (store_leader) tma_store_wait_read<kOtherBuffers>();  // the boxes' previous store has read them
  named_barrier_sync(barrier, kWarpgroupThreads);
  stage();
  fence_proxy_async_shared();  // these stmatrix writes must be visible to the TMA store
  named_barrier_sync(barrier, kWarpgroupThreads);
  if (store_leader) {
    for (int box = 0; box < kBoxes; ++box) {
      if constexpr (kTransposed)
        tma_store_2d(map_c, boxes[box], row, first_col + box * 64);
      else
        tma_store_2d(map_c, boxes[box], first_col + box * 64, row);
    }
    tma_store_commit_group();
  }
}

}  // namespace gemm
