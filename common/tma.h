// TMA (the Tensor Memory Accelerator): bulk tensor copies between global and shared memory, described by
// a tensor map made on the host (common/tensor_map.h). Introduced by kernel 03 (loads); kernel 07 adds the
// multicast load, kernel 08 the store, kernel 19 the CTA-pair (.cta_group::2) loads.
//
// One thread issues a copy of a whole box (e.g. 128 rows × 64 bf16); the hardware computes addresses, applies
// the swizzle, zero-fills what lies outside the tensor, and signals completion on an mbarrier by
// decrementing its transaction count by the box's size in bytes (out-of-bounds parts included).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "common/smem_address.h"

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

// The same copy delivered to every CTA of the cluster whose bit is set in `cta_mask`: the box lands at the
// same shared-memory offset in each of them, and each one's barrier at `barrier`'s offset receives the box's
// bytes. One L2 read feeds several CTAs. Introduced by kernel 07.
__device__ __forceinline__ void tma_load_2d_multicast(void* destination, const CUtensorMap* map, uint64_t* barrier,
                                                      int x, int y, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(smem_address(destination)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_address(barrier)), "r"(x), "r"(y), "h"(cta_mask)
      : "memory");
}

// ---- stores (introduced by kernel 08) --------------------------------------------------------------------
// Copy a box from shared memory at `source` to the 2-D tensor at (column x, row y); elements outside the
// tensor are not written. The copy is asynchronous and belongs to this thread's current bulk group: the
// same thread commits the group and waits for it. The shared memory must have been written by this or
// other threads with ordinary (generic-proxy) stores followed by fence_proxy_async_shared() and a barrier.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* source, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_address(source)), "r"(x), "r"(y)
               : "memory");
}

// Close this thread's current bulk group of TMA stores.
__device__ __forceinline__ void tma_store_commit_group() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }

// Wait until at most kPending of this thread's bulk groups still read their shared-memory source: after it
// the source buffers of the others may be overwritten (their writes to global memory may still be in flight).
template <int kPending>
__device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}

// Wait until at most kPending of this thread's bulk groups are unfinished, writes to global memory included.
template <int kPending>
__device__ __forceinline__ void tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// ---- CTA-pair loads (introduced by kernel 19) -----------------------------------------------------------------
// With .cta_group::2 the barrier may live in the peer CTA of the pair instead of the CTA the data lands in
// (PTX ISA, cp.async.bulk.tensor): both CTAs of a pair load their halves of a stage and both count on the
// leader's (even CTA's) barrier, the only one its single MMA-issuing thread waits on. `barrier` is a
// shared::cluster address (common/cluster.h map_to_cta of the leader's barrier).
__device__ __forceinline__ void tma_load_2d_cta_pair(void* destination, const CUtensorMap* map, uint32_t barrier,
                                                     int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(smem_address(destination)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(barrier), "r"(x), "r"(y)
      : "memory");
}

// The multicast form: the box lands at `destination`'s offset in every CTA of `cta_mask`, and for each of them
// the bytes are counted on the barrier at `barrier`'s offset in that CTA or its peer, whichever has the parity
// of the CTA `barrier` points into (PTX ISA: "the mbarrier signal is multicast either to all the odd numbered
// CTAs or the even numbered CTAs within the corresponding CTA-Pair"). Pointing `barrier` at an even CTA sends
// every destination's bytes to its own pair's leader.
__device__ __forceinline__ void tma_load_2d_multicast_cta_pair(void* destination, const CUtensorMap* map,
                                                               uint32_t barrier, int x, int y, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      ".cta_group::2 [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(smem_address(destination)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(barrier), "r"(x), "r"(y), "h"(cta_mask)
      : "memory");
}

}  // namespace gemm
