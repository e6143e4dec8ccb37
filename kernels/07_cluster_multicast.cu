// Kernel 07 — thread-block clusters: the operand tile two CTAs share (B, in the default 2 × 1) read from L2
// once for both (TMA multicast).
//
// In kernel 06 two CTAs working on vertically adjacent tiles (same columns of C) both load the same 256 × 64
// slice of B for every k block: the L2 serves it to each of them. Hopper can launch CTAs in clusters that are
// co-scheduled on one GPC and can write each other's shared memory; a TMA load with .multicast::cluster
// delivers one box to several CTAs of the cluster at the same shared-memory offset, and signals each
// receiver's own mbarrier.
//
// Here a cluster is kClusterM × kClusterN CTAs (2 × 1 by default) owning a kClusterM × kClusterN block of
// tiles. CTAs in one column of the block share B, CTAs in one row share A; each CTA loads 1/kClusterM of the
// shared B tile (and 1/kClusterN of the shared A tile) and multicasts its slice to every CTA that needs it.
// With 2 × 1, per k block and CTA the L2 delivers 16 KB of A and 16 KB of B instead of 16 + 32 KB: a third
// less L2 traffic (1 × 2 would multicast A instead: 8 + 32 KB, a sixth less; both measured in the notes).
//
// What multicast changes in the ring:
//   full[s]   still 1 arrival (this CTA's expect_tx) + the whole stage's bytes, which now come from the
//             TMA loads of several CTAs; a partner's bytes may land before this CTA's expect_tx, which is
//             fine: the phase cannot complete before its one arrival.
//   empty[s]  a producer's multicast writes into its partners' stage s too, so it may refill stage s only
//             when the consumers of every CTA it writes to have released it: each consumer warp arrives on
//             the empty barrier of each of those CTAs (remote arrive through mapa), and each empty barrier
//             expects the warps of all of them.
// Barriers a partner can touch must be initialised before any CTA of the cluster starts (fence.mbarrier_init
// and a cluster barrier), and no CTA may exit while a partner can still arrive on its barriers (a cluster
// barrier at the end). Both CTAs of a cluster walk the same cluster tiles, so each issues exactly the loads
// its partner waits for; at the right or bottom edge a CTA whose tile lies outside C still loads (TMA
// zero-fills what is outside) and multicasts its slice, and simply stores nothing.
//
// The grid is as many clusters as fit on the GPU at once (cudaOccupancyMaxActiveClusters: a cluster must
// fit in one GPC), persistent as in kernel 06, walking the grid of cluster tiles in the grouped order.
// Launched with cudaLaunchKernelEx and a cluster-dimension attribute (common/cluster.h).
//
// Shapes: any M; N and K multiples of 8.

#include "common/arch.h"
#include "common/cluster.h"
#include "common/cuda_check.h"
#include "common/gemm_problem.h"
#include "common/mbarrier.h"
#include "common/pipeline_state.h"
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
constexpr int kGroupRows = 8;   // cluster-tile rows per band: with 2 × 1 clusters, 16 tile rows as in kernel 06
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

constexpr int kTileBytesA = kBlockM * kBlockK * sizeof(bf16);
constexpr int kTileBytesB = kBlockN * kBlockK * sizeof(bf16);
constexpr int kRowBytes = kBlockK * sizeof(bf16);
constexpr int kSliceRowsA = kBlockM / kClusterN;  // rows of A this CTA loads for its cluster row
constexpr int kSliceRowsB = kBlockN / kClusterM;  // rows of B this CTA loads for its cluster column

struct SharedStorage {
  alignas(1024) bf16 a[kStages][kBlockM * kBlockK];
  alignas(1024) bf16 b[kStages][kBlockN * kBlockK];
  uint64_t full[kStages];   // producer -> consumers: the stage's tiles have landed
  uint64_t empty[kStages];  // consumers -> producers: every consumer warp of every CTA writing here is done
};
constexpr int kSharedBytes = shared_storage_bytes<SharedStorage>();

