// Loading eight consecutive bf16 of one matrix row with edge predication, introduced by kernel 01.
// Kernel 02 reuses the element-wise form when K is not a multiple of 8 (rows are then not 16-byte
// aligned, so neither a vector load nor cp.async can be used).
#pragma once

#include <cstdint>

#include "common/gemm_problem.h"

namespace gemm {

constexpr int kChunkElements = 8;  // 16 bytes of bf16

inline bool is_aligned_16(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 16 == 0; }

// Columns k .. k+7 of row `row` of a rows × K row-major matrix, as raw bits; zero where row >= rows or a
// column >= K. kVector: K % 8 == 0 and the matrix is 16-byte aligned, so the chunk is one 16-byte load and
// (k being a multiple of 8) lies entirely inside or entirely outside the row.
template <bool kVector>
__device__ __forceinline__ uint4 load_row_chunk(const bf16* matrix, int rows, int K, int row, int k) {
  uint4 bits = make_uint4(0, 0, 0, 0);
  if (row >= rows) return bits;
  const bf16* source = matrix + static_cast<size_t>(row) * K + k;
  if constexpr (kVector) {
    if (k < K) bits = __ldg(reinterpret_cast<const uint4*>(source));
  } else {
    uint32_t halves[kChunkElements];
#pragma unroll
    for (int i = 0; i < kChunkElements; ++i) halves[i] = k + i < K ? __bfloat16_as_ushort(source[i]) : 0u;
    bits.x = halves[0] | (halves[1] << 16);
    bits.y = halves[2] | (halves[3] << 16);
    bits.z = halves[4] | (halves[5] << 16);
    bits.w = halves[6] | (halves[7] << 16);
  }
  return bits;
}

}  // namespace gemm
