// The data mappings of common/fragment_layout.h, pinned to entries read off the PTX ISA's figures ("Matrix
// Fragments for mma.m16n8k16 with floating point type", the ldmatrix fragment figure, the wgmma .m64nNk16
// accumulator D figure), to CuTe's layouts of the same instructions, and to CUTLASS's crosswise shared-memory
// layout and warp iterator, which kernel 02's swizzle and ldmatrix addressing are equivalent to.
// tests/gpu/fragment_layout_test.cu checks the same functions against the hardware.
#include <cuda_runtime.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "common/fragment_layout.h"
#include "common/swizzle.h"

namespace gemm {
namespace {

struct Entry {
  int lane, element, row, col;
};

// Each entry's (lane, element) lands on its (row, col); `name` is the register prefix of the PTX figure.
template <size_t kCount>
void expect_entries(FragmentCoord (*coord)(int, int), const Entry (&entries)[kCount], const char* name) {
  for (const Entry& e : entries) {
    const FragmentCoord at = coord(e.lane, e.element);
    EXPECT_EQ(at.row, e.row) << "lane " << e.lane << " " << name << e.element;
    EXPECT_EQ(at.col, e.col) << "lane " << e.lane << " " << name << e.element;
  }
}

// ---- mma.sync m16n8k16 --------------------------------------------------------------------------------------

// PTX ISA figure "MMA .m16n8k16 fragment layout for matrix A with .f16/.bf16 type": T0 holds {a0, a1} at
// row 0, columns 0-1; {a2, a3} at row 8; {a4, a5} at row 0, columns 8-9; {a6, a7} at row 8, columns 8-9.
TEST(MmaM16n8k16, AMatchesThePtxFigure) {
  const Entry entries[] = {
      {0, 0, 0, 0},  {0, 1, 0, 1},  {0, 2, 8, 0},   {0, 3, 8, 1},   {0, 4, 0, 8},  {0, 5, 0, 9},
      {0, 6, 8, 8},  {0, 7, 8, 9},  {1, 0, 0, 2},   {3, 1, 0, 7},   {4, 0, 1, 0},  {5, 0, 1, 2},
      {30, 5, 7, 13}, {31, 0, 7, 6}, {31, 3, 15, 7}, {31, 7, 15, 15},
  };
  expect_entries(mma_m16n8k16_a, entries, "a");
}

// "... for matrix B": T0 holds {b0, b1} at rows (k) 0-1 of column (n) 0 and {b2, b3} at rows 8-9; T1 rows
// 2-3; T4 column 1.
TEST(MmaM16n8k16, BMatchesThePtxFigure) {
  const Entry entries[] = {
      {0, 0, 0, 0}, {0, 1, 1, 0}, {0, 2, 8, 0},  {0, 3, 9, 0},  {1, 0, 2, 0},
      {4, 0, 0, 1}, {6, 2, 12, 1}, {27, 1, 7, 6}, {31, 3, 15, 7},
  };
  expect_entries(mma_m16n8k16_b, entries, "b");
}

// "... for accumulator matrix C/D": T0 holds {c0, c1} at row 0, columns 0-1 and {c2, c3} at row 8.
TEST(MmaM16n8k16, CMatchesThePtxFigure) {
  const Entry entries[] = {
      {0, 0, 0, 0}, {0, 1, 0, 1}, {0, 2, 8, 0}, {0, 3, 8, 1}, {5, 0, 1, 2}, {18, 2, 12, 4}, {31, 3, 15, 7},
  };
  expect_entries(mma_m16n8k16_c, entries, "c");
}

// Each (lane, element) lands on its own cell, and together they cover the tile.
void expect_one_to_one(FragmentCoord (*coord)(int, int), int elements, int rows, int cols, const char* what) {
  std::set<std::pair<int, int>> cells;
  for (int lane = 0; lane < 32; ++lane)
    for (int element = 0; element < elements; ++element) {
      const FragmentCoord at = coord(lane, element);
      ASSERT_GE(at.row, 0) << what;
      ASSERT_LT(at.row, rows) << what;
      ASSERT_GE(at.col, 0) << what;
      ASSERT_LT(at.col, cols) << what;
      EXPECT_TRUE(cells.insert({at.row, at.col}).second) << what << ": lane " << lane << " element " << element;
    }
  EXPECT_EQ(cells.size(), static_cast<size_t>(rows * cols)) << what;
}

TEST(MmaM16n8k16, EachFragmentCoversItsTileOnce) {
  expect_one_to_one(mma_m16n8k16_a, 8, 16, 16, "A");
  expect_one_to_one(mma_m16n8k16_b, 4, 16, 8, "B");
  expect_one_to_one(mma_m16n8k16_c, 4, 16, 8, "C");
}

// CuTe writes the same mappings as (thread, value) -> column-major index layouts in
// cute/atom/mma_traits_sm80.hpp, MMA_Traits<SM80_16x8x16_F16F16F16F16_TN> (the bf16 traits inherit them):
// ALayout ((4,8),(2,2,2)):((32,1),(16,8,128)) for A (16 × 16, m + 16k), BLayout ((4,8),(2,2)):((16,1),(8,64))
// for B (8 × 16, n + 8k) and CLayout SM80_16x8_Row = ((4,8),(2,2)):((32,1),(16,8)) for C (16 × 8, m + 16n).
// Thread = (t, g), value index = v0 + 2 v1 (+ 4 v2).
TEST(MmaM16n8k16, AgreesWithCuteLayouts) {
  for (int lane = 0; lane < 32; ++lane) {
    const int t = lane % 4, g = lane / 4;
    for (int v = 0; v < 8; ++v) {
      const int index = 32 * t + g + 16 * (v % 2) + 8 * ((v / 2) % 2) + 128 * (v / 4);  // m + 16 k
      const FragmentCoord a = mma_m16n8k16_a(lane, v);
      EXPECT_EQ(a.row, index % 16) << "lane " << lane << " a" << v;
      EXPECT_EQ(a.col, index / 16) << "lane " << lane << " a" << v;
    }
    for (int v = 0; v < 4; ++v) {
      const int b_index = 16 * t + g + 8 * (v % 2) + 64 * (v / 2);  // n + 8 k
      const FragmentCoord b = mma_m16n8k16_b(lane, v);
      EXPECT_EQ(b.col, b_index % 8) << "lane " << lane << " b" << v;
      EXPECT_EQ(b.row, b_index / 8) << "lane " << lane << " b" << v;
      const int c_index = 32 * t + g + 16 * (v % 2) + 8 * (v / 2);  // m + 16 n
      const FragmentCoord c = mma_m16n8k16_c(lane, v);
      EXPECT_EQ(c.row, c_index % 16) << "lane " << lane << " c" << v;
      EXPECT_EQ(c.col, c_index / 16) << "lane " << lane << " c" << v;
    }
  }
}

// ---- ldmatrix -----------------------------------------------------------------------------------------------

// PTX ISA, ldmatrix: "each thread receives ... row = groupID, columns 2·threadID_in_group and +1"; the rows of
// matrix j are addressed by threads 8j..8j+7.
TEST(Ldmatrix, MatchesThePtxFigure) {
  EXPECT_EQ(ldmatrix_x4_element(0, 0).row, 0);
  EXPECT_EQ(ldmatrix_x4_element(0, 1).col, 1);
  EXPECT_EQ(ldmatrix_x4_element(1, 0).col, 2);
  EXPECT_EQ(ldmatrix_x4_element(4, 0).row, 1);
  EXPECT_EQ(ldmatrix_x4_element(31, 0).row, 7);
  EXPECT_EQ(ldmatrix_x4_element(31, 1).col, 7);
  for (int lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(ldmatrix_x4_matrix_of_lane(lane), lane / 8);
    EXPECT_EQ(ldmatrix_x4_row_of_lane(lane), lane % 8);
  }
}

// Kernel 02's flow: lane l's register j half h comes from row ldmatrix_x4_element(l, h).row of matrix j, i.e.
// from the address lane 8j + that row gave. For A that must be exactly the element mma.sync expects in a[j].
TEST(Ldmatrix, KernelTwosAAddressesFillTheMmaAFragment) {
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 4; ++reg)
      for (int half = 0; half < 2; ++half) {
        const FragmentCoord in_matrix = ldmatrix_x4_element(lane, half);
        const TileChunk source = ldmatrix_x4_a_source(8 * reg + in_matrix.row);
        const FragmentCoord wanted = mma_m16n8k16_a(lane, 2 * reg + half);
        EXPECT_EQ(source.row, wanted.row) << "lane " << lane << " a[" << reg << "] half " << half;
        EXPECT_EQ(8 * source.chunk + in_matrix.col, wanted.col) << "lane " << lane << " a[" << reg << "] half " << half;
      }
}

// For B, registers 0-1 must be b[0..1] of the first n8 tile and registers 2-3 those of the second (n + 8).
TEST(Ldmatrix, KernelTwosBAddressesFillTwoMmaBFragments) {
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 4; ++reg)
      for (int half = 0; half < 2; ++half) {
        const FragmentCoord in_matrix = ldmatrix_x4_element(lane, half);
        const TileChunk source = ldmatrix_x4_b_source(8 * reg + in_matrix.row);  // row n, chunk of k
        const FragmentCoord wanted = mma_m16n8k16_b(lane, 2 * (reg % 2) + half);  // (k, n) in its n8 tile
        EXPECT_EQ(source.row, wanted.col + 8 * (reg / 2)) << "lane " << lane << " register " << reg;
        EXPECT_EQ(8 * source.chunk + in_matrix.col, wanted.row) << "lane " << lane << " register " << reg;
      }
}

