// Rounds of cluster tiles handed out GPC by GPC, so that the clusters of one GPC compute tiles of one row and ask
// for the same A panel together. Introduced by kernel 13 (kSortedRows); kernel 14 adds kRowPerGpc and the groups of
// its per-GPC round barriers (gpc_groups); kernel 15 deals by column in clusters along N (kSortedColumns).
//
// Why. A persistent kernel's round j is the tiles at positions [j·C, (j+1)·C) of its order, C clusters, one each.
// Which cluster takes which of them changes nothing in DRAM (the round reads the same panels), but it changes what
// the L2 reads: the L2's request coalescer serves several SMs' requests for the same sectors with one read when
// they arrive together from SMs of one GPC (kernel 13's notes and docs/log/09-15_against_cublas.md measure it), and
// the clusters of one GPC are not consecutive clusters: the hardware deals a launch's clusters out over the GPCs.
// With cluster c taking position j·C + c, the clusters of a GPC hold tiles of several rows, and most of their
// requests for A find no partner.
//
// How. Three ways of dealing a round (`GpcDealing`):
//   - kSortedRows: the round's tiles, sorted by row, then column, dealt out in that order to the clusters GPC by GPC
//     (the biggest GPC first, its clusters in index order). A GPC's clusters take consecutive tiles: one row, or the
//     end of one and the start of the next where the GPC's run crosses a row's end. The cooperative kernel's way.
//   - kRowPerGpc: each GPC, biggest first, takes the row of the round with the most tiles left (its tiles in column
//     order), and only if that row runs out the next such row. Where a round's rows hold as many tiles as the GPCs
//     have clusters (the ping-pong kernel's bands of 8 rows: 66 tiles as rows of 8 and 9 for GPCs of 8 and 9
//     clusters), every GPC's clusters share one row: on the GPCs probed on H100s and H200s (eight, and four lone
//     clusters), 12 GPC-row pairs a round against 12-19 sorted. The ping-pong kernel's way.
//   - kSortedColumns: kSortedRows with rows and columns swapped: a GPC's clusters take consecutive tiles of one
//     column, and ask for the same B panel together. For clusters whose CTAs lie along N (1 × 2: A is multicast over
//     the pair, each CTA loads its B alone), where B is the load that finds no partner otherwise. Kernel 15's.
// Every way, every tile of the round is still computed exactly once, by one cluster, so the results do not depend on
// the labels being right; the labels come from a probe of where the clusters run (common/gpc_probe.h), and only the
// speed does.
//
// Host code, tested by tests/host/test_gpc_rounds.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

#include "common/tile_scheduler.h"  // GroupedTileOrder

