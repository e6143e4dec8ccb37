// The tcgen05 instruction descriptor and the sm_100 shared-memory descriptor (common/tcgen05_descriptor.h)
// against CuTe's encoders (cute/arch/mma_sm100_desc.hpp, cute/atom/mma_traits_sm100.hpp): every value kernels
// 17-19 pass to tcgen05.mma, built the way a CUTLASS kernel builds it, must have the same bits. ptxas
// checks none of these bits; a wrong one would show only on a Blackwell GPU.
#include "tests/cute/cute_on_host.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "common/tcgen05_descriptor.h"
#include "common/wgmma_descriptor.h"

namespace gemm {
namespace {

using cute::bfloat16_t;
using cute::Int;
namespace UMMA = cute::UMMA;

// ---- instruction descriptor --------------------------------------------------------------------------------

TEST(Tcgen05InstrDesc, PinnedValues) {
  EXPECT_EQ(tcgen05_instr_desc_bf16_f32(128, 256), 0x08400490u);  // kernel 17
  EXPECT_EQ(tcgen05_instr_desc_bf16_f32(256, 256), 0x10400490u);  // kernel 19: M of the whole CTA pair
}

// Bit by bit, by hand, from the PTX ISA's table.
TEST(Tcgen05InstrDesc, FieldsLandInTheirBits) {
  using T = Tcgen05ABType;
  const auto f16 = [](uint32_t m, uint32_t n) {
    return tcgen05_instr_desc_f16(m, n, T::kF16, T::kF16, Tcgen05DType::kF16, Tcgen05Major::kK, Tcgen05Major::kK);
  };
  EXPECT_EQ(f16(0, 8), 1u << 17);     // N >> 3 in bits 17-22
  EXPECT_EQ(f16(0, 256), 32u << 17);  // N = 256: bit 22
  EXPECT_EQ(f16(16, 0), 1u << 24);    // M >> 4 in bits 24-28 (bit 23 reserved)
  EXPECT_EQ(f16(256, 0), 16u << 24);
  EXPECT_EQ(tcgen05_instr_desc_f16(0, 0, T::kF16, T::kF16, Tcgen05DType::kF32, Tcgen05Major::kK, Tcgen05Major::kK),
            1u << 4);  // D = F32
  EXPECT_EQ(tcgen05_instr_desc_f16(0, 0, T::kBF16, T::kF16, Tcgen05DType::kF16, Tcgen05Major::kK, Tcgen05Major::kK),
            1u << 7);  // A = BF16
  EXPECT_EQ(tcgen05_instr_desc_f16(0, 0, T::kF16, T::kBF16, Tcgen05DType::kF16, Tcgen05Major::kK, Tcgen05Major::kK),
            1u << 10);  // B = BF16
  EXPECT_EQ(tcgen05_instr_desc_f16(0, 0, T::kF16, T::kF16, Tcgen05DType::kF16, Tcgen05Major::kK, Tcgen05Major::kK,
                                   true, false),
            1u << 13);  // negate A
  EXPECT_EQ(tcgen05_instr_desc_f16(0, 0, T::kF16, T::kF16, Tcgen05DType::kF16, Tcgen05Major::kK, Tcgen05Major::kK,
                                   false, true),
            1u << 14);  // negate B
  EXPECT_EQ(tcgen05_instr_desc_f16(0, 0, T::kF16, T::kF16, Tcgen05DType::kF16, Tcgen05Major::kMN, Tcgen05Major::kK),
            1u << 15);  // A transposed (M-major)
  EXPECT_EQ(tcgen05_instr_desc_f16(0, 0, T::kF16, T::kF16, Tcgen05DType::kF16, Tcgen05Major::kK, Tcgen05Major::kMN),
            1u << 16);  // B transposed (N-major)
}

// The two configurations the kernels use, as CuTe builds them: make_instr_desc, and the descriptor the MMA
// atoms carry (what a CUTLASS kernel would issue for SM100_MMA_F16BF16_SS / _2x1SM_SS).
TEST(Tcgen05InstrDesc, KernelConfigurationsMatchCute) {
  constexpr auto K = UMMA::Major::K;
  const uint32_t cute_10 = static_cast<uint32_t>(UMMA::make_instr_desc<bfloat16_t, bfloat16_t, float, 128, 256, K, K>());
  const uint32_t cute_11 = static_cast<uint32_t>(UMMA::make_instr_desc<bfloat16_t, bfloat16_t, float, 256, 256, K, K>());
  EXPECT_EQ(tcgen05_instr_desc_bf16_f32(128, 256), cute_10);
  EXPECT_EQ(tcgen05_instr_desc_bf16_f32(256, 256), cute_11);

  const cute::MMA_Traits<cute::SM100_MMA_F16BF16_SS<bfloat16_t, bfloat16_t, float, 128, 256, K, K>> traits_10{};
  const cute::MMA_Traits<cute::SM100_MMA_F16BF16_2x1SM_SS<bfloat16_t, bfloat16_t, float, 256, 256, K, K>> traits_11{};
  EXPECT_EQ(tcgen05_instr_desc_bf16_f32(128, 256), static_cast<uint32_t>(traits_10.idesc_));
  EXPECT_EQ(tcgen05_instr_desc_bf16_f32(256, 256), static_cast<uint32_t>(traits_11.idesc_));

  // CuTe's runtime form keeps the descriptor in the upper 32 bits; the instruction's operand is that half.
  const uint64_t runtime_11 = UMMA::make_runtime_instr_desc<bfloat16_t, bfloat16_t, float, 256, 256, K, K>();
  EXPECT_EQ(runtime_11 >> 32, cute_11);
}

// Every valid .kind::f16 shape, type, majorness and negation, against CuTe's bitfield layout of the descriptor.
TEST(Tcgen05InstrDesc, EveryF16ConfigurationMatchesCuteBitfields) {
  int checked = 0;
  for (uint32_t m : {64u, 128u, 256u})
    for (uint32_t n = 8; n <= 256; n += 8)
      for (uint32_t types = 0; types < 8; ++types)
        for (uint32_t flags = 0; flags < 16; ++flags) {
          const auto a = static_cast<Tcgen05ABType>(types & 1);
          const auto b = static_cast<Tcgen05ABType>((types >> 1) & 1);
          const auto d = static_cast<Tcgen05DType>((types >> 2) & 1);
          const auto a_major = static_cast<Tcgen05Major>(flags & 1);
          const auto b_major = static_cast<Tcgen05Major>((flags >> 1) & 1);
          const bool negate_a = flags & 4, negate_b = flags & 8;

          UMMA::InstrDescriptor cute_desc{};
          cute_desc.desc_ = 0;
          cute_desc.a_format_ = static_cast<uint8_t>(a == Tcgen05ABType::kBF16 ? UMMA::F16F32Format::BF16
                                                                               : UMMA::F16F32Format::F16);
          cute_desc.b_format_ = static_cast<uint8_t>(b == Tcgen05ABType::kBF16 ? UMMA::F16F32Format::BF16
                                                                               : UMMA::F16F32Format::F16);
          cute_desc.c_format_ = static_cast<uint8_t>(d == Tcgen05DType::kF32 ? UMMA::CFormat::F32 : UMMA::CFormat::F16);
          cute_desc.m_dim_ = m >> 4;
          cute_desc.n_dim_ = n >> 3;
          cute_desc.a_major_ = static_cast<uint8_t>(a_major == Tcgen05Major::kMN ? UMMA::Major::MN : UMMA::Major::K);
          cute_desc.b_major_ = static_cast<uint8_t>(b_major == Tcgen05Major::kMN ? UMMA::Major::MN : UMMA::Major::K);
          cute_desc.a_negate_ = static_cast<uint8_t>(negate_a ? UMMA::ScaleIn::Neg : UMMA::ScaleIn::One);
          cute_desc.b_negate_ = static_cast<uint8_t>(negate_b ? UMMA::ScaleIn::Neg : UMMA::ScaleIn::One);

          ASSERT_EQ(tcgen05_instr_desc_f16(m, n, a, b, d, a_major, b_major, negate_a, negate_b),
                    static_cast<uint32_t>(cute_desc))
              << "m " << m << " n " << n << " types " << types << " flags " << flags;
          ++checked;
        }
  EXPECT_EQ(checked, 3 * 32 * 8 * 16);
}

// PTX ISA "Matrix Shape", .kind::f16 without .ws; CuTe's MMA atoms assert the same ranges.
TEST(Tcgen05Shapes, F16ShapesOfThePtxTable) {
  EXPECT_TRUE(tcgen05_f16_shape_is_valid(1, 128, 256));
  EXPECT_TRUE(tcgen05_f16_shape_is_valid(1, 64, 8));
  EXPECT_TRUE(tcgen05_f16_shape_is_valid(1, 128, 24));
  EXPECT_FALSE(tcgen05_f16_shape_is_valid(1, 256, 256));  // M = 256 needs the CTA pair
  EXPECT_FALSE(tcgen05_f16_shape_is_valid(1, 128, 264));
  EXPECT_FALSE(tcgen05_f16_shape_is_valid(1, 128, 12));
  EXPECT_TRUE(tcgen05_f16_shape_is_valid(2, 256, 256));
  EXPECT_TRUE(tcgen05_f16_shape_is_valid(2, 128, 16));
  EXPECT_FALSE(tcgen05_f16_shape_is_valid(2, 256, 24));   // steps of 16 for the pair
  EXPECT_FALSE(tcgen05_f16_shape_is_valid(2, 256, 272));  // N of the pair at most 256 too
  EXPECT_FALSE(tcgen05_f16_shape_is_valid(2, 64, 128));
  EXPECT_FALSE(tcgen05_f16_shape_is_valid(3, 128, 128));
}

// ---- shared-memory descriptor ------------------------------------------------------------------------------

TEST(Sm100SmemDescriptor, PinnedValues) {
  // LBO 16 B (encoded 1), SBO 1024 B (encoded 64), version 0b001 in bits 46-48, 128B swizzle = 2 in bits 61-63.
  EXPECT_EQ(sm100_smem_descriptor_k_major_128b(0x0000).bits, 0x4000404000010000ull);
  EXPECT_EQ(sm100_smem_descriptor_k_major_128b(0x0400).bits, 0x4000404000010040ull);
  EXPECT_EQ(sm100_smem_descriptor_k_major_128b(0x0420).bits, 0x4000404000010042ull);  // + one k16 step
  EXPECT_EQ(sm100_smem_descriptor_k_major_128b(0x38c00).bits, 0x40004040000138c0ull);
}

TEST(Sm100SmemDescriptor, FieldsLandInTheirBits) {
  EXPECT_EQ(sm100_smem_descriptor(0x10, 0, 0, Sm100Swizzle::kNone).bits, (1ull << 46) | 1ull);
  EXPECT_EQ(sm100_smem_descriptor(0, 0x10, 0, Sm100Swizzle::kNone).bits, (1ull << 46) | (1ull << 16));
  EXPECT_EQ(sm100_smem_descriptor(0, 0, 0x10, Sm100Swizzle::kNone).bits, (1ull << 46) | (1ull << 32));
  EXPECT_EQ(sm100_smem_descriptor(0, 0, 0, Sm100Swizzle::kNone, 5).bits, (1ull << 46) | (5ull << 49));
  EXPECT_EQ(sm100_smem_descriptor(0, 0, 0, Sm100Swizzle::k128BBase32B).bits, (1ull << 46) | (1ull << 61));
  EXPECT_EQ(sm100_smem_descriptor(0, 0, 0, Sm100Swizzle::k128B).bits, (1ull << 46) | (2ull << 61));
  EXPECT_EQ(sm100_smem_descriptor(0, 0, 0, Sm100Swizzle::k64B).bits, (1ull << 46) | (4ull << 61));
  EXPECT_EQ(sm100_smem_descriptor(0, 0, 0, Sm100Swizzle::k32B).bits, (1ull << 46) | (6ull << 61));
  // Shared addresses are 18 bits: the 14-bit fields hold bits 4-17.
  EXPECT_EQ(sm100_smem_descriptor(0x40000 + 0x400, 0, 0, Sm100Swizzle::kNone).bits, (1ull << 46) | 0x40ull);
  EXPECT_EQ(sm100_smem_descriptor(0, 0x40000 + 0x400, 0, Sm100Swizzle::kNone).bits, (1ull << 46) | (0x40ull << 16));
  EXPECT_EQ(sm100_smem_descriptor(0, 0, 0x40000 + 0x400, Sm100Swizzle::kNone).bits, (1ull << 46) | (0x40ull << 32));
}

// The sm_90 wgmma descriptor of the same tile: its 2-bit swizzle field (bits 62-63) puts 128B, 64B and 32B on
// the same bits as sm_100's 3-bit field (bits 61-63), so what tells them apart is the version 0b001 in bits
// 46-48, which an sm_90 descriptor lacks.
TEST(Sm100SmemDescriptor, DiffersFromTheSm90EncodingInTheVersionBits) {
  for (uint32_t address : {0x0u, 0x400u, 0x2420u, 0x38c00u}) {
    const uint64_t sm100 = sm100_smem_descriptor_k_major_128b(address).bits;
    const uint64_t sm90 = wgmma_descriptor_k_major_128b(address);
    EXPECT_EQ(sm100 ^ sm90, 1ull << 46) << "address " << address;
  }
  const struct {
    Sm100Swizzle sm100;
    WgmmaSwizzle sm90;
  } same_bits[] = {{Sm100Swizzle::kNone, WgmmaSwizzle::kNone},
                   {Sm100Swizzle::k128B, WgmmaSwizzle::k128B},
                   {Sm100Swizzle::k64B, WgmmaSwizzle::k64B},
                   {Sm100Swizzle::k32B, WgmmaSwizzle::k32B}};
  for (const auto& pair : same_bits)
    EXPECT_EQ(sm100_smem_descriptor(0x1230, 16, 1024, pair.sm100).bits ^ wgmma_descriptor(0x1230, 16, 1024, pair.sm90),
              1ull << 46);
  // The one sm_100-only mode, 128B swizzle with 32-byte atoms, is bit 61.
  EXPECT_EQ(sm100_smem_descriptor(0, 0, 0, Sm100Swizzle::k128BBase32B).bits >> 61, 1u);
}

// Every field combination against CuTe's bitfield layout (UMMA::SmemDescriptor, version 1, LBO mode 0).
TEST(Sm100SmemDescriptor, FieldsMatchCuteBitfields) {
  const Sm100Swizzle swizzles[] = {Sm100Swizzle::kNone, Sm100Swizzle::k128BBase32B, Sm100Swizzle::k128B,
                                   Sm100Swizzle::k64B, Sm100Swizzle::k32B};
  const UMMA::LayoutType cute_swizzles[] = {UMMA::LayoutType::SWIZZLE_NONE, UMMA::LayoutType::SWIZZLE_128B_BASE32B,
                                            UMMA::LayoutType::SWIZZLE_128B, UMMA::LayoutType::SWIZZLE_64B,
                                            UMMA::LayoutType::SWIZZLE_32B};
  int checked = 0;
  for (uint32_t address = 0; address < 0x40000; address += 0x1230)
    for (uint32_t lbo : {16u, 128u, 1024u, 0x3fff0u})
      for (uint32_t sbo : {16u, 256u, 1024u, 8192u})
        for (uint32_t base_offset = 0; base_offset < 8; base_offset += 3)
          for (int s = 0; s < 5; ++s) {
            UMMA::SmemDescriptor cute_desc;
            cute_desc.desc_ = 0;
            cute_desc.start_address_ = static_cast<uint16_t>(address >> 4);
            cute_desc.leading_byte_offset_ = static_cast<uint16_t>(lbo >> 4);
            cute_desc.stride_byte_offset_ = static_cast<uint16_t>(sbo >> 4);
            cute_desc.version_ = 1;
            cute_desc.base_offset_ = static_cast<uint8_t>(base_offset);
            cute_desc.lbo_mode_ = 0;
            cute_desc.layout_type_ = static_cast<uint8_t>(cute_swizzles[s]);
            ASSERT_EQ(sm100_smem_descriptor(address, lbo, sbo, swizzles[s], base_offset).bits,
                      static_cast<uint64_t>(cute_desc))
                << "address " << address << " lbo " << lbo << " sbo " << sbo << " base " << base_offset;
            ++checked;
          }
  EXPECT_GT(checked, 10000);
}

// The descriptors the kernels issue, against the ones CuTe derives from its own canonical layout of the same
// tile: a 128B-swizzled K-major bf16 tile (UMMA::Layout_K_SW128_Atom) partitioned for the MMA atom the kernel
// uses, one descriptor per k16 step (make_fragment_A/B: what a CUTLASS sm100 collective passes to the MMA).
template <class Fragment>
void expect_k_step_descriptors_match(const Fragment& fragment, uint32_t address, const char* what) {
  const int k_steps = cute::size<2>(fragment);
  ASSERT_EQ(k_steps, 4) << what;  // a 64-wide k block is 4 k16 steps
  for (int k = 0; k < k_steps; ++k)
    EXPECT_EQ(sm100_smem_descriptor_k_major_128b(address + k * 32).bits, static_cast<uint64_t>(fragment(0, 0, k)))
        << what << ", address " << address << ", k step " << k;
}
template <class TiledMma, class Shape>
void expect_a_descriptors_match(const TiledMma& mma, Shape tile_shape, uint32_t address, const char* what) {
  const auto layout = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<bfloat16_t>{},
                                              cute::partition_shape_A(mma, tile_shape));
  expect_k_step_descriptors_match(mma.make_fragment_A(cute_test::smem_tensor(address, layout)), address, what);
}
template <class TiledMma, class Shape>
void expect_b_descriptors_match(const TiledMma& mma, Shape tile_shape, uint32_t address, const char* what) {
  const auto layout = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<bfloat16_t>{},
                                              cute::partition_shape_B(mma, tile_shape));
  expect_k_step_descriptors_match(mma.make_fragment_B(cute_test::smem_tensor(address, layout)), address, what);
}

