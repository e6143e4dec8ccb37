// The 128-byte XOR swizzle, introduced by kernel 02 and produced by TMA's SWIZZLE_128B from kernel 03 on.
//
// A tile whose rows are 128 bytes long (64 bf16) is stored so that, inside each 1024-byte block of
// 8 rows, the 16-byte chunk c of row r lands in chunk position c ^ (r % 8):
//
//   byte offset bits:  ... 9 8 7 | 6 5 4 | 3 2 1 0
//                          row%8   chunk   byte in chunk
//   swizzled chunk = chunk XOR (row % 8)
//
// Why: shared memory has 32 banks of 4 bytes, so a 128-byte row covers every bank once. ldmatrix (and
// wgmma's operand fetch) reads the same 16-byte column from 8 consecutive rows; unswizzled, those 8
// chunks sit in the same 4 banks and the read is an 8-way conflict. After the XOR they sit in 8 distinct
// chunk positions, i.e. all 32 banks, and the read takes one pass.
//
// Hopper's TMA applies exactly this function to the shared-memory *address* (bits 4-6 ^= bits 7-9), so a
// buffer filled by TMA with SWIZZLE_128B must start on a 1024-byte boundary for the pattern to line up
// with the tile's rows. tests/gpu/tma_swizzle_test.cu checks this function against the hardware.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include <cstdint>

namespace gemm {

constexpr uint32_t kSwizzleRowBytes = 128;    // one row of the swizzle atom: 64 bf16
constexpr uint32_t kSwizzleAtomBytes = 1024;  // 8 rows; the pattern repeats every 1024 bytes

__host__ __device__ constexpr uint32_t swizzle_128b(uint32_t byte_offset) {
  return byte_offset ^ (((byte_offset >> 7) & 7u) << 4);
}

// Byte offset of 16-byte chunk `chunk` (0-7) of row `row` in a swizzled tile of 128-byte rows.
__host__ __device__ constexpr uint32_t swizzled_chunk_offset(uint32_t row, uint32_t chunk) {
  return swizzle_128b(row * kSwizzleRowBytes + chunk * 16u);
}

// Stepping along K by XOR (kernel 02): the k16 step s reads chunks 2s and 2s + 1 of a row, and for c in {0, 1}
// chunk 2s + c lands at position (2s + c) ^ (row % 8) = (c ^ (row % 8)) ^ 2s. So the offset of step s is the
// offset of step 0 (swizzled_chunk_offset(row, c)) XOR 32·s: one instruction per step, whatever the row.
constexpr uint32_t kKStepBytes = 32;  // 16 bf16: the k extent of one mma.sync / wgmma instruction
__host__ __device__ constexpr uint32_t swizzled_k_step(uint32_t step0_offset, uint32_t k_step) {
  return step0_offset ^ (k_step * kKStepBytes);
}

}  // namespace gemm
