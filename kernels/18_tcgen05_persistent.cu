// Kernel 18 — tcgen05, persistent: one CTA per SM loops over the tiles, with a double-buffered accumulator in Tensor
// Memory so the epilogue of one tile overlaps the MMAs of the next. sm_100a only.
//
// Kernel 17 computes one 128 × 256 tile per CTA and exits: between the last MMA of a tile and the first MMA of the
// next tile on that SM lie the whole epilogue (four warps read TMEM, convert, stage and store C), the CTA's exit,
// the next CTA's launch, its barrier set-up and TMEM allocation, and the first k block's TMA loads. The tensor core
// idles through all of it. Here, as kernel 06 did for Hopper:
//
//   persistence   the grid is one CTA per SM (never more CTAs than tiles); CTA b takes the tiles at positions
//                 b, b + grid, b + 2·grid, ... of kernel 06's grouped order (common/tile_scheduler.h), so set-up,
//                 TMEM allocation and teardown happen once per SM, and the producer loads the next tile's first
//                 stages while the MMAs finish the last one.
//   double TMEM   two 256-column accumulators (all 512 columns of the SM's TMEM). The MMA thread fills buffer
//                 t % 2 for tile t while the epilogue warps read tile t - 1 out of the other. Two more barriers
//                 hand the buffers over: tmem_full[b] (the MMA thread's tcgen05.commit after a tile's last k
//                 block: the accumulator is complete) and tmem_empty[b] (every epilogue thread arrives once its
//                 last tcgen05.ld of the buffer has completed: the MMAs of tile t + 2 may overwrite it).
//
// The MMA thread waits on tmem_empty before a tile's first MMA, which writes with the accumulate flag off, and the
// epilogue threads fence with tcgen05.fence::before_thread_sync before they arrive, so their TMEM reads are ordered
// before the next MMAs into the buffer (PTX ISA §9.7.16.6.3, specialized inter-thread synchronization of tcgen05
// through mbarriers). The epilogue staging boxes take turns across tiles (TmemStoreBoxes), since an edge tile may
// store an odd number of chunks.
//
// Warp roles, the ring, the MMA and the epilogue's TMEM reads are kernel 17's. Shared memory per CTA:
//   ring     4 stages × (A 16 KB + B 32 KB)                      = 192 KB
//   staging  4 epilogue warps × 2 boxes × 32 × 64 bf16           =  32 KB
//   barriers, TMEM address; rounded to 1 KB, plus 1 KB of alignment slack      total 226 KB: one CTA per SM
//
// Not run on a Blackwell GPU here: it is compiled for sm_100a and its SASS is checked; kernel 19 builds its CTA pair
// on this barrier protocol. Shapes: any M; N and K multiples of 8.

#include "common/arch.h"
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
constexpr int kBlockM = 128;  // one cta_group::1 MMA: all 128 TMEM lanes, one row each
constexpr int kBlockN = 256;  // the widest N of one instruction: B's 32 KB tile serves 128 rows of A per k step
constexpr int kBlockK = 64;   // one 128-byte swizzled row of bf16: the widest box a 128B-swizzled TMA load takes
constexpr int kStages = 4;    // 4 × 48 KB; the epilogue's staging takes the rest of shared memory
constexpr int kMmaK = kTcgen05F16K;  // 16
constexpr int kMmasPerKBlock = kBlockK / kMmaK;
constexpr int kGroupRows = 16;  // grouped tile order: bands of 16 tile rows, as kernel 06's

constexpr int kProducerWarp = 0;
constexpr int kMmaWarp = 1;
constexpr int kFirstEpilogueWarp = 2;
constexpr int kThreads = (kFirstEpilogueWarp + kTmemEpilogueWarps) * 32;  // 192

constexpr int kAccumulatorStages = 2;
constexpr uint32_t kAccumulatorColumns = kBlockN;  // fp32: one TMEM column per column of the tile
constexpr uint32_t kTmemAllocation = tmem_allocation_columns(kAccumulatorStages * kAccumulatorColumns);  // 512
constexpr uint32_t kInstrDesc = tcgen05_instr_desc_bf16_f32(kBlockM, kBlockN);

static_assert(tcgen05_f16_shape_is_valid(1, kBlockM, kBlockN));
static_assert(kInstrDesc == 0x08400490u);
static_assert(kBlockM == static_cast<int>(kTmemLanes));  // layout D: tile row i -> TMEM lane i
static_assert(kAccumulatorStages * kAccumulatorColumns <= kTmemColumns);
static_assert(kTmemAllocation == kAccumulatorStages * kAccumulatorColumns && tmem_allocation_is_valid(kTmemAllocation));
static_assert(kTmemEpilogueWarps * kTmemStoreRows == kBlockM);  // four lane quarters, 32 rows each
static_assert(kBlockK * sizeof(bf16) == kSwizzleRowBytes);

