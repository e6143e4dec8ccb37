// Few tiles (host and device): how kernel 15 covers a shape whose 128 × 256 tiles make fewer than two rounds of the
// GPU's clusters (or up to four, with a split last round), and what its model says that costs. Introduced by kernel
// 15; kernel 16's cost model and `gemm explain` ask it too.
//
// Four choices, each host-tested:
// - Tiling. Kernel 13's 128 × 256 tiles, or 128 × 192, 128 × 128, 64 × 192, 64 × 128 ones (few_tiles_tiling): more
//   tiles, each shorter. Each tiling's k block costs its multiply-adds at the tensor rate times a factor measured on an
//   H200, more for narrow tiles and most for 64-row ones (one consumer warpgroup). And, as one round of whole tiles
//   only, the fitted widths 128 × 176, 160, 144 and 96, which make about as many tiles as clusters where the others
//   leave many idle.
// - Cluster orientation. A 2 × 1 cluster (two CTAs along M, sharing B) covers two tile heights of C, a 1 × 2 cluster
//   (along N, sharing A) two tile widths; where M or N is not a multiple of that, the last cluster row or column has a
//   CTA tile wholly outside C, which multiplies the zeros TMA fills in and stores nothing. With 128 tokens (M = 128)
//   and 128-row tiles a 2 × 1 cluster wastes half of every cluster. 1 × 2 clusters are costed where they compute
//   strictly fewer CTA tiles, and taken where their schedule is no slower (by its rounds: fewer tiles to compute need
//   not mean fewer rounds). Where K is not a multiple of 64, 2 × 2 clusters too (both operands multicast): below.
// - Schedule: StreamKSchedule::make_few_tiles (common/stream_k.h) over every resident cluster: with fewer tiles than
//   clusters whole tiles or the whole problem split along K, with more kernel 13's rounds; and, where the tiles are at
//   most half the clusters, every tile in equal shares (make_even_split). A split over every cluster reads from DRAM
//   what its clusters share, and whole tiles replace it where that makes it the slower (below).
// - C or Cᵀ. Where the token count M is ragged, the plan of the N × M × K problem (Cᵀ = B·Aᵀ) where its model puts it
//   ahead (plan_few_tiles_or_transposed, at the end).
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include "common/stream_k.h"

