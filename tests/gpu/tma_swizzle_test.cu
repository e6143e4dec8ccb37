// GPU test: what TMA's SWIZZLE_128B actually writes to shared memory, compared with common/swizzle.h.
//
// A 64-column × 16-row box of a matrix whose elements encode their own (row, column) is loaded with TMA
// into a 1024-byte-aligned buffer; the buffer's raw bytes are copied out and every element must sit at
// swizzle_128b(row * 128 + column * 2). A second box hangs past the matrix's last rows and columns: the
// elements outside must arrive as zeros, and the barrier must still complete with the full box's bytes
// (the edge tiles of kernels 03+ rely on both); a third box lies wholly outside the matrix and must be all
// zeros, its barrier completing all the same. Exit 0 pass, 1 fail, 77 no usable sm_90 GPU.
#include <cstdio>
#include <vector>

#include "common/arch.h"
#include "common/mbarrier.h"
#include "common/swizzle.h"
#include "common/tensor_map.h"
#include "common/tma.h"
#include "runner/device.h"
#include "tests/gpu/gpu_test_main.h"

namespace gemm {
namespace {

constexpr int kBoxRows = 16;
constexpr int kBoxCols = 64;  // 128 bytes: one swizzle row
constexpr int kBoxBytes = kBoxRows * kBoxCols * 2;

__global__ void load_box_kernel(const __grid_constant__ CUtensorMap map, int x, int y, uint16_t* out) {
#if GEMM_SM90A_DEVICE_CODE
  __shared__ alignas(1024) uint16_t box[kBoxRows * kBoxCols];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) {
    mbarrier_init(&full, 1);
    fence_proxy_async_shared();
    mbarrier_arrive_expect_tx(&full, kBoxBytes);
    tma_load_2d(box, &map, &full, x, y);
  }
  __syncthreads();
  mbarrier_wait(&full, 0);
  for (int i = threadIdx.x; i < kBoxRows * kBoxCols; i += blockDim.x) out[i] = box[i];  // raw smem order
#endif
}

// Element (row, col) of the test matrix: distinct, non-zero, exactly representable as bf16 bits.
uint16_t element_bits(int row, int col) { return static_cast<uint16_t>(0x4000 | (row * 64 + col)); }

int run() {
  const GpuInfo gpu = select_gpu_or_skip();
  if (gpu.cc_major != 9) throw SkipTest("TMA test needs an sm_90 GPU");
  constexpr int kRows = 40, kCols = 96;  // the second box (rows 32-47, cols 64-127) overhangs both edges
  std::vector<uint16_t> host(kRows * kCols);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) host[r * kCols + c] = element_bits(r, c);
  DeviceBuffer<bf16> matrix(host.size(), "matrix");
  DeviceBuffer<uint16_t> out(kBoxRows * kBoxCols, "box copy");
  CUDA_CHECK(cudaMemcpy(matrix.get(), host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  const CUtensorMap map = make_tensor_map_2d(matrix.get(), kRows, kCols, kBoxRows, kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B);

  int failures = 0;
  // The third box lies wholly outside the matrix (the partner tile of a cluster at the edge, kernel 07):
  // it must arrive as zeros and still complete the barrier with the full box's bytes.
  struct Box { int x, y; } boxes[] = {{0, 8}, {64, 32}, {128, 48}};
  for (const Box& box : boxes) {
    load_box_kernel<<<1, 128>>>(map, box.x, box.y, out.get());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<uint16_t> raw(kBoxRows * kBoxCols);
    CUDA_CHECK(cudaMemcpy(raw.data(), out.get(), raw.size() * 2, cudaMemcpyDeviceToHost));
    for (int r = 0; r < kBoxRows; ++r)
      for (int c = 0; c < kBoxCols; ++c) {
        const int row = box.y + r, col = box.x + c;
        const uint16_t expected = row < kRows && col < kCols ? element_bits(row, col) : 0;
        const uint16_t got = raw[swizzle_128b(r * 128 + c * 2) / 2];
        if (got != expected && failures++ < 10)
          std::printf("FAIL box (%d, %d): element (%d, %d) expected 0x%04x at swizzled offset %u, found 0x%04x\n", box.x,
                      box.y, r, c, expected, swizzle_128b(r * 128 + c * 2), got);
      }
  }
  std::printf(failures ? "%d elements misplaced\n" : "TMA SWIZZLE_128B matches swizzle_128b; out-of-bounds reads zero\n",
              failures);
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace gemm

int main() { return gemm::gpu_test_main("tma_swizzle_test", gemm::run); }
