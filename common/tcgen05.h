// tcgen05: the fifth-generation tensor core instructions of sm_100a (Blackwell B200/GB200). Introduced by
// kernel 10; kernel 11 adds the CTA-pair (cta_group::2) forms.
//
// What changed from Hopper's wgmma: one thread issues an MMA for the whole CTA (or CTA pair), the accumulator
// lives in Tensor Memory (common/tmem.h) instead of registers, operands come from shared memory through
// descriptors (common/tcgen05_descriptor.h), and completion is reported by tcgen05.commit arriving on an
// mbarrier instead of wgmma.wait_group. Registers see the accumulator only through tcgen05.ld.
//
// Every tcgen05 instruction of a kernel must use the same .cta_group (PTX ISA, tcgen05.mma), so the wrappers
// take it as a template argument. Sources: PTX ISA, "TensorCore 5th Generation Family Instructions" (tcgen05.alloc,
// .dealloc, .relinquish_alloc_permit, .mma, .commit, .ld, .wait, .fence, "Issue Granularity", "Memory
// Consistency Model"); CUTLASS cute/arch/tmem_allocator_sm100.hpp, cute/arch/mma_sm100_umma.hpp,
// cutlass/arch/barrier.h (umma_arrive*).
#pragma once

#include <cstdint>

#include "common/mma_sync.h"  // smem_address
#include "common/tcgen05_descriptor.h"

namespace gemm {

// ---- allocation (one whole warp; with cta_group::2 the same warp of both CTAs of the pair) -------------------

// Allocate `columns` TMEM columns (a power of two, 32-512) and write their base address (lane 0, first column)
// to `slot` in shared memory. Blocks while the columns are taken by other CTAs on this SM. With cta_group::2
// both CTAs of the pair allocate together, with the same `slot` offset.
template <int kCtaGroup>
__device__ __forceinline__ void tcgen05_alloc(uint32_t* slot, uint32_t columns) {
  static_assert(kCtaGroup == 1 || kCtaGroup == 2);
  if constexpr (kCtaGroup == 1)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;\n" ::"r"(smem_address(slot)),
                 "r"(columns)
                 : "memory");
  else
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;\n" ::"r"(smem_address(slot)),
                 "r"(columns)
                 : "memory");
}

// This CTA will allocate no more: other CTAs waiting on this SM's TMEM may then be served.
template <int kCtaGroup>
__device__ __forceinline__ void tcgen05_relinquish_alloc_permit() {
  static_assert(kCtaGroup == 1 || kCtaGroup == 2);
  if constexpr (kCtaGroup == 1)
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" ::: "memory");
  else
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;\n" ::: "memory");
}

// Free what tcgen05_alloc returned, from the warp that allocated it, after every access has finished (the
// caller orders them with tcgen05_fence_before_thread_sync, a barrier, tcgen05_fence_after_thread_sync).
template <int kCtaGroup>
__device__ __forceinline__ void tcgen05_dealloc(uint32_t tmem_address, uint32_t columns) {
  static_assert(kCtaGroup == 1 || kCtaGroup == 2);
  if constexpr (kCtaGroup == 1)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;\n" ::"r"(tmem_address), "r"(columns)
                 : "memory");
  else
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;\n" ::"r"(tmem_address), "r"(columns)
                 : "memory");
}

// ---- the MMA (one thread) -----------------------------------------------------------------------------------

// D[tmem] (+)= A[smem] · B[smem]ᵀ, .kind::f16 (bf16/f16 in, fp32 or f16 accumulate), shape from `instr_desc`,
// K = 16. `accumulate` false overwrites D (the first k step of a tile). Asynchronous: track it with
// tcgen05_commit. With cta_group::2 the leader (even) CTA of a pair issues it for both: A and B descriptors
// name the same shared-memory offsets in both CTAs, and each CTA's TMEM receives its half of D.
template <int kCtaGroup>
__device__ __forceinline__ void tcgen05_mma_f16_ss(uint32_t d_tmem, Sm100SmemDescriptor a, Sm100SmemDescriptor b,
                                                   uint32_t instr_desc, bool accumulate) {
  static_assert(kCtaGroup == 1 || kCtaGroup == 2);
  if constexpr (kCtaGroup == 1)
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %4, 0;\n"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, accumulate;\n"
        "}\n" ::"r"(d_tmem),
        "l"(a.bits), "l"(b.bits), "r"(instr_desc), "r"(uint32_t{accumulate})
        : "memory");
  else
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %4, 0;\n"
        "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, accumulate;\n"
        "}\n" ::"r"(d_tmem),
        "l"(a.bits), "l"(b.bits), "r"(instr_desc), "r"(uint32_t{accumulate})
        : "memory");
}

