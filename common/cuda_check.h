// CUDA_CHECK: every runtime call goes through it; a failure becomes a CudaError naming the call.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "common/errors.h"

namespace gemm {

inline void cuda_check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw CudaError(std::string(call) + " failed: " + cudaGetErrorString(status) + " (" + file + ":" +
                  std::to_string(line) + ")");
}

// After a kernel launch: a bad configuration (too much shared memory, no image for this GPU) shows
// up here, not at the launch statement.
inline void check_launch(const char* kernel_name) {
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    throw CudaError(std::string("launch of ") + kernel_name + " failed: " + cudaGetErrorString(status));
}

}  // namespace gemm

#define CUDA_CHECK(call) ::gemm::cuda_check((call), #call, __FILE__, __LINE__)
