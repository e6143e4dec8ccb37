// RAII for device memory, streams and events, and finding the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "common/cuda_check.h"

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

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { cudaStreamDestroy(stream_); }
  cudaStream_t get() const { return stream_; }
  void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const { CUDA_CHECK(cudaEventRecord(event_, stream)); }

 private:
  cudaEvent_t event_ = nullptr;
};

// Milliseconds between two recorded, completed events.
inline float elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

struct GpuInfo {
  int device = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  size_t l2_bytes = 0;
  size_t memory_bytes = 0;
  size_t max_shared_per_block = 0;
  int max_sm_clock_mhz = 0;
  std::string pci_bus_id;
};

// Device 0 made current, or NoGpuError (exit 77) when no CUDA GPU is usable; UsageError (exit 2) when this
// build carries no code for the GPU found.
GpuInfo select_gpu();

}  // namespace gemm
