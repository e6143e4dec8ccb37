// Kernel 17 — tcgen05: Blackwell's tensor cores, with the accumulator in Tensor Memory. sm_100a only.
//
// On Hopper (kernels 03-05) a warpgroup issues wgmma and the accumulator occupies its registers: a 128 × 256
// fp32 tile costs two consumer warpgroups 128 registers per thread. Kernel 05 moves registers to them with
// setmaxnreg, though its notes found they fit without it (154 registers, no spills); the budget binds once a
// consumer holds more (a 256 × 192 tile, 192 accumulators a thread, spills without it). Blackwell's
// fifth-generation tensor core (tcgen05) changes the contract:
//
//   one thread     issues tcgen05.mma for the whole CTA: M = 128, N = 256, K = 16 per instruction, both
//                  operands read from shared memory through descriptors (common/tcgen05_descriptor.h)
//   Tensor Memory  the accumulator lives in TMEM (common/tmem.h), 128 lanes × 512 columns of 32 bits per SM
//                  next to the tensor core: row i of the tile in lane i, column j in column j. Allocated by
//                  one warp (tcgen05.alloc: 256 columns here), freed by the same warp before exit.
//   commit         tcgen05.commit arrives on an mbarrier when the MMAs issued before it are done: that frees
//                  a shared-memory stage (empty barrier) and, after the last k block, hands the accumulator to
//                  the epilogue (tmem_full barrier). Nothing waits with wgmma.wait_group any more.
//   tcgen05.ld     the epilogue reads TMEM into registers; warp w may read only lanes 32·(w % 4) ... + 31,
//                  so four warps read the 128 rows, 32 each (common/tmem_epilogue.h), and TMA stores C.
//
// Warp roles (6 warps, 192 threads; the registers are nearly free now, so no setmaxnreg):
//
//   warp 0      TMA producer: one thread fills a 4-stage ring of A (128 × 64) and B (256 × 64) tiles
//   warp 1      TMEM allocator (whole warp) and MMA issuer (one thread): 4 × tcgen05.mma per k block
//   warps 2-5   epilogue: wait for the accumulator, tcgen05.ld, convert to bf16, TMA-store C
//
// One CTA computes one 128 × 256 tile and exits (kernel 18 makes the grid persistent). The tcgen05.fence
// pairs around every thread barrier that hands TMEM from one thread to another are the part ptxas cannot
// check; kernels/17_tcgen05.md derives each one.
//
// Shared memory (227 KB per CTA available on sm_100):
//   ring     4 stages × (A 16 KB + B 32 KB)                      = 192 KB
//   staging  4 epilogue warps × 2 boxes × 32 × 64 bf16           =  32 KB
//   barriers, TMEM address; rounded to 1 KB, plus 1 KB of alignment slack      total 226 KB: one CTA per SM
//
// Not run on a Blackwell GPU here: it is compiled for sm_100a, its SASS is checked, and its descriptors and
// TMEM index math are checked against CUTLASS/CuTe on the host (tests/cute). Shapes: any M; N and K multiples
// of 8 (TMA's 16-byte rows); edge tiles are zero-filled by TMA loads and clipped by TMA stores.

#include "common/arch.h"
#include "common/cuda_check.h"
#include "common/gemm_problem.h"
#include "common/mbarrier.h"
#include "common/pipeline_state.h"
#include "common/shared_storage.h"
#include "common/tcgen05.h"
#include "common/tcgen05_descriptor.h"
#include "common/tensor_map.h"
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

constexpr int kProducerWarp = 0;
constexpr int kMmaWarp = 1;
constexpr int kFirstEpilogueWarp = 2;
constexpr int kThreads = (kFirstEpilogueWarp + kTmemEpilogueWarps) * 32;  // 192

constexpr uint32_t kAccumulatorColumns = kBlockN;  // fp32: one TMEM column per column of the tile
constexpr uint32_t kTmemAllocation = tmem_allocation_columns(kAccumulatorColumns);
constexpr uint32_t kInstrDesc = tcgen05_instr_desc_bf16_f32(kBlockM, kBlockN);

static_assert(tcgen05_f16_shape_is_valid(1, kBlockM, kBlockN));
static_assert(kInstrDesc == 0x08400490u);
static_assert(kBlockM == static_cast<int>(kTmemLanes));  // layout D: tile row i -> TMEM lane i
static_assert(kTmemAllocation == kAccumulatorColumns && tmem_allocation_is_valid(kTmemAllocation));
static_assert(kTmemEpilogueWarps * kTmemStoreRows == kBlockM);  // four lane quarters, 32 rows each
static_assert(kBlockK * sizeof(bf16) == kSwizzleRowBytes);

constexpr int kTileBytesA = kBlockM * kBlockK * sizeof(bf16);
constexpr int kTileBytesB = kBlockN * kBlockK * sizeof(bf16);

struct SharedStorage {
  alignas(1024) bf16 a[kStages][kBlockM * kBlockK];
  alignas(1024) bf16 b[kStages][kBlockN * kBlockK];
  TmemStoreStaging staging[kTmemEpilogueWarps];
  uint64_t full[kStages];   // TMA -> MMA: both tiles of the stage have landed (1 arrival + bytes)
  uint64_t empty[kStages];  // MMA -> TMA: the MMAs reading the stage are done (1 tcgen05.commit)
  uint64_t tmem_full;       // MMA -> epilogue: the accumulator is complete (1 tcgen05.commit)
  uint32_t tmem_base;       // written by tcgen05.alloc
};
constexpr int kSharedBytes = shared_storage_bytes<SharedStorage>();
static_assert(kSharedBytes <= 227 * 1024, "sm_100 gives a CTA at most 227 KB of shared memory");

