// Kernel 15 — few tiles: narrower tiles, or splits along K, where kernel 13's tiles make fewer than two rounds.
//
// Kernel 13 launches one cluster per tile at most: when a shape has fewer cluster tiles than the GPU has clusters
// (a few hundred tokens through a model's layer: 512 × 4096 × 14336 is 64 tiles of 128 × 256, 32 cluster tiles, on 66
// clusters), the clusters without a tile are not launched and half the GPU idles; with a round and a half, the last
// half-round is split. A plan per shape (common/few_tiles.h, plan_few_tiles, host-tested) keeps every SM busy where
// 128 × 256 tiles make fewer than two rounds:
//
// 1. Narrower tiles: 128 × 192, 128 × 128 (two consumer warpgroups of 64 rows, as kernel 13), 64 × 192 and 64 × 128
//    (one consumer warpgroup), where the plan's model puts them ahead; and the fitted widths 128 × 176, 160 and 144,
//    only as one round of whole tiles on more than half the clusters, where 128, 192 and 256 columns leave many idle
//    (640 × 3584 × 18944: 25 tiles of 144 across, 65 cluster tiles); and so 128 × 96, as many tiles as 64 × 192 on
//    two consumer warpgroups instead of one (256 × 6144 × 4096: 2 × 64 tiles), in 2 × 1 clusters with no CTA wholly
//    below M. Where the plan's one round of whole tiles still leaves clusters idle, 64-row fitted widths, 64 × 80, 96
//    or 112 in 2 × 1 clusters, busy more of them (128 × 4608 × 3584: 58 cluster tiles of 64 × 80 for 36 of 64 × 128).
//    Where one round of whole 128 × 256 tiles leaves clusters idle, from six tile rows, 128 × 208, 224 or 240 tiles
//    (two wgmmas a k step) busy more of them (1500 × 2304 × 2048: 66 cluster tiles of 128 × 224 for 54 of 128 × 256).
//    Where the plan splits along K and M has 1024 tokens or more, 128 × 320 tiles (two m64n160 wgmmas a k step) in
//    up to two whole rounds replace it (1024 × 10240 × 8192: two rounds of 128 cluster tiles, where 128 × 256 makes
//    two and splits the last 28 of 160). The tile is a template parameter (Tiling): the wgmma's N is its width, the
//    stages as many as fit in 200 KB; a fitted width's columns past its last 64-column store box go from the
//    registers straight to C. cuBLAS runs such tiles on such shapes.
// 2. All resident clusters are launched, and when the tiles are fewer than the clusters and a split pays, every tile is
//    split along K (common/stream_k.h): over all of them (make_few_tiles: each cluster gets the same number of k
//    blocks, the tail of one tile and the head of the next) or, where the tiles are at most half the clusters, into
//    equal shares of one tile each (make_even_split). A tile's owner (the cluster with its first k block) adds the
//    others' partial sums, through the L2, before it writes C; in an even split of three shares or more, each share
//    instead adds and stores one slice of the tile's columns. Kernel 11 split only the last round; here the last round
//    is the only one. A split costs a second tile boundary and a partial's round trip through the L2, and an owner adds
//    its tile's partials one after another, so a cost model picks how many clusters share the work, and leaves the
//    tiles whole where no split pays (2048³: 64 cluster tiles on 66 clusters). A split over all of them reads from
//    DRAM what its clusters share (they sit at different places along K, so none finds the others' loads in the L2):
//    the model weighs it at that DRAM time too, and leaves the tiles whole where they come out well ahead of it (few
//    columns and a long K: 1032 × 1872 × 20928).
// 3. The cluster's two CTAs lie along M (sharing B, as kernel 13) or along N (sharing A): 1 × 2 where that computes
//    fewer tiles outside C and is no slower; at 128 tokens a 2 × 1 cluster of 128-row tiles would have its second CTA
//    multiply only the zeros TMA fills in below row M. Kernel 13 deals each round's tiles to the clusters GPC by GPC,
//    one row to a GPC, so that its clusters' requests for A (which each CTA of a 2 × 1 cluster loads alone) meet in the
//    L2; in 1 × 2 clusters A is multicast and B is what each CTA loads alone, so there a GPC is dealt a column (on an
//    H100, 0.90 of the time of the deal by row over 24 fresh shapes in 1 × 2 clusters, where 2 × 1 clusters dealt by
//    column took 1.08 of it: docs/log/15_few_tiles.md, section 63). Where K is not a multiple of 64, the rows of A and
//    B start off the L2's 128-byte lines and the TMA requests each k block's rows in two pieces: there the plan also
//    costs 2 × 2 clusters, in which each CTA loads half its A and half its B for its cluster row and column (a third
//    fewer requests), over the fewer SMs that clusters of four occupy; and A's and B's tensor maps ask the L2 for
//    128-byte fills instead of 256, since a 256-byte fill of each piece brings in bytes the row does not use.
//
// 4. Where the token count M is ragged (129-1151 tokens, not a multiple of 128), the plan also costs Cᵀ = B·Aᵀ, the
//    N × M × K problem with the operands swapped, and takes it where its model puts it 10 % ahead: M then lies across
//    the tiles' width instead of leaving the last row of 128-row tiles mostly empty. The kernel computes that problem
//    as any other and stages each tile transposed (stmatrix .trans), so that its boxes go into C at swapped
//    coordinates; a tile added by slices stores its elements one by one into C's rows.
//
// 5. A 64-row tile's lone consumer warpgroup waits for each stage and releases it without a branch in the k-block loop
//    (the helpers above the kernel): kernel 13's loop, with its branches, slows one warpgroup's wgmmas where two
//    consumer warpgroups hide it.
// 6. The kernel's two ends are CUTLASS's warp-specialized kernels': the first cluster barrier's arrival is relaxed (the
//    barriers' init fence is all it must publish), and at the end the producer waits until every stage it filled has
//    been released by every CTA that reads it, where kernel 13 ends with a cluster barrier over all threads. In a
//    launch of one round both barriers are on the critical path: together 1.1-1.6 µs of it on an H100.
//
// Where 128 × 256 tiles make two rounds or more: 128 × 256 tiles and kernel 13's schedule, unchanged, but that up to
// four rounds 128 × 192 or 128 × 128 tiles in whole rounds replace a split last round where the model puts them 6 %
// ahead. Everything else is kernel 13's.
//
// Shapes: any M and N up to kTileTableMaxExtent; N and K multiples of 8.

