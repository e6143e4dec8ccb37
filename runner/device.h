// RAII for streams and events (device memory: common/device_buffer.h), and finding the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/gemm_problem.h"

namespace gemm {

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { cudaStreamDestroy(stream_); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// One element of device memory, copied to the host (a synchronous copy on the legacy stream: call it once the
// work that wrote the element is known to be done).
inline bf16 copy_element_to_host(const bf16* element) {
  bf16 value;
  CUDA_CHECK(cudaMemcpy(&value, element, sizeof value, cudaMemcpyDeviceToHost));
  return value;
}

class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault) { CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }
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

// Device 0 made current and described, or NoGpuError (exit 77) when no CUDA GPU is usable.
GpuInfo query_gpu();
// Whether this build carries code for the GPU (a binary built for sm_90a has none for an sm_80 GPU).
bool build_has_code_for(const GpuInfo& gpu);
// The message for a GPU this build has no code for: what to rebuild with.
std::string no_code_message(const GpuInfo& gpu);
// query_gpu(), and UsageError (exit 2) when this build carries no code for the GPU found.
GpuInfo select_gpu();

}  // namespace gemm
