// The contract between the runner and every kernel.
//
//   C = A · Bᵀ   (the nn.Linear convention)
//   A: M × K, row-major (K contiguous), bf16
//   B: N × K, row-major (K contiguous), bf16
//   C: M × N, row-major (N contiguous), bf16, accumulated in fp32
//
// A kernel's launcher receives a GemmProblem, does its host-side set-up once (tensor maps, shared
// memory attributes, tile tables), and returns a GemmLaunch: a callable that only enqueues the kernel on a
// stream, holding whatever the set-up made. The runner times the GemmLaunch, so set-up never lands inside a
// timed region.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

namespace gemm {

using bf16 = __nv_bfloat16;

struct GemmProblem {
  int m = 0;
  int n = 0;
  int k = 0;
  const bf16* a = nullptr;
  const bf16* b = nullptr;
  bf16* c = nullptr;
};

struct GemmLaunch {
  std::function<void(cudaStream_t)> enqueue;
  const void* kernel = nullptr;  // the __global__ function enqueued (for its attributes); null for cuBLAS
  void operator()(cudaStream_t stream) const { enqueue(stream); }
};

// ⌈a / b⌉ for a ≥ 0, b > 0, without the overflow of (a + b - 1) / b near INT_MAX.
__host__ __device__ constexpr int ceil_div(int a, int b) { return a / b + (a % b != 0); }

}  // namespace gemm