#include <climits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/arch.h"
#include "common/cluster.h"
#include "common/cuda_check.h"
#include "common/few_tiles.h"
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
constexpr int kBlockK = 64;
constexpr int kWarpgroupThreads = 128;
constexpr int kWgmmaM = 64;
constexpr int kWgmmaK = 16;
constexpr int kProducerRegisters = 40;   // TMA issue needs a few dozen
constexpr int kConsumerRegisters = 232;  // ≤ 128 accumulators, 32 packed, addressing; 128 × 40 + 256 × 232 = 168 × 384
static_assert(setmaxnreg_budget_fits(kProducerRegisters, 2, kConsumerRegisters),
              "setmaxnreg hands out only the registers the CTA was launched with (common/setmaxnreg.h)");
constexpr int kRowBytes = kBlockK * sizeof(bf16);
constexpr int kBoxCols = 64;  // a store box: 64 columns = 128 bytes, the widest box a 128B-swizzled TMA takes

// What the launcher picks per shape (plan_few_tiles, common/few_tiles.h): the tile's rows kBlockM, 128 (kernel 13's:
// two consumer warpgroups of 64 rows) or 64 (one consumer warpgroup), its width kBlockN, 256 (kernel 13's), 192 or 128
// (or, with 128 rows, a fitted width: 240, 224, 208, 176, 160, 144 or 96; with 64, 80, 96 or 112; or 320),
// and a cluster of kClusterM × kClusterN CTAs, 2 × 1 (along M, they share and multicast B), 1 × 2 (along N, they
// share A) or 2 × 2 (both); kTransposed where the kernel computes Cᵀ = B·Aᵀ and stores it into C.
template <int kBlockM_, int kBlockN_, int kClusterM_, int kClusterN_, bool kTransposed_ = false>
struct Tiling {
  static constexpr int kBlockM = kBlockM_, kBlockN = kBlockN_, kClusterM = kClusterM_, kClusterN = kClusterN_;
  static constexpr bool kTransposed = kTransposed_;
  static constexpr int kConsumers = kBlockM / kWgmmaM;  // consumer warpgroups, 64 rows × the tile's width each
  static constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
  static constexpr int kTileBytesA = kBlockM * kBlockK * sizeof(bf16);
  static constexpr int kClusterSize = kClusterM * kClusterN;
  // The CTAs whose loads write into a CTA's stages (its cluster row and column, itself included): each of their
  // consumer warps releases this CTA's stages.
  static constexpr int kStageReaders = kClusterM + kClusterN - 1;
  static constexpr int kSliceRowsA = kBlockM / kClusterN;  // rows of A this CTA loads for its cluster row
  static constexpr int kSliceRowsB = kBlockN / kClusterM;  // rows of B this CTA loads for its cluster column
  static constexpr int kTileBytesB = kBlockN * kBlockK * sizeof(bf16);
  // As many stages as fit in 200 KB: 3 × 56 KB (128 × 320), 4 × 48 KB (128 × 256), 5 × 34-40 KB (128 × 144-192),
  // 6 × 32 KB, 7 × 28 KB (128 × 96), 8 × 24 KB (64 × 128).
  static constexpr int kStages = 200 * 1024 / (kTileBytesA + kTileBytesB);
  static constexpr int kAccumulators = kBlockN / 2;  // a consumer thread's share of its 64 × kBlockN
  // The wide fitted widths run whole tiles only, in one round or in whole rounds (common/few_tiles.h,
  // with_wide_fitted_width and with_wide_fitted_rounds), and their instances leave the partial sums' code out: with
  // it, ptxas spills a register at 208-240 columns.
  static constexpr bool kSplitsAlongK = !is_wide_fitted_width(kBlockN);
  // The epilogue's staging: the whole 64-column boxes of a consumer's 64 × kBlockN tile go out in kStoreRounds rounds
  // of kStoreBoxes boxes of 64 × 64 (two rounds of two boxes or one; 192 columns in three of one, 320 in five, 64 in
  // one). A fitted width's last kTailChunks 8-column chunks (16-48 columns) are stored from the registers instead, so
  // that no box reaches into the next tile.
  static constexpr int kBoxedCols = kBlockN / kBoxCols * kBoxCols;
  static constexpr int kTailChunks = (kBlockN - kBoxedCols) / 8;
  static constexpr int kStoreRounds = kBoxedCols == 320 ? 5 : kBoxedCols == 192 ? 3 : kBoxedCols == 64 ? 1 : 2;
  static constexpr int kStoreBoxes = kBoxedCols / kBoxCols / kStoreRounds;
  static constexpr int kChunksPerRound = kBoxedCols / 8 / kStoreRounds;  // 8-column accumulator chunks per round
  static constexpr int kPackedPerRound = 2 * kChunksPerRound;            // a round's accumulators as bf16 pairs
  static constexpr int kPartialFloats = kWgmmaM * kBlockN;  // a consumer's partial sums of a split tile
  static_assert(kBlockN == 320 || kBlockN == 256 || kBlockN == 240 || kBlockN == 224 || kBlockN == 208 ||
                    kBlockN == 192 || kBlockN == 128 || kBlockN == 176 || kBlockN == 160 || kBlockN == 144 ||
                    kBlockN == 112 || kBlockN == 96 || kBlockN == 80,
                "wgmma m64nNk16 with N = 256, 192, 176, 160, 144, 128, 112, 96 or 80, or two: 160 + 160 (320), "
                "112 + 96 (208), 112 + 112 (224) or 128 + 112 (240)");
  static_assert(kBlockM == 128 || kBlockM == 64, "two consumer warpgroups or one");
  static_assert(kBoxedCols % (kBoxCols * kStoreRounds) == 0);
  static_assert(kClusterSize >= 2 && kClusterSize <= 8, "a portable cluster has at most 8 CTAs");
  static_assert(kBlockM % (8 * kClusterN) == 0 && kBlockN % (8 * kClusterM) == 0,
                "each multicast slice is a whole number of 8-row swizzle atoms");
  // The shape rule bounds M and N by 2 × 1 clusters' 16-bit tile coordinates of 128 × 256 tiles; the plan takes other
  // tilings and 1 × 2 clusters only where their coordinates fit in them too.

