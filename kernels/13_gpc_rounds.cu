// Kernel 13 — each round's tiles dealt GPC by GPC, from probes of where the launch's clusters run.
//
// Which cluster of a round takes which of its tiles changes nothing in DRAM: kernel 10 keeps the round's tiles in
// the L2 together whatever cluster computes them. But the L2 is reached through a GPC's links, and several SMs'
// requests for the same sectors are served with one read only when they come from one GPC (an inference from the L2
// read counts, which fall when the clusters that share a panel share a GPC; see the notes). Consecutive clusters run
// on different GPCs, so consecutive tiles of the Hilbert order land on different GPCs, and a panel of A that four
// clusters of a round read is read four times.
//
// So each full round's tiles are handed out GPC by GPC: at prepare a probe kernel of the same launch shape records
// which GPC each cluster runs on (common/gpc_probe.h; the CUDA driver places clusters the same way launch after
// launch on the GPUs measured, and the probes find GPCs, never join two: a GPU test), and common/gpc_rounds.h deals
// each round's tiles, sorted by row, to the clusters of one GPC after another, so the clusters of a GPC take tiles
// of one cluster row and ask for its A panels together. The deal is folded into the tile table; the kernel does not
// change. The split tiles after the full rounds keep the Hilbert order.
//
// Everything else is kernel 12's.
//
// Shapes: any M and N up to kTileTableMaxExtent; N and K multiples of 8.

#include <memory>
#include <vector>

#include "common/arch.h"
#include "common/cluster.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/gemm_problem.h"
#include "common/gpc_probe.h"
#include "common/gpc_rounds.h"
#include "common/hilbert_order.h"
#include "common/mbarrier.h"
#include "common/named_barrier.h"
#include "common/pipeline_state.h"
#include "common/round_barrier.h"
#include "common/setmaxnreg.h"
#include "common/shared_storage.h"
#include "common/stream_k.h"
#include "common/tensor_map.h"
#include "common/tma.h"
#include "common/wgmma.h"
#include "common/wgmma_epilogue.h"

