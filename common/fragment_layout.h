// Who holds what: the data mappings of the tensor-core instructions the kernels use, as functions. Introduced
// by kernel 02 (mma.sync, ldmatrix); kernel 03 adds the wgmma accumulator.
//
// Each function answers one question the index math of a kernel asks ("which row and column of the tile is
// element e of lane l's fragment?", "which row does lane l give ldmatrix the address of?"). The kernels call
// them for that math; `gemm layout` draws them (runner/layout.cpp); the host tests pin them to the figures of
// the PTX ISA (tests/host/test_fragment_layout.cpp); tests/gpu/fragment_layout_test.cu checks them against
// the hardware. So a picture in the notes, the code, and the silicon cannot drift apart.
//
// Conventions. A lane is a thread's index in its warp (0-31); with it, as in the PTX ISA,
//   groupID           g = lane / 4   (0-7: which of the 8 quads of the warp)
//   threadID_in_group t = lane % 4   (0-3: which thread of the quad)
// A fragment "element" is one value of the instruction's operand: a bf16 for A and B (two per 32-bit
// register, the lower-numbered element in the low 16 bits), an fp32 for the accumulators (one per register).
// Coordinates are (row, column) of the operand as the PTX ISA draws it: A is M × K, B is K × N, C/D is M × N.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include <cstdint>

namespace gemm {

struct FragmentCoord {
  int row = 0;
  int col = 0;
};

// ---- mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 ----------------------------------------------------
// PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type". Each of the 32 lanes holds 8 elements
// of A (a0..a7 in 4 registers), 4 of B (b0..b3 in 2 registers) and 4 of C/D (c0..c3). The same mapping in
// CuTe's terms: cute/atom/mma_traits_sm80.hpp, MMA_Traits<SM80_16x8x16_F16F16F16F16_TN> (which the bf16 traits
// inherit): ALayout ((4,8),(2,2,2)):((32,1),(16,8,128)), BLayout ((4,8),(2,2)):((16,1),(8,64)), CLayout
// SM80_16x8_Row.

// A (16 × 16, row m, column k): a0,a1 (row g) and a2,a3 (row g + 8) at columns 2t, 2t + 1; a4..a7 the same
// 8 columns further right. Register j of the fragment holds elements 2j and 2j + 1.
__host__ __device__ constexpr FragmentCoord mma_m16n8k16_a(int lane, int element) {
  return {lane / 4 + 8 * ((element / 2) % 2), 2 * (lane % 4) + element % 2 + 8 * (element / 4)};
}

// B (16 × 8, row k, column n): b0,b1 at rows 2t, 2t + 1 and b2,b3 at rows 2t + 8, 2t + 9, all in column g.
// Column n of B is row n of the kernels' N × K operand (".col" B: K contiguous), so a lane's B register holds
// two consecutive k of one of our B rows.
__host__ __device__ constexpr FragmentCoord mma_m16n8k16_b(int lane, int element) {
  return {2 * (lane % 4) + element % 2 + 8 * (element / 2), lane / 4};
}

// C/D (16 × 8, fp32): c0,c1 in row g, c2,c3 in row g + 8, at columns 2t and 2t + 1.
__host__ __device__ constexpr FragmentCoord mma_m16n8k16_c(int lane, int element) {
  return {lane / 4 + 8 * (element / 2), 2 * (lane % 4) + element % 2};
}

// ---- ldmatrix.sync.aligned.m8n8.x4.shared.b16 ---------------------------------------------------------------
// PTX ISA, "Warp-level matrix load instruction: ldmatrix". The instruction loads four 8 × 8 matrices of 16-bit
// elements. Each lane gives one address: lanes 8j .. 8j + 7 the 16-byte rows 0-7 of matrix j. Afterwards every
// lane holds, in its register j, two elements of matrix j: row g, columns 2t and 2t + 1 (ldmatrix_x4_element).
__host__ __device__ constexpr int ldmatrix_x4_matrix_of_lane(int lane) { return lane / 8; }
__host__ __device__ constexpr int ldmatrix_x4_row_of_lane(int lane) { return lane % 8; }
// Element `half` (0: low 16 bits, 1: high) of each register: (row, column) inside its 8 × 8 matrix.
__host__ __device__ constexpr FragmentCoord ldmatrix_x4_element(int lane, int half) {
  return {lane / 4, 2 * (lane % 4) + half};
}

// Kernel 02's use of ldmatrix.x4 on K-major tiles (rows of 64 bf16 = 128 bytes, k contiguous): which row of the
// 16-row tile and which 16-byte chunk of the current k16 step (0: k 0-7, 1: k 8-15) lane `lane` addresses.
struct TileChunk {
  int row = 0;    // row of the 16-row tile (m for A, n for B)
  int chunk = 0;  // 16-byte chunk of the k16 step: 0 or 1
};

// A, one m16 tile: matrix j = (rows 8(j % 2) .. +7, k 8(j / 2) .. +7), so registers 0-3 are a[0..3] exactly as
// mma.sync wants them (mma_m16n8k16_a): lane l addresses row l % 16 and chunk l / 16.
__host__ __device__ constexpr TileChunk ldmatrix_x4_a_source(int lane) { return {lane % 16, lane / 16}; }

// B, a pair of n8 tiles: matrices (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15), so
// registers 0-1 are b[0..1] of the first n8 tile and registers 2-3 those of the second: lane l addresses row
// 8(l / 16) + l % 8 and chunk (l / 8) % 2.
__host__ __device__ constexpr TileChunk ldmatrix_x4_b_source(int lane) {
  return {(lane / 16) * 8 + lane % 8, (lane / 8) % 2};
}

// ---- wgmma.mma_async m64nNk16, fp32 accumulators ------------------------------------------------------------
// PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Operation": register fragment of the
// accumulator D for .m64nNk16 (CuTe: CLayout_64xN in cute/atom/mma_traits_sm90_gmma.hpp). Warp w (0-3) of the
// warpgroup owns rows 16w .. 16w + 15; inside them it is the m16n8 C fragment above, repeated every 8 columns:
// register r is in 8-column chunk r / 4, and r % 4 is the mma_m16n8k16_c element. A thread holds N / 2 values.
__host__ __device__ constexpr FragmentCoord wgmma_m64_accumulator(int warp_in_group, int lane, int reg) {
  return {16 * warp_in_group + lane / 4 + 8 * ((reg / 2) % 2), 8 * (reg / 4) + 2 * (lane % 4) + reg % 2};
}

}  // namespace gemm