  struct SharedStorage {
    alignas(1024) bf16 a[kStages][kBlockM * kBlockK];
    alignas(1024) bf16 b[kStages][kBlockN * kBlockK];
    alignas(1024) bf16 c[kConsumers][kStoreBoxes][kWgmmaM * kBoxCols];  // each consumer's store buffer
    uint64_t full[kStages];   // producer -> consumers: the stage's tiles have landed
    uint64_t empty[kStages];  // consumers -> producers: every consumer warp of every CTA writing here is done
  };
  static constexpr int kSharedBytes = shared_storage_bytes<SharedStorage>();
  static_assert(kSharedBytes <= 227 * 1024, "sm_90 gives a CTA at most 227 KB of shared memory");
};

// ---- the consumers' wait and release, without a branch in the k-block loop -------------------------------
// A lone consumer warpgroup (64-row tiles) is slowed by branches in its k-block loop. In a microbenchmark without
// loads, kernel 13's loop (its wait a C++ loop around try_wait, its release and the last tile's store behind `if`s) ran
// the wgmmas at 1.47 times their cycles, the same loop with the two helpers below at 1.00, and with two consumer
// warpgroups both at 1.00; in this kernel the helpers took 0.96-0.98 of the time on 64-row tiles (docs/log/
// 15_few_tiles.md, section 32). In the SASS such branches show as BSSY/BSYNC pairs, where a warp's threads meet
// again: with the helpers, ptxas peels the first k block (the last tile's store) and leaves none in the loop.

// Wait until the phase with parity `phase` of `barrier` has completed, the retry loop inside the asm statement.
__device__ __forceinline__ void mbarrier_wait_ptx_loop(uint64_t* barrier, uint32_t phase) {
  asm volatile(
      "{\n"
      ".reg .pred complete;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 complete, [%0], %1;\n"
      "@!complete bra WAIT_%=;\n"
      "}\n" ::"r"(smem_address(barrier)),
      "r"(phase)
      : "memory");
}

// mbarrier_arrive_cluster_ctas (common/mbarrier.h) where `arrive` holds, each arrival predicated inside its asm
// statement instead of skipped by a branch.
template <int kClusterSize>
__device__ __forceinline__ void mbarrier_arrive_cluster_ctas_predicated(uint64_t* barrier, uint32_t cta_mask,
                                                                        bool arrive) {
#pragma unroll
  for (int cta = 0; cta < kClusterSize; ++cta) {
    const uint32_t arrive_here = arrive && (cta_mask & (1u << cta)) ? 1u : 0u;
    asm volatile(
        "{\n"
        ".reg .pred arrive;\n"
        ".reg .b32 remote;\n"
        "setp.ne.u32 arrive, %2, 0;\n"
        "mapa.shared::cluster.u32 remote, %0, %1;\n"
        "@arrive mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
        "}\n" ::"r"(smem_address(barrier)),
        "r"(static_cast<uint32_t>(cta)), "r"(arrive_here)
        : "memory");
  }
}

// A consumer warpgroup's k step over its 64 rows of the tile, B's k step at shared address `b_address`: one wgmma of
// the tile's width, or two of about half of it, the first rounded up to 16 columns: for 128 × 320 tiles (wider than
// wgmma's 256) 160 and 160, for the wide fitted widths (no wrapper of their own in common/wgmma.h) 112 and 96 (208),
// 112 and 112 (224), 128 and 112 (240). The second's B lies as many rows further into the stage as the first's width (a
// whole number of 8-row swizzle atoms), and its accumulators are the tile's chunks from there on, where one wgmma of
// the whole width would hold them.
template <int kBlockN>
constexpr int kFirstWgmmaWidth =
    kBlockN == 320 || is_wide_fitted_width(kBlockN) ? (kBlockN / 2 + 15) / 16 * 16 : kBlockN;
template <int kBlockN>
__device__ __forceinline__ void wgmma_tile_row(float (&acc)[kBlockN / 2], uint64_t descriptor_a, uint32_t b_address,
                                               bool accumulate) {
  constexpr int kFirst = kFirstWgmmaWidth<kBlockN>, kSecond = kBlockN - kFirst;
  if constexpr (kSecond > 0) {
    static_assert(kFirst * kRowBytes % 1024 == 0, "the second wgmma's B starts on a swizzle atom");
    float(&first)[kFirst / 2] = *reinterpret_cast<float(*)[kFirst / 2]>(&acc[0]);
    float(&second)[kSecond / 2] = *reinterpret_cast<float(*)[kSecond / 2]>(&acc[kFirst / 2]);
    wgmma_m64nNk16<kFirst>(first, descriptor_a, wgmma_descriptor_k_major_128b(b_address), accumulate);
    wgmma_m64nNk16<kSecond>(second, descriptor_a, wgmma_descriptor_k_major_128b(b_address + kFirst * kRowBytes),
                            accumulate);
  } else {
    wgmma_m64nNk16<kBlockN>(acc, descriptor_a, wgmma_descriptor_k_major_128b(b_address), accumulate);
  }
}

