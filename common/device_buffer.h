// RAII for device memory: a cudaMalloc'd array freed when its owner goes. Used by the runner for A, B and C,
// and by launchers that keep a table on the device (the tile orders of kernels 09-14).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "common/errors.h"

namespace gemm {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // `what` names the buffer in the out-of-memory message.
  DeviceBuffer(size_t count, const char* what) : count_(count) {
    void* pointer = nullptr;
    cudaError_t status = cudaMalloc(&pointer, count * sizeof(T));
    if (status != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it so a later launch check does not report it
      throw CudaError(std::string("cudaMalloc of ") + std::to_string(count * sizeof(T)) + " bytes for " + what +
                      " failed: " + cudaGetErrorString(status));
    }
    data_ = static_cast<T*>(pointer);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }
  T* get() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }
  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace gemm
