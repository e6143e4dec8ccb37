// Kernel 02 — tensor cores through mma.sync, fed by ldmatrix from XOR-swizzled shared memory and a
// cp.async multistage pipeline.
//
// Kernel 01 spends one FFMA instruction per multiply-add. An mma.sync.m16n8k16 instruction does 2048
// multiply-adds for one warp, so the arithmetic stops being the limit and the work becomes feeding the
// tensor cores:
//
//   cp.async      global -> shared copies that skip the register file and run in the background; a ring of
//                 3 stages keeps 2 k blocks in flight while the third is computed.
//   swizzle       a 128-byte row of the tile (64 bf16) covers all 32 banks; storing 16-byte chunk c of row r
//                 at position c ^ (r % 8) makes ldmatrix's 8-row column reads conflict-free (common/swizzle.h).
//   ldmatrix.x4   one instruction loads a 16×16 bf16 fragment into the exact register layout mma expects.
//   mma.sync      m16n8k16, bf16 inputs, fp32 accumulators; a warp owns a 64×64 tile = 4×8 instructions
//                 per k16 step, and the next step's fragments are loaded while these run.
//
// Block tile 128×128×64 with 4 warps (2 × 2). A 64×64 warp tile needs 228 registers per thread (ptxas, sm_90a,
// the cp.async instantiation; 220 with element-wise loads), so an SM holds at most 8 such warps; they are
// spread over two independent CTAs (96 KB of shared memory each) rather than one CTA of 8, so that one CTA's
// barrier waits and pipeline refills overlap the other's mma work (measured against the alternatives in
// docs/log/02_mma_sync.md).
//
// Shapes: any M, N, K ≥ 1. When K is a multiple of 8, rows are 16-byte aligned and cp.async zero-fills the
// chunks past M, N or K; otherwise the same kernel is instantiated with element-wise loads (synchronous,
// same swizzled layout).

#include <cstdint>

#include "common/cuda_check.h"
#include "common/fragment_layout.h"
#include "common/gemm_problem.h"
#include "common/mma_sync.h"
#include "common/row_chunk.h"
#include "common/swizzle.h"

namespace gemm {
namespace {

// ---- tile parameters --------------------------------------------------------------------------------
constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 64;   // one 128-byte swizzle row per tile row
constexpr int kStages = 3;    // 3 × 32 KB = 96 KB, so two CTAs share an SM's 227 KB
constexpr int kWarpsM = 2;    // 4 warps, each a 64 × 64 tile: the largest warp tile whose 128 fp32
constexpr int kWarpsN = 2;    // accumulators (plus fragments) fit the 255-register limit
constexpr int kThreads = kWarpsM * kWarpsN * 32;
constexpr int kWarpM = kBlockM / kWarpsM;  // 64
constexpr int kWarpN = kBlockN / kWarpsN;  // 64
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;   // the instruction's shape
constexpr int kTilesM = kWarpM / kMmaM;  // 4 m16 tiles per warp
constexpr int kTilesN = kWarpN / kMmaN;  // 8 n8 tiles per warp
constexpr int kChunksPerRow = kBlockK * 2 / 16;  // 8 chunks of 16 bytes

constexpr int kStageBytesA = kBlockM * kBlockK * 2;
constexpr int kStageBytesB = kBlockN * kBlockK * 2;
constexpr int kStageBytes = kStageBytesA + kStageBytesB;
constexpr int kSharedBytes = kStages * kStageBytes;

static_assert(kBlockK * 2 == kSwizzleRowBytes, "a tile row is exactly one swizzle row");
static_assert((kBlockM * kChunksPerRow) % kThreads == 0 && (kBlockN * kChunksPerRow) % kThreads == 0);
static_assert(kStageBytesA % kSwizzleAtomBytes == 0, "stages keep the 1024-byte swizzle alignment");

// Copies (tile_rows × 64)-element tiles of one K-major operand into shared memory, swizzled. Thread t
// copies chunks t, t + 128, ... of the tile: a warp covers 4 whole rows (4 × 128 contiguous bytes of global
// memory) per pass, and pass p is pass 0 moved down by 16 rows. So everything but the k offset is computed
// once per thread: the source row and the swizzled destination, which is the same for every pass up to a
// multiple of 2048 bytes (16 rows keep row % 8, hence the XOR pattern).
template <int kTileRows>
struct TileLoader {
  static constexpr int kPasses = kTileRows * kChunksPerRow / kThreads;
  static constexpr int kRowsPerPass = kThreads / kChunksPerRow;  // 16
  static_assert(kRowsPerPass % 8 == 0, "passes must keep row % 8, i.e. the swizzle pattern");

  const bf16* row_start;  // this thread's first row, column `chunk * 8` (clamped into the matrix)
  int row;                // that row's index in the matrix
  int rows;
  int column;             // chunk * 8
  uint32_t smem_offset;   // swizzled byte offset of this thread's chunk in pass 0

