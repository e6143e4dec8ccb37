// Ampere-style tensor-core primitives, introduced by kernel 02: cp.async, ldmatrix and mma.sync.
// Each wraps one PTX instruction; the fragment layouts they produce are functions in common/fragment_layout.h
// (`gemm layout mma-m16n8k16` and `gemm layout ldmatrix` draw them).
#pragma once

#include <cstdint>

#include "common/smem_address.h"

namespace gemm {

// cp.async.cg: copy 16 bytes global -> shared without passing through registers (bypassing L1).
// Only the first `src_bytes` (0..16) are read; the rest of the 16 bytes are zero-filled, which is how
// the kernels predicate tile edges. The global address must be 16-byte aligned.
__device__ __forceinline__ void cp_async_16(uint32_t smem_dst, const void* global_src, uint32_t src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_dst), "l"(global_src),
               "r"(src_bytes)
               : "memory");
}

__device__ __forceinline__ void cp_async_commit_group() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Wait until at most `kPending` committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// ldmatrix.x4: four 8x8 b16 matrices. Lanes 8j..8j+7 give the row addresses of matrix j (16 bytes each);
// every lane receives, for each matrix j, reg[j] = {row lane/4, columns 2*(lane%4) and 2*(lane%4)+1}.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&reg)[4], uint32_t smem_row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(reg[0]), "=r"(reg[1]), "=r"(reg[2]), "=r"(reg[3])
               : "r"(smem_row_address));
}

// D = A·B + D for one 16x8x16 tile, bf16 inputs, fp32 accumulators (SASS: HMMA.16816.F32.BF16).
// With g = lane/4, t = lane%4:
//   a[0] = A(g, 2t..2t+1)   a[1] = A(g+8, 2t..)   a[2] = A(g, 2t+8..)   a[3] = A(g+8, 2t+8..)
//   b[0] = B(k 2t..2t+1, n g)   b[1] = B(k 2t+8.., n g)
//   d[0..1] = D(g, 2t..2t+1)    d[2..3] = D(g+8, 2t..2t+1)
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace gemm
