// Keeping a persistent grid in step: the producers meet at the start of every round of tiles. Introduced by
// kernel 10; kernel 14 adds GroupRoundBarriers (one barrier per GPC).
//
// Why. A tile order makes the tiles of one round (one per worker) share operand panels, but the sharing saves
// DRAM reads only if the workers read each k block of a shared panel at about the same time: the L2 (50 MB on
// an H100) keeps a few dozen k blocks of a round's panels, not a whole tile's K. A persistent grid starts in
// step and then drifts, each worker at its own pace; the drift adds up over the rounds. At 16384³ (62 rounds of
// 256 k blocks) a per cent of difference in pace is more than a hundred k blocks by the end: the old kernel 09
// (the Hilbert order and chapter 11's split, no barrier; an H100) read 22.5 GB from DRAM where a round in step
// reads about 9 (kernel 10's notes). Meeting at the start of every round bounds the drift to what one round adds.
//
// How. One 32-bit counter in global memory. Every CTA's producer adds 1 to it after issuing the last load of
// each full round (a round in which every worker has a whole tile), and before the first load of round r ≥ 1
// waits until the counter has grown by r × CTAs since the launch began. Only the producers meet: the consumers
// go on with the stages already loaded, which hide a short wait. The counter carries timing, not data, so
// relaxed operations do (`red.relaxed.gpu`, `ld.relaxed.gpu`: PTX ISA, "Memory Consistency Model").
//
// The counter is never cleared: each launch adds the same number of arrivals (`arrivals_per_launch`) and is
// told the value it starts from (`base`, which `base_of_launch` works out from the launch's index); the comparison is a difference in 32-bit unsigned arithmetic, exact
// across wrap-around. So launches of one prepared problem must run one after another (the runner's do, on one
// stream), and, as for stream-K's flags, every CTA must be resident at once: a grid no larger than what
// `cudaOccupancyMaxActiveClusters` says fits (common/cluster.h).
//
// Host and device code, so the host tests can check the arithmetic.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include <cstdint>

namespace gemm {

struct RoundBarrier {
  uint32_t* counter = nullptr;
  uint32_t base = 0;  // the counter's value when this launch starts
  uint32_t ctas = 0;  // the CTAs that arrive once in every full round

  // What one launch adds to the counter: every CTA, once per full round.
  __host__ __device__ static constexpr uint32_t arrivals_per_launch(uint32_t ctas, int full_rounds) {
    return ctas * static_cast<uint32_t>(full_rounds);
  }

  // The counter's value when launch `launch` (0, 1, ... of one prepared problem) starts, each launch before it having
  // added its arrivals; exact across wrap-around.
  __host__ __device__ static constexpr uint32_t base_of_launch(uint32_t launch, uint32_t ctas, int full_rounds) {
    return launch * arrivals_per_launch(ctas, full_rounds);
  }

  // Whether round `round` may start, the counter having been read as `seen`: every CTA has arrived in each
  // round before it.
  __host__ __device__ bool open(uint32_t seen, int round) const {
    return seen - base >= ctas * static_cast<uint32_t>(round);
  }

#ifdef __CUDACC__
  // Called by one thread per CTA (the producer) before the first load of a whole tile of round `round`.
  __device__ __forceinline__ void wait_for_round(int round) const {
    if (round == 0) return;
    uint32_t seen;
    do {
      asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];\n" : "=r"(seen) : "l"(counter) : "memory");
    } while (!open(seen, round));
  }

  // Called by the same thread after issuing the last load of a full round.
  __device__ __forceinline__ void arrive() const {
    asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;\n" ::"l"(counter) : "memory");
  }
#endif
};

// Round barriers of groups of clusters, one counter each: kernel 14 keeps the clusters of each GPC in step, not the
// whole grid (common/gpc_rounds.h deals a GPC's clusters the tiles of one row). The same rule as
// above within a group: a launch's base in each group follows from its index (`RoundBarrier::base_of_launch`).
struct GroupRoundBarriers {
  uint32_t* counters = nullptr;                // one per group, zero when the kernel is prepared
  const uint32_t* group_of_cluster = nullptr;  // one per cluster of the launch
  const uint32_t* ctas_of_group = nullptr;     // the CTAs of the group's clusters
  uint32_t launch = 0;                         // the launches of this prepared problem before this one
  int full_rounds = 0;                         // the rounds in which every cluster has a tile

  // The barrier of the group of cluster `cluster`, for this launch.
  __host__ __device__ RoundBarrier of_cluster(uint32_t cluster) const {
    const uint32_t group = group_of_cluster[cluster];
    const uint32_t ctas = ctas_of_group[group];
    return {counters + group, RoundBarrier::base_of_launch(launch, ctas, full_rounds), ctas};
  }
};

}  // namespace gemm
