#include "runner/inputs.h"

#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "runner/tolerance.h"
#include "runner/watchdog.h"

namespace gemm {
namespace {

// splitmix64's finaliser: a bijective 64-bit mix with good avalanche.
__host__ __device__ inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// 64 random bits for element `index` of stream `stream_id` (A: 0, B: 1) under `seed`.
__host__ __device__ inline uint64_t element_bits(uint64_t seed, uint32_t stream_id, uint64_t index) {
  return mix64(mix64(seed ^ (uint64_t{stream_id} << 56)) + index * 0x9e3779b97f4a7c15ull);
}

__host__ __device__ inline float uniform_value(uint64_t seed, uint32_t stream_id, uint64_t index) {
  const uint64_t bits = element_bits(seed, stream_id, index);
  // 24 random bits -> [0, 1) -> [-1, 1)
  return static_cast<float>(bits >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

// −1, 0 or 1 from the same generator: the top 32 bits scaled to [0, 3) (a bias of 2^-32 at most).
__host__ __device__ inline float ternary_value(uint64_t seed, uint32_t stream_id, uint64_t index) {
  const uint64_t bits = element_bits(seed, stream_id, index);
  return static_cast<float>(static_cast<int>(((bits >> 32) * 3) >> 32) - 1);
}

__global__ void fill_ternary_kernel(bf16* data, size_t count, uint64_t seed, uint32_t stream_id) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x)
    data[i] = __float2bfloat16_rn(ternary_value(seed, stream_id, i));
}

__global__ void fill_uniform_kernel(bf16* data, size_t count, uint64_t seed, uint32_t stream_id) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x)
    data[i] = __float2bfloat16_rn(uniform_value(seed, stream_id, i));
}

// The bits fill_inputs_bf16 writes at index i, and the bits a copy holds there: what changes_kernel compares with.
struct GeneratedBits {
  uint64_t seed;
  uint32_t stream_id;
  bool ternary;
  __device__ uint16_t operator()(size_t i) const {
    const float value = ternary ? ternary_value(seed, stream_id, i) : uniform_value(seed, stream_id, i);
    return __bfloat16_as_ushort(__float2bfloat16_rn(value));
  }
};
struct CopiedBits {
  const bf16* copy;
  __device__ uint16_t operator()(size_t i) const { return __bfloat16_as_ushort(copy[i]); }
};

// Counts the elements that differ, bit for bit, from expected(i); the lowest index in `first`.
template <class Expected>
__global__ void changes_kernel(const bf16* data, size_t count, Expected expected, unsigned long long* changed,
                               unsigned long long* first) {
  unsigned long long mine = 0, lowest = ~0ull;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
    if (__bfloat16_as_ushort(data[i]) != expected(i)) {
      ++mine;
      lowest = min(lowest, static_cast<unsigned long long>(i));
    }
  }
  if (mine) {
    atomicAdd(changed, mine);
    atomicMin(first, lowest);
  }
}

__global__ void fill_poison_kernel(bf16* data, size_t count) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x)
    data[i] = __ushort_as_bfloat16(kPoisonBits);
}

constexpr int kFillThreads = 256;
constexpr int kFillBlocks = 4096;  // grid-stride: enough blocks to fill any GPU

// The elements of `data` whose bits differ from expected(i).
template <class Expected>
ElementChanges find_changes(const bf16* data, size_t count, Expected expected, cudaStream_t stream) {
  const DeviceBuffer<unsigned long long> totals(2, "the changed elements' totals");
  const unsigned long long initial[2] = {0, ~0ull};
  CUDA_CHECK(cudaMemcpyAsync(totals.get(), initial, sizeof initial, cudaMemcpyHostToDevice, stream));
  changes_kernel<<<kFillBlocks, kFillThreads, 0, stream>>>(data, count, expected, totals.get(), totals.get() + 1);
  check_launch("changes_kernel");
  unsigned long long host[2];
  CUDA_CHECK(cudaMemcpyAsync(host, totals.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  wait_for_stream(stream, kHangSlackSeconds);  // a pass over a matrix: milliseconds; the limit is for a wedged GPU
  return {host[0], host[1]};
}

}  // namespace

void fill_uniform_bf16(bf16* data, size_t count, uint64_t seed, uint32_t stream_id, cudaStream_t stream) {
  fill_uniform_kernel<<<kFillBlocks, kFillThreads, 0, stream>>>(data, count, seed, stream_id);
  check_launch("fill_uniform_kernel");
}

void fill_ternary_bf16(bf16* data, size_t count, uint64_t seed, uint32_t stream_id, cudaStream_t stream) {
  fill_ternary_kernel<<<kFillBlocks, kFillThreads, 0, stream>>>(data, count, seed, stream_id);
  check_launch("fill_ternary_kernel");
}

void fill_inputs_bf16(InputKind kind, bf16* data, size_t count, uint64_t seed, uint32_t stream_id,
                      cudaStream_t stream) {
  (kind == InputKind::kExact ? fill_ternary_bf16 : fill_uniform_bf16)(data, count, seed, stream_id, stream);
}

ElementChanges find_input_changes(InputKind kind, const bf16* data, size_t count, uint64_t seed, uint32_t stream_id,
                                  cudaStream_t stream) {
  return find_changes(data, count, GeneratedBits{seed, stream_id, kind == InputKind::kExact}, stream);
}

ElementChanges find_copy_changes(const bf16* data, const bf16* copy, size_t count, cudaStream_t stream) {
  return find_changes(data, count, CopiedBits{copy}, stream);
}

void fill_poison(bf16* data, size_t count, cudaStream_t stream) {
  fill_poison_kernel<<<kFillBlocks, kFillThreads, 0, stream>>>(data, count);
  check_launch("fill_poison_kernel");
}

float uniform_bf16_value(uint64_t seed, uint32_t stream_id, uint64_t index) {
  return __bfloat162float(__float2bfloat16_rn(uniform_value(seed, stream_id, index)));
}

float ternary_bf16_value(uint64_t seed, uint32_t stream_id, uint64_t index) {
  return ternary_value(seed, stream_id, index);
}

float input_bf16_value(InputKind kind, uint64_t seed, uint32_t stream_id, uint64_t index) {
  return kind == InputKind::kExact ? ternary_bf16_value(seed, stream_id, index)
                                   : uniform_bf16_value(seed, stream_id, index);
}

}  // namespace gemm
