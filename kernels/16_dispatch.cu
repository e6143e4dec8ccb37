// Kernel 16 — dispatch: per shape, the faster of the ladder's two fastest Hopper kernels, by a cost model.
//
// Kernels 15 and 14 are each fastest on some shapes and slow on others. Kernel 15 (kernel 13's 128 × 256 tiles, both
// consumer warpgroups on one tile, the last round split along K, or the whole problem where the tiles are fewer than
// the clusters) pays about 3.3 k cycles at every tile boundary but never a partial round; kernel 14 (narrower tiles in
// turn) hides the boundary but reads more operand bytes per output, pads N to a multiple of its width and pays whole
// rounds. Which wins depends on K (how long a tile is), on how full kernel 14's rounds come out and, with few tiles, on
// what a split along K costs. This chapter adds no kernel: its launcher asks a cost model of both
// (common/pingpong_choice.h, host-tested; `gemm explain` prints its figures) for the cycles per SM each needs on this
// shape and the GPU's resident clusters, and prepares the one it picks with that chapter's own launcher. Where kernel
// 15 keeps 128 × 256 tiles and has as many cluster tiles as clusters or more, the model takes kernel 14 only where it
// has at least kPingPongMinRounds rounds and comes out kPingPongRoundsMargin ahead; with fewer, or where kernel 15
// takes narrower tiles, wherever it comes out kPingPongMargin ahead; where kernel 15 splits its last round, also
// wherever kernel 14 comes out kPingPongSplitMargin ahead of kernel 15's own schedule; where kernel 15's whole rounds
// leave clusters idle, wherever it comes out kPingPongMargin ahead (on whole tile rows on the lines); where kernel 14
// computes Cᵀ (a ragged token count), wherever that is kPingPongTransposedMargin ahead, or
// kPingPongTransposedWideMargin where it launches 160 columns or more for 192 tokens or more. The other clauses hold
// only where K is a multiple of 16 (rows of A and B 32-byte aligned, which kernel 14 needs more than kernel 15); the
// last holds at K % 16 = 8 too unless kernel 15 runs clusters of four. Where K % 64 != 0 it launches kernel 14 with
// 128-byte L2 fills for A and B, as kernel 15 asks for there.
//
// Shapes: any M and N up to kTileTableMaxExtent (kernel 15's rule, the stricter of the two); N and K multiples of 8.

#include "common/gemm_problem.h"
#include "common/pingpong_choice.h"

namespace gemm {

// The launchers this chapter chooses between, each given the plan the estimate made for it: kernels/15_few_tiles.cu
// and kernels/14_pingpong.cu.
GemmLaunch prepare_few_tiles_plan(const GemmProblem& problem, const FewTilesPlan& plan);
GemmLaunch prepare_pingpong_plan(const GemmProblem& problem, int width, bool transposed, int fill_bytes);
int pingpong_resident_clusters();  // kernel 14's clusters on this GPU: the same launch shape as kernel 15's
int few_tiles_quad_clusters();     // kernel 15's clusters of four (2 × 2), which it may take where K % 64 != 0
FewTilesMemory few_tiles_memory();  // the DRAM's rate and the L2's size, by which kernel 15 weighs a split

// ---- launcher ----------------------------------------------------------------------------------------
GemmLaunch prepare_dispatch(const GemmProblem& problem) {
  const PingPongEstimate estimate =
      estimate_pingpong(problem.m, problem.n, problem.k, pingpong_resident_clusters(),
                        rows_off_lines(problem.k) ? few_tiles_quad_clusters() : 0, few_tiles_memory());
  return estimate.pingpong ? prepare_pingpong_plan(problem, estimate.pingpong_width, estimate.pingpong_transposed,
                                                   operand_fill_bytes(problem.k))
                           : prepare_few_tiles_plan(problem, estimate.few_tiles_plan);
}

}  // namespace gemm

// ---- what the SASS must show (tests/sass; each regex must match, and no local memory may be used) ----
// The kernels this chapter launches, defined in chapters 15 and 14.
// sass: sm_90a TilingILi128ELi256ELi2ELi1E HGMMA\.64x256x16\.F32\.BF16 STG\.E\.STRONG\.GPU
// sass: sm_90a pingpong_kernelILi184E HGMMA\.64x184x16\.F32\.BF16 BAR\.ARV
