// The main() of the GPU test programs: runs the test, reports an exception as one line and exit 3. A test
// returns 0 pass, 1 fail, 77 skipped (no suitable GPU), which CTest's SKIP_RETURN_CODE understands.
#pragma once

#include <cstdio>
#include <exception>

namespace gemm {

inline int gpu_test_main(const char* name, int (*run)()) {
  try {
    return run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", name, error.what());
    return 3;
  }
}

}  // namespace gemm