// Kernel 02's lane -> byte offset table (kernels/02_mma_sync.md), a few entries by hand.
TEST(Ldmatrix, KernelTwosOffsetsMatchTheNotes) {
  const auto a_offset = [](int lane, int step) {
    const TileChunk source = ldmatrix_x4_a_source(lane);
    return swizzled_k_step(swizzled_chunk_offset(source.row, source.chunk), step);
  };
  EXPECT_EQ(a_offset(0, 0), 0u);
  EXPECT_EQ(a_offset(1, 0), 144u);
  EXPECT_EQ(a_offset(1, 1), 176u);
  EXPECT_EQ(a_offset(7, 0), 1008u);
  EXPECT_EQ(a_offset(16, 0), 16u);
  EXPECT_EQ(a_offset(17, 0), 128u);
  EXPECT_EQ(a_offset(24, 1), 1072u);
  EXPECT_EQ(a_offset(31, 0), 2016u);
  EXPECT_EQ(a_offset(31, 1), 1984u);
  const TileChunk b9 = ldmatrix_x4_b_source(9);
  EXPECT_EQ(swizzled_chunk_offset(b9.row, b9.chunk), 128u);  // n 1, chunk 1, stored at position 0
}

// CUTLASS's warp iterator for the crosswise layout with kFactor 1 (64-element K rows), operand A
// (include/cutlass/gemm/warp/mma_tensor_op_tile_iterator.h, "Matrix multiply 16816 A" with kFactor == 1):
//   partition_contiguous_idx = (lane & 7) >> 2
//   access_contiguous_idx    = (lane >> 4) ^ (lane & 3)
//   access_strided_idx       = lane & 15
//   byte_offset = (4 · partition_contiguous_idx + access_contiguous_idx + access_strided_idx · 8) · 16
// and its k-group step (operator++) XORs the offset with 2, 6, 2, 6 chunks of 16 bytes in turn. Kernel 02
// computes the same offsets, and its absolute XOR 32·s is that sequence summed.
TEST(Ldmatrix, KernelTwoAddressesEqualCutlassCrosswiseIterator) {
  for (int lane = 0; lane < 32; ++lane) {
    const int partition = (lane & 7) >> 2;
    const int access_contiguous = (lane >> 4) ^ (lane & 3);
    const int access_strided = lane & 15;
    uint32_t cutlass = static_cast<uint32_t>((4 * partition + access_contiguous + access_strided * 8) * 16);
    const TileChunk source = ldmatrix_x4_a_source(lane);
    const uint32_t ours = swizzled_chunk_offset(source.row, source.chunk);
    EXPECT_EQ(ours, cutlass) << "lane " << lane;
    const uint32_t k_group_xor[4] = {2, 6, 2, 6};  // in 16-byte chunks, applied after groups 0, 1, 2, 3
    for (uint32_t step = 1; step < 4; ++step) {
      cutlass ^= k_group_xor[step - 1] * 16;
      EXPECT_EQ(swizzled_k_step(ours, step), cutlass) << "lane " << lane << " step " << step;
    }
  }
}

