// GPU test of the timer (runner/timing.h): launches of known duration, timed interleaved as `gemm compare`
// times kernels, must come back with those durations, each sample attributed to the launch that made it.
//
// Three "kernels" spin on the GPU's global timer for 0.5, 1 and 2 ms. Their medians must be within 5 % of
// that, and every sample of a shorter one must be shorter than every sample of a longer one (a sample given
// to the wrong launch would break that: the order changes every rep, and with three launches every second
// block of reps runs backwards). warm_up_for must run a launch for about the time asked. And no phase may enqueue
// more than kLaunchesPerBatch launches before it waits for them: a launch that counts its runs in host-mapped memory
// lets the host see, at every enqueue, how many launches are queued and not yet run, over 2000 warm-up reps (where
// the runner once enqueued them all before its first wait), the timed reps and warm_up_for. Exit 0 pass, 1 fail,
// 77 no GPU.
#include <algorithm>
#include <cstdio>

#include "common/cuda_check.h"
#include "runner/device.h"
#include "runner/timing.h"
#include "tests/gpu/gpu_test_main.h"

namespace gemm {
namespace {

__global__ void spin_kernel(long long nanoseconds) {
  long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

// spin_kernel, then one more run counted in `runs` (host-mapped memory). A plain increment, not an atomic (atomics on
// host memory need PCIe atomics): the launches of one stream run one after another, so no other run writes meanwhile.
__global__ void counted_spin_kernel(long long nanoseconds, volatile unsigned* runs) {
  long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
  if (threadIdx.x == 0) {
    *runs = *runs + 1;
    __threadfence_system();  // seen by the host before the launch's stop event completes
  }
}

// How deep the queue of launches not yet run got: the deepest count of launches enqueued and not run, seen just
// before each enqueue.
class QueueDepth {
 public:
  QueueDepth() {
    CUDA_CHECK(cudaHostAlloc(&runs_, sizeof(unsigned), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_runs_), const_cast<unsigned*>(runs_), 0));
    *runs_ = 0;
  }
  QueueDepth(const QueueDepth&) = delete;
  QueueDepth& operator=(const QueueDepth&) = delete;
  ~QueueDepth() { cudaFreeHost(const_cast<unsigned*>(runs_)); }

  // A launch of `ms` that counts its runs here.
  GemmLaunch launch(double ms) {
    const long long nanoseconds = static_cast<long long>(ms * 1e6);
    return {[this, nanoseconds](cudaStream_t stream) {
              deepest_ = std::max(deepest_, enqueued_ - *runs_);
              ++enqueued_;
              counted_spin_kernel<<<1, 32, 0, stream>>>(nanoseconds, device_runs_);
              check_launch("counted_spin_kernel");
            },
            reinterpret_cast<const void*>(counted_spin_kernel)};
  }
  unsigned deepest() const { return deepest_; }
  unsigned enqueued() const { return enqueued_; }

 private:
  volatile unsigned* runs_ = nullptr;
  unsigned* device_runs_ = nullptr;
  unsigned enqueued_ = 0;
  unsigned deepest_ = 0;
};

GemmLaunch spin_launch(double ms) {
  const long long nanoseconds = static_cast<long long>(ms * 1e6);
  return {[nanoseconds](cudaStream_t stream) {
            spin_kernel<<<1, 32, 0, stream>>>(nanoseconds);
            check_launch("spin_kernel");
          },
          reinterpret_cast<const void*>(spin_kernel)};
}

int run() {
  const GpuInfo gpu = select_gpu_or_skip();
  constexpr int kLaunches = 3;
  const double durations_ms[kLaunches] = {0.5, 1.0, 2.0};
  const GemmLaunch launches[kLaunches] = {spin_launch(durations_ms[0]), spin_launch(durations_ms[1]),
                                          spin_launch(durations_ms[2])};
  const TimedLaunch timed[kLaunches] = {{&launches[0], 10.0, {}}, {&launches[1], 10.0, {}}, {&launches[2], 10.0, {}}};
  Stream stream;
  const L2Flusher flusher(gpu.l2_bytes);
  const std::vector<Timing> timings = time_interleaved(timed, TimingSettings{3, 41, true}, flusher, stream.get());

  int failures = 0;
  for (int i = 0; i < kLaunches; ++i) {
    const double median = timings[i].ms.median;
    const bool ok = timings[i].samples_ms.size() == 41 && median > 0.95 * durations_ms[i] &&
                    median < 1.05 * durations_ms[i];
    std::printf("%s launch %d: %zu samples, median %.4f ms (q1 %.4f, q3 %.4f), expected %.1f ms\n", ok ? "ok  " : "FAIL",
                i, timings[i].samples_ms.size(), median, timings[i].ms.q1, timings[i].ms.q3, durations_ms[i]);
    failures += !ok;
  }
  for (int i = 0; i + 1 < kLaunches; ++i) {
    const double longest_short = *std::max_element(timings[i].samples_ms.begin(), timings[i].samples_ms.end());
    const double shortest_long = *std::min_element(timings[i + 1].samples_ms.begin(), timings[i + 1].samples_ms.end());
    if (!(longest_short < shortest_long)) {
      std::printf("FAIL samples mixed up: launch %d's longest %.4f ms >= launch %d's shortest %.4f ms\n", i,
                  longest_short, i + 1, shortest_long);
      ++failures;
    }
  }
  // warm_up_for runs a launch until the time is up: 0.2 s of a 0.5 ms launch is about 400 runs (fewer when
  // each run waits for the flush; never so few that the time cannot have passed).
  const double warm_up_seconds = 0.2;
  const int runs = warm_up_for(timed[0], warm_up_seconds, true, flusher, stream.get());
  const double spun_seconds = runs * durations_ms[0] * 1e-3;
  const bool warm_up_ok = spun_seconds >= 0.5 * warm_up_seconds && spun_seconds <= 2 * warm_up_seconds;
  std::printf("%s warm_up_for(%.1f s) of the 0.5 ms launch: %d runs\n", warm_up_ok ? "ok  " : "FAIL",
              warm_up_seconds, runs);
  failures += !warm_up_ok;

  // The queue never holds more than a batch: 2000 warm-up reps and 300 timed ones of a 0.1 ms launch (hot L2: the
  // flushes would only slow the GPU down), then 0.2 s of warm_up_for.
  QueueDepth depth;
  const GemmLaunch counted = depth.launch(0.1);
  const TimedLaunch counted_timed{&counted, 10.0, {}, "the counted launch"};
  time_interleaved(std::span(&counted_timed, 1), TimingSettings{2000, 300, false}, flusher, stream.get());
  warm_up_for(counted_timed, 0.2, false, flusher, stream.get());
  const bool bounded = depth.deepest() <= kLaunchesPerBatch;
  std::printf("%s deepest queue of launches not yet run: %u of %u enqueued (at most %d allowed)\n",
              bounded ? "ok  " : "FAIL", depth.deepest(), depth.enqueued(), kLaunchesPerBatch);
  failures += !bounded;
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace gemm

int main() { return gemm::gpu_test_main("timer_test", gemm::run); }