// ---- the kernel's two ends (the header, 6) ------------------------------------------------------------------------
// The cluster barrier before the main loop only has to publish the stage barriers' initialisation, which the init
// fence (fence.mbarrier_init.release.cluster) already orders before a relaxed arrival (PTX ISA, "membar/fence": it is
// the light-weight fence meant to pair with barrier.cluster.arrive.relaxed). The default arrival (.release) orders all
// of the thread's earlier memory accesses (in the SASS a MEMBAR.ALL.GPU), 0.4-0.6 µs of a one-round launch on an H100.
__device__ __forceinline__ void cluster_sync_after_barrier_init() {
  asm volatile("barrier.cluster.arrive.relaxed;\n" ::: "memory");
  cluster_wait();
}

template <typename T>
__global__ void __launch_bounds__(T::kThreads, 1)
    few_tiles_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                      const __grid_constant__ CUtensorMap map_c, GemmProblem problem, const uint32_t* tile_order,
                      StreamKSchedule schedule, float* partials, uint32_t* partial_flags, uint32_t launch_epoch,
                      RoundBarrier round_barrier) {
#if GEMM_SM90A_DEVICE_CODE
  constexpr int kBlockM = T::kBlockM, kBlockN = T::kBlockN, kClusterM = T::kClusterM, kClusterN = T::kClusterN;
  constexpr int kConsumers = T::kConsumers, kClusterSize = T::kClusterSize, kStageReaders = T::kStageReaders;
  constexpr int kStages = T::kStages, kSliceRowsA = T::kSliceRowsA, kSliceRowsB = T::kSliceRowsB;
  constexpr int kTileBytesA = T::kTileBytesA, kTileBytesB = T::kTileBytesB;
  constexpr int kStoreBoxes = T::kStoreBoxes, kChunksPerRound = T::kChunksPerRound;
  constexpr int kPackedPerRound = T::kPackedPerRound, kPartialFloats = T::kPartialFloats;
  constexpr int kStoreRounds = T::kStoreRounds, kBoxedCols = T::kBoxedCols, kTailChunks = T::kTailChunks;
  constexpr bool kTransposed = T::kTransposed;  // `problem` is N × M × K, its C a tile of Cᵀ: stored transposed
  auto& smem = shared_storage<typename T::SharedStorage>();
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
  cluster_sync_after_barrier_init();  // no CTA of the cluster touches a partner before every barrier of it exists

  if (warpgroup == 0) {
    // ---- producer: one thread issues this CTA's slices of every load of every tile ----
    if constexpr (kConsumers == 2) setmaxnreg_dec<kProducerRegisters>();  // one consumer has registers to spare
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
      // The producer's tail (the header, 6): wait until every CTA that reads this CTA's stages has released each of
      // them for the last time. Their last arrivals on this CTA's barriers are then made, and all that partners
      // multicast into it has landed before its consumers finished, so the CTA may exit without a cluster barrier.
      for (int stage = 0; stage < kStages; ++stage) {
        mbarrier_wait(&smem.empty[write.stage], write.phase ^ 1);
        write.advance();
      }
    }
  } else {
    // ---- consumers: warpgroup c owns rows 64(c - 1) .. 64(c - 1) + 63 of each tile ----
    if constexpr (kConsumers == 2) setmaxnreg_inc<kConsumerRegisters>();
    const int consumer = warpgroup - 1;
    const bool warp_leader = threadIdx.x % 32 == 0;
    const bool store_leader = threadIdx.x % kWarpgroupThreads == 0;  // issues, commits and waits for the stores
    const uint32_t consumer_barrier = 1 + consumer;  // named barrier of this warpgroup's 128 threads (0 is CTA-wide)
    // One warp's release of a stage, where `release` holds: an arrival on the empty barrier of every CTA whose loads
    // fill it, by the warp's leader, predicated rather than branched to (see the helpers above the kernel).
    const auto release_stage = [&](int stage, bool release = true) {
      mbarrier_arrive_cluster_ctas_predicated<kClusterSize>(&smem.empty[stage], stage_readers, warp_leader && release);
    };
    // This warpgroup's part of a schedule slot (common/stream_k.h) in the workspace and the flags: same rank,
    // same consumer.
    const auto slot_of = [&](int slot) {
      return (slot * kClusterSize + static_cast<int>(rank)) * kConsumers + consumer;
    };
    const int consumer_thread = threadIdx.x % kWarpgroupThreads;
    const int even_shares = schedule.even_shares();  // 0 unless every tile is split into as many shares
    // Tiles split evenly in three shares or more add by slices (below). Two shares keep the owner's fix-up, which
    // measured as fast there, and so do 128 × 256 tiles, whose 128 accumulators leave the slices' adds no registers.
    constexpr bool kSlices = kBlockN < 256 && T::kSplitsAlongK;
    constexpr int kMinSliceShares = 3;
    constexpr int kChunks = kBlockN / 8;  // a tile's 8-column chunks: a thread's float4 j of the workspace is chunk j
    float acc[T::kAccumulators];  // written by each unit's first wgmma (scale-d = 0): no clearing
    // The partial sums' round trip through the L2 (common/stream_k.h): this warpgroup's sums to workspace slot `slot`,
    // but for its chunks [skip_begin, skip_end), then the slot's flag; and the sums in slot `slot`, chunks
    // [first, end), added to this warpgroup's once that flag is raised.
    const auto write_partial = [&](int slot, int skip_begin, int skip_end) {
      store_partial(acc, partials + slot * kPartialFloats, consumer_thread, kWarpgroupThreads, skip_begin, skip_end);
      named_barrier_sync(consumer_barrier, kWarpgroupThreads);  // every thread's part is written ...
      if (store_leader) flag_store_release(&partial_flags[slot], launch_epoch);  // ... then the flag
    };
    // The GPU tests' builds only (tests/CMakeLists.txt): a partial written ~0.2 ms late, so that what keeps C right
    // is the fix-up order, not timing. Nothing in other builds.
    const auto late_partial_for_tests = [] {
#ifdef GEMM_TEST_LATE_PARTIALS
      for (int spin = 0; spin < 200; ++spin) __nanosleep(1000);
#endif
    };
    const auto add_flagged_partial = [&](int slot, int first, int end) {
#ifndef GEMM_TEST_UNWAITED_PARTIALS  // a GPU test's build leaves the wait out: the reader adds what is not yet there
      if (store_leader) flag_wait_acquire(&partial_flags[slot], launch_epoch);
#endif
      named_barrier_sync(consumer_barrier, kWarpgroupThreads);  // the leader saw the flag: all may read
      add_partial(acc, partials + slot * kPartialFloats, consumer_thread, kWarpgroupThreads, first, end);
    };
    PipelineState<kStages> read, release;
    // Send store round `round` of C through this warpgroup's buffer (common/wgmma_epilogue.h); `stage` writes it there.
    const auto store_round = [&](int round, int row, int col, const auto& stage) {
      store_staged_round<0, kTransposed>(&map_c, smem.c[consumer], row, col + round * kStoreBoxes * kBoxCols,
                                         store_leader, consumer_barrier, stage);
    };
    // The last store round of the tile before, packed, and where it goes: sent during the next unit's first k block.
    uint32_t deferred[kPackedPerRound];
    bool has_deferred = false;
    int deferred_row = 0, deferred_col = 0;
    const auto store_deferred = [&] {
      store_round(kStoreRounds - 1, deferred_row, deferred_col,
                  [&] { stage_packed_m64<kTransposed>(deferred, smem.c[consumer]); });
      has_deferred = false;
    };
    for (WorkUnit unit = schedule.first(worker); unit.valid(); unit = schedule.next(worker, unit)) {
      const TileCoord cluster_tile = unpack_tile(tile_order[unit.tile]);
      for (int iteration = 0; iteration < unit.k_blocks(); ++iteration) {  // k blocks in the producer's order
        mbarrier_wait_ptx_loop(&smem.full[read.stage], read.phase);
        wgmma_fence();
        const uint32_t a_base = smem_address(smem.a[read.stage]) + consumer * kWgmmaM * kRowBytes;
        const uint32_t b_base = smem_address(smem.b[read.stage]);
#pragma unroll
        for (int k_step = 0; k_step < kBlockK / kWgmmaK; ++k_step) {
          const uint32_t k_offset = k_step * kWgmmaK * sizeof(bf16);
          const uint64_t descriptor_a = wgmma_descriptor_k_major_128b(a_base + k_offset);
          const bool accumulate = iteration > 0 || k_step > 0;
          wgmma_tile_row<kBlockN>(acc, descriptor_a, b_base + k_offset, accumulate);
        }
        wgmma_commit_group();
        read.advance();
        wgmma_wait_group<1>();  // the previous k block's group is done: release its stage
        release_stage(release.stage, iteration > 0);
        if (iteration > 0) release.advance();
        if (has_deferred) store_deferred();  // behind this k block's wgmmas
      }
      wgmma_wait_group<0>();  // the tile's last group is done: release its stage too
      release_stage(release.stage);
      release.advance();
      wgmma_fence_operands(acc);
      // The CTA's place in the cluster read again, not kept from the top: in 2 × 2 clusters of 128 × 192 tiles, keeping
      // it across the main loop spills.
      const uint32_t place = cluster_cta_rank();
      const int row = (cluster_tile.m * kClusterM + static_cast<int>(place % kClusterM)) * kBlockM + consumer * kWgmmaM;
      const int col = (cluster_tile.n * kClusterN + static_cast<int>(place / kClusterM)) * kBlockN;
      if (kSlices && even_shares >= kMinSliceShares) {
        // A tile split evenly: its shares (workers tile · shares, ...) each add and store one slice of the tile's
        // 8-column chunks, so each writes and reads (shares − 1) / shares of a tile's sums, where an owner would read
        // all of them, one partial after another. The rest of the tile goes to this worker's slot, its flag is raised,
        // and the other shares' sums of this slice are added once their flags are.
        const ChunkSlice slice = even_share_slice(worker % even_shares, even_shares, kChunks);
        const int first_share = worker - worker % even_shares;
        if (worker != first_share) late_partial_for_tests();  // all but a tile's first share
        write_partial(slot_of(worker), slice.begin, slice.end);
        for (int other = first_share; other < first_share + even_shares; ++other)
          if (other != worker) add_flagged_partial(slot_of(other), slice.begin, slice.end);
        store_accumulators_m64<kBlockN, kTransposed>(acc, problem.c, problem.m, problem.n, row, col, slice.begin,
                                                     slice.end);
        continue;
      }
      if (T::kSplitsAlongK && unit.is_partial()) {  // the owner adds these sums: to the workspace, then raise the flag
        const int slot = slot_of(schedule.partial_slot(worker, unit));
        late_partial_for_tests();
        write_partial(slot, 0, 0);
        continue;
      }
      // The owner of a split tile: add the partials of the workers holding the rest of its k blocks.
      if (T::kSplitsAlongK && unit.k_end < schedule.k_blocks) {
        const int contributors_end = schedule.contributors_end(worker, unit.tile);
        for (int contributor = worker + 1; contributor < contributors_end; ++contributor) {
          if (schedule.contributes_to(contributor, unit.tile)) add_flagged_partial(slot_of(contributor), 0, kChunks);
        }
      }
      if constexpr (kTailChunks > 0)  // a fitted width's columns past its last whole box
        store_accumulators_m64<kBlockN, kTransposed>(acc, problem.c, problem.m, problem.n, row, col, kBoxedCols / 8,
                                                     kChunks);
#pragma unroll
      for (int round = 0; round < kStoreRounds - 1; ++round)
        store_round(round, row, col,
                    [&] { stage_accumulators_m64<kTransposed>(acc, smem.c[consumer], round * kChunksPerRound); });
      pack_accumulator_chunks(acc, (kStoreRounds - 1) * kChunksPerRound, deferred);  // the last round waits
      has_deferred = true;
      deferred_row = row;
      deferred_col = col;
    }
    if (has_deferred) store_deferred();
    if (store_leader) tma_store_wait<0>();  // the buffer must outlive the last store's read, and C be written
  }
  // No cluster barrier here: the producer's tail above keeps the CTA until no partner can still arrive on its barriers.
