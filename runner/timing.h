// Timing: each rep is [L2 flush] event kernel event; reps are enqueued behind a held stream and released
// together, so the GPU never waits for the host and launch latency stays out of the numbers.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <span>
#include <vector>

#include "common/gemm_problem.h"
#include "runner/device.h"
#include "runner/stats.h"

namespace gemm {

struct TimingSettings {
  int warmup = 10;
  int reps = 50;
  bool cold_l2 = true;
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

// Which launch runs at `position` (0 .. launches - 1) of rep `rep`. The reps follow a balanced Latin square
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

// One timed launch: what to enqueue, its time limit per run (the watchdog's), and what to enqueue before its
// last timed rep, outside the timed interval (the runner poisons its C there, to validate that rep's result).
struct TimedLaunch {
  const GemmLaunch* launch = nullptr;
  double time_limit_seconds = 0;
  std::function<void(cudaStream_t)> before_last_rep;
};

// Times the launches interleaved rep by rep (rep r of every launch before rep r + 1 of any), so clock or
// thermal drift hits all of them alike. Returns one Timing per launch, in order; none for no launches.
std::vector<Timing> time_interleaved(std::span<const TimedLaunch> launches, const TimingSettings& settings,
                                     const L2Flusher& flusher, cudaStream_t stream);

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
