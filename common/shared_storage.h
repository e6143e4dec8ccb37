// The kernel's dynamic shared memory as a struct, aligned to 1024 bytes. Introduced by kernel 03.
//
// 128-byte-swizzled TMA tiles must start on a 1024-byte boundary (the swizzle pattern is a function of the
// address), but the runtime only promises 16-byte alignment for dynamic shared memory. So launchers
// allocate shared_storage_bytes<T>() and kernels round the base up.
#pragma once

#include <cstdint>

namespace gemm {

constexpr int kSharedAlignment = 1024;

template <typename T>
constexpr int shared_storage_bytes() {
  return static_cast<int>(sizeof(T)) + kSharedAlignment;
}

template <typename T>
__device__ __forceinline__ T& shared_storage() {
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  const uintptr_t base = reinterpret_cast<uintptr_t>(dynamic_shared);
  const uintptr_t aligned = (base + kSharedAlignment - 1) & ~static_cast<uintptr_t>(kSharedAlignment - 1);
  return *reinterpret_cast<T*>(aligned);
}

}  // namespace gemm