#endif
}

// ---- launcher ----------------------------------------------------------------------------------------
// The launch of the plan's tiling T, on the plan's schedule; prepare_few_tiles picks it. With T::kTransposed `problem`
// is Cᵀ's, N × M × K with A and B swapped, and C's tensor map is C's own: M rows of N.
template <typename T>
GemmLaunch prepare_tiling(const GemmProblem& problem, const StreamKSchedule& schedule) {
  constexpr int kBlockM = T::kBlockM, kBlockN = T::kBlockN, kClusterM = T::kClusterM, kClusterN = T::kClusterN;
  constexpr int kClusterSize = T::kClusterSize, kSliceRowsA = T::kSliceRowsA, kSliceRowsB = T::kSliceRowsB;
  constexpr int kSharedBytes = T::kSharedBytes, kPartialFloats = T::kPartialFloats, kThreads = T::kThreads;
  constexpr int kConsumers = T::kConsumers;
  const auto kernel = few_tiles_kernel<T>;
  constexpr auto kSwizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  // 128-byte L2 fills for A and B where their rows are off the L2's lines, 256 on them (common/few_tiles.h).
  const CUtensorMapL2promotion fill = l2_promotion(operand_fill_bytes(problem.k));
  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kSliceRowsA, kBlockK, kSwizzle, fill);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kSliceRowsB, kBlockK, kSwizzle, fill);
  const CUtensorMap map_c = T::kTransposed
                                ? make_tensor_map_2d(problem.c, problem.n, problem.m, kBoxCols, kWgmmaM, kSwizzle)
                                : make_tensor_map_2d(problem.c, problem.m, problem.n, kWgmmaM, kBoxCols, kSwizzle);
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  // The Hilbert order of the cluster tiles, as a table in device memory that the launch keeps alive.
  const int cluster_tiles_m = ceil_div(ceil_div(problem.m, kBlockM), kClusterM);
  const int cluster_tiles_n = ceil_div(ceil_div(problem.n, kBlockN), kClusterN);
  // Not reached through the plan: the shape rule keeps 128 × 256 tiles in 2 × 1 clusters inside 16 bits, and the plan
  // skips the tilings and clusters that would leave them (few_tiles.h).
  if (cluster_tiles_m > 0xffff || cluster_tiles_n > 0xffff)
    throw UsageError("the tile table packs rows and columns in 16 bits each: at most 65535 cluster tiles a side");
  const std::vector<TileCoord> hilbert = hilbert_tile_order(cluster_tiles_m, cluster_tiles_n);
  const int cluster_tiles = static_cast<int>(hilbert.size());
  // The plan's schedule is over every resident cluster: with fewer tiles than clusters, all of it split along K over as
  // many clusters as the split's cost model says finish first, or whole tiles where no split pays; else kernel 13's
  // (the last round split, or only the clusters its rounds need).
  // When it splits, the workspace for the partial sums (per schedule slot, a part per consumer warpgroup of each CTA)
  // and the parts' flags. A flag is raised to the launch's epoch, a number that grows with every launch (never 0, the
  // flags' first value), so the flags need no clearing between launches. The grid is sized from the schedule.
  if (schedule.tiles != cluster_tiles || schedule.k_blocks != ceil_div(problem.k, kBlockK))
    throw std::logic_error("kernel 15's plan and its tiling disagree on the tiles");
  const int clusters = schedule.workers;
  const int grid = clusters * kClusterSize;
  // Each full round's tiles handed out GPC by GPC (common/gpc_rounds.h; worker w takes position r × workers + w of
  // round r), so that a GPC's clusters ask together for the panel each of their CTAs loads alone: A's, by row, in 2 × 1
  // clusters; B's, by column, in 1 × 2 clusters, which multicast A (the header, 3); by row in 2 × 2 clusters, which
  // multicast both, as kernel 13. The split tiles after the full rounds stay as they are.
  const int grouped_tiles = schedule.full_rounds() * clusters;
  std::vector<int> dealt;  // the grouped positions; only those of the full rounds are used (none: no probe)
  constexpr GpcDealing kDealing = kClusterN > kClusterM ? GpcDealing::kSortedColumns : GpcDealing::kSortedRows;
  if (grouped_tiles > 0)
    dealt = gpc_grouped_rounds(hilbert, probe_cluster_gpcs(grid, kThreads, kSharedBytes, kClusterSize), kDealing);
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
    launch_with_cluster(kernel, grid, kThreads, kSharedBytes, kClusterSize, stream, map_a, map_b, map_c,
                        problem, static_cast<const uint32_t*>(tile_order->get()), schedule, partials->get(),
                        partial_flags->get(), *epoch, round_barrier);
  };
  return {enqueue, reinterpret_cast<const void*>(kernel)};
}

