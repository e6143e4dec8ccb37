#include "runner/explain.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include "common/errors.h"
#include "common/pingpong_choice.h"
#include "common/stream_k.h"
#include "kernels/registry.h"
#include "runner/device.h"

namespace gemm {

int pingpong_resident_clusters();  // kernels/14_pingpong.cu: the clusters of two that the Hopper chapters keep resident
int few_tiles_quad_clusters();     // kernels/15_few_tiles.cu: its resident 2 × 2 clusters
FewTilesMemory few_tiles_memory();  // kernels/15_few_tiles.cu: the DRAM's rate and L2 size its plan weighs splits by

CLI::App* add_explain_subcommand(CLI::App& app, ExplainCommand& command, std::string& shapes_text) {
  CLI::App* explain = app.add_subcommand(
      "explain", "What the dispatch chapter (16) launches on each shape, and why (its cost model; no kernel runs)");
  explain->add_option("id", command.kernel,
                      "16 (default): what the dispatch chapter launches and why; 15 or 14: that kernel's own plan")
      ->check(CLI::IsMember({14, 15, 16}));
  explain->add_option("--shapes,--shape", shapes_text,
                      "Shapes MxNxK[,...] and model presets (" + model_preset_names() +
                          "); default: the results runs' shapes");
  explain->add_option("--clusters", command.clusters,
                      "Resident clusters of two CTAs (66 on a 132-SM H100 or H200); default: ask the GPU")
      ->check(CLI::Range(1, 1 << 16));
  explain->add_option("--quad-clusters", command.quad_clusters,
                      "Resident 2x2 clusters, which kernel 15 may take where K % 64 != 0 (30 on the H100s and the "
                      "H200 measured); default: ask the GPU, or none where --clusters is given")
      ->check(CLI::Range(0, 1 << 16));
  explain->add_option("--dram-bytes-per-cycle", command.dram_bytes_per_cycle,
                      "What the DRAM moves in an SM cycle, by which kernel 15 weighs a split over every cluster "
                      "against whole tiles (2310 on an H200 at 1980 MHz: 0.95 of its 4.82 TB/s); default: ask the GPU, "
                      "or not weighed where --clusters is given")
      ->check(CLI::Range(0.0, 1e6));
  explain->add_option("--l2-mib", command.l2_mib,
                      "The L2's size in MiB, which that weighing needs too (60 on an H200, 50 on an H100); default: "
                      "ask the GPU, or none where --clusters is given (every operand then counted as read again by "
                      "each cluster that needs it)")
      ->check(CLI::Range(0.0, 1e6));
  return explain;
}

namespace {

std::string thousands(double cycles) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0fk", cycles / 1000);
  return text;
}

std::string percent(double fraction) {  // "2 %", "0.5 %"
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", fraction * 100);
  std::string figure = text;
  if (figure.size() > 2 && figure.compare(figure.size() - 2, 2, ".0") == 0) figure.resize(figure.size() - 2);
  return figure + " %";
}

// "C transposed (NxMxK): " where the plan computes Cᵀ = B·Aᵀ (plan_pingpong, plan_few_tiles_or_transposed): its tiles
// are then of that problem.
std::string transposed_prefix(const Shape& shape, bool transposed) {
  return transposed ? "C transposed (" + to_string(Shape{shape.n, shape.m, shape.k}) + "): " : "";
}

// Kernel 14's plan: "128x176 tiles, 2x1 clusters: 63 cluster tiles in 1 round".
std::string pingpong_plan_text(const Shape& shape, int width, int cluster_tiles, int rounds, bool transposed) {
  std::ostringstream text;
  text << transposed_prefix(shape, transposed) << "128x" << width << " tiles, 2x1 clusters: " << cluster_tiles
       << (cluster_tiles == 1 ? " cluster tile in " : " cluster tiles in ") << rounds
       << (rounds == 1 ? " round" : " rounds");
  return text.str();
}

// Kernel 15's plan: its tiling, clusters and schedule, and the L2 fills off the lines.
std::string few_tiles_plan_text(const Shape& shape, const FewTilesPlan& plan) {
  const StreamKSchedule& schedule = plan.schedule;
  std::ostringstream line;
  line << transposed_prefix(shape, plan.transposed);
  line << plan.block_m << "x" << plan.block_n << " tiles, " << plan.cluster_m << "x" << plan.cluster_n
       << " clusters: " << plan.cluster_tiles << (plan.cluster_tiles == 1 ? " cluster tile" : " cluster tiles");
  if (plan.cluster_tiles < plan.resident_clusters) {
    if (schedule.even_shares() > 0)
      line << " of " << plan.k_blocks << " k blocks, each split along K in " << schedule.even_shares()
           << " equal shares over " << schedule.workers << " clusters";
    else if (schedule.splits())
      line << " of " << plan.k_blocks << " k blocks split along K over " << schedule.workers << " clusters";
    else if (plan.whole_over_dram)
      line << " whole, one per cluster (a split over every cluster would wait on the DRAM)";
    else if (fitted_width(plan.block_m, plan.block_n))
      line << " whole, one per cluster (a width fitted to one round)";
    else if (plan.block_n == kWideRoundsWidth)
      line << " whole, one per cluster (wide tiles for a split)";
    else
      line << " whole, one per cluster (no split pays)";
  } else if (schedule.splits()) {
    line << ", " << schedule.full_rounds() << (schedule.full_rounds() == 1 ? " whole round" : " whole rounds")
         << ", the last " << schedule.split_tiles() << " split along K over " << schedule.workers << " clusters";
  } else {
    const int rounds = schedule.rounds();
    line << " in " << rounds << (rounds == 1 ? " round" : " rounds") << " on " << schedule.workers << " clusters";
    if (plan.block_n == kWideRoundsWidth) line << " (wide tiles for a split)";
  }
  if (operand_fill_bytes(shape.k) != kOnLinesFillBytes)  // rows off the L2's lines (common/few_tiles.h)
    line << "; " << operand_fill_bytes(shape.k) << "-byte L2 fills";
  return line.str();
}

// Why a kernel of `rule` does not take the shape, or nothing.
std::optional<std::string> refusal_line(const Shape& shape, ShapeRule rule) {
  if (const auto refusal = shape_refusal(rule, shape.m, shape.n, shape.k))
    return to_string(shape) + "  not taken: " + *refusal;
  return std::nullopt;
}

}  // namespace

