// Throughput ceilings of the instructions kernels 01 and 02 are built on, measured with no memory traffic:
//   FFMA                       fp32 fused multiply-add on the CUDA cores (kernel 01's only arithmetic)
//   mma.sync.m16n8k16 bf16     the tensor-core instruction of kernel 02
// Each warp runs independent accumulator chains (ILP) for a fixed number of iterations; the grid puts a
// given number of warps on every SM. The best configuration is the ceiling a kernel can be compared with.
//
// Usage: ceilings            prints one line per configuration and the best of each instruction last.
#include <cstdio>
#include <vector>

#include "common/cuda_check.h"
#include "common/mma_sync.h"
#include "runner/device.h"

namespace gemm {
namespace {

constexpr int kIterations = 4096;

template <int kChains>
__global__ void ffma_kernel(float* sink, float seed) {
  float acc[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) acc[c] = seed + threadIdx.x + c;
  const float a = seed * 0.999f, b = seed * 1.001f;
  for (int i = 0; i < kIterations; ++i)
#pragma unroll
    for (int c = 0; c < kChains; ++c) acc[c] = fmaf(acc[c], a, b);
  float total = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) total += acc[c];
  if (total == 12345.678f) sink[threadIdx.x] = total;  // keeps the loop alive, never true in practice
}

template <int kChains>
__global__ void mma_kernel(float* sink, uint32_t seed) {
  float acc[kChains][4] = {};
  const uint32_t a[4] = {seed ^ threadIdx.x, seed + threadIdx.x, seed * 3u, seed ^ 0x3c003c00u};
  const uint32_t b0 = seed ^ 0x3f803f80u, b1 = seed + 7u;
  for (int i = 0; i < kIterations; ++i)
#pragma unroll
    for (int c = 0; c < kChains; ++c) mma_m16n8k16_bf16(acc[c], a, b0, b1);
  float total = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) total += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (total == 12345.678f) sink[threadIdx.x] = total;
}

struct Result {
  double tflops;
  int warps_per_sm;
  int chains;
};

template <typename Launch>
double measure_tflops(Launch launch, double flops) {
  Event start, stop;
  launch();  // warm-up
  CUDA_CHECK(cudaDeviceSynchronize());
  start.record(nullptr);
  constexpr int kReps = 5;
  for (int rep = 0; rep < kReps; ++rep) launch();
  stop.record(nullptr);
  CUDA_CHECK(cudaEventSynchronize(stop.get()));
  return flops * kReps / (elapsed_ms(start, stop) * 1e-3) / 1e12;
}

template <int kChains>
void run_configuration(const GpuInfo& gpu, float* sink, Result& best_ffma, Result& best_mma) {
  for (int warps_per_sm : {8, 16, 32}) {
    const int threads = 256;
    const int blocks = gpu.sm_count * warps_per_sm * 32 / threads;
    const double threads_total = double(blocks) * threads;
    const double ffma_flops = threads_total * kIterations * kChains * 2;
    const double ffma = measure_tflops([&] { ffma_kernel<kChains><<<blocks, threads>>>(sink, 1.0f); check_launch("ffma_kernel"); },
                                       ffma_flops);
    const double mma_flops = threads_total / 32 * kIterations * kChains * (2.0 * 16 * 8 * 16);
    const double mma = measure_tflops([&] { mma_kernel<kChains><<<blocks, threads>>>(sink, 0x3f803f80u); check_launch("mma_kernel"); },
                                      mma_flops);
    std::printf("warps/SM %2d  chains %2d   FFMA %7.1f TFLOP/s   mma.sync m16n8k16 bf16 %7.1f TFLOP/s\n", warps_per_sm,
                kChains, ffma, mma);
    if (ffma > best_ffma.tflops) best_ffma = {ffma, warps_per_sm, kChains};
    if (mma > best_mma.tflops) best_mma = {mma, warps_per_sm, kChains};
  }
}

}  // namespace
}  // namespace gemm

int main() {
  using namespace gemm;
  try {
    const GpuInfo gpu = select_gpu();
    std::printf("%s, %d SMs, max SM clock %d MHz\n", gpu.name.c_str(), gpu.sm_count, gpu.max_sm_clock_mhz);
    DeviceBuffer<float> sink(1024, "sink");
    Result best_ffma{0, 0, 0}, best_mma{0, 0, 0};
    run_configuration<4>(gpu, sink.get(), best_ffma, best_mma);
    run_configuration<8>(gpu, sink.get(), best_ffma, best_mma);
    run_configuration<16>(gpu, sink.get(), best_ffma, best_mma);
    std::printf("ceiling FFMA fp32:               %.1f TFLOP/s (warps/SM %d, chains %d)\n", best_ffma.tflops,
                best_ffma.warps_per_sm, best_ffma.chains);
    std::printf("ceiling mma.sync m16n8k16 bf16:  %.1f TFLOP/s (warps/SM %d, chains %d)\n", best_mma.tflops,
                best_mma.warps_per_sm, best_mma.chains);
    return 0;
  } catch (const NoGpuError& error) {
    std::fprintf(stderr, "ceilings: %s\n", error.what());
    return kExitNoGpu;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ceilings: %s\n", error.what());
    return kExitCudaError;
  }
}
