// Kernel 01 — warp-tiled SIMT GEMM on CUDA cores.
//
// The starting point of the ladder: no tensor cores, every multiply-add is an fp32 FFMA. What it adds over
// a naive kernel is the three-level tiling that every later kernel keeps in some form:
//
//   block tile   128 × 128 of C per CTA; A and B tiles of depth 16 staged through shared memory, so each
//                element loaded from global memory is reused 128 times;
//   warp tile    32 × 64 per warp; a warp's 32 lanes read one 16-byte float4 each from shared memory and
//                the reads broadcast (4 distinct float4 per LDS.128 of A, 8 per LDS.128 of B), free of bank
//                conflicts;
//   thread tile  8 × 8 accumulators per thread; each k step loads 8 + 8 floats into registers (four
//                LDS.128) and issues 64 FFMA: in the sm_90a SASS of simt_warptiling_kernel<true>, 1024 of the
//                1175 instructions of a k block are FFMA (kernels/01_simt_warptiling.md).
//
// bf16 is converted to fp32 once, on the way into shared memory (a shift: bf16 is the top half of an
// fp32), so the inner loop is the same as an fp32 SGEMM. Both operands are K-major in global memory and
// are stored transposed (k-major rows of m or n) in shared memory so the inner loop can use float4 reads.
// The next k block is fetched into registers while the current one is computed (register double
// buffering); two shared-memory buffers need one __syncthreads per k block.
//
// Shapes: any M, N, K ≥ 1. When K is a multiple of 8 every row segment is 16-byte aligned and loads are
// 16-byte vectors; otherwise the same kernel is instantiated with element-wise loads. Rows and columns past
// M, N, K are zero-filled on load and masked on store.

#include <cstdint>

#include "common/cuda_check.h"
#include "common/gemm_problem.h"
#include "common/row_chunk.h"

