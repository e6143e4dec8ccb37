// Named barriers: bar.sync with an id and a thread count, so a subset of the CTA's warps (one warpgroup, or
// the consumers without the producer) can meet without stopping the rest. Id 0 is __syncthreads'; a kernel
// numbers its own from 1. The count is a multiple of 32 (whole warps). Introduced by kernel 08.
#pragma once

#include <cstdint>

namespace gemm {

__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Arrive without waiting (bar.arrive): the threads that sync on `id` go on once `threads` have arrived or synced.
// Kernel 14's ping-pong hands a warpgroup's turn to the other with it.
__device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace gemm
