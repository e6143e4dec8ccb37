// A persistent schedule's work along K: the split of the last, partial round of tiles (stream-K), and the direction
// in which each round walks K. Introduced by kernel 11.
//
// A persistent kernel with W workers (CTAs or clusters) and T tiles runs ⌈T / W⌉ rounds; when T is not a
// multiple of W the last round is partly idle: at 8192³ with 128 × 256 tiles in 2-CTA clusters, T = 1024
// cluster tiles on W = 66 clusters is 15.52 rounds, so half the GPU waits through the 16th. Stream-K (Osama,
// Merrill, Cecka, Garland, Sattarzadeh: "Stream-K: Work-centric Parallel Decomposition for Dense Matrix
// Multiplication on the GPU", PPoPP 2023) cuts the work along K instead: every worker gets the same number
// of k blocks. We use the paper's hybrid: the first ⌊T / W⌋ · W tiles stay whole ("data-parallel", worker w
// takes positions w, w + W, ...), and only the k blocks of the remaining R = T mod W tiles are split evenly
// among all W workers, so the last round takes R / W of a tile's time instead of a whole one.
//
//   R = 3 tiles of 8 k blocks on W = 4 workers: 24 blocks, 6 each
//
//     tile 0: k 0..5 worker 0 (owner) | k 6..7 worker 1
//     tile 1: k 0..3 worker 1 (owner) | k 4..7 worker 2
//     tile 2: k 0..1 worker 2 (owner) | k 2..7 worker 3
//
// A worker's share is one contiguous run of the (tile, k) iterations, so it is at most a partial tile's tail
// (k_begin > 0; the worker's first unit) followed by heads or whole tiles. The worker that computes a tile's
// head (k_begin = 0) owns the tile: it adds the partial sums of the workers holding the rest of the tile's k
// blocks and writes C. The others write their partial sums to a workspace and raise a flag. A partial unit is
// always its worker's first, an owned head its worker's last, so an owner only ever waits for work that its
// contributors did before anything else: every worker is resident at once (a persistent grid), so nobody
// waits in a cycle.
//
// Splitting has a price: a partial-sum round trip through the L2 per worker (128 KB per CTA of kernels 11-13),
// owners that wait for it at the end, and workers at different k positions on neighbouring tiles, which share
// fewer operand loads in the L2 than a round of whole tiles in step. Measured on an H100 (kernel 11's notes)
// it is worth about 30 k blocks of a worker's time, so the policy splits only when the last round leaves at
// least kMinIdleIterations k blocks idle per worker, ((W - R) / W) · k_blocks, and gives every worker at least
// kMinIterations k blocks (thinner shares make owners add many partials one after another).
//
// When the last round is left whole, the schedule uses only as many workers as its rounds need: ⌈T / r⌉ for
// r = ⌈T / W⌉ rounds (64 clusters instead of 66 for 4096³'s 256 tiles in 4 rounds). That takes no longer, since every
// worker still runs r tiles at most, and the workers that would have idled through the last round are not
// launched at all (the launcher sizes its grid from `workers`).
//
// Up and down along K. Neighbouring rounds share operand panels (a tile order keeps them close), but if every
// round walked K upwards, a round would start on k block 0 of its panels when the L2 holds the last k blocks the
// round before read, and the shared panels would come from DRAM again. So the k blocks of a unit run upwards in
// even rounds and downwards in odd ones (the split round counts as round full_rounds()), a serpentine
// (boustrophedon) order along K: each round starts on the k blocks the round before read last. Only the order
// of the fp32 sums changes, not what is summed.
//
// Host and device code, so the host tests can check the schedule (every iteration once, one partial per
// worker, each owner's contributors, balance, the direction of each round).
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include <cstdint>

#include "common/gemm_problem.h"  // ceil_div

namespace gemm {

// A run of k blocks [k_begin, k_end) of the tile at position `tile` of the tile order; tile < 0: no more work.
struct WorkUnit {
  int tile = -1;
  int k_begin = 0;
  int k_end = 0;

  __host__ __device__ bool valid() const { return tile >= 0; }
  // Not the tile's first k block: the sums go to the workspace, for the owner.
  __host__ __device__ bool is_partial() const { return k_begin > 0; }
  __host__ __device__ int k_blocks() const { return k_end - k_begin; }
};

struct StreamKSchedule {
  int tiles = 0;     // tiles in the order, positions 0 .. tiles - 1
  int k_blocks = 1;   // k blocks per tile
  int workers = 1;   // persistent workers
  int whole_tiles = 0;  // positions [0, whole_tiles) go whole, round robin; the rest is split along K

  // The policy's thresholds (see the header).
  static constexpr int kMinIdleIterations = 32;
  static constexpr int kMinIterations = 4;

