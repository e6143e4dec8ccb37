// The probes of common/gpc_probe.h.
#include "common/gpc_probe.h"

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <numeric>

#include "common/cluster.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"

namespace gemm {
namespace {

// Each CTA writes the number of the SM it runs on.
__global__ void record_sm_kernel(int* sm_of_cta) {
  if (threadIdx.x == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    sm_of_cta[blockIdx.x] = static_cast<int>(sm);
  }
}

// The SM of every CTA of one launch of record_sm_kernel.
std::vector<int> record_sms(int grid, int threads, int shared_bytes, int cluster_size) {
  CUDA_CHECK(cudaFuncSetAttribute(record_sm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  DeviceBuffer<int> sm_of_cta(static_cast<size_t>(grid), "the GPC probe's SM numbers");
  launch_with_cluster(record_sm_kernel, grid, threads, shared_bytes, cluster_size, nullptr, sm_of_cta.get());
  std::vector<int> host(static_cast<size_t>(grid));
  CUDA_CHECK(cudaMemcpy(host.data(), sm_of_cta.get(), host.size() * sizeof(int), cudaMemcpyDeviceToHost));
  return host;
}

// The union-find's root of `sm`. %smid need not be below the SM count (PTX ISA, "%smid"): the forest grows to fit.
int find_root(std::vector<int>& parent, int sm) {
  while (static_cast<int>(parent.size()) <= sm) parent.push_back(static_cast<int>(parent.size()));
  while (parent[sm] != sm) sm = parent[sm] = parent[parent[sm]];
  return sm;
}

}  // namespace

std::vector<int> probe_sm_gpcs() {
  int device = 0, sms = 0, most_shared = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  // A GPU's GPCs do not change while the process runs: probed once per device, not at every prepare.
  static std::mutex mutex;
  static std::map<int, std::vector<int>> labels_of_device;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto known = labels_of_device.find(device); known != labels_of_device.end()) return known->second;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&most_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // Clusters of more than 8 CTAs are non-portable: allowed per kernel where the GPU has them (Hopper: up to 16).
  int largest = 8;
  if (cudaFuncSetAttribute(record_sm_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess)
    largest = 16;
  else
    cudaGetLastError();  // not sticky: only the portable sizes then

  // The GPCs: one CTA per SM (all of the shared memory a CTA may have), clusters as big as fit, then smaller.
  std::vector<int> parent(static_cast<size_t>(sms));
  std::iota(parent.begin(), parent.end(), 0);
  CUDA_CHECK(cudaFuncSetAttribute(record_sm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, most_shared));
  for (int size = largest; size >= 2; size -= 2) {
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = cluster_launch_config(size, 32, most_shared, size, nullptr, attribute);
    int resident = 0;
    if (cudaOccupancyMaxActiveClusters(&resident, record_sm_kernel, &config) != cudaSuccess) {
      cudaGetLastError();  // a size this GPU does not take
      continue;
    }
    if (resident < 1) continue;
    const std::vector<int> sm_of_cta = record_sms(resident * size, 32, most_shared, size);
    for (int cluster = 0; cluster < resident; ++cluster)
      for (int rank = 1; rank < size; ++rank)
        parent[find_root(parent, sm_of_cta[cluster * size + rank])] = find_root(parent, sm_of_cta[cluster * size]);
  }

  std::vector<int> labels(static_cast<size_t>(sms));
  for (int sm = 0; sm < sms; ++sm) labels[sm] = find_root(parent, sm);
  for (int sm = sms; sm < static_cast<int>(parent.size()); ++sm) labels.push_back(find_root(parent, sm));
  labels_of_device[device] = labels;
  return labels;
}

std::vector<int> probe_cluster_gpcs(int grid, int threads, int shared_bytes, int cluster_size) {
  const std::vector<int> gpc_of_sm = probe_sm_gpcs();
  // The placement: a launch shaped like the kernel's, one label per cluster from its first CTA's SM.
  const std::vector<int> sm_of_cta = record_sms(grid, threads, shared_bytes, cluster_size);
  std::vector<int> labels(static_cast<size_t>(grid / cluster_size));
  for (size_t cluster = 0; cluster < labels.size(); ++cluster) {
    const int sm = sm_of_cta[cluster * cluster_size];
    labels[cluster] = sm < static_cast<int>(gpc_of_sm.size()) ? gpc_of_sm[sm] : sm;  // an SM no probe ran on: alone
  }
  return labels;
}

}  // namespace gemm