  __device__ TileLoader(const bf16* matrix, int rows_in_matrix, int K, int first_row)
      : row(first_row + static_cast<int>(threadIdx.x) / kChunksPerRow),
        rows(rows_in_matrix),
        column(static_cast<int>(threadIdx.x) % kChunksPerRow * 8),
        smem_offset(swizzled_chunk_offset(threadIdx.x / kChunksPerRow, threadIdx.x % kChunksPerRow)) {
    row_start = matrix + static_cast<size_t>(min(row, rows - 1)) * K + column;
  }

  template <bool kAsyncCopy>
  __device__ __forceinline__ void load(char* tile, const bf16* matrix, int K, int k0) const {
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int pass_row = row + pass * kRowsPerPass;
      char* destination = tile + smem_offset + pass * kRowsPerPass * kSwizzleRowBytes;
      if constexpr (kAsyncCopy) {
        // K % 8 == 0: a chunk is entirely inside or outside. Outside chunks read 0 bytes (zero-fill) from
        // a valid dummy address.
        const bool inside = pass_row < rows && k0 + column < K;
        const bf16* source = inside ? row_start + static_cast<size_t>(pass) * kRowsPerPass * K + k0 : matrix;
        cp_async_16(smem_address(destination), source, inside ? 16 : 0);
      } else {
        *reinterpret_cast<uint4*>(destination) = load_row_chunk<false>(matrix, rows, K, pass_row, k0 + column);
      }
    }
  }
};

struct Fragments {
  uint32_t a[kTilesM][4];     // four 16×16 A fragments
  uint32_t b[kTilesN][2];     // eight 16×8 B fragments
};

// ldmatrix.x4 takes one row address per lane (common/fragment_layout.h; `gemm layout ldmatrix` draws it):
//   A, per m16 tile: lane l gives row l % 16, chunk 2·k_step + l / 16
//        -> matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15) = a[0..3]
//   B, per pair of n8 tiles: lane l gives row (l / 16)·8 + l % 8, chunk 2·k_step + (l / 8) % 2
//        -> (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15) = b[2p][0..1], b[2p+1][0..1]
// Every row a lane addresses has row % 8 == lane % 8, and chunk 2·k_step + c (c = 0 or 1) equals
// c XOR 2·k_step. So the swizzled offset of k step s is the k-step-0 offset XOR (s · 32): one LOP per
// k step (swizzled_k_step), and the 16-row tiles are fixed 2048-byte steps from there (the k-group XOR of
// CUTLASS's crosswise layout, see docs/log/02_mma_sync.md).
struct FragmentOffsets {
  uint32_t a;  // byte offset in the A stage of this lane's row of m16 tile 0, k step 0
  uint32_t b;  // byte offset in the B stage of this lane's row of n8 pair 0, k step 0
  __device__ FragmentOffsets(int warp_row, int warp_col, int lane)
      : a(swizzled_chunk_offset(warp_row + ldmatrix_x4_a_source(lane).row, ldmatrix_x4_a_source(lane).chunk)),
        b(swizzled_chunk_offset(warp_col + ldmatrix_x4_b_source(lane).row, ldmatrix_x4_b_source(lane).chunk)) {}
};
constexpr uint32_t kMmaTileBytes = kMmaM * kSwizzleRowBytes;  // 16 rows = 2048 bytes

__device__ __forceinline__ void load_fragments(Fragments& frag, uint32_t stage_a, uint32_t stage_b,
                                               const FragmentOffsets& offsets, int k_step) {
  const uint32_t a_address = stage_a + swizzled_k_step(offsets.a, k_step);
  const uint32_t b_address = stage_b + swizzled_k_step(offsets.b, k_step);
#pragma unroll
  for (int tm = 0; tm < kTilesM; ++tm) ldmatrix_x4(frag.a[tm], a_address + tm * kMmaTileBytes);
#pragma unroll
  for (int pair = 0; pair < kTilesN / 2; ++pair) {
    uint32_t regs[4];
    ldmatrix_x4(regs, b_address + pair * kMmaTileBytes);
    frag.b[2 * pair][0] = regs[0];
    frag.b[2 * pair][1] = regs[1];
    frag.b[2 * pair + 1][0] = regs[2];
    frag.b[2 * pair + 1][1] = regs[3];
  }
}

template <bool kAsyncCopy>
__global__ void __launch_bounds__(kThreads, 2) mma_sync_kernel(GemmProblem problem) {
  extern __shared__ __align__(1024) char smem[];
  const int M = problem.m, N = problem.n, K = problem.k;

  const int tiles_n = ceil_div(N, kBlockN);
  const int block_row = (blockIdx.x / tiles_n) * kBlockM;
  const int block_col = (blockIdx.x % tiles_n) * kBlockN;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int warp_row = (warp / kWarpsN) * kWarpM;
  const int warp_col = (warp % kWarpsN) * kWarpN;

  auto stage_a = [&](int stage) { return smem + stage * kStageBytes; };
  auto stage_b = [&](int stage) { return smem + stage * kStageBytes + kStageBytesA; };
  const TileLoader<kBlockM> loader_a(problem.a, M, K, block_row);
  const TileLoader<kBlockN> loader_b(problem.b, N, K, block_col);
  auto load_stage = [&](int stage, int k_block) {
    loader_a.template load<kAsyncCopy>(stage_a(stage), problem.a, K, k_block * kBlockK);
    loader_b.template load<kAsyncCopy>(stage_b(stage), problem.b, K, k_block * kBlockK);
  };
  const FragmentOffsets fragment_offsets(warp_row, warp_col, lane);

  float acc[kTilesM][kTilesN][4] = {};
  const int k_blocks = ceil_div(K, kBlockK);

  // Prologue: fill stages 0 .. kStages-2. One commit group per k block, even an empty one, so that
  // "group i is complete" always means "k block i has landed".
#pragma unroll
  for (int stage = 0; stage < kStages - 1; ++stage) {
    if (stage < k_blocks) load_stage(stage, stage);
    cp_async_commit_group();
  }

  for (int k_block = 0; k_block < k_blocks; ++k_block) {
    cp_async_wait_group<kStages - 2>();  // this thread's copies for k_block are done ...
    __syncthreads();                     // ... and everyone's; also, everyone has finished k_block - 1

    // Refill the stage computed in the previous iteration with k block k_block + kStages - 1.
    const int refill = k_block + kStages - 1;
    if (refill < k_blocks) load_stage(refill % kStages, refill);
    cp_async_commit_group();

    const int stage = k_block % kStages;
    const uint32_t a_base = smem_address(stage_a(stage));
    const uint32_t b_base = smem_address(stage_b(stage));
    Fragments frag[2];
    load_fragments(frag[0], a_base, b_base, fragment_offsets, 0);
#pragma unroll
    for (int k_step = 0; k_step < kBlockK / kMmaK; ++k_step) {
      if (k_step + 1 < kBlockK / kMmaK)  // double-buffer the fragments: next step's loads overlap these mmas
        load_fragments(frag[(k_step + 1) % 2], a_base, b_base, fragment_offsets, k_step + 1);
      const Fragments& f = frag[k_step % 2];
#pragma unroll
      for (int tm = 0; tm < kTilesM; ++tm)
#pragma unroll
        for (int tn = 0; tn < kTilesN; ++tn) mma_m16n8k16_bf16(acc[tm][tn], f.a[tm], f.b[tn][0], f.b[tn][1]);
    }
  }
  cp_async_wait_group<0>();

  // Epilogue: accumulator d[0..1] is (row g, columns 2t, 2t+1), d[2..3] is row g + 8 (mma_m16n8k16_c).
  const bool pair_stores = N % 2 == 0;  // then a column pair is 4-byte aligned and never straddles N
#pragma unroll
  for (int tm = 0; tm < kTilesM; ++tm) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const FragmentCoord pair = mma_m16n8k16_c(lane, 2 * half);  // elements 2·half and 2·half + 1
      const int row = block_row + warp_row + tm * kMmaM + pair.row;
      if (row >= M) continue;
#pragma unroll
      for (int tn = 0; tn < kTilesN; ++tn) {
        const int col = block_col + warp_col + tn * kMmaN + pair.col;
        const float v0 = acc[tm][tn][2 * half], v1 = acc[tm][tn][2 * half + 1];
        bf16* out = problem.c + static_cast<size_t>(row) * N + col;
        if (pair_stores) {
          if (col < N) *reinterpret_cast<__nv_bfloat162*>(out) = __floats2bfloat162_rn(v0, v1);
        } else {
          if (col < N) out[0] = __float2bfloat16_rn(v0);
          if (col + 1 < N) out[1] = __float2bfloat16_rn(v1);
        }
      }
    }
  }
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_mma_sync(const GemmProblem& problem) {
  const bool async_copy = problem.k % 8 == 0 && is_aligned_16(problem.a) && is_aligned_16(problem.b);
  CUDA_CHECK(cudaFuncSetAttribute(mma_sync_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  CUDA_CHECK(cudaFuncSetAttribute(mma_sync_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  const int tiles = ceil_div(problem.m, kBlockM) * ceil_div(problem.n, kBlockN);
  const auto enqueue = [=](cudaStream_t stream) {
    if (async_copy)
      mma_sync_kernel<true><<<tiles, kThreads, kSharedBytes, stream>>>(problem);
    else
      mma_sync_kernel<false><<<tiles, kThreads, kSharedBytes, stream>>>(problem);
    check_launch("mma_sync_kernel");
  };
  const auto kernel = async_copy ? mma_sync_kernel<true> : mma_sync_kernel<false>;
  return {enqueue, reinterpret_cast<const void*>(kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// sass: sm_90a,sm_100a mma_sync_kernel HMMA\.16816\.F32\.BF16 LDSM\.16\.M88\.4
// sass: sm_90a,sm_100a mma_sync_kernelILb1 LDGSTS\.E\.BYPASS\.128 LDGDEPBAR
