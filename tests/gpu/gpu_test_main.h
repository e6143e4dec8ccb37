// The main() of the GPU test programs: runs the test, reports an exception as one line and exit 3. A test
// returns 0 pass, 1 fail, or throws SkipTest (no suitable GPU): exit 77, which CTest's SKIP_RETURN_CODE
// understands.
#pragma once

#include <cstdio>
#include <exception>
#include <stdexcept>

#include "common/errors.h"
#include "runner/device.h"

namespace gemm {

// A test that cannot run on this machine (no GPU, or not one it is written for) throws this with the reason.
class SkipTest : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The GPU to test on; without a usable CUDA GPU the test is skipped.
inline GpuInfo select_gpu_or_skip() {
  try {
    return select_gpu();
  } catch (const NoGpuError& error) {
    throw SkipTest(error.what());
  }
}

inline int gpu_test_main(const char* name, int (*run)()) {
  try {
    return run();
  } catch (const SkipTest& reason) {
    std::printf("skipped: %s\n", reason.what());
    return 77;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", name, error.what());
    return 3;
  }
}

}  // namespace gemm
