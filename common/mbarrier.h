// mbarrier: the shared-memory barrier that async copies (TMA) complete on. Introduced by kernel 03.
//
// An mbarrier counts two things per phase: arrivals (threads calling arrive) and transaction bytes
// (expect_tx raises the count, each TMA copy lowers it as its bytes land). When both reach zero the
// phase completes, its parity bit flips, and the arrival count resets for the next phase. Waiters name
// the parity of the phase they wait for: a barrier in phase p is "done with parity p" once it moved on.
#pragma once

#include <cstdint>

#include "common/smem_address.h"

namespace gemm {

__device__ __forceinline__ void mbarrier_init(uint64_t* barrier, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(barrier)), "r"(arrivals) : "memory");
}

// fence.proxy.async.shared::cta: orders shared-memory accesses of the generic proxy with the async proxy's (PTX ISA
// 9.1 §9.7.13.4); TMA stores of what stmatrix wrote need it. After mbarrier.init it is convention: the ISA says TMA
// reaches its mbarrier through the generic proxy (§9.7.9.27.1.2); the CUDA Programming Guide's examples fence anyway.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Arrive once and announce that `bytes` more will land on this phase through async copies. A producer announces a
// stage's bytes only after its wait for the stage's release: until then the stage's barrier may still be in the phase
// of the loads before, which has had all its expected arrivals; an arrival made then ended the launch with an error
// when tried (docs/log/15_few_tiles.md, section 56).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t* barrier, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_address(barrier)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbarrier_arrive(uint64_t* barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(barrier)) : "memory");
}

// Arrive on the barrier at the same shared-memory offset in the cluster's CTA of rank `cta_rank` (this CTA's
// own included): how a consumer tells every CTA whose multicast writes into its stage that the stage is free.
// Introduced by kernel 07. It keeps the default semantics (release at CTA scope), as CUTLASS's ClusterBarrier::arrive
// does. That this suffices is our inference, not a PTX guarantee: the memory model gives a .cta release in one CTA no
// synchronizes-with a .cta acquire in another (PTX ISA 9.1 §8.7, §8.9.4). The stage was read by wgmma, complete at
// wgmma.wait_group, and the partner only overwrites it with TMA after seeing the phase complete. Asking for
// .release.cluster instead makes ptxas put a GPU-wide MEMBAR before every such arrive.
__device__ __forceinline__ void mbarrier_arrive_cluster(uint64_t* barrier, uint32_t cta_rank) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(smem_address(barrier)),
      "r"(cta_rank)
      : "memory");
}

// One such arrival in every CTA of the cluster whose rank's bit is set in `cta_mask` (ranks below kClusterSize):
// a consumer warp's release of a stage to every CTA whose loads fill it. Introduced by kernel 07.
template <int kClusterSize>
__device__ __forceinline__ void mbarrier_arrive_cluster_ctas(uint64_t* barrier, uint32_t cta_mask) {
#pragma unroll
  for (int cta = 0; cta < kClusterSize; ++cta)
    if (cta_mask & (1u << cta)) mbarrier_arrive_cluster(barrier, static_cast<uint32_t>(cta));
}

// A relaxed arrive at cluster scope on the barrier at the same offset in CTA `cta_rank` (the matching wait is
// mbarrier_wait_relaxed_cluster, below): how the two CTAs of a tcgen05 pair hand a Tensor Memory accumulator
// back and forth. The ordering comes from the tcgen05 fences around them (tcgen05.fence::before_thread_sync
// before the arrive, ::after_thread_sync after the wait), as in the PTX ISA's tcgen05 memory-consistency
// examples; cluster scope because the other side is in another CTA. Introduced by kernel 19.
__device__ __forceinline__ void mbarrier_arrive_relaxed_cluster(uint64_t* barrier, uint32_t cta_rank) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(smem_address(barrier)),
      "r"(cta_rank)
      : "memory");
}

// Makes mbarrier initialisation visible to the other CTAs of the cluster (and to their TMA multicasts);
// follow it with a cluster barrier before any CTA uses a partner's barriers. Introduced by kernel 07.
__device__ __forceinline__ void fence_mbarrier_init_cluster() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// One try_wait on the phase with parity `phase`; true once it has completed. While the phase is incomplete the
// thread may be suspended until it completes or a system-dependent time limit passes (PTX ISA 9.1 §9.7.13.15.16),
// so a loop around it need not spin hot. kRelaxedCluster: the relaxed,
// cluster-scope form (see mbarrier_arrive_relaxed_cluster); otherwise the default, acquire at CTA scope.
template <bool kRelaxedCluster>
__device__ __forceinline__ bool mbarrier_try_wait_parity(uint32_t address, uint32_t phase) {
  uint32_t done = 0;
  if constexpr (kRelaxedCluster) {
    asm volatile(
        "{\n"
        ".reg .pred complete;\n"
        "mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 complete, [%1], %2;\n"
        "selp.u32 %0, 1, 0, complete;\n"
        "}\n"
        : "=r"(done)
        : "r"(address), "r"(phase)
        : "memory");
  } else {
    asm volatile(
        "{\n"
        ".reg .pred complete;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
        "selp.u32 %0, 1, 0, complete;\n"
        "}\n"
        : "=r"(done)
        : "r"(address), "r"(phase)
        : "memory");
  }
  return done != 0;
}

// Block until the phase with parity `phase` has completed.
__device__ __forceinline__ void mbarrier_wait(uint64_t* barrier, uint32_t phase) {
  const uint32_t address = smem_address(barrier);
  while (!mbarrier_try_wait_parity<false>(address, phase)) {
  }
}

// The same wait, relaxed at cluster scope: the other half of mbarrier_arrive_relaxed_cluster's hand-off, and
// the wait for a tcgen05.commit multicast from the pair's leader. Introduced by kernel 19.
__device__ __forceinline__ void mbarrier_wait_relaxed_cluster(uint64_t* barrier, uint32_t phase) {
  const uint32_t address = smem_address(barrier);
  while (!mbarrier_try_wait_parity<true>(address, phase)) {
  }
}

}  // namespace gemm
