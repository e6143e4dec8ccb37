// The Tensor Memory model (common/tmem.h) and the tcgen05 epilogue's index math (common/tmem_epilogue.h):
// against tables written out from the PTX ISA's description, and against CuTe's encoding of the same layouts
// (UMMA::tmem_frg*, Copy_Traits<SM100_TMEM_LOAD_32dp32b*>).
#include "tests/cute/cute_on_host.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "common/tmem.h"
#include "common/tmem_epilogue.h"

namespace gemm {
namespace {

using cute::Int;
namespace UMMA = cute::UMMA;

// ---- addressing and allocation (PTX ISA: "Tensor Memory Addressing", "Tensor Memory Allocation") -----------

TEST(TmemAddress, LaneInBits16To31ColumnInBits0To15) {
  EXPECT_EQ(tmem_address(0, 0), 0u);
  EXPECT_EQ(tmem_address(0, 511), 511u);
  EXPECT_EQ(tmem_address(1, 0), 0x10000u);
  EXPECT_EQ(tmem_address(96, 256), 0x600100u);
  for (uint32_t lane = 0; lane < kTmemLanes; lane += 7)
    for (uint32_t column = 0; column < kTmemColumns; column += 13) {
      EXPECT_EQ(tmem_lane(tmem_address(lane, column)), lane);
      EXPECT_EQ(tmem_column(tmem_address(lane, column)), column);
    }
  // Offsetting an allocation base (lane 0, some column) by lanes and columns.
  EXPECT_EQ(tmem_offset(tmem_address(0, 256), 64, 32), tmem_address(64, 288));
}

TEST(TmemAllocation, PowersOfTwoFrom32To512) {
  for (uint32_t columns = 0; columns <= 1024; ++columns)
    EXPECT_EQ(tmem_allocation_is_valid(columns),
              columns == 32 || columns == 64 || columns == 128 || columns == 256 || columns == 512)
        << columns;
  EXPECT_EQ(tmem_allocation_columns(0), 32u);
  EXPECT_EQ(tmem_allocation_columns(33), 64u);
  EXPECT_EQ(tmem_allocation_columns(256), 256u);  // kernel 17: one 128 x 256 fp32 accumulator
  EXPECT_EQ(tmem_allocation_columns(512), 512u);  // kernels 18 and 19: two of them
  EXPECT_EQ(tmem_allocation_columns(600), 0u);
}

// ---- access restrictions: the PTX ISA's table ("ID of the warp within the warpgroup" -> accessible lanes) ---

TEST(TmemAccess, WarpOfAWarpgroupReadsItsLaneQuarter) {
  const uint32_t first_lane_of_warp_in_warpgroup[4] = {0, 32, 64, 96};  // the table: 0-31, 32-63, 64-95, 96-127
  for (uint32_t warp = 0; warp < 32; ++warp) {
    EXPECT_EQ(tmem_first_lane_of_warp(warp), first_lane_of_warp_in_warpgroup[warp % 4]) << "warp " << warp;
    for (uint32_t lane = 0; lane < kTmemLanes; ++lane)
      EXPECT_EQ(tmem_warp_may_access(warp, lane),
                lane >= first_lane_of_warp_in_warpgroup[warp % 4] && lane < first_lane_of_warp_in_warpgroup[warp % 4] + 32)
          << "warp " << warp << " lane " << lane;
  }
}

// Kernels 17-19 read with warps 2-5: every lane exactly once.
TEST(TmemAccess, EpilogueWarpsCoverEveryLaneOnce) {
  std::vector<int> readers(kTmemLanes, 0);
  for (uint32_t warp = 2; warp < 2 + kTmemEpilogueWarps; ++warp)
    for (uint32_t thread = 0; thread < 32; ++thread) ++readers[tmem_32x32b_cell(warp, thread, 0, 0).lane];
  for (uint32_t lane = 0; lane < kTmemLanes; ++lane) EXPECT_EQ(readers[lane], 1) << "lane " << lane;
}

// ---- the 32x32b data path ----------------------------------------------------------------------------------

// PTX ISA, "Matrix fragments for shape .32x32b": a warp accesses 32 lanes, each thread one lane (thread t the
// t-th from the warp's first), each register one 32-bit column, r0 the first.
TEST(Tmem32x32b, ThreadIsLaneRegisterIsColumn) {
  for (uint32_t warp = 0; warp < 8; ++warp)
    for (uint32_t thread = 0; thread < 32; ++thread)
      for (uint32_t reg = 0; reg < 128; ++reg)
        for (uint32_t first_column : {0u, 32u, 256u}) {
          const TmemCell cell = tmem_32x32b_cell(warp, thread, reg, first_column);
          EXPECT_EQ(cell.lane, 32 * (warp % 4) + thread);
          EXPECT_EQ(cell.column, first_column + reg);
          EXPECT_TRUE(tmem_warp_may_access(warp, cell.lane));
        }
  // The address every thread of warp w passes: its quarter's first lane, the first column.
  EXPECT_EQ(tmem_32x32b_address(tmem_address(0, 256), 2, 64), tmem_address(64, 320));
  EXPECT_EQ(tmem_32x32b_address(tmem_address(0, 0), 5, 0), tmem_address(32, 0));
}

// CuTe's TMEM load atom for 32 data paths × 32 bits × N: its thread/value layout maps (thread t, bit b of its
// registers) to a TMEM bit address (lane · DP_b + column · 32 + bit). Ours must agree for every register.
template <class Op, int kRegisters>
void expect_cute_32x32b_matches() {
  using Traits = cute::Copy_Traits<Op>;
  const typename Traits::DstLayout dst{};  // (thread, register bit) -> value index
  const typename Traits::ValID val{};      // value index -> TMEM bit address, relative to the warp's first lane
  constexpr int kLaneBits = cute::TMEM::DP_b::value;
  for (int thread = 0; thread < 32; ++thread)
    for (int reg = 0; reg < kRegisters; ++reg) {
      const int bit_address = static_cast<int>(val(dst(thread, 32 * reg)));
      const TmemCell cell = tmem_32x32b_cell(0, thread, reg, 0);
      EXPECT_EQ(static_cast<uint32_t>(bit_address / kLaneBits), cell.lane) << "thread " << thread << " reg " << reg;
      EXPECT_EQ(static_cast<uint32_t>(bit_address % kLaneBits / 32), cell.column) << "thread " << thread << " reg " << reg;
    }
}

TEST(Tmem32x32b, MatchesCuteTmemLoadAtoms) {
  expect_cute_32x32b_matches<cute::SM100_TMEM_LOAD_32dp32b1x, 1>();
  expect_cute_32x32b_matches<cute::SM100_TMEM_LOAD_32dp32b8x, 8>();
  expect_cute_32x32b_matches<cute::SM100_TMEM_LOAD_32dp32b32x, 32>();  // the epilogue's .x32
  expect_cute_32x32b_matches<cute::SM100_TMEM_LOAD_32dp32b64x, 64>();
}

// ---- data-path layouts: where D lands (PTX ISA "Data Path Layout Organization"; CuTe UMMA::tmem_frg*) ------

// CuTe's TMEM fragment for an MMA's D maps (row, column) to a 32-bit TMEM address: lane << 16 | column.
template <class Fragment>
void expect_layout_matches_cute(TmemDataPath path, const Fragment& fragment, uint32_t rows, uint32_t n,
                                const char* what) {
  std::set<uint32_t> cells;
  for (uint32_t row = 0; row < rows; ++row)
    for (uint32_t column = 0; column < n; ++column) {
      const uint32_t cute_address = static_cast<uint32_t>(
          fragment.layout()(cute::make_coord(cute::make_coord(static_cast<int>(row), static_cast<int>(column)), 0, 0)));
      const TmemCell ours = tmem_accumulator_cell(path, row, column, n);
      ASSERT_EQ(tmem_address(ours.lane, ours.column), cute_address) << what << " row " << row << " column " << column;
      ASSERT_TRUE(tmem_cell_holds_accumulator(path, ours, n)) << what;
      ASSERT_EQ(tmem_accumulator_element(path, ours, n), (MatrixCell{row, column})) << what;
      cells.insert(cute_address);
    }
  EXPECT_EQ(cells.size(), size_t{rows} * n) << what << ": two elements in one cell";
}

TEST(TmemDataPathLayouts, MatchCuteTmemFragments) {
  // Layout D: M = 128, cta_group::1 (kernel 17).
  expect_layout_matches_cute(TmemDataPath::kLayoutD,
                             UMMA::tmem_frg_1sm<float>::make(cute::Shape<cute::Shape<Int<128>, Int<256>>, Int<1>, Int<1>>{}),
                             128, 256, "layout D");
  // Layout A: M = 256, cta_group::2: each CTA's 128 rows (kernel 19).
  expect_layout_matches_cute(TmemDataPath::kLayoutA,
                             UMMA::tmem_frg_2sm<float>::make(cute::Shape<cute::Shape<Int<128>, Int<256>>, Int<1>, Int<1>>{}),
                             128, 256, "layout A");
  // Layout F: M = 64 without .ws: 16 rows per lane quarter.
  expect_layout_matches_cute(TmemDataPath::kLayoutF,
                             UMMA::tmem_frg_1sm<float>::make(cute::Shape<cute::Shape<Int<64>, Int<256>>, Int<1>, Int<1>>{}),
                             64, 256, "layout F");
  // Layout E: M = 64 with .ws: the N halves fold onto the lane halves (the 2x2 data path).
  expect_layout_matches_cute(TmemDataPath::kLayoutE,
                             UMMA::tmem_frg_ws_1sm<float>::make(cute::Shape<cute::Shape<Int<64>, Int<128>>, Int<1>, Int<1>>{}),
                             64, 128, "layout E, N = 128");
  expect_layout_matches_cute(TmemDataPath::kLayoutE,
                             UMMA::tmem_frg_ws_1sm<float>::make(cute::Shape<cute::Shape<Int<64>, Int<256>>, Int<1>, Int<1>>{}),
                             64, 256, "layout E, N = 256");
}

// The split ("dual") GEMM of docs/tcgen05_dual_gemm.md: an M = 64, N = 128 .ws MMA whose B rows 0-63 carry
// the first half of the reduction (K0) and rows 64-127 the second (K1). Output row i, key j < 64 lands in lane
// i; key j of the second half (column 64 + j) lands in lane 64 + i, same TMEM column j. The two partial
// products of one P[i][j] are thus in lanes i and 64 + i: readable only by warps of quarters ⌊i/32⌋ and
// ⌊i/32⌋ + 2, which must meet (through shared memory) to add them.
TEST(TmemDataPathLayouts, DualGemmHalvesMeetInLanesIAndIPlus64) {
  constexpr uint32_t kN = 128, kKeys = 64;
  for (uint32_t i = 0; i < 64; ++i)
    for (uint32_t j = 0; j < kKeys; ++j) {
      const TmemCell first = tmem_accumulator_cell(TmemDataPath::kLayoutE, i, j, kN);
      const TmemCell second = tmem_accumulator_cell(TmemDataPath::kLayoutE, i, kKeys + j, kN);
      EXPECT_EQ(first, (TmemCell{i, j}));
      EXPECT_EQ(second, (TmemCell{64 + i, j}));
      EXPECT_EQ(second.lane / kTmemLanesPerWarp, first.lane / kTmemLanesPerWarp + 2);  // the lane quarter two warps on
    }
  // With M = 128 (layout D) there is no fold: row i -> lane i for every column, one lane per output row.
  for (uint32_t i = 0; i < 128; ++i)
    for (uint32_t j : {0u, 63u, 64u, 127u}) EXPECT_EQ(tmem_accumulator_cell(TmemDataPath::kLayoutD, i, j, kN).lane, i);
}

// ---- the epilogue's index math (common/tmem_epilogue.h) -------------------------------------------------------

// Warps 2-5, four 64-column chunks, 64 registers each: every element of the 128 × 256 accumulator once, in the
// staging box of the warp that may read its lane, at the byte CuTe's 128B-swizzled K-major layout of a 32 × 64
// bf16 box gives it (the layout TMA's SWIZZLE_128B store reads).
TEST(TmemEpilogue, StoresEveryElementOnceWhereTheSwizzledBoxExpectsIt) {
  constexpr uint32_t kRows = 128, kColumns = 256;
  const auto box_layout = cute::tile_to_shape(UMMA::Layout_K_SW128_Atom<cute::bfloat16_t>{},
                                              cute::make_shape(Int<kTmemStoreRows>{}, Int<kTmemStoreColumns>{}));
  const auto box = cute_test::smem_tensor(0, box_layout);
  std::vector<int> hits(kRows * kColumns, 0);
  for (uint32_t warp = 2; warp < 2 + kTmemEpilogueWarps; ++warp)
    for (uint32_t chunk = 0; chunk < kColumns / kTmemStoreColumns; ++chunk) {
      std::set<uint32_t> bytes;
      for (uint32_t lane = 0; lane < 32; ++lane)
        for (uint32_t reg = 0; reg < kTmemStoreColumns; ++reg) {
          const TmemStoreElement e = tmem_store_element(warp, lane, chunk * kTmemStoreColumns, reg);
          ASSERT_LT(e.tile.row, kRows);
          ASSERT_LT(e.tile.column, kColumns);
          ++hits[e.tile.row * kColumns + e.tile.column];
          EXPECT_TRUE(tmem_warp_may_access(warp, e.tile.row));  // layout D: row = lane
          EXPECT_EQ(e.box_row0, 32 * (warp % 4));
          const uint32_t box_row = e.tile.row - e.box_row0, box_column = e.tile.column - chunk * kTmemStoreColumns;
          EXPECT_EQ(e.box_byte, cute_test::address_of(&box(box_row, box_column))) << "row " << box_row << " col " << box_column;
          bytes.insert(e.box_byte);
        }
      EXPECT_EQ(bytes.size(), size_t{kTmemStoreBoxElements}) << "warp " << warp << " chunk " << chunk;
    }
  for (uint32_t i = 0; i < kRows * kColumns; ++i) ASSERT_EQ(hits[i], 1) << "element " << i;
}

}  // namespace
}  // namespace gemm