namespace gemm {
namespace {

// ---- tile parameters --------------------------------------------------------------------------------
constexpr int kBlockM = 128;
constexpr int kBlockN = 256;
constexpr int kBlockK = 64;
constexpr int kStages = 4;           // 4 × 48 KB = 192 KB
constexpr int kConsumers = 2;        // consumer warpgroups, 64 rows × 256 columns each
constexpr int kWarpgroupThreads = 128;
constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
constexpr int kWgmmaM = 64;
constexpr int kWgmmaK = 16;
constexpr int kProducerRegisters = 40;   // TMA issue needs a few dozen
constexpr int kConsumerRegisters = 232;  // 128 accumulators, 32 packed, addressing; 128 × 40 + 256 × 232 = 168 × 384
static_assert(setmaxnreg_budget_fits(kProducerRegisters, kConsumers, kConsumerRegisters),
              "setmaxnreg hands out only the registers the CTA was launched with (common/setmaxnreg.h)");
constexpr int kClusterM = 2;    // CTAs of a cluster along M: they share (multicast) B
constexpr int kClusterN = 1;    // CTAs of a cluster along N: they share (multicast) A
constexpr int kClusterSize = kClusterM * kClusterN;
// The CTAs whose loads write into a CTA's stages (its cluster row and column, itself included): each of
// their consumer warps releases this CTA's stages.
constexpr int kStageReaders = kClusterM + kClusterN - 1;
static_assert(kConsumers * kWgmmaM == kBlockM);
static_assert(kClusterSize >= 2 && kClusterSize <= 8, "a portable cluster has at most 8 CTAs");
static_assert(kBlockM % (8 * kClusterN) == 0 && kBlockN % (8 * kClusterM) == 0,
              "each multicast slice is a whole number of 8-row swizzle atoms");
static_assert(kBlockM * kClusterM * 0xffff >= kTileTableMaxExtent &&
                  kBlockN * kClusterN * 0xffff >= kTileTableMaxExtent,
              "the shape rule admits no more cluster tiles a side than pack_tile's 16 bits hold");

constexpr int kTileBytesA = kBlockM * kBlockK * sizeof(bf16);
constexpr int kTileBytesB = kBlockN * kBlockK * sizeof(bf16);
constexpr int kRowBytes = kBlockK * sizeof(bf16);
constexpr int kSliceRowsA = kBlockM / kClusterN;  // rows of A this CTA loads for its cluster row
constexpr int kSliceRowsB = kBlockN / kClusterM;  // rows of B this CTA loads for its cluster column
// The epilogue's staging: a consumer's 64 × 256 tile goes out in kStoreRounds rounds of kStoreBoxes boxes of
// 64 × 64 (64 columns = 128 bytes, the widest box a 128B-swizzled TMA takes).
constexpr int kBoxCols = 64;
constexpr int kStoreRounds = 2;
constexpr int kStoreBoxes = kBlockN / kBoxCols / kStoreRounds;
constexpr int kChunksPerRound = kBlockN / 8 / kStoreRounds;     // 8-column accumulator chunks per round
constexpr int kPackedPerRound = 2 * kChunksPerRound;  // a round's accumulators as bf16 pairs: 2 per chunk
static_assert(kBlockN % (kBoxCols * kStoreRounds) == 0);
constexpr int kPartialFloats = kWgmmaM * kBlockN;  // a consumer's partial sums of a split tile, in the workspace

struct SharedStorage {
  alignas(1024) bf16 a[kStages][kBlockM * kBlockK];
  alignas(1024) bf16 b[kStages][kBlockN * kBlockK];
  alignas(1024) bf16 c[kConsumers][kStoreBoxes][kWgmmaM * kBoxCols];  // each consumer's store buffer
  uint64_t full[kStages];   // producer -> consumers: the stage's tiles have landed
  uint64_t empty[kStages];  // consumers -> producers: every consumer warp of every CTA writing here is done
};
constexpr int kSharedBytes = shared_storage_bytes<SharedStorage>();
static_assert(kSharedBytes <= 227 * 1024, "sm_90 gives a CTA at most 227 KB of shared memory");

__global__ void __launch_bounds__(kThreads, 1)
    gpc_rounds_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                      const __grid_constant__ CUtensorMap map_c, GemmProblem problem, const uint32_t* tile_order,
                      StreamKSchedule schedule, float* partials, uint32_t* partial_flags, uint32_t launch_epoch,
                      RoundBarrier round_barrier) {
#if GEMM_SM90A_DEVICE_CODE
  SharedStorage& smem = shared_storage<SharedStorage>();
  const int worker = cluster_index();  // the schedule's workers are clusters
  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  const uint32_t rank = cluster_cta_rank();
  const int rank_m = rank % kClusterM, rank_n = rank / kClusterM;  // this CTA's place in the cluster's block
  // The CTAs sharing this CTA's A (its cluster row) and its B (its cluster column), as multicast masks.
  uint16_t row_mask = 0, column_mask = 0;
  for (int n = 0; n < kClusterN; ++n) row_mask |= 1u << (rank_m + kClusterM * n);
  for (int m = 0; m < kClusterM; ++m) column_mask |= 1u << (m + kClusterM * rank_n);
  const uint16_t stage_readers = row_mask | column_mask;

  if (threadIdx.x == 0) {
    for (int stage = 0; stage < kStages; ++stage) {
      mbarrier_init(&smem.full[stage], 1);
      mbarrier_init(&smem.empty[stage], kStageReaders * kConsumers * 4);
    }
    fence_mbarrier_init_cluster();  // partners arrive on these barriers and multicast into this CTA
  }
  cluster_sync();  // no CTA of the cluster touches a partner before every barrier of the cluster exists

  if (warpgroup == 0) {
    // ---- producer: one thread issues this CTA's slices of every load of every tile ----
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      PipelineState<kStages> write;
      for (WorkUnit unit = schedule.first(worker); unit.valid(); unit = schedule.next(worker, unit)) {
        const TileCoord cluster_tile = unpack_tile(tile_order[unit.tile]);
        const int row = (cluster_tile.m * kClusterM + rank_m) * kBlockM;
        const int col = (cluster_tile.n * kClusterN + rank_n) * kBlockN;
        const bool whole = unit.tile < schedule.whole_tiles;  // the split tiles' units go as they come
        const int round = schedule.round_of(unit);
        if (whole) round_barrier.wait_for_round(round);  // every CTA has issued the rounds before
        for (int iteration = 0; iteration < unit.k_blocks(); ++iteration) {
          const int k_block = schedule.k_block(unit, iteration);  // upwards in even rounds, downwards in odd ones
          mbarrier_wait(&smem.empty[write.stage], write.phase ^ 1);
          mbarrier_arrive_expect_tx(&smem.full[write.stage], kTileBytesA + kTileBytesB);
          bf16* slice_a = smem.a[write.stage] + rank_n * kSliceRowsA * kBlockK;
          bf16* slice_b = smem.b[write.stage] + rank_m * kSliceRowsB * kBlockK;
          if constexpr (kClusterN > 1)
            tma_load_2d_multicast(slice_a, &map_a, &smem.full[write.stage], k_block * kBlockK,
                                  row + rank_n * kSliceRowsA, row_mask);
          else
            tma_load_2d(slice_a, &map_a, &smem.full[write.stage], k_block * kBlockK, row);
          if constexpr (kClusterM > 1)
            tma_load_2d_multicast(slice_b, &map_b, &smem.full[write.stage], k_block * kBlockK,
                                  col + rank_m * kSliceRowsB, column_mask);
          else
            tma_load_2d(slice_b, &map_b, &smem.full[write.stage], k_block * kBlockK, col);
          write.advance();
        }
        if (whole && round < schedule.full_rounds()) round_barrier.arrive();
      }
    }
  } else {
    // ---- consumers: warpgroup c owns rows 64(c - 1) .. 64(c - 1) + 63 of each tile ----
    setmaxnreg_inc<kConsumerRegisters>();
    const int consumer = warpgroup - 1;
    const bool warp_leader = threadIdx.x % 32 == 0;
    const bool store_leader = threadIdx.x % kWarpgroupThreads == 0;  // issues, commits and waits for the stores
    const uint32_t consumer_barrier = 1 + consumer;  // named barrier of this warpgroup's 128 threads (0 is CTA-wide)
    // One warp's release of a stage: an arrival on the empty barrier of every CTA whose loads fill it.
    const auto release_stage = [&](int stage) {
      if (warp_leader) mbarrier_arrive_cluster_ctas<kClusterSize>(&smem.empty[stage], stage_readers);
    };
    // This warpgroup's part of a schedule slot (common/stream_k.h) in the workspace and the flags: same rank,
    // same consumer.
    const auto slot_of = [&](int slot) {
      return (slot * kClusterSize + static_cast<int>(rank)) * kConsumers + consumer;
    };
    const int consumer_thread = threadIdx.x % kWarpgroupThreads;
    float acc[kBlockN / 2];  // written by each unit's first wgmma (scale-d = 0): no clearing
    PipelineState<kStages> read, release;
    // Send store round `round` of C through this warpgroup's buffer (common/wgmma_epilogue.h); `stage` writes it there.
    const auto store_round = [&](int round, int row, int col, const auto& stage) {
      store_staged_round(&map_c, smem.c[consumer], row, col + round * kStoreBoxes * kBoxCols, store_leader,
                         consumer_barrier, stage);
    };
    // The last store round of the tile before, packed, and where it goes: sent during the next unit's first k block.
    uint32_t deferred[kPackedPerRound];
    bool has_deferred = false;
    int deferred_row = 0, deferred_col = 0;
    const auto store_deferred = [&] {
      store_round(kStoreRounds - 1, deferred_row, deferred_col, [&] { stage_packed_m64(deferred, smem.c[consumer]); });
      has_deferred = false;
    };
    for (WorkUnit unit = schedule.first(worker); unit.valid(); unit = schedule.next(worker, unit)) {
      const TileCoord cluster_tile = unpack_tile(tile_order[unit.tile]);
      for (int iteration = 0; iteration < unit.k_blocks(); ++iteration) {  // k blocks in the producer's order
        mbarrier_wait(&smem.full[read.stage], read.phase);
        wgmma_fence();
        const uint32_t a_base = smem_address(smem.a[read.stage]) + consumer * kWgmmaM * kRowBytes;
        const uint32_t b_base = smem_address(smem.b[read.stage]);
#pragma unroll
        for (int k_step = 0; k_step < kBlockK / kWgmmaK; ++k_step) {
          const uint32_t k_offset = k_step * kWgmmaK * sizeof(bf16);
          wgmma_m64n256k16(acc, wgmma_descriptor_k_major_128b(a_base + k_offset),
                           wgmma_descriptor_k_major_128b(b_base + k_offset), iteration > 0 || k_step > 0);
        }
        wgmma_commit_group();
        read.advance();
        wgmma_wait_group<1>();  // the previous k block's group is done: release its stage
        if (iteration > 0) {
          release_stage(release.stage);
          release.advance();
        }
        if (has_deferred) store_deferred();  // behind this k block's wgmmas
      }
      wgmma_wait_group<0>();  // the tile's last group is done: release its stage too
      release_stage(release.stage);
      release.advance();
      wgmma_fence_operands(acc);
      if (unit.is_partial()) {  // the tile's owner adds these sums: to the workspace, then raise the flag
        const int slot = slot_of(schedule.partial_slot(worker, unit));
        store_partial(acc, partials + slot * kPartialFloats, consumer_thread, kWarpgroupThreads);
        named_barrier_sync(consumer_barrier, kWarpgroupThreads);  // every thread's part is written ...
        if (store_leader) flag_store_release(&partial_flags[slot], launch_epoch);  // ... then the flag
        continue;
      }
      // The owner of a split tile: add the partials of the workers holding the rest of its k blocks.
      if (unit.k_end < schedule.k_blocks) {
        const int contributors_end = schedule.contributors_end(worker, unit.tile);
        for (int contributor = worker + 1; contributor < contributors_end; ++contributor) {
          if (!schedule.contributes_to(contributor, unit.tile)) continue;
          const int slot = slot_of(contributor);
          if (store_leader) flag_wait_acquire(&partial_flags[slot], launch_epoch);
          named_barrier_sync(consumer_barrier, kWarpgroupThreads);  // the leader saw the flag: all may read
          add_partial(acc, partials + slot * kPartialFloats, consumer_thread, kWarpgroupThreads);
        }
      }
      const int row = (cluster_tile.m * kClusterM + rank_m) * kBlockM + consumer * kWgmmaM;
      const int col = (cluster_tile.n * kClusterN + rank_n) * kBlockN;
#pragma unroll
      for (int round = 0; round < kStoreRounds - 1; ++round)
        store_round(round, row, col, [&] { stage_accumulators_m64(acc, smem.c[consumer], round * kChunksPerRound); });
      pack_accumulator_chunks(acc, (kStoreRounds - 1) * kChunksPerRound, deferred);  // the last round waits
      has_deferred = true;
      deferred_row = row;
      deferred_col = col;
    }
    if (has_deferred) store_deferred();
    if (store_leader) tma_store_wait<0>();  // the buffer must outlive the last store's read, and C be written
  }
  cluster_sync();  // a partner may still arrive on this CTA's barriers until it is done too
#endif
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_gpc_rounds(const GemmProblem& problem) {
  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kSliceRowsA, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kSliceRowsB, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_c = make_tensor_map_2d(problem.c, problem.m, problem.n, kWgmmaM, kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);
  CUDA_CHECK(cudaFuncSetAttribute(gpc_rounds_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  // The Hilbert order of the cluster tiles, as a table in device memory that the launch keeps alive.
  const int cluster_tiles_m = ceil_div(ceil_div(problem.m, kBlockM), kClusterM);
  const int cluster_tiles_n = ceil_div(ceil_div(problem.n, kBlockN), kClusterN);
  if (cluster_tiles_m > 0xffff || cluster_tiles_n > 0xffff)  // the shape rule refuses these shapes first
    throw UsageError("the tile table packs rows and columns in 16 bits each: at most 65535 cluster tiles a side");
  const std::vector<TileCoord> hilbert = hilbert_tile_order(cluster_tiles_m, cluster_tiles_n);
  const int cluster_tiles = static_cast<int>(hilbert.size());
  // The split of the last round, and when it splits, the workspace for the partial sums (per schedule slot,
  // a part per consumer warpgroup of each CTA) and the parts' flags. A flag is raised to the launch's epoch, a
  // number that grows with every launch (never 0, the flags' first value), so the flags need no clearing
  // between launches. Unsplit, the schedule keeps only the clusters its rounds need, and the grid is sized from it.
  const StreamKSchedule schedule = StreamKSchedule::make(
      cluster_tiles, ceil_div(problem.k, kBlockK),
      persistent_cluster_count(gpc_rounds_kernel, kThreads, kSharedBytes, kClusterSize, cluster_tiles));
  const int clusters = schedule.workers;
  const int grid = clusters * kClusterSize;
  // Each full round's tiles handed out GPC by GPC (common/gpc_rounds.h; worker w takes position r × workers + w of
  // round r). The split tiles after the full rounds stay as they are.
  const int grouped_tiles = schedule.full_rounds() * clusters;
  std::vector<int> dealt;  // the grouped positions; only those of the full rounds are used (none: no probe)
  if (grouped_tiles > 0)
    dealt = gpc_grouped_rounds(hilbert, probe_cluster_gpcs(grid, kThreads, kSharedBytes, kClusterSize));
  std::vector<uint32_t> table;
  for (int position = 0; position < cluster_tiles; ++position)
    table.push_back(pack_tile(hilbert[position < grouped_tiles ? dealt[position] : position]));
  const auto tile_order = std::make_shared<DeviceBuffer<uint32_t>>(table.size(), "the tile order");
  CUDA_CHECK(cudaMemcpy(tile_order->get(), table.data(), table.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
  const bool split = schedule.splits();
  const size_t slots = split ? static_cast<size_t>(schedule.partial_slots()) * kClusterSize * kConsumers : 0;
  const auto partials = std::make_shared<DeviceBuffer<float>>(slots * kPartialFloats, "the split tiles' partial sums");
  const auto partial_flags = std::make_shared<DeviceBuffer<uint32_t>>(slots, "the split tiles' flags");
  if (split) CUDA_CHECK(cudaMemset(partial_flags->get(), 0, slots * sizeof(uint32_t)));
  const auto epoch = std::make_shared<uint32_t>(0);
  // The round barrier's counter, never cleared: each launch starts where the last one left it, its base worked out
  // from the launches before it (common/round_barrier.h), so launches of one prepared problem must not overlap (the
  // runner's run in order on one stream).
  const auto round_counter = std::make_shared<DeviceBuffer<uint32_t>>(1, "the round barrier's counter");
  CUDA_CHECK(cudaMemset(round_counter->get(), 0, sizeof(uint32_t)));
  const auto launches = std::make_shared<uint32_t>(0);
  const auto enqueue = [=](cudaStream_t stream) {
    if (++*epoch == 0) *epoch = 1;
    const RoundBarrier round_barrier{
        round_counter->get(),
        RoundBarrier::base_of_launch((*launches)++, static_cast<uint32_t>(grid), schedule.full_rounds()),
        static_cast<uint32_t>(grid)};
    launch_with_cluster(gpc_rounds_kernel, grid, kThreads, kSharedBytes, kClusterSize, stream, map_a, map_b, map_c,
                        problem, static_cast<const uint32_t*>(tile_order->get()), schedule, partials->get(),
                        partial_flags->get(), *epoch, round_barrier);
  };
  return {enqueue, reinterpret_cast<const void*>(gpc_rounds_kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// sass: sm_90a gpc_rounds_kernel UTMASTG\.2D STSM\.16\.M88\.4 UTMALDG\.2D\.MULTICAST UCGABAR_ARV UCGABAR_WAIT HGMMA\.64x256x16\.F32\.BF16 UTMALDG\.2D\s SYNCS\.ARRIVE\.TRANS64 SYNCS\.PHASECHK\.TRANS64 USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8 STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU REDG\.E\.ADD\.STRONG\.GPU WARPGROUP\.DEPBAR\.LE\sgsb0,\s0x1\b((?!WARPGROUP\.DEPBAR|HGMMA)[\s\S]){0,40000}?UTMASTG\.2D
