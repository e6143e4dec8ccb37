// `gemm explain [ID]`: what the dispatch chapter (kernel 16) launches on a shape, and why: the kernel, its tile and
// cluster, its schedule (rounds, or the split along K over how many clusters) and the cost model's cycles per SM for
// both candidates (common/pingpong_choice.h). With ID 15 or 14, that kernel's own plan instead, whatever kernel 16
// would pick (common/few_tiles.h, common/pingpong_choice.h). No kernel runs: the models need only the GPU's resident
// clusters of two CTAs, for shapes with K not a multiple of 64 of four, and the DRAM's rate and the L2's size, asked
// of the GPU or given with --clusters, --quad-clusters, --dram-bytes-per-cycle and --l2-mib.
#pragma once

#include <string>
#include <vector>

#include "common/few_tiles.h"
#include "runner/shapes.h"

namespace CLI {
class App;
}

namespace gemm {

struct ExplainCommand {
  int kernel = 16;     // 16 (what dispatch launches), or 15 or 14 (that kernel's own plan)
  std::vector<Shape> shapes;  // from --shapes, as compare's (presets expanded); empty: the shapes of the results runs
  int clusters = 0;    // resident clusters of two CTAs; 0: ask the GPU
  int quad_clusters = -1;  // resident 2 × 2 clusters; -1: ask the GPU where it is asked for `clusters`, else none
  double dram_bytes_per_cycle = -1;  // the DRAM's bytes an SM cycle; -1: ask the GPU as above, else none
  double l2_mib = -1;                // the L2's size; -1: ask the GPU as above, else none
};

// `shapes_text` receives --shapes as given; the caller parses it into command.shapes (a bad list is a usage error).
CLI::App* add_explain_subcommand(CLI::App& app, ExplainCommand& command, std::string& shapes_text);

// One shape's line: "512x4096x14336  15 few_tiles  128x128 tiles, 2x1 clusters: 64 cluster tiles ... (model, ...)"
// (or why the dispatch chapter does not take the shape).
std::string explain_shape(const Shape& shape, int clusters, int quad_clusters = 0, const FewTilesMemory& memory = {});
// The same for kernel 15's own plan, and kernel 14's, as their launchers make them: "512x4096x14336  128x128 tiles,
// 2x1 clusters: ...  (its model: 140k cycles per SM by its schedule)".
std::string explain_few_tiles_plan(const Shape& shape, int clusters, int quad_clusters = 0,
                                   const FewTilesMemory& memory = {});
std::string explain_pingpong_plan(const Shape& shape, int clusters);

int command_explain(const ExplainCommand& command);

}  // namespace gemm
