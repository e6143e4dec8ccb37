// The two descriptors a tcgen05.mma reads besides its Tensor Memory address: the instruction descriptor
// (32 bits: shape, types, majorness) and the sm_100 shared-memory matrix descriptor (64 bits: where an
// operand tile lies in shared memory and how it is swizzled). Host and device code: tests/cute holds every
// value the kernels use against CuTe's own encoders (cute/arch/mma_sm100_desc.hpp), and ptxas checks none of
// these bits, so a wrong one would compile cleanly and fail only on a Blackwell GPU. Introduced by kernel 17.
//
// Sources: PTX ISA, "Instruction descriptor" and "Shared memory descriptor" (tcgen05 "Matrix Descriptors"),
// "Matrix Shape" (the table of .kind and shapes); CUTLASS cute/arch/mma_sm100_desc.hpp
// (UMMA::InstrDescriptor, UMMA::SmemDescriptor, UMMA::make_instr_desc).
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include <cstdint>

namespace gemm {

// ---- instruction descriptor, .kind::f16 ------------------------------------------------------------------
//
//   bits  0-1   sparsity selector            0 (dense)
//   bit   2     sparsity                     0 = dense
//   bit   3     saturate                     0 (integer kinds only)
//   bits  4-5   D type                       0 = F16, 1 = F32
//   bit   6     reserved                     0
//   bits  7-9   A type                       0 = F16, 1 = BF16
//   bits 10-12  B type                       0 = F16, 1 = BF16
//   bit  13/14  negate A / negate B          0
//   bit  15/16  transpose A / transpose B    0 = K-major, 1 = M- (N-) major
//   bits 17-22  N >> 3
//   bit  23     reserved                     0
//   bits 24-28  M >> 4                       M of the whole instruction: 256 for a CTA pair's M = 256
//   bit  29     reserved                     0
//   bits 30-31  maximum B-reuse shift        0 (.ws only)
//
// The PTX operand is this 32-bit value. (CuTe keeps it in the upper half of a 64-bit "idescE" whose lower
// half holds a sparse-metadata TMEM address; the instruction takes only the upper half.)
enum class Tcgen05DType : uint32_t { kF16 = 0, kF32 = 1 };
enum class Tcgen05ABType : uint32_t { kF16 = 0, kBF16 = 1 };
enum class Tcgen05Major : uint32_t { kK = 0, kMN = 1 };

__host__ __device__ constexpr uint32_t tcgen05_instr_desc_f16(uint32_t m, uint32_t n, Tcgen05ABType a_type,
                                                              Tcgen05ABType b_type, Tcgen05DType d_type,
                                                              Tcgen05Major a_major, Tcgen05Major b_major,
                                                              bool negate_a = false, bool negate_b = false) {
  return (static_cast<uint32_t>(d_type) << 4) | (static_cast<uint32_t>(a_type) << 7) |
         (static_cast<uint32_t>(b_type) << 10) | (uint32_t{negate_a} << 13) | (uint32_t{negate_b} << 14) |
         (static_cast<uint32_t>(a_major) << 15) | (static_cast<uint32_t>(b_major) << 16) | (((n >> 3) & 0x3fu) << 17) |
         (((m >> 4) & 0x1fu) << 24);
}

// What the ladder uses: bf16 A and B, both K-major (A is M × K and B is N × K, K contiguous), fp32 accumulators.
__host__ __device__ constexpr uint32_t tcgen05_instr_desc_bf16_f32(uint32_t m, uint32_t n) {
  return tcgen05_instr_desc_f16(m, n, Tcgen05ABType::kBF16, Tcgen05ABType::kBF16, Tcgen05DType::kF32,
                                Tcgen05Major::kK, Tcgen05Major::kK);
}

// The dense .kind::f16 shapes of tcgen05.mma without .ws (PTX ISA "Matrix Shape"): K = 16 always;
//   cta_group::1   M = 64 or 128,  N = 8 ... 256 in steps of 8
//   cta_group::2   M = 128 or 256, N = 16 ... 256 in steps of 16   (M and N of the whole CTA pair)
__host__ __device__ constexpr bool tcgen05_f16_shape_is_valid(int cta_group, int m, int n) {
  if (cta_group == 1) return (m == 64 || m == 128) && n % 8 == 0 && n >= 8 && n <= 256;
  if (cta_group == 2) return (m == 128 || m == 256) && n % 16 == 0 && n >= 16 && n <= 256;
  return false;
}
constexpr int kTcgen05F16K = 16;  // K of one .kind::f16 instruction: 32 bytes of bf16 per row

// ---- shared-memory matrix descriptor, sm_100 ---------------------------------------------------------------
//
//   bits  0-13  start address >> 4           (every field below "(x & 0x3ffff) >> 4", as on sm_90)
//   bits 16-29  leading byte offset (LBO) >> 4
//   bits 32-45  stride byte offset (SBO) >> 4
//   bits 46-48  fixed 0b001                  new on sm_100 (CuTe calls it the version); required by the
//                                            PTX ISA, checked by nobody before the hardware reads it
//   bits 49-51  base offset                  0 when the swizzle pattern starts on its repeat boundary
//                                            (1024 bytes for 128B swizzle)
//   bit  52     LBO mode                     0 = LBO is a byte offset relative to the start
//   bits 53-60  fixed 0
//   bits 61-63  swizzle                      0 none, 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B
//
// Not the sm_90 (wgmma) encoding: that has nothing in bits 46-48 and a 2-bit swizzle field in bits 62-63
// (1 = 128B, 2 = 64B, 3 = 32B). The 3-bit field here keeps those modes on the same bits (128B is bit 62 in
// both) and adds bit 61 for the 128B mode with 32-byte atoms, so for kernel 17's tiles the two encodings differ
// only in the version bit: 0x40004040_00010000 here, 0x40000040_00010000 for wgmma. Easy to get wrong and
// invisible until run; hence a type of its own, so that one cannot be passed where the other is meant.
enum class Sm100Swizzle : uint64_t { kNone = 0, k128BBase32B = 1, k128B = 2, k64B = 4, k32B = 6 };

struct Sm100SmemDescriptor {
  uint64_t bits = 0;
};

__host__ __device__ constexpr Sm100SmemDescriptor sm100_smem_descriptor(uint32_t smem_byte_address,
                                                                        uint32_t leading_byte_offset,
                                                                        uint32_t stride_byte_offset,
                                                                        Sm100Swizzle swizzle,
                                                                        uint32_t base_offset = 0) {
  return {(uint64_t{(smem_byte_address & 0x3ffffu) >> 4}) | (uint64_t{(leading_byte_offset & 0x3ffffu) >> 4} << 16) |
          (uint64_t{(stride_byte_offset & 0x3ffffu) >> 4} << 32) | (uint64_t{1} << 46) |
          (uint64_t{base_offset & 7u} << 49) | (static_cast<uint64_t>(swizzle) << 61)};
}

// A K-major bf16 tile with 64-element (128-byte) rows, 128-byte swizzled as TMA writes it, starting on a
// 1024-byte boundary (base offset 0): 8-row groups (one swizzle atom, a "core matrix" group) are 1024 bytes
// apart, which is the SBO; the LBO is not used for swizzled K-major layouts (the PTX ISA: "assumed to be 1")
// and is set to 16 bytes, encoded 1, as CuTe does. One k16 step is +32 bytes on the start address: the
// hardware applies the swizzle to the address it computes, exactly as TMA did when it wrote the tile. The
// tile's row count (M or N) is not in the descriptor; the instruction descriptor carries it.
constexpr uint32_t kSm100SwizzleAtomBytes = 1024;
__host__ __device__ constexpr Sm100SmemDescriptor sm100_smem_descriptor_k_major_128b(uint32_t smem_byte_address) {
  return sm100_smem_descriptor(smem_byte_address, 16, kSm100SwizzleAtomBytes, Sm100Swizzle::k128B);
}

// ---- pinned values (also tested against CuTe in tests/cute) ------------------------------------------------
static_assert(tcgen05_instr_desc_bf16_f32(128, 256) == 0x08400490u);  // kernel 17: M = 128, N = 256
static_assert(tcgen05_instr_desc_bf16_f32(256, 256) == 0x10400490u);  // kernel 19: M = 256 over a CTA pair
static_assert(sm100_smem_descriptor_k_major_128b(0).bits == 0x4000404000010000ull);

}  // namespace gemm
