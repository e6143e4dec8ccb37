// The tile orders of the persistent kernels (common/tile_scheduler.h, common/hilbert_order.h) and the ring
// position they advance (common/pipeline_state.h): every tile exactly once, balanced workers, ragged grids,
// fewer tiles than workers, and how local a wave of tiles is.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "common/hilbert_order.h"
#include "common/pipeline_state.h"
#include "common/tile_scheduler.h"

namespace gemm {
namespace {

struct Grid {
  int tiles_m, tiles_n;
};
// Square, ragged, thin, wide, a single tile, and the grids of the benchmark shapes with 128 × 256 tiles.
const Grid kGrids[] = {{1, 1},  {1, 7},   {7, 1},   {3, 5},   {16, 16}, {17, 9},  {64, 32},
                       {32, 56}, {128, 16}, {4, 32}, {5, 3},   {31, 33}, {100, 1}, {2, 2}};

std::vector<TileCoord> grouped(const Grid& grid, int group_rows) {
  const GroupedTileOrder order{grid.tiles_m, grid.tiles_n, group_rows};
  std::vector<TileCoord> tiles;
  for (int i = 0; i < order.count(); ++i) tiles.push_back(order.at(i));
  return tiles;
}

std::vector<TileCoord> row_major(const Grid& grid) {
  std::vector<TileCoord> tiles;
  for (int m = 0; m < grid.tiles_m; ++m)
    for (int n = 0; n < grid.tiles_n; ++n) tiles.push_back({m, n});
  return tiles;
}

// Whether `order` holds every tile of `grid` exactly once.
testing::AssertionResult covers_every_tile_once(const std::vector<TileCoord>& order, const Grid& grid) {
  if (static_cast<int>(order.size()) != grid.tiles_m * grid.tiles_n)
    return testing::AssertionFailure() << order.size() << " positions for " << grid.tiles_m * grid.tiles_n << " tiles";
  std::set<std::pair<int, int>> seen;
  for (const TileCoord& tile : order) {
    if (tile.m < 0 || tile.m >= grid.tiles_m || tile.n < 0 || tile.n >= grid.tiles_n)
      return testing::AssertionFailure() << "tile (" << tile.m << ", " << tile.n << ") lies outside the grid";
    if (!seen.insert({tile.m, tile.n}).second)
      return testing::AssertionFailure() << "tile (" << tile.m << ", " << tile.n << ") appears twice";
  }
  return testing::AssertionSuccess();
}

// The average over waves of `workers` consecutive positions of the operand rows the wave reads: distinct
// tile rows × the tile's height (rows of A) plus distinct tile columns × its width (rows of B). Times K · 2
// bytes, it is what one wave streams through the L2 and, when the wave's footprint outgrows the L2 (as it does
// at K = 8192), roughly what it reads from DRAM.
double operand_rows_per_wave(const std::vector<TileCoord>& order, int workers, int tile_rows, int tile_cols) {
  double total = 0;
  int waves = 0;
  for (size_t first = 0; first < order.size(); first += workers, ++waves) {
    std::set<int> rows, columns;
    for (size_t i = first; i < std::min(order.size(), first + workers); ++i) {
      rows.insert(order[i].m);
      columns.insert(order[i].n);
    }
    total += static_cast<double>(rows.size()) * tile_rows + static_cast<double>(columns.size()) * tile_cols;
  }
  return total / waves;
}

// ---- grouped order ---------------------------------------------------------------------------------------

TEST(GroupedTileOrder, VisitsEveryTileOnceForAnyGridAndBand) {
  for (const Grid& grid : kGrids)
    for (int group_rows : {1, 2, 3, 8, 16, 1000})
      EXPECT_TRUE(covers_every_tile_once(grouped(grid, group_rows), grid))
          << grid.tiles_m << " x " << grid.tiles_n << ", bands of " << group_rows;
}

TEST(GroupedTileOrder, PinnedOrderOfTheDocumentedExample) {
  // common/tile_scheduler.h draws a 6 × 5 grid with bands of 4 rows.
  const std::vector<TileCoord> order = grouped({6, 5}, 4);
  ASSERT_EQ(order.size(), 30u);
  const int expected[6][5] = {{0, 4, 8, 12, 16},   {1, 5, 9, 13, 17},   {2, 6, 10, 14, 18},
                              {3, 7, 11, 15, 19},  {20, 22, 24, 26, 28}, {21, 23, 25, 27, 29}};
  for (int i = 0; i < static_cast<int>(order.size()); ++i)
    EXPECT_EQ(expected[order[i].m][order[i].n], i) << "position " << i;
}

TEST(GroupedTileOrder, OneRowBandsAreRowMajor) {
  const std::vector<TileCoord> order = grouped({5, 7}, 1);
  const std::vector<TileCoord> expected = row_major({5, 7});
  ASSERT_EQ(order.size(), 35u);
  ASSERT_EQ(expected.size(), 35u);
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(order[i].m, expected[i].m) << i;
    EXPECT_EQ(order[i].n, expected[i].n) << i;
  }
}

TEST(TilesOfWorker, BalancesTheTilesWithinOne) {
  for (int tiles : {1, 5, 131, 132, 133, 2048, 1792, 7})
    for (int workers : {1, 66, 132, 200}) {
      int total = 0, least = tiles, most = 0;
      for (int worker = 0; worker < workers; ++worker) {
        const int mine = tiles_of_worker(tiles, workers, worker);
        total += mine;
        least = std::min(least, mine);
        most = std::max(most, mine);
      }
      EXPECT_EQ(total, tiles) << tiles << " tiles, " << workers << " workers";
      EXPECT_LE(most - least, 1) << tiles << " tiles, " << workers << " workers";
    }
}

// The loop every persistent kernel runs, `for (tile = worker; tile < count; tile += workers)`, gives each
// worker tiles_of_worker(...) tiles, which add up to the tile count, also with fewer tiles than workers (the
// extra CTAs of kernel 06 are never launched; the extra clusters of 07-09 take no tile).
TEST(PersistentLoop, TilesOfWorkerCountsTheKernelsLoop) {
  for (const Grid& grid : kGrids)
    for (int workers : {1, 3, 66, 132}) {
      const int count = static_cast<int>(grouped(grid, 8).size());
      int total = 0;
      for (int worker = 0; worker < workers; ++worker) {
        int mine = 0;
        for (int tile = worker; tile < count; tile += workers) ++mine;
        EXPECT_EQ(tiles_of_worker(count, workers, worker), mine) << count << " tiles, worker " << worker;
        total += tiles_of_worker(count, workers, worker);
      }
      EXPECT_EQ(total, count) << workers << " workers";
    }
}

// ---- Hilbert order ---------------------------------------------------------------------------------------

TEST(HilbertTileOrder, VisitsEveryTileOnceForAnyGrid) {
  for (const Grid& grid : kGrids)
    EXPECT_TRUE(covers_every_tile_once(hilbert_tile_order(grid.tiles_m, grid.tiles_n), grid))
        << grid.tiles_m << " x " << grid.tiles_n;
  for (int m = 1; m <= 40; ++m)
    for (int n = 1; n <= 40; ++n)
      EXPECT_TRUE(covers_every_tile_once(hilbert_tile_order(m, n), {m, n})) << m << " x " << n;
}

TEST(HilbertTileOrder, StartsAtTheOriginAndStepsToNeighbours) {
  for (int m = 1; m <= 40; ++m)
    for (int n = 1; n <= 40; ++n) {
      const std::vector<TileCoord> order = hilbert_tile_order(m, n);
      ASSERT_EQ(order.front().m, 0);
      ASSERT_EQ(order.front().n, 0);
      int diagonal_steps = 0;
      for (size_t i = 1; i < order.size(); ++i) {
        const int dm = std::abs(order[i].m - order[i - 1].m), dn = std::abs(order[i].n - order[i - 1].n);
        if (dm == 1 && dn == 1)
          ++diagonal_steps;
        else
          EXPECT_EQ(dm + dn, 1) << m << " x " << n << ", step " << i;
      }
      // One diagonal step at most, and only where no path can avoid it: along an odd long side of an even short
      // one (common/hilbert_order.h).
      const bool diagonal_needed = std::max(m, n) % 2 == 1 && std::min(m, n) % 2 == 0;
      EXPECT_LE(diagonal_steps, diagonal_needed ? 1 : 0) << m << " x " << n;
    }
}

TEST(HilbertTileOrder, IsTheClassicCurveOnAPowerOfTwoSquare) {
  // The 4 × 4 Hilbert curve, as (row, column) in visiting order: from (0, 0) to (0, 3), along the columns.
  const std::vector<std::pair<int, int>> expected = {{0, 0}, {0, 1}, {1, 1}, {1, 0}, {2, 0}, {3, 0}, {3, 1}, {2, 1},
                                                     {2, 2}, {3, 2}, {3, 3}, {2, 3}, {1, 3}, {1, 2}, {0, 2}, {0, 3}};
  const std::vector<TileCoord> order = hilbert_tile_order(4, 4);
  ASSERT_EQ(order.size(), expected.size());
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(order[i].m, expected[i].first) << "position " << i;
    EXPECT_EQ(order[i].n, expected[i].second) << "position " << i;
  }
}

