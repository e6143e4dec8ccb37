// Kernel 14 — ping-pong: the two consumer warpgroups take whole (narrower) tiles in turn.
//
// In kernels 08-13 both consumer warpgroups work on one 128 × 256 tile and end it together, so the tensor pipe idles at
// every tile boundary while they finish C and wait for the next tile's first stage: about 3.3 k cycles a tile beyond
// its multiplies on an H100 (profiled on the old kernel 09's cooperative kernel, today's 13), 5 % of a tile with K =
// 4096. Kernel 12 hides half of C's store; the rest of the boundary stays. Here each consumer warpgroup computes a
// whole tile, two m64 halves of 128 rows, while the other stores its last one, and the two take the cluster's tiles in
// turn, so one warpgroup's epilogue runs under the other's main loop and the pipe does not stop at a tile boundary.
//
// A warpgroup now holds a whole tile's accumulators, so the tile is narrower: 128 × 176 (cuBLAS's tile for the LLM
// shape), 128 × 184 (184 accumulators a thread still fit in 232 registers), 128 × 160 or 128 × 144 (cuBLAS's where the
// wider ones leave rounds of part-empty tiles), whichever fills the rounds better on this shape, each weighed by what
// its k block measured (common/pingpong_choice.h: on 4096 × 14336 × 4096, 19 rounds of 184 instead of 20 of 176; on
// 1024 × 4672 × 4544, 2 rounds of 144, 33 tiles across, instead of 2 of 176, 27 across).
//
// The producer loads the tiles back to back into one ring; a warpgroup starts on its tile's stages only once the
// other has issued its last k block (a named barrier passes the turn: a parity wait is unambiguous only within one
// lap of the ring), so its first wgmmas queue behind the other's last. Each warp stores its own rows of C (8-row boxes
// through two 1 KB slots of its own, store_warp_box below) and meets no other warp: staged by the
// whole warpgroup between barriers, as in kernel 13, C's writes cost this kernel twice as much.
//
// Where the token count M is ragged (129-1151 tokens, not a multiple of 128), 128-row tiles leave the last tile row
// mostly empty (700 tokens compute 768 rows in clusters of two). There, as kernel 15 does (its item 7), this kernel
// may compute Cᵀ = B·Aᵀ, the N × M × K problem with A and B swapped, where M lies across the tiles' width and one of
// its four widths covers it with less waste (700 in four tiles of 176): its plan takes Cᵀ where C as given needs 10 %
// more cycles (common/pingpong_choice.h, plan_pingpong), and each consumer warpgroup then stores a half of its tile
// into C transposed (store_half_transposed).
//
// What it keeps of kernels 10-13, and what it leaves: odd rounds walk K downwards; each round's tiles are dealt GPC
// by GPC, each GPC's clusters on one row of the round, and the producers of one GPC meet at every round (a round
// barrier per GPC); the tiles are in kernels 07-08's grouped order (bands of 8 cluster rows), which the GPC deal
// makes as good as the Hilbert order here; the last round is not split along K, so this kernel pays whole rounds and
// is fast only where its rounds come out nearly whole. Kernel 16 chooses between it and kernel 13 per shape.
//
// Shapes: any M; N and K multiples of 8.

#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/arch.h"
#include "common/cluster.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/gemm_problem.h"
#include "common/gpc_probe.h"
#include "common/gpc_rounds.h"
#include "common/mbarrier.h"
#include "common/named_barrier.h"
#include "common/pingpong_choice.h"
#include "common/pipeline_state.h"
#include "common/round_barrier.h"
#include "common/setmaxnreg.h"
#include "common/shared_storage.h"
#include "common/tensor_map.h"
#include "common/tile_scheduler.h"
#include "common/tma.h"
#include "common/wgmma.h"
#include "common/wgmma_epilogue.h"

