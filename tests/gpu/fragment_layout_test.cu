// GPU test: the data mappings of common/fragment_layout.h against the hardware, every register of every lane.
//
//   mma.sync m16n8k16   A's registers are filled through mma_m16n8k16_a from a matrix whose elements encode
//                       their (m, k), and B is one-hot, picking columns k = n + 8·sel: D's element e of lane l,
//                       placed by mma_m16n8k16_c, must be A(row, col + 8·sel). Then B encoded and A the
//                       identity: D(m, n) must be B(m, n). Each run holds one operand's placement against
//                       C/D's; a permutation that mma_m16n8k16_a and _c shared would pass both, which the host
//                       tests, pinned to the PTX ISA's figures and to CuTe, catch.
//   ldmatrix.x4         kernel 02's chain: a 16 × 64 tile stored swizzled (swizzled_chunk_offset), lane addresses
//                       from ldmatrix_x4_a_source / _b_source, k16 steps by swizzled_k_step; every register of
//                       every lane, for steps 0-3, must hold the element mma_m16n8k16_a / _b names.
//   wgmma m64nNk16      (sm_90a) N = 128 and 256: A (64 × 64) and B (N × 64) stored as TMA writes them (128-byte
//                       swizzle, 1024-byte aligned), descriptors as kernels 03-05 make them, one k16 step s per
//                       instruction (start address + 32·s). A and B are chosen so that
//                       D(m, n) = 65536 + 16384·s + 256·m + n: register r of thread t, placed by
//                       wgmma_m64_accumulator, must hold exactly that (65536 comes from the step's second 16-byte
//                       chunk, 16384·s tells the steps apart).
// All values are small integers, exact in bf16 and in fp32 sums. Exit 0 pass, 1 fail, 77 no suitable GPU
// (sm_90a runs everything; sm_100a the mma.sync and ldmatrix parts).
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/arch.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/fragment_layout.h"
#include "common/gemm_problem.h"
#include "common/mbarrier.h"  // fence_proxy_async_shared
#include "common/mma_sync.h"
#include "common/swizzle.h"
#include "common/wgmma.h"
#include "runner/device.h"
#include "tests/gpu/gpu_test_main.h"

