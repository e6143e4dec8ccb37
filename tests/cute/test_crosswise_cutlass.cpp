// Kernel 02's XOR swizzle against CUTLASS's own layout of mma.sync operands in shared memory:
// cutlass::layout::TensorOpMultiplicand<16, Crosswise> (include/cutlass/layout/tensor_op_multiplicand_sm75.h),
// called here, not restated. For 64-element rows it must put every bf16 where our swizzle does; for 32-element
// rows (kFactor 2) it must pack the rows as kernel 02's lab notebook draws it (docs/log/02_mma_sync.md).
#include "tests/cute/cute_on_host.h"  // first: the CUTLASS headers come after its host stand-in

#include <cutlass/layout/tensor_op_multiplicand_sm75.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "common/swizzle.h"

namespace gemm {
namespace {

// CUTLASS's byte offset of bf16 element (k, s): contiguous index k along a row of `kCrosswise` elements,
// strided index s (the row), in a tile whose row pitch is one row (one stage, one section).
template <int kCrosswise>
uint32_t cutlass_crosswise_offset(int k, int s) {
  const cutlass::layout::TensorOpMultiplicand<16, kCrosswise> layout(kCrosswise);
  return static_cast<uint32_t>(2 * layout(cutlass::layout::PitchLinearCoord(k, s)));
}

// kFactor 1 (64-element rows): CUTLASS's partition-level and in-partition XORs together are our one 3-bit XOR
// of the chunk by the row, 4·((c/4) ^ ((r/4) % 2)) + ((c % 4) ^ (r % 4)) = c ^ (r % 8).
TEST(CutlassCrosswise, TwoLevelXorOf64ElementRowsIsTheSwizzle) {
  for (int row = 0; row < 64; ++row)
    for (int k = 0; k < 64; ++k)
      EXPECT_EQ(cutlass_crosswise_offset<64>(k, row), swizzled_chunk_offset(row, k / 8) + 2 * (k % 8))
          << "row " << row << " k " << k;
}

// kFactor 2 (32-element rows): two logical rows share a 128-byte physical row (row s in half s % 2 of
// physical row s / 2), the partition XOR is always by 0, and the 4 × 4 XOR uses the physical row, as kernel
// 02's notes draw it. The eight rows an ldmatrix phase reads in one chunk column still hit 8 distinct positions.
TEST(CutlassCrosswise, ThirtyTwoElementRowsPackTwoPerPhysicalRow) {
  for (int s = 0; s < 64; ++s)
    for (int k = 0; k < 32; ++k) {
      const uint32_t drawn = 128u * (s / 2) + 16u * (4 * (s % 2) + ((k / 8) ^ ((s / 2) % 4))) + 2u * (k % 8);
      EXPECT_EQ(cutlass_crosswise_offset<32>(k, s), drawn) << "row " << s << " k " << k;
    }
  for (int chunk = 0; chunk < 4; ++chunk)
    for (int first = 0; first < 64; first += 8) {
      std::set<uint32_t> positions;
      for (int s = first; s < first + 8; ++s) positions.insert(cutlass_crosswise_offset<32>(8 * chunk, s) % 128 / 16);
      EXPECT_EQ(positions.size(), 8u) << "chunk " << chunk << " rows " << first << "-" << first + 7;
    }
}

}  // namespace
}  // namespace gemm
