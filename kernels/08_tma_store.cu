// Kernel 08 — the epilogue through shared memory and an asynchronous TMA store, overlapped with the next
// tile's main loop.
//
// Kernels 03-07 write C straight from the accumulator registers: each warp stores pairs of bf16 (4 bytes a
// thread) scattered over 16 rows, and the consumers cannot start the next tile's wgmma until the last store has
// issued. Here each consumer warpgroup
//
//   1. packs its 64 × 256 fp32 accumulators into bf16 pairs and writes them to a shared-memory buffer with
//      stmatrix (common/stmatrix.h: ldmatrix in reverse, one instruction for a 16 × 16 block per warp),
//      into 64 × 64 boxes laid out with the same 128-byte swizzle as the TMA loads, so the eight rows one
//      stmatrix phase writes fall in eight different bank groups (no conflicts; unswizzled 128-byte rows
//      would put all eight in the same banks);
//   2. makes those generic-proxy writes visible to the async proxy (fence.proxy.async.shared::cta in every
//      writing thread), meets at a named barrier of its 128 threads (the other warpgroups run on);
//   3. has one thread issue TMA stores of the boxes (cp.async.bulk.tensor ... bulk_group), which clip rows
//      and columns outside C in hardware, and commit them as one bulk group;
//   4. goes straight on to the next tile's main loop while the copy engine drains the buffer. The buffer is
//      reused only after cp.async.bulk.wait_group.read has said the previous store finished reading it.
//
// Shared-memory budget (227 KB per CTA on sm_90):
//   ring        4 stages × (16 KB of A + 32 KB of B)        = 192 KB
//   C buffers   2 consumers × 2 boxes × 64 × 64 × 2 bytes   =  32 KB
//   barriers    64 bytes, padded to 1 KB by alignas(1024)   =   1 KB   (sizeof(SharedStorage) = 225 KB)
//   slack for aligning the base (shared_storage_bytes)      =   1 KB
//                                                     total = 226 KB (231,424 bytes)
// Buffers for both consumers' whole 64 × 256 tiles (32 KB each) would need 64 KB and cost a ring stage; instead
// each consumer stores its tile in two halves of 128 columns through one 16 KB buffer, waiting (read only) for
// the first half's store before writing the second. The second half's store overlaps the next tile.
//
// Everything else is kernel 07's.
//
// Shapes: any M; N and K multiples of 8 (N's multiple of 8 is also TMA's rule for C's rows).

#include "common/arch.h"
#include "common/cluster.h"
#include "common/cuda_check.h"
#include "common/gemm_problem.h"
#include "common/mbarrier.h"
#include "common/named_barrier.h"
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
// The epilogue's staging: a consumer's 64 × 256 tile goes out in kStoreRounds rounds of kStoreBoxes boxes of
// 64 × 64 (64 columns = 128 bytes, the widest box a 128B-swizzled TMA takes).
constexpr int kBoxCols = 64;
constexpr int kStoreRounds = 2;
constexpr int kStoreBoxes = kBlockN / kBoxCols / kStoreRounds;
constexpr int kChunksPerRound = kBlockN / 8 / kStoreRounds;     // 8-column accumulator chunks per round
static_assert(kBlockN % (kBoxCols * kStoreRounds) == 0);

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
    tma_store_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     const __grid_constant__ CUtensorMap map_c, GemmProblem problem) {
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
    const bool store_leader = threadIdx.x % kWarpgroupThreads == 0;  // issues, commits and waits for the stores
    const uint32_t consumer_barrier = 1 + consumer;  // named barrier of this warpgroup's 128 threads (0 is CTA-wide)
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
      const int row = (cluster_tile.m * kClusterM + rank_m) * kBlockM + consumer * kWgmmaM;
      const int col = (cluster_tile.n * kClusterN + rank_n) * kBlockN;
#pragma unroll
      for (int round = 0; round < kStoreRounds; ++round)  // common/wgmma_epilogue.h
        store_staged_round(&map_c, smem.c[consumer], row, col + round * kStoreBoxes * kBoxCols, store_leader,
                           consumer_barrier, [&] { stage_accumulators_m64(acc, smem.c[consumer], round * kChunksPerRound); });
    }
    if (store_leader) tma_store_wait<0>();  // the buffer must outlive the last store's read, and C be written
  }
  cluster_sync();  // a partner may still arrive on this CTA's barriers until it is done too
#endif
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_tma_store(const GemmProblem& problem) {
  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kSliceRowsA, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kSliceRowsB, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_c = make_tensor_map_2d(problem.c, problem.m, problem.n, kWgmmaM, kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);
  CUDA_CHECK(cudaFuncSetAttribute(tma_store_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  const int cluster_tiles = ceil_div(ceil_div(problem.m, kBlockM), kClusterM) * ceil_div(ceil_div(problem.n, kBlockN), kClusterN);
  const int grid =
      persistent_cluster_count(tma_store_kernel, kThreads, kSharedBytes, kClusterSize, cluster_tiles) * kClusterSize;
  const auto enqueue = [=](cudaStream_t stream) {
    launch_with_cluster(tma_store_kernel, grid, kThreads, kSharedBytes, kClusterSize, stream, map_a, map_b, map_c,
                        problem);
  };
  return {enqueue, reinterpret_cast<const void*>(tma_store_kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// sass: sm_90a tma_store_kernel UTMASTG\.2D STSM\.16\.M88\.4 UTMALDG\.2D\.MULTICAST UCGABAR_ARV UCGABAR_WAIT HGMMA\.64x256x16\.F32\.BF16 UTMALDG\.2D\s SYNCS\.ARRIVE\.TRANS64 SYNCS\.PHASECHK\.TRANS64 USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8
