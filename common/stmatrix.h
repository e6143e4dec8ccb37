// stmatrix: the store counterpart of ldmatrix (PTX ISA: "stmatrix"). Introduced by kernel 08; kernel 14 adds the
// x2 and x1 forms and the transposed x2, kernel 15 the transposed x4.
//
// stmatrix.x4 writes four 8 × 8 matrices of 16-bit elements. Every lane holds one 32-bit register per matrix
// with two neighbouring elements: register j of lane l is row l / 4, columns 2(l % 4) and 2(l % 4) + 1 of
// matrix j, exactly the layout of an mma/wgmma accumulator fragment after packing two fp32 into a bf16x2.
// Lanes 8j .. 8j + 7 give the shared-memory addresses of the 8 rows (16 bytes each) of matrix j. SASS: STSM.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

namespace gemm {

__device__ __forceinline__ void stmatrix_x4(uint32_t smem_row_address, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_row_address), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// The same four matrices, each stored transposed (.trans): row r of matrix j in shared memory holds column r of the
// fragment, so lane l's two elements land in rows 2(l % 4) and 2(l % 4) + 1, at position l / 4. Kernel 15 stages a
// tile of Cᵀ with it, to store C. SASS: STSM.16.MT88.4.
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t smem_row_address, uint32_t r0, uint32_t r1, uint32_t r2,
                                                  uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_row_address),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// Two 8 × 8 matrices: lanes 0-15 give the row addresses (8j .. 8j + 7 for matrix j), every lane its two
// registers. Kernel 14's ping-pong stores a box's last 16 columns with it. SASS: STSM.16.M88.2.
__device__ __forceinline__ void stmatrix_x2(uint32_t smem_row_address, uint32_t r0, uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(smem_row_address), "r"(r0), "r"(r1)
               : "memory");
}

// One 8 × 8 matrix: lanes 0-7 give the row addresses, every lane its register. Kernel 14's ping-pong stores the
// last 8 columns of a 56-column box with it (its 128 × 184 tile). SASS: STSM.16.M88 (no .2 or .4).
__device__ __forceinline__ void stmatrix_x1(uint32_t smem_row_address, uint32_t r0) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" ::"r"(smem_row_address), "r"(r0) : "memory");
}

// The same two matrices stored transposed (.trans, as stmatrix_x4_trans): kernel 14 stages the odd last 8 columns of a
// tile of Cᵀ with it (its 128 × 184 tile). SASS: STSM.16.MT88.2.
__device__ __forceinline__ void stmatrix_x2_trans(uint32_t smem_row_address, uint32_t r0, uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(smem_row_address), "r"(r0),
               "r"(r1)
               : "memory");
}

// Two fp32 as one bf16x2 register: `low` in bits 0-15 (the lower column), `high` in bits 16-31.
__device__ __forceinline__ uint32_t pack_bf16x2(float low, float high) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
  return *reinterpret_cast<const uint32_t*>(&pair);
}

}  // namespace gemm