namespace gemm {
namespace {

constexpr int kMaxReports = 10;  // mismatches printed per check

__device__ uint32_t pack_bf16(float low, float high) {
  return static_cast<uint32_t>(__bfloat16_as_ushort(__float2bfloat16_rn(low))) |
         (static_cast<uint32_t>(__bfloat16_as_ushort(__float2bfloat16_rn(high))) << 16);
}

// Bits of a bf16 equal to `value`, for values with at most 8 significant bits (exact, so truncation is right).
uint16_t bf16_bits(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return static_cast<uint16_t>(bits >> 16);
}

// ---- mma.sync m16n8k16 --------------------------------------------------------------------------------------

// which 0: A(m, k) = 16m + k + 1, B(k, n) = [k == n + 8·sel]     -> D(m, n) = A(m, n + 8·sel)
// which 1: A(m, k) = [m == k],    B(k, n) = 8k + n + 1            -> D(m, n) = B(m, n)
__device__ float mma_a_value(int which, FragmentCoord at) {
  return which == 0 ? static_cast<float>(16 * at.row + at.col + 1) : (at.row == at.col ? 1.0f : 0.0f);
}
__device__ float mma_b_value(int which, int sel, FragmentCoord at) {  // at = (k, n)
  return which == 0 ? (at.row == at.col + 8 * sel ? 1.0f : 0.0f) : static_cast<float>(8 * at.row + at.col + 1);
}

__global__ void mma_kernel(int which, int sel, float* out) {
  const int lane = threadIdx.x;
  uint32_t a[4], b[2];
  for (int reg = 0; reg < 4; ++reg)
    a[reg] = pack_bf16(mma_a_value(which, mma_m16n8k16_a(lane, 2 * reg)),
                       mma_a_value(which, mma_m16n8k16_a(lane, 2 * reg + 1)));
  for (int reg = 0; reg < 2; ++reg)
    b[reg] = pack_bf16(mma_b_value(which, sel, mma_m16n8k16_b(lane, 2 * reg)),
                       mma_b_value(which, sel, mma_m16n8k16_b(lane, 2 * reg + 1)));
  float d[4] = {0, 0, 0, 0};
  mma_m16n8k16_bf16(d, a, b[0], b[1]);
  for (int element = 0; element < 4; ++element) out[lane * 4 + element] = d[element];
}

int check_mma(int& checked) {
  DeviceBuffer<float> out(32 * 4, "mma output");
  std::vector<float> host(32 * 4);
  int failures = 0;
  struct Run {
    int which, sel;
    const char* what;
  } runs[] = {{0, 0, "A (B selects k 0-7)"}, {0, 1, "A (B selects k 8-15)"}, {1, 0, "B (A is the identity)"}};
  for (const Run& run : runs) {
    mma_kernel<<<1, 32>>>(run.which, run.sel, out.get());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    for (int lane = 0; lane < 32; ++lane)
      for (int element = 0; element < 4; ++element) {
        const FragmentCoord at = mma_m16n8k16_c(lane, element);
        const float expected = run.which == 0 ? static_cast<float>(16 * at.row + at.col + 8 * run.sel + 1)
                                              : static_cast<float>(8 * at.row + at.col + 1);
        const float got = host[lane * 4 + element];
        ++checked;
        if (got != expected && failures++ < kMaxReports)
          std::printf("FAIL mma.sync %s: lane %d d%d should be (%d, %d) = %.0f, holds %.0f\n", run.what, lane, element,
                      at.row, at.col, expected, got);
      }
  }
  return failures;
}

// ---- ldmatrix.x4 as kernel 02 uses it -----------------------------------------------------------------------

constexpr int kTileRows = 16, kTileK = 64;

// operand 0: A (ldmatrix_x4_a_source), 1: B (ldmatrix_x4_b_source). out[(step · 32 + lane) · 4 + register].
__global__ void ldmatrix_kernel(const uint16_t* tile, int operand, uint32_t* out) {
  __shared__ alignas(1024) uint16_t stage[kTileRows * kTileK];
  const int lane = threadIdx.x;
  for (int i = lane; i < kTileRows * kTileK; i += 32) {
    const int row = i / kTileK, k = i % kTileK;
    stage[(swizzled_chunk_offset(row, k / 8) + 2 * (k % 8)) / 2] = tile[i];
  }
  __syncthreads();
  const TileChunk source = operand == 0 ? ldmatrix_x4_a_source(lane) : ldmatrix_x4_b_source(lane);
  const uint32_t step0 = swizzled_chunk_offset(source.row, source.chunk);
  for (int step = 0; step < kTileK / 16; ++step) {
    uint32_t regs[4];
    ldmatrix_x4(regs, smem_address(stage) + swizzled_k_step(step0, step));
    for (int reg = 0; reg < 4; ++reg) out[(step * 32 + lane) * 4 + reg] = regs[reg];
  }
}

int check_ldmatrix(int& checked) {
  // Raw 16-bit values (ldmatrix moves bits): element (row, k) holds 64·row + k.
  std::vector<uint16_t> tile(kTileRows * kTileK);
  for (int i = 0; i < kTileRows * kTileK; ++i) tile[i] = static_cast<uint16_t>(i);
  DeviceBuffer<uint16_t> device_tile(tile.size(), "ldmatrix tile");
  DeviceBuffer<uint32_t> out(4 * 32 * 4, "ldmatrix output");
  CUDA_CHECK(cudaMemcpy(device_tile.get(), tile.data(), device_tile.bytes(), cudaMemcpyHostToDevice));
  std::vector<uint32_t> host(out.size());
  int failures = 0;
  for (int operand = 0; operand < 2; ++operand) {
    ldmatrix_kernel<<<1, 32>>>(device_tile.get(), operand, out.get());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    for (int step = 0; step < 4; ++step)
      for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < 4; ++reg)
          for (int half = 0; half < 2; ++half) {
            int row = 0, k = 0;  // the tile element mma.sync expects here
            if (operand == 0) {
              const FragmentCoord at = mma_m16n8k16_a(lane, 2 * reg + half);
              row = at.row, k = 16 * step + at.col;
            } else {  // registers 0-1: b[0..1] of n tile 0; 2-3: of n tile 1 (rows n + 8)
              const FragmentCoord at = mma_m16n8k16_b(lane, 2 * (reg % 2) + half);
              row = at.col + 8 * (reg / 2), k = 16 * step + at.row;
            }
            const uint32_t got = (host[(step * 32 + lane) * 4 + reg] >> (16 * half)) & 0xffffu;
            const uint32_t expected = static_cast<uint32_t>(kTileK * row + k);
            ++checked;
            if (got != expected && failures++ < kMaxReports)
              std::printf("FAIL ldmatrix %s step %d: lane %d register %d half %d should hold (%d, %d), holds (%u, %u)\n",
                          operand == 0 ? "A" : "B", step, lane, reg, half, row, k, got / kTileK, got % kTileK);
          }
  }
  return failures;
}

// ---- wgmma m64nNk16 -----------------------------------------------------------------------------------------

constexpr int kWgmmaSteps = 4;  // k16 steps of a 64-wide k block

// A(m, 16s + j) and B(n, 16s + j) for every step s: D(m, n) of step s = 256m + n + 16384s + 65536.
float wgmma_a_value(int m, int k) {
  const int j = k % 16;
  return j == 0 ? static_cast<float>(m) : (j == 1 || j == 2 || j == 8) ? 1.0f : 0.0f;
}
float wgmma_b_value(int n, int k) {
  const int s = k / 16, j = k % 16;
  return j == 0 ? 256.0f : j == 1 ? static_cast<float>(n) : j == 2 ? 16384.0f * s : j == 8 ? 65536.0f : 0.0f;
}

// out[(step · 128 + thread) · (N/2) + register]
template <int kN>
__global__ void __launch_bounds__(128, 1) wgmma_kernel(const uint16_t* a, const uint16_t* b, float* out) {
#if GEMM_SM90A_DEVICE_CODE
  __shared__ alignas(1024) uint16_t stage_a[64 * 64];
  __shared__ alignas(1024) uint16_t stage_b[kN * 64];
  // Stored as TMA's SWIZZLE_128B would: element (row, k) at swizzle_128b(128·row + 2k) of the aligned stage.
  for (int i = threadIdx.x; i < 64 * 64; i += 128) stage_a[swizzle_128b(2 * i) / 2] = a[i];
  for (int i = threadIdx.x; i < kN * 64; i += 128) stage_b[swizzle_128b(2 * i) / 2] = b[i];
  fence_proxy_async_shared();  // these generic-proxy stores must be visible to wgmma's (async proxy) reads
  __syncthreads();
  for (int step = 0; step < kWgmmaSteps; ++step) {
    float acc[kN / 2];
#pragma unroll
    for (int reg = 0; reg < kN / 2; ++reg) acc[reg] = 0.0f;
    wgmma_fence_operands(acc);
    wgmma_fence();
    const uint64_t descriptor_a = wgmma_descriptor_k_major_128b(smem_address(stage_a) + step * kKStepBytes);
    const uint64_t descriptor_b = wgmma_descriptor_k_major_128b(smem_address(stage_b) + step * kKStepBytes);
    if constexpr (kN == 128)
      wgmma_m64n128k16(acc, descriptor_a, descriptor_b, false);
    else
      wgmma_m64n256k16(acc, descriptor_a, descriptor_b, false);
    wgmma_commit_group();
    wgmma_wait_group<0>();
    wgmma_fence_operands(acc);
#pragma unroll
    for (int reg = 0; reg < kN / 2; ++reg) out[(step * 128 + threadIdx.x) * (kN / 2) + reg] = acc[reg];
  }
#endif
}

template <int kN>
int check_wgmma(int& checked) {
  std::vector<uint16_t> a(64 * 64), b(kN * 64);
  for (int m = 0; m < 64; ++m)
    for (int k = 0; k < 64; ++k) a[m * 64 + k] = bf16_bits(wgmma_a_value(m, k));
  for (int n = 0; n < kN; ++n)
    for (int k = 0; k < 64; ++k) b[n * 64 + k] = bf16_bits(wgmma_b_value(n, k));
  DeviceBuffer<uint16_t> device_a(a.size(), "wgmma A"), device_b(b.size(), "wgmma B");
  DeviceBuffer<float> out(static_cast<size_t>(kWgmmaSteps) * 128 * (kN / 2), "wgmma output");
  CUDA_CHECK(cudaMemcpy(device_a.get(), a.data(), device_a.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(device_b.get(), b.data(), device_b.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(out.get(), 0xff, out.bytes()));  // NaN: an unwritten register cannot pass
  wgmma_kernel<kN><<<1, 128>>>(device_a.get(), device_b.get(), out.get());
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> host(out.size());
  CUDA_CHECK(cudaMemcpy(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
  int failures = 0;
  for (int step = 0; step < kWgmmaSteps; ++step)
    for (int thread = 0; thread < 128; ++thread)
      for (int reg = 0; reg < kN / 2; ++reg) {
        const FragmentCoord at = wgmma_m64_accumulator(thread / 32, thread % 32, reg);
        const float expected = 65536.0f + 16384.0f * step + 256.0f * at.row + at.col;
        const float got = host[(static_cast<size_t>(step) * 128 + thread) * (kN / 2) + reg];
        ++checked;
        if (got != expected && failures++ < kMaxReports) {
          const long value = static_cast<long>(got);
          std::printf("FAIL wgmma m64n%dk16 step %d: thread %d d%d should be (%d, %d) = %.0f, holds %.0f "
                      "(step %ld, row %ld, column %ld%s)\n",
                      kN, step, thread, reg, at.row, at.col, expected, got, value % 65536 / 16384, value % 16384 / 256,
                      value % 256, value >= 65536 ? "" : ", without the second chunk");
        }
      }
  return failures;
}

int run() {
  GpuInfo gpu;
  try {
    gpu = select_gpu_or_skip();
  } catch (const UsageError& no_code) {  // this build has no code for the GPU
    throw SkipTest(no_code.what());
  }
  const bool sm90a = gpu.cc_major == 9 && gpu.cc_minor == 0;
  const bool sm100a = gpu.cc_major == 10 && gpu.cc_minor == 0;
  if (!sm90a && !sm100a) throw SkipTest("this build has code for sm_90a and sm_100a only");
  int checked = 0;
  int failures = check_mma(checked);
  failures += check_ldmatrix(checked);
  if (sm90a) {
    failures += check_wgmma<128>(checked);
    failures += check_wgmma<256>(checked);
  } else {
    std::printf("wgmma: not checked (sm_90a only)\n");
  }
  if (failures) {
    std::printf("%d of %d values misplaced\n", failures, checked);
    return 1;
  }
  std::printf("%d values: mma.sync, ldmatrix%s match common/fragment_layout.h\n", checked, sm90a ? " and wgmma" : "");
  return 0;
}

}  // namespace
}  // namespace gemm

int main() { return gemm::gpu_test_main("fragment_layout_test", gemm::run); }
