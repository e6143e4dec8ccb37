// Kernel 04 — warp specialization: a producer warpgroup feeds consumer warpgroups through a ring of
// shared-memory stages guarded by full/empty mbarriers.
//
// In kernel 03 the warpgroup that computes also loads: once per k block it waits for its previous wgmma
// group, meets at a barrier, and only then can thread 0 refill a stage. Here the roles are split:
//
//   producer   warpgroup 0. Thread 0 walks the k blocks, waits until a stage is empty, and issues its TMA
//              loads. It never waits on the math itself, only for a stage to come free; since a stage is
//              released one k block late (below), it runs at most kStages - 1 tiles ahead of the tile being
//              computed (kernels/04_producer_consumer.md).
//   consumers  warpgroups 1 and 2, each owning 64 rows of the 128 × 128 tile. They wait until a stage is
//              full, issue its wgmma group, and hand the stage of the previous k block back to the producer
//              as soon as that group has finished reading it. No __syncthreads anywhere in the loop.
//
// The ring: stage s = k_block % kStages is used for the n-th time when n = k_block / kStages.
//   full[s]   1 arrival (the producer's expect_tx) + the tiles' bytes; completes phase n when fill n lands.
//             Consumers wait for parity n % 2.
//   empty[s]  one arrival per consumer warp (8); completes phase n when use n is released. Before fill n the
//             producer waits for parity (n % 2) ^ 1: for n = 0 that is the phase "before" a fresh barrier,
//             which counts as complete, so the first pass over the ring does not wait.
//
// Same tile as kernel 03 (128 × 128 × 64), so the difference measured is the specialization alone. One
// CTA per SM (384 threads) with a deeper ring: 6 stages × 32 KB.
//
// Shapes: any M; N and K multiples of 8.

#include "common/arch.h"
#include "common/cuda_check.h"
#include "common/gemm_problem.h"
#include "common/mbarrier.h"
#include "common/shared_storage.h"
#include "common/tensor_map.h"
#include "common/tma.h"
#include "common/wgmma.h"
#include "common/wgmma_epilogue.h"

namespace gemm {
namespace {

// ---- tile parameters --------------------------------------------------------------------------------
constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 64;
constexpr int kStages = 6;           // 6 × 32 KB = 192 KB
constexpr int kConsumers = 2;        // consumer warpgroups, 64 rows each
constexpr int kWarpgroupThreads = 128;
constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
constexpr int kWgmmaM = 64;
constexpr int kWgmmaK = 16;
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
    producer_consumer_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                             GemmProblem problem) {
#if GEMM_SM90A_DEVICE_CODE
  SharedStorage& smem = shared_storage<SharedStorage>();
  const int tiles_n = ceil_div(problem.n, kBlockN);
  const int block_row = (blockIdx.x / tiles_n) * kBlockM;
  const int block_col = (blockIdx.x % tiles_n) * kBlockN;
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
    // ---- producer: one thread issues every load ----
    if (threadIdx.x == 0) {
      for (int k_block = 0; k_block < k_blocks; ++k_block) {
        const int stage = k_block % kStages;
        mbarrier_wait(&smem.empty[stage], ((k_block / kStages) % 2) ^ 1);
        mbarrier_arrive_expect_tx(&smem.full[stage], kTileBytesA + kTileBytesB);
        tma_load_2d(smem.a[stage], &map_a, &smem.full[stage], k_block * kBlockK, block_row);
        tma_load_2d(smem.b[stage], &map_b, &smem.full[stage], k_block * kBlockK, block_col);
      }
    }
  } else {
    // ---- consumers: warpgroup c owns rows 64(c - 1) .. 64(c - 1) + 63 of the tile ----
    const int consumer = warpgroup - 1;
    float acc[kBlockN / 2] = {};
    wgmma_fence_operands(acc);
    for (int k_block = 0; k_block < k_blocks; ++k_block) {
      const int stage = k_block % kStages;
      mbarrier_wait(&smem.full[stage], (k_block / kStages) % 2);
      wgmma_fence();
      const uint32_t a_base = smem_address(smem.a[stage]) + consumer * kWgmmaM * kRowBytes;
      const uint32_t b_base = smem_address(smem.b[stage]);
#pragma unroll
      for (int k_step = 0; k_step < kBlockK / kWgmmaK; ++k_step) {
        const uint32_t k_offset = k_step * kWgmmaK * sizeof(bf16);
        wgmma_m64n128k16(acc, wgmma_descriptor_k_major_128b(a_base + k_offset),
                         wgmma_descriptor_k_major_128b(b_base + k_offset));
      }
      wgmma_commit_group();
      wgmma_wait_group<1>();  // the previous k block's group is done: release its stage
      if (k_block >= 1 && threadIdx.x % 32 == 0) mbarrier_arrive(&smem.empty[(k_block - 1) % kStages]);
    }
    wgmma_wait_group<0>();
    wgmma_fence_operands(acc);
    store_accumulators_m64<kBlockN>(acc, problem.c, problem.m, problem.n, block_row + consumer * kWgmmaM, block_col);
  }
#endif
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_producer_consumer(const GemmProblem& problem) {
  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kBlockN, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  CUDA_CHECK(cudaFuncSetAttribute(producer_consumer_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  const int tiles = ceil_div(problem.m, kBlockM) * ceil_div(problem.n, kBlockN);
  const auto enqueue = [=](cudaStream_t stream) {
    producer_consumer_kernel<<<tiles, kThreads, kSharedBytes, stream>>>(map_a, map_b, problem);
    check_launch("producer_consumer_kernel");
  };
  return {enqueue, reinterpret_cast<const void*>(producer_consumer_kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// sass: sm_90a producer_consumer_kernel HGMMA\.64x128x16\.F32\.BF16 UTMALDG\.2D SYNCS\.ARRIVE\.TRANS64 SYNCS\.PHASECHK\.TRANS64 SYNCS\.ARRIVE\.TRANS64\.A1T0