// A tile size in the plan's cluster shape. The fitted widths (176, 160, 144, 96) have no 2 × 2 instance: the plan takes
// them in clusters of two only, and 128 × 96 in 2 × 1 ones only.
template <int kBlockM, int kBlockN, bool kTransposed>
GemmLaunch prepare_oriented(const GemmProblem& problem, const FewTilesPlan& plan) {
  if (plan.quad_clusters()) {
    if constexpr (!fitted_width(kBlockM, kBlockN))
      return prepare_tiling<Tiling<kBlockM, kBlockN, 2, 2, kTransposed>>(problem, plan.schedule);
    else
      throw std::logic_error("kernel 15 has no fitted width in 2 × 2 clusters");
  }
  if (plan.cluster_along_n()) {
    if constexpr (!needs_filled_cluster_rows(kBlockM, kBlockN))
      return prepare_tiling<Tiling<kBlockM, kBlockN, 1, 2, kTransposed>>(problem, plan.schedule);
    else
      throw std::logic_error("kernel 15 has no 128 × 96 tiles in 1 × 2 clusters");
  }
  return prepare_tiling<Tiling<kBlockM, kBlockN, 2, 1, kTransposed>>(problem, plan.schedule);
}

// The plan's tile size, for C or for Cᵀ.
template <bool kTransposed>
GemmLaunch prepare_plan(const GemmProblem& problem, const FewTilesPlan& plan) {
  if (plan.block_m == 64 && fitted_width(plan.block_m, plan.block_n)) {
    if constexpr (!kTransposed) {  // the 64-row fitted widths: for C, in 2 × 1 clusters only (common/few_tiles.h)
      if (plan.cluster_along_n() || plan.quad_clusters())
        throw std::logic_error("kernel 15 has its 64-row fitted widths in 2 × 1 clusters only");
      if (plan.block_n == 80) return prepare_tiling<Tiling<64, 80, 2, 1>>(problem, plan.schedule);
      if (plan.block_n == 96) return prepare_tiling<Tiling<64, 96, 2, 1>>(problem, plan.schedule);
      return prepare_tiling<Tiling<64, 112, 2, 1>>(problem, plan.schedule);
    } else {
      throw std::logic_error("kernel 15 has no 64-row fitted width for Cᵀ");
    }
  }
  if (is_wide_fitted_width(plan.block_n)) {  // for C, in 2 × 1 clusters only (few_tiles.h)
    if constexpr (!kTransposed) {
      if (plan.cluster_along_n() || plan.quad_clusters())
        throw std::logic_error("kernel 15 has its 128-row wide fitted widths in 2 × 1 clusters only");
      if (plan.schedule.splits()) throw std::logic_error("kernel 15 runs its 128-row wide fitted widths whole only");
      if (plan.block_n == 208) return prepare_tiling<Tiling<128, 208, 2, 1>>(problem, plan.schedule);
      if (plan.block_n == 224) return prepare_tiling<Tiling<128, 224, 2, 1>>(problem, plan.schedule);
      return prepare_tiling<Tiling<128, 240, 2, 1>>(problem, plan.schedule);
    } else {
      throw std::logic_error("kernel 15 has no 128-row wide fitted width for Cᵀ");
    }
  }
  if (plan.block_n == kWideRoundsWidth) {  // wide tiles in whole rounds: for C, in 2 × 1 clusters only (few_tiles.h)
    if constexpr (!kTransposed) {
      if (plan.cluster_along_n() || plan.quad_clusters())
        throw std::logic_error("kernel 15 has its 128 × 320 tiles in 2 × 1 clusters only");
      return prepare_tiling<Tiling<128, kWideRoundsWidth, 2, 1>>(problem, plan.schedule);
    } else {
      throw std::logic_error("kernel 15 has no 128 × 320 tiles for Cᵀ");
    }
  }
  if (plan.block_m == 64)
    return plan.block_n == 192 ? prepare_oriented<64, 192, kTransposed>(problem, plan)
                               : prepare_oriented<64, 128, kTransposed>(problem, plan);
  if (plan.block_n == 192) return prepare_oriented<128, 192, kTransposed>(problem, plan);
  if (plan.block_n == 176) return prepare_oriented<128, 176, kTransposed>(problem, plan);
  if (plan.block_n == 160) return prepare_oriented<128, 160, kTransposed>(problem, plan);
  if (plan.block_n == 144) return prepare_oriented<128, 144, kTransposed>(problem, plan);
  if (plan.block_n == 128) return prepare_oriented<128, 128, kTransposed>(problem, plan);
  if (plan.block_n == 96) return prepare_oriented<128, 96, kTransposed>(problem, plan);
  return prepare_oriented<128, 256, kTransposed>(problem, plan);
}

