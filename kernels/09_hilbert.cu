// Kernel 09 — the schedule: cluster tiles along a Hilbert curve, rounds in step walking K up and down, and the last
// round split along K.
//
// Kernels 06-08 walk the tiles in grouped order: bands of tile rows, column by column. The tiles in flight
// together (one per cluster, a "wave") form a block kGroupRows tall, but consecutive waves jump: at the end of
// a band the next wave starts at the top of the next band, far from where the last one was, and within a band
// the block slides along N, dropping a column of B and picking up a new one. A Hilbert curve orders the tiles
// so that every run of consecutive positions is compact in both directions and each step moves to a
// neighbour: a wave is a blob about sqrt(clusters) tiles across, and the next wave is its neighbour, so the
// L2 keeps more of what the next wave reads. The curve is the generalised ("gilbert") one, which covers any
// rectangle of tiles, not only a power-of-two square (common/hilbert_order.h; the host tests measure the
// distinct A and B tiles per wave for this order against row-major and grouped orders).
//
// The order is computed on the host when the kernel is prepared for a shape and handed to the kernel as a
// table of packed (row, column) cluster tiles in device memory, one 4-byte load per tile.
//
// An order only saves DRAM reads if the clusters of a round read their shared panels at about the same time,
// and a persistent grid drifts: over 62 rounds of 256 k blocks (16384³) the clusters end up further apart in K
// than the L2 can bridge. So the producers meet at the start of every round (common/round_barrier.h): each CTA
// adds 1 to a counter in global memory when it has issued a round's last load, and waits before the next
// round's first until every CTA has. The consumers go on with the stages already loaded meanwhile.
//
// Consecutive rounds are neighbours on the curve and share operand panels, but a round that starts at k block
// 0 finds in the L2 only the last k blocks of the round before. So odd rounds walk K downwards
// (common/stream_k.h): each round starts on the k blocks the round before read last.
//
// Which cluster of a round takes which of its tiles changes nothing in DRAM, but the L2's request coalescer serves
// several SMs' requests for the same sectors with one read only when they come from one GPC, and consecutive
// clusters run on different GPCs. So each round's tiles are handed out GPC by GPC (common/gpc_rounds.h, from probes
// of where the launch's clusters run, common/gpc_probe.h): the clusters of one GPC take tiles of one cluster row and
// ask for its A panels together. 13-16 % fewer L2 reads: less energy per launch, a higher clock under the power
// limit.
//
// The order decides which tiles run together; it cannot fix how many rounds there are. At 8192³ the 1024
// cluster tiles make 15.52 rounds of 66 clusters, and half the GPU idles through the 16th. So the tail of
// the order is cut along K instead (stream-K, common/stream_k.h): whole tiles round robin while every
// cluster has one, then the k blocks of the remaining tiles shared out evenly. A cluster whose share starts
// inside a tile writes its fp32 partial sums to a workspace and raises a flag; the cluster that computed the
// tile's first k blocks waits for the flags, adds the partials and stores C. Where even shares do not pay, the
// remaining tiles may be cut into a head and a tail instead, all heads starting at one k block together and all
// tails at another (4096 × 14336 × 4096, before the ping-pong kernel below took that shape); where neither pays
// (4096³), only as many clusters are launched as the rounds need (64 of 66).
//
// Both consumers end their tiles together, and the tensor pipe idles until they start the next: through kernel
// 08's epilogue, which stages half of C, sends it, waits for the TMA store to have read the buffer, and stages the
// other half. So the second half waits in registers instead, packed to bf16 (32 registers beside the 128
// accumulators), and is staged after the next unit's first k block has been issued, while its wgmmas run.
// Everything else is kernel 08's.
//
// Where tiles are short (small K) the tile boundaries cost the most: about 3.3 k cycles a tile beyond its multiplies
// on an H100, 5 % of a 128 × 256 tile with K = 4096. There 09 launches a second kernel, hilbert_pingpong_kernel:
// 128 × 176 tiles, each consumer warpgroup computing a whole tile (two m64n176 halves, 176 accumulators a thread) while
// the other stores its last one, the two taking the cluster's tiles in turn. The producer loads the tiles back to
// back into one ring; a warpgroup starts on its tile's stages only once the other has issued its last k block (a
// named barrier passes the turn: a parity wait is unambiguous only within one lap of the ring), so its first wgmmas
// queue behind the other's last and the tensor pipe does not stop at a tile boundary. Each warp stores its own rows
// of C (8-row boxes through two 1 KB slots of its own, common/wgmma_epilogue.h's store_warp_box) and meets no other
// warp: staged by the whole warpgroup between barriers, C's writes cost this kernel twice as much. Its tiles are in
// kernels 07-08's grouped order (bands of 8 cluster rows), its odd rounds walk K downwards as the cooperative
// kernel's do (a fifth fewer DRAM reads: less energy per launch, a higher clock under the power limit), and the last
// round is not split, so it pays only where its rounds come out nearly whole: common/pingpong_choice.h holds the
// rule, a cost model of both kernels. For the same reason it comes in two widths, 128 × 176 (cuBLAS's tile for the
// LLM shape) and 128 × 184 (184 accumulators a thread still fit), and the model takes the one whose rounds come out
// fuller: on the LLM shape 19 rounds of 184 instead of 20 of 176, 0.7 % fewer cycles. Its rounds' tiles are handed
// out GPC by GPC as the cooperative kernel's are (a fifth fewer L2 reads there), each GPC's clusters on one row of
// the round, and the producers of one GPC meet at every round (a round barrier per GPC): the clusters that share an
// A panel then ask for its k blocks closer together, and the L2 reads fall by another 9-16 %.
//
// Shapes: any M; N and K multiples of 8.

