// Which of kernels 15 and 14 a problem gets (host side): the cost model by which kernel 16 dispatches
// (kernels/16_dispatch.cu and its notes; `gemm explain` prints it). Introduced by kernel 14, which takes its tile
// width from it (pingpong_widths, plan_pingpong); kernel 16 adds the choice (estimate_pingpong).
//
// Kernel 15 (kernel 13's cooperative kernel; with fewer tiles than clusters, narrower tiles or the whole problem
// split along K: common/few_tiles.h) computes 128 × 256 tiles with both consumer warpgroups on one tile, and the
// tensor pipe idles at every tile boundary while they store C and wait for the next tile's first stage: its SMs are
// active about 3.3 k cycles per tile beyond the multiplies (H100, LLM shape, measured on the old kernel 09's
// cooperative kernel; docs/log/09-15_against_cublas.md, "What would still close the gap"), which costs most where
// tiles are short (small K). Kernel 14, the ping-pong kernel, computes 128 × w tiles (w 144-184), each consumer
// warpgroup a whole tile in turn, so that one's epilogue runs under the other's main loop; its tiles read more
// operand bytes per output, it pads N to a multiple of its width, and it has no split of the last round, so it pays
// only where its rounds of cluster tiles come out nearly whole.
//
// The rule compares cycles per SM from a model of each (k blocks of 64; the dense bf16 rate of an SM is 4096
// flops a cycle, so a 128 × 256 × 64 block is 1024 cycles and a 128 × w × 64 block 4w: 704 for 176, 736 for 184):
//   cooperative  all 128 × 256 tiles spread evenly over the SMs (the stream-K tail evens out the last round),
//                plus kCooperativeBoundaryCycles per round of tiles; with fewer cluster tiles than clusters, or
//                where kernel 15 takes narrower tiles, its own model of its plan (plan_few_tiles_compared:
//                tile width, split or whole tiles, and where M is ragged the problem transposed; kernel 15 then
//                launches that plan, or what launched_few_tiles_plan puts in its place where it is measured
//                faster: 128-row wide fitted widths, 128 × 320 tiles in whole rounds);
//   ping-pong    whole rounds of cluster tiles (clusters of 2 along M) of 4w-cycle k blocks, kPingPongOverhead
//                above that (what it measured on the LLM shape: 1 % over this on H100s, less on an H200), for the
//                width of the rule's two that needs fewer (176, cuBLAS's tile, on a tie): on the LLM shape 184
//                fills 19 rounds where 176 needs 20 (14336 = 77.9 × 184 = 81.5 × 176), 0.7 % fewer cycles; where
//                it takes kernel 14, that kernel launches the best of its four widths (below);
// and takes the ping-pong only where it has at least kPingPongMinRounds rounds (with fewer its second warpgroup's late
// start and its lone last tile weigh: on 2048 × 14336 × 4096, 10 rounds, the model puts it 2.8 % ahead and it measured
// level, and on 4096 × 8192 × 4096, 11 rounds, 2.2 % ahead and it measured 4 % behind) and the model puts it
// kPingPongRoundsMargin ahead (first 2 %; lowered where the presets' 57344 × 8192 layers, 19 to 152 rounds with the
// model 0.9-1 % ahead, measured kernel 14 faster by 0.7-2 % on an H200: kernel 16's notes); with fewer cluster tiles
// than clusters, or narrower tiles in kernel 15's plan (PingPongEstimate::few_tiles), where each model adds what a
// short launch costs beyond it (kFewTilesWholeCycles, kPingPongFewTilesCycles), wherever the model puts it
// kPingPongMargin ahead. And where the tiles are many and kernel
// 15 splits its last round, at any number of rounds, wherever kernel 15's own schedule (its whole rounds, its share of
// the split tiles and the split's fixed cost: FewTilesPlan::schedule_cycles) puts the ping-pong kPingPongSplitMargin
// ahead (weighed at the width it launches where M % 128 == 0 and K % 64 == 0: weighs_launched_width, below):
// the evenly spread model leaves the split's cost out, and that cost is largest where a few tiles are split over
// many clusters (1024 × 4608 × 3584: 6 tiles over 66 clusters; kernel 15 measured 0.67 of cuBLAS there, kernel 14
// 0.83). The wider margin because both models are a few per cent off either way. And where the tiles are many and
// kernel 15's whole rounds leave 5 % of the clusters idle or more (kernel 13's policy where a split of the last round
// does not pay: 2048 × 4800 × 1600 is 152 cluster tiles in 3 rounds on 51 of 66 clusters), at any number of rounds,
// wherever the model puts the ping-pong kPingPongMargin ahead, weighed as the split clause weighs it (the idle clause,
// PingPongEstimate::idle_clause): kernel 15 leaves part of the GPU idle in every round there, as with few tiles, and
// the 16-round guard kept kernel 14 out. Only on whole tile rows on the lines (weighs_launched_width, below), where
// kernel 14 launches 160 columns or more (kIdleClauseMinWidth) and kernel 15's rounds run on at most
// kIdleClauseBusyShare of the clusters: on fresh shapes where the clause moved the launch, each of its forms without
// one of those conditions had shapes 5-21 % slower (rows off the lines, 128 × 144 tiles, a ragged last tile row; and at
// 64 of 66 clusters kernel 14 took 1.01 of kernel 15's time). With all of them, on 24 fresh shapes where it moves the
// launch, kernel 14 took 0.962 of kernel 15's time in each of two runs on an H100, none 3 % slower
// (docs/log/15_few_tiles.md, section 52). And where the token count is ragged and kernel 14's own plan computes Cᵀ
// (plan_pingpong), wherever that is kPingPongTransposedMargin ahead of kernel 15's plan (kPingPongTransposedWideMargin
// where it launches 160 columns or more for 192 tokens or more). And all of it only where K is a multiple of 16: else
// every other row of A and B starts 16 bytes into a 32-byte sector, and kernel 14, which brings more operand bytes per
// output than kernel 15, measured 2-15 % slower than 15 on 16 of 19 such shapes where the clauses took it
// (docs/log/16_dispatch.md; the exceptions: two of few tiles, 0.4-1.5 % faster, and one of K = 1976, where 15 is slow
// for its short tiles). The constants come from profiles and measurements of a few shapes; the shapes the rule was
// checked on after it was written down are in docs/log/16_dispatch.md and docs/log/15_few_tiles.md.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include "common/few_tiles.h"

