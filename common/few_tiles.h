// Few tiles (host and device): which way kernel 15's clusters of two CTAs lie on a shape. Introduced by kernel 15;
// kernel 16's cost model asks it too.
//
// A 2 × 1 cluster (two CTAs along M, sharing B) covers 256 rows of C, a 1 × 2 cluster (along N, sharing A) 512
// columns; where M or N is not a multiple of that, the last cluster row or column has a CTA tile wholly outside C,
// which multiplies the zeros TMA fills in and stores nothing. With 128 tokens (M = 128) a 2 × 1 cluster wastes half
// of every cluster; a 1 × 2 cluster wastes nothing when N is a multiple of 512. The rule counts the CTA tiles each
// shape computes and takes 1 × 2 only when it computes strictly fewer, so every shape kernel 13 runs without waste
// keeps kernel 13's clusters.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

namespace gemm {

// CTA tiles (128 × 256) an m × n problem computes in clusters of cluster_m × cluster_n CTAs, those outside C included.
__host__ __device__ constexpr long long cluster_cta_tiles(int m, int n, int cluster_m, int cluster_n) {
  const long long tiles_m = (m + 127) / 128, tiles_n = (n + 255) / 256;
  return (tiles_m + cluster_m - 1) / cluster_m * cluster_m * ((tiles_n + cluster_n - 1) / cluster_n * cluster_n);
}

// Whether kernel 15's clusters lie along N (1 × 2, sharing A) on m × n: only where that computes fewer CTA tiles, and
// M's tile rows fit in the 16 bits a tile table entry gives a coordinate (as a 2 × 1 cluster's always do).
__host__ __device__ constexpr bool few_tiles_cluster_along_n(int m, int n) {
  return (m + 127) / 128 <= 0xffff && cluster_cta_tiles(m, n, 1, 2) < cluster_cta_tiles(m, n, 2, 1);
}

}  // namespace gemm