// The GPU's resident clusters of `cluster_size` CTAs: they do not depend on the tiling, every one keeps one CTA an SM
// (192 KB of stages).
template <int kClusterM, int kClusterN>
int resident_clusters() {
  using WideTiling = Tiling<128, 256, kClusterM, kClusterN>;
  CUDA_CHECK(cudaFuncSetAttribute(few_tiles_kernel<WideTiling>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  WideTiling::kSharedBytes));
  return persistent_cluster_count(few_tiles_kernel<WideTiling>, WideTiling::kThreads, WideTiling::kSharedBytes,
                                  WideTiling::kClusterSize, INT_MAX);
}

// The launch of a plan made for `problem` with this GPU's resident clusters; where it plans for Cᵀ, the kernel
// computes the N × M × K problem of B and A.
GemmLaunch launch_plan(const GemmProblem& problem, const FewTilesPlan& plan) {
  if (plan.transposed)
    return prepare_plan<true>({problem.n, problem.m, problem.k, problem.b, problem.a, problem.c}, plan);
  return prepare_plan<false>(problem, plan);
}

}  // namespace

int few_tiles_quad_clusters() { return resident_clusters<2, 2>(); }

// What the plan weighs a split over every cluster by: what the DRAM moves in one SM cycle (kDramEfficiency of the peak
// the GPU reports, two transfers a memory clock over the bus, at its SM clock) and the L2's size. None where the GPU
// reports no memory clock.
FewTilesMemory few_tiles_memory() {
  int device = 0, memory_khz = 0, bus_bits = 0, sm_khz = 0, l2_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  if (memory_khz <= 0 || bus_bits <= 0 || sm_khz <= 0) return {};
  return {kDramEfficiency * 2.0 * memory_khz * (bus_bits / 8.0) / sm_khz, static_cast<double>(l2_bytes)};
}

// The launch of a plan made elsewhere (kernel 16's estimate). A plan for another count of resident clusters would
// leave the round barrier waiting for clusters that never start, so the count is checked against this GPU's.
GemmLaunch prepare_few_tiles_plan(const GemmProblem& problem, const FewTilesPlan& plan) {
  const int resident = plan.quad_clusters() ? resident_clusters<2, 2>() : resident_clusters<2, 1>();
  if (plan.resident_clusters != resident)
    throw std::logic_error("kernel 15 was given a plan for " + std::to_string(plan.resident_clusters) +
                           " resident clusters; this GPU keeps " + std::to_string(resident));
  return launch_plan(problem, plan);
}