  // The schedule for `tiles` tiles of `k_blocks` k blocks on at most `workers` workers, split or not by the
  // policy; unsplit, it keeps only the workers its rounds need (`workers` of the result).
  __host__ __device__ static StreamKSchedule make(int tiles, int k_blocks, int workers) {
    StreamKSchedule schedule{tiles, k_blocks, workers, tiles};
    const int remainder = tiles % workers;
    const bool even_runs = remainder > 0 &&
                           int64_t{workers - remainder} * k_blocks >= int64_t{kMinIdleIterations} * workers &&
                           int64_t{remainder} * k_blocks >= int64_t{kMinIterations} * workers;
    if (even_runs)
      schedule.whole_tiles = tiles - remainder;
    else if (tiles > 0)
      schedule.workers = ceil_div(tiles, ceil_div(tiles, workers));  // ⌈T / r⌉ workers for r = ⌈T / W⌉ rounds
    return schedule;
  }

  // Kernel 15's policy for few tiles. make() is given at most one worker per tile by kernels 11-13, so with fewer
  // tiles than resident workers the rest idle (32 cluster tiles on 66 clusters at 512 × 4096 × 14336). Here every
  // resident worker may take part: with fewer tiles than `workers`, either each tile stays whole on a worker of its
  // own, or every tile is split along K (no whole tiles; the schedule's only round is the split one) over the number
  // of workers between tiles + 1 and `workers` that split_blocks() says finishes first, if any beats the whole tiles'
  // k_blocks. A share is then the tail of one tile and the head of the next. With as many tiles as workers or more,
  // make()'s policy, unchanged.
  //
  // What a split costs (fitted to kernel 15 on an H200: 16 from 2048³, 128 × 4096 × 4096 and 512 × 4096 × 14336,
  // raised to 24 by 256 × 8192 × 28672 and 256 × 10240 × 8192, where 16 chose splits that measured 8-14 % slower;
  // docs/log/15_few_tiles.md), in k blocks of 128 × 256 × 64 (1024 cycles at the tensor rate): about kSplitCostBlocks
  // whatever the split (a second tile boundary in every share, the partial's round trip through the L2 before the
  // owner can finish), and kPartialCostBlocks for each partial an owner adds, one after another. With T tiles on W
  // workers an owner adds about W / T partials. For narrower tiles (a k block of `block_cycles`), the first is the
  // same time, so more of their k blocks; a partial is smaller in the same proportion as a k block, so as many.
  // And a split's k blocks run kSplitBlockSlowdown slower than whole tiles' (refitted with kernel 15's five tilings on
  // 24 few-tile shapes, where shares along K of 28672 measured 10-30 % over the fixed costs: an inference, that workers
  // at different places along K share fewer operand loads in the L2, so more come from DRAM).
  static constexpr int kSplitCostBlocks = 24;
  static constexpr int kPartialCostBlocks = 5;
  static constexpr double kSplitBlockSlowdown = 1.1;

  // A split's fixed cost in k blocks of `block_cycles` (the same time, so more of shorter blocks).
  __host__ __device__ static constexpr double split_cost_blocks(double block_cycles = 1024) {
    return kSplitCostBlocks * 1024 / block_cycles;
  }

  // What an owner's partials cost when `split_tiles` tiles are split over `workers`: about workers / split_tiles of
  // them, added one after another.
  __host__ __device__ static constexpr double partial_cost_blocks(int split_tiles, int workers) {
    return kPartialCostBlocks * static_cast<double>(workers) / split_tiles;
  }

  // A worker's time in k blocks when `tiles` tiles of `k_blocks` k blocks of `block_cycles` are split over `workers`.
  __host__ __device__ static constexpr double split_blocks(int tiles, int k_blocks, int workers,
                                                           double block_cycles = 1024) {
    return kSplitBlockSlowdown * tiles * k_blocks / workers + split_cost_blocks(block_cycles) +
           partial_cost_blocks(tiles, workers);
  }

  __host__ __device__ static StreamKSchedule make_few_tiles(int tiles, int k_blocks, int workers,
                                                           double block_cycles = 1024) {
    if (tiles >= workers) return make(tiles, k_blocks, workers);
    int best_workers = tiles;  // whole tiles, one worker each
    double best_blocks = k_blocks;
    for (int split_workers = tiles + 1; split_workers <= workers; ++split_workers) {
      if (int64_t{tiles} * k_blocks < split_workers) break;  // every worker at least one k block
      const double blocks = split_blocks(tiles, k_blocks, split_workers, block_cycles);
      if (blocks < best_blocks) {
        best_blocks = blocks;
        best_workers = split_workers;
      }
    }
    if (best_workers == tiles) return {tiles, k_blocks, tiles, tiles};
    return {tiles, k_blocks, best_workers, 0};
  }