__global__ void __launch_bounds__(kThreads, 1)
    cluster_multicast_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                      GemmProblem problem) {
#if GEMM_SM90A_DEVICE_CODE
  SharedStorage& smem = shared_storage<SharedStorage>();
  const int tiles_m = ceil_div(problem.m, kBlockM), tiles_n = ceil_div(problem.n, kBlockN);
  const GroupedTileOrder order{ceil_div(tiles_m, kClusterM), ceil_div(tiles_n, kClusterN), kGroupRows};
  const int k_blocks = ceil_div(problem.k, kBlockK);
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
      for (int tile = cluster_index(); tile < order.count(); tile += cluster_count()) {
        const TileCoord cluster_tile = order.at(tile);
        const int row = (cluster_tile.m * kClusterM + rank_m) * kBlockM;
        const int col = (cluster_tile.n * kClusterN + rank_n) * kBlockN;
        for (int k_block = 0; k_block < k_blocks; ++k_block) {
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
      }
    }
  } else {
    // ---- consumers: warpgroup c owns rows 64(c - 1) .. 64(c - 1) + 63 of each tile ----
    setmaxnreg_inc<kConsumerRegisters>();
    const int consumer = warpgroup - 1;
    const bool warp_leader = threadIdx.x % 32 == 0;
    // One warp's release of a stage: an arrival on the empty barrier of every CTA whose loads fill it.
    const auto release_stage = [&](int stage) {
      if (warp_leader) mbarrier_arrive_cluster_ctas<kClusterSize>(&smem.empty[stage], stage_readers);
    };
    float acc[kBlockN / 2];  // written by each tile's first wgmma (scale-d = 0): no clearing
    PipelineState<kStages> read, release;
    for (int tile = cluster_index(); tile < order.count(); tile += cluster_count()) {
      const TileCoord cluster_tile = order.at(tile);
      for (int k_block = 0; k_block < k_blocks; ++k_block) {
        mbarrier_wait(&smem.full[read.stage], read.phase);
        wgmma_fence();
        const uint32_t a_base = smem_address(smem.a[read.stage]) + consumer * kWgmmaM * kRowBytes;
        const uint32_t b_base = smem_address(smem.b[read.stage]);
#pragma unroll
        for (int k_step = 0; k_step < kBlockK / kWgmmaK; ++k_step) {
          const uint32_t k_offset = k_step * kWgmmaK * sizeof(bf16);
          wgmma_m64n256k16(acc, wgmma_descriptor_k_major_128b(a_base + k_offset),
                           wgmma_descriptor_k_major_128b(b_base + k_offset), k_block > 0 || k_step > 0);
        }
        wgmma_commit_group();
        read.advance();
        wgmma_wait_group<1>();  // the previous k block's group is done: release its stage
        if (k_block >= 1) {
          release_stage(release.stage);
          release.advance();
        }
      }
      wgmma_wait_group<0>();  // the tile's last group is done: release its stage too
      release_stage(release.stage);
      release.advance();
      wgmma_fence_operands(acc);
      store_accumulators_m64<kBlockN>(acc, problem.c, problem.m, problem.n,
                                      (cluster_tile.m * kClusterM + rank_m) * kBlockM + consumer * kWgmmaM,
                                      (cluster_tile.n * kClusterN + rank_n) * kBlockN);
    }
  }
  cluster_sync();  // a partner may still arrive on this CTA's barriers until it is done too
#endif
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_cluster_multicast(const GemmProblem& problem) {
  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kSliceRowsA, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kSliceRowsB, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  CUDA_CHECK(cudaFuncSetAttribute(cluster_multicast_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  const int cluster_tiles = ceil_div(ceil_div(problem.m, kBlockM), kClusterM) * ceil_div(ceil_div(problem.n, kBlockN), kClusterN);
  const int grid =
      persistent_cluster_count(cluster_multicast_kernel, kThreads, kSharedBytes, kClusterSize, cluster_tiles) * kClusterSize;
  const auto enqueue = [=](cudaStream_t stream) {
    launch_with_cluster(cluster_multicast_kernel, grid, kThreads, kSharedBytes, kClusterSize, stream, map_a, map_b,
                        problem);
  };
  return {enqueue, reinterpret_cast<const void*>(cluster_multicast_kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// sass: sm_90a cluster_multicast_kernel UTMALDG\.2D\.MULTICAST UCGABAR_ARV UCGABAR_WAIT HGMMA\.64x256x16\.F32\.BF16 UTMALDG\.2D\s SYNCS\.ARRIVE\.TRANS64 SYNCS\.PHASECHK\.TRANS64 USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8