namespace gemm {
namespace {

// ---- tile parameters --------------------------------------------------------------------------------
constexpr int kBlockM = 128;  // rows of C per CTA
constexpr int kBlockN = 128;  // columns of C per CTA
constexpr int kBlockK = 16;   // depth of one shared-memory stage: one 16-byte load of A and of B per thread
constexpr int kThreads = 256;  // 8 warps
constexpr int kMinBlocksPerSm = 2;  // caps registers at 128 so two CTAs (16 warps) share an SM

constexpr int kWarpsM = 4;                   // warps stacked along M
constexpr int kWarpsN = 2;                   // and along N
constexpr int kWarpM = kBlockM / kWarpsM;    // 32 rows per warp
constexpr int kWarpN = kBlockN / kWarpsN;    // 64 columns per warp
constexpr int kLanesM = 4;                   // a warp's lanes form a 4 × 8 grid
constexpr int kLanesN = 8;
constexpr int kThreadM = 4;                  // each lane reads 4 consecutive floats (one LDS.128) of A
constexpr int kThreadN = 4;                  // and of B per k step
constexpr int kIterM = kWarpM / (kLanesM * kThreadM);  // 2 sub-tiles of 16 rows
constexpr int kIterN = kWarpN / (kLanesN * kThreadN);  // 2 sub-tiles of 32 columns

static_assert(kWarpsM * kWarpsN * 32 == kThreads);
static_assert(kIterM * kLanesM * kThreadM == kWarpM && kIterN * kLanesN * kThreadN == kWarpN);
static_assert(kBlockM * kBlockK == kThreads * kChunkElements, "one 16-byte load of A and of B per thread per k block");
static_assert(kBlockM == kBlockN, "A and B tiles share the loading code and the transposed layout");

// Operand tiles in shared memory, fp32 and transposed: tile[k][row]. Two buffers (double buffering).
struct SharedTiles {
  float a[2][kBlockK][kBlockM];
  float b[2][kBlockK][kBlockN];
};

// bf16 is the upper half of an fp32: widening is a shift (low element) or a mask (high element).
__device__ __forceinline__ float low_bf16_to_float(uint32_t pair) { return __uint_as_float(pair << 16); }
__device__ __forceinline__ float high_bf16_to_float(uint32_t pair) { return __uint_as_float(pair & 0xffff0000u); }

// Store the segment transposed: tile[k_offset + i][row]. The 32 lanes of a warp hold 32 consecutive rows
// with the same k_offset, so each of the 8 stores writes 32 consecutive floats: no bank conflicts.
__device__ __forceinline__ void store_segment_transposed(float (*tile)[kBlockM], int row, int k_offset, uint4 bits) {
  const uint32_t pairs[4] = {bits.x, bits.y, bits.z, bits.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    tile[k_offset + 2 * i][row] = low_bf16_to_float(pairs[i]);
    tile[k_offset + 2 * i + 1][row] = high_bf16_to_float(pairs[i]);
  }
}

// Global -> shared mapping: thread t loads 8 consecutive bf16 (16 bytes) of row t % 128 of the A tile and of
// the B tile, columns 8 · (t / 128) .. + 7. The 32 lanes of a warp take 32 consecutive rows.
struct ChunkPair {
  uint4 a;
  uint4 b;
};

template <bool kVectorLoads>
__device__ __forceinline__ ChunkPair load_chunks(const GemmProblem& p, int block_row, int block_col, int k0) {
  const int row = threadIdx.x % kBlockM;
  const int k = k0 + threadIdx.x / kBlockM * kChunkElements;
  return {load_row_chunk<kVectorLoads>(p.a, p.m, p.k, block_row + row, k),
          load_row_chunk<kVectorLoads>(p.b, p.n, p.k, block_col + row, k)};
}

__device__ __forceinline__ void store_chunks(SharedTiles& smem, int buffer, const ChunkPair& chunks) {
  const int row = threadIdx.x % kBlockM;
  const int k_offset = threadIdx.x / kBlockM * kChunkElements;
  store_segment_transposed(smem.a[buffer], row, k_offset, chunks.a);
  store_segment_transposed(smem.b[buffer], row, k_offset, chunks.b);
}

template <bool kVectorLoads>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm) simt_warptiling_kernel(GemmProblem problem) {
  __shared__ __align__(16) SharedTiles smem;
  const int M = problem.m, N = problem.n, K = problem.k;

  // One-dimensional grid, N-tiles fastest: no gridDim.y limit on M.
  const int tiles_n = ceil_div(N, kBlockN);
  const int block_row = (blockIdx.x / tiles_n) * kBlockM;
  const int block_col = (blockIdx.x % tiles_n) * kBlockN;

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int warp_row = (warp / kWarpsN) * kWarpM;
  const int warp_col = (warp % kWarpsN) * kWarpN;
  const int lane_row = (lane / kLanesN) * kThreadM;
  const int lane_col = (lane % kLanesN) * kThreadN;

  float acc[kIterM][kThreadM][kIterN][kThreadN] = {};

  const int k_blocks = ceil_div(K, kBlockK);
  store_chunks(smem, 0, load_chunks<kVectorLoads>(problem, block_row, block_col, 0));
  __syncthreads();

  for (int k_block = 0; k_block < k_blocks; ++k_block) {
    const int buffer = k_block % 2;
    const bool has_next = k_block + 1 < k_blocks;
    ChunkPair next;
    if (has_next)  // issue the next tile's global loads now; they complete while we compute
      next = load_chunks<kVectorLoads>(problem, block_row, block_col, (k_block + 1) * kBlockK);

#pragma unroll
    for (int kk = 0; kk < kBlockK; ++kk) {
      float a_frag[kIterM][kThreadM];
      float b_frag[kIterN][kThreadN];
#pragma unroll
      for (int im = 0; im < kIterM; ++im)
        *reinterpret_cast<float4*>(a_frag[im]) =
            *reinterpret_cast<const float4*>(&smem.a[buffer][kk][warp_row + im * (kLanesM * kThreadM) + lane_row]);
#pragma unroll
      for (int in = 0; in < kIterN; ++in)
        *reinterpret_cast<float4*>(b_frag[in]) =
            *reinterpret_cast<const float4*>(&smem.b[buffer][kk][warp_col + in * (kLanesN * kThreadN) + lane_col]);
#pragma unroll
      for (int im = 0; im < kIterM; ++im)
#pragma unroll
        for (int i = 0; i < kThreadM; ++i)
#pragma unroll
          for (int in = 0; in < kIterN; ++in)
#pragma unroll
            for (int j = 0; j < kThreadN; ++j) acc[im][i][in][j] = fmaf(a_frag[im][i], b_frag[in][j], acc[im][i][in][j]);
    }

    if (has_next) store_chunks(smem, buffer ^ 1, next);  // that buffer was last read before the previous barrier
    __syncthreads();
  }

  // Epilogue: round to bf16; 4 consecutive columns go out as one 8-byte store when aligned and in bounds.
  const bool vector_stores = N % 4 == 0;
#pragma unroll
  for (int im = 0; im < kIterM; ++im) {
#pragma unroll
    for (int i = 0; i < kThreadM; ++i) {
      const int row = block_row + warp_row + im * (kLanesM * kThreadM) + lane_row + i;
      if (row >= M) continue;
#pragma unroll
      for (int in = 0; in < kIterN; ++in) {
        const int col = block_col + warp_col + in * (kLanesN * kThreadN) + lane_col;
        bf16* out = problem.c + static_cast<size_t>(row) * N + col;
        const float* v = acc[im][i][in];
        if (vector_stores && col + kThreadN <= N) {
          __nv_bfloat162 lo = __floats2bfloat162_rn(v[0], v[1]);
          __nv_bfloat162 hi = __floats2bfloat162_rn(v[2], v[3]);
          uint2 packed;
          packed.x = *reinterpret_cast<uint32_t*>(&lo);
          packed.y = *reinterpret_cast<uint32_t*>(&hi);
          *reinterpret_cast<uint2*>(out) = packed;
        } else {
#pragma unroll
          for (int j = 0; j < kThreadN; ++j)
            if (col + j < N) out[j] = __float2bfloat16_rn(v[j]);
        }
      }
    }
  }
}

}  // namespace

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_simt_warptiling(const GemmProblem& problem) {
  const bool vector_loads = problem.k % kChunkElements == 0 && is_aligned_16(problem.a) && is_aligned_16(problem.b);
  const int tiles = ceil_div(problem.m, kBlockM) * ceil_div(problem.n, kBlockN);
  const auto enqueue = [=](cudaStream_t stream) {
    if (vector_loads)
      simt_warptiling_kernel<true><<<tiles, kThreads, 0, stream>>>(problem);
    else
      simt_warptiling_kernel<false><<<tiles, kThreads, 0, stream>>>(problem);
    check_launch("simt_warptiling_kernel");
  };
  const auto kernel = vector_loads ? simt_warptiling_kernel<true> : simt_warptiling_kernel<false>;
  return {enqueue, reinterpret_cast<const void*>(kernel)};
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// sass: sm_90a,sm_100a simt_warptiling_kernel FFMA LDS\.128
// sass: sm_90a,sm_100a simt_warptiling_kernelILb1 LDG\.E\.128
