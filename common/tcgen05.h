// tcgen05: the fifth-generation tensor core instructions of sm_100a (Blackwell B200/GB200). Introduced by
// kernel 17; kernel 19 adds the CTA-pair (cta_group::2) forms.
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

#include "common/smem_address.h"
#include "common/tcgen05_descriptor.h"

namespace gemm {

// ---- allocation (one whole warp; with cta_group::2 the same warp of both CTAs of the pair) -------------------

// Allocate `columns` TMEM columns (a power of two, 32-512) and write their base address (lane 0, first column)
// to `slot` in shared memory. Blocks while the columns are taken by other CTAs on this SM. A synchronous
// tcgen05 instruction; the write to `slot` is a weak shared-memory store (PTX ISA), which a barrier publishes to
// other threads like any store. With cta_group::2 one warp in each CTA of the pair executes it, and the first
// may block until the other does (PTX ISA, "Issue Granularity"); both pass the same `slot` offset, as CuTe's
// Allocator2Sm requires ("Both CTAs _must_ provide the exact same dst_ptr").
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

// The CTA gives up its right to allocate: a later tcgen05.alloc by it is illegal (PTX ISA). That other CTAs
// waiting to allocate on this SM can then proceed is our reading (CUTLASS: "so that the next CTA can
// rasterize"), not something the ISA states.
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
// tcgen05_commit. With cta_group::2 one thread of the CTA pair issues it for both CTAs (PTX ISA, "Issue
// Granularity"); kernel 19, like CUTLASS, issues from the even CTA. The A and B descriptors are read at the same
// shared-memory offsets in both CTAs, and each CTA's TMEM receives its half of D.
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
// common/tmem.h tmem_32x32b_address): thread t gets lane (first + t), register r column (first + r).
// Asynchronous: an instruction of this thread that reads one of `r` gets the loaded value (the PTX ISA
// respects a true register dependency on tcgen05.ld, "Register dependencies, same thread"), but nothing else is
// ordered after the TMEM read until tcgen05_wait_ld, which must precede the fence and synchronisation that let
// another thread overwrite or free the columns. The callers wait, then pass `r` through
// tcgen05_registers_ready.
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
// tcgen05_wait_ld (the values would still be right: the register dependency is respected). An (empty) volatile
// statement that claims to rewrite them, placed after the wait, keeps every use after the wait in the compiled
// code, as the source reads: volatile asm statements stay in program order.
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
// The asynchronous tcgen05 operations (mma, cp, shift, ld, st) are not ordered across threads by a thread
// barrier or an mbarrier alone. The pattern (PTX ISA, tcgen05 "Memory Consistency Model") is
//
//   thread X: asynchronous tcgen05 ops ...; (tcgen05_wait_ld after loads;) tcgen05_fence_before_thread_sync();
//             arrive / barrier
//   thread Y: wait / barrier; tcgen05_fence_after_thread_sync(); tcgen05 ops ...
//
// The two fences are code-motion fences for all tcgen05 instructions (none before ::before_thread_sync moves past it,
// none after ::after_thread_sync ahead of it) and order the asynchronous ones across the synchronisation (PTX ISA 9.1
// §9.7.16.11.1, §9.7.16.6.3). alloc, dealloc, relinquish_alloc_permit are synchronous (§9.7.16.6.1): the fences keep
// them on their side of the barrier, which publishes alloc's address store like any shared-memory store.
// (tcgen05.commit + mbarrier wait orders the MMAs themselves: the waiter still fences after the wait.)
__device__ __forceinline__ void tcgen05_fence_before_thread_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
}
__device__ __forceinline__ void tcgen05_fence_after_thread_sync() {
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
}

}  // namespace gemm
