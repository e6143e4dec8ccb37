// The 32-bit shared-memory address (the .shared::cta window) of a pointer into shared memory: what PTX instructions
// that take a shared-memory operand by register expect (cp.async, ldmatrix, mbarrier, TMA, wgmma and tcgen05
// descriptors, stmatrix). Introduced by kernel 02.
#pragma once

#include <cstdint>

namespace gemm {

__device__ __forceinline__ uint32_t smem_address(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

}  // namespace gemm
