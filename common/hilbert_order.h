// A Hilbert-curve order of the output tiles for any grid, not only a power-of-two square. Introduced by
// kernel 09.
//
// A Hilbert curve visits the cells of a 2^k × 2^k square so that consecutive cells are neighbours and any run
// of consecutive cells stays compact: a wave of W persistent CTAs (W consecutive positions) covers a blob
// about sqrt(W) tiles across, which is what keeps the A and B tiles it reads few. For rectangles of any size
// we use the generalised ("gilbert") construction of Jakub Červený (github.com/jakubcerveny/gilbert, BSD
// licence; the recursion is described in its README): the rectangle is cut in two along its long side when
// it is much longer than wide, otherwise in three parts (up one half, across the full width, back down), each
// filled recursively with the orientation that lets the parts join end to end. Every step moves to an
// adjacent cell, except for at most one diagonal step when the long side is odd and the short side even (no
// path along an odd side can end at the far corner of an even one: the gilbert README).
//
// The order is computed on the host (hilbert_tile_order) and handed to the kernel as a table.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "common/tile_scheduler.h"

namespace gemm {
namespace hilbert_detail {

inline int sign(int value) { return (value > 0) - (value < 0); }

// Fills the rectangle spanned from corner (x, y) by the major axis (major_x, major_y) and the minor axis
// (minor_x, minor_y) (each axis is a vector along a grid direction whose length is the side), starting at
// the corner and ending at the far end of the major axis, next to the corner's side.
inline void fill(std::vector<TileCoord>& order, int x, int y, int major_x, int major_y, int minor_x, int minor_y) {
  const int length = std::abs(major_x + major_y);  // cells along the major axis
  const int width = std::abs(minor_x + minor_y);   // cells along the minor axis
  const int step_major_x = sign(major_x), step_major_y = sign(major_y);
  const int step_minor_x = sign(minor_x), step_minor_y = sign(minor_y);

  if (width == 1) {  // one row: walk it
    for (int i = 0; i < length; ++i, x += step_major_x, y += step_major_y) order.push_back({y, x});
    return;
  }
  if (length == 1) {  // one column: walk it
    for (int i = 0; i < width; ++i, x += step_minor_x, y += step_minor_y) order.push_back({y, x});
    return;
  }

  int half_major_x = major_x / 2, half_major_y = major_y / 2;
  int half_minor_x = minor_x / 2, half_minor_y = minor_y / 2;

  if (2 * length > 3 * width) {
    // Much longer than wide: two halves along the major axis, both in the same orientation. An even first
    // half keeps the join between them a single step.
    if (std::abs(half_major_x + half_major_y) % 2 != 0 && length > 2)
      half_major_x += step_major_x, half_major_y += step_major_y;
    fill(order, x, y, half_major_x, half_major_y, minor_x, minor_y);
    fill(order, x + half_major_x, y + half_major_y, major_x - half_major_x, major_y - half_major_y, minor_x,
         minor_y);
    return;
  }

  // Up the first half of the minor axis (its own major axis along ours' minor), across the rest of the
  // rectangle along the full major axis, and back down the second half of the major axis, mirrored.
  if (std::abs(half_minor_x + half_minor_y) % 2 != 0 && width > 2)
    half_minor_x += step_minor_x, half_minor_y += step_minor_y;
  fill(order, x, y, half_minor_x, half_minor_y, half_major_x, half_major_y);
  fill(order, x + half_minor_x, y + half_minor_y, major_x, major_y, minor_x - half_minor_x, minor_y - half_minor_y);
  fill(order, x + (major_x - step_major_x) + (half_minor_x - step_minor_x),
       y + (major_y - step_major_y) + (half_minor_y - step_minor_y), -half_minor_x, -half_minor_y,
       -(major_x - half_major_x), -(major_y - half_major_y));
}

}  // namespace hilbert_detail

// Every tile of a tiles_m × tiles_n grid exactly once, along a generalised Hilbert curve starting at tile
// (0, 0). The curve runs along the longer side first.
inline std::vector<TileCoord> hilbert_tile_order(int tiles_m, int tiles_n) {
  std::vector<TileCoord> order;
  order.reserve(static_cast<size_t>(tiles_m) * tiles_n);
  if (tiles_m <= 0 || tiles_n <= 0) return order;
  // x runs along n (columns), y along m (rows).
  if (tiles_n >= tiles_m)
    hilbert_detail::fill(order, 0, 0, tiles_n, 0, 0, tiles_m);
  else
    hilbert_detail::fill(order, 0, 0, 0, tiles_m, tiles_n, 0);
  return order;
}

// A tile as one 32-bit word for the kernel's table: row in the high half, column in the low half.
// The largest M and N a kernel with such a table accepts (its shape rule, kTmaAlignedTileTable): 65535 tiles a side
// of 256 × 256 or larger.
constexpr int kTileTableMaxExtent = 65535 * 256;
constexpr uint32_t pack_tile(TileCoord tile) {
  return (static_cast<uint32_t>(tile.m) << 16) | static_cast<uint32_t>(tile.n);
}
__host__ __device__ constexpr TileCoord unpack_tile(uint32_t word) {
  return {static_cast<int>(word >> 16), static_cast<int>(word & 0xffffu)};
}

}  // namespace gemm
