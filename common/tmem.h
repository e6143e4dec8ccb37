// Tensor Memory (TMEM): where tcgen05.mma keeps its accumulators, and the rules for reading them back.
// Host and device code: tests/cute checks this model against the PTX ISA's description and against CuTe's
// encoding of the same layouts, and the kernels' epilogues compute their row and column indices with it.
// Introduced by kernel 17.
//
// Sources: PTX ISA, "Tensor Memory", "Tensor Memory Addressing", "Tensor Memory Allocation", "Access
// restrictions", "Matrix fragments for shape .32x32b", "Data Path Layout Organization"; CUTLASS
// cute/atom/mma_traits_sm100.hpp (UMMA::tmem_frg, UMMA::tmem_frg_ws) and cute/atom/copy_traits_sm100.hpp
// (Copy_Traits<SM100_TMEM_LOAD_32dp32b...>).
//
// TMEM is per SM (per CTA when one CTA holds an SM): 128 lanes (rows) × 512 columns of 32-bit cells,
// 256 KB, next to the tensor cores. An address is 32 bits:
//
//      31            16 15             0
//     +----------------+----------------+
//     |   lane index   |  column index  |
//     +----------------+----------------+
//
//                column 0        ...        column 511
//   lane   0   [ 32 bit ][ 32 bit ] ... [ 32 bit ]   <- warp 0 of a warpgroup (w % 4 == 0) reads lanes 0-31
//   ...                                                  only, warp 1 lanes 32-63, warp 2 lanes 64-95,
//   lane 127   [        ][        ] ... [        ]      warp 3 lanes 96-127; every warp sees all columns
//
// Allocation is by columns, all 128 lanes at once: one warp asks for a power of two of at least 32 columns
// (tcgen05.alloc writes the base address, lane 0 and the first column, to shared memory), the same warp frees
// them (tcgen05.dealloc) before the kernel ends, and relinquish_alloc_permit says it will allocate no more.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include <cstdint>

