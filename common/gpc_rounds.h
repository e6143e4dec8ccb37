// Rounds of cluster tiles handed out GPC by GPC, so that the clusters of one GPC compute tiles of one row and ask
// for the same A panel together. Introduced by kernel 09 (both its kernels; the notes' "A GPC's clusters on one
// row").
//
// Why. A persistent kernel's round j is the tiles at positions [j·C, (j+1)·C) of its order, C clusters, one each.
// Which cluster takes which of them changes nothing in DRAM (the round reads the same panels), but it changes what
// the L2 reads: the L2's request coalescer serves several SMs' requests for the same sectors with one read when
// they arrive together from SMs of one GPC (kernel 09's notes and docs/09_against_cublas.md measure it), and the
// clusters of one GPC are not consecutive clusters: the hardware deals a launch's clusters out over the GPCs. With
// cluster c taking position j·C + c, the clusters of a GPC hold tiles of several rows, and most of their requests
// for A find no partner.
//
// How. A round's tiles are sorted by row, then column, and dealt out in that order to the clusters GPC by GPC (the
// biggest GPC first, its clusters in index order): a GPC's 8 or 9 clusters take consecutive tiles of one row, and
// each A panel of that row is asked for by all of them. Every tile of the round is still computed exactly once, by
// one cluster, so the results do not depend on the labels being right; the labels come from a probe of where the
// clusters run (common/gpc_probe.h), and only the speed does.
//
// Host code, tested by tests/host/test_gpc_rounds.cpp.
#pragma once

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

#include "common/tile_scheduler.h"  // GroupedTileOrder

namespace gemm {

// The entry of a cluster that has no tile in the last round.
constexpr int kNoTile = -1;

// `tiles`: the cluster tiles in the order the rounds take them (round j: positions [j · clusters, (j + 1) ·
// clusters)). `gpc_of_cluster`: one label per cluster (the launch's cluster count is its size); clusters with one
// label run on one GPC. Returns rounds × clusters positions in `tiles`: round j's tile of cluster c at
// [j · clusters + c], kNoTile where a cluster has no tile in the last round. Round j holds the same positions as
// without the grouping.
inline std::vector<int> gpc_grouped_rounds(const std::vector<TileCoord>& tiles,
                                           const std::vector<int>& gpc_of_cluster) {
  const int clusters = static_cast<int>(gpc_of_cluster.size());
  if (clusters == 0) throw std::invalid_argument("gpc_grouped_rounds: no clusters");
  // The clusters by GPC, the biggest GPC first (ties: the GPC of the lowest cluster first).
  std::map<int, std::vector<int>> by_label;
  for (int cluster = 0; cluster < clusters; ++cluster) by_label[gpc_of_cluster[cluster]].push_back(cluster);
  std::vector<std::vector<int>> gpcs;
  for (auto& entry : by_label) gpcs.push_back(std::move(entry.second));
  std::stable_sort(gpcs.begin(), gpcs.end(), [](const std::vector<int>& a, const std::vector<int>& b) {
    return a.size() != b.size() ? a.size() > b.size() : a.front() < b.front();
  });
  std::vector<int> dealing_order;  // the clusters in the order they are dealt tiles
  for (const auto& gpc : gpcs) dealing_order.insert(dealing_order.end(), gpc.begin(), gpc.end());

  const int count = static_cast<int>(tiles.size());
  const int rounds = (count + clusters - 1) / clusters;
  std::vector<int> table(static_cast<size_t>(rounds) * clusters, kNoTile);
  std::vector<int> positions;
  for (int round = 0; round < rounds; ++round) {
    positions.clear();
    for (int position = round * clusters; position < std::min(count, (round + 1) * clusters); ++position)
      positions.push_back(position);
    std::sort(positions.begin(), positions.end(), [&tiles](int a, int b) {
      return tiles[a].m != tiles[b].m ? tiles[a].m < tiles[b].m : tiles[a].n < tiles[b].n;
    });
    for (size_t i = 0; i < positions.size(); ++i)
      table[static_cast<size_t>(round) * clusters + dealing_order[i]] = positions[i];
  }
  return table;
}

// The tiles of `order`, position by position.
inline std::vector<TileCoord> tiles_in_order(const GroupedTileOrder& order) {
  std::vector<TileCoord> tiles;
  tiles.reserve(static_cast<size_t>(order.count()));
  for (int position = 0; position < order.count(); ++position) tiles.push_back(order.at(position));
  return tiles;
}

}  // namespace gemm
