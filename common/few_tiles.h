// Few tiles (host and device): how kernel 15 covers a shape whose 128 × 256 tiles are fewer than the GPU's clusters,
// and what its model says that costs. Introduced by kernel 15; kernel 16's cost model and `gemm explain` ask it too.
//
// Three choices, each host-tested:
// - Tile width. Kernel 13's 128 × 256 tiles, or, where those are fewer than the clusters, 128 × 128 tiles if the
//   model puts them ahead: twice the tiles, each half as long (a 128 × 128 × 64 k block is 512 cycles at the tensor
//   rate).
// - Cluster orientation. A 2 × 1 cluster (two CTAs along M, sharing B) covers 256 rows of C, a 1 × 2 cluster (along
//   N, sharing A) two tile widths; where M or N is not a multiple of that, the last cluster row or column has a CTA
//   tile wholly outside C, which multiplies the zeros TMA fills in and stores nothing. With 128 tokens (M = 128) a
//   2 × 1 cluster wastes half of every cluster. The rule counts the CTA tiles each computes and takes 1 × 2 only when
//   it computes strictly fewer, so every shape kernel 13 runs without waste keeps kernel 13's clusters.
// - Schedule: StreamKSchedule::make_few_tiles (common/stream_k.h) over every resident cluster.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include "common/stream_k.h"

namespace gemm {

constexpr double kCooperativeBoundaryCycles = 3300;  // kernel 13's cycles per tile beyond its multiplies (H100)
// A 128 × 128 × 64 k block is 512 cycles at the tensor rate; kernel 15 ran its 128 × 128 tiles 8-9 % slower per k
// block than its 128 × 256 ones where both had as many tiles as clusters or more (H200, M = 2048 through the model
// presets' layers: an inference, that each wgmma m64n128 reads its A operand from shared memory for half the columns).
constexpr double kNarrowBlockCycles = 512 * 1.09;

// CTA tiles (128 × block_n) an m × n problem computes in clusters of cluster_m × cluster_n CTAs, those outside C
// included.
__host__ __device__ constexpr long long cluster_cta_tiles(int m, int n, int cluster_m, int cluster_n,
                                                          int block_n = 256) {
  const long long tiles_m = (m + 127) / 128, tiles_n = (n + block_n - 1) / block_n;
  return (tiles_m + cluster_m - 1) / cluster_m * cluster_m * ((tiles_n + cluster_n - 1) / cluster_n * cluster_n);
}

// Whether kernel 15's clusters lie along N (1 × 2, sharing A) on m × n: only where that computes fewer CTA tiles, and
// M's tile rows fit in the 16 bits a tile table entry gives a coordinate (as a 2 × 1 cluster's always do).
__host__ __device__ constexpr bool few_tiles_cluster_along_n(int m, int n, int block_n = 256) {
  return (m + 127) / 128 <= 0xffff &&
         cluster_cta_tiles(m, n, 1, 2, block_n) < cluster_cta_tiles(m, n, 2, 1, block_n);
}

struct FewTilesPlan {
  int block_n = 256;              // tile width: 256 (kernel 13's) or 128
  bool cluster_along_n = false;   // 1 × 2 clusters (few_tiles_cluster_along_n)
  int cluster_tiles = 0;
  int k_blocks = 0;
  StreamKSchedule schedule;       // over the clusters; the launch keeps schedule.workers of them
  double cycles = 0;              // per SM, the model's: k blocks at the tensor rate, tile boundaries, a split's cost
};

// Kernel 15's plan for m × n × k on `clusters` resident clusters of two CTAs: 128 × 256 tiles on kernel 13's
// schedule where they are as many as the clusters or more; else of the two widths the one the model puts ahead (256
// on a tie), each on make_few_tiles's schedule.
__host__ __device__ constexpr FewTilesPlan plan_few_tiles(int m, int n, int k, int clusters) {
  FewTilesPlan best;
  const int k_blocks = (k + 63) / 64;
  for (int block_n = 256; block_n >= 128; block_n -= 128) {
    FewTilesPlan plan;
    plan.block_n = block_n;
    plan.k_blocks = k_blocks;
    plan.cluster_along_n = few_tiles_cluster_along_n(m, n, block_n);
    const long long tiles_m = (m + 127) / 128, tiles_n = (n + block_n - 1) / block_n;
    const int cluster_m = plan.cluster_along_n ? 1 : 2, cluster_n = plan.cluster_along_n ? 2 : 1;
    const long long rows = (tiles_m + cluster_m - 1) / cluster_m, columns = (tiles_n + cluster_n - 1) / cluster_n;
    // Narrow tiles only where even they are fewer than the clusters (see the header), and their coordinates fit.
    if (block_n == 128 && (rows * columns >= clusters || rows > 0xffff || columns > 0xffff)) break;
    plan.cluster_tiles = static_cast<int>(rows * columns);
    const double block_cycles = block_n == 256 ? 1024 : kNarrowBlockCycles;
    plan.schedule = StreamKSchedule::make_few_tiles(plan.cluster_tiles, k_blocks, clusters, block_cycles);
    if (plan.cluster_tiles >= clusters) {  // kernel 13's model: the tiles spread evenly, a boundary per round
      const long long cta_tiles = tiles_m * tiles_n, sms = 2LL * clusters;
      plan.cycles = static_cast<double>(cta_tiles) * k_blocks * block_cycles / static_cast<double>(sms) +
                    static_cast<double>((cta_tiles + sms - 1) / sms) * kCooperativeBoundaryCycles;
    } else {
      plan.cycles = plan.schedule.few_tiles_blocks(block_cycles) * block_cycles + kCooperativeBoundaryCycles;
    }
    if (block_n == 256 || plan.cycles < best.cycles) best = plan;
  }
  return best;
}

}  // namespace gemm
