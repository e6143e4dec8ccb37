#include "runner/timing.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "common/cuda_check.h"
#include "common/errors.h"
#include "runner/watchdog.h"

namespace gemm {
namespace {

// Spins until the host sets *release (or a second passes, so a host that blocks on a full launch queue
// cannot deadlock us). While it spins, the host enqueues a batch of reps behind it. Released by the timeout,
// it sets *timed_out: the reps behind it may then have started while the host was still enqueueing them, with
// launch latency in their times, and the host times that batch again.
__global__ void hold_stream_kernel(const volatile int* release, volatile int* timed_out, long long timeout_ns) {
  long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*release == 0) {
    long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      *timed_out = 1;
      break;
    }
    __nanosleep(1000);
  }
}

constexpr long long kHoldTimeoutNs = 1'000'000'000;
// How often one batch may be timed again after its hold kernel timed out, before the run gives up.
constexpr int kHeldBatchAttempts = 3;

class PinnedFlag {
 public:
  PinnedFlag() {
    CUDA_CHECK(cudaHostAlloc(&host_, sizeof(int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), const_cast<int*>(host_), 0));
    *host_ = 0;
  }
  PinnedFlag(const PinnedFlag&) = delete;
  PinnedFlag& operator=(const PinnedFlag&) = delete;
  ~PinnedFlag() { cudaFreeHost(const_cast<int*>(host_)); }
  void set(int value) { *host_ = value; }
  int get() const { return *host_; }
  int* device() const { return device_; }

 private:
  volatile int* host_ = nullptr;
  int* device_ = nullptr;
};

// What the watchdog and CUDA errors name while `timed` runs: its own activity, else the caller's.
std::string activity_of(const TimedLaunch& timed) {
  return timed.activity.empty() ? ErrorContext::current() : timed.activity;
}

// What the watchdog and CUDA errors name while a warm-up run of a launch is waited for.
constexpr const char* kWarmUpPhase = " (warm-up)";

// Launches enqueued one after another, each as [L2 flush] start-event kernel stop-event, and then waited for in
// turn. Every phase that runs launches back to back (the warm-up, the timed reps, --blocked's warm_up_for) enqueues
// at most kLaunchesPerBatch of them through one of these before it waits: a driver queue that fills blocks the host
// inside a launch call, where no watchdog looks, and a hung launch is then found by a bounded wait instead.
class LaunchBatch {
 public:
  explicit LaunchBatch(size_t capacity) : starts_(capacity), stops_(capacity), launch_of_(capacity) {}

  size_t size() const { return size_; }
  // Empties the batch for the next one; `phase` is appended to each launch's activity while it is enqueued and
  // waited for (" (warm-up)").
  void restart(const char* phase = "") {
    size_ = 0;
    phase_ = phase;
  }

  // Enqueues launches[index] into the next slot.
  void enqueue(std::span<const TimedLaunch> launches, int index, bool cold_l2, const L2Flusher& flusher,
               cudaStream_t stream) {
    if (size_ == launch_of_.size()) throw std::logic_error("LaunchBatch: more launches than the batch holds");
    const ErrorContext context(activity_of(launches[index]) + phase_);
    if (cold_l2) flusher.flush(stream);
    starts_[size_].record(stream);
    (*launches[index].launch)(stream);
    stops_[size_].record(stream);
    launch_of_[size_++] = index;
  }

  // Waits for each slot's launch in turn, within its own limit (the first gets `first_extra_seconds` more: the hold
  // kernel it waits behind), under its own ErrorContext. The last stop event is the last thing enqueued, so the
  // stream is idle afterwards.
  void wait(std::span<const TimedLaunch> launches, double first_extra_seconds) const {
    for (size_t slot = 0; slot < size_; ++slot) {
      const TimedLaunch& timed = launches[launch_of_[slot]];
      const ErrorContext context(activity_of(timed) + phase_);
      wait_for_event(stops_[slot].get(), timed.time_limit_seconds + (slot == 0 ? first_extra_seconds : 0));
    }
  }

  int launch(size_t slot) const { return launch_of_[slot]; }
  double elapsed_ms(size_t slot) const { return gemm::elapsed_ms(starts_[slot], stops_[slot]); }