// The plan (common/few_tiles.h) needs the resident clusters of two, where the rows are off the lines (where it may
// take 2 × 2 clusters) of four, and the DRAM's rate and the L2's size.
GemmLaunch prepare_few_tiles(const GemmProblem& problem) {
  return launch_plan(problem, plan_few_tiles_or_transposed(problem.m, problem.n, problem.k, resident_clusters<2, 1>(),
                                                           rows_off_lines(problem.k) ? few_tiles_quad_clusters() : 0,
                                                           few_tiles_memory()));
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// Each tiling and cluster shape: a 1 × 2 cluster multicasts A, a 2 × 1 cluster B, a 2 × 2 cluster both; all add
// partial sums through the L2.
// Only two consumer warpgroups move registers with setmaxnreg. A tile of Cᵀ (kTransposed) is staged with stmatrix
// .trans. A fitted width stages its whole boxes and stores its last columns from the registers (STG; of Cᵀ, 2-byte
// ones). In every one-consumer tiling's k-block loop (the one line for all of them), the release after the wait for
// the k block before is an arrive predicated in place, with no branch or BSSY/BSYNC between them
// (mbarrier_arrive_cluster_ctas_predicated). The kernel's two ends (the header, 6): no membar before the first cluster
// barrier's arrival (it is relaxed), and that arrival is the only one (no cluster barrier at the end).
// sass: sm_90a TilingILi64E DEPBAR\.LE\sgsb0,\s0x1\b((?!BSSY|BSYNC|BRA)[\s\S]){0,3000}?@!?P\d\sSYNCS\.ARRIVE\.TRANS64\.RED
// sass: sm_90a TilingILi128ELi256ELi2ELi1ELb0E ^((?!MEMBAR|UCGABAR_ARV)[\s\S])*UCGABAR_ARV ^((?!UCGABAR_ARV)[\s\S])*UCGABAR_ARV((?!UCGABAR_ARV)[\s\S])*$ UTMASTG\.2D STSM\.16\.M88\.4 UTMALDG\.2D\.MULTICAST UCGABAR_ARV UCGABAR_WAIT HGMMA\.64x256x16\.F32\.BF16 UTMALDG\.2D\s SYNCS\.ARRIVE\.TRANS64 SYNCS\.PHASECHK\.TRANS64 USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8 STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU REDG\.E\.ADD\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi256ELi1ELi2ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x256x16\.F32\.BF16 STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi128ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x128x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi128ELi1ELi2ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x128x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi192ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x192x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi192ELi1ELi2ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x192x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi176E UTMALDG\.2D\.MULTICAST HGMMA\.64x176x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi160E UTMALDG\.2D\.MULTICAST HGMMA\.64x160x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi144E UTMALDG\.2D\.MULTICAST HGMMA\.64x144x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi208ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x112x16\.F32\.BF16 HGMMA\.64x96x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.M88\.4 STG\.E\s
// sass: sm_90a TilingILi128ELi224ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x112x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.M88\.4 STG\.E\s
// sass: sm_90a TilingILi128ELi240ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x128x16\.F32\.BF16 HGMMA\.64x112x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.M88\.4 STG\.E\s
// sass: sm_90a TilingILi128ELi320ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x160x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.M88\.4 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8
// sass: sm_90a TilingILi128ELi96ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x96x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.M88\.4 STG\.E\s STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi80ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x80x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.M88\.4 STG\.E\s
// sass: sm_90a TilingILi64ELi96ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x96x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.M88\.4 STG\.E\s
// sass: sm_90a TilingILi64ELi112ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x112x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.M88\.4 STG\.E\s
// sass: sm_90a TilingILi128ELi96ELi2ELi1ELb1E HGMMA\.64x96x16\.F32\.BF16 UTMASTG\.2D STSM\.16\.MT88\.4 STG\.E\.U16
// sass: sm_90a TilingILi128ELi176ELi2ELi1ELb0E STSM\.16\.M88\.4 STG\.E\s
// sass: sm_90a TilingILi128ELi176ELi2ELi1ELb1E STSM\.16\.MT88\.4 STG\.E\.U16
// sass: sm_90a TilingILi128ELi160ELi2ELi1ELb0E STSM\.16\.M88\.4 STG\.E\s
// sass: sm_90a TilingILi128ELi160ELi2ELi1ELb1E STSM\.16\.MT88\.4 STG\.E\.U16
// sass: sm_90a TilingILi128ELi144ELi2ELi1ELb0E STSM\.16\.M88\.4 STG\.E\s
// sass: sm_90a TilingILi128ELi144ELi2ELi1ELb1E STSM\.16\.MT88\.4 STG\.E\.U16
// sass: sm_90a TilingILi64ELi192ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x192x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi192ELi1ELi2ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x192x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi128ELi2ELi1ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x128x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi128ELi1ELi2ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x128x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi256ELi2ELi2ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x256x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi192ELi2ELi2ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x192x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi128ELi2ELi2ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x128x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi192ELi2ELi2ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x192x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi128ELi2ELi2ELb0E UTMALDG\.2D\.MULTICAST HGMMA\.64x128x16\.F32\.BF16 UTMASTG\.2D STG\.E\.STRONG\.GPU LDG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi256ELi2ELi1ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x256x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi256ELi1ELi2ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x256x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi256ELi2ELi2ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x256x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi192ELi2ELi1ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x192x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi192ELi1ELi2ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x192x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi192ELi2ELi2ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x192x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi128ELi2ELi1ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x128x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi128ELi1ELi2ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x128x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi128ELi128ELi2ELi2ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x128x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi192ELi2ELi1ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x192x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi192ELi1ELi2ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x192x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi192ELi2ELi2ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x192x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi128ELi2ELi1ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x128x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi128ELi1ELi2ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x128x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a TilingILi64ELi128ELi2ELi2ELb1E STSM\.16\.MT88\.4 UTMASTG\.2D HGMMA\.64x128x16\.F32\.BF16 STG\.E\.STRONG\.GPU
