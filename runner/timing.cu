#include "runner/timing.h"

#include <algorithm>
#include <chrono>

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
// Launches per held batch: small enough that the driver's queue never fills while the stream is held.
constexpr int kLaunchesPerBatch = 96;
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

// One untimed run of `timed` (after an L2 flush when cold): the warm-ups of both timing modes.
void enqueue_untimed(const TimedLaunch& timed, bool cold_l2, const L2Flusher& flusher, cudaStream_t stream) {
  if (cold_l2) flusher.flush(stream);
  (*timed.launch)(stream);
}

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
  // Warm-up: each launch waited for in turn, within its own limit and naming it if it hangs.
  std::vector<Event> warmed(static_cast<size_t>(settings.warmup) * kernels);
  for (int rep = 0; rep < settings.warmup; ++rep)
    for (int i = 0; i < kernels; ++i) {
      enqueue_untimed(launches[i], settings.cold_l2, flusher, stream);
      warmed[static_cast<size_t>(rep) * kernels + i].record(stream);
    }
  for (size_t run = 0; run < warmed.size(); ++run) {
    const TimedLaunch& timed = launches[run % kernels];
    const ErrorContext context(activity_of(timed));
    wait_for_event(warmed[run].get(), timed.time_limit_seconds);
  }  // the last warm-up's event is the last thing enqueued: the stream is idle now
  if (after_warmup) after_warmup();

  std::vector<Timing> timings(kernels);
  const int reps_per_batch = std::max(1, kLaunchesPerBatch / kernels);
  std::vector<Event> starts(static_cast<size_t>(reps_per_batch) * kernels);
  std::vector<Event> stops(starts.size());
  std::vector<int> slot_launch(starts.size());  // which launch each slot of a batch timed
  PinnedFlag release, hold_timed_out;
  int attempts = 0;  // of the batch at first_rep
  for (int first_rep = 0; first_rep < settings.reps;) {
    const int batch = std::min(reps_per_batch, settings.reps - first_rep);
    release.set(0);
    hold_timed_out.set(0);
    hold_stream_kernel<<<1, 1, 0, stream>>>(release.device(), hold_timed_out.device(), kHoldTimeoutNs);
    check_launch("hold_stream_kernel");
    for (int rep = 0; rep < batch; ++rep) {
      const std::vector<int> order = relabelled_rep(first_rep + rep, kernels, settings.order_seed);
      for (int position = 0; position < kernels; ++position) {
        const TimedLaunch& timed = launches[order[position]];
        if (first_rep + rep == settings.reps - 1 && timed.before_last_rep) timed.before_last_rep(stream);
        if (settings.cold_l2) flusher.flush(stream);
        const size_t slot = static_cast<size_t>(rep) * kernels + position;
        slot_launch[slot] = order[position];
        starts[slot].record(stream);
        (*timed.launch)(stream);
        stops[slot].record(stream);
      }
    }
    release.set(1);
    // Each timed launch in turn, within its own limit (the first also waits out the hold kernel), naming it.
    for (size_t slot = 0; slot < static_cast<size_t>(batch) * kernels; ++slot) {
      const TimedLaunch& timed = launches[slot_launch[slot]];
      const ErrorContext context(activity_of(timed));
      wait_for_event(stops[slot].get(), timed.time_limit_seconds + (slot == 0 ? kHoldTimeoutNs * 1e-9 : 0));
    }
    if (hold_timed_out.get() != 0) {  // the host took over a second to enqueue the batch: time it again
      if (++attempts == kHeldBatchAttempts)
        throw CudaError("the host took more than " + std::to_string(kHoldTimeoutNs / 1'000'000'000) +
                        " s to enqueue a batch of timed reps " + std::to_string(kHeldBatchAttempts) +
                        " times in a row; their times would include launch latency");
      continue;
    }
    for (size_t slot = 0; slot < static_cast<size_t>(batch) * kernels; ++slot)
      timings[slot_launch[slot]].samples_ms.push_back(elapsed_ms(starts[slot], stops[slot]));
    first_rep += batch;
    attempts = 0;
  }
  for (Timing& timing : timings) timing.ms = quartiles(timing.samples_ms);
  return timings;
}

int warm_up_for(const TimedLaunch& timed, double seconds, bool cold_l2, const L2Flusher& flusher,
                cudaStream_t stream) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const ErrorContext context(activity_of(timed));
  int runs = 0;
  // Chunks that double up to a batch keep the GPU busy while the host checks the time between them.
  for (int chunk = 1; elapsed() < seconds; chunk = std::min(2 * chunk, kLaunchesPerBatch)) {
    for (int run = 0; run < chunk; ++run) enqueue_untimed(timed, cold_l2, flusher, stream);
    wait_for_stream(stream, timed.time_limit_seconds * chunk);
    runs += chunk;
  }
  return runs;
}

}  // namespace gemm