// 1024-aligned stage addresses across the 227 KB window.
constexpr uint32_t kStageAddresses[] = {0x0, 0x400, 0x4000, 0xc000, 0x10400, 0x20000, 0x37c00};

TEST(Sm100SmemDescriptor, Kernel17OperandsMatchCute) {
  constexpr auto K = UMMA::Major::K;
  const auto mma = cute::make_tiled_mma(cute::SM100_MMA_F16BF16_SS<bfloat16_t, bfloat16_t, float, 128, 256, K, K>{});
  const auto tile = cute::make_shape(Int<128>{}, Int<256>{}, Int<64>{});  // (M, N, K) of kernel 17's CTA tile
  for (uint32_t address : kStageAddresses) {
    expect_a_descriptors_match(mma, cute::select<0, 2>(tile), address, "kernel 17 A (128 x 64)");
    expect_b_descriptors_match(mma, cute::select<1, 2>(tile), address, "kernel 17 B (256 x 64)");
  }
}

TEST(Sm100SmemDescriptor, Kernel19OperandsMatchCute) {
  constexpr auto K = UMMA::Major::K;
  const auto mma =
      cute::make_tiled_mma(cute::SM100_MMA_F16BF16_2x1SM_SS<bfloat16_t, bfloat16_t, float, 256, 256, K, K>{});
  const auto tile = cute::make_shape(Int<256>{}, Int<256>{}, Int<64>{});  // the pair's MMA tile
  // CuTe gives each CTA of the pair 128 rows of A and 128 rows of B: what kernel 19 stores per CTA.
  const auto a_per_cta = cute::partition_shape_A(mma, cute::select<0, 2>(tile));
  const auto b_per_cta = cute::partition_shape_B(mma, cute::select<1, 2>(tile));
  EXPECT_EQ(int(cute::size<0, 0>(a_per_cta)), 128);
  EXPECT_EQ(int(cute::size<0, 0>(b_per_cta)), 128);
  EXPECT_EQ(int(cute::size<0, 1>(a_per_cta)) * int(cute::size<2>(a_per_cta)), 64);
  for (uint32_t address : kStageAddresses) {
    expect_a_descriptors_match(mma, cute::select<0, 2>(tile), address, "kernel 19 A (128 x 64 per CTA)");
    expect_b_descriptors_match(mma, cute::select<1, 2>(tile), address, "kernel 19 B (128 x 64 per CTA)");
  }
}

}  // namespace
}  // namespace gemm