namespace gemm {

// kCooperativeBoundaryCycles (13's cycles per tile beyond its multiplies, H100): common/few_tiles.h.
constexpr double kPingPongOverhead = 1.01;           // the ping-pong's cycles over its whole rounds (H100)
constexpr double kPingPongMargin = 1.02;             // with few tiles, how far ahead the model must put it
constexpr double kPingPongRoundsMargin = 1.005;      // with many, in kPingPongMinRounds rounds or more
constexpr int kPingPongMinRounds = 16;
constexpr double kPingPongSplitMargin = 1.05;       // how far ahead of kernel 15's split schedule
constexpr int kIdleClauseMinWidth = 160;             // the idle clause: kernel 14 at 128 × 160 or wider
constexpr double kIdleClauseBusyShare = 0.95;        // and kernel 15's rounds on at most this share of the clusters
// Few tiles (fewer cluster tiles than clusters, or narrower tiles): short launches, where what a launch costs beyond
// its k blocks weighs. Fitted on an H200 to kernels 13, 14 and 15 at 1024³, 2048³, 128 × 4096 × 4096 and
// 512 × 4096 × 4096 (kernel 16's notes): kernel 15's whole tiles cost about kFewTilesWholeCycles beyond the model above
// (a split's fixed cost is in StreamKSchedule::split_blocks already), kernel 14 about kPingPongFewTilesCycles (with one
// tile a CTA, nothing hides its epilogue). Kernel 15's narrow tiles in two to four whole rounds get the same
// allowances; on the 24 shapes of their check kernel 16 took kernel 14 on 6, each faster there
// (docs/log/15_few_tiles.md, section 13).
constexpr double kFewTilesWholeCycles = 14 * 1024;
constexpr double kPingPongFewTilesCycles = 20 * 1024;

// The ping-pong kernel's tile widths (kernels/14_pingpong.cu instantiates it for each). A consumer thread holds w
// accumulators; with addressing and C's packing all fit in its 232 registers without spilling (the SASS test). 176 and
// 184 are the rule's widths: the choice between kernels 14 and 15 weighs kernel 14 at the better of those two, as it
// was fitted and checked. 144 and 160, the widths cuBLAS takes where 176 and 184 make rounds of part-empty tiles (4672
// = 32.4 × 144), may then be what kernel 14 launches, but do not decide for it: with them the few-tile clause moved
// shapes of few rows and long K to kernel 14, which was 1.1-1.2 times as slow there (docs/log/15_few_tiles.md, section
// 20; chosen among the four only where the rule with two takes kernel 14, 0.95 of the time on 16 fresh shapes).
constexpr int kPingPongWidthCount = 4;
__host__ __device__ constexpr int pingpong_width(int index) {
  constexpr int kWidths[kPingPongWidthCount] = {144, 160, 176, 184};
  return kWidths[index];
}
__host__ __device__ constexpr bool pingpong_rule_width(int index) { return pingpong_width(index) >= 176; }
// Each width's k block in cycles over its multiply-adds (4w), relative to 176's, fitted on an H200 to 17 shapes
// (section 20): a narrower tile brings more operand bytes per output (9 % more at 144 than at 176: 34 KB a k block
// for 144 columns, 38 KB for 176), and its k block measured 4 % (144) and 2 % (160) longer per multiply-add; 184's
// measured 0.6 % shorter, left at 1.
__host__ __device__ constexpr double pingpong_width_factor(int index) {
  constexpr double kFactors[kPingPongWidthCount] = {1.04, 1.02, 1.0, 1.0};
  return kFactors[index];
}

// Kernel 14's tile width on an m × n problem: of the four, the one whose whole rounds of cluster tiles (two CTAs along
// M) need the fewest cycles, each width's k block weighed by its factor (the narrower on a tie); and of the rule's two
// (176, 184) the better (176 on a tie). Cycles here are the rounds' alone: rounds × k blocks × 4w × the width's
// factor × kPingPongOverhead.
struct PingPongWidths {
  int width = 0;           // the width it launches
  int cluster_tiles = 0;   // its cluster tiles with that width
  int rounds = 0;          // rounds of them on the clusters
  double cycles = 0;       // per SM
  int rule_width = 0;      // the better of 176 and 184
  int rule_rounds = 0;
  double rule_cycles = 0;
};

__host__ __device__ constexpr PingPongWidths pingpong_widths(int m, int n, int k, int clusters) {
  const auto div_up = [](long long a, long long b) { return (a + b - 1) / b; };
  const long long k_blocks = div_up(k, 64);
  PingPongWidths widths;
  for (int index = 0; index < kPingPongWidthCount; ++index) {
    const int width = pingpong_width(index);
    const long long cluster_tiles = div_up(div_up(m, 128), 2) * div_up(n, width);
    const long long rounds = div_up(cluster_tiles, clusters);
    const double cycles =
        static_cast<double>(rounds * k_blocks * 4 * width) * pingpong_width_factor(index) * kPingPongOverhead;
    if (widths.width == 0 || cycles < widths.cycles) {  // the narrower on a tie
      widths.width = width;
      widths.cluster_tiles = static_cast<int>(cluster_tiles);
      widths.rounds = static_cast<int>(rounds);
      widths.cycles = cycles;
    }
    if (pingpong_rule_width(index) && (widths.rule_width == 0 || cycles < widths.rule_cycles)) {  // 176 on a tie
      widths.rule_width = width;
      widths.rule_rounds = static_cast<int>(rounds);
      widths.rule_cycles = cycles;
    }
  }
  return widths;
}

// Kernel 14's own plan: its width, and C or Cᵀ. Where the token count M is ragged (transposed_candidate, as in kernel
// 15's plan: common/few_tiles.h), the N × M × K problem (Cᵀ = B·Aᵀ) puts M across the tiles' width, where the four
// widths cover it with less waste than 128-row tiles do (700 tokens in four tiles of 176, where 128-row tiles compute
// 768 rows in clusters of two). Taken where its rounds need kTransposedMargin fewer cycles, the margin of kernel 15's
// plan: on 42 layer shapes at ragged token counts (docs/log/15_few_tiles.md, section 28), run as problems of their own,
// the 11 that the model put that far ahead measured 0.56-0.92 of their time as given; built, kernel 14 took 0.72-0.73
// of its time over 32 fresh shapes where the plan changed, none 3 % slower. The rounds' cycles alone decide, so that
// the plan is the kernel's own whatever kernel 15's plan and the GPU's memory are: kernel 16 weighs what kernel 14
// will launch.
struct PingPongPlan {
  PingPongWidths widths;    // of the problem it computes: m × n, or n × m where transposed
  PingPongWidths as_given;  // of m × n whichever it computes: kernel 16's other clauses weigh kernel 14 on C
  bool transposed = false;
};

__host__ __device__ constexpr PingPongPlan plan_pingpong(int m, int n, int k, int clusters) {
  const PingPongWidths given = pingpong_widths(m, n, k, clusters);
  if (transposed_candidate(m)) {
    const PingPongWidths swapped = pingpong_widths(n, m, k, clusters);
    if (kTransposedMargin * swapped.cycles <= given.cycles) return {swapped, given, true};
  }
  return {given, given, false};
}

// Kernel 16 launches kernel 14's Cᵀ (where kernel 14's own plan is transposed) wherever the model puts it
// kPingPongTransposedMargin ahead of what its other clauses pick. The margin was read off the 42 shapes of section 28
// (the five it launches there measured 0.78-0.92 of kernel 16's time), then checked on 16 fresh shapes where it changes
// kernel 16's launch: 0.85-0.86 of the time in the geometric mean, none 3 % slower in both runs.
// This clause alone also holds where K % 16 = 8, there with 128-byte L2 fills (kernel 16's launcher), but not where
// kernel 15 plans clusters of four. On an H100 (section 49, call C), so launched, kernel 16 took 0.77 of its time on
// the 8 shapes of call A that the clause moves (M 265-920; kernel 15 0.48-0.91 × cuBLAS there, 128-row tiles in pairs)
// and 0.83 on 16 fresh ones; the 4 of those where kernel 15 ran 2 × 2 clusters (M 138-174) gained nothing
// (0.97-1.09), whence the guard. With the guard, on 16 fresh shapes where it moves the launch (M 138-1051), an H200:
// 0.75 of the time in the geometric mean in each of two runs, 0.62-0.84 a shape (section 50, call D).
// Where kernel 14 launches 160 columns or more for 192 tokens or more, kPingPongTransposedWideMargin instead. On an
// H100, on 24 shapes drawn where a margin of 1.04 would take kernel 14 and 1.075 did not (M 129-1151, K % 64 = 0), it
// took 0.874 and 0.879 of kernel 15's time, but three of the four shapes where it launches 144 columns were 3-7 %
// slower in both runs (the fourth 0.79); on 24 fresh shapes of 160 columns or more, 0.872 and 0.870, but 166 × 13472 ×
// 5056 3 % slower in both (the 21 of 192 tokens or more: none slower than 0.996); on 24 fresh shapes of 160 columns or
// more and 192 tokens or more, 0.898 and 0.894 on an H200, none 3 % slower (kernel 16 so: 0.90 of its time
// without) (docs/log/15_few_tiles.md, sections 57 and 58).
constexpr double kPingPongTransposedMargin = 1.075;
constexpr double kPingPongTransposedWideMargin = 1.04;
constexpr int kTransposedWideMinWidth = 160;
constexpr int kTransposedWideMinTokens = 192;
// The margin of the clause for Cᵀ at the width kernel 14 launches and the token count (M).
__host__ __device__ constexpr double transposed_clause_margin(int width, int tokens) {
  return width >= kTransposedWideMinWidth && tokens >= kTransposedWideMinTokens ? kPingPongTransposedWideMargin
                                                                                 : kPingPongTransposedMargin;
}

// Where kernel 15 splits its last round among many tiles, the split clause weighs kernel 14 at the width it would
// launch (of its four, the one its plan puts first: pingpong_cycles) instead of the rule's two, wherever that needs
// fewer cycles, but only where M is a multiple of 128 (every 128-row tile row of kernel 14's whole) and K of 64 (the
// rows of A and B on the L2's lines): every loss of the launched width in this clause's earlier checks had a ragged
// last tile row or rows off the lines (docs/log/15_few_tiles.md, section 22). So weighed, on 24 fresh shapes where it
// changes kernel 16's launch it took 0.89 of the time in each of two runs (one shape 2 % and 10 % slower), and 0.94 on
// the eight layers it changes among the thirteen models' that chapter 16's notes measure (section 36). The idle clause
// weighs it so too, and holds only here.
__host__ __device__ constexpr bool weighs_launched_width(int m, int k) {
  return m % 128 == 0 && !rows_off_lines(k);
}

struct PingPongEstimate {
  double cooperative_cycles = 0;  // per SM: kernel 15's, by its plan (kernel 13's where the tiles are many)
  bool few_tiles = false;         // kernel 15 takes narrow tiles, or has fewer 128 × 256 cluster tiles than clusters
  bool split_last_round = false;  // many tiles, and kernel 15 splits its last round along K
  bool idle_clusters = false;     // many tiles, and kernel 15's whole rounds leave 5 % of the clusters idle or more
  bool idle_clause = false;       // that, on whole tile rows on the lines, kernel 14 at 160 columns or more: the clause
  FewTilesPlan few_tiles_plan;    // kernel 15's plan: tile size, clusters, schedule
  double pingpong_cycles = 0;     // per SM, as kernel 14 launches: its plan's width and orientation
  int pingpong_cluster_tiles = 0; // its cluster tiles (two CTAs along M of the problem it computes) with that width
  int pingpong_rounds = 0;        // rounds of cluster tiles the ping-pong kernel needs with it
  int pingpong_width = 0;         // the width it launches: of the four the one with the fewest cycles
  bool pingpong_transposed = false;  // kernel 14's plan computes Cᵀ (N × M × K)
  int rule_width = 0;             // the better of the rule's widths (176, 184) on C: what the rule weighs kernel 14 at
  double rule_cycles = 0;         // per SM, with that width
  int rule_rounds = 0;            // its rounds with that width
  bool weighs_launched = false;   // the split and idle clauses weigh kernel 14 at the width it launches (below)
  bool k_aligned = false;         // rows_on_sectors(k): elsewhere the rule takes kernel 14's Cᵀ alone
  bool pingpong = false;          // the rule's choice
  // Per SM, what the split and idle clauses weigh kernel 14 at.
  __host__ __device__ constexpr double clause_cycles() const { return weighs_launched ? pingpong_cycles : rule_cycles; }
};

// m × n × k on `clusters` clusters of two CTAs (the same count for both kernels: they have the same launch shape), and
// `quad_clusters` of four, which kernel 15's plan may take where the rows are off the lines (0: it may not), with the
// DRAM rate and L2 size its plan weighs a split over every cluster by (common/few_tiles.h; none: not weighed). Where it
// costs them, the ping-pong's k blocks are charged what the plan charged its own in clusters of two (FewTilesPlan::
// pair_slowdown): the ping-pong runs in pairs too.
__host__ __device__ constexpr PingPongEstimate estimate_pingpong(int m, int n, int k, int clusters,
                                                                 int quad_clusters = 0,
                                                                 FewTilesMemory memory = {}) {
  PingPongEstimate estimate;
  // Weighed by the plan kernel 15's model compares; launched as the plan kernel 15 launches (common/few_tiles.h).
  const FewTilesPlan plan = plan_few_tiles_compared(m, n, k, clusters, quad_clusters, memory);
  estimate.few_tiles_plan = launched_few_tiles_plan(plan, m, n, k, memory);
  estimate.few_tiles = plan.narrow() || plan.cluster_tiles < plan.resident_clusters;
  estimate.cooperative_cycles =
      plan.cycles + (estimate.few_tiles && !plan.schedule.splits() ? kFewTilesWholeCycles : 0);
  // Kernel 14's cycles as this model weighs them: its rounds in pairs, and with few tiles what a short launch costs.
  const auto weighed = [&](double rounds_cycles) {
    return rounds_cycles * plan.pair_slowdown + (estimate.few_tiles ? kPingPongFewTilesCycles : 0);
  };
  const PingPongPlan pingpong_plan = plan_pingpong(m, n, k, clusters);
  estimate.pingpong_width = pingpong_plan.widths.width;
  estimate.pingpong_cluster_tiles = pingpong_plan.widths.cluster_tiles;
  estimate.pingpong_rounds = pingpong_plan.widths.rounds;
  estimate.pingpong_cycles = weighed(pingpong_plan.widths.cycles);
  estimate.pingpong_transposed = pingpong_plan.transposed;
  estimate.rule_width = pingpong_plan.as_given.rule_width;
  estimate.rule_rounds = pingpong_plan.as_given.rule_rounds;
  estimate.rule_cycles = weighed(pingpong_plan.as_given.rule_cycles);
  estimate.split_last_round = !estimate.few_tiles && plan.schedule.splits();
  estimate.idle_clusters = !estimate.few_tiles && !plan.schedule.splits() &&
                           plan.schedule.workers <= kIdleClauseBusyShare * plan.resident_clusters;
  const bool whole_rows_on_lines = weighs_launched_width(m, k);
  estimate.idle_clause =
      estimate.idle_clusters && whole_rows_on_lines && estimate.pingpong_width >= kIdleClauseMinWidth;
  estimate.weighs_launched = whole_rows_on_lines && estimate.pingpong_cycles < estimate.rule_cycles;
  estimate.k_aligned = rows_on_sectors(k);
  estimate.pingpong =
      (estimate.k_aligned &&
       ((estimate.few_tiles && estimate.cooperative_cycles >= kPingPongMargin * estimate.rule_cycles) ||
        (!estimate.few_tiles && estimate.rule_rounds >= kPingPongMinRounds &&
         estimate.cooperative_cycles >= kPingPongRoundsMargin * estimate.rule_cycles) ||
        (estimate.split_last_round && plan.schedule_cycles >= kPingPongSplitMargin * estimate.clause_cycles()) ||
        (estimate.idle_clause && estimate.cooperative_cycles >= kPingPongMargin * estimate.clause_cycles()))) ||
      (estimate.pingpong_transposed && (estimate.k_aligned || !plan.quad_clusters()) &&
       estimate.cooperative_cycles >= transposed_clause_margin(estimate.pingpong_width, m) * estimate.pingpong_cycles);
  return estimate;
}

}  // namespace gemm