#include <limits>
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
#include "common/pingpong_choice.h"
#include "common/pipeline_state.h"
#include "common/round_barrier.h"
#include "common/setmaxnreg.h"
#include "common/shared_storage.h"
#include "common/stream_k.h"
#include "common/tile_scheduler.h"
#include "common/tensor_map.h"
#include "common/tma.h"
#include "common/wgmma.h"
#include "common/wgmma_epilogue.h"
#include "kernels/registry.h"  // kTileTableMaxExtent, the limit of this kernel's shape rule

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
constexpr int kConsumerRegisters = 232;  // 128 accumulators + addressing; 128 × 40 + 256 × 232 = 168 × 384
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
              "the shape rule kTmaAlignedTileTable admits no more cluster tiles a side than pack_tile's 16 bits hold");

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
    hilbert_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
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
          const int k_tile = schedule.k_block(unit, iteration);  // upwards in even rounds, downwards in odd ones
          mbarrier_wait(&smem.empty[write.stage], write.phase ^ 1);
          mbarrier_arrive_expect_tx(&smem.full[write.stage], kTileBytesA + kTileBytesB);
          bf16* slice_a = smem.a[write.stage] + rank_n * kSliceRowsA * kBlockK;
          bf16* slice_b = smem.b[write.stage] + rank_m * kSliceRowsB * kBlockK;
          if constexpr (kClusterN > 1)
            tma_load_2d_multicast(slice_a, &map_a, &smem.full[write.stage], k_tile * kBlockK,
                                  row + rank_n * kSliceRowsA, row_mask);
          else
            tma_load_2d(slice_a, &map_a, &smem.full[write.stage], k_tile * kBlockK, row);
          if constexpr (kClusterM > 1)
            tma_load_2d_multicast(slice_b, &map_b, &smem.full[write.stage], k_tile * kBlockK,
                                  col + rank_m * kSliceRowsB, column_mask);
          else
            tma_load_2d(slice_b, &map_b, &smem.full[write.stage], k_tile * kBlockK, col);
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
        wgmma_wait_group<1>();  // the previous k tile's group is done: release its stage
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
      if (unit.k_end < schedule.k_tiles) {
        const int slots_end = schedule.contributor_slots_end(worker, unit.tile);
        for (int contributor = schedule.contributor_slots_begin(worker, unit.tile); contributor < slots_end;
             ++contributor) {
          if (!schedule.slot_holds(contributor, unit.tile)) continue;
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

// ---- the ping-pong kernel: tile parameters -------------------------------------------------------------------
// The launch (threads, registers, clusters of two along M sharing B) and kBlockM, kBlockK are the cooperative
// kernel's; the tile is narrower, so that one warpgroup holds a whole tile's accumulators: 128 × kTileN, kTileN = 176
// (cuBLAS's tile for the LLM shape) or 184, whichever fills the rounds better (common/pingpong_choice.h). The LLM
// shape's 14336 columns are 81.5 tiles of 176 and 77.9 of 184: 20 rounds of 66 cluster tiles against 19 rounds of
// tiles 4.5 % wider, 0.7 % fewer cycles.
constexpr int kPingPongStages = 5;     // 5 × 38 KB (176) or 39 KB (184) = 190 or 195 KB, and 16 KB of C slots
constexpr int kPingPongGroupRows = 8;  // kernels 07-08's bands of 8 cluster rows
constexpr int kWarpsPerWarpgroup = 4;
constexpr int kCSlotsPerWarp = 2;  // a warp stages a box in one while the other's store reads the other
static_assert(kClusterN == 1 && kClusterM == 2, "the ping-pong's B slices are written for clusters of 2 along M");

template <int kTileN>
struct PingPongTile {
  static constexpr int kAccumulators = kTileN / 2;  // per thread for one 64-row half; both halves fit in 232 registers
  static constexpr int kTileBytesB = kTileN * kBlockK * sizeof(bf16);
  // Each CTA of the cluster loads a slice of B and multicasts it, in whole 8-row swizzle atoms: 88 + 88 rows of 176,
  // 96 + 88 of 184 (one tensor map per slice height).
  static constexpr int kFirstSliceRowsB = (kTileN / 2 + 7) / 8 * 8;
  static constexpr int kSecondSliceRowsB = kTileN - kFirstSliceRowsB;
  static constexpr int kLastBoxCols = kTileN - 2 * kBoxCols;  // 176 = 64 + 64 + 48, 184 = 64 + 64 + 56
  static_assert(kTileN % 8 == 0 && kSecondSliceRowsB % 8 == 0 && kLastBoxCols > 0 && kLastBoxCols <= kBoxCols);
};

// One k16 step of a 64-row half: the wgmma of the tile's width.
template <int kTileN>
__device__ __forceinline__ void wgmma_pingpong(float (&d)[kTileN / 2], uint64_t descriptor_a, uint64_t descriptor_b,
                                               bool accumulate) {
  static_assert(kTileN == 176 || kTileN == 184);
  if constexpr (kTileN == 176)
    wgmma_m64n176k16(d, descriptor_a, descriptor_b, accumulate);
  else
    wgmma_m64n184k16(d, descriptor_a, descriptor_b, accumulate);
}

template <int kTileN>
struct PingPongSharedStorage {
  alignas(1024) bf16 a[kPingPongStages][kBlockM * kBlockK];
  alignas(1024) bf16 b[kPingPongStages][kTileN * kBlockK];
  alignas(1024) bf16 c[kConsumers][kWarpsPerWarpgroup][kCSlotsPerWarp][8 * kBoxCols];  // 8 × 64 boxes, 1 KB
  uint64_t full[kPingPongStages];
  uint64_t empty[kPingPongStages];
};
template <int kTileN>
constexpr int kPingPongSharedBytes = shared_storage_bytes<PingPongSharedStorage<kTileN>>();
static_assert(kPingPongSharedBytes<184> <= 227 * 1024, "sm_90 gives a CTA at most 227 KB of shared memory");

// ---- the ping-pong kernel ------------------------------------------------------------------------------------
// Its cluster tiles in kernels 07-08's grouped order, bands of kPingPongGroupRows cluster rows; a launch's round j is
// the positions [j × clusters, (j + 1) × clusters) of it.
template <int kTileN>
__host__ __device__ GroupedTileOrder pingpong_order(const GemmProblem& problem) {
  return {ceil_div(ceil_div(problem.m, kBlockM), kClusterM), ceil_div(problem.n, kTileN), kPingPongGroupRows};
}

template <int kTileN>
__global__ void __launch_bounds__(kThreads, 1)
    hilbert_pingpong_kernel(const __grid_constant__ CUtensorMap map_a,
                            const __grid_constant__ CUtensorMap map_b_first_slice,
                            const __grid_constant__ CUtensorMap map_b_second_slice,
                            const __grid_constant__ CUtensorMap map_c, const __grid_constant__ CUtensorMap map_c_last,
                            GemmProblem problem, const int* round_positions, int rounds,
                            GroupRoundBarriers gpc_barriers) {
#if GEMM_SM90A_DEVICE_CODE
  using Tile = PingPongTile<kTileN>;
  PingPongSharedStorage<kTileN>& smem = shared_storage<PingPongSharedStorage<kTileN>>();
  const GroupedTileOrder order = pingpong_order<kTileN>(problem);
  const int k_tiles = ceil_div(problem.k, kBlockK);
  // Round j's tile of this cluster is the position round_positions[j × clusters + this cluster] of the order: the
  // round's tiles handed out GPC by GPC (common/gpc_rounds.h). Only the last round may have none for this cluster.
  const auto position_of = [&](int round) {
    return round_positions[round * static_cast<int>(cluster_count()) + static_cast<int>(cluster_index())];
  };
  const int cluster_rounds = rounds - (position_of(rounds - 1) == kNoTile ? 1 : 0);
  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  const int rank_m = static_cast<int>(cluster_cta_rank());  // clusters of kClusterM along M
  uint16_t column_mask = 0;  // the CTAs sharing this CTA's B: the whole cluster
  for (int m = 0; m < kClusterM; ++m) column_mask |= 1u << m;

  if (threadIdx.x == 0) {
    for (int stage = 0; stage < kPingPongStages; ++stage) {
      mbarrier_init(&smem.full[stage], 1);
      mbarrier_init(&smem.empty[stage], kStageReaders * kWarpsPerWarpgroup);  // one consumer warpgroup reads a stage
    }
    fence_mbarrier_init_cluster();
  }
  cluster_sync();

  if (warpgroup == 0) {
    // ---- producer: the cluster's tiles back to back, every k block of each ----
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      PipelineState<kPingPongStages> write;
      // The producers of this GPC's clusters meet at every round, as the cooperative kernel's meet across the grid.
      const RoundBarrier gpc_barrier = gpc_barriers.of_cluster(cluster_index());
      for (int round = 0; round < cluster_rounds; ++round) {
        const TileCoord cluster_tile = order.at(position_of(round));
        const int row = (cluster_tile.m * kClusterM + rank_m) * kBlockM;
        const int col = cluster_tile.n * kTileN;
        // As in the cooperative kernel, odd rounds walk K downwards and start on the k blocks the round before read
        // last, which the L2 still holds; warpgroup 0 computes the even rounds, warpgroup 1 the odd ones.
        const bool downwards = round % 2 == 1;
        gpc_barrier.wait_for_round(round);
        for (int iteration = 0; iteration < k_tiles; ++iteration) {
          const int k_tile = downwards ? k_tiles - 1 - iteration : iteration;
          mbarrier_wait(&smem.empty[write.stage], write.phase ^ 1);
          mbarrier_arrive_expect_tx(&smem.full[write.stage], kTileBytesA + Tile::kTileBytesB);
          tma_load_2d(smem.a[write.stage], &map_a, &smem.full[write.stage], k_tile * kBlockK, row);
          tma_load_2d_multicast(smem.b[write.stage] + rank_m * Tile::kFirstSliceRowsB * kBlockK,
                                rank_m == 0 ? &map_b_first_slice : &map_b_second_slice, &smem.full[write.stage],
                                k_tile * kBlockK, col + rank_m * Tile::kFirstSliceRowsB, column_mask);
          write.advance();
        }
        if (round < gpc_barriers.full_rounds) gpc_barrier.arrive();
      }
    }
  } else {
    // ---- consumers: warpgroup c computes the cluster's tiles c, c + 2, c + 4, ... whole ----
    setmaxnreg_inc<kConsumerRegisters>();
    const int consumer = __shfl_sync(0xffffffffu, warpgroup - 1, 0);  // the same in every lane: uniform registers
    const int warp = threadIdx.x / 32 % kWarpsPerWarpgroup;
    const bool warp_leader = threadIdx.x % 32 == 0;
    const auto release_stage = [&](int stage) {  // to every CTA whose loads fill it: the whole cluster
      if (warp_leader) mbarrier_arrive_cluster_ctas<kClusterSize>(&smem.empty[stage], column_mask);
    };
    // Named barrier 1 + c hands the turn to warpgroup c (0 is CTA-wide).
    const uint32_t my_turn = 1 + consumer, their_turn = 1 + (1 - consumer);
    float top[Tile::kAccumulators], bottom[Tile::kAccumulators];  // rows 0-63 and 64-127 of the tile
    PipelineState<kPingPongStages> read, release;
    if (consumer == 1) {  // the other warpgroup's first tile goes by first
      read.advance(k_tiles);
      release.advance(k_tiles);
    }
    bool my_first_tile = true;
    for (int round = consumer; round < cluster_rounds; round += 2) {
      const int position = position_of(round);
      // Wait for the turn: the other warpgroup has issued every k block of the tile before, so this tile's stages
      // are the next lap of the ring and their parities mean what they say.
      if (consumer == 1 || !my_first_tile) named_barrier_sync(my_turn, 2 * kWarpgroupThreads);
      my_first_tile = false;
      for (int iteration = 0; iteration < k_tiles; ++iteration) {  // the k blocks in the producer's order
        mbarrier_wait(&smem.full[read.stage], read.phase);
        wgmma_fence();
        const uint32_t a_base = smem_address(smem.a[read.stage]);
        const uint32_t b_base = smem_address(smem.b[read.stage]);
#pragma unroll
        for (int k_step = 0; k_step < kBlockK / kWgmmaK; ++k_step) {
          const uint32_t k_offset = k_step * kWgmmaK * sizeof(bf16);
          const uint64_t b_descriptor = wgmma_descriptor_k_major_128b(b_base + k_offset);
          wgmma_pingpong<kTileN>(top, wgmma_descriptor_k_major_128b(a_base + k_offset), b_descriptor,
                                 iteration > 0 || k_step > 0);
          wgmma_pingpong<kTileN>(bottom, wgmma_descriptor_k_major_128b(a_base + kWgmmaM * kRowBytes + k_offset),
                                 b_descriptor, iteration > 0 || k_step > 0);
        }
        wgmma_commit_group();
        read.advance();
        wgmma_wait_group<1>();  // the previous k block's group is done: release its stage
        if (iteration > 0) {
          release_stage(release.stage);
          release.advance();
        }
      }
      // Every k block of this tile is issued: the other warpgroup may start on the next tile, whose first wgmmas
      // queue behind this tile's last ones.
      if (round + 1 < cluster_rounds) named_barrier_arrive(their_turn, 2 * kWarpgroupThreads);
      wgmma_wait_group<0>();
      release_stage(release.stage);
      release.advance();
      read.advance(k_tiles);  // the other warpgroup's next tile goes by
      release.advance(k_tiles);
      wgmma_fence_operands(top);
      wgmma_fence_operands(bottom);
      // C, while the other warpgroup multiplies: each warp its own 16 rows of each half, as 8-row boxes of 64, 64
      // and 48 or 56 columns.
      const TileCoord cluster_tile = order.at(position);
      const int row = (cluster_tile.m * kClusterM + rank_m) * kBlockM + warp * 16;
      const int col = cluster_tile.n * kTileN;
      constexpr int kLast = Tile::kLastBoxCols;
      bf16(&slots)[kCSlotsPerWarp][8 * kBoxCols] = smem.c[consumer][warp];
      store_warp_box<0, 0, kBoxCols>(top, slots[0], &map_c, col, row);
      store_warp_box<0, 8, kBoxCols>(top, slots[1], &map_c, col + kBoxCols, row);
      store_warp_box<0, 16, kLast>(top, slots[0], &map_c_last, col + 2 * kBoxCols, row);
      store_warp_box<1, 0, kBoxCols>(top, slots[1], &map_c, col, row + 8);
      store_warp_box<1, 8, kBoxCols>(top, slots[0], &map_c, col + kBoxCols, row + 8);
      store_warp_box<1, 16, kLast>(top, slots[1], &map_c_last, col + 2 * kBoxCols, row + 8);
      store_warp_box<0, 0, kBoxCols>(bottom, slots[0], &map_c, col, row + kWgmmaM);
      store_warp_box<0, 8, kBoxCols>(bottom, slots[1], &map_c, col + kBoxCols, row + kWgmmaM);
      store_warp_box<0, 16, kLast>(bottom, slots[0], &map_c_last, col + 2 * kBoxCols, row + kWgmmaM);
      store_warp_box<1, 0, kBoxCols>(bottom, slots[1], &map_c, col, row + kWgmmaM + 8);
      store_warp_box<1, 8, kBoxCols>(bottom, slots[0], &map_c, col + kBoxCols, row + kWgmmaM + 8);
      store_warp_box<1, 16, kLast>(bottom, slots[1], &map_c_last, col + 2 * kBoxCols, row + kWgmmaM + 8);
    }
    if (threadIdx.x % 32 == 0) tma_store_wait<0>();  // the slots must outlive the last stores' reads
  }
  cluster_sync();
#endif
}

// The ping-pong kernel's launch: one cluster per SM pair, as many as fit.
template <int kTileN>
GemmLaunch prepare_pingpong(const GemmProblem& problem, int clusters) {
  using Tile = PingPongTile<kTileN>;
  const CUtensorMap map_a =
      make_tensor_map_2d(problem.a, problem.m, problem.k, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b_first_slice = make_tensor_map_2d(problem.b, problem.n, problem.k, Tile::kFirstSliceRowsB,
                                                           kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b_second_slice = make_tensor_map_2d(problem.b, problem.n, problem.k, Tile::kSecondSliceRowsB,
                                                            kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_c =
      make_tensor_map_2d(problem.c, problem.m, problem.n, 8, kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_c_last =
      make_tensor_map_2d(problem.c, problem.m, problem.n, 8, Tile::kLastBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);
  constexpr auto kernel = hilbert_pingpong_kernel<kTileN>;
  constexpr int shared_bytes = kPingPongSharedBytes<kTileN>;
  const int grid = clusters * kClusterSize;
  // Each round's tiles handed out GPC by GPC, each GPC's clusters on one row, from probes of where this launch's
  // clusters run; a table in device memory that the launch keeps alive.
  const GroupedTileOrder order = pingpong_order<kTileN>(problem);
  const std::vector<int> gpc_of_cluster = probe_cluster_gpcs(grid, kThreads, shared_bytes, kClusterSize);
  const std::vector<int> table = gpc_grouped_rounds(tiles_in_order(order), gpc_of_cluster, GpcDealing::kRowPerGpc);
  const auto round_positions = std::make_shared<DeviceBuffer<int>>(table.size(), "the ping-pong kernel's rounds");
  CUDA_CHECK(cudaMemcpy(round_positions->get(), table.data(), table.size() * sizeof(int), cudaMemcpyHostToDevice));
  const int rounds = static_cast<int>(table.size()) / clusters;
  // The GPCs' round barriers: a counter per GPC, never cleared; each launch's base follows from the launches before
  // it (common/round_barrier.h), so launches of one prepared problem must run one after another.
  const GpcGroups groups = gpc_groups(gpc_of_cluster, kClusterSize);
  const auto group_of_cluster = std::make_shared<DeviceBuffer<uint32_t>>(groups.group_of_cluster.size(), "the GPCs");
  const auto ctas_of_group = std::make_shared<DeviceBuffer<uint32_t>>(groups.ctas_of_group.size(), "the GPCs' CTAs");
  const auto counters = std::make_shared<DeviceBuffer<uint32_t>>(groups.ctas_of_group.size(), "the GPCs' counters");
  CUDA_CHECK(cudaMemcpy(group_of_cluster->get(), groups.group_of_cluster.data(),
                        groups.group_of_cluster.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(ctas_of_group->get(), groups.ctas_of_group.data(),
                        groups.ctas_of_group.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(counters->get(), 0, groups.ctas_of_group.size() * sizeof(uint32_t)));
  const int full_rounds = full_rounds_of(table, clusters);
  const auto launches = std::make_shared<uint32_t>(0);
  const auto enqueue = [=](cudaStream_t stream) {
    const GroupRoundBarriers gpc_barriers{counters->get(), group_of_cluster->get(), ctas_of_group->get(),
                                          (*launches)++, full_rounds};
    launch_with_cluster(kernel, grid, kThreads, shared_bytes, kClusterSize, stream, map_a, map_b_first_slice,
                        map_b_second_slice, map_c, map_c_last, problem,
                        static_cast<const int*>(round_positions->get()), rounds, gpc_barriers);
  };
  return {enqueue, reinterpret_cast<const void*>(kernel)};
}

// How many clusters of the ping-pong kernel are resident at once: the same for both widths (one CTA per SM).
int pingpong_resident_clusters() {
  CUDA_CHECK(cudaFuncSetAttribute(hilbert_pingpong_kernel<176>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kPingPongSharedBytes<176>));
  CUDA_CHECK(cudaFuncSetAttribute(hilbert_pingpong_kernel<184>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kPingPongSharedBytes<184>));
  return persistent_cluster_count(hilbert_pingpong_kernel<184>, kThreads, kPingPongSharedBytes<184>, kClusterSize,
                                  std::numeric_limits<int>::max());
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_hilbert(const GemmProblem& problem) {
  // The ping-pong kernel, in the tile width the cost model picks, where the model puts it ahead
  // (common/pingpong_choice.h; it needs at least 16 rounds, so every resident cluster has tiles), else the cooperative
  // one.
  static_assert(kPingPongWidthCount == 2 && pingpong_width(0) == 176 && pingpong_width(1) == 184,
                "the widths instantiated here");
  const int pingpong_clusters = pingpong_resident_clusters();
  const PingPongEstimate pingpong = estimate_pingpong(problem.m, problem.n, problem.k, pingpong_clusters);
  if (pingpong.pingpong)
    return pingpong.pingpong_width == 176 ? prepare_pingpong<176>(problem, pingpong_clusters)
                                          : prepare_pingpong<184>(problem, pingpong_clusters);

  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kSliceRowsA, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kSliceRowsB, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_c = make_tensor_map_2d(problem.c, problem.m, problem.n, kWgmmaM, kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);
  CUDA_CHECK(cudaFuncSetAttribute(hilbert_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  // The Hilbert order of the cluster tiles.
  const int cluster_tiles_m = ceil_div(ceil_div(problem.m, kBlockM), kClusterM);
  const int cluster_tiles_n = ceil_div(ceil_div(problem.n, kBlockN), kClusterN);
  if (cluster_tiles_m > 0xffff || cluster_tiles_n > 0xffff)  // the shape rule refuses these shapes first
    throw UsageError("kernel 9's tile table packs rows and columns in 16 bits each: at most 65535 cluster tiles a side");
  const std::vector<TileCoord> hilbert = hilbert_tile_order(cluster_tiles_m, cluster_tiles_n);
  const int cluster_tiles = static_cast<int>(hilbert.size());
  // The split of the last round, and when it splits, the workspace for the partial sums (per schedule slot,
  // a part per consumer warpgroup of each CTA) and the parts' flags. A flag is raised to the launch's epoch, a
  // number that grows with every launch (never 0, the flags' first value), so the flags need no clearing
  // between launches; launches of one prepared problem must not overlap (the runner's run in order on one stream).
  // Unsplit, the schedule keeps only the clusters its rounds need, and the grid is sized from it.
  const StreamKSchedule schedule = StreamKSchedule::make(
      cluster_tiles, ceil_div(problem.k, kBlockK),
      persistent_cluster_count(hilbert_kernel, kThreads, kSharedBytes, kClusterSize, cluster_tiles));
  const int clusters = schedule.workers;
  const int grid = clusters * kClusterSize;
  // The tile table in device memory, which the launch keeps alive: the Hilbert order with each full round's tiles
  // handed out GPC by GPC, as the ping-pong kernel's (common/gpc_rounds.h; worker w takes position r × workers + w
  // of round r). The split tiles after the full rounds stay as they are.
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
  // from the launches before it (common/round_barrier.h).
  const auto round_counter = std::make_shared<DeviceBuffer<uint32_t>>(1, "the round barrier's counter");
  CUDA_CHECK(cudaMemset(round_counter->get(), 0, sizeof(uint32_t)));
  const auto launches = std::make_shared<uint32_t>(0);
  const auto enqueue = [=](cudaStream_t stream) {
    if (++*epoch == 0) *epoch = 1;
    const RoundBarrier round_barrier{
        round_counter->get(),
        RoundBarrier::base_of_launch((*launches)++, static_cast<uint32_t>(grid), schedule.full_rounds()),
        static_cast<uint32_t>(grid)};
    launch_with_cluster(hilbert_kernel, grid, kThreads, kSharedBytes, kClusterSize, stream, map_a, map_b, map_c,
                        problem, static_cast<const uint32_t*>(tile_order->get()), schedule, partials->get(),
                        partial_flags->get(), *epoch, round_barrier);
  };
  return {enqueue, reinterpret_cast<const void*>(hilbert_kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// sass: sm_90a hilbert_kernel UTMASTG\.2D STSM\.16\.M88\.4 UTMALDG\.2D\.MULTICAST UCGABAR_ARV UCGABAR_WAIT HGMMA\.64x256x16\.F32\.BF16 UTMALDG\.2D\s SYNCS\.ARRIVE\.TRANS64 SYNCS\.PHASECHK\.TRANS64 USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8 STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU REDG\.E\.ADD\.STRONG\.GPU
// sass: sm_90a hilbert_pingpong_kernelILi176E HGMMA\.64x176x16\.F32\.BF16 UTMALDG\.2D\.MULTICAST UTMALDG\.2D\s UTMASTG\.2D STSM\.16\.M88\.4 STSM\.16\.M88\.2 BAR\.ARV USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8 LDG\.E\.STRONG\.GPU REDG\.E\.ADD\.STRONG\.GPU
// sass: sm_90a hilbert_pingpong_kernelILi184E HGMMA\.64x184x16\.F32\.BF16 UTMALDG\.2D\.MULTICAST UTMALDG\.2D\s UTMASTG\.2D STSM\.16\.M88\.4 STSM\.16\.M88\.2 STSM\.16\.M88\s BAR\.ARV USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8 LDG\.E\.STRONG\.GPU REDG\.E\.ADD\.STRONG\.GPU
