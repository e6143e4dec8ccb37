// Timing: each rep is [L2 flush] event kernel event; reps are enqueued behind a held stream and released
// together, so the GPU never waits for the host and launch latency stays out of the numbers.
#pragma once

#include <cuda_runtime.h>

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

// Times the launches interleaved rep by rep (rep r of every launch before rep r + 1 of any), so clock or
// thermal drift hits all of them alike. Returns one Timing per launch, in order.
std::vector<Timing> time_interleaved(std::span<const GemmLaunch> launches, const TimingSettings& settings,
                                     const L2Flusher& flusher, cudaStream_t stream);

}  // namespace gemm
