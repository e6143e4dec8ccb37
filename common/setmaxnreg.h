// setmaxnreg: move registers between warpgroups at run time. Introduced by kernel 05.
//
// A kernel launched with __launch_bounds__(threads, 1) is compiled against a per-thread register cap of
// 65536 / threads (168 for 384 threads). setmaxnreg.dec lowers the calling warpgroup's allocation and
// returns the registers to the CTA's pool (SASS: USETMAXREG.DEALLOC.CTAPOOL); setmaxnreg.inc raises it, waiting
// until the pool has them (USETMAXREG.TRY_ALLOC.CTAPOOL, retried). So the counts after setmaxnreg may add up to
// at most what the CTA was launched with (168 × 384 = 64512 registers), not the SM's 65536: an inc that asks for
// more waits forever (a producer at 48 beside two consumers at 232, 65536 in all, hung on an H100).
// All 128 threads of the warpgroup execute the same instruction; counts are multiples of 8 in [24, 256].
// It only takes effect when the kernel has a register cap at entry and each role is one branch of an
// if/else; otherwise ptxas ignores it and says so (warning C7508).
#pragma once

#include <cstdint>

namespace gemm {

// The registers per thread that a kernel launched with __launch_bounds__(threads, 1) holds from the start: the SM's
// 65536 shared evenly, in steps of 8 (ptxas allocates registers in multiples of 8 per thread). For more than 256
// threads, where that share is below the 255 registers a thread can address.
constexpr int launch_register_cap(int threads) { return 65536 / threads / 8 * 8; }
static_assert(launch_register_cap(384) == 168, "the cap ptxas reports for kernels 05-14 (\"Used 168 registers\")");

// Whether one producer warpgroup at `producer_registers` and `consumers` consumer warpgroups at
// `consumer_registers` fit the registers their CTA is launched with: setmaxnreg only moves registers between them.
constexpr bool setmaxnreg_budget_fits(int producer_registers, int consumers, int consumer_registers) {
  constexpr int kWarpgroupThreads = 128;
  const int threads = (1 + consumers) * kWarpgroupThreads;
  return kWarpgroupThreads * (producer_registers + consumers * consumer_registers) <=
         threads * launch_register_cap(threads);
}
static_assert(setmaxnreg_budget_fits(40, 2, 232) && !setmaxnreg_budget_fits(48, 2, 232),
              "40 / 232 is all of a 384-thread CTA's 64512 registers; 48 / 232 hung");

template <uint32_t kRegisters>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(kRegisters % 8 == 0 && kRegisters >= 24 && kRegisters <= 256);
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}

template <uint32_t kRegisters>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(kRegisters % 8 == 0 && kRegisters >= 24 && kRegisters <= 256);
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}

}  // namespace gemm
