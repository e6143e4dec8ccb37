// Thread-block clusters: CTAs launched together on one GPC that can read, write and signal each other's
// shared memory (PTX ISA: "Cluster of Cooperative Thread Arrays"; CUDA Programming Guide: "Thread Block
// Clusters"). Introduced by kernel 07.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>

#include "common/cuda_check.h"

namespace gemm {

// ---- device side -----------------------------------------------------------------------------------------

// This CTA's rank in its cluster (0 .. cluster size - 1).
__device__ __forceinline__ uint32_t cluster_cta_rank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

// The cluster's index in the grid, and the number of clusters.
__device__ __forceinline__ uint32_t cluster_index() {
  uint32_t index;
  asm volatile("mov.u32 %0, %%clusterid.x;\n" : "=r"(index));
  return index;
}
__device__ __forceinline__ uint32_t cluster_count() {
  uint32_t count;
  asm volatile("mov.u32 %0, %%nclusterid.x;\n" : "=r"(count));
  return count;
}

// A barrier over every thread of every CTA in the cluster, split in two halves (not .aligned: threads may
// reach it from divergent paths, e.g. after warp-specialized roles). arrive.release makes this
// thread's earlier writes (shared memory, mbarrier inits) visible to the cluster; wait.acquire blocks until
// all threads of the cluster have arrived.
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory"); }
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

// The shared::cluster address of the variable at `smem_address` (a shared::cta address of this CTA) in the
// CTA of rank `cta_rank`: every CTA of a kernel has the same shared-memory layout, so "the same variable in
// my partner" is this mapping (PTX: mapa).
__device__ __forceinline__ uint32_t map_to_cta(uint32_t smem_address, uint32_t cta_rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(smem_address), "r"(cta_rank));
  return remote;
}

// ---- host side --------------------------------------------------------------------------------------------

// A launch of `grid` CTAs in clusters of `cluster_size` along x. The configuration points at `attribute`,
// which must outlive it.
inline cudaLaunchConfig_t cluster_launch_config(int grid, int threads, int shared_bytes, int cluster_size,
                                                cudaStream_t stream, cudaLaunchAttribute& attribute) {
  attribute = {};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster_size;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return config;
}

// Launches `kernel` on `grid` CTAs in clusters of `cluster_size` along x (grid a multiple of it) through
// cudaLaunchKernelEx, the launch call that takes a cluster shape at run time.
template <typename... KernelArgs, typename... Args>
void launch_with_cluster(void (*kernel)(KernelArgs...), int grid, int threads, int shared_bytes, int cluster_size,
                         cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_launch_config(grid, threads, shared_bytes, cluster_size, stream, attribute);
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

// How many clusters of `cluster_size` CTAs a persistent `kernel` launches for `cluster_tiles` cluster tiles:
// as many as can be resident on the GPU at once (a cluster must fit in one GPC, so this can be less than
// SMs / cluster_size), never more than there are tiles. Throws when not even one cluster fits.
template <typename... KernelArgs>
int persistent_cluster_count(void (*kernel)(KernelArgs...), int threads, int shared_bytes, int cluster_size,
                             int cluster_tiles) {
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_launch_config(cluster_size, threads, shared_bytes, cluster_size, nullptr,
                                                          attribute);
  int resident = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&resident, kernel, &config));
  if (resident < 1) throw CudaError("no cluster of " + std::to_string(cluster_size) + " CTAs fits on this GPU");
  return cluster_tiles < resident ? cluster_tiles : resident;
}

}  // namespace gemm