std::string explain_shape(const Shape& shape, int clusters, int quad_clusters, const FewTilesMemory& memory) {
  if (auto refusal = refusal_line(shape, ShapeRule::kTmaAlignedTileTable)) return *refusal;
  std::ostringstream line;
  line << to_string(shape) << "  ";
  const PingPongEstimate estimate =
      estimate_pingpong(shape.m, shape.n, shape.k, clusters, quad_clusters, memory);
  if (estimate.pingpong)
    line << "14 pingpong   "
         << pingpong_plan_text(shape, estimate.pingpong_width, estimate.pingpong_cluster_tiles,
                               estimate.pingpong_rounds, estimate.pingpong_transposed);
  else
    line << "15 few_tiles  " << few_tiles_plan_text(shape, estimate.few_tiles_plan);
  line << "  (model, cycles per SM: 15 " << thousands(estimate.cooperative_cycles);
  if (estimate.split_last_round) line << ", by its split schedule " << thousands(estimate.few_tiles_plan.schedule_cycles);
  line << ", 14 " << thousands(estimate.rule_cycles);
  if (estimate.pingpong_transposed)  // kernel 14 computes Cᵀ; the rule weighs its C as given too
    line << " (" << thousands(estimate.pingpong_cycles) << " with C transposed at 128x" << estimate.pingpong_width
         << ")";
  else if (estimate.pingpong_width != estimate.rule_width)  // the rule weighs 176 or 184; it launches another width
    line << " (" << thousands(estimate.pingpong_cycles) << " at 128x" << estimate.pingpong_width << ")";
  line << "; ";
  const std::string rounds_rule =
      "14 if " + std::to_string(kPingPongMinRounds) + "+ rounds and " + percent(kPingPongRoundsMargin - 1) + " ahead";
  // The width the split and idle clauses weigh kernel 14 at, where it is not the rule's.
  const std::string clause_width =
      estimate.weighs_launched ? " at 128x" + std::to_string(estimate.pingpong_width) : std::string();
  if (!estimate.k_aligned)  // rows off the sectors: the transposed clause alone
    line << "K not a multiple of " << kSectorAlignedK << ": 14 only with C transposed, if "
         << percent(transposed_clause_margin(estimate.pingpong_width, shape.m) - 1)
         << " ahead and 15 not in 2x2 clusters";
  else if (estimate.few_tiles)
    line << "few tiles: 14 if " << percent(kPingPongMargin - 1) << " ahead";
  else if (estimate.split_last_round)
    line << rounds_rule << ", or " << percent(kPingPongSplitMargin - 1) << " ahead of the split schedule"
         << clause_width;
  else if (estimate.idle_clause) {  // the clause counts the compared plan's clusters, not the launched plan's
    const FewTilesPlan compared =
        plan_few_tiles_compared(shape.m, shape.n, shape.k, clusters, quad_clusters, memory);
    line << rounds_rule << ", or " << percent(kPingPongMargin - 1) << " ahead with 15's rounds on "
         << compared.schedule.workers << " of " << compared.resident_clusters << " clusters" << clause_width;
  }
  else
    line << rounds_rule;
  if (estimate.k_aligned && estimate.pingpong_transposed)
    line << "; 14 with C transposed if " << percent(transposed_clause_margin(estimate.pingpong_width, shape.m) - 1)
         << " ahead";
  line << ")";
  return line.str();
}

