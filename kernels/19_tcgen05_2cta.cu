// Kernel 19 — tcgen05 on a CTA pair: M = 256 per instruction across two SMs, and A multicast across two pairs.
// sm_100a only.
//
// Kernel 18 (kernel 17 made persistent, with a double-buffered accumulator) still reads a 128 × 64 A tile and a
// 256 × 64 B tile for every 128 × 256 × 64 of work: B costs twice A in shared memory and bandwidth.
// tcgen05.mma.cta_group::2 lets two CTAs of a cluster (a "CTA pair", ranks 2p and 2p + 1) run one MMA of
// M = 256, N = 256 together:
//
//   - each CTA holds 128 rows of A and 128 rows (half the N) of B in shared memory, at the same offsets;
//   - the even CTA (the leader) issues every MMA, for both: the tensor cores of both SMs read A from their own
//     CTA and B from both, and each CTA's TMEM receives its 128 rows × all 256 columns of D;
//   - so each SM now loads 16 KB of A and 16 KB of B per 128 × 256 × 64 of work: half of kernel 18's B.
//
// Around that, the pieces kernel 18 did not need:
//
//   cluster       4 CTAs: two pairs side by side along N ((h, p) = (rank % 2, rank / 2)). Both pairs need the
//                 same 256 rows of A: CTA (h, p) loads 64 of its pair-half's 128 rows and multicasts them to
//                 (h, 0) and (h, 1), so each A row is read from L2 once per cluster.
//   leader        the leader's single MMA thread waits on one barrier per stage, so the TMA loads of both CTAs
//   barriers      count their bytes on the leader's full barrier (cp.async.bulk.tensor .cta_group::2 with the
//                 leader's barrier address); only the leader arms it (expect_tx of both CTAs' 64 KB).
//   commits       tcgen05.commit.cta_group::2 ... multicast: a stage is free in all four CTAs only when both
//                 pairs' MMAs have read it (every empty barrier counts 2 commits); an accumulator is ready in
//                 both CTAs of the pair (mask 0b11 << 2p).
//   kept from 18  persistence and the two 256-column TMEM accumulators are kernel 18's; here the grid is as many
//                 clusters as fit, walking 256 × 512 cluster tiles, and the 256 epilogue threads of the pair
//                 release a buffer on the leader's tmem_empty barrier.
//   teardown      producers wait until every stage is released (no commit still in flight to their barriers),
//                 the leader's MMA thread until both accumulators are released, then a cluster barrier, then
//                 both CTAs of each pair deallocate together (tcgen05.dealloc.cta_group::2) and exit.
//
// Warp roles as kernels 17-18: warp 0 TMA producer, warp 1 TMEM allocator and (leader only) MMA issuer,
// warps 2-5 epilogue. Shared memory per CTA (227 KB available):
//   ring     6 stages × (A 16 KB + B 16 KB)                      = 192 KB
//   staging  4 epilogue warps × 2 boxes × 32 × 64 bf16           =  32 KB
//   barriers, TMEM address; rounded to 1 KB, plus 1 KB of alignment slack      total 226 KB: one CTA per SM
//
// Not run on a Blackwell GPU here (see kernels/19_tcgen05_2cta.md for what was checked and what to check
// first). Shapes: any M; N and K multiples of 8.

#include "common/arch.h"
#include "common/cluster.h"
#include "common/cuda_check.h"
#include "common/gemm_problem.h"
#include "common/mbarrier.h"
#include "common/pipeline_state.h"
#include "common/shared_storage.h"
#include "common/tcgen05.h"
#include "common/tcgen05_descriptor.h"
#include "common/tensor_map.h"
#include "common/tile_scheduler.h"
#include "common/tma.h"
#include "common/tmem.h"
#include "common/tmem_epilogue.h"