// ---- completion: tcgen05.commit ------------------------------------------------------------------------------

// Arrive once on `barrier` (this CTA's, arrival count 1 per commit) when every tcgen05.mma this thread issued
// before has completed: its shared-memory operands may then be overwritten and its D read.
template <int kCtaGroup>
__device__ __forceinline__ void tcgen05_commit(uint64_t* barrier) {
  static_assert(kCtaGroup == 1 || kCtaGroup == 2);
  if constexpr (kCtaGroup == 1)
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" ::"r"(
                     smem_address(barrier))
                 : "memory");
  else
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" ::"r"(
                     smem_address(barrier))
                 : "memory");
}

// The same arrival delivered to the barrier at `barrier`'s offset in every CTA of the cluster whose bit is set
// in `cta_mask` (cluster ranks): how the pair's leader tells both CTAs that an accumulator is ready, or every
// CTA whose loads fed a stage that the stage is free.
template <int kCtaGroup>
__device__ __forceinline__ void tcgen05_commit_multicast(uint64_t* barrier, uint16_t cta_mask) {
  static_assert(kCtaGroup == 1 || kCtaGroup == 2);
  if constexpr (kCtaGroup == 1)
    asm volatile(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;\n" ::"r"(
            smem_address(barrier)),
        "h"(cta_mask)
        : "memory");
  else
    asm volatile(
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;\n" ::"r"(
            smem_address(barrier)),
        "h"(cta_mask)
        : "memory");
}

// ---- reading the accumulator: tcgen05.ld + tcgen05.wait::ld ---------------------------------------------------

// Warp-collective: 32 lanes × 32 columns from `tmem_address` (the lane field must be the warp's first lane,
// common/tmem.h tmem_32x32b_address): thread t gets lane (first + t), register r column (first + r). The
// registers are not valid until tcgen05_wait_ld; pass them through tcgen05_registers_ready after it.
__device__ __forceinline__ void tcgen05_ld_32x32b_x32(uint32_t tmem_address, uint32_t (&r)[32]) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
        "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]),
        "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]),
        "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
      : "r"(tmem_address)
      : "memory");
}

// Block until every tcgen05.ld this thread issued has completed.
__device__ __forceinline__ void tcgen05_wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory"); }

// The compiler sees tcgen05.ld's outputs as defined by the load itself and could move arithmetic on them above
// tcgen05_wait_ld. An (empty) volatile statement that claims to rewrite them, placed after the wait, keeps
// every use after it: volatile asm statements stay in program order.
__device__ __forceinline__ void tcgen05_registers_ready(uint32_t (&r)[32]) {
  asm volatile(""
               : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3]), "+r"(r[4]), "+r"(r[5]), "+r"(r[6]), "+r"(r[7]),
                 "+r"(r[8]), "+r"(r[9]), "+r"(r[10]), "+r"(r[11]), "+r"(r[12]), "+r"(r[13]), "+r"(r[14]),
                 "+r"(r[15]), "+r"(r[16]), "+r"(r[17]), "+r"(r[18]), "+r"(r[19]), "+r"(r[20]), "+r"(r[21]),
                 "+r"(r[22]), "+r"(r[23]), "+r"(r[24]), "+r"(r[25]), "+r"(r[26]), "+r"(r[27]), "+r"(r[28]),
                 "+r"(r[29]), "+r"(r[30]), "+r"(r[31]));
}

// ---- ordering TMEM accesses across threads ---------------------------------------------------------------------
//
// tcgen05 operations are asynchronous and outside the ordinary memory order: a thread barrier or an mbarrier
// alone does not order one thread's TMEM accesses (or allocation) before another's. The pattern is
//
//   thread X: tcgen05 ops ...; tcgen05_fence_before_thread_sync(); arrive / barrier
//   thread Y: wait / barrier; tcgen05_fence_after_thread_sync(); tcgen05 ops ...
//
// (tcgen05.commit + mbarrier wait orders the MMAs themselves: the waiter still fences after the wait.)
__device__ __forceinline__ void tcgen05_fence_before_thread_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
}
__device__ __forceinline__ void tcgen05_fence_after_thread_sync() {
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
}

}  // namespace gemm
