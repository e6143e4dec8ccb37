// The shared-memory matrix descriptor through which wgmma reads its operands (common/wgmma.h). Host and
// device code, so host tests can pin the encoding. Introduced by kernel 03.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include <cstdint>

namespace gemm {

//   bits  0-13  start address >> 4          bits 32-45  stride byte offset (SBO) >> 4
//   bits 16-29  leading byte offset (LBO) >> 4   bits 49-51  base offset (0: buffers 1024-byte aligned)
//   bits 62-63  swizzle: 0 none, 1 = 128B, 2 = 64B, 3 = 32B
enum class WgmmaSwizzle : uint64_t { kNone = 0, k128B = 1, k64B = 2, k32B = 3 };

__host__ __device__ constexpr uint64_t wgmma_descriptor(uint32_t smem_byte_address, uint32_t leading_byte_offset,
                                                        uint32_t stride_byte_offset, WgmmaSwizzle swizzle) {
  return (uint64_t{(smem_byte_address & 0x3ffffu) >> 4}) | (uint64_t{(leading_byte_offset & 0x3ffffu) >> 4} << 16) |
         (uint64_t{(stride_byte_offset & 0x3ffffu) >> 4} << 32) | (static_cast<uint64_t>(swizzle) << 62);
}

// A K-major bf16 tile with 64-element (128-byte) rows, 128-byte swizzled as TMA writes it: 8-row groups
// are 1024 bytes apart (SBO); for any swizzled K-major layout the LBO is not used ("assumed to be 1": PTX ISA
// 9.1 §9.7.15.5.1.2.1.1) and is set to 16 bytes (encoded 1) by convention. Step along K inside the row by
// adding 32 bytes (16 bf16) to the start address: the hardware applies the swizzle to the final address.
constexpr uint32_t kWgmmaSwizzledGroupStride = 1024;
__host__ __device__ constexpr uint64_t wgmma_descriptor_k_major_128b(uint32_t smem_byte_address) {
  return wgmma_descriptor(smem_byte_address, 16, kWgmmaSwizzledGroupStride, WgmmaSwizzle::k128B);
}

}  // namespace gemm