namespace gemm {
namespace {

// ---- tile parameters --------------------------------------------------------------------------------
constexpr int kBlockM = 128;
constexpr int kBlockK = 64;
constexpr int kConsumers = 2;        // consumer warpgroups, each computing whole 128 × kTileN tiles
constexpr int kWarpgroupThreads = 128;
constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
constexpr int kWgmmaM = 64;
constexpr int kWgmmaK = 16;
constexpr int kProducerRegisters = 40;   // TMA issue needs a few dozen
constexpr int kConsumerRegisters = 232;  // 2 × 92 accumulators + addressing; 128 × 40 + 256 × 232 = 168 × 384
static_assert(setmaxnreg_budget_fits(kProducerRegisters, kConsumers, kConsumerRegisters),
              "setmaxnreg hands out only the registers the CTA was launched with (common/setmaxnreg.h)");
constexpr int kClusterM = 2;    // CTAs of a cluster along M: they share (multicast) B
constexpr int kClusterN = 1;
constexpr int kClusterSize = kClusterM * kClusterN;
constexpr int kStageReaders = kClusterM + kClusterN - 1;  // the CTAs whose loads write into a CTA's stages
constexpr int kTileBytesA = kBlockM * kBlockK * sizeof(bf16);
constexpr int kRowBytes = kBlockK * sizeof(bf16);
constexpr int kBoxCols = 64;  // C goes out in boxes of 8 rows × 64 columns (128 bytes, 128B-swizzled) and one narrower

// The tile is 128 × kTileN, kTileN = 144, 160, 176 or 184, whichever fills the rounds better
// (common/pingpong_choice.h). The LLM shape's 14336 columns are 81.5 tiles of 176 and 77.9 of 184: 20 rounds of 66
// cluster tiles against 19 rounds of tiles 4.5 % wider, 0.7 % fewer cycles.
constexpr int kPingPongStages = 5;     // 5 × 34-39 KB (144-184) = 170-195 KB, and 16 KB of C slots
constexpr int kPingPongGroupRows = 8;  // kernels 07-08's bands of 8 cluster rows
constexpr int kWarpsPerWarpgroup = 4;
constexpr int kCSlotsPerWarp = 2;  // a warp stages a box in one while the other's store reads the other
static_assert(kClusterN == 1 && kClusterM == 2, "the ping-pong's B slices are written for clusters of 2 along M");

template <int kTileN>
struct PingPongTile {
  static constexpr int kAccumulators = kTileN / 2;  // per thread for one 64-row half; both halves fit in 232 registers
  static constexpr int kTileBytesB = kTileN * kBlockK * sizeof(bf16);
  // Each CTA of the cluster loads a slice of B and multicasts it, in whole 8-row swizzle atoms: 72 + 72 rows of 144,
  // 80 + 80 of 160, 88 + 88 of 176, 96 + 88 of 184 (one tensor map per slice height).
  static constexpr int kFirstSliceRowsB = (kTileN / 2 + 7) / 8 * 8;
  static constexpr int kSecondSliceRowsB = kTileN - kFirstSliceRowsB;
  static constexpr int kLastBoxCols = kTileN - 2 * kBoxCols;  // 144 = 64 + 64 + 16, ..., 184 = 64 + 64 + 56
  static_assert(kTileN % 8 == 0 && kSecondSliceRowsB % 8 == 0 && kLastBoxCols > 0 && kLastBoxCols <= kBoxCols);
};

// One warp's part of C, staged and stored by the warp alone: rows 8 · kGroup .. + 7 of the
// warp's 16 rows of an m64nN accumulator, its 8-column chunks kFirstChunk .. + kColumns / 8 - 1, as one box of 8 rows
// × kColumns (at most 64: 128 bytes, the 128-byte swizzle's span) in the warp's 1 KB `slot`. The slot's rows are 128
// bytes apart and chunk c of row r sits at swizzled_chunk_offset(r, c), as the TMA store of a box with the 128-byte
// swizzle expects, whatever kColumns (a narrower box keeps the span as its row pitch in shared memory: the driver's
// documentation does not say so; this kernel's GPU tests of its 48- and 56-column boxes do). Lane 0 first waits until
// the box stored from this slot two boxes ago has been read (each warp alternates between two slots), and at the end
// sends the box to columns col .. and rows row .. row + 7 of C. No barrier with the other warps: each writes and sends
// only its own rows.
template <int kGroup, int kFirstChunk, int kColumns, int kAccumulators>
__device__ __forceinline__ void store_warp_box(const float (&acc)[kAccumulators], bf16 (&slot)[8 * 64],
                                               const CUtensorMap* map_c, int col, int row) {
  static_assert(kColumns % 8 == 0 && kColumns <= 64, "whole 8-column chunks, one swizzle span at most");
  const int lane = threadIdx.x % 32, matrix_row = lane % 8, matrix = lane / 8;
  if (lane == 0) tma_store_wait_read<1>();  // the slot's previous box has been read (one box may still be reading)
  __syncwarp();
  const uint32_t base = smem_address(slot);
  const auto packed = [&](int chunk) {  // row 8 · kGroup + lane / 4 of the warp's 16, this lane's two columns of chunk
    return pack_bf16x2(acc[4 * chunk + 2 * kGroup], acc[4 * chunk + 2 * kGroup + 1]);
  };
#pragma unroll
  for (int quad = 0; quad < kColumns / 32; ++quad)  // four chunks per stmatrix.x4
    stmatrix_x4(base + swizzled_chunk_offset(matrix_row, 4 * quad + matrix), packed(kFirstChunk + 4 * quad),
                packed(kFirstChunk + 4 * quad + 1), packed(kFirstChunk + 4 * quad + 2),
                packed(kFirstChunk + 4 * quad + 3));
  constexpr int kPair = kColumns / 32 * 4;  // the chunks left after the quads: a pair, a single, or both
  if constexpr (kColumns % 32 >= 16)        // lanes 16-31's addresses are not used
    stmatrix_x2(base + swizzled_chunk_offset(matrix_row, kPair + matrix % 2), packed(kFirstChunk + kPair),
                packed(kFirstChunk + kPair + 1));
  if constexpr (kColumns % 16 != 0) {  // the last chunk: lanes 0-7's addresses
    constexpr int kSingle = kColumns / 8 - 1;
    stmatrix_x1(base + swizzled_chunk_offset(matrix_row, kSingle), packed(kFirstChunk + kSingle));
  }
  fence_proxy_async_shared();  // the stmatrix writes must be visible to the TMA store
  __syncwarp();
  if (lane == 0) {
    tma_store_2d(map_c, slot, col, row);
    tma_store_commit_group();
  }
}

// Where the kernel computes Cᵀ (kTransposed), one 64-row half of a tile goes into C transposed, staged by the whole
// consumer warpgroup as kernel 15 stages its tiles of Cᵀ (common/wgmma_epilogue.h): each 64 of the tile's columns,
// written with stmatrix .trans into the warpgroup's 64 × 64 box, are 64 rows of C, each row the half's 64 rows (128
// bytes); the last kTileN - 128 columns go out in a box of that many rows (map_c_last). Boxes each warp staged alone,
// as C's are, would hold 8 rows of the half: 16 bytes of each row of C, eight times the TMA's write requests. Built
// that way first, kernel 14 measured 4-14 % slower transposed than as given on five shapes of short K where its model
// put Cᵀ 15-33 % ahead (docs/log/15_few_tiles.md, section 28; that the requests were the cause is an inference).
// `row`, `col`: the half's place in Cᵀ.
template <int kTileN, int kAccumulators>
__device__ __forceinline__ void store_half_transposed(const float (&acc)[kAccumulators], bf16 (&box)[1][64 * 64],
                                                      const CUtensorMap* map_c, const CUtensorMap* map_c_last, int row,
                                                      int col, bool store_leader, uint32_t barrier) {
  constexpr int kLastChunks = PingPongTile<kTileN>::kLastBoxCols / 8;  // 2, 4, 6 or 7
  store_staged_round<0, true>(map_c, box, row, col, store_leader, barrier,
                              [&] { stage_accumulators_m64<true>(acc, box, 0); });
  store_staged_round<0, true>(map_c, box, row, col + kBoxCols, store_leader, barrier,
                              [&] { stage_accumulators_m64<true>(acc, box, 8); });
  store_staged_round<0, true>(map_c_last, box, row, col + 2 * kBoxCols, store_leader, barrier,
                              [&] { stage_accumulators_m64<true, kLastChunks>(acc, box, 16); });
}

template <int kTileN>
struct PingPongSharedStorage {
  alignas(1024) bf16 a[kPingPongStages][kBlockM * kBlockK];
  alignas(1024) bf16 b[kPingPongStages][kTileN * kBlockK];
  // A consumer warpgroup's staging of C: each warp's two 1 KB slots of 8 × 64 boxes (for Cᵀ: one 64 × 64 box).
  alignas(1024) bf16 c[kConsumers][kWarpsPerWarpgroup][kCSlotsPerWarp][8 * kBoxCols];
  uint64_t full[kPingPongStages];
  uint64_t empty[kPingPongStages];
};
template <int kTileN>
constexpr int kPingPongSharedBytes = shared_storage_bytes<PingPongSharedStorage<kTileN>>();
static_assert(kPingPongSharedBytes<184> <= 227 * 1024, "sm_90 gives a CTA at most 227 KB of shared memory");

// Its cluster tiles in kernels 07-08's grouped order, bands of kPingPongGroupRows cluster rows; a launch's round j is
// the positions [j × clusters, (j + 1) × clusters) of it.
template <int kTileN>
__host__ __device__ GroupedTileOrder pingpong_order(const GemmProblem& problem) {
  return {ceil_div(ceil_div(problem.m, kBlockM), kClusterM), ceil_div(problem.n, kTileN), kPingPongGroupRows};
}

// kTransposed: `problem` is Cᵀ's, N × M × K with A and B swapped (plan_pingpong), and C is stored transposed.
template <int kTileN, bool kTransposed>
__global__ void __launch_bounds__(kThreads, 1)
    pingpong_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b_first_slice,
                    const __grid_constant__ CUtensorMap map_b_second_slice, const __grid_constant__ CUtensorMap map_c,
                    const __grid_constant__ CUtensorMap map_c_last, GemmProblem problem, const int* round_positions,
                    int rounds, GroupRoundBarriers gpc_barriers) {
#if GEMM_SM90A_DEVICE_CODE
  using Tile = PingPongTile<kTileN>;
  PingPongSharedStorage<kTileN>& smem = shared_storage<PingPongSharedStorage<kTileN>>();
  const GroupedTileOrder order = pingpong_order<kTileN>(problem);
  const int k_blocks = ceil_div(problem.k, kBlockK);
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
      // The producers of this GPC's clusters meet at every round, as kernel 13's meet across the grid.
      const RoundBarrier gpc_barrier = gpc_barriers.of_cluster(cluster_index());
      for (int round = 0; round < cluster_rounds; ++round) {
        const TileCoord cluster_tile = order.at(position_of(round));
        const int row = (cluster_tile.m * kClusterM + rank_m) * kBlockM;
        const int col = cluster_tile.n * kTileN;
        // As in kernels 10-13, odd rounds walk K downwards and start on the k blocks the round before read last,
        // which the L2 still holds; warpgroup 0 computes the even rounds, warpgroup 1 the odd ones.
        const bool downwards = round % 2 == 1;
        gpc_barrier.wait_for_round(round);
        for (int iteration = 0; iteration < k_blocks; ++iteration) {
          const int k_block = downwards ? k_blocks - 1 - iteration : iteration;
          mbarrier_wait(&smem.empty[write.stage], write.phase ^ 1);
          mbarrier_arrive_expect_tx(&smem.full[write.stage], kTileBytesA + Tile::kTileBytesB);
          tma_load_2d(smem.a[write.stage], &map_a, &smem.full[write.stage], k_block * kBlockK, row);
          tma_load_2d_multicast(smem.b[write.stage] + rank_m * Tile::kFirstSliceRowsB * kBlockK,
                                rank_m == 0 ? &map_b_first_slice : &map_b_second_slice, &smem.full[write.stage],
                                k_block * kBlockK, col + rank_m * Tile::kFirstSliceRowsB, column_mask);
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
      read.advance(k_blocks);
      release.advance(k_blocks);
    }
    bool my_first_tile = true;
    for (int round = consumer; round < cluster_rounds; round += 2) {
      const int position = position_of(round);
      // Wait for the turn: the other warpgroup has issued every k block of the tile before, so this tile's stages
      // are the next lap of the ring and their parities mean what they say.
      if (consumer == 1 || !my_first_tile) named_barrier_sync(my_turn, 2 * kWarpgroupThreads);
      my_first_tile = false;
      for (int iteration = 0; iteration < k_blocks; ++iteration) {  // the k blocks in the producer's order
        mbarrier_wait(&smem.full[read.stage], read.phase);
        wgmma_fence();
        const uint32_t a_base = smem_address(smem.a[read.stage]);
        const uint32_t b_base = smem_address(smem.b[read.stage]);
#pragma unroll
        for (int k_step = 0; k_step < kBlockK / kWgmmaK; ++k_step) {
          const uint32_t k_offset = k_step * kWgmmaK * sizeof(bf16);
          const uint64_t b_descriptor = wgmma_descriptor_k_major_128b(b_base + k_offset);
          wgmma_m64nNk16<kTileN>(top, wgmma_descriptor_k_major_128b(a_base + k_offset), b_descriptor,
                                 iteration > 0 || k_step > 0);
          wgmma_m64nNk16<kTileN>(bottom, wgmma_descriptor_k_major_128b(a_base + kWgmmaM * kRowBytes + k_offset),
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
      read.advance(k_blocks);  // the other warpgroup's next tile goes by
      release.advance(k_blocks);
      wgmma_fence_operands(top);
      wgmma_fence_operands(bottom);
      // C, while the other warpgroup multiplies: each warp its own 16 rows of each half, as 8-row boxes of 64, 64
      // and 48 or 56 columns; or, for Cᵀ, each half by the whole warpgroup.
      const TileCoord cluster_tile = order.at(position);
      if constexpr (kTransposed) {
        const int row = (cluster_tile.m * kClusterM + rank_m) * kBlockM;
        const int col = cluster_tile.n * kTileN;
        const bool store_leader = threadIdx.x % kWarpgroupThreads == 0;
        const uint32_t staging = 3 + consumer;  // the warpgroup's named barrier for its box (1 and 2 pass the turn)
        static_assert(sizeof(smem.c[consumer]) == 64 * 64 * sizeof(bf16), "the warps' slots make one 64 × 64 box");
        bf16(&box)[1][64 * 64] = *reinterpret_cast<bf16(*)[1][64 * 64]>(&smem.c[consumer]);
        store_half_transposed<kTileN>(top, box, &map_c, &map_c_last, row, col, store_leader, staging);
        store_half_transposed<kTileN>(bottom, box, &map_c, &map_c_last, row + kWgmmaM, col, store_leader, staging);
      } else {
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
    }
    if (threadIdx.x % 32 == 0) tma_store_wait<0>();  // the slots must outlive the last stores' reads
  }
  cluster_sync();
#endif
}

// The launch for one tile width: one cluster per SM pair, as many as fit. With kTransposed `problem` is Cᵀ's, N × M × K
// with A and B swapped, and C's tensor maps are C's own (M rows of N), in boxes of 64 rows (the tile's columns) and the
// last box's rows, each of 64 columns (a half's rows). `operand_fill`: the L2 promotion of A's and B's maps.
template <int kTileN, bool kTransposed>
GemmLaunch prepare_pingpong_width(const GemmProblem& problem, int clusters, CUtensorMapL2promotion operand_fill) {
  using Tile = PingPongTile<kTileN>;
  const CUtensorMap map_a =
      make_tensor_map_2d(problem.a, problem.m, problem.k, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B, operand_fill);
  const CUtensorMap map_b_first_slice = make_tensor_map_2d(problem.b, problem.n, problem.k, Tile::kFirstSliceRowsB,
                                                           kBlockK, CU_TENSOR_MAP_SWIZZLE_128B, operand_fill);
  const CUtensorMap map_b_second_slice = make_tensor_map_2d(problem.b, problem.n, problem.k, Tile::kSecondSliceRowsB,
                                                            kBlockK, CU_TENSOR_MAP_SWIZZLE_128B, operand_fill);
  const CUtensorMap map_c =
      kTransposed
          ? make_tensor_map_2d(problem.c, problem.n, problem.m, kBoxCols, kWgmmaM, CU_TENSOR_MAP_SWIZZLE_128B)
          : make_tensor_map_2d(problem.c, problem.m, problem.n, 8, kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_c_last =
      kTransposed
          ? make_tensor_map_2d(problem.c, problem.n, problem.m, Tile::kLastBoxCols, kWgmmaM, CU_TENSOR_MAP_SWIZZLE_128B)
          : make_tensor_map_2d(problem.c, problem.m, problem.n, 8, Tile::kLastBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);
  constexpr auto kernel = pingpong_kernel<kTileN, kTransposed>;
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

// The kernel is instantiated once for each width common/pingpong_choice.h lists, pingpong_width(0), (1), ..., for C
// and for Cᵀ; each instance may take its width's shared memory.
template <int kTileN>
void allow_width_shared_bytes() {
  for (const void* kernel : {reinterpret_cast<const void*>(pingpong_kernel<kTileN, false>),
                             reinterpret_cast<const void*>(pingpong_kernel<kTileN, true>)})
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kPingPongSharedBytes<kTileN>));
}
template <int... kIndex>
void allow_shared_bytes(std::integer_sequence<int, kIndex...>) {
  (allow_width_shared_bytes<pingpong_width(kIndex)>(), ...);
}

template <bool kTransposed, int kIndex = 0>
GemmLaunch prepare_listed_width(const GemmProblem& problem, int clusters, int width,
                                CUtensorMapL2promotion operand_fill) {
  if constexpr (kIndex == kPingPongWidthCount) {
    throw std::logic_error("the ping-pong kernel has no instance of width " + std::to_string(width));
  } else {
    if (width == pingpong_width(kIndex))
      return prepare_pingpong_width<pingpong_width(kIndex), kTransposed>(problem, clusters, operand_fill);
    return prepare_listed_width<kTransposed, kIndex + 1>(problem, clusters, width, operand_fill);
  }
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
// How many clusters of this kernel are resident at once: the same for every width (one CTA per SM, each width's
// shared memory under the SM's; kernel 16 asks it too, for its choice between this kernel and kernel 15).
int pingpong_resident_clusters() {
  allow_shared_bytes(std::make_integer_sequence<int, kPingPongWidthCount>{});
  constexpr int kWidest = pingpong_width(kPingPongWidthCount - 1);
  return persistent_cluster_count(pingpong_kernel<kWidest, false>, kThreads, kPingPongSharedBytes<kWidest>,
                                  kClusterSize, std::numeric_limits<int>::max());
}

// The launch of a planned width and orientation: prepare_pingpong's, or the one kernel 16's estimate made.
// `fill_bytes`: what the L2 fetches when a load of A or B misses. This chapter asks for 256; kernel 16 asks for 128
// where K % 64 != 0, as kernel 15 does (operand_fill_bytes, common/few_tiles.h).
GemmLaunch prepare_pingpong_plan(const GemmProblem& problem, int width, bool transposed, int fill_bytes) {
  const int clusters = pingpong_resident_clusters();
  const CUtensorMapL2promotion operand_fill = l2_promotion(fill_bytes);
  if (transposed)
    return prepare_listed_width<true>({problem.n, problem.m, problem.k, problem.b, problem.a, problem.c}, clusters,
                                      width, operand_fill);
  return prepare_listed_width<false>(problem, clusters, width, operand_fill);
}

GemmLaunch prepare_pingpong(const GemmProblem& problem) {
  // The tile width whose whole rounds need the fewest modelled cycles, for C or, where the token count is ragged and
  // that needs kTransposedMargin fewer, for Cᵀ: the N × M × K problem of B and A (common/pingpong_choice.h).
  const PingPongPlan plan = plan_pingpong(problem.m, problem.n, problem.k, pingpong_resident_clusters());
  return prepare_pingpong_plan(problem, plan.widths.width, plan.transposed, kOnLinesFillBytes);
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// sass: sm_90a pingpong_kernelILi144ELb0E HGMMA\.64x144x16\.F32\.BF16 UTMALDG\.2D\.MULTICAST UTMALDG\.2D\s UTMASTG\.2D STSM\.16\.M88\.4 STSM\.16\.M88\.2 BAR\.ARV USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8 LDG\.E\.STRONG\.GPU REDG\.E\.ADD\.STRONG\.GPU
// sass: sm_90a pingpong_kernelILi160ELb0E HGMMA\.64x160x16\.F32\.BF16 UTMALDG\.2D\.MULTICAST UTMALDG\.2D\s UTMASTG\.2D STSM\.16\.M88\.4 BAR\.ARV USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8 LDG\.E\.STRONG\.GPU REDG\.E\.ADD\.STRONG\.GPU
// sass: sm_90a pingpong_kernelILi176ELb0E HGMMA\.64x176x16\.F32\.BF16 UTMALDG\.2D\.MULTICAST UTMALDG\.2D\s UTMASTG\.2D STSM\.16\.M88\.4 STSM\.16\.M88\.2 BAR\.ARV USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8 LDG\.E\.STRONG\.GPU REDG\.E\.ADD\.STRONG\.GPU
// sass: sm_90a pingpong_kernelILi184ELb0E HGMMA\.64x184x16\.F32\.BF16 UTMALDG\.2D\.MULTICAST UTMALDG\.2D\s UTMASTG\.2D STSM\.16\.M88\.4 STSM\.16\.M88\.2 STSM\.16\.M88\s BAR\.ARV USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8 LDG\.E\.STRONG\.GPU REDG\.E\.ADD\.STRONG\.GPU
// Where it computes Cᵀ (kTransposed), each consumer warpgroup stages a half's boxes of C with stmatrix .trans (and an
// x2 for the odd last 8 columns of 184).
// sass: sm_90a pingpong_kernelILi144ELb1E HGMMA\.64x144x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.MT88\.4 UTMALDG\.2D\.MULTICAST BAR\.SYNC BAR\.ARV USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8
// sass: sm_90a pingpong_kernelILi160ELb1E HGMMA\.64x160x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.MT88\.4 UTMALDG\.2D\.MULTICAST BAR\.SYNC BAR\.ARV USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8
// sass: sm_90a pingpong_kernelILi176ELb1E HGMMA\.64x176x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.MT88\.4 UTMALDG\.2D\.MULTICAST BAR\.SYNC BAR\.ARV USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8
// sass: sm_90a pingpong_kernelILi184ELb1E HGMMA\.64x184x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.MT88\.4 STSM\.16\.MT88\.2 UTMALDG\.2D\.MULTICAST BAR\.SYNC BAR\.ARV USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8
