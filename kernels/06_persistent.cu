// Kernel 06 — persistent CTAs walking the tiles in a grouped, L2-friendly order.
//
// Kernel 05 launches one CTA per 128 × 256 tile and numbers tiles row by row (N fastest). Two costs follow:
//
//   fill and drain   every CTA starts with an empty ring (the first TMA round trip is exposed) and ends with
//                    its epilogue while the tensor cores of its SM idle;
//   L2 reuse         the ~132 CTAs in flight together cover a few whole rows of tiles, so every wave streams
//                    all of B from DRAM (at 8192³, 128 MB per wave against a 50-60 MB L2).
//
// Here the grid is one CTA per SM (read from the device) and each CTA loops over tiles: CTA b takes the
// tiles at positions b, b + grid, b + 2·grid, ... of a grouped order (common/tile_scheduler.h): bands of
// kGroupRows tile rows, walked column by column, so the tiles in flight form a near-square block and A and B
// are each read from DRAM a few times instead of once per wave. The producer runs ahead into the next
// tile's k blocks while the consumers finish the current one and store it, so only the very first fill of
// each CTA is exposed.
//
// What persistence changes in the pipeline:
//   - the ring's stage and phase run on across tiles (common/pipeline_state.h) instead of being derived from
//     the k index;
//   - every stage is released, including the one holding a tile's last k block (kernels 04-05 never
//     released it: harmless with one tile per CTA, a deadlock when the producer comes round to it again);
//   - the accumulators are reused: the first k step of each tile issues its wgmma with scale-d = 0, which
//     overwrites them instead of adding, so no clearing loop is needed.
//
// Everything else (tile, ring depth, warp roles, setmaxnreg budget) is kernel 05's.
//
// Shapes: any M; N and K multiples of 8.

#include "common/arch.h"
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
constexpr int kGroupRows = 16;  // tile rows per band: a wave of 132 tiles is ~16 × 8 tiles, 2048 × 2048 of C
static_assert(kConsumers * kWgmmaM == kBlockM);

constexpr int kTileBytesA = kBlockM * kBlockK * sizeof(bf16);
constexpr int kTileBytesB = kBlockN * kBlockK * sizeof(bf16);
constexpr int kRowBytes = kBlockK * sizeof(bf16);

struct SharedStorage {
  alignas(1024) bf16 a[kStages][kBlockM * kBlockK];
  alignas(1024) bf16 b[kStages][kBlockN * kBlockK];
  uint64_t full[kStages];   // producer -> consumers: the stage's tiles have landed
  uint64_t empty[kStages];  // consumers -> producer: every consumer warp is done reading the stage
};
constexpr int kSharedBytes = shared_storage_bytes<SharedStorage>();

__global__ void __launch_bounds__(kThreads, 1)
    persistent_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                      GemmProblem problem) {
#if GEMM_SM90A_DEVICE_CODE
  SharedStorage& smem = shared_storage<SharedStorage>();
  const GroupedTileOrder order{ceil_div(problem.m, kBlockM), ceil_div(problem.n, kBlockN), kGroupRows};
  const int k_blocks = ceil_div(problem.k, kBlockK);
  const int warpgroup = threadIdx.x / kWarpgroupThreads;

  if (threadIdx.x == 0) {
    for (int stage = 0; stage < kStages; ++stage) {
      mbarrier_init(&smem.full[stage], 1);
      mbarrier_init(&smem.empty[stage], kConsumers * 4);
    }
    fence_proxy_async_shared();
  }
  __syncthreads();  // the last CTA-wide barrier: from here on the roles only meet at mbarriers

  if (warpgroup == 0) {
    // ---- producer: one thread issues every load of every tile of this CTA ----
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      PipelineState<kStages> write;
      for (int tile = blockIdx.x; tile < order.count(); tile += gridDim.x) {
        const TileCoord coord = order.at(tile);
        for (int k_block = 0; k_block < k_blocks; ++k_block) {
          mbarrier_wait(&smem.empty[write.stage], write.phase ^ 1);
          mbarrier_arrive_expect_tx(&smem.full[write.stage], kTileBytesA + kTileBytesB);
          tma_load_2d(smem.a[write.stage], &map_a, &smem.full[write.stage], k_block * kBlockK, coord.m * kBlockM);
          tma_load_2d(smem.b[write.stage], &map_b, &smem.full[write.stage], k_block * kBlockK, coord.n * kBlockN);
          write.advance();
        }
      }
    }
  } else {
    // ---- consumers: warpgroup c owns rows 64(c - 1) .. 64(c - 1) + 63 of each tile ----
    setmaxnreg_inc<kConsumerRegisters>();
    const int consumer = warpgroup - 1;
    const bool warp_leader = threadIdx.x % 32 == 0;
    float acc[kBlockN / 2];  // written by each tile's first wgmma (scale-d = 0): no clearing
    PipelineState<kStages> read, release;
    for (int tile = blockIdx.x; tile < order.count(); tile += gridDim.x) {
      const TileCoord coord = order.at(tile);
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
          if (warp_leader) mbarrier_arrive(&smem.empty[release.stage]);
          release.advance();
        }
      }
      wgmma_wait_group<0>();  // the tile's last group is done: release its stage too
      if (warp_leader) mbarrier_arrive(&smem.empty[release.stage]);
      release.advance();
      wgmma_fence_operands(acc);
      store_accumulators_m64<kBlockN>(acc, problem.c, problem.m, problem.n, coord.m * kBlockM + consumer * kWgmmaM,
                                      coord.n * kBlockN);
    }
  }
#endif
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_persistent(const GemmProblem& problem) {
  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kBlockN, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  CUDA_CHECK(cudaFuncSetAttribute(persistent_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int tiles = ceil_div(problem.m, kBlockM) * ceil_div(problem.n, kBlockN);
  const int grid = tiles < sms ? tiles : sms;  // one CTA per SM, never more CTAs than tiles
  const auto enqueue = [=](cudaStream_t stream) {
    persistent_kernel<<<grid, kThreads, kSharedBytes, stream>>>(map_a, map_b, problem);
    check_launch("persistent_kernel");
  };
  return {enqueue, reinterpret_cast<const void*>(persistent_kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// (17persistent_kernelE: the mangled name with its length, so that chapter 18's tcgen05_persistent_kernel, which
// also holds "persistent_kernel", is not taken for this one.)
// sass: sm_90a 17persistent_kernelE HGMMA\.64x256x16\.F32\.BF16 UTMALDG\.2D SYNCS\.ARRIVE\.TRANS64 SYNCS\.PHASECHK\.TRANS64 USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8 c\[0x0\]\[0xc\] HGMMA\.64x256x16\.F32\.BF16\sR\d+,\sgdesc\[UR\d+\],\sR\d+,\sU?P\d
