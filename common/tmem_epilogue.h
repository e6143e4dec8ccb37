// The tcgen05 epilogue: a 128 × N fp32 accumulator in Tensor Memory -> bf16 C through shared memory and TMA
// stores, by four warps, each reading the 32 TMEM lanes it is allowed to (common/tmem.h). Introduced by
// kernel 17; kernels 18 and 19 run it once per tile while the MMAs of the next tile proceed.
//
//   warp w (w % 4 = q) owns rows 32q ... 32q + 31 of the tile; per 64-column chunk:
//
//     TMEM lanes 32q..32q+31, columns c..c+63
//        | tcgen05.ld.32x32b.x32 twice, tcgen05.wait::ld   (thread t: row 32q + t, registers = columns)
//        v
//     64 fp32 -> 32 bf16x2 registers: one 128-byte row segment per thread
//        | 8 × 16-byte st.shared into a 32 × 64 staging box, 128-byte swizzled (conflict-free: the 8 threads
//        v  of a 16-byte store phase hit 8 different 16-byte bank groups)
//     fence.proxy.async; lane 0: cp.async.bulk.tensor store of the box to C (clipped at M and N)
//
// Two staging boxes per warp alternate, so a warp converts chunk i + 1 while the TMA engine still reads
// chunk i; before reusing a box, lane 0 waits until at most one bulk store group still reads (the other box's).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/gemm_problem.h"
#include "common/swizzle.h"
#include "common/tmem.h"
#ifdef __CUDACC__  // the device part; the index math above it is host-testable (tests/cute)
#include "common/mbarrier.h"  // fence_proxy_async_shared
#include "common/tcgen05.h"
#include "common/tma.h"
#endif

