#include "runner/device.h"

namespace gemm {
namespace {

__global__ void probe_kernel() {}

}  // namespace

GpuInfo query_gpu() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0)
    throw NoGpuError(std::string("no usable CUDA GPU (") +
                     (status != cudaSuccess ? cudaGetErrorString(status) : "no device found") + ")");
  GpuInfo info;
  info.device = 0;
  CUDA_CHECK(cudaSetDevice(info.device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, info.device));
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = static_cast<size_t>(prop.l2CacheSize);
  info.memory_bytes = prop.totalGlobalMem;
  info.max_shared_per_block = prop.sharedMemPerBlockOptin;
  int clock_khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, info.device));
  info.max_sm_clock_mhz = clock_khz / 1000;
  char bus_id[32] = {};
  CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, info.device));
  info.pci_bus_id = bus_id;

  return info;
}

bool build_has_code_for(const GpuInfo& gpu) {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaSetDevice(gpu.device));
  if (cudaFuncGetAttributes(&attributes, probe_kernel) == cudaSuccess) return true;
  cudaGetLastError();  // not sticky; clear it
  return false;
}

std::string no_code_message(const GpuInfo& gpu) {
  const std::string sm = std::to_string(gpu.cc_major) + std::to_string(gpu.cc_minor);
  return "this build has no GPU code for the " + gpu.name + " (sm_" + sm + "): rebuild with " +
         "-DCMAKE_CUDA_ARCHITECTURES=" + sm + (gpu.cc_major >= 9 ? "a" : "");
}

GpuInfo select_gpu() {
  // A binary built without code for this GPU fails every launch; say so once, plainly.
  const GpuInfo gpu = query_gpu();
  if (!build_has_code_for(gpu)) throw UsageError(no_code_message(gpu));
  return gpu;
}

}  // namespace gemm
