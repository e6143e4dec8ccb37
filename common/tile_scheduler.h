// The order in which a persistent kernel visits the output tiles. Introduced by kernel 06; kernel 07 walks
// cluster tiles with it, kernel 09 replaces the order by a Hilbert curve (common/hilbert_order.h), and kernel 14
// returns to it.
//
// A persistent kernel launches one CTA per SM; CTA b of W takes the tiles at positions b, b + W, b + 2W, ...
// of an order. All CTAs run at about the same speed, so the W tiles at positions [wW, (w+1)W) are in flight
// together ("wave" w), and what they read is what the L2 has to hold. Numbering tiles row by row (N fastest)
// makes a wave a few full rows of tiles: every wave streams all of B. The grouped order visits tiles in bands
// of `group_rows` tile rows and, inside a band, column by column (down the band, then one column right):
// a wave covers a near-square block of tiles, and A and B are each fetched a few times instead of once per
// wave. (Triton's matmul tutorial calls this "grouped ordering"; CUTLASS's Hopper tile scheduler calls the
// band width the "swizzle" size.)
//
//   tile rows 0-3 are one band (group_rows = 4), a 6 x 5 grid of tiles:
//
//        n=0  n=1  n=2  n=3  n=4
//   m=0    0    4    8   12   16
//   m=1    1    5    9   13   17
//   m=2    2    6   10   14   18
//   m=3    3    7   11   15   19
//   m=4   20   22   24   26   28      the last band has only 2 rows: its columns are 2 tiles tall
//   m=5   21   23   25   27   29
//
// Host and device code, so the host tests can check the order (every tile once, balance, ragged grids).
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

namespace gemm {

struct TileCoord {
  int m = 0;  // tile row (multiply by the tile's height for the first row of C)
  int n = 0;  // tile column
};

struct GroupedTileOrder {
  int tiles_m = 1;
  int tiles_n = 1;
  int group_rows = 1;  // tile rows per band, ≥ 1

  __host__ __device__ int count() const { return tiles_m * tiles_n; }

  // The tile at position `index` (0 ≤ index < count()).
  __host__ __device__ TileCoord at(int index) const {
    const int band_tiles = group_rows * tiles_n;
    const int band = index / band_tiles;
    const int first_row = band * group_rows;
    const int rows = tiles_m - first_row < group_rows ? tiles_m - first_row : group_rows;  // the last may be short
    const int in_band = index - band * band_tiles;
    return {first_row + in_band % rows, in_band / rows};
  }
};

// How many of `tiles` the worker `worker` of `workers` takes when worker b takes positions b, b + workers, ...
// (the first tiles % workers workers take one more).
__host__ __device__ constexpr int tiles_of_worker(int tiles, int workers, int worker) {
  return tiles / workers + (worker < tiles % workers ? 1 : 0);
}

}  // namespace gemm