constexpr int kTileBytesA = kBlockM * kBlockK * sizeof(bf16);
constexpr int kTileBytesB = kBlockN * kBlockK * sizeof(bf16);

struct SharedStorage {
  alignas(1024) bf16 a[kStages][kBlockM * kBlockK];
  alignas(1024) bf16 b[kStages][kBlockN * kBlockK];
  TmemStoreStaging staging[kTmemEpilogueWarps];
  uint64_t full[kStages];                  // TMA -> MMA: both tiles of the stage have landed (1 arrival + bytes)
  uint64_t empty[kStages];                 // MMA -> TMA: the MMAs reading the stage are done (1 tcgen05.commit)
  uint64_t tmem_full[kAccumulatorStages];  // MMA -> epilogue: the buffer holds a complete tile (1 tcgen05.commit)
  uint64_t tmem_empty[kAccumulatorStages];  // epilogue -> MMA: the buffer has been read out (128 arrivals)
  uint32_t tmem_base;                      // written by tcgen05.alloc
};
constexpr int kSharedBytes = shared_storage_bytes<SharedStorage>();
static_assert(kSharedBytes <= 227 * 1024, "sm_100 gives a CTA at most 227 KB of shared memory");

constexpr uint32_t kTmemEmptyArrivals = kTmemEpilogueWarps * 32;  // every epilogue thread