std::string explain_few_tiles_plan(const Shape& shape, int clusters, int quad_clusters, const FewTilesMemory& memory) {
  if (auto refusal = refusal_line(shape, find_kernel(15)->shape_rule)) return *refusal;
  // As kernel 15's launcher asks it (prepare_few_tiles): clusters of four only where the rows are off the lines.
  const FewTilesPlan plan = plan_few_tiles_or_transposed(shape.m, shape.n, shape.k, clusters,
                                                         rows_off_lines(shape.k) ? quad_clusters : 0, memory);
  return to_string(shape) + "  " + few_tiles_plan_text(shape, plan) +
         "  (its model: " + thousands(plan.schedule_cycles) + " cycles per SM by its schedule)";
}

std::string explain_pingpong_plan(const Shape& shape, int clusters) {
  if (auto refusal = refusal_line(shape, find_kernel(14)->shape_rule)) return *refusal;
  const PingPongPlan plan = plan_pingpong(shape.m, shape.n, shape.k, clusters);  // as prepare_pingpong asks it
  std::string line = to_string(shape) + "  " +
                     pingpong_plan_text(shape, plan.widths.width, plan.widths.cluster_tiles, plan.widths.rounds,
                                        plan.transposed) +
                     "  (its model: " + thousands(plan.widths.cycles) + " cycles per SM";
  if (plan.transposed)  // what it would take for C as given, which the plan weighed
    line += "; C as given " + thousands(plan.as_given.cycles) + " at 128x" + std::to_string(plan.as_given.width);
  return line + ")";
}

int command_explain(const ExplainCommand& command) {
  int clusters = command.clusters, quad_clusters = command.quad_clusters;
  FewTilesMemory memory;  // as given, or as the GPU reports it, or none
  if (clusters == 0) {
    const GpuInfo gpu = [] {
      try {
        return query_gpu();
      } catch (const NoGpuError& error) {  // still exit 77, with the way to go on without a GPU
        throw NoGpuError(std::string(error.what()) + "; without a GPU give its figures, an H200's: --clusters 66 "
                         "--quad-clusters 30 --dram-bytes-per-cycle 2310 --l2-mib 60");
      }
    }();
    if (!build_has_code_for(gpu)) throw UsageError(no_code_message(gpu));
    if (!arch_runs_on(Arch::kSm90a, gpu.cc_major, gpu.cc_minor))
      throw UsageError("explain models chapters 14-16, which need sm_90a; this GPU is not one: give --clusters");
    clusters = pingpong_resident_clusters();
    if (quad_clusters < 0) quad_clusters = few_tiles_quad_clusters();
    memory = few_tiles_memory();
  }
  if (quad_clusters < 0) quad_clusters = 0;
  if (command.dram_bytes_per_cycle >= 0) memory.dram_bytes_per_cycle = command.dram_bytes_per_cycle;
  if (command.l2_mib >= 0) memory.l2_bytes = command.l2_mib * 1024 * 1024;
  const std::vector<Shape> shapes = command.shapes.empty() ? results_run_shapes() : command.shapes;
  const KernelInfo& kernel = *find_kernel(command.kernel);
  std::cout << "kernel " << kernel.id << " (" << kernel.name << (kernel.id == 16 ? "" : ", its own plan") << ") on "
            << clusters << " resident clusters of two CTAs and "
            << (quad_clusters > 0 ? std::to_string(quad_clusters) : "no") << " 2x2 clusters of four"
            << (quad_clusters > 0 ? "" : " (kernel 15 takes them where K % 64 != 0: give --quad-clusters)");
  if (memory.dram_bytes_per_cycle > 0)
    std::cout << ", DRAM at " << std::lround(memory.dram_bytes_per_cycle) << " bytes an SM cycle, "
              << std::lround(memory.l2_bytes / (1024 * 1024)) << " MiB of L2";
  else
    std::cout << ", DRAM not weighed (give --dram-bytes-per-cycle)";
  std::cout << ":\n";
  for (const Shape& shape : shapes)
    std::cout << (command.kernel == 15   ? explain_few_tiles_plan(shape, clusters, quad_clusters, memory)
                  : command.kernel == 14 ? explain_pingpong_plan(shape, clusters)
                                         : explain_shape(shape, clusters, quad_clusters, memory))
              << "\n";
  return kExitOk;
}

}  // namespace gemm
