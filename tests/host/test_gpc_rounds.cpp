// Rounds handed out GPC by GPC (common/gpc_rounds.h): each round computes exactly the tiles it computes without the
// grouping, every tile once, whatever the labels and every dealing; sorted, the clusters of one GPC get tiles of one
// or two cluster rows (by column, of one or two columns), one row each where they can; the GPC groups of the round
// barriers; the full rounds.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "common/gpc_rounds.h"
#include "tests/host/probed_gpcs.h"

namespace gemm {
namespace {

struct Case {
  int tiles_m, tiles_n, group_rows, clusters;
};
// The LLM shape's grid for the ping-pong kernel (4096 × 14336: 16 × 82 cluster tiles, 66 clusters), ragged grids,
// a single round with clusters left over, one cluster.
const Case kCases[] = {{16, 82, 8, 66}, {3, 5, 8, 4}, {17, 9, 8, 66}, {5, 70, 8, 66}, {2, 3, 8, 8}, {1, 1, 8, 1},
                       {9, 13, 4, 7}};

// Label layouts: everyone on one GPC, every cluster alone, GPCs dealt out round robin (as the hardware deals a
// launch's clusters), and GPCs in blocks of consecutive clusters.
std::vector<std::vector<int>> layouts(int clusters) {
  std::vector<int> one(clusters, 0), alone(clusters), dealt(clusters), blocks(clusters);
  for (int c = 0; c < clusters; ++c) {
    alone[c] = c;
    dealt[c] = c % 7;
    blocks[c] = c / 9;
  }
  return {one, alone, dealt, blocks};
}

TEST(GpcRounds, EveryRoundComputesItsOwnTilesEachOnce) {
  for (const Case& test_case : kCases) {
    const GroupedTileOrder order{test_case.tiles_m, test_case.tiles_n, test_case.group_rows};
    for (const std::vector<int>& labels : layouts(test_case.clusters)) {
      for (const GpcDealing dealing :
           {GpcDealing::kSortedRows, GpcDealing::kRowPerGpc, GpcDealing::kSortedColumns}) {
        const std::vector<int> table = gpc_grouped_rounds(tiles_in_order(order), labels, dealing);
        const int clusters = test_case.clusters;
        const int rounds = (order.count() + clusters - 1) / clusters;
        ASSERT_EQ(table.size(), static_cast<size_t>(rounds) * clusters);
        std::set<int> seen;
        for (int round = 0; round < rounds; ++round) {
          for (int cluster = 0; cluster < clusters; ++cluster) {
            const int position = table[round * clusters + cluster];
            if (position == kNoTile) {
              EXPECT_EQ(round, rounds - 1) << "only the last round may leave a cluster without a tile";
              continue;
            }
            EXPECT_GE(position, round * clusters);
            EXPECT_LT(position, (round + 1) * clusters) << "a tile moved to another round";
            EXPECT_TRUE(seen.insert(position).second) << "position " << position << " twice";
          }
        }
        EXPECT_EQ(static_cast<int>(seen.size()), order.count()) << "a tile computed by no cluster";
        const int full_rounds = full_rounds_of(table, clusters);
        EXPECT_EQ(full_rounds, order.count() / clusters);
      }
    }
  }
}

// The cluster rows (A panels) the clusters of each GPC hold in round `round`, summed over the GPCs.
int rows_per_round(const GroupedTileOrder& order, const std::vector<int>& labels, const std::vector<int>& table,
                   int round) {
  const int clusters = static_cast<int>(labels.size());
  std::set<std::pair<int, int>> gpc_rows;
  for (int cluster = 0; cluster < clusters; ++cluster) {
    const int position = table[round * clusters + cluster];
    if (position != kNoTile) gpc_rows.insert({labels[cluster], order.at(position).m});
  }
  return static_cast<int>(gpc_rows.size());
}

TEST(GpcRounds, TheClustersOfOneGpcShareARow) {
  // The LLM shape's grid on 66 clusters dealt round robin over 7 GPCs (9 or 10 clusters each). Without the grouping
  // (cluster c takes position j × 66 + c) every GPC holds tiles of all 8 cluster rows of a round inside one band: 56
  // GPC-row pairs. Grouped, each GPC holds one or two rows (its run of tiles may cross from one row to the next):
  // 12 to 14 pairs. The round that crosses from the first band to the second (round 9: 62 tiles of band 0, 4 of
  // band 1, one to a row) holds 17 against 60.
  const GroupedTileOrder order{16, 82, 8};
  const int clusters = 66, band_tiles = 8 * 82;
  const std::vector<int> labels = layouts(clusters)[2];
  std::vector<int> plain(static_cast<size_t>((order.count() + clusters - 1) / clusters) * clusters, kNoTile);
  for (int position = 0; position < order.count(); ++position)
    plain[(position / clusters) * clusters + position % clusters] = position;
  const std::vector<int> grouped = gpc_grouped_rounds(tiles_in_order(order), labels);
  const int full_rounds = order.count() / clusters;
  for (int round = 0; round < full_rounds; ++round) {
    const bool one_band = round * clusters / band_tiles == ((round + 1) * clusters - 1) / band_tiles;
    const int grouped_pairs = rows_per_round(order, labels, grouped, round);
    const int plain_pairs = rows_per_round(order, labels, plain, round);
    if (one_band) {
      EXPECT_EQ(plain_pairs, 56) << "round " << round;
      EXPECT_GE(grouped_pairs, 12) << "round " << round;
      EXPECT_LE(grouped_pairs, 14) << "round " << round;
      for (int gpc = 0; gpc < 7; ++gpc) {
        std::set<int> rows;
        for (int cluster = 0; cluster < clusters; ++cluster)
          if (labels[cluster] == gpc) rows.insert(order.at(grouped[round * clusters + cluster]).m);
        EXPECT_LE(rows.size(), 2u) << "round " << round << ", GPC " << gpc;
      }
    } else {
      EXPECT_EQ(round, 9);
      EXPECT_EQ(grouped_pairs, 17);
      EXPECT_EQ(plain_pairs, 60);
    }
  }
}

TEST(GpcRounds, TheClustersOfOneGpcShareAColumnWhereDealtByColumn) {
  // Kernel 15 at 1028 × 1472 × K in 1 × 2 clusters of 128 × 128 tiles: 9 × 6 cluster tiles, one round on 54 clusters
  // dealt round robin over 7 GPCs (0-4 hold 8 clusters, 5 and 6 hold 7). By column the dealt sequence is column 0's
  // rows 0-8, column 1's, ...: GPC 0 (clusters 0, 7, ..., 49) takes column 0's rows 0-7, GPC 1 (1, 8, ..., 50) column
  // 0's row 8 and column 1's rows 0-6, ..., GPC 6 (6, 13, ..., 48) column 5's rows 2-8: 1 + 2 + 2 + 2 + 2 + 2 + 1 = 12
  // GPC-column pairs. By row each GPC's 7 or 8 tiles cross a row of 6 and cover all six columns: 42.
  const GroupedTileOrder order{9, 6, 8};
  const int clusters = 54;
  const std::vector<int> labels = layouts(clusters)[2];
  const std::vector<int> by_column = gpc_grouped_rounds(tiles_in_order(order), labels, GpcDealing::kSortedColumns);
  const std::vector<int> by_row = gpc_grouped_rounds(tiles_in_order(order), labels, GpcDealing::kSortedRows);
  ASSERT_EQ(by_column.size(), 54u);
  const auto tile_of = [&](int cluster) { return order.at(by_column[cluster]); };
  const auto expect_tile = [&](int cluster, int m, int n) {
    EXPECT_EQ(tile_of(cluster).m, m) << "cluster " << cluster;
    EXPECT_EQ(tile_of(cluster).n, n) << "cluster " << cluster;
  };
  expect_tile(0, 0, 0);   // GPC 0, its first cluster
  expect_tile(7, 1, 0);   // GPC 0, its second
  expect_tile(49, 7, 0);  // GPC 0, its last
  expect_tile(1, 8, 0);   // GPC 1 takes the end of column 0
  expect_tile(8, 0, 1);   // ... and the start of column 1
  expect_tile(6, 2, 5);   // GPC 6, its first
  expect_tile(48, 8, 5);  // GPC 6, its last: the grid's last tile
  const auto columns_per_round = [&](const std::vector<int>& table) {
    std::set<std::pair<int, int>> gpc_columns;
    for (int cluster = 0; cluster < clusters; ++cluster)
      gpc_columns.insert({labels[cluster], order.at(table[cluster]).n});
    return static_cast<int>(gpc_columns.size());
  };
  EXPECT_EQ(columns_per_round(by_column), 12);
  EXPECT_EQ(columns_per_round(by_row), 42);
}

TEST(GpcRounds, OneRowPerGpcWhereTheRowsFit) {
  // The LLM shape's grid (16 × 82 cluster tiles, bands of 8 rows) on the probed GPCs. A round inside one band holds 8
  // rows of 8 or 9 tiles; one row per GPC, each GPC's clusters share an A panel: 12 GPC-row pairs (8 GPCs and the
  // four lone clusters), where sorted dealing, a GPC's run crossing rows' ends, gives 12 to 19.
  const GroupedTileOrder order{16, 82, 8};
  const int clusters = 66, band_tiles = 8 * 82;
  const std::vector<int> labels = probed_cluster_labels();
  ASSERT_EQ(labels.size(), static_cast<size_t>(clusters));
  const std::vector<int> sorted = gpc_grouped_rounds(tiles_in_order(order), labels, GpcDealing::kSortedRows);
  const std::vector<int> by_row = gpc_grouped_rounds(tiles_in_order(order), labels, GpcDealing::kRowPerGpc);
  const int full_rounds = order.count() / clusters;
  int sorted_pairs = 0, row_pairs = 0;
  for (int round = 0; round < full_rounds; ++round) {
    const bool one_band = round * clusters / band_tiles == ((round + 1) * clusters - 1) / band_tiles;
    const int pairs = rows_per_round(order, labels, by_row, round);
    EXPECT_LE(pairs, rows_per_round(order, labels, sorted, round)) << "round " << round;
    sorted_pairs += rows_per_round(order, labels, sorted, round);
    row_pairs += pairs;
    if (one_band)
      EXPECT_EQ(pairs, 12) << "round " << round;
    else
      EXPECT_EQ(pairs, 17) << "round " << round;  // round 9: 62 tiles of band 0, then 4 of band 1
  }
  EXPECT_EQ(row_pairs, 233);     // 18 rounds × 12 + 17
  EXPECT_EQ(sorted_pairs, 300);  // 12, 15, 17 and 19 in turn, 19 in round 9
}

TEST(GpcRounds, GroupsForTheRoundBarriers) {
  const GpcGroups groups = gpc_groups(probed_cluster_labels(), 2);
  ASSERT_EQ(groups.ctas_of_group.size(), 12u);  // eight GPCs and the four lone clusters, biggest first
  EXPECT_EQ(groups.ctas_of_group, (std::vector<uint32_t>{18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2}));
  const std::vector<int> labels = probed_cluster_labels();
  for (size_t a = 0; a < labels.size(); ++a)
    for (size_t b = 0; b < labels.size(); ++b)
      EXPECT_EQ(labels[a] == labels[b], groups.group_of_cluster[a] == groups.group_of_cluster[b]) << a << ", " << b;
}

TEST(GpcRounds, FullRoundsAreThoseInWhichEveryClusterHasATile) {
  // Whichever cluster goes without a tile in the last round, that round is not full (the last cluster may have one).
  const std::vector<int> last_cluster_busy = {0, 1, 2, 3, kNoTile, 4};  // 3 clusters, 2 rounds
  EXPECT_EQ(full_rounds_of(last_cluster_busy, 3), 1);
  EXPECT_EQ(full_rounds_of({0, 1, 2, 3, 4, 5}, 3), 2);
  EXPECT_EQ(full_rounds_of({0, kNoTile, kNoTile}, 3), 0);
  EXPECT_EQ(full_rounds_of({}, 3), 0);
  // The LLM grid on the probed GPCs: 19 full rounds and a last one with 58 tiles, the idle clusters not the last.
  const std::vector<int> table =
      gpc_grouped_rounds(tiles_in_order(GroupedTileOrder{16, 82, 8}), probed_cluster_labels(),
                         GpcDealing::kRowPerGpc);
  EXPECT_NE(table.back(), kNoTile);
  EXPECT_EQ(full_rounds_of(table, 66), 19);
}

TEST(GpcRounds, RefusesNoClusters) {
  EXPECT_THROW(gpc_grouped_rounds(tiles_in_order(GroupedTileOrder{2, 2, 8}), {}), std::invalid_argument);
}

}  // namespace
}  // namespace gemm
