// TMA (the Tensor Memory Accelerator): bulk tensor copies between global and shared memory, described by
// a tensor map made on the host (common/tensor_map.h). Introduced by kernel 03.
//
// One thread issues a copy of a whole box (e.g. 64 × 128 bf16); the hardware computes addresses, applies
// the swizzle, zero-fills what lies outside the tensor, and signals completion on an mbarrier by
// decrementing its transaction count by the box's size in bytes (out-of-bounds parts included).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "common/mma_sync.h"  // smem_address

namespace gemm {

// Copy the box whose first element is (column x, row y) of a 2-D tensor into shared memory at `destination`
// (1024-byte aligned for 128-byte swizzle); the box's size in bytes completes on `barrier`, whose phase must
// have announced them with mbarrier_arrive_expect_tx.
__device__ __forceinline__ void tma_load_2d(void* destination, const CUtensorMap* map, uint64_t* barrier, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          smem_address(destination)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_address(barrier)), "r"(x), "r"(y)
      : "memory");
}

}  // namespace gemm