  // Every tile split into the same number of shares, ⌊workers / tiles⌋ (two or more, at most k_blocks), so that a share
  // is one run of one tile's k blocks, ⌊k_blocks / shares⌋ or one more: no worker takes the tail of one tile and the
  // head of the next (worker w's run begins at ⌊w · k_blocks / shares⌋ of the whole, inside tile ⌊w / shares⌋).
  // Kernel 15 takes it where its tiles are at most half the workers and a share keeps kMinEvenShareBlocks k blocks
  // (common/few_tiles.h, plan_few_tiles).
  static constexpr int kMinEvenShareBlocks = 16;
  __host__ __device__ static constexpr StreamKSchedule make_even_split(int tiles, int k_blocks, int workers) {
    return {tiles, k_blocks, workers / tiles * tiles, 0};
  }

  // The shares of each tile if every tile is split into the same number of them (two or more), as make_even_split
  // builds it (so may make_few_tiles, when its workers are a multiple of the tiles); otherwise 0. Worker w then holds
  // share w % shares of tile w / shares, one run of its k blocks, and kernel 15 adds the shares' sums slice by slice
  // (each share one slice of the tile's columns) instead of through an owner.
  __host__ __device__ constexpr int even_shares() const {
    return whole_tiles == 0 && tiles > 0 && workers > tiles && workers % tiles == 0 ? workers / tiles : 0;
  }

  // A worker's time in k blocks under make_few_tiles's schedule, for fewer tiles than workers.
  __host__ __device__ double few_tiles_blocks(double block_cycles = 1024) const {
    return splits() ? split_blocks(tiles, k_blocks, workers, block_cycles) : k_blocks;
  }

  // Whether any tile is split along K (the last round's tiles; none when the policy leaves them whole).
  __host__ __device__ bool splits() const { return whole_tiles < tiles; }

  __host__ __device__ int split_tiles() const { return tiles - whole_tiles; }

  // Rounds in which every worker has a whole tile: round r is positions [r · workers, (r + 1) · workers). An
  // unsplit schedule's last round may be partial; it is round full_rounds(), and its tiles are whole too.
  __host__ __device__ int full_rounds() const { return whole_tiles / workers; }
  // The round of a unit's tile; the split tiles' units are all in round full_rounds().
  __host__ __device__ int round_of(const WorkUnit& unit) const { return unit.tile / workers; }
  // How many rounds the schedule has: its full rounds, and a partial or split last one if any.
  __host__ __device__ int rounds() const { return (tiles + workers - 1) / workers; }

  // The order of a unit's k blocks: upwards in even rounds, downwards in odd ones. Each round then starts on
  // the k blocks the round before read last, which the L2 still holds (see the header).
  __host__ __device__ bool runs_down(const WorkUnit& unit) const { return round_of(unit) % 2 == 1; }
  // The k block a unit reads in its iteration `iteration`, 0 ≤ iteration < unit.k_blocks().
  __host__ __device__ int k_block(const WorkUnit& unit, int iteration) const {
    return runs_down(unit) ? unit.k_end - 1 - iteration : unit.k_begin + iteration;
  }
  __host__ __device__ int64_t split_iterations() const { return int64_t{split_tiles()} * k_blocks; }

  // The first split iteration of `worker` (iteration i is k block i % k_blocks of tile i / k_blocks), and
  // for worker = workers, the end of them all.
  __host__ __device__ int64_t split_begin(int worker) const {
    // Unsigned: the device's 64-bit unsigned division needs fewer registers than the signed one, and the
    // producer runs under a 40-register budget.
    const uint64_t share = static_cast<uint64_t>(split_iterations()) * static_cast<uint64_t>(worker) /
                           static_cast<uint64_t>(workers);
    return int64_t{whole_tiles} * k_blocks + static_cast<int64_t>(share);
  }

  __host__ __device__ WorkUnit first(int worker) const {
    if (worker < whole_tiles) return {worker, 0, k_blocks};
    return first_split_unit(worker);
  }

  __host__ __device__ WorkUnit next(int worker, const WorkUnit& unit) const {
    if (unit.tile < whole_tiles) {
      const int tile = unit.tile + workers;
      if (tile < whole_tiles) return {tile, 0, k_blocks};
      return first_split_unit(worker);
    }
    return split_unit(int64_t{unit.tile} * k_blocks + unit.k_end, split_begin(worker + 1));
  }

  // Where partial sums go: a slot per worker (a worker has at most one partial unit, its first).
  __host__ __device__ int partial_slots() const { return workers; }
  __host__ __device__ int partial_slot(int worker, const WorkUnit&) const { return worker; }

