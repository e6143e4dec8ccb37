// The wgmma shared-memory descriptor encoder (common/wgmma_descriptor.h), pinned to hand-computed values.
#include <gtest/gtest.h>

#include "common/wgmma_descriptor.h"

namespace gemm {
namespace {

// Field layout: start >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45, swizzle in 62-63.
TEST(WgmmaDescriptor, FieldsLandInTheirBits) {
  EXPECT_EQ(wgmma_descriptor(0x10, 0, 0, WgmmaSwizzle::kNone), 0x1ull);
  EXPECT_EQ(wgmma_descriptor(0, 0x10, 0, WgmmaSwizzle::kNone), 0x1ull << 16);
  EXPECT_EQ(wgmma_descriptor(0, 0, 0x10, WgmmaSwizzle::kNone), 0x1ull << 32);
  EXPECT_EQ(wgmma_descriptor(0, 0, 0, WgmmaSwizzle::k128B), 0x4000000000000000ull);
  EXPECT_EQ(wgmma_descriptor(0, 0, 0, WgmmaSwizzle::k64B), 0x8000000000000000ull);
  EXPECT_EQ(wgmma_descriptor(0, 0, 0, WgmmaSwizzle::k32B), 0xc000000000000000ull);
}

TEST(WgmmaDescriptor, KMajor128BSwizzleKnownValues) {
  // LBO 16 B (encoded 1), SBO 1024 B (encoded 64), 128-byte swizzle.
  EXPECT_EQ(wgmma_descriptor_k_major_128b(0x0000), 0x4000004000010000ull);
  EXPECT_EQ(wgmma_descriptor_k_major_128b(0x0400), 0x4000004000010040ull);
  EXPECT_EQ(wgmma_descriptor_k_major_128b(0x8000), 0x4000004000010800ull);
  // The top of the 228 KB shared window still fits the 14-bit start field.
  EXPECT_EQ(wgmma_descriptor_k_major_128b(0x38c00), 0x40000040000138c0ull);
}

TEST(WgmmaDescriptor, KStepAdvancesStartByTwoUnits) {
  // Each k16 step of a 128-byte row is +32 bytes = +2 in the start field; nothing else changes.
  const uint64_t base = wgmma_descriptor_k_major_128b(0x2000);
  for (uint32_t step = 0; step < 4; ++step)
    EXPECT_EQ(wgmma_descriptor_k_major_128b(0x2000 + 32 * step), base + 2 * step);
}

TEST(WgmmaDescriptor, AddressBitsBeyond18AreDropped) {
  // Shared addresses are 18 bits: the 14-bit field holds bits 4-17.
  EXPECT_EQ(wgmma_descriptor(0x40000 + 0x400, 0, 0, WgmmaSwizzle::kNone), 0x40ull);
  EXPECT_EQ(wgmma_descriptor(0x3fff0, 0, 0, WgmmaSwizzle::kNone), 0x3fffull);
  // The same 14 bits for the two offsets: a bit above 17 never spills into the next field.
  EXPECT_EQ(wgmma_descriptor(0, 0x40000 + 0x400, 0, WgmmaSwizzle::kNone), 0x40ull << 16);
  EXPECT_EQ(wgmma_descriptor(0, 0, 0x40000 + 0x400, WgmmaSwizzle::kNone), 0x40ull << 32);
}

}  // namespace
}  // namespace gemm
