// Error types shared by the runner and the kernels' launchers. Each carries the exit code docs/usage.md and
// docs/design.md document, so main() can turn any failure into one line on stderr and that code.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace gemm {

enum ExitCode : int {
  kExitOk = 0,
  kExitWrongResult = 1,
  kExitUsage = 2,      // bad usage, or a shape or GPU the kernel cannot take
  kExitCudaError = 3,  // CUDA, cuBLAS or driver error (out of memory included)
  kExitTimeout = 4,    // a kernel did not finish within its time limit (the watchdog)
  kExitNoGpu = 77,     // no usable CUDA GPU: CTest reports such a test as skipped
};

// What the program is doing on the GPU right now, e.g. "kernel 3 (tma_wgmma) at 100x100x100, seed 7", so
// that an error surfacing in any CUDA call names it. The runner sets it around each kernel's work; a
// CudaError made while it is set starts with it.
class ErrorContext {
 public:
  explicit ErrorContext(std::string activity) : previous_(std::exchange(current_storage(), std::move(activity))) {}
  ErrorContext(const ErrorContext&) = delete;
  ErrorContext& operator=(const ErrorContext&) = delete;
  ~ErrorContext() { current_storage() = std::move(previous_); }
  static const std::string& current() { return current_storage(); }

 private:
  static std::string& current_storage() {
    thread_local std::string activity;
    return activity;
  }
  std::string previous_;
};

// Bad arguments, or a shape/GPU a kernel cannot take (exit 2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A CUDA runtime, driver or cuBLAS call failed (exit 3). The message names the current ErrorContext.
class CudaError : public std::runtime_error {
 public:
  explicit CudaError(const std::string& message)
      : std::runtime_error(ErrorContext::current().empty() ? message : ErrorContext::current() + ": " + message) {}
};

// No CUDA device is visible (exit 77).
class NoGpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gemm