namespace gemm {

// The entry of a cluster that has no tile in the last round.
constexpr int kNoTile = -1;

enum class GpcDealing { kSortedRows, kRowPerGpc, kSortedColumns };

// The clusters grouped by label, the biggest group first (ties: the group of the lowest cluster first), each group's
// clusters in index order.
inline std::vector<std::vector<int>> clusters_by_gpc(const std::vector<int>& gpc_of_cluster) {
  std::map<int, std::vector<int>> by_label;
  for (int cluster = 0; cluster < static_cast<int>(gpc_of_cluster.size()); ++cluster)
    by_label[gpc_of_cluster[cluster]].push_back(cluster);
  std::vector<std::vector<int>> gpcs;
  for (auto& entry : by_label) gpcs.push_back(std::move(entry.second));
  std::stable_sort(gpcs.begin(), gpcs.end(), [](const std::vector<int>& a, const std::vector<int>& b) {
    return a.size() != b.size() ? a.size() > b.size() : a.front() < b.front();
  });
  return gpcs;
}

// `tiles`: the cluster tiles in the order the rounds take them (round j: positions [j · clusters, (j + 1) ·
// clusters)). `gpc_of_cluster`: one label per cluster (the launch's cluster count is its size); clusters with one
// label run on one GPC. Returns rounds × clusters positions in `tiles`: round j's tile of cluster c at
// [j · clusters + c], kNoTile where a cluster has no tile in the last round. Round j holds the same positions as
// without the grouping.
inline std::vector<int> gpc_grouped_rounds(const std::vector<TileCoord>& tiles,
                                           const std::vector<int>& gpc_of_cluster,
                                           GpcDealing dealing = GpcDealing::kSortedRows) {
  if (dealing == GpcDealing::kSortedColumns) {  // the same positions, dealt as if the grid were transposed
    std::vector<TileCoord> transposed;
    for (const TileCoord& tile : tiles) transposed.push_back({tile.n, tile.m});
    return gpc_grouped_rounds(transposed, gpc_of_cluster, GpcDealing::kSortedRows);
  }
  const int clusters = static_cast<int>(gpc_of_cluster.size());
  if (clusters == 0) throw std::invalid_argument("gpc_grouped_rounds: no clusters");
  const std::vector<std::vector<int>> gpcs = clusters_by_gpc(gpc_of_cluster);

  const int count = static_cast<int>(tiles.size());
  const int rounds = (count + clusters - 1) / clusters;
  std::vector<int> table(static_cast<size_t>(rounds) * clusters, kNoTile);
  for (int round = 0; round < rounds; ++round) {
    // The round's positions by row, each row's in column order (rows in ascending order).
    std::map<int, std::vector<int>> row_positions;
    for (int position = round * clusters; position < std::min(count, (round + 1) * clusters); ++position)
      row_positions[tiles[position].m].push_back(position);
    for (auto& entry : row_positions)
      std::sort(entry.second.begin(), entry.second.end(), [&tiles](int a, int b) { return tiles[a].n < tiles[b].n; });
    int* const round_table = table.data() + static_cast<size_t>(round) * clusters;
    if (dealing == GpcDealing::kSortedRows) {
      auto row = row_positions.begin();  // the round's tiles in row order, to the clusters GPC by GPC
      size_t in_row = 0;
      for (const auto& gpc : gpcs)
        for (int cluster : gpc) {
          if (row == row_positions.end()) break;
          round_table[cluster] = row->second[in_row++];
          if (in_row == row->second.size()) {
            ++row;
            in_row = 0;
          }
        }
      continue;
    }
    std::map<int, size_t> taken;  // per row, the tiles dealt so far
    for (const auto& gpc : gpcs) {
      size_t next = 0;  // the GPC's next cluster without a tile
      while (next < gpc.size()) {
        int best_row = -1;  // the row with the most tiles left (the lowest of equals)
        size_t most_left = 0;
        for (const auto& entry : row_positions) {
          const size_t left = entry.second.size() - taken[entry.first];
          if (left > most_left) {
            most_left = left;
            best_row = entry.first;
          }
        }
        if (best_row < 0) break;  // the round has no tiles left: the rest of the clusters have none
        const std::vector<int>& row = row_positions[best_row];
        while (next < gpc.size() && taken[best_row] < row.size()) round_table[gpc[next++]] = row[taken[best_row]++];
      }
    }
  }
  return table;
}

// The rounds of `table` (gpc_grouped_rounds' result for `clusters` clusters) in which every cluster has a tile: all
// of them, or all but the last.
inline int full_rounds_of(const std::vector<int>& table, int clusters) {
  const int rounds = static_cast<int>(table.size()) / clusters;
  if (rounds == 0) return 0;
  const auto last = table.begin() + static_cast<std::ptrdiff_t>(rounds - 1) * clusters;
  return std::find(last, table.end(), kNoTile) == table.end() ? rounds : rounds - 1;
}

// The groups of GroupRoundBarriers (common/round_barrier.h) for clusters of `cluster_size` CTAs: one group per GPC,
// numbered as clusters_by_gpc orders them; each cluster's group and each group's CTAs.
struct GpcGroups {
  std::vector<uint32_t> group_of_cluster;
  std::vector<uint32_t> ctas_of_group;
};
inline GpcGroups gpc_groups(const std::vector<int>& gpc_of_cluster, int cluster_size) {
  GpcGroups groups{std::vector<uint32_t>(gpc_of_cluster.size()), {}};
  for (const auto& gpc : clusters_by_gpc(gpc_of_cluster)) {
    for (int cluster : gpc) groups.group_of_cluster[cluster] = static_cast<uint32_t>(groups.ctas_of_group.size());
    groups.ctas_of_group.push_back(static_cast<uint32_t>(gpc.size() * cluster_size));
  }
  return groups;
}

// The tiles of `order`, position by position.
inline std::vector<TileCoord> tiles_in_order(const GroupedTileOrder& order) {
  std::vector<TileCoord> tiles;
  tiles.reserve(static_cast<size_t>(order.count()));
  for (int position = 0; position < order.count(); ++position) tiles.push_back(order.at(position));
  return tiles;
}

}  // namespace gemm
