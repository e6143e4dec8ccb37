// CuTe (the CUTLASS headers from the nvidia-cutlass wheel) in host-only test code: the independent encoder the
// tests in this directory hold our descriptors, swizzle and TMEM model against.
//
// CuTe turns a shared-memory pointer into the 32-bit address a descriptor holds with cast_smem_ptr_to_uint,
// which uses the device intrinsic __cvta_generic_to_shared; in host code it prints an error and returns 0.
// These tests make "shared-memory pointers" out of the addresses they stand for, so a host stand-in that
// returns the pointer's value lets UMMA::make_umma_desc and GMMA::make_gmma_desc encode real start addresses
// and the descriptors can be compared whole. It must come before the first CuTe include: include CuTe in
// this directory only through this header.
#pragma once

#include <cstddef>
#include <cstdint>

inline size_t __cvta_generic_to_shared(const void* pointer) { return reinterpret_cast<size_t>(pointer); }
#define CUTE_CVTA_GENERIC_TO_SHARED_ACTIVATED 1

#include <cute/tensor.hpp>
#include <cute/arch/mma_sm100_desc.hpp>
#include <cute/arch/mma_sm90_desc.hpp>
#include <cute/atom/copy_traits_sm100.hpp>
#include <cute/atom/mma_traits_sm100.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/swizzle.hpp>

namespace gemm::cute_test {

// A CuTe shared-memory tensor of bf16 at byte address `address` with layout `layout`.
template <class Layout>
auto smem_tensor(uint32_t address, Layout const& layout) {
  return cute::make_tensor(cute::make_smem_ptr(reinterpret_cast<cute::bfloat16_t*>(uintptr_t{address})), layout);
}

// The byte address a CuTe shared-memory tensor element (or pointer) stands for.
template <class Pointer>
uint32_t address_of(Pointer pointer) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(cute::raw_pointer_cast(pointer)));
}

}  // namespace gemm::cute_test
