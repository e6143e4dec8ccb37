#include "runner/watchdog.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <thread>

#include "common/cuda_check.h"
#include "common/errors.h"
#include "runner/device.h"

namespace gemm {

namespace {

std::function<void()>& hang_cleanup() {
  static std::function<void()> cleanup;
  return cleanup;
}

}  // namespace

void set_hang_cleanup(std::function<void()> cleanup) { hang_cleanup() = std::move(cleanup); }

double kernel_time_limit(double cublas_ms) { return kHangSlackSeconds + kHangTimesCublas * cublas_ms * 1e-3; }

double reference_time_limit(int m, int n, int k) {
  return kHangSlackSeconds + 2.0 * m * static_cast<double>(n) * k / kSlowestFlopsPerSecond;
}

std::string hang_message(const std::string& activity, double limit_seconds, const char* cause) {
  std::ostringstream text;
  text << "gemm: " << (activity.empty() ? std::string("the GPU") : activity) << " did not finish within "
       << std::fixed << std::setprecision(1) << limit_seconds << " s: " << cause;
  return text.str();
}

void wait_for_event(cudaEvent_t event, double limit_seconds, const char* cause) {
  const auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::microseconds(20);
  while (true) {
    const cudaError_t status = cudaEventQuery(event);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady)
      throw CudaError(std::string("the GPU reported an error: ") + cudaGetErrorString(status));
    const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - start;
    if (waited.count() > limit_seconds) {
      std::fflush(stdout);
      const std::string message = hang_message(ErrorContext::current(), limit_seconds, cause) + "\n";
      std::fputs(message.c_str(), stderr);
      std::fflush(stderr);
      if (hang_cleanup()) hang_cleanup()();
      std::_Exit(kExitTimeout);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

void wait_for_stream(cudaStream_t stream, double limit_seconds) {
  const Event done(cudaEventDisableTiming);
  const cudaError_t recorded = cudaEventRecord(done.get(), stream);
  if (recorded != cudaSuccess)
    throw CudaError(std::string("the GPU reported an error: ") + cudaGetErrorString(recorded));
  wait_for_event(done.get(), limit_seconds);
}

}  // namespace gemm
