// The 128-byte XOR swizzle (common/swizzle.h): a permutation of 16-byte chunks inside each 1024-byte
// block that puts the 8 rows ldmatrix reads in one column into 8 distinct chunk positions.
#include <cuda_runtime.h>  // __host__ / __device__ for common/swizzle.h

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "common/swizzle.h"

namespace gemm {
namespace {

constexpr uint32_t kRows = 64;         // rows checked: eight 1024-byte atoms
constexpr uint32_t kChunksPerRow = 8;  // 128-byte rows of 16-byte chunks
constexpr uint32_t kChunkBytes = 16;
constexpr uint32_t kBanks = 32;
constexpr uint32_t kBankBytes = 4;

// Physical 16-byte chunk position (0-7) of logical chunk `chunk` of row `row`.
uint32_t physical_chunk(uint32_t row, uint32_t chunk) {
  return (swizzled_chunk_offset(row, chunk) % kSwizzleRowBytes) / kChunkBytes;
}

TEST(Swizzle, AtomIsEightRowsOf128Bytes) {
  EXPECT_EQ(kSwizzleRowBytes, 128u);
  EXPECT_EQ(kSwizzleAtomBytes, 1024u);
}

TEST(Swizzle, IsUsableInConstantExpressions) {
  static_assert(swizzle_128b(0) == 0);
  static_assert(swizzled_chunk_offset(1, 0) == 144);
  SUCCEED();
}

TEST(Swizzle, IsABijectionOnEightKilobytes) {
  constexpr uint32_t kBytes = 8192;
  std::vector<bool> hit(kBytes, false);
  for (uint32_t offset = 0; offset < kBytes; ++offset) {
    const uint32_t swizzled = swizzle_128b(offset);
    ASSERT_LT(swizzled, kBytes) << "offset " << offset;
    ASSERT_FALSE(hit[swizzled]) << "offset " << offset << " maps onto " << swizzled << " a second time";
    hit[swizzled] = true;
  }
}

TEST(Swizzle, MapsEach1024ByteBlockOntoItself) {
  for (uint32_t block = 0; block < 8; ++block) {
    const uint32_t begin = block * kSwizzleAtomBytes;
    std::set<uint32_t> images;
    for (uint32_t offset = begin; offset < begin + kSwizzleAtomBytes; ++offset) {
      const uint32_t swizzled = swizzle_128b(offset);
      EXPECT_GE(swizzled, begin) << "offset " << offset;
      EXPECT_LT(swizzled, begin + kSwizzleAtomBytes) << "offset " << offset;
      images.insert(swizzled);
    }
    EXPECT_EQ(images.size(), kSwizzleAtomBytes) << "block " << block << " is not a permutation";
  }
}

TEST(Swizzle, NeverChangesByteInChunkBitsOrBitsAbove9) {
  constexpr uint32_t kKeptBits = ~0x3f0u;  // bits 0-3 and bits 10-31
  std::vector<uint32_t> offsets;
  for (uint32_t offset = 0; offset < 8192; ++offset) offsets.push_back(offset);
  for (uint32_t high : {0x0001'0000u, 0x00ab'c000u, 0x7fff'fc00u, 0xffff'fc00u})
    for (uint32_t low = 0; low < 1024; low += 37) offsets.push_back(high | low);
  for (uint32_t offset : offsets)
    EXPECT_EQ(swizzle_128b(offset) & kKeptBits, offset & kKeptBits) << "offset " << offset;
}

TEST(Swizzle, NeverChangesRowBits7To9) {
  for (uint32_t offset = 0; offset < 8192; ++offset)
    EXPECT_EQ(swizzle_128b(offset) & 0x380u, offset & 0x380u) << "offset " << offset;
}

TEST(Swizzle, ChunkOffsetXorsChunkWithRowModulo8) {
  for (uint32_t row = 0; row < kRows; ++row)
    for (uint32_t chunk = 0; chunk < kChunksPerRow; ++chunk)
      EXPECT_EQ(swizzled_chunk_offset(row, chunk), row * 128 + ((chunk ^ (row % 8)) * 16))
          << "row " << row << " chunk " << chunk;
}

// Known points of the pattern, written out by hand rather than recomputed with the formula.
TEST(Swizzle, ChunkOffsetMatchesKnownValues) {
  struct Case {
    uint32_t row, chunk, offset;
  };
  const Case cases[] = {
      {0, 0, 0},                  // row 0 is not permuted
      {0, 3, 48},                 //
      {1, 0, 144},                // row 1 starts at 128; chunk 0 lands in position 1 (16 bytes in)
      {1, 1, 128},                // ... and chunk 1 in position 0
      {2, 0, 288},                // 2*128 + 2*16
      {3, 5, 480},                // 3*128 + 6*16
      {5, 5, 640},                // chunk == row % 8 lands in position 0
      {6, 1, 880},                // 6*128 + 7*16
      {7, 7, 896},                // 7*128
      {7, 0, 1008},               // 7*128 + 7*16: the last chunk of the atom
      {8, 3, 1072},               // the pattern restarts at row 8: 1024 + 48
      {9, 2, 1200},               // 9*128 + 3*16
      {63, 4, 8112},              // 63*128 + 3*16
  };
  for (const Case& c : cases)
    EXPECT_EQ(swizzled_chunk_offset(c.row, c.chunk), c.offset) << "row " << c.row << " chunk " << c.chunk;
}

// ldmatrix reads logical chunk c from 8 consecutive rows (starting at a multiple of 8): the 8 reads must
// land in 8 distinct physical chunk positions.
TEST(Swizzle, EightRowsOfOneColumnUseDistinctChunkPositions) {
  for (uint32_t chunk = 0; chunk < kChunksPerRow; ++chunk) {
    for (uint32_t first_row = 0; first_row < kRows; first_row += 8) {
      std::set<uint32_t> positions;
      for (uint32_t row = first_row; row < first_row + 8; ++row) positions.insert(physical_chunk(row, chunk));
      EXPECT_EQ(positions.size(), 8u) << "chunk " << chunk << " rows " << first_row << "-" << first_row + 7;
    }
  }
}

// The same property in banks: the 8 × 16-byte reads touch each of the 32 four-byte banks exactly once.
TEST(Swizzle, EightRowsOfOneColumnCoverAll32Banks) {
  for (uint32_t chunk = 0; chunk < kChunksPerRow; ++chunk) {
    for (uint32_t first_row = 0; first_row < kRows; first_row += 8) {
      std::vector<int> hits(kBanks, 0);
      for (uint32_t row = first_row; row < first_row + 8; ++row)
        for (uint32_t byte = 0; byte < kChunkBytes; byte += kBankBytes)
          ++hits[((swizzled_chunk_offset(row, chunk) + byte) / kBankBytes) % kBanks];
      for (uint32_t bank = 0; bank < kBanks; ++bank)
        EXPECT_EQ(hits[bank], 1) << "bank " << bank << ", chunk " << chunk << ", rows from " << first_row;
    }
  }
}

// Kernel 02 steps its ldmatrix addresses along K by XOR (swizzled_k_step): for a row r and a first chunk c
// in {0, 1}, the swizzled offset of chunk c + 2s (k16 step s) is the offset of chunk c XOR (32 · s), and rows
// 8 apart keep the pattern (2048 bytes per 16-row tile).
TEST(Swizzle128B, KStepIsAnXorOfTheFirstChunksOffset) {
  for (uint32_t row = 0; row < 256; ++row)
    for (uint32_t first_chunk = 0; first_chunk < 2; ++first_chunk)
      for (uint32_t k_step = 0; k_step < 4; ++k_step)
        EXPECT_EQ(swizzled_chunk_offset(row, first_chunk + 2 * k_step),
                  swizzled_k_step(swizzled_chunk_offset(row, first_chunk), k_step))
            << "row " << row << " chunk " << first_chunk << " step " << k_step;
}

TEST(Swizzle128B, RowsSixteenApartAreFixedOffsetsApart) {
  for (uint32_t row = 0; row < 16; ++row)
    for (uint32_t chunk = 0; chunk < 8; ++chunk)
      for (uint32_t tile = 1; tile < 8; ++tile)
        EXPECT_EQ(swizzled_chunk_offset(row + 16 * tile, chunk), swizzled_chunk_offset(row, chunk) + 2048 * tile);
}

}  // namespace
}  // namespace gemm
