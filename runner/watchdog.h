// The watchdog: every wait for the GPU is bounded. A kernel that never finishes (an mbarrier waited on with
// the wrong phase parity or arrival count, a ring slot released one k block early) ends the run with one
// line naming it and exit code 4, instead of a frozen terminal.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>

namespace gemm {

// Every limit has this much slack, so start-up effects (module loading, clocks ramping) never trip it.
constexpr double kHangSlackSeconds = 10;
// A kernel may take this many times cuBLAS's time for the same shape (kernel 01, the slowest, takes ~20×).
constexpr double kHangTimesCublas = 100;
// cuBLAS's own first run is bounded as if it ran at 1 TFLOP/s, slower than any GPU that runs this code.
constexpr double kSlowestFlopsPerSecond = 1e12;

// The limit for one run of a kernel whose shape cuBLAS computed in `cublas_ms`.
double kernel_time_limit(double cublas_ms);
// The limit for cuBLAS's first run of an m × n × k product.
double reference_time_limit(int m, int n, int k);

// What a wait that runs out most likely means (a kernel of the ladder that hangs), and what to do about it.
inline constexpr const char* kHungKernelCause =
    "the kernel is probably hung (an mbarrier waited on with the wrong phase parity or arrival count, or a ring "
    "slot released too early); --timeout SECONDS changes the limit";

// The line printed when the limit passes, naming `activity` ("kernel 6 (persistent) at 256x256x64, seed 3") and
// the likely `cause`.
std::string hang_message(const std::string& activity, double limit_seconds, const char* cause = kHungKernelCause);

// What to do just before the watchdog ends the process (remove an --out directory the run created, so a
// hung run leaves nothing behind); an empty function clears it.
void set_hang_cleanup(std::function<void()> cleanup);

// Waits until the work enqueued on `stream` so far has finished. A CUDA error throws CudaError, naming the
// current ErrorContext. Past `limit_seconds` it prints hang_message on stderr and ends the process at once
// with exit code 4 (std::_Exit: no destructor runs, because freeing device memory would wait for the hung
// kernel forever, and nothing is written: reports are only written after every kernel finished).
void wait_for_stream(cudaStream_t stream, double limit_seconds);

// The same for the work before `event`, already recorded (the runner's timed reps wait for each launch in
// turn, so each gets its own limit and a hang names the launch); `cause` is what the message blames.
void wait_for_event(cudaEvent_t event, double limit_seconds, const char* cause = kHungKernelCause);

}  // namespace gemm