namespace gemm {
namespace {

// ---- tile parameters --------------------------------------------------------------------------------
constexpr int kPairM = 256;                 // M of one cta_group::2 MMA: 128 rows per CTA
constexpr int kPairN = 256;                 // N of one MMA: 128 rows of B per CTA, all 256 columns of D in both
constexpr int kCtaM = kPairM / 2;
constexpr int kCtaN = kPairN / 2;           // B rows each CTA loads
constexpr int kBlockK = 64;                 // one 128-byte swizzled row of bf16
constexpr int kStages = 6;                  // 6 × 32 KB
constexpr int kMmaK = kTcgen05F16K;         // 16
constexpr int kMmasPerKBlock = kBlockK / kMmaK;

constexpr int kClusterSize = 4;             // two CTA pairs along N
constexpr int kPairsPerCluster = kClusterSize / 2;
constexpr int kClusterTileM = kPairM;                       // 256
constexpr int kClusterTileN = kPairN * kPairsPerCluster;    // 512
constexpr int kABoxRows = kCtaM / kPairsPerCluster;         // 64: each CTA loads one of the 2 boxes of its A half
constexpr uint16_t kAllCtas = (1u << kClusterSize) - 1;     // 0b1111
constexpr int kGroupRows = 4;               // grouped tile order: bands of 4 cluster-tile rows

constexpr int kProducerWarp = 0;
constexpr int kMmaWarp = 1;
constexpr int kFirstEpilogueWarp = 2;
constexpr int kThreads = (kFirstEpilogueWarp + kTmemEpilogueWarps) * 32;  // 192

constexpr int kAccumulatorStages = 2;
constexpr uint32_t kAccumulatorColumns = kPairN;  // fp32: one TMEM column per column of the tile
constexpr uint32_t kTmemAllocation = tmem_allocation_columns(kAccumulatorStages * kAccumulatorColumns);  // 512
constexpr uint32_t kInstrDesc = tcgen05_instr_desc_bf16_f32(kPairM, kPairN);  // M is the pair's: 256

static_assert(tcgen05_f16_shape_is_valid(2, kPairM, kPairN));
static_assert(kInstrDesc == 0x10400490u);
static_assert(kCtaM == static_cast<int>(kTmemLanes));  // layout A: each CTA's local row i -> TMEM lane i
static_assert(kAccumulatorStages * kAccumulatorColumns <= kTmemColumns);
static_assert(kTmemAllocation == kAccumulatorStages * kAccumulatorColumns && tmem_allocation_is_valid(kTmemAllocation));
static_assert(kTmemEpilogueWarps * kTmemStoreRows == kCtaM);
static_assert(kBlockK * sizeof(bf16) == kSwizzleRowBytes);
static_assert(kABoxRows % 8 == 0);  // each box starts on a 1024-byte swizzle atom

constexpr int kTileBytesA = kCtaM * kBlockK * sizeof(bf16);          // 16 KB land in each CTA per stage
constexpr int kTileBytesB = kCtaN * kBlockK * sizeof(bf16);          // 16 KB
constexpr int kPairStageBytes = 2 * (kTileBytesA + kTileBytesB);     // 64 KB counted on the leader's barrier

struct SharedStorage {
  alignas(1024) bf16 a[kStages][kCtaM * kBlockK];
  alignas(1024) bf16 b[kStages][kCtaN * kBlockK];
  TmemStoreStaging staging[kTmemEpilogueWarps];
  uint64_t full[kStages];                      // (leader's used) TMA of both CTAs -> MMA: 1 arrival + 64 KB
  uint64_t empty[kStages];                     // MMA -> TMA: 1 commit from each pair's leader
  uint64_t tmem_full[kAccumulatorStages];      // MMA -> epilogue of both CTAs of the pair: 1 commit
  uint64_t tmem_empty[kAccumulatorStages];     // (leader's used) epilogue -> MMA: 128 threads × 2 CTAs
  uint32_t tmem_base;                          // written by tcgen05.alloc, the same in both CTAs of a pair
};
constexpr int kSharedBytes = shared_storage_bytes<SharedStorage>();
static_assert(kSharedBytes <= 227 * 1024, "sm_100 gives a CTA at most 227 KB of shared memory");

constexpr uint32_t kEmptyArrivals = kPairsPerCluster;              // one commit per pair leader
constexpr uint32_t kTmemEmptyArrivals = 2 * kTmemEpilogueWarps * 32;  // every epilogue thread of both CTAs

__global__ void __launch_bounds__(kThreads, 1)
    tcgen05_2cta_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                        const __grid_constant__ CUtensorMap map_c, GemmProblem problem) {
#if GEMM_SM100A_DEVICE_CODE
  SharedStorage& smem = shared_storage<SharedStorage>();
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const uint32_t rank = cluster_cta_rank();
  const uint32_t half = rank % 2;            // h: 0 = leader (even CTA of the pair), 1 = its peer
  const uint32_t pair = rank / 2;            // p: which N half of the cluster tile
  const uint32_t leader = rank & ~1u;        // the even CTA of this pair
  const bool is_leader = half == 0;
  const uint16_t pair_mask = static_cast<uint16_t>(0b11u << (2 * pair));
  const uint16_t a_mask = static_cast<uint16_t>((1u << half) | (1u << (half + 2)));  // same A rows: (h,0), (h,1)

  const GroupedTileOrder order{ceil_div(problem.m, kClusterTileM), ceil_div(problem.n, kClusterTileN),
                               kGroupRows};
  const int first_tile = static_cast<int>(cluster_index());
  const int tile_step = static_cast<int>(cluster_count());
  const int k_blocks = ceil_div(problem.k, kBlockK);

  // The pair's alloc (below) is a handshake through both CTAs' shared memory (its SASS arrives and stores remotely),
  // and a CTA's shared memory may be reached only once that CTA runs: this barrier is passed when all have started.
  cluster_sync();
  if (threadIdx.x == 0) {
    for (int stage = 0; stage < kStages; ++stage) {
      mbarrier_init(&smem.full[stage], 1);
      mbarrier_init(&smem.empty[stage], kEmptyArrivals);
    }
    for (int buffer = 0; buffer < kAccumulatorStages; ++buffer) {
      mbarrier_init(&smem.tmem_full[buffer], 1);
      mbarrier_init(&smem.tmem_empty[buffer], kTmemEmptyArrivals);
    }
    fence_mbarrier_init_cluster();  // visible to the other CTAs' TMA, commits and arrivals
  }
  if (warp == kMmaWarp) {  // the same warp of both CTAs of the pair allocates together
    tcgen05_alloc<2>(&smem.tmem_base, kTmemAllocation);
    tcgen05_relinquish_alloc_permit<2>();
  }
  // No CTA touches a partner's barriers before all are initialised; the TMEM address reaches every warp.
  tcgen05_fence_before_thread_sync();
  cluster_sync();
  tcgen05_fence_after_thread_sync();
  const uint32_t tmem_base = smem.tmem_base;

  if (warp == kProducerWarp) {
    if (lane == 0) {
      PipelineState<kStages> state;
      for (int tile = first_tile; tile < order.count(); tile += tile_step) {
        const TileCoord coord = order.at(tile);
        const int row0 = coord.m * kClusterTileM + static_cast<int>(half) * kCtaM;   // this CTA's rows of A and C
        const int b_row0 = coord.n * kClusterTileN + static_cast<int>(pair) * kPairN + static_cast<int>(half) * kCtaN;
        for (int k_block = 0; k_block < k_blocks; ++k_block) {
          mbarrier_wait(&smem.empty[state.stage], state.phase ^ 1);
          const uint32_t full = map_to_cta(smem_address(&smem.full[state.stage]), leader);
          if (is_leader) mbarrier_arrive_expect_tx(&smem.full[state.stage], kPairStageBytes);
          tma_load_2d_multicast_cta_pair(smem.a[state.stage] + pair * kABoxRows * kBlockK, &map_a, full,
                                         k_block * kBlockK, row0 + static_cast<int>(pair) * kABoxRows, a_mask);
          tma_load_2d_cta_pair(smem.b[state.stage], &map_b, full, k_block * kBlockK, b_row0);
          state.advance();
        }
      }
      // Tail: every stage released by both pairs' MMAs, so no commit is still on its way to this CTA.
      for (int stage = 0; stage < kStages; ++stage) {
        mbarrier_wait(&smem.empty[state.stage], state.phase ^ 1);
        state.advance();
      }
    }
  } else if (warp == kMmaWarp) {
    if (is_leader && lane == 0) {
      PipelineState<kStages> state;
      PipelineState<kAccumulatorStages> accumulator;
      for (int tile = first_tile; tile < order.count(); tile += tile_step) {
        // The epilogues of both CTAs must have read this buffer's previous tile out.
        mbarrier_wait_relaxed_cluster(&smem.tmem_empty[accumulator.stage], accumulator.phase ^ 1);
        tcgen05_fence_after_thread_sync();
        const uint32_t d = tmem_offset(tmem_base, 0, accumulator.stage * kAccumulatorColumns);
        for (int k_block = 0; k_block < k_blocks; ++k_block) {
          mbarrier_wait(&smem.full[state.stage], state.phase);
          tcgen05_fence_after_thread_sync();
          const uint32_t a_stage = smem_address(smem.a[state.stage]);
          const uint32_t b_stage = smem_address(smem.b[state.stage]);
#pragma unroll
          for (int k = 0; k < kMmasPerKBlock; ++k) {
            const uint32_t k_offset = k * kMmaK * sizeof(bf16);
            tcgen05_mma_f16_ss<2>(d, sm100_smem_descriptor_k_major_128b(a_stage + k_offset),
                                  sm100_smem_descriptor_k_major_128b(b_stage + k_offset), kInstrDesc,
                                  k_block > 0 || k > 0);
          }
          tcgen05_commit_multicast<2>(&smem.empty[state.stage], kAllCtas);  // both pairs read every stage
          state.advance();
        }
        tcgen05_commit_multicast<2>(&smem.tmem_full[accumulator.stage], pair_mask);
        accumulator.advance();
      }
      // Tail: both buffers released, so every epilogue arrival (the peer's are remote) has landed.
      for (int buffer = 0; buffer < kAccumulatorStages; ++buffer) {
        mbarrier_wait_relaxed_cluster(&smem.tmem_empty[accumulator.stage], accumulator.phase ^ 1);
        accumulator.advance();
      }
    }
    __syncwarp();
  } else {
    // Epilogue: 4 warps per CTA, lane quarters 2, 3, 0, 1; this CTA's 128 rows of the pair's 256.
    TmemStoreStaging& staging = smem.staging[warp - kFirstEpilogueWarp];
    TmemStoreBoxes boxes;  // taking turns across tiles: an edge tile may store an odd number of chunks
    PipelineState<kAccumulatorStages> accumulator;
    for (int tile = first_tile; tile < order.count(); tile += tile_step) {
      const TileCoord coord = order.at(tile);
      const int row0 = coord.m * kClusterTileM + static_cast<int>(half) * kCtaM;
      const int col0 = coord.n * kClusterTileN + static_cast<int>(pair) * kPairN;
      mbarrier_wait_relaxed_cluster(&smem.tmem_full[accumulator.stage], accumulator.phase);
      __syncwarp();
      tcgen05_fence_after_thread_sync();
      store_tmem_accumulator<kAccumulatorColumns>(tmem_offset(tmem_base, 0, accumulator.stage * kAccumulatorColumns),
                                                  staging, boxes, &map_c, problem.m, problem.n, row0, col0);
      // This thread's tcgen05.lds have completed (wait::ld): hand the buffer back to the leader's MMA thread.
      tcgen05_fence_before_thread_sync();
      mbarrier_arrive_relaxed_cluster(&smem.tmem_empty[accumulator.stage], leader);
      accumulator.advance();
    }
    if (lane == 0) tma_store_wait<0>();
    __syncwarp();
  }

  // All four CTAs are done with each other's shared memory and their pair's TMEM: free it together.
  tcgen05_fence_before_thread_sync();
  cluster_sync();
  if (warp == kMmaWarp) {
    tcgen05_fence_after_thread_sync();
    tcgen05_dealloc<2>(tmem_base, kTmemAllocation);
  }
#endif
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_tcgen05_2cta(const GemmProblem& problem) {
  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kABoxRows, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kCtaN, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_c = make_tensor_map_2d(problem.c, problem.m, problem.n, kTmemStoreRows, kTmemStoreColumns,
                                               CU_TENSOR_MAP_SWIZZLE_128B);
  CUDA_CHECK(cudaFuncSetAttribute(tcgen05_2cta_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  const int cluster_tiles = ceil_div(problem.m, kClusterTileM) * ceil_div(problem.n, kClusterTileN);
  const int clusters =
      persistent_cluster_count(tcgen05_2cta_kernel, kThreads, kSharedBytes, kClusterSize, cluster_tiles);
  const auto enqueue = [=](cudaStream_t stream) {
    launch_with_cluster(tcgen05_2cta_kernel, clusters * kClusterSize, kThreads, kSharedBytes, kClusterSize, stream,
                        map_a, map_b, map_c, problem);
  };
  return {enqueue, reinterpret_cast<const void*>(tcgen05_2cta_kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// (.2CTA: the cta_group::2 forms; UCGABAR_*: barrier.cluster, whose wait must come before the first alloc.)
// sass: sm_100a tcgen05_2cta_kernel UTCATOMSWS\.2CTA\.FIND_AND_SET UTCHMMA\.2CTA UTCBAR\.2CTA\.MULTICAST UTMALDG\.2D\.MULTICAST\.2CTA UTMALDG\.2D\.2CTA LDTM\.x32 UTMASTG\.2D \A((?!UTCATOMSWS)[\s\S])*?UCGABAR_WAIT