namespace gemm {

constexpr int kTmemEpilogueWarps = 4;      // one per TMEM lane quarter
constexpr int kTmemStoreRows = 32;         // rows per warp: its lane quarter
constexpr int kTmemStoreColumns = 64;      // one 128-byte swizzled row of bf16 per staging box row
constexpr int kTmemStoreBuffers = 2;       // staging boxes per warp
constexpr int kTmemStoreBoxElements = kTmemStoreRows * kTmemStoreColumns;  // 4 KB of bf16
static_assert(kTmemStoreColumns * sizeof(bf16) == kSwizzleRowBytes);

// The staging space of one epilogue warp. Each box must start on a 1024-byte boundary (128-byte swizzle).
struct TmemStoreStaging {
  alignas(1024) bf16 box[kTmemStoreBuffers][kTmemStoreBoxElements];
};

// Which staging box a warp's next TMA store uses. Before writing a box the warp waits until at most
// kTmemStoreBuffers - 1 of its stores are still reading shared memory, so the box it must not touch is the one
// its last store used. The boxes therefore take turns over every store the warp issues, across tiles: a tile at
// the N edge may store an odd number of chunks, and a persistent kernel's next tile must not start on the box
// whose store is still in flight. Kept by the caller for as long as the warp stores.
struct TmemStoreBoxes {
  uint32_t stores = 0;  // TMA stores this warp has issued
  __host__ __device__ constexpr uint32_t next() const { return stores % kTmemStoreBuffers; }
};

// Where the epilogue puts one accumulator element: register `reg` (0-63) of thread `lane` of epilogue warp
// `warp`, for the chunk whose first tile column is `chunk_column`, holds D(tile.row, tile.column) (the
// common/tmem.h model of the 32x32b load, layout D/A); it goes to byte `box_byte` of the warp's 32 × 64 staging
// box, whose first row is tile row `box_row0`, at the position TMA's 128-byte swizzle expects.
struct TmemStoreElement {
  MatrixCell tile;
  uint32_t box_row0 = 0;
  uint32_t box_byte = 0;
};
__host__ __device__ constexpr TmemStoreElement tmem_store_element(uint32_t warp, uint32_t lane, uint32_t chunk_column,
                                                                  uint32_t reg) {
  const MatrixCell tile = tmem_32x32b_accumulator_element(TmemDataPath::kLayoutD, warp, lane, reg, chunk_column, 0);
  const uint32_t box_row0 = tmem_first_lane_of_warp(warp);
  const uint32_t box_column = tile.column - chunk_column;  // = reg
  return {tile, box_row0,
          swizzled_chunk_offset(tile.row - box_row0, box_column / 8) + (box_column % 8) * uint32_t{sizeof(bf16)}};
}

#ifdef __CUDACC__

// Called by every thread of one epilogue warp `warp` (the four epilogue warps must cover the four lane
// quarters), after the accumulator is complete and tcgen05_fence_after_thread_sync. Stores the layout-A/D
// accumulator whose lane-0 address is `accumulator` (kColumns fp32 columns) to rows row0 ... row0 + 127 and
// columns col0 ... col0 + kColumns - 1 of C through `map_c` (boxes of 32 rows × 64 columns, 128-byte
// swizzle), through the warp's staging boxes in the order `boxes` keeps across calls. Every TMEM read has
// completed when it returns; the stores may still be in flight (lane 0 waits for them with tma_store_wait
// before the CTA exits).
template <int kColumns>
__device__ __forceinline__ void store_tmem_accumulator(uint32_t accumulator, TmemStoreStaging& staging,
                                                       TmemStoreBoxes& boxes, const CUtensorMap* map_c, int m,
                                                       int n, int row0, int col0) {
  static_assert(kColumns % kTmemStoreColumns == 0);
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t box_row0 = tmem_store_element(warp, lane, 0, 0).box_row0;  // 32 (warp % 4)
  if (row0 + static_cast<int>(box_row0) >= m) return;  // the warp's rows are all past M (warp-uniform)

  for (int chunk = 0; chunk < kColumns / kTmemStoreColumns; ++chunk) {
    const int column = chunk * kTmemStoreColumns;
    if (col0 + column >= n) break;  // columns past N (warp-uniform)
    bf16* box = staging.box[boxes.next()];

    uint32_t low[32], high[32];
    tcgen05_ld_32x32b_x32(tmem_32x32b_address(accumulator, warp, column), low);
    tcgen05_ld_32x32b_x32(tmem_32x32b_address(accumulator, warp, column + 32), high);
    tcgen05_wait_ld();
    tcgen05_registers_ready(low);
    tcgen05_registers_ready(high);

    // Every store but the last, which used the other box, must have been read out before this box is written.
    if (lane == 0) tma_store_wait_read<kTmemStoreBuffers - 1>();
    __syncwarp();

    // Registers 0-31 came from the load at `column`, 32-63 from the one at column + 32: register r holds
    // column column + r of this thread's row, written 8 registers (16 bytes) at a time.
    const uint32_t box_address = smem_address(box);
#pragma unroll
    for (uint32_t segment = 0; segment < 8; ++segment) {
      uint32_t packed[4];
#pragma unroll
      for (uint32_t i = 0; i < 4; ++i) {
        const uint32_t c = segment * 8 + 2 * i;  // columns c, c + 1 of the chunk
        const float x = __uint_as_float(c < 32 ? low[c] : high[c - 32]);
        const float y = __uint_as_float(c + 1 < 32 ? low[c + 1] : high[c + 1 - 32]);
        const __nv_bfloat162 pair = __floats2bfloat162_rn(x, y);  // x in the low half: the lower address
        packed[i] = *reinterpret_cast<const uint32_t*>(&pair);
      }
      const uint32_t byte = tmem_store_element(warp, lane, column, segment * 8).box_byte;
      asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(box_address + byte), "r"(packed[0]),
                   "r"(packed[1]), "r"(packed[2]), "r"(packed[3])
                   : "memory");
    }
    fence_proxy_async_shared();  // the generic-proxy writes above, visible to the TMA engine's reads
    __syncwarp();
    if (lane == 0) {
      tma_store_2d(map_c, box, col0 + column, row0 + static_cast<int>(box_row0));
      tma_store_commit_group();
    }
    ++boxes.stores;
  }
}

#endif  // __CUDACC__

}  // namespace gemm