namespace gemm {

constexpr double kCooperativeBoundaryCycles = 3300;  // kernel 13's cycles per tile beyond its multiplies (H100)
// Each tiling's k block of 64 in the model's cycles: its multiply-adds at the tensor rate (a 128 × 256 × 64 block is
// 1024 cycles), times what kernel 15 measured over it. Fitted on an H200 to one round of whole tiles per tiling
// (24 few-tile shapes, each tiling forced; docs/log/15_few_tiles.md, section 6): against 128 × 256 tiles, 128 × 192
// ones took 1.04 times the rate's cycles, 128 × 128 ones 1.19, and the one-consumer tiles 1.56 (64 × 192) and 1.87
// (64 × 128). Narrower tiles bring more operand bytes a multiply-add, and with most SMs loading what the L2 delivers
// paces their k blocks (about 5.2 KB a cycle to all SMs, 51-62 bytes a cycle into each: microbenchmarks, section 33,
// an inference for the kernel). Whole tiles on most clusters take more than these factors say, the narrow ones most;
// the factors are kept as a set: 1.87 lowered alone, to 1.70, made kernel 16 1.14 times as slow where its plan moved
// (section 33).
constexpr double kNarrowBlockCycles = 512 * 1.19;
constexpr double kBlock192Cycles = 768 * 1.04;
constexpr double kOneConsumer192Cycles = 384 * 1.56;
constexpr double kOneConsumer128Cycles = 256 * 1.87;
// Fitted widths: 128-row tiles of 176, 160 or 144 columns, between 128 and 192 in steps of 16 as cuBLAS's widths go
// (it ran 144 at 640 × 3584 × 18944), so that the tiles make about one round of the clusters where 128, 192 and 256
// leave many idle. Each factor is the line through 128 × 192's and 128 × 128's by the operand bytes a multiply-add,
// (128 + N) / N (1.07, 1.10, 1.14), raised 5 %: on 30 shapes the fitted widths took 1.00-1.33 times the model's
// cycles, kernel 15's other tilings 1.04-1.15 (docs/log/15_few_tiles.md, section 35).
constexpr double kFitted176Factor = 1.125;
constexpr double kFitted160Factor = 1.155;
constexpr double kFitted144Factor = 1.20;
// 128 × 96 (cuBLAS's tile at 256 × 6144 × 4096), by the same line at (128 + 96) / 96 = 2.33: 1.34, raised 5 %; not
// fitted. It makes as many tiles as 64 × 192 with two consumer warpgroups of 64 × 96 instead of one of 64 × 192, and
// its k block measured faster: 0.87-0.96 of 64 × 192's time at 256 × 6144 × K, K = 2048-16384 (an H100, tilings
// forced; docs/log/15_few_tiles.md, section 47).
constexpr double kFitted96Factor = 1.41;
// In 1 × 2 clusters (each CTA loading its whole B) they measured 1.09-1.33 times the model's cycles against 1.00-1.17
// in 2 × 1 (section 35), so a fitted width's k block there is charged this much more.
constexpr double kFittedAlongNSlowdown = 1.10;
// An even split (StreamKSchedule::make_even_split) in S shares: a share's k blocks take kEvenSplitSlowdown times a whole
// tile's, and the fix-up kEvenSplitCycles for each of the S - 1 partials an owner adds, per 64 × 128 partial of a
// consumer warpgroup (the consumers add theirs side by side; a 64 × 256 one costs twice as much). Fitted on an H200 to
// seven shapes of 64 × 128 tiles split in two or three (docs/log/15_few_tiles.md, section 9: 5-28 % faster than whole
// tiles, and on six more 5-13 % faster than make_few_tiles's split over every cluster); the scaling by size and count
// from per-CTA timelines of wider tiles split (section 10: 3-5 µs from the last k block to the last store for 128 × 128
// in two shares, 11 µs for 128 × 256 in four).
constexpr double kEvenSplitSlowdown = 1.25;
constexpr double kEvenSplitCycles = 4800;

// Rows off the L2's lines. A row of A or B is K × 2 bytes, so where K is not a multiple of kLineAlignedK the rows start
// at every offset into a 128-byte line, and the 128-byte row of a k block spans two lines (with K % 16 = 8, three or
// more sectors partly). The TMA then requests about twice as often: kernel 15's L2 read requests at 512 × 3840 × 4088
// were 2.4 times those at K = 4096, its L2's request coalescer served few of them, and a k block took 1.19-1.34 times
// as long in 2 × 1 clusters, by tiling (an H100; docs/log/15_few_tiles.md, section 17). In 2 × 2 clusters each CTA
// requests half of its A and half of its B, multicast to its cluster row and column, a third fewer rows than in 2 × 1:
// there a k block off the lines took 1.03-1.06 times an aligned one in 2 × 1. So where the rows are off the lines every
// tiling is also costed in 2 × 2 clusters, over the GPU's resident clusters of four (fewer SMs than in pairs: 120 of
// 132 on that H100), and each k block is charged kOffLinePairSlowdown in clusters of two and kOffLineQuadSlowdown in
// 2 × 2.
// Only where the tiles are few: with two rounds of 128 × 256 tiles or more, 2 × 2 clusters in place of pairs measured
// 0.97 of the time in the geometric mean but four of 18 shapes 3-11 % slower (docs/log/15_few_tiles.md, section 25).
constexpr int kLineAlignedK = 64;
constexpr double kOffLinePairSlowdown = 1.25;
constexpr double kOffLineQuadSlowdown = 1.06;
__host__ __device__ constexpr bool rows_off_lines(int k) { return k % kLineAlignedK != 0; }
// What the L2 fetches when a load of A or B misses (the tensor maps' L2 promotion), in bytes. Off the lines each
// k block's row comes in two pieces, and a 256-byte fill for each brings in bytes that row does not use: kernel 15 in
// pairs read a tenth more DRAM bytes with 256 than with 128 at 568 × 5760 × 14200 (an H100; docs/log/15_few_tiles.md,
// section 17). With 128-byte fills there, kernels 15 and 16 took 0.96 of their time in the geometric mean over 24
// shapes drawn at random off the lines, none 3 % slower in both runs (an H200; section 25, run J of the notes); at
// 16-128 tokens they were level in the geometric mean and 3-5 % slower at short K and wide N (section 25, call 11),
// but 256-byte fills were no faster on 16 fresh shapes there (section 26). On the lines 256: 128 was 1-3 % slower
// there (section 17).
constexpr int kOnLinesFillBytes = 256;
constexpr int kOffLinesFillBytes = 128;
__host__ __device__ constexpr int operand_fill_bytes(int k) {
  return rows_off_lines(k) ? kOffLinesFillBytes : kOnLinesFillBytes;
}

// The CTA tiles kernel 15 launches, widest first, then the fitted widths: block_m rows (two consumer warpgroups of 64
// rows, or one) by block_n columns, and the cycles a k block of 64 takes (the model's unit).
struct FewTilesTiling {
  int block_m = 128;
  int block_n = 256;
  double block_cycles = 1024;
};
constexpr int kFewTilesTilings = 9;
__host__ __device__ constexpr FewTilesTiling few_tiles_tiling(int index) {
  switch (index) {
    case 0: return {128, 256, 1024};
    case 1: return {128, 192, kBlock192Cycles};
    case 2: return {128, 128, kNarrowBlockCycles};
    case 3: return {64, 192, kOneConsumer192Cycles};
    case 4: return {64, 128, kOneConsumer128Cycles};
    case 5: return {128, 176, 704 * kFitted176Factor};
    case 6: return {128, 160, 640 * kFitted160Factor};
    case 7: return {128, 144, 576 * kFitted144Factor};
    default: return {128, 96, 384 * kFitted96Factor};
  }
}
// Whether a tiling is a fitted width: a width that is no multiple of the 64-column store box (128 rows here, 64 rows in
// with_fitted_rows64_width below).
__host__ __device__ constexpr bool fitted_width(int block_m, int block_n) {
  return (block_m == 128 || block_m == 64) && block_n % 64 != 0;
}

// CTA tiles (block_m × block_n) an m × n problem computes in clusters of cluster_m × cluster_n CTAs, those outside C
// included.
__host__ __device__ constexpr long long cluster_cta_tiles(int m, int n, int cluster_m, int cluster_n,
                                                          int block_n = 256, int block_m = 128) {
  const long long tiles_m = (m + block_m - 1) / block_m, tiles_n = (n + block_n - 1) / block_n;
  return (tiles_m + cluster_m - 1) / cluster_m * cluster_m * ((tiles_n + cluster_n - 1) / cluster_n * cluster_n);
}

// Whether 1 × 2 clusters (along N, sharing A) are a candidate on m × n: only where they compute fewer CTA tiles, and
// M's tile rows fit in the 16 bits a tile table entry gives a coordinate (as a 2 × 1 cluster's always do).
__host__ __device__ constexpr bool few_tiles_cluster_along_n(int m, int n, int block_n = 256, int block_m = 128) {
  return (m + block_m - 1) / block_m <= 0xffff &&
         cluster_cta_tiles(m, n, 1, 2, block_n, block_m) < cluster_cta_tiles(m, n, 2, 1, block_n, block_m);
}

// A worker's k blocks under a schedule of at least as many tiles as workers (make()'s): its whole rounds, and of the
// last round either a whole tile or its share of the split tiles plus a split's fixed cost (in k blocks of
// block_cycles). What the cluster orientations are compared by where the tiles are many. With `partials`, also what an
// owner's partials cost (StreamKSchedule::partial_cost_blocks, as split_blocks charges them): where 2 × 2 clusters are
// costed, which split a last round of a few tiles over many clusters (2 tiles over 30 measured 16 % slower than one
// whole round in pairs; docs/log/15_few_tiles.md, section 17).
__host__ __device__ inline double round_schedule_blocks(const StreamKSchedule& schedule, double block_cycles,
                                                        bool partials = false) {
  if (schedule.splits())
    return static_cast<double>(schedule.full_rounds()) * schedule.k_blocks +
           static_cast<double>(schedule.split_iterations()) / schedule.workers +
           StreamKSchedule::split_cost_blocks(block_cycles) +
           (partials ? StreamKSchedule::partial_cost_blocks(schedule.split_tiles(), schedule.workers) : 0.0);
  return static_cast<double>(schedule.rounds()) * schedule.k_blocks;  // a partial last round costs a whole tile too
}

struct FewTilesPlan {
  int block_m = 128;              // tile rows: 128 (two consumer warpgroups) or 64 (one)
  int block_n = 256;              // tile width: 256 (kernel 13's), 192 or 128, or a fitted 176, 160, 144 or 96
  int cluster_m = 2;              // the cluster's CTAs along M (sharing B) ...
  int cluster_n = 1;              // ... and along N (sharing A): 2 × 1, 1 × 2 or 2 × 2
  int resident_clusters = 0;      // the GPU's resident clusters of that shape
  double pair_slowdown = 1;       // what a k block in clusters of two was charged: kOffLinePairSlowdown or 1
  int cluster_tiles = 0;
  int k_blocks = 0;
  StreamKSchedule schedule;       // over the clusters; the launch keeps schedule.workers of them
  double cycles = 0;              // per SM, the model's: k blocks at the tensor rate, tile boundaries, a split's cost
  // Per SM by the schedule itself, as the candidates are compared: where the tiles are many, its rounds and a split
  // last round's fixed cost (round_schedule_blocks). For 128 × 256 tiles `cycles` is then kernel 13's evenly spread
  // model instead, which leaves a split's cost out.
  double schedule_cycles = 0;
  bool whole_over_dram = false;   // whole tiles because a split over every cluster would wait on the DRAM
  bool transposed = false;        // planned for Cᵀ = B·Aᵀ, N × M × K (plan_few_tiles_or_transposed): M across the tiles
  // Anything but kernel 13's 128 × 256 tiles.
  __host__ __device__ constexpr bool narrow() const { return block_m != 128 || block_n != 256; }
  // Fewer tiles than clusters, all split along K by make_few_tiles (each cluster at its own place along K), not in
  // equal shares: the split that waits on the DRAM (below).
  __host__ __device__ constexpr bool splits_over_every_cluster() const {
    return cluster_tiles < resident_clusters && schedule.splits() && schedule.even_shares() == 0;
  }
  __host__ __device__ constexpr bool cluster_along_n() const { return cluster_m == 1 && cluster_n == 2; }
  __host__ __device__ constexpr bool quad_clusters() const { return cluster_m == 2 && cluster_n == 2; }
};

// The tilings whose two shares a pass may charge less than kEvenSplitSlowdown (plan_few_tiles, below): 128-row tiles
// of 192 or 256 columns.
__host__ __device__ constexpr bool two_shares_charged_less(int block_m, int block_n) {
  return block_m == 128 && block_n >= 192;
}

// The cycles of an even split of `cluster_tiles` block_m × block_n tiles of k_blocks over `clusters`
// (kEvenSplitSlowdown's model, or `two_shares_slowdown` a k block where the split has two shares of a tiling
// two_shares_charged_less names), or 0 where kernel 15 takes none: more tiles than half the clusters, or shares
// shorter than `min_share_blocks`.
__host__ __device__ constexpr double even_split_cycles(int cluster_tiles, int k_blocks, int clusters, int block_m,
                                                       int block_n, double block_cycles,
                                                       int min_share_blocks = StreamKSchedule::kMinEvenShareBlocks,
                                                       double two_shares_slowdown = kEvenSplitSlowdown) {
  if (cluster_tiles <= 0 || 2 * cluster_tiles > clusters) return 0;
  const int shares = StreamKSchedule::make_even_split(cluster_tiles, k_blocks, clusters).even_shares();
  if (k_blocks / shares < min_share_blocks) return 0;
  const double slowdown =
      shares == 2 && two_shares_charged_less(block_m, block_n) ? two_shares_slowdown : kEvenSplitSlowdown;
  return slowdown * k_blocks / shares * block_cycles + kEvenSplitCycles * (block_n / 128.0) * (shares - 1) +
         kCooperativeBoundaryCycles;
}

// The DRAM. A split over every cluster (make_few_tiles's, with fewer tiles than clusters) puts each worker at its own
// place along K, so the clusters whose tiles share rows of A or columns of B do not read them at the same time: none
// finds the others' loads in the L2, and what they share comes from DRAM once for each of them (split_dram_bytes).
// Measured on an H200 (docs/log/15_few_tiles.md, sections 22 and 23), such splits took about as long as their loads at
// 3.8-5.0 TB/s whatever their compute, while whole tiles, which start together, mostly share their loads in the L2. So
// where the plan's pick is such a split, it is weighed at the larger of its compute and its DRAM bytes' time at
// `memory.dram_bytes_per_cycle` (kDramEfficiency of the peak the GPU reports, in SM cycles), and whole tiles replace it
// where the model puts them at kWholeOverDramSplit of that or less: on the twelve shapes of section 22 whole tiles
// measured 1.08-1.24 times (1.14 in the geometric mean) the share of the split's time the model gives them (it leaves
// out what a short launch of whole tiles costs beyond its k blocks). Checked twice on 24 shapes drawn at random where
// it changes the plan: 0.77 of kernel 15's time in the geometric mean each time, one shape 20 % slower the first time
// (904 × 2088 × 23360, below), none the second (section 23, calls 4 and 5). Its limits, each from a check that failed
// before those (section 23):
// - Only where the rows of A and B start on 32-byte sectors (K % kSectorAlignedK == 0). Where K % 16 == 8, whole
//   tiles in clusters of two ran at their loads' DRAM rate as the split did (3.7-4.9 TB/s on nine shapes: they did not
//   share in the L2 either, an inference), and were up to 6 % slower than the split.
// - The tilings are still compared by their compute alone: with the DRAM in the comparison, the plan moved to narrower
//   tiles in rounds with a split last round (which the DRAM term does not cost) and ran up to 32 % slower.
// - A split that stays keeps its compute cycles, which kernel 16 weighs against kernel 14's model (which has no DRAM
//   term either): weighed at its DRAM time, the pick moved to kernel 14 where that was 4-5 % slower.
// - An operand that fits in half the L2 is counted once: where B had one cluster row and A fitted (208 × 8608 ×
//   12160), whole tiles saved no DRAM bytes, ran on fewer clusters, and were 12 % slower. Where between half and the
//   whole L2 an operand stops fitting is not known: A of 41 MB was read again at 1176 × 1800 × 17344 (an inference from
//   whole tiles' 14 % gain there), one of 42 MB was not at 904 × 2088 × 23360, which the plan still gives whole tiles,
//   20 % slower there than the split (kernel 16: 8 %).
// - Not weighed: an even split (its shares of every tile run the same k blocks at the same time, as whole tiles do: an
//   inference), so not a split the plan's pick would become (below), nor a split last round among many tiles.
constexpr double kDramEfficiency = 0.95;  // 4.57 TB/s of the 4.82 the H200 reports (section 22's twelve: 4.3-5.0)
constexpr double kWholeOverDramSplit = 0.88;
constexpr int kSectorAlignedK = 16;  // bf16 rows of K · 2 bytes start on 32-byte sectors
__host__ __device__ constexpr bool rows_on_sectors(int k) { return k % kSectorAlignedK == 0; }

__host__ __device__ constexpr double dram_cycles(double bytes, double dram_bytes_per_cycle) {
  return dram_bytes_per_cycle > 0 ? bytes / dram_bytes_per_cycle : 0;
}

// What the plan's DRAM term needs to know of the GPU (a rate of 0: the DRAM is not weighed).
struct FewTilesMemory {
  double dram_bytes_per_cycle = 0;  // what the DRAM moves in an SM cycle
  double l2_bytes = 0;              // the L2's size
};

// What a split over every cluster reads from DRAM. Its clusters sit at different places along K, so an operand larger
// than half the L2 is read once by every cluster that needs it (B by each cluster row, A by each cluster column); one
// that fits is read once, as whole tiles read both.
__host__ __device__ constexpr double split_dram_bytes(const FewTilesPlan& plan, int m, int n, int k, double l2_bytes) {
  const long long tiles_m = (m + plan.block_m - 1) / plan.block_m, tiles_n = (n + plan.block_n - 1) / plan.block_n;
  const double cluster_rows = static_cast<double>((tiles_m + plan.cluster_m - 1) / plan.cluster_m);
  const double cluster_columns = static_cast<double>((tiles_n + plan.cluster_n - 1) / plan.cluster_n);
  const double a = 2.0 * m * k, b = 2.0 * n * k;
  return (2 * a > l2_bytes ? a * cluster_columns : a) + (2 * b > l2_bytes ? b * cluster_rows : b);
}

// Where 128 × 256 cluster tiles make two to four rounds, a narrower 128-row tiling (128 × 192, 128 × 128) in whole
// rounds can beat them with a split last round, whose fixed cost weighs most where K is short: 0.86-0.90 of the time at
// 1024 × 9216 × 3072, 2048 × 4608 × 3584 and 256 × 37888 × 3584 (three rounds of 128 × 192 tiles against two and a
// split). So such a tiling is a candidate there too, in 2 × 1 clusters and whole rounds only (with a split or in 1 × 2
// clusters they measured up to 22 % slower), and taken only where the model puts it kNarrowRoundsMargin ahead (without
// it, whole rounds the model put 1-4 % ahead measured up to 9 % slower). Checked on 24 shapes drawn at random where it
// changes the plan: 0.95 of the time in the geometric mean (0.82-1.05), but 3 of them 5 % slower, which the model does
// not tell apart from those 10-18 % faster (docs/log/15_few_tiles.md, section 13).
constexpr int kNarrowMaxWideRounds = 4;
// A fitted width (few_tiles_tiling) is a candidate only as one round of whole tiles on more than half the clusters, in
// 2 × 1 or 1 × 2 clusters (128 × 96: 2 × 1 only, cluster_rows_filled below); only where M's last 128-row tile is more
// than half full (fitted_rows_fill: 181 × 9496 × 15808, 183 × 8560 × 4544 and 388 × 4864 × 7488, with 53, 55 and 4 rows
// there, took 1.03-1.14 times the time of the 64-row tiles or Cᵀ the plan had before); and taken only where the model
// puts it kFittedWidthMargin ahead, its factors being interpolated. It is compared with a split over every cluster at
// the split's time on the DRAM where that is longer than its compute (split_dram_bytes): such splits measured up to
// 1.95 times the model's compute cycles (640 × 3584 × 18944: 752 MB read in 203 µs), which whole tiles of another
// tiling do not beat by kWholeOverDramSplit, but whole tiles of a fitted width can (section 35).
constexpr double kFittedWidthMargin = 1.05;
__host__ __device__ constexpr bool fitted_rows_fill(int m) { return m % 128 == 0 || m % 128 > 64; }
// 128 × 96 tiles only in 2 × 1 clusters, and only where those leave no CTA whose rows all lie below M (an even count of
// 128-row tile rows): with three tile rows, forced 128 × 96 tiles took 1.18-1.25 times 64 × 192's time at 352 and 384 ×
// 3072 × 8000 and 0.92-0.94 at 256, 480 and 512, in the build measured (in a build with other producer code, level at
// 352-384: not understood; section 47). Checked on 15 shapes drawn at random where it changes the plan: 0.88 of kernel
// 15's time in the geometric mean, none 3 % slower in both runs (section 47, call 10).
__host__ __device__ constexpr bool cluster_rows_filled(int m, int block_m) {
  return (m + block_m - 1) / block_m % 2 == 0;
}
// The tiling that rule holds for: the plan skips it elsewhere (kernel 15's launcher has no 1 × 2 instance of it).
__host__ __device__ constexpr bool needs_filled_cluster_rows(int block_m, int block_n) {
  return block_m == 128 && block_n == 96;
}
constexpr double kNarrowRoundsMargin = 1.06;

// One pass of kernel 15's plan for m × n × k on `clusters` resident clusters of two CTAs (and, where the rows are off
// the lines, `quad_clusters` resident clusters of four; 0 leaves 2 × 2 clusters out). Where kernel 13's 128 × 256 tiles
// make two rounds or more, those tiles on kernel 13's schedule, or below kNarrowMaxWideRounds rounds a 128-row narrow
// tiling in whole rounds of 2 × 1 clusters (above). Else every tiling in 2 × 1 clusters, in 1 × 2 ones where those
// compute fewer CTA tiles and in 2 × 2 ones where the rows are off the lines, on make_few_tiles's schedule over the
// resident clusters of that shape and, with two CTAs along M where it applies, on an even split, and the one the model
// puts ahead: the earlier tiling on a tie, and 1 × 2 clusters where level with the same tiling's 2 × 1; an even split
// only where strictly ahead of its tiling's other schedule. Candidates are compared by their schedule: with fewer tiles
// than clusters, a worker's share (split or whole tiles) and one tile boundary, or even_split_cycles; with more, a
// worker's rounds (round_schedule_blocks) and a boundary each. Then the pick, if its tiles are at most half the
// clusters, is split evenly whatever its orientation. Measured against splitting the pick only
// (docs/log/15_few_tiles.md, section 10), even-split candidates lost where the model misses a cost: in 1 × 2 clusters
// at 128 tokens (128-row tiles, 2-11 % slower on 5 of 8 shapes), with a CTA row wholly below M (its SMs multiply only
// zeros) and with shares of 16 k blocks (the fix-up outweighs them), so those are no candidates; nor are shares below
// `min_candidate_share_blocks`. A pass charges the k blocks of 128-row tiles of 192 or 256 columns in two shares
// `two_shares_slowdown` (plan_few_tiles, below, runs three passes). `only_tiling` (an index of few_tiles_tiling)
// restricts the plan to that tiling wherever it fits, for measuring one against the others. Given the GPU's `memory`,
// where the pick is a split over every cluster and the rows are on the sectors, whole tiles replace it where they come
// out kWholeOverDramSplit of its DRAM time or less (above); a split that stays keeps its compute's cycles.
__host__ __device__ constexpr FewTilesPlan plan_few_tiles_weighing(int m, int n, int k, int clusters, int only_tiling,
                                                                   int quad_clusters, FewTilesMemory memory,
                                                                   int min_candidate_share_blocks,
                                                                   double two_shares_slowdown = kEvenSplitSlowdown) {
  const int k_blocks = (k + 63) / 64;
  const long long wide_cluster_tiles = cluster_cta_tiles(m, n, 2, 1) / 2;
  const bool few_wide_tiles = wide_cluster_tiles < 2LL * clusters;
  const bool some_wide_rounds = wide_cluster_tiles < static_cast<long long>(kNarrowMaxWideRounds) * clusters;
  // 2 × 2 clusters are costed where the rows are off the lines and the tiles few; only then are k blocks charged what
  // the rows' offsets cost (so that, elsewhere, the plan is what it was before they were).
  const bool quad_candidates = rows_off_lines(k) && quad_clusters > 0 && few_wide_tiles;
  const double pair_slowdown = quad_candidates ? kOffLinePairSlowdown : 1.0;
  FewTilesPlan best;
  double best_choice = 0;  // what the candidates are compared by
  double best_block_cycles = 1024;
  double best_against_fitted = 0;  // best_choice, or a split over every cluster that stays at its DRAM time if longer
  for (int index = 0; index < kFewTilesTilings; ++index) {
    if (only_tiling >= 0 && index != only_tiling) continue;
    const FewTilesTiling tiling = few_tiles_tiling(index);
    for (int shape = 0; shape < 3; ++shape) {  // 2 × 1, 1 × 2, 2 × 2
      const bool along_n = shape == 1, quad = shape == 2;
      if (along_n && !few_tiles_cluster_along_n(m, n, tiling.block_n, tiling.block_m)) continue;
      if (quad && !quad_candidates) continue;
      const int workers = quad ? quad_clusters : clusters;
      const bool fitted = fitted_width(tiling.block_m, tiling.block_n);
      const double block_cycles = tiling.block_cycles * (quad ? kOffLineQuadSlowdown : pair_slowdown) *
                                  (fitted && along_n ? kFittedAlongNSlowdown : 1.0);
      double dram_choice = 0;  // a split over every cluster that stays: the larger of its compute and its DRAM time
      FewTilesPlan plan;
      plan.block_m = tiling.block_m;
      plan.block_n = tiling.block_n;
      plan.k_blocks = k_blocks;
      plan.cluster_m = along_n ? 1 : 2;
      plan.cluster_n = along_n || quad ? 2 : 1;
      plan.resident_clusters = workers;
      plan.pair_slowdown = pair_slowdown;
      const long long tiles_m = (m + tiling.block_m - 1) / tiling.block_m;
      const long long tiles_n = (n + tiling.block_n - 1) / tiling.block_n;
      const long long rows = (tiles_m + plan.cluster_m - 1) / plan.cluster_m;
      const long long columns = (tiles_n + plan.cluster_n - 1) / plan.cluster_n;
      if (rows > 0xffff || columns > 0xffff) continue;  // the tile table's 16-bit coordinates (128 × 256: the rule's)
      // A narrow tiling where the wide tiles make rounds: 128 rows, 2 × 1 clusters, a few rounds (and whole, below).
      const bool narrow_in_rounds = plan.narrow() && !few_wide_tiles && only_tiling < 0;
      // Fitted widths: in clusters of two, where the tiles are few, and M's last tile more than half full.
      if (fitted && (quad || narrow_in_rounds || !fitted_rows_fill(m))) continue;
      if (needs_filled_cluster_rows(tiling.block_m, tiling.block_n) &&
          (along_n || !cluster_rows_filled(m, tiling.block_m)))
        continue;
      if (narrow_in_rounds && (tiling.block_m != 128 || along_n || !some_wide_rounds)) continue;
      plan.cluster_tiles = static_cast<int>(rows * columns);
      plan.schedule = StreamKSchedule::make_few_tiles(plan.cluster_tiles, k_blocks, workers, block_cycles);
      if (fitted && only_tiling < 0) {  // one round of whole tiles on more than half the clusters, or no candidate
        if (plan.cluster_tiles > workers || 2 * plan.cluster_tiles <= workers) continue;
        plan.schedule = {plan.cluster_tiles, k_blocks, plan.cluster_tiles, plan.cluster_tiles};
      }
      if (narrow_in_rounds && plan.schedule.splits()) continue;  // whole rounds only (no even split in rounds either)
      double choice = 0;
      if (plan.cluster_tiles >= workers) {
        const StreamKSchedule& schedule = plan.schedule;
        choice = round_schedule_blocks(schedule, block_cycles, quad_candidates) * block_cycles +
                 schedule.rounds() * kCooperativeBoundaryCycles;
        // Kernel 13's 128 × 256 tiles keep kernel 13's model, the tiles spread evenly and a boundary per round (what
        // kernel 16's choice against kernel 14 was measured with); the narrow ones, and 2 × 2 clusters, their rounds.
        const long long cta_tiles = tiles_m * tiles_n, sms = 2LL * clusters;
        const double spread = static_cast<double>(cta_tiles) * k_blocks * block_cycles / static_cast<double>(sms) +
                              static_cast<double>((cta_tiles + sms - 1) / sms) * kCooperativeBoundaryCycles;
        plan.cycles = plan.narrow() || quad ? choice : spread;
      } else {
        plan.cycles = plan.schedule.few_tiles_blocks(block_cycles) * block_cycles + kCooperativeBoundaryCycles;
        choice = plan.cycles;  // by compute, whatever the DRAM below makes of the schedule
        // On the sectors, whole tiles instead of a split over every cluster where they are kWholeOverDramSplit ahead
        // of its loads' time at the DRAM's rate; not where the tiling has an even-split candidate (even_split_cycles'
        // defaults), whether or not the even split below is then taken (only in 2 × 1 clusters with whole cluster
        // rows, and where it is ahead): elsewhere the split stays, its DRAM not weighed. So it was in the build that
        // section 23 of docs/log/15_few_tiles.md checked; a guard only where the even split below is taken took 1.16
        // of the time on 24 shapes where it changes the plan (whole tiles for splits in 1 × 2; section 45).
        const bool evenly_later =
            even_split_cycles(plan.cluster_tiles, k_blocks, workers, plan.block_m, plan.block_n, block_cycles) > 0;
        if (memory.dram_bytes_per_cycle > 0 && rows_on_sectors(k) && plan.schedule.splits() && !evenly_later) {
          const double loads =
              dram_cycles(split_dram_bytes(plan, m, n, k, memory.l2_bytes), memory.dram_bytes_per_cycle);
          const double split = plan.cycles > loads ? plan.cycles : loads;
          const double whole = k_blocks * block_cycles + kCooperativeBoundaryCycles;
          if (whole <= kWholeOverDramSplit * split) {
            plan.schedule = {plan.cluster_tiles, k_blocks, plan.cluster_tiles, plan.cluster_tiles};  // one each
            plan.cycles = whole;
            plan.whole_over_dram = true;
          } else {
            dram_choice = split;
          }
        }
      }
      // With two CTAs along M and none wholly below M, at most half as many tiles as clusters, shares of at least
      // twice the shortest the plan's pick may take: every tile in equal shares, where that is ahead.
      const double even = !along_n && tiles_m % 2 == 0 && !fitted
                              ? even_split_cycles(plan.cluster_tiles, k_blocks, workers, plan.block_m, plan.block_n,
                                                  block_cycles, min_candidate_share_blocks, two_shares_slowdown)
                              : 0;
      if (even > 0 && even < choice) {
        plan.schedule = StreamKSchedule::make_even_split(plan.cluster_tiles, k_blocks, workers);
        plan.cycles = choice = even;
        dram_choice = 0;
      }
      plan.schedule_cycles = choice;
      if (narrow_in_rounds) choice *= kNarrowRoundsMargin;  // compared with this margin
      if (fitted) choice *= kFittedWidthMargin;             // and this one
      const bool same_tiling = best.block_m == plan.block_m && best.block_n == plan.block_n;
      const double rival = fitted ? best_against_fitted : best_choice;
      if (best.cluster_tiles == 0 || choice < rival || (along_n && same_tiling && choice <= rival)) {
        best = plan;
        best_choice = choice;
        best_block_cycles = block_cycles;
        best_against_fitted = dram_choice > choice ? dram_choice : choice;
      }
    }
  }
  // The pick itself, where its tiles are at most half the clusters: in equal shares, whatever its other schedule
  // (measured ahead of whole tiles and of a split over every cluster wherever it applies).
  const double even =
      even_split_cycles(best.cluster_tiles, k_blocks, best.resident_clusters, best.block_m, best.block_n,
                        best_block_cycles, StreamKSchedule::kMinEvenShareBlocks, two_shares_slowdown);
  if (even > 0) {
    best.schedule = StreamKSchedule::make_even_split(best.cluster_tiles, k_blocks, best.resident_clusters);
    best.cycles = best.schedule_cycles = even;
  }
  return best;
}

// The even-split candidates' shortest share. Section 10's candidates kept 32 k blocks a share (twice the 16 that lost
// there), which leaves out splits such as 21 tiles of 76 k blocks in three shares of 25, where the plan then took whole
// 64-row tiles on 42 of the 66 clusters. A second pass admits shares of kShortCandidateShareBlocks or more, and its
// pick replaces the first's only where the model puts it kShortSharesMargin of the first's cycles or less: on 24 shapes
// drawn where that changed the plan, the measured ratio was 0.90-1.19 times the model's, and the 5 % (set before the
// run, not fitted) keeps out the picks it puts only a little ahead, which such misses would turn into losses. Measured
// on an H200 against the first pass alone (docs/log/15_few_tiles.md, section 30): 0.89 of kernel 15's time in the
// geometric mean over those 24 in each of two runs (predicted 0.88-0.95), 0.77-1.03 by shape, none 3 % slower in both;
// 0.78-0.84 of the time on three other models' layers at 200-700 tokens.
constexpr int kLongCandidateShareBlocks = 2 * StreamKSchedule::kMinEvenShareBlocks;
constexpr int kShortCandidateShareBlocks = 20;
constexpr double kShortSharesMargin = 0.95;

// Two long shares of wide tiles. Taken apart along K, section 10's 128 × 256 tiles in two shares took about 1.1 times a
// whole tile's time a k block, not kEvenSplitSlowdown's 1.25 (fitted on 64-row tiles), but charged so wherever the plan
// could take them, such splits lost 3-28 % on one to five of 20-24 fresh shapes in each of six checks, where they
// replaced another even split (section 26) or a split over every cluster, and were level where shares were 32-36 k
// blocks (section 30, call 4). So a third pass charges kTwoSharesSlowdown, and its pick is taken only where it is
// 128-row tiles of 192 or 256 columns in two shares of kLongTwoSharesBlocks or more, the pick before it runs whole
// tiles, and the model puts it kShortSharesMargin ahead. Shaped on call 4's 24 shapes and checked on 24 fresh ones
// (section 30, calls 5 and 5b: off the lines, whole 128 × 128 tiles in 2 × 2 clusters replaced): 0.90 of kernel 15's
// time in the geometric mean in each of two runs (predicted 0.88-0.96), none 3 % slower in both.
constexpr double kTwoSharesSlowdown = 1.1;
constexpr int kLongTwoSharesBlocks = 64;

// Kernel 15's plan: the first pass's pick (plan_few_tiles_weighing, above), the second's where it is
// kShortSharesMargin ahead, and then the third's where the rule above admits it.
__host__ __device__ constexpr FewTilesPlan plan_few_tiles(int m, int n, int k, int clusters, int only_tiling = -1,
                                                          int quad_clusters = 0, FewTilesMemory memory = {}) {
  const FewTilesPlan plan =
      plan_few_tiles_weighing(m, n, k, clusters, only_tiling, quad_clusters, memory, kLongCandidateShareBlocks);
  const FewTilesPlan shorter =
      plan_few_tiles_weighing(m, n, k, clusters, only_tiling, quad_clusters, memory, kShortCandidateShareBlocks);
  const FewTilesPlan chosen = shorter.cycles <= kShortSharesMargin * plan.cycles ? shorter : plan;
  if (chosen.schedule.whole_tiles != chosen.schedule.tiles) return chosen;  // the third pass replaces whole tiles only
  const FewTilesPlan pairs = plan_few_tiles_weighing(m, n, k, clusters, only_tiling, quad_clusters, memory,
                                                     kLongCandidateShareBlocks, kTwoSharesSlowdown);
  const bool long_wide_pair = two_shares_charged_less(pairs.block_m, pairs.block_n) &&
                              pairs.schedule.even_shares() == 2 && pairs.k_blocks / 2 >= kLongTwoSharesBlocks;
  return long_wide_pair && pairs.cycles <= kShortSharesMargin * chosen.cycles ? pairs : chosen;
}

// C transposed. C = A·Bᵀ is also Cᵀ = B·Aᵀ: the N × M × K problem with the operands swapped, its C stored transposed.
// A token count M just past a multiple of 128 leaves the last row of 128-row tiles mostly empty (523 tokens compute
// 640 rows); transposed, M lies across the tiles' width, and the plan may cover it otherwise (523 in three 192-wide
// tiles), or give the two consumer warpgroups' 128-row tiles the rows that one-consumer 64-row tiles had. Kernel 15
// stages such tiles transposed (stmatrix .trans) and stores each box at swapped coordinates. Measured on an H200 by
// running the transposed shapes as problems of their own (docs/log/15_few_tiles.md, sections 26 and 27): where the
// model put the transposed plan kTransposedMargin ahead, it took 0.79-0.89 of the time on four shapes, and 0.86-0.87 in
// the geometric mean over 14 fresh ones with M from 136 to 1080. The candidates are the ragged token counts of that
// range, 129 to kTransposedMaxM - 1: at multiples of 128 no row is wasted, and on three presets of 128 tokens that the
// model put 4-18 % ahead transposed it measured 0.96-1.02 of the time; the one shape measured below 128 tokens (48)
// took 1.08-1.11; above the range nothing was measured. Nor is a Cᵀ plan taken that splits its few tiles over every
// cluster: such splits wait on the DRAM (above), which the model weighs only on the sectors, and the one measured
// (544 × 3016 × 27448, K % 16 = 8) took 1.09-1.10 of the time of the even split it replaced (section 27).
constexpr double kTransposedMargin = 1.10;
constexpr int kTransposedMaxM = 1152;
__host__ __device__ constexpr bool transposed_candidate(int m) {
  return m > 128 && m < kTransposedMaxM && m % 128 != 0;
}

// One round of whole `block_m`-row tiles in 2 × 1 clusters, of the narrowest of `widths` widths, from `first_width` in
// steps of 16 columns, whose cluster tiles fit the plan's resident clusters, where they are more than the plan's
// cluster tiles; else the plan. The plan's cycles and margins are kept: the fitted widths below that call this are
// measured in its place, not modelled.
constexpr int kFittedWidthStep = 16;
__host__ __device__ constexpr FewTilesPlan narrowest_fitted_round(const FewTilesPlan& plan, int m, int n, int block_m,
                                                                  int first_width, int widths) {
  for (int index = 0; index < widths; ++index) {  // narrowest first
    const int width = first_width + kFittedWidthStep * index;
    const long long rows = ((m + block_m - 1) / block_m + 1) / 2, columns = (n + width - 1) / width;
    if (rows * columns > plan.resident_clusters) continue;
    if (rows * columns <= plan.cluster_tiles) return plan;
    FewTilesPlan fitted = plan;
    fitted.block_m = block_m;
    fitted.block_n = width;
    fitted.cluster_m = 2;
    fitted.cluster_n = 1;
    fitted.cluster_tiles = static_cast<int>(rows * columns);
    fitted.schedule = {fitted.cluster_tiles, plan.k_blocks, fitted.cluster_tiles, fitted.cluster_tiles};
    fitted.whole_over_dram = false;
    return fitted;
  }
  return plan;
}

// 64-row fitted widths. Where the plan runs one round of whole tiles on fewer clusters than the GPU keeps resident (a
// few hundred tokens and a narrow N: 128 × 4608 × 3584 in 64 × 128 tiles on 36 of 66 clusters), cuBLAS runs 64-row
// tiles of a width fitted to about one round of its SMs (there 64 × 80 on 120 SMs, at 256 × 3072 × 3072 64 × 112;
// Nsight Compute on an H100, docs/log/15_few_tiles.md, section 54). So the pick is replaced by one round of whole
// 64 × 80, 64 × 96 or 64 × 112 tiles (one consumer warpgroup, in 2 × 1 clusters), the narrowest whose cluster tiles
// fit the resident clusters, where they are more than the pick's. Measured on an H100 against the pick, not modelled:
// a 64 × 80 k block took about as long as a 64 × 128 one (250-330 ns: launch times less 6 µs over the k blocks, an
// inference), so the gain is the clusters it busies, and the replaced pick's cycles stand for it in kernel 16's
// comparisons. On the 14 shapes of the earlier model sets where it applies 0.91-1.00 of kernel 15's time (about
// 0.96), and on 20 shapes drawn at random 0.930 and 0.932 in two runs, none 2 % slower (0.795 to 0.854 × cuBLAS;
// section 54, calls 4 and 5). Not where the pick splits (at M ≤ 128, 20 drawn shapes whose pick split 128-row tiles
// along a long K took 1.11 times the time, up to 1.28), nor for Cᵀ, 2 × 2 clusters or 64 tokens or fewer (a 2 × 1
// cluster's second CTA would lie wholly below M).
constexpr int kFittedRows64Widths = 3;
__host__ __device__ constexpr int fitted_rows64_width(int index) {  // 80, 96, 112
  return 80 + kFittedWidthStep * index;
}
__host__ __device__ constexpr FewTilesPlan with_fitted_rows64_width(const FewTilesPlan& plan, int m, int n) {
  if (plan.transposed || plan.quad_clusters() || plan.schedule.splits() || m <= 64 ||
      plan.cluster_tiles >= plan.resident_clusters)
    return plan;
  return narrowest_fitted_round(plan, m, n, 64, fitted_rows64_width(0), kFittedRows64Widths);
}

// Wide tiles in whole rounds. Where the plan splits along K and M has 1024 tokens or more, cuBLAS runs 128-row tiles
// 320 columns wide that make whole rounds (1024 × 10240 × 8192: 128 cluster tiles of 128 × 320 in two rounds of 66
// clusters, where kernel 15 splits the last 28 of 160 cluster tiles of 128 × 256; Nsight Compute on an H100,
// docs/log/15_few_tiles.md, section 34). So such a plan is replaced by 128 × 320 tiles in 2 × 1 clusters (two m64n160
// wgmmas a k step for each consumer warpgroup, three stages) in whole rounds, at most kWideRoundsMaxRounds, where they
// take fewer rounds than the pick (its split counted as one) and busy at least kWideRoundsMinFill of the clusters in
// the last; as kernel 13's rounds, on as few clusters as make them (⌈T / r⌉ for T cluster tiles in r rounds). Forced so
// against kernel 15's pick (section 34, calls 11 and 12): 0.87-0.98 of the time on all six shapes measured at 1024
// tokens, where four 2 × 1 cluster rows read each panel of B; 1.05-1.10 on four of ten at 256-752 tokens, whence the
// floor on M (an inference from those counts, not a model). Measured, not modelled: the replaced pick stands for it in
// kernel 16's comparisons (plan_few_tiles_compared, below). Checked where kernel 16 launches them, on 24 shapes drawn
// at random (M 1024-3600, N not a multiple of 256): 0.90 of kernel 16's time in each of two runs, none 3 % slower in
// both; then on 36 more, 0.89 over 24 and 0.94 over 12 with N under 2200, two 3-4 % slower in both (an H100; section
// 62). Not for Cᵀ or 2 × 2 clusters, nor where the pick is whole.
constexpr int kWideRoundsWidth = 320;
constexpr int kWideRoundsMinTokens = 1024;
constexpr int kWideRoundsMaxRounds = 2;
constexpr double kWideRoundsMinFill = 0.85;
__host__ __device__ constexpr FewTilesPlan with_wide_rounds(const FewTilesPlan& plan, int m, int n) {
  if (plan.transposed || plan.quad_clusters() || !plan.schedule.splits() || m < kWideRoundsMinTokens) return plan;
  const long long workers = plan.resident_clusters;
  const long long rows = ((m + 127) / 128 + 1) / 2, columns = (n + kWideRoundsWidth - 1) / kWideRoundsWidth;
  const long long tiles = rows * columns, rounds = (tiles + workers - 1) / workers;
  const long long pick_rounds = (plan.cluster_tiles + workers - 1) / workers;  // a split last round counts as one
  const long long last_round = tiles - (rounds - 1) * workers;
  if (rounds > kWideRoundsMaxRounds || rounds >= pick_rounds || last_round < kWideRoundsMinFill * workers ||
      rows > 0xffff || columns > 0xffff)
    return plan;
  FewTilesPlan wide = plan;  // its cycles kept: see above
  wide.block_m = 128;
  wide.block_n = kWideRoundsWidth;
  wide.cluster_m = 2;
  wide.cluster_n = 1;
  wide.cluster_tiles = static_cast<int>(tiles);
  wide.schedule = {wide.cluster_tiles, plan.k_blocks, static_cast<int>((tiles + rounds - 1) / rounds), wide.cluster_tiles};
  wide.whole_over_dram = false;
  return wide;
}

// 128-row wide fitted widths. Where the plan runs one round of whole 128 × 256 tiles on fewer clusters than the GPU
// keeps resident (1500 × 2304 × K: 6 × 9 cluster tiles on 66 clusters), 128 × 208, 224 or 240 tiles in 2 × 1 clusters,
// the narrowest whose cluster tiles fit the resident clusters, replace it where they are more than the pick's (there
// 128 × 224, 6 × 11 = 66): one round either way, of tiles narrower by what the clusters it busies take over. Each
// consumer warpgroup issues two wgmmas a k step (112 + 96, 112 + 112, 128 + 112 columns), as 128 × 320 tiles do.
// Measured, not modelled: the replaced pick's cycles stand for them in kernel 16's comparisons. Not taken:
// - off the lines (K % 64 != 0) where the pick is in 2 × 1 clusters: a k block there waits on the L2's requests
//   (above), which a narrower tile makes no fewer a column, and eight such shapes took 1.00-1.06 of the pick's time;
//   in place of 1 × 2 clusters they gained wherever K lay (docs/log/15_few_tiles.md, section 64, call 1);
// - where the pick's operands, read once, take kWideFittedMaxDramShare of its cycles or more from DRAM: there (M ≤ 256
//   and a long B: 203 × 15832 × 16984 at 0.98 of them) the launch waits on the DRAM whatever the width, and the three
//   such shapes took 0.995-1.02 of the pick's time (section 54, call 8). From six tile rows a one-round pick's share is
//   about (M + N) / 12864 on an H100, under 0.5, so this holds only on a GPU with slower DRAM a cycle;
// - below kWideFittedMinTileRows rows of 128-row tiles (M ≤ 640): of the eight such shapes measured, 581 × 5088 × 1728
//   took 1.06-1.09 of the pick's time on two H100s and 403 × 7024 × 9792 1.06, two more 1.01-1.03, where from six
//   tile rows none of 77 took 1.03 in both runs of a check (section 65; why is not found: not the DRAM share of
//   the rule above, nor a CTA row wholly below M, which shapes of 9-15 tile rows gained with);
// - below kWideFittedMinKBlocks k blocks (K ≤ 1472), where a launch is mostly its fixed cost and these tilings' own
//   (the last 16-48 columns stored from the registers, two wgmmas a k step) outweighs the narrower k block: of 13
//   such shapes five took 1.02-1.06 of the pick's time, where at 24 k blocks or more none took 1.03 (section 64, calls
//   1 and 3; an inference from the times, not a profile);
// - for Cᵀ, 2 × 2 clusters or splits;
// - 128 × 112 in place of 128 × 128: level or slower on six of seven shapes (section 54).
constexpr int kWideFittedWidths = 3;
__host__ __device__ constexpr int wide_fitted_width(int index) {  // 208, 224, 240
  return 208 + kFittedWidthStep * index;
}
// Whether a 128-row tile of `block_n` columns has a wide fitted width: kernel 15's instances of those issue two wgmmas
// a k step and leave the partial sums' code out.
__host__ __device__ constexpr bool is_wide_fitted_width(int block_n) {
  return block_n >= wide_fitted_width(0) && block_n <= wide_fitted_width(kWideFittedWidths - 1);
}
constexpr double kWideFittedMaxDramShare = 0.75;
constexpr int kWideFittedMinKBlocks = 24;
constexpr int kWideFittedMinTileRows = 6;
__host__ __device__ constexpr FewTilesPlan with_wide_fitted_width(const FewTilesPlan& plan, int m, int n, int k,
                                                                  FewTilesMemory memory) {
  if (plan.transposed || plan.quad_clusters() || plan.schedule.splits() || plan.block_m != 128 ||
      plan.block_n != 256 || plan.cluster_tiles >= plan.resident_clusters || (m + 127) / 128 < kWideFittedMinTileRows ||
      plan.k_blocks < kWideFittedMinKBlocks || (rows_off_lines(k) && !plan.cluster_along_n()))
    return plan;
  if (dram_cycles(2.0 * (static_cast<double>(m) + n) * k, memory.dram_bytes_per_cycle) >=
      kWideFittedMaxDramShare * plan.cycles)
    return plan;
  return narrowest_fitted_round(plan, m, n, 128, wide_fitted_width(0), kWideFittedWidths);
}

// 128-row wide fitted widths in whole rounds. Where the plan runs two rounds or more of whole 128 × 256 tiles in 2 × 1
// clusters on the lines, its last round leaves clusters idle unless the cluster tiles fill it (1196 × 8296 × 3520: 165
// cluster tiles in 3 rounds on 55 of 66 clusters). There the wide fitted width whose rounds times width is least
// replaces it, where that is at most kWideFittedRoundsMargin of the pick's: 128 × 224 there, 190 cluster tiles in the
// same 3 rounds on 64 clusters, each round 0.875 as long. The margin keeps it to 208 and 224 columns in the rounds the
// pick takes (or 208 in one round more from ten): measured on an H100, 240 columns (0.94) were level, losing up to 9 %
// at short K, and a round more lost (the narrower tiles gave 3-4 % of the clock back to the power limiter: an inference
// from profiles); in one cluster row (M ≤ 256) the one shape tried was 1 % slower (docs/log/15_few_tiles.md, §68).
constexpr double kWideFittedRoundsMargin = 0.90;
__host__ __device__ constexpr FewTilesPlan with_wide_fitted_rounds(const FewTilesPlan& plan, int m, int n, int k) {
  if (plan.transposed || plan.quad_clusters() || plan.cluster_along_n() || plan.schedule.splits() ||
      plan.block_m != 128 || plan.block_n != 256 || plan.cluster_tiles <= plan.resident_clusters || rows_off_lines(k) ||
      m <= 256)
    return plan;
  const long long workers = plan.resident_clusters, rows = ((m + 127) / 128 + 1) / 2;
  const long long pick_rounds = (plan.cluster_tiles + workers - 1) / workers;
  double best = kWideFittedRoundsMargin * pick_rounds * plan.block_n;
  FewTilesPlan fitted = plan;
  for (int index = 0; index < kWideFittedWidths; ++index) {
    const int width = wide_fitted_width(index);
    const long long columns = (n + width - 1) / width, tiles = rows * columns;
    const long long rounds = (tiles + workers - 1) / workers;
    if (static_cast<double>(rounds) * width > best || columns > 0xffff || tiles > 0x7fffffff) continue;
    best = static_cast<double>(rounds) * width;
    fitted.block_n = width;
    fitted.cluster_tiles = static_cast<int>(tiles);
    fitted.schedule = {fitted.cluster_tiles, plan.k_blocks, static_cast<int>((tiles + rounds - 1) / rounds),
                       fitted.cluster_tiles};
  }
  return fitted;
}

// Kernel 15's plan for C or for Cᵀ as its model compares them (and kernel 16's with kernel 14): plan_few_tiles(m, n,
// k, ...), or, for a candidate M, plan_few_tiles(n, m, k, ...) marked transposed where its cycles times
// kTransposedMargin are at most the first's, unless it splits over every cluster; for C, with a 64-row fitted width
// where with_fitted_rows64_width takes one.
__host__ __device__ constexpr FewTilesPlan plan_few_tiles_compared(int m, int n, int k, int clusters,
                                                                   int quad_clusters = 0, FewTilesMemory memory = {}) {
  const FewTilesPlan plan = with_fitted_rows64_width(plan_few_tiles(m, n, k, clusters, -1, quad_clusters, memory), m, n);
  if (!transposed_candidate(m)) return plan;
  FewTilesPlan transposed = plan_few_tiles(n, m, k, clusters, -1, quad_clusters, memory);
  if (transposed.splits_over_every_cluster() || kTransposedMargin * transposed.cycles > plan.cycles) return plan;
  transposed.transposed = true;
  return transposed;
}

// What kernel 15 launches for a compared plan: the measured replacements above, 128-row wide fitted widths where the
// pick is one round of whole 128 × 256 tiles (with_wide_fitted_width), 128 × 320 tiles in whole rounds where it splits
// (with_wide_rounds), 128-row wide fitted widths where it is whole rounds of 128 × 256 tiles that leave clusters idle
// (with_wide_fitted_rounds); kernel 16 weighs the compared plan and launches this.
__host__ __device__ constexpr FewTilesPlan launched_few_tiles_plan(const FewTilesPlan& compared, int m, int n, int k,
                                                                   FewTilesMemory memory) {
  return with_wide_fitted_rounds(with_wide_rounds(with_wide_fitted_width(compared, m, n, k, memory), m, n), m, n, k);
}

// The plan kernel 15 launches: the compared one, with the measured replacements (launched_few_tiles_plan).
__host__ __device__ constexpr FewTilesPlan plan_few_tiles_or_transposed(int m, int n, int k, int clusters,
                                                                        int quad_clusters = 0,
                                                                        FewTilesMemory memory = {}) {
  return launched_few_tiles_plan(plan_few_tiles_compared(m, n, k, clusters, quad_clusters, memory), m, n, k, memory);
}

}  // namespace gemm
