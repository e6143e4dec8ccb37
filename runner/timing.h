// Timing: each rep is [L2 flush] event kernel event; reps are enqueued behind a held stream and released
// together, so the GPU never waits for the host and launch latency stays out of the numbers.
//
// No phase enqueues more than kLaunchesPerBatch launches before it waits for them (each within its own limit, the
// watchdog's): not the timed reps, not the warm-up (up to 100000 reps of every kernel), not --blocked's warm-up. A
// driver queue that fills blocks the host inside a launch call, where no watchdog looks, so a kernel that hangs in
// the warm-up would freeze the run instead of ending it with exit 4.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/gemm_problem.h"
#include "runner/device.h"
#include "runner/stats.h"

namespace gemm {

// Launches per batch: small enough that the driver's queue never fills while a batch is enqueued (the timed reps
// behind a held stream; each launch with its L2 flush and two events).
constexpr int kLaunchesPerBatch = 96;

struct TimingSettings {
  int warmup = 10;
  int reps = 50;
  bool cold_l2 = true;
  uint64_t order_seed = 0;  // draws the order of the interleaved launches (relabelled_rep)
};

struct Timing {
  std::vector<double> samples_ms;
  Quartiles ms;
};

// Evicts the L2 by writing a buffer of twice its size.
class L2Flusher {
 public:
  explicit L2Flusher(size_t l2_bytes);
  void flush(cudaStream_t stream) const;

 private:
  DeviceBuffer<unsigned char> buffer_;
};

// The balanced Latin square's entry at `position` (0 .. launches - 1) of rep `rep`. The reps follow it
// (Williams, 1949): rep r runs the sequence 0, 1, n - 1, 2, n - 2, 3, ... shifted by r (mod n), and for an odd
// number of launches every second block of n reps runs it backwards. Each launch goes first (right after the
// flush) once in every n reps, and within a rep each launch follows each other launch equally often (every n
// reps for even n, every 2n for odd n). A plain rotation (0 1 2, 1 2 0, 2 0 1) gives each launch the same
// predecessor in every rep, and what one kernel leaves behind (a GPU heated or cooled, a clock the governor set
// for it) biases the next one's time: on an H100, a kernel timed after the CUDA-core kernel 01 measured 1 %
// slower at 4096³ than the same kernel timed after another tensor-core kernel.
constexpr int interleaved_launch(int rep, int position, int launches) {
  const bool backwards = launches % 2 == 1 && (rep / launches) % 2 == 1;
  const int step = backwards ? launches - 1 - position : position;  // the step of the base sequence
  const int base = step % 2 == 1 ? (step + 1) / 2 : (launches - step / 2) % launches;
  return (base + rep) % launches;
}

// How many reps the square above takes to balance who follows whom: n for an even number of launches, 2n for an
// odd one.
constexpr int interleaved_cycle(int launches) { return launches % 2 == 0 ? launches : 2 * launches; }

// The launches of rep `rep` in the order they run: the square above, its launches relabelled by a fresh permutation
// drawn from `seed` for every cycle of it. The square balances only who runs right after whom; how far apart two
// launches run otherwise follows from their places in the list. With ten launches, launch 0 runs two launches after
// launch 1 or two before it in eight reps of ten, and launch 9 four or six launches after it in six. Under the power
// limit a kernel's speed depends on more than its predecessor: on an H200 at 16384³, kernels 00-09 in list order
// (the ladder then ended at 09, the combined kernel since split into chapters 09-14 and 16) put cuBLAS (place 0) close
// behind the CUDA-core kernel 01 (place 1), at the clock its 215 ms had left, and 09 (place 9) behind four or more
// tensor-core kernels at the power limit: 09 measured 0.91-0.96 × cuBLAS, and 1.00 with 09 moved to place 2, where
// its distances from 01 are cuBLAS's. Relabelled every cycle, the distances between launches
// are drawn afresh and are the same for every launch on average, while each cycle keeps the square's balance of
// predecessors. The same seed gives the same order.
inline std::vector<int> relabelled_rep(int rep, int launches, uint64_t seed) {
  const int cycle = interleaved_cycle(launches);
  // splitmix64 (Steele, Lea, Flood, 2014) of the seed and the cycle's number: a portable stream of 64-bit draws,
  // where std::shuffle's algorithm is left to the library.
  uint64_t state = seed ^ (0x9e3779b97f4a7c15ull * static_cast<uint64_t>(rep / cycle + 1));
  const auto next = [&state] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::vector<int> label(static_cast<size_t>(launches));  // Fisher-Yates: a uniform permutation of the launches
  for (int i = 0; i < launches; ++i) label[i] = i;
  for (int i = launches - 1; i > 0; --i) std::swap(label[i], label[next() % static_cast<uint64_t>(i + 1)]);
  std::vector<int> order(static_cast<size_t>(launches));
  for (int position = 0; position < launches; ++position)
    order[position] = label[interleaved_launch(rep, position, launches)];
  return order;
}

// One timed launch: what to enqueue, its time limit per run (the watchdog's), what to enqueue before its last
// timed rep, outside the timed interval (the runner poisons its C there, to validate that rep's result), and
// what the watchdog and CUDA errors name while it runs ("kernel 9 (hilbert) at 8192x8192x8192, seed 7").
struct TimedLaunch {
  const GemmLaunch* launch = nullptr;
  double time_limit_seconds = 0;
  std::function<void(cudaStream_t)> before_last_rep;
  std::string activity;
};

// Times the launches interleaved rep by rep (rep r of every launch before rep r + 1 of any), so clock or
// thermal drift hits all of them alike. Returns one Timing per launch, in order; none for no launches. The warm-up
// reps run the launches in list order, in batches of reps as the timed ones; the watchdog and CUDA errors name a
// warm-up launch by its activity followed by " (warm-up)".
// `after_warmup`, if given, runs once the warm-up reps have finished and before the first timed one (the
// runner starts its NVML sampler there, so the samples cover the timed reps only).
std::vector<Timing> time_interleaved(std::span<const TimedLaunch> launches, const TimingSettings& settings,
                                     const L2Flusher& flusher, cudaStream_t stream,
                                     const std::function<void()>& after_warmup = {});

// `gemm compare --blocked` times each kernel alone: kBlockedWarmupSeconds of it back to back, then its warm-up
// and at least kBlockedTimedSeconds of timed reps (more than --reps where they take less). NVML's power reading
// on an H100 averages about the last second, and the power limit acts on it: run back to back, a kernel's clock
// falls from 1980 MHz within 0.2 s, dips below its steady value when the average reaches the limit after about
// 1 s, and settles by 1.5 s (measured with `gemm run`). At the limit it keeps moving by ±5 % over tenths of a
// second, so fifty reps of a 2.5 ms kernel would catch one phase of that.
constexpr double kBlockedWarmupSeconds = 2.0;
constexpr double kBlockedTimedSeconds = 2.0;

// Runs one launch over and over (each run after an L2 flush when cold) until `seconds` of wall time have
// passed, and returns how many runs that took: `gemm compare --blocked`'s warm-up (above).
int warm_up_for(const TimedLaunch& timed, double seconds, bool cold_l2, const L2Flusher& flusher,
                cudaStream_t stream);

}  // namespace gemm
