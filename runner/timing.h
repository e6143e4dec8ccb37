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

// Which launch runs at `position` (0 .. launches - 1) of rep `rep`: the order rotates by one every rep, so
// each launch goes first (right after the flush, on the coolest GPU) equally often.
constexpr int interleaved_launch(int rep, int position, int launches) { return (position + rep) % launches; }

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

}  // namespace gemm
