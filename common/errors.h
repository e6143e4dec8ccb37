// Error types shared by the runner and the kernels' launchers. Each carries the exit code that
// docs/design.md assigns to it, so main() can turn any failure into one line on stderr and that code.
#pragma once

#include <stdexcept>
#include <string>

namespace gemm {

enum ExitCode : int {
  kExitOk = 0,
  kExitWrongResult = 1,
  kExitUsage = 2,     // bad usage, or a shape or GPU the kernel cannot take
  kExitCudaError = 3, // CUDA, cuBLAS or driver error (out of memory included)
  kExitNoGpu = 77,    // no usable CUDA GPU: CTest reports such a test as skipped
};

// Bad arguments, or a shape/GPU a kernel cannot take (exit 2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A CUDA runtime, driver or cuBLAS call failed (exit 3).
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// No CUDA device is visible (exit 77).
class NoGpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gemm