__global__ void __launch_bounds__(kThreads, 1)
    tcgen05_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   const __grid_constant__ CUtensorMap map_c, GemmProblem problem) {
#if GEMM_SM100A_DEVICE_CODE
  SharedStorage& smem = shared_storage<SharedStorage>();
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int tiles_n = ceil_div(problem.n, kBlockN);
  const int block_row = (blockIdx.x / tiles_n) * kBlockM;
  const int block_col = (blockIdx.x % tiles_n) * kBlockN;
  const int k_blocks = ceil_div(problem.k, kBlockK);

  if (threadIdx.x == 0) {
    for (int stage = 0; stage < kStages; ++stage) {
      mbarrier_init(&smem.full[stage], 1);
      mbarrier_init(&smem.empty[stage], 1);
    }
    mbarrier_init(&smem.tmem_full, 1);
    fence_proxy_async_shared();
  }
  if (warp == kMmaWarp) {  // a whole warp allocates; the same warp frees at the end
    tcgen05_alloc<1>(&smem.tmem_base, kTmemAllocation);
    tcgen05_relinquish_alloc_permit<1>();
  }
  // alloc's write of the address is a weak shared-memory store that the barrier publishes. The fences are code-motion
  // fences for all tcgen05 ops (alloc stays above, mma/ld below) and order the async mma/ld (PTX ISA §9.7.16.11.1).
  tcgen05_fence_before_thread_sync();
  __syncthreads();
  tcgen05_fence_after_thread_sync();
  const uint32_t accumulator = smem.tmem_base;  // lane 0, first allocated column

  if (warp == kProducerWarp) {
    if (lane == 0) {
      PipelineState<kStages> state;
      for (int k_block = 0; k_block < k_blocks; ++k_block) {
        mbarrier_wait(&smem.empty[state.stage], state.phase ^ 1);
        mbarrier_arrive_expect_tx(&smem.full[state.stage], kTileBytesA + kTileBytesB);
        tma_load_2d(smem.a[state.stage], &map_a, &smem.full[state.stage], k_block * kBlockK, block_row);
        tma_load_2d(smem.b[state.stage], &map_b, &smem.full[state.stage], k_block * kBlockK, block_col);
        state.advance();
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
      for (int k_block = 0; k_block < k_blocks; ++k_block) {
        mbarrier_wait(&smem.full[state.stage], state.phase);
        tcgen05_fence_after_thread_sync();
        const uint32_t a_stage = smem_address(smem.a[state.stage]);
        const uint32_t b_stage = smem_address(smem.b[state.stage]);
#pragma unroll
        for (int k = 0; k < kMmasPerKBlock; ++k) {
          const uint32_t k_offset = k * kMmaK * sizeof(bf16);  // +32 bytes per k16 step inside the swizzled rows
          tcgen05_mma_f16_ss<1>(accumulator, sm100_smem_descriptor_k_major_128b(a_stage + k_offset),
                                sm100_smem_descriptor_k_major_128b(b_stage + k_offset), kInstrDesc,
                                k_block > 0 || k > 0);
        }
        tcgen05_commit<1>(&smem.empty[state.stage]);  // the stage is free once these MMAs have read it
        state.advance();
      }
      tcgen05_commit<1>(&smem.tmem_full);  // every MMA done: the accumulator is the tile's C
    }
    __syncwarp();
  } else {
    // Epilogue warps 2-5: lane quarters 2, 3, 0, 1 (common/tmem.h) - together all 128 rows.
    mbarrier_wait(&smem.tmem_full, 0);
    __syncwarp();  // tcgen05.ld is .sync.aligned: the whole warp, converged
    tcgen05_fence_after_thread_sync();
    TmemStoreBoxes boxes;
    store_tmem_accumulator<kBlockN>(accumulator, smem.staging[warp - kFirstEpilogueWarp], boxes, &map_c, problem.m,
                                    problem.n, block_row, block_col);
    if (lane == 0) tma_store_wait<0>();  // the staging boxes stay valid until the stores have read them
    __syncwarp();
  }

  // Free the columns: every tcgen05.ld (epilogue) and MMA (complete before tmem_full) is ordered before the
  // dealloc by the fence / barrier / fence sequence.
  tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (warp == kMmaWarp) {
    tcgen05_fence_after_thread_sync();
    tcgen05_dealloc<1>(accumulator, kTmemAllocation);
  }
#endif
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_tcgen05(const GemmProblem& problem) {
  const CUtensorMap map_a = make_tensor_map_2d(problem.a, problem.m, problem.k, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = make_tensor_map_2d(problem.b, problem.n, problem.k, kBlockN, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_c = make_tensor_map_2d(problem.c, problem.m, problem.n, kTmemStoreRows, kTmemStoreColumns,
                                               CU_TENSOR_MAP_SWIZZLE_128B);
  CUDA_CHECK(cudaFuncSetAttribute(tcgen05_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  const int tiles = ceil_div(problem.m, kBlockM) * ceil_div(problem.n, kBlockN);
  const auto enqueue = [=](cudaStream_t stream) {
    tcgen05_kernel<<<tiles, kThreads, kSharedBytes, stream>>>(map_a, map_b, map_c, problem);
    check_launch("tcgen05_kernel");
  };
  return {enqueue, reinterpret_cast<const void*>(tcgen05_kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// (UTCATOMSWS.FIND_AND_SET is tcgen05.alloc; UTCHMMA tcgen05.mma; UTCBAR tcgen05.commit; LDTM tcgen05.ld.)
// sass: sm_100a tcgen05_kernel UTCATOMSWS\.FIND_AND_SET UTCHMMA\sgdesc UTCBAR\s LDTM\.x32 UTMALDG\.2D\s UTMASTG\.2D
