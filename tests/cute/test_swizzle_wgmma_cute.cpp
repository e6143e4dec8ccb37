// The Hopper side against CuTe: the 128-byte swizzle (common/swizzle.h) against cute::Swizzle<3,4,3> and the
// 128B-swizzled K-major layout atom, and the sm_90 wgmma descriptor (common/wgmma_descriptor.h) against
// cute::GmmaDescriptor as CuTe builds it for the tiles kernels 03-05 issue.
#include "tests/cute/cute_on_host.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "common/swizzle.h"
#include "common/wgmma_descriptor.h"

namespace gemm {
namespace {

using cute::bfloat16_t;
using cute::Int;
namespace GMMA = cute::GMMA;

// Swizzle<B=3, M=4, S=3>: XOR bits [4, 7) of an offset with bits [7, 10): on byte offsets, 16-byte chunks
// permuted by the row within each 1024-byte atom: our swizzle_128b.
TEST(SwizzleAgainstCute, Swizzle343IsSwizzle128B) {
  const cute::Swizzle<3, 4, 3> swizzle{};
  for (uint32_t offset = 0; offset < (1u << 18); ++offset)
    ASSERT_EQ(swizzle_128b(offset), static_cast<uint32_t>(swizzle(offset))) << "offset " << offset;
}

// The element addresses of CuTe's 128B-swizzled K-major bf16 layout (the atom both GMMA and UMMA use, tiled to
// a 256 × 64 tile at a 1024-byte-aligned address) are where our chunk function puts them.
TEST(SwizzleAgainstCute, KMajorSw128LayoutIsSwizzledChunkOffset) {
  const auto layout = cute::tile_to_shape(GMMA::Layout_K_SW128_Atom<bfloat16_t>{}, cute::make_shape(Int<256>{}, Int<64>{}));
  for (uint32_t base : {0x0u, 0x2400u, 0x10000u}) {
    const auto tile = cute_test::smem_tensor(base, layout);
    for (uint32_t row = 0; row < 256; ++row)
      for (uint32_t column = 0; column < 64; ++column)
        ASSERT_EQ(cute_test::address_of(&tile(row, column)) - base,
                  swizzled_chunk_offset(row, column / 8) + (column % 8) * 2)
            << "base " << base << " row " << row << " column " << column;
  }
}

// wgmma descriptors of one k16 slice of a K-major SW128 tile, as CuTe makes them (make_gmma_desc on the slice,
// as GMMA's make_fragment_A/B do), against ours at start + 32 bytes per k16 step.
template <int kRows>
void expect_gmma_descriptors_match(uint32_t address) {
  const auto layout = cute::tile_to_shape(GMMA::Layout_K_SW128_Atom<bfloat16_t>{}, cute::make_shape(Int<kRows>{}, Int<64>{}));
  const auto tile = cute_test::smem_tensor(address, layout);
  for (int k = 0; k < 4; ++k) {
    const auto slice = cute::local_tile(tile, cute::make_shape(Int<kRows>{}, Int<16>{}), cute::make_coord(0, k));
    const cute::GmmaDescriptor cute_desc = GMMA::make_gmma_desc<GMMA::Major::K>(slice);
    EXPECT_EQ(wgmma_descriptor_k_major_128b(address + 32 * k), static_cast<uint64_t>(cute_desc))
        << kRows << " rows at " << address << ", k step " << k;
  }
}

TEST(WgmmaDescriptorAgainstCute, KernelTilesMatchMakeGmmaDesc) {
  for (uint32_t address : {0x0u, 0x400u, 0x2000u, 0x8000u, 0x18000u, 0x37c00u}) {
    expect_gmma_descriptors_match<64>(address);   // one m64 slice of A (kernels 03-05)
    expect_gmma_descriptors_match<128>(address);  // B of kernels 03-04, A tiles of 128 rows
    expect_gmma_descriptors_match<256>(address);  // B of kernel 05 (n256)
  }
}

// Kernel 05's consumer c reads A rows 64c ... 64c + 63 of a 128-row stage: the slice of CuTe's tile starts
// 64 rows = 8 KB in, and the descriptor is ours at that address.
TEST(WgmmaDescriptorAgainstCute, SecondConsumerSliceOfA) {
  const auto layout = cute::tile_to_shape(GMMA::Layout_K_SW128_Atom<bfloat16_t>{}, cute::make_shape(Int<128>{}, Int<64>{}));
  const uint32_t address = 0x4000;
  const auto tile = cute_test::smem_tensor(address, layout);
  for (int k = 0; k < 4; ++k) {
    const auto slice = cute::local_tile(tile, cute::make_shape(Int<64>{}, Int<16>{}), cute::make_coord(1, k));
    EXPECT_EQ(wgmma_descriptor_k_major_128b(address + 64 * 128 + 32 * k),
              static_cast<uint64_t>(GMMA::make_gmma_desc<GMMA::Major::K>(slice)))
        << "k step " << k;
  }
}

TEST(WgmmaDescriptorAgainstCute, FieldsMatchCuteBitfields) {
  const WgmmaSwizzle swizzles[] = {WgmmaSwizzle::kNone, WgmmaSwizzle::k128B, WgmmaSwizzle::k64B, WgmmaSwizzle::k32B};
  const GMMA::LayoutType cute_swizzles[] = {GMMA::LayoutType::INTERLEAVE, GMMA::LayoutType::B128,
                                            GMMA::LayoutType::B64, GMMA::LayoutType::B32};
  for (uint32_t address = 0; address < 0x40000; address += 0x1230)
    for (uint32_t lbo : {16u, 128u, 1024u})
      for (uint32_t sbo : {16u, 256u, 1024u, 8192u})
        for (int s = 0; s < 4; ++s) {
          cute::GmmaDescriptor cute_desc;
          cute_desc.bitfield.start_address_ = static_cast<uint16_t>(address >> 4);
          cute_desc.bitfield.leading_byte_offset_ = static_cast<uint16_t>(lbo >> 4);
          cute_desc.bitfield.stride_byte_offset_ = static_cast<uint16_t>(sbo >> 4);
          cute_desc.bitfield.base_offset_ = 0;
          cute_desc.bitfield.layout_type_ = static_cast<uint8_t>(cute_swizzles[s]);
          ASSERT_EQ(wgmma_descriptor(address, lbo, sbo, swizzles[s]), static_cast<uint64_t>(cute_desc))
              << "address " << address << " lbo " << lbo << " sbo " << sbo << " swizzle " << s;
        }
}

}  // namespace
}  // namespace gemm