  // Whether `worker`'s first split unit is a partial of `tile`, which the tile's owner must add.
  __host__ __device__ bool contributes_to(int worker, int tile) const {
    const int64_t begin = split_begin(worker);
    return begin < split_begin(worker + 1) && begin / k_blocks == tile && begin % k_blocks != 0;
  }

  // The workers whose partials the owner `worker` of `tile` adds are worker + 1, worker + 2, ... up to (not
  // including) this one: the first whose split work begins past the tile.
  __host__ __device__ int contributors_end(int worker, int tile) const {
    const int64_t tile_end = int64_t{tile + 1} * k_blocks;
    int end = worker + 1;
    while (end < workers && split_begin(end) < tile_end) ++end;
    return end;
  }

 private:
  __host__ __device__ WorkUnit first_split_unit(int worker) const {
    // With every tile whole there is no split run, and no need to divide it among the workers: on the device that
    // division is a called 64-bit subroutine, and the consumers ask for their next unit between their last tile's
    // first and last store rounds (docs/log/15_few_tiles.md, section 53).
    if (!splits()) return {};
    return split_unit(split_begin(worker), split_begin(worker + 1));
  }

  // The unit that starts at iteration `begin` of a worker's split run ending at `end`.
  __host__ __device__ WorkUnit split_unit(int64_t begin, int64_t end) const {
    if (begin >= end) return {};
    const int tile = static_cast<int>(begin / k_blocks);
    const int k_begin = static_cast<int>(begin - int64_t{tile} * k_blocks);
    const int64_t tile_end = int64_t{tile + 1} * k_blocks;
    const int k_end = static_cast<int>((end < tile_end ? end : tile_end) - int64_t{tile} * k_blocks);
    return {tile, k_begin, k_end};
  }
};

// The slice of a tile split evenly that share `share` of `shares` adds and stores in kernel 15: its 8-column chunks
// [begin, end) of the tile's `chunks`, as even as they divide (a share of more than `chunks` shares may get none).
struct ChunkSlice {
  int begin = 0;
  int end = 0;
};
__host__ __device__ constexpr ChunkSlice even_share_slice(int share, int shares, int chunks) {
  return {share * chunks / shares, (share + 1) * chunks / shares};
}

// ---- device side: the partial sums' round trip ------------------------------------------------------------
#ifdef __CUDACC__  // not for the host compiler of the host tests

// Release: raise a flag in global memory to `value` once this thread's earlier writes, and (through a CTA or
// named barrier before the call) those of the threads it synchronised with, are visible GPU-wide (PTX ISA,
// "Memory Consistency Model": st.release is a release pattern at .gpu scope).
__device__ __forceinline__ void flag_store_release(uint32_t* flag, uint32_t value) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}

// Acquire: spin until the flag reads `value`; what its writer released is visible to this thread after.
__device__ __forceinline__ void flag_wait_acquire(const uint32_t* flag, uint32_t value) {
  uint32_t seen;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(seen) : "l"(flag) : "memory");
  } while (seen != value);
}

// A thread's kCount accumulators to and from a workspace slot of kCount × `threads` floats laid out
// thread-fastest in groups of four (float4 j of thread t at [j · threads + t]): the owner's threads hold the
// same fragments as the contributor's, so no layout is needed beyond "same thread, same register", and each
// warp's accesses are 512 contiguous bytes. Loads bypass L1 (ld.global.cg): the slot was written by another
// SM. In a wgmma accumulator float4 j is the thread's part of 8-column chunk j (common/fragment_layout.h), so a
// slice of a tile's columns is a range of j: store_partial leaves out the chunks [skip_begin, skip_end), which
// the writer adds itself, and add_partial adds only the chunks [first, end).
template <int kCount>
__device__ __forceinline__ void store_partial(const float (&acc)[kCount], float* slot, int thread, int threads,
                                              int skip_begin = 0, int skip_end = 0) {
  static_assert(kCount % 4 == 0);
  float4* out = reinterpret_cast<float4*>(slot);
#pragma unroll
  for (int j = 0; j < kCount / 4; ++j)
    if (j < skip_begin || j >= skip_end)
      out[j * threads + thread] = make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]);
}

template <int kCount>
__device__ __forceinline__ void add_partial(float (&acc)[kCount], const float* slot, int thread, int threads,
                                            int first = 0, int end = kCount / 4) {
  const float4* in = reinterpret_cast<const float4*>(slot);
#pragma unroll
  for (int j = 0; j < kCount / 4; ++j) {
    if (j < first || j >= end) continue;
    const float4 partial = __ldcg(in + j * threads + thread);
    acc[4 * j] += partial.x;
    acc[4 * j + 1] += partial.y;
    acc[4 * j + 2] += partial.z;
    acc[4 * j + 3] += partial.w;
  }
}

#endif  // __CUDACC__

}  // namespace gemm
