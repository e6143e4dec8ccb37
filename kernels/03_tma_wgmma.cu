// Kernel 03 — TMA loads and wgmma: the Hopper way to feed the tensor cores.
//
// Kernel 02 moved tiles with cp.async (every thread computes addresses, one 16-byte copy at a time) and ran
// one warp-wide mma.sync per 16×8×16 piece, with ldmatrix shuffling fragments into registers first. Hopper
// replaces all three:
//
//   TMA        One thread asks the Tensor Memory Accelerator for a whole 128 × 64 tile. The copy engine
//              computes the addresses from a tensor map made on the host, writes the tile 128-byte swizzled
//              (common/swizzle.h), zero-fills what lies past M, N or K, and counts the bytes it delivered
//              on an mbarrier (common/mbarrier.h). The other threads never touch the load.
//   wgmma      A warpgroup (4 warps) multiplies a 64×16 slice of A by a 16×128 slice of B per instruction,
//              reading both straight from shared memory through descriptors (common/wgmma.h): no ldmatrix,
//              no operand registers. It is asynchronous: a k block's 8 instructions are committed as one
//              group and the warpgroup only waits when it needs a stage back.
//   mbarrier   Each stage has a "full" barrier; the consumer waits on its phase parity instead of
//              __syncthreads-ing on every load.
//
// One warpgroup of 128 threads owns a 128 × 128 tile of C (two m64n128 accumulators: 128 fp32 registers per
// thread). A ring of 3 stages (32 KB each) keeps loads ahead of the math; with 96 KB per CTA two CTAs share
// an SM, so one's waits hide behind the other's wgmma. The same threads load and compute: after a k block's
// wgmma group is issued, the group before it is waited for and, past a barrier of the warpgroup, thread 0
// refills its stage. Kernel 04 separates those roles.
//
// Shapes: any M; N and K multiples of 8. K because TMA needs 16-byte-aligned rows of A and B (K·2 bytes apart);
// N because it is the ladder's shared rule for its TMA kernels (kTmaAligned), which TMA itself needs for N
// only from kernel 08 on (C stored through a tensor map); the epilogue here needs only an even N. Edge tiles
// are zero-filled by TMA and masked in the epilogue.

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
constexpr int kBlockK = 64;      // one 128-byte swizzle row of bf16: the widest box a 128B-swizzled TMA load takes
constexpr int kStages = 3;       // 3 × 32 KB: two CTAs fit in an SM's 227 KB
constexpr int kThreads = 128;    // one warpgroup
constexpr int kWgmmaM = 64;      // rows per wgmma (fixed by the instruction)
constexpr int kWgmmaK = 16;      // k per wgmma for 16-bit inputs (fixed by the instruction)
constexpr int kMHalves = kBlockM / kWgmmaM;  // the warpgroup issues one m64n128 per 64-row half

constexpr int kTileBytesA = kBlockM * kBlockK * sizeof(bf16);
constexpr int kTileBytesB = kBlockN * kBlockK * sizeof(bf16);
constexpr int kRowBytes = kBlockK * sizeof(bf16);  // 128

struct SharedStorage {
  alignas(1024) bf16 a[kStages][kBlockM * kBlockK];
  alignas(1024) bf16 b[kStages][kBlockN * kBlockK];
  uint64_t full[kStages];  // completes when both tiles of the stage have landed
};
constexpr int kSharedBytes = shared_storage_bytes<SharedStorage>();

__global__ void __launch_bounds__(kThreads, 2)
    tma_wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     GemmProblem problem) {
#if GEMM_SM90A_DEVICE_CODE
  SharedStorage& smem = shared_storage<SharedStorage>();
  const int tiles_n = ceil_div(problem.n, kBlockN);
  const int block_row = (blockIdx.x / tiles_n) * kBlockM;
  const int block_col = (blockIdx.x % tiles_n) * kBlockN;
  const int k_blocks = ceil_div(problem.k, kBlockK);

  if (threadIdx.x == 0) {
    for (int stage = 0; stage < kStages; ++stage) mbarrier_init(&smem.full[stage], 1);
    fence_proxy_async_shared();  // the barriers must be initialised before TMA signals them
  }
  __syncthreads();

  // Thread 0 only: announce the stage's bytes on its barrier and start both tile copies.
  auto load_k_tile = [&](int k_block) {
    const int stage = k_block % kStages;
    mbarrier_arrive_expect_tx(&smem.full[stage], kTileBytesA + kTileBytesB);
    tma_load_2d(smem.a[stage], &map_a, &smem.full[stage], k_block * kBlockK, block_row);
    tma_load_2d(smem.b[stage], &map_b, &smem.full[stage], k_block * kBlockK, block_col);
  };
  if (threadIdx.x == 0)
    for (int k_block = 0; k_block < kStages && k_block < k_blocks; ++k_block) load_k_tile(k_block);

  float acc[kMHalves][kBlockN / 2] = {};
  for (auto& half : acc) wgmma_fence_operands(half);

  for (int k_block = 0; k_block < k_blocks; ++k_block) {
    const int stage = k_block % kStages;
    mbarrier_wait(&smem.full[stage], (k_block / kStages) % 2);  // the stage's n-th fill is phase n

    wgmma_fence();
    const uint32_t a_base = smem_address(smem.a[stage]);
    const uint32_t b_base = smem_address(smem.b[stage]);
#pragma unroll
    for (int k_step = 0; k_step < kBlockK / kWgmmaK; ++k_step) {
      const uint64_t descriptor_b = wgmma_descriptor_k_major_128b(b_base + k_step * kWgmmaK * sizeof(bf16));
#pragma unroll
      for (int half = 0; half < kMHalves; ++half) {
        const uint64_t descriptor_a =
            wgmma_descriptor_k_major_128b(a_base + half * kWgmmaM * kRowBytes + k_step * kWgmmaK * sizeof(bf16));
        wgmma_m64n128k16(acc[half], descriptor_a, descriptor_b);
      }
    }
    wgmma_commit_group();
    // Keep this k block's group in flight; the previous one must be done so its stage can be refilled.
    wgmma_wait_group<1>();
    __syncthreads();  // every warp of the group has passed its wait
    const int refill = k_block - 1 + kStages;
    if (threadIdx.x == 0 && k_block >= 1 && refill < k_blocks) load_k_tile(refill);
  }
  wgmma_wait_group<0>();
  for (auto& half : acc) wgmma_fence_operands(half);

#pragma unroll
  for (int half = 0; half < kMHalves; ++half)
    store_accumulators_m64<kBlockN>(acc[half], problem.c, problem.m, problem.n, block_row + half * kWgmmaM, block_col);
#endif
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_tma_wgmma(const GemmProblem& problem) {
  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kBlockN, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  CUDA_CHECK(cudaFuncSetAttribute(tma_wgmma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  const int tiles = ceil_div(problem.m, kBlockM) * ceil_div(problem.n, kBlockN);
  const auto enqueue = [=](cudaStream_t stream) {
    tma_wgmma_kernel<<<tiles, kThreads, kSharedBytes, stream>>>(map_a, map_b, problem);
    check_launch("tma_wgmma_kernel");
  };
  return {enqueue, reinterpret_cast<const void*>(tma_wgmma_kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// sass: sm_90a tma_wgmma_kernel HGMMA\.64x128x16\.F32\.BF16 UTMALDG\.2D SYNCS\.ARRIVE\.TRANS64 SYNCS\.PHASECHK\.TRANS64