__global__ void __launch_bounds__(kThreads, 1)
    tcgen05_persistent_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                              const __grid_constant__ CUtensorMap map_c, GemmProblem problem) {
#if GEMM_SM100A_DEVICE_CODE
  SharedStorage& smem = shared_storage<SharedStorage>();
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const GroupedTileOrder order{ceil_div(problem.m, kBlockM), ceil_div(problem.n, kBlockN), kGroupRows};
  const int k_blocks = ceil_div(problem.k, kBlockK);

  if (threadIdx.x == 0) {
    for (int stage = 0; stage < kStages; ++stage) {
      mbarrier_init(&smem.full[stage], 1);
      mbarrier_init(&smem.empty[stage], 1);
    }
    for (int buffer = 0; buffer < kAccumulatorStages; ++buffer) {
      mbarrier_init(&smem.tmem_full[buffer], 1);
      mbarrier_init(&smem.tmem_empty[buffer], kTmemEmptyArrivals);
    }
    fence_proxy_async_shared();
  }
  if (warp == kMmaWarp) {  // a whole warp allocates; the same warp frees at the end
    tcgen05_alloc<1>(&smem.tmem_base, kTmemAllocation);
    tcgen05_relinquish_alloc_permit<1>();
  }
  // As in kernel 17: the barrier publishes alloc's write of the address, and the fences keep alloc above it and
  // every later tcgen05 operation below (PTX ISA §9.7.16.11.1).
  tcgen05_fence_before_thread_sync();
  __syncthreads();
  tcgen05_fence_after_thread_sync();
  const uint32_t tmem_base = smem.tmem_base;  // lane 0, first allocated column

  if (warp == kProducerWarp) {
    if (lane == 0) {
      PipelineState<kStages> state;
      for (int tile = blockIdx.x; tile < order.count(); tile += gridDim.x) {
        const TileCoord coord = order.at(tile);
        for (int k_block = 0; k_block < k_blocks; ++k_block) {
          mbarrier_wait(&smem.empty[state.stage], state.phase ^ 1);
          mbarrier_arrive_expect_tx(&smem.full[state.stage], kTileBytesA + kTileBytesB);
          tma_load_2d(smem.a[state.stage], &map_a, &smem.full[state.stage], k_block * kBlockK, coord.m * kBlockM);
          tma_load_2d(smem.b[state.stage], &map_b, &smem.full[state.stage], k_block * kBlockK, coord.n * kBlockN);
          state.advance();
        }
      }
      // Tail: wait until the MMAs have released every stage, so that no tcgen05.commit still has an arrival
      // in flight to this CTA's shared memory when it exits.
      for (int stage = 0; stage < kStages; ++stage) {
        mbarrier_wait(&smem.empty[state.stage], state.phase ^ 1);
        state.advance();
      }
    }
  } else if (warp == kMmaWarp) {
    if (lane == 0) {
      PipelineState<kStages> state;
      PipelineState<kAccumulatorStages> accumulator;
      for (int tile = blockIdx.x; tile < order.count(); tile += gridDim.x) {
        // The epilogue must have read this buffer's previous tile out (passes at once for the first two tiles).
        mbarrier_wait(&smem.tmem_empty[accumulator.stage], accumulator.phase ^ 1);
        tcgen05_fence_after_thread_sync();
        const uint32_t d = tmem_offset(tmem_base, 0, accumulator.stage * kAccumulatorColumns);
        for (int k_block = 0; k_block < k_blocks; ++k_block) {
          mbarrier_wait(&smem.full[state.stage], state.phase);
          tcgen05_fence_after_thread_sync();
          const uint32_t a_stage = smem_address(smem.a[state.stage]);
          const uint32_t b_stage = smem_address(smem.b[state.stage]);
#pragma unroll
          for (int k = 0; k < kMmasPerKBlock; ++k) {
            const uint32_t k_offset = k * kMmaK * sizeof(bf16);  // +32 bytes per k16 step inside the swizzled rows
            tcgen05_mma_f16_ss<1>(d, sm100_smem_descriptor_k_major_128b(a_stage + k_offset),
                                  sm100_smem_descriptor_k_major_128b(b_stage + k_offset), kInstrDesc,
                                  k_block > 0 || k > 0);
          }
          tcgen05_commit<1>(&smem.empty[state.stage]);  // the stage is free once these MMAs have read it
          state.advance();
        }
        tcgen05_commit<1>(&smem.tmem_full[accumulator.stage]);  // every MMA of the tile done: hand it over
        accumulator.advance();
      }
    }
    __syncwarp();
  } else {
    // Epilogue warps 2-5: lane quarters 2, 3, 0, 1 (common/tmem.h) - together all 128 rows of each tile.
    TmemStoreStaging& staging = smem.staging[warp - kFirstEpilogueWarp];
    TmemStoreBoxes boxes;  // taking turns across tiles: an edge tile may store an odd number of chunks
    PipelineState<kAccumulatorStages> accumulator;
    for (int tile = blockIdx.x; tile < order.count(); tile += gridDim.x) {
      const TileCoord coord = order.at(tile);
      mbarrier_wait(&smem.tmem_full[accumulator.stage], accumulator.phase);
      __syncwarp();  // tcgen05.ld is .sync.aligned: the whole warp, converged
      tcgen05_fence_after_thread_sync();
      store_tmem_accumulator<kAccumulatorColumns>(tmem_offset(tmem_base, 0, accumulator.stage * kAccumulatorColumns),
                                                  staging, boxes, &map_c, problem.m, problem.n, coord.m * kBlockM,
                                                  coord.n * kBlockN);
      // This thread's tcgen05.lds have completed (wait::ld): hand the buffer back to the MMA thread.
      tcgen05_fence_before_thread_sync();
      mbarrier_arrive(&smem.tmem_empty[accumulator.stage]);
      accumulator.advance();
    }
    if (lane == 0) tma_store_wait<0>();  // the staging boxes stay valid until the stores have read them
    __syncwarp();
  }

  // Free the columns: every tcgen05.ld (epilogue) and MMA (complete before its tmem_full) is ordered before the
  // dealloc by the fence / barrier / fence sequence.
  tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (warp == kMmaWarp) {
    tcgen05_fence_after_thread_sync();
    tcgen05_dealloc<1>(tmem_base, kTmemAllocation);
  }
#endif
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_tcgen05_persistent(const GemmProblem& problem) {
  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kBlockN, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_c = make_tensor_map_2d(problem.c, problem.m, problem.n, kTmemStoreRows, kTmemStoreColumns,
                                               CU_TENSOR_MAP_SWIZZLE_128B);
  CUDA_CHECK(cudaFuncSetAttribute(tcgen05_persistent_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int tiles = ceil_div(problem.m, kBlockM) * ceil_div(problem.n, kBlockN);
  const int grid = tiles < sms ? tiles : sms;  // one CTA per SM (226 KB of shared memory), never more than tiles
  const auto enqueue = [=](cudaStream_t stream) {
    tcgen05_persistent_kernel<<<grid, kThreads, kSharedBytes, stream>>>(map_a, map_b, map_c, problem);
    check_launch("tcgen05_persistent_kernel");
  };
  return {enqueue, reinterpret_cast<const void*>(tcgen05_persistent_kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// (UTCATOMSWS.FIND_AND_SET is tcgen05.alloc; UTCHMMA tcgen05.mma; UTCBAR tcgen05.commit; LDTM tcgen05.ld.)
// sass: sm_100a tcgen05_persistent_kernel UTCATOMSWS\.FIND_AND_SET UTCHMMA\sgdesc UTCBAR\s LDTM\.x32 UTMALDG\.2D\s UTMASTG\.2D SYNCS\.ARRIVE\.TRANS64\.A1T0 UMOV\sUR\d+,\s0x10\b((?!UMOV)[\s\S]){0,800}?UTCATOMSWS\.FIND_AND_SET