namespace gemm {

constexpr uint32_t kTmemLanes = 128;
constexpr uint32_t kTmemColumns = 512;
constexpr uint32_t kTmemMinAllocation = 32;  // columns; an allocation is a power of two from 32 to 512
constexpr uint32_t kTmemLanesPerWarp = 32;   // the lane quarter one warp may access

// ---- addresses -----------------------------------------------------------------------------------------------

__host__ __device__ constexpr uint32_t tmem_address(uint32_t lane, uint32_t column) { return (lane << 16) | column; }
__host__ __device__ constexpr uint32_t tmem_lane(uint32_t address) { return address >> 16; }
__host__ __device__ constexpr uint32_t tmem_column(uint32_t address) { return address & 0xffffu; }

// `address` moved by `lanes` lanes and `columns` columns (the allocation base has lane 0).
__host__ __device__ constexpr uint32_t tmem_offset(uint32_t address, uint32_t lanes, uint32_t columns) {
  return address + (lanes << 16) + columns;
}

// ---- allocation ------------------------------------------------------------------------------------------------

__host__ __device__ constexpr bool tmem_allocation_is_valid(uint32_t columns) {
  return columns >= kTmemMinAllocation && columns <= kTmemColumns && (columns & (columns - 1)) == 0;
}

// The allocation that holds `columns` columns: the next power of two, at least 32; 0 if more than 512.
__host__ __device__ constexpr uint32_t tmem_allocation_columns(uint32_t columns) {
  uint32_t allocation = kTmemMinAllocation;
  while (allocation < columns && allocation < kTmemColumns) allocation *= 2;
  return allocation >= columns ? allocation : 0;
}

// ---- which warp may read which lanes ---------------------------------------------------------------------------
//
// tcgen05.ld / tcgen05.st from warp w reach only lanes 32·(w % 4) ... 32·(w % 4) + 31: w % 4 is the warp's
// index in its warpgroup (PTX ISA, "Access restrictions"). So reading all 128 lanes takes four warps whose
// indices cover all four residues, e.g. any four consecutive warps: kernel 17's epilogue warps 2, 3, 4, 5
// read lanes 64-95, 96-127, 0-31, 32-63.
__host__ __device__ constexpr uint32_t tmem_lane_quarter(uint32_t warp) { return warp % 4; }
__host__ __device__ constexpr uint32_t tmem_first_lane_of_warp(uint32_t warp) {
  return kTmemLanesPerWarp * tmem_lane_quarter(warp);
}
__host__ __device__ constexpr bool tmem_warp_may_access(uint32_t warp, uint32_t lane) {
  return lane / kTmemLanesPerWarp == tmem_lane_quarter(warp);
}

// ---- the tcgen05.ld .32x32b data path --------------------------------------------------------------------------
//
// tcgen05.ld.sync.aligned.32x32b.xN, issued by warp w at address (lane 32·(w%4), column c): 32 lanes × N
// columns, one lane per thread, one column per register (PTX ISA, "Matrix fragments for shape .32x32b"):
//
//                  column c     c+1     ...   c+N-1
//   lane 32(w%4)+0   t0:r0     t0:r1    ...   t0:r(N-1)
//   lane 32(w%4)+1   t1:r0     t1:r1    ...   t1:r(N-1)
//   ...
//   lane 32(w%4)+31  t31:r0    t31:r1   ...   t31:r(N-1)
struct TmemCell {
  uint32_t lane = 0;
  uint32_t column = 0;
};
__host__ __device__ constexpr bool operator==(TmemCell x, TmemCell y) { return x.lane == y.lane && x.column == y.column; }

// The cell that register `reg` of thread `thread` (0-31) of warp `warp` holds after a 32x32b load at column
// `first_column` of the warp's own lane quarter.
__host__ __device__ constexpr TmemCell tmem_32x32b_cell(uint32_t warp, uint32_t thread, uint32_t reg,
                                                        uint32_t first_column) {
  return {tmem_first_lane_of_warp(warp) + thread, first_column + reg};
}

// The address warp `warp` passes to a 32x32b load of columns from `column` on: the lane field must be the
// first lane of its quarter (every thread of the warp passes the same address).
__host__ __device__ constexpr uint32_t tmem_32x32b_address(uint32_t base, uint32_t warp, uint32_t column) {
  return tmem_offset(base, tmem_first_lane_of_warp(warp), column);
}

// ---- where an MMA's D lands ------------------------------------------------------------------------------------
//
// The lanes a tcgen05.mma writes depend on M, on .cta_group, on .ws and (M = 128, cta_group::2) on A's
// sparsity (PTX ISA, "Data Path Layout Organization", layouts A-G). The four this ladder talks about, for a D of M × N fp32 (one column per
// element) starting at column 0 of the allocation:
//
//   Layout D  M = 128, cta_group::1             row i -> lane i,                    column j -> column j
//   Layout A  M = 256, cta_group::2             each CTA holds its 128 rows: local row i -> lane i, as D
//   Layout E  M = 64, .ws (CuTe: "2x2")         row i, column j -> lane i + 64·⌊j / (N/2)⌋, column j mod N/2
//                                               (the N halves fold onto the two 64-lane halves)
//   Layout F  M = 64, no .ws ("4x1", half)      row i -> lane 32·⌊i / 16⌋ + i mod 16, column j -> column j
//                                               (16 rows per warp quarter; lanes 16-31 of each quarter idle)
//
// The layout names are the PTX ISA's labels (layout D is unrelated to the matrix D). "2x2" is CuTe's name for
// layout E's arrangement (two 32-lane sub-partitions along M, two along N); the ISA's table lists layout E as
// "2x3" and uses "2x2" for layout B (M = 128, cta_group::2).
//
// A in TMEM (the "ts" form of tcgen05.mma) follows the same lanes as D: row i of A sits in the lane(s) that
// compute row i of D (PTX ISA: layouts that use half the data path must give A and D the same lane alignment;
// CuTe allocates A "NonInterleaved" for this DP-address equivalence). That each lane half of layout E needs its
// own copy of A is read by analogy: CuTe's "Duplicated" mode, A copied into both lane halves, is documented for
// UMMA_2SM_128xNx16_TS (cta_group::2, layout B), and its 1-SM .ws fragment (tmem_frg_ws) takes no allocation
// mode. docs/tcgen05_dual_gemm.md uses this to explain the split ("dual") GEMM.
enum class TmemDataPath { kLayoutA, kLayoutD, kLayoutE, kLayoutF };

struct MatrixCell {
  uint32_t row = 0;
  uint32_t column = 0;
};
__host__ __device__ constexpr bool operator==(MatrixCell x, MatrixCell y) { return x.row == y.row && x.column == y.column; }

// The number of D rows held by one CTA.
__host__ __device__ constexpr uint32_t tmem_data_path_rows(TmemDataPath path) {
  return path == TmemDataPath::kLayoutA || path == TmemDataPath::kLayoutD ? 128u : 64u;
}

// D(row, column) of an M × n accumulator (this CTA's rows for layout A) -> its TMEM cell.
__host__ __device__ constexpr TmemCell tmem_accumulator_cell(TmemDataPath path, uint32_t row, uint32_t column,
                                                             uint32_t n) {
  switch (path) {
    case TmemDataPath::kLayoutA:
    case TmemDataPath::kLayoutD: return {row, column};
    case TmemDataPath::kLayoutE: return {row + 64 * (column / (n / 2)), column % (n / 2)};
    case TmemDataPath::kLayoutF: return {32 * (row / 16) + row % 16, column};
  }
  return {};
}

// Whether TMEM cell (lane, column) holds an element of an M × n accumulator in this layout.
__host__ __device__ constexpr bool tmem_cell_holds_accumulator(TmemDataPath path, TmemCell cell, uint32_t n) {
  switch (path) {
    case TmemDataPath::kLayoutA:
    case TmemDataPath::kLayoutD: return cell.lane < 128 && cell.column < n;
    case TmemDataPath::kLayoutE: return cell.lane < 128 && cell.column < n / 2;
    case TmemDataPath::kLayoutF: return cell.lane < 128 && cell.lane % 32 < 16 && cell.column < n;
  }
  return false;
}

// The inverse: the D element a TMEM cell holds (for a cell that holds one).
__host__ __device__ constexpr MatrixCell tmem_accumulator_element(TmemDataPath path, TmemCell cell, uint32_t n) {
  switch (path) {
    case TmemDataPath::kLayoutA:
    case TmemDataPath::kLayoutD: return {cell.lane, cell.column};
    case TmemDataPath::kLayoutE: return {cell.lane % 64, cell.column + (n / 2) * (cell.lane / 64)};
    case TmemDataPath::kLayoutF: return {16 * (cell.lane / 32) + cell.lane % 32, cell.column};
  }
  return {};
}

// The epilogue's question: after a 32x32b load at column `first_column` of an accumulator in layout A or D,
// which element of D is in register `reg` of thread `thread` of warp `warp`? Row 32·(w % 4) + thread,
// column first_column + reg.
__host__ __device__ constexpr MatrixCell tmem_32x32b_accumulator_element(TmemDataPath path, uint32_t warp,
                                                                         uint32_t thread, uint32_t reg,
                                                                         uint32_t first_column, uint32_t n) {
  return tmem_accumulator_element(path, tmem_32x32b_cell(warp, thread, reg, first_column), n);
}

static_assert(tmem_address(0, 0) == 0 && tmem_address(1, 0) == 0x10000u && tmem_address(127, 511) == 0x7f01ffu);
static_assert(tmem_allocation_columns(1) == 32 && tmem_allocation_columns(256) == 256 &&
              tmem_allocation_columns(257) == 512 && tmem_allocation_columns(513) == 0);
static_assert(tmem_first_lane_of_warp(2) == 64 && tmem_first_lane_of_warp(5) == 32);

}  // namespace gemm