// ---- wgmma accumulator --------------------------------------------------------------------------------------

struct WgmmaEntry {
  int warp, lane, reg, row, col;
};

// PTX ISA figure "WGMMA .m64nNk16 register fragment layout for accumulator matrix D": warp 0's T0 holds d0, d1
// at row 0, columns 0-1, d2, d3 at row 8, d4, d5 at row 0, columns 8-9; warp 1 starts at row 16. Lanes 4-7 of
// warp 1 hold rows 17 and 25.
TEST(WgmmaAccumulator, MatchesThePtxFigure) {
  const WgmmaEntry entries[] = {
      {0, 0, 0, 0, 0},   {0, 0, 1, 0, 1},    {0, 0, 2, 8, 0},    {0, 0, 3, 8, 1},     {0, 0, 4, 0, 8},
      {0, 1, 0, 0, 2},   {0, 4, 0, 1, 0},    {1, 0, 0, 16, 0},   {1, 4, 0, 17, 0},    {1, 7, 2, 25, 6},
      {2, 9, 5, 34, 11}, {3, 31, 63, 63, 127}, {3, 31, 127, 63, 255}, {3, 28, 64, 55, 128},
  };
  for (const WgmmaEntry& e : entries) {
    const FragmentCoord at = wgmma_m64_accumulator(e.warp, e.lane, e.reg);
    EXPECT_EQ(at.row, e.row) << "warp " << e.warp << " lane " << e.lane << " d" << e.reg;
    EXPECT_EQ(at.col, e.col) << "warp " << e.warp << " lane " << e.lane << " d" << e.reg;
  }
}