TEST(HilbertTileOrder, PackedTilesRoundTrip) {
  for (const TileCoord tile : {TileCoord{0, 0}, TileCoord{1, 2}, TileCoord{65535, 65535}, TileCoord{300, 7}}) {
    const TileCoord back = unpack_tile(pack_tile(tile));
    EXPECT_EQ(back.m, tile.m);
    EXPECT_EQ(back.n, tile.n);
  }
  EXPECT_EQ(pack_tile({1, 2}), 0x00010002u);
}

// ---- locality: the figures the notes of kernels 06 and 09 quote ------------------------------------------

// 8192³ with 128 × 256 tiles is a 64 × 32 grid; kernel 06 runs 132 CTAs, so a wave is 132 tiles. Row-major
// reads ~4 rows of A tiles and all 32 columns of B tiles per wave; bands of 16 rows read a 16 × 8 block.
TEST(TileOrderLocality, GroupedWavesOfKernel06ReadAboutHalfTheOperandsOfRowMajorWaves) {
  const Grid tiles{64, 32};
  const double rows_first = operand_rows_per_wave(row_major(tiles), 132, 128, 256);
  const double grouped_16 = operand_rows_per_wave(grouped(tiles, 16), 132, 128, 256);
  EXPECT_NEAR(rows_first, 8816, 1);
  EXPECT_NEAR(grouped_16, 4672, 1);
  for (int group_rows : {4, 8, 32})  // 16 is the best band for this grid
    EXPECT_GE(operand_rows_per_wave(grouped(tiles, group_rows), 132, 128, 256), grouped_16) << group_rows;
}

