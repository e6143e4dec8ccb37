// Kernel 05 — setmaxnreg: a larger tile, paid for with the producer's registers.
//
// Kernel 04's consumers each hold a 64 × 128 accumulator (64 fp32 registers per thread), and each k16 step
// reads a 16 × 128 slice of B for only 64 rows of A. Doubling the tile to 128 × 256 (m64n256 per consumer)
// lets every A element loaded serve 256 columns instead of 128. Bytes loaded per multiply-add go as
// 1/BM + 1/BN: 2/128 -> 3/256, 25 % less traffic from L2 into shared memory; wgmma's shared-memory reads per
// multiply-add go as 1/N + 1/64 per warpgroup: 3/128 -> 5/256, about 17 % less (kernels/05_setmaxnreg.md).
// The price is 128 accumulator registers per consumer thread, plus addressing. That still fits the 168 a
// 384-thread CTA gets per thread when registers are split evenly: without the two setmaxnreg lines ptxas
// uses 154 registers for the whole kernel and spills nothing (the consumer branch uses 152 with them), so for
// this tile setmaxnreg buys room, not the fit (kernels/05_setmaxnreg.md measures no difference).
//
// The producer needs almost none of its 168: one thread issues TMA, the others exit. setmaxnreg moves the
// difference at run time (common/setmaxnreg.h):
//
//   compiled cap     65536 / 384 threads                       = 168 per thread
//   producer         setmaxnreg.dec 40     128 threads × 40    =  5120
//   2 consumers      setmaxnreg.inc 232    256 threads × 232   = 59392
//                                                        total = 64512 = 168 × 384, all the CTA holds
//
// (65536 / 384 = 170.67, rounded down to a multiple of 8: launch_register_cap in common/setmaxnreg.h.)
//
// __launch_bounds__(384, 1) gives the compile-time cap that setmaxnreg needs, and the two roles are the two
// branches of one if/else. Everything else (the ring, the barriers, the phases) is kernel 04's; the ring has
// 4 stages now, since a stage is 48 KB.
//
// Shapes: any M; N and K multiples of 8.

#include "common/arch.h"
#include "common/cuda_check.h"
#include "common/gemm_problem.h"
#include "common/mbarrier.h"
#include "common/setmaxnreg.h"
#include "common/shared_storage.h"
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
constexpr int kConsumerRegisters = 232;  // 128 accumulators + addressing; 128 × 40 + 256 × 232 = 168 × 384
static_assert(setmaxnreg_budget_fits(kProducerRegisters, kConsumers, kConsumerRegisters),
              "setmaxnreg hands out only the registers the CTA was launched with (common/setmaxnreg.h)");
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
    setmaxnreg_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
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
    setmaxnreg_dec<kProducerRegisters>();
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
    setmaxnreg_inc<kConsumerRegisters>();
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
        wgmma_m64n256k16(acc, wgmma_descriptor_k_major_128b(a_base + k_offset),
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
GemmLaunch prepare_setmaxnreg(const GemmProblem& problem) {
  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kBlockN, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  CUDA_CHECK(cudaFuncSetAttribute(setmaxnreg_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  const int tiles = ceil_div(problem.m, kBlockM) * ceil_div(problem.n, kBlockN);
  const auto enqueue = [=](cudaStream_t stream) {
    setmaxnreg_kernel<<<tiles, kThreads, kSharedBytes, stream>>>(map_a, map_b, problem);
    check_launch("setmaxnreg_kernel");
  };
  return {enqueue, reinterpret_cast<const void*>(setmaxnreg_kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// sass: sm_90a setmaxnreg_kernel HGMMA\.64x256x16\.F32\.BF16 UTMALDG\.2D SYNCS\.ARRIVE\.TRANS64 SYNCS\.PHASECHK\.TRANS64 USETMAXREG\.DEALLOC\.CTAPOOL\s0x28 USETMAXREG\.TRY_ALLOC\.CTAPOOL.*0xe8