// CuTe's CLayout_64xN (cute/atom/mma_traits_sm90_gmma.hpp): ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512)), an
// index m + 64 n, with thread = (t, g, warp) and value = (v0, v1, chunk). Every thread and register, N = 256.
TEST(WgmmaAccumulator, AgreesWithCuteCLayoutAndCoversTheTile) {
  for (int n : {128, 256}) {
    std::set<std::pair<int, int>> cells;
    for (int thread = 0; thread < 128; ++thread)
      for (int reg = 0; reg < n / 2; ++reg) {
        const int t = thread % 4, g = (thread / 4) % 8, warp = thread / 32;
        const int index = 128 * t + g + 16 * warp + 64 * (reg % 2) + 8 * ((reg / 2) % 2) + 512 * (reg / 4);
        const FragmentCoord at = wgmma_m64_accumulator(warp, thread % 32, reg);
        EXPECT_EQ(at.row, index % 64) << "thread " << thread << " d" << reg;
        EXPECT_EQ(at.col, index / 64) << "thread " << thread << " d" << reg;
        EXPECT_TRUE(cells.insert({at.row, at.col}).second) << "thread " << thread << " d" << reg;
      }
    EXPECT_EQ(cells.size(), static_cast<size_t>(64 * n));
  }
}

// Inside each warp's 16 rows, each 8-column chunk is the m16n8 C fragment: register 4j + e is element e.
TEST(WgmmaAccumulator, IsTheMmaCFragmentPerWarpAndChunk) {
  for (int warp = 0; warp < 4; ++warp)
    for (int lane = 0; lane < 32; ++lane)
      for (int reg = 0; reg < 128; ++reg) {
        const FragmentCoord wg = wgmma_m64_accumulator(warp, lane, reg);
        const FragmentCoord mma = mma_m16n8k16_c(lane, reg % 4);
        EXPECT_EQ(wg.row, 16 * warp + mma.row);
        EXPECT_EQ(wg.col, 8 * (reg / 4) + mma.col);
      }
}

TEST(KStep, IsSixteenBf16) { EXPECT_EQ(kKStepBytes, 16u * 2u); }

}  // namespace
}  // namespace gemm