// Kernels 07-09 walk 2 × 1 cluster tiles (256 × 256 of C), 66 clusters in flight: at 8192³ a 32 × 32 grid,
// on the LLM shape (4096 × 14336) a 16 × 56 grid. The Hilbert curve's waves are compact blobs, about as
// small as the best grouped band's (which the grouped order only reaches when its band suits the grid).
// The row-major and grouped figures can be counted by hand; the Hilbert ones (5008, 4974) cannot, and are a
// snapshot of the curve as built, which notes 09's table quotes: the inequalities are the property tested.
TEST(TileOrderLocality, HilbertWavesAreAsCompactAsTheBestGroupedBands) {
  struct Case {
    Grid grid;
    double row_major, grouped_8, hilbert;
  };
  for (const Case& c : {Case{{32, 32}, 8944, 4672, 5008}, Case{{16, 56}, 14537, 4425, 4974}}) {
    const double rows_first = operand_rows_per_wave(row_major(c.grid), 66, 256, 256);
    const double grouped_8 = operand_rows_per_wave(grouped(c.grid, 8), 66, 256, 256);
    const double hilbert = operand_rows_per_wave(hilbert_tile_order(c.grid.tiles_m, c.grid.tiles_n), 66, 256, 256);
    EXPECT_NEAR(rows_first, c.row_major, 1) << c.grid.tiles_m << " x " << c.grid.tiles_n;
    EXPECT_NEAR(grouped_8, c.grouped_8, 1);
    EXPECT_NEAR(hilbert, c.hilbert, 1);
    EXPECT_LT(hilbert, 0.6 * rows_first);
    EXPECT_LT(hilbert, 1.15 * grouped_8);
  }
}

// ---- the ring position -------------------------------------------------------------------------------------

TEST(PipelineState, WrapsAroundTheRingAndFlipsThePhaseEachTime) {
  PipelineState<4> state;
  std::vector<std::pair<int, unsigned>> seen;
  for (int i = 0; i < 10; ++i, state.advance()) seen.push_back({state.stage, state.phase});
  const std::vector<std::pair<int, unsigned>> expected = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1},
                                                          {1, 1}, {2, 1}, {3, 1}, {0, 0}, {1, 0}};
  EXPECT_EQ(seen, expected);
}

TEST(PipelineState, MatchesTheKIndexFormulaOfKernels04And05) {
  // Within one tile the running state equals stage = k % stages, phase = (k / stages) % 2; across tiles it
  // continues where the previous tile left off.
  PipelineState<3> state;
  for (int k = 0; k < 100; ++k, state.advance()) {
    EXPECT_EQ(state.stage, k % 3) << k;
    EXPECT_EQ(state.phase, static_cast<unsigned>((k / 3) % 2)) << k;
  }
}

TEST(PipelineState, SkippingStepsEqualsAdvancingOneAtATime) {
  for (int start = 0; start < 12; ++start)
    for (int steps = 0; steps < 40; ++steps) {
      PipelineState<5> one_by_one, at_once;
      for (int i = 0; i < start; ++i) one_by_one.advance(), at_once.advance();
      for (int i = 0; i < steps; ++i) one_by_one.advance();
      at_once.advance(steps);
      EXPECT_EQ(at_once.stage, one_by_one.stage) << start << " + " << steps;
      EXPECT_EQ(at_once.phase, one_by_one.phase) << start << " + " << steps;
    }
}

}  // namespace
}  // namespace gemm