 private:
  std::vector<Event> starts_, stops_;
  std::vector<int> launch_of_;  // which of the launches each slot ran
  size_t size_ = 0;
  std::string phase_;
};

}  // namespace

L2Flusher::L2Flusher(size_t l2_bytes) : buffer_(std::max<size_t>(2 * l2_bytes, 1 << 20), "the L2 flush buffer") {}

void L2Flusher::flush(cudaStream_t stream) const {
  CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 0, buffer_.bytes(), stream));
}

std::vector<Timing> time_interleaved(std::span<const TimedLaunch> launches, const TimingSettings& settings,
                                     const L2Flusher& flusher, cudaStream_t stream,
                                     const std::function<void()>& after_warmup) {
  const int kernels = static_cast<int>(launches.size());
  if (kernels == 0) return {};
  // The warm-up in batches of reps as the timed reps below (without their hold kernel: nothing of it is timed),
  // each launch waited for in turn, within its own limit and naming it if it hangs.
  const int reps_per_batch = std::max(1, kLaunchesPerBatch / kernels);
  LaunchBatch batch(static_cast<size_t>(reps_per_batch) * kernels);
  for (int first_rep = 0; first_rep < settings.warmup; first_rep += reps_per_batch) {
    batch.restart(kWarmUpPhase);
    for (int rep = first_rep; rep < std::min(first_rep + reps_per_batch, settings.warmup); ++rep)
      for (int i = 0; i < kernels; ++i) batch.enqueue(launches, i, settings.cold_l2, flusher, stream);
    batch.wait(launches, 0);
  }
  if (after_warmup) after_warmup();

  std::vector<Timing> timings(kernels);
  PinnedFlag release, hold_timed_out;
  int attempts = 0;  // of the batch at first_rep
  for (int first_rep = 0; first_rep < settings.reps;) {
    const int reps = std::min(reps_per_batch, settings.reps - first_rep);
    release.set(0);
    hold_timed_out.set(0);
    hold_stream_kernel<<<1, 1, 0, stream>>>(release.device(), hold_timed_out.device(), kHoldTimeoutNs);
    check_launch("hold_stream_kernel");
    batch.restart();
    for (int rep = first_rep; rep < first_rep + reps; ++rep)
      for (const int index : relabelled_rep(rep, kernels, settings.order_seed)) {
        if (rep == settings.reps - 1 && launches[index].before_last_rep) launches[index].before_last_rep(stream);
        batch.enqueue(launches, index, settings.cold_l2, flusher, stream);
      }
    release.set(1);
    batch.wait(launches, kHoldTimeoutNs * 1e-9);  // the first launch also waits out the hold kernel
    if (hold_timed_out.get() != 0) {  // the host took over a second to enqueue the batch: time it again
      if (++attempts == kHeldBatchAttempts)
        throw CudaError("the host took more than " + std::to_string(kHoldTimeoutNs / 1'000'000'000) +
                        " s to enqueue a batch of timed reps " + std::to_string(kHeldBatchAttempts) +
                        " times in a row; their times would include launch latency");
      continue;
    }
    for (size_t slot = 0; slot < batch.size(); ++slot)
      timings[batch.launch(slot)].samples_ms.push_back(batch.elapsed_ms(slot));
    first_rep += reps;
    attempts = 0;
  }
  for (Timing& timing : timings) timing.ms = quartiles(timing.samples_ms);
  return timings;
}

int warm_up_for(const TimedLaunch& timed, double seconds, bool cold_l2, const L2Flusher& flusher,
                cudaStream_t stream) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  LaunchBatch batch(kLaunchesPerBatch);
  int runs = 0;
  // Chunks that double up to a batch keep the GPU busy while the host checks the time between them.
  for (int chunk = 1; elapsed() < seconds; chunk = std::min(2 * chunk, kLaunchesPerBatch)) {
    batch.restart(kWarmUpPhase);
    for (int run = 0; run < chunk; ++run) batch.enqueue(std::span(&timed, 1), 0, cold_l2, flusher, stream);
    batch.wait(std::span(&timed, 1), 0);
    runs += chunk;
  }
  return runs;
}

}  // namespace gemm
