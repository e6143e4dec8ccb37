#include "runner/validate.h"

#include <algorithm>
#include <bit>
#include <iomanip>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string_view>
#include <vector>

#include "common/cuda_check.h"
#include "runner/device.h"
#include "runner/random.h"
#include "runner/sampled_sums.h"
#include "runner/watchdog.h"

namespace gemm {
namespace {

struct DeviceTotals {
  unsigned long long counts[static_cast<int>(ElementStatus::kCount)];
  unsigned long long first_failure;  // linear index; ULLONG_MAX when none
  unsigned long long first_stray;    // index into the guard band (before, then after); ULLONG_MAX when none
  unsigned int max_abs_err_bits;     // non-negative floats order like their bit patterns
  unsigned int max_rel_err_bits;
  double sum_sq_diff;
  double sum_sq_ref;
  unsigned long long bias_count;  // the bias statistic (runner/tolerance.h): elements, sum of e, sum of e²
  double bias_sum;
  double bias_sum_of_squares;
};

__device__ inline float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}
__device__ inline double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
__device__ inline unsigned long long warp_sum(unsigned long long v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
__device__ inline unsigned long long warp_min(unsigned long long v) {
  for (int offset = 16; offset > 0; offset /= 2) v = min(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__global__ void compare_kernel(const bf16* c, const bf16* reference, size_t count, double atol, double rel_tol,
                               DeviceTotals* totals) {
  unsigned long long counts[static_cast<int>(ElementStatus::kCount)] = {};
  unsigned long long first_failure = ~0ull;
  float max_abs = 0, max_rel = 0;
  double sum_sq_diff = 0, sum_sq_ref = 0;
  BiasSums bias;
  // Every thread runs the same number of iterations so the warp reductions below see full warps.
  const size_t stride = size_t{gridDim.x} * blockDim.x;
  for (size_t base = size_t{blockIdx.x} * blockDim.x; base < count; base += stride) {
    const size_t i = base + threadIdx.x;
    if (i >= count) continue;
    const uint16_t bits = __bfloat16_as_ushort(c[i]);
    const float value = __bfloat162float(c[i]);
    const float expected = __bfloat162float(reference[i]);
    const ElementStatus status = classify_element(bits, value, expected, atol, rel_tol);
#pragma unroll
    for (int s = 0; s < static_cast<int>(ElementStatus::kCount); ++s)  // constant indices: stays in registers
      counts[s] += static_cast<int>(status) == s;
    if (status != ElementStatus::kOk) first_failure = min(first_failure, static_cast<unsigned long long>(i));
    if (isfinite(value) && isfinite(expected)) {
      const float diff = fabsf(value - expected);
      max_abs = fmaxf(max_abs, diff);
      const float tolerance = static_cast<float>(element_tolerance(expected, atol, rel_tol));
      max_rel = fmaxf(max_rel, tolerance > 0 ? diff / tolerance : (diff > 0 ? INFINITY : 0.0f));
      sum_sq_diff += static_cast<double>(diff) * diff;
      sum_sq_ref += static_cast<double>(expected) * expected;
    }
    double error = 0;
    if (signed_step_error(value, expected, error)) bias.add(error);  // leaves out NaN (the poison too), Inf, R = 0
  }
  const bool leader = threadIdx.x % 32 == 0;
#pragma unroll
  for (int s = 0; s < static_cast<int>(ElementStatus::kCount); ++s) {
    const unsigned long long total = warp_sum(counts[s]);
    if (leader && total) atomicAdd(&totals->counts[s], total);
  }
  first_failure = warp_min(first_failure);
  max_abs = warp_max(max_abs);
  max_rel = warp_max(max_rel);
  sum_sq_diff = warp_sum(sum_sq_diff);
  sum_sq_ref = warp_sum(sum_sq_ref);
  const unsigned long long bias_count = warp_sum(static_cast<unsigned long long>(bias.count));
  const double bias_sum = warp_sum(bias.sum), bias_sum_of_squares = warp_sum(bias.sum_of_squares);
  if (leader) {
    if (first_failure != ~0ull) atomicMin(&totals->first_failure, first_failure);
    atomicMax(&totals->max_abs_err_bits, __float_as_uint(max_abs));
    atomicMax(&totals->max_rel_err_bits, __float_as_uint(max_rel));
    atomicAdd(&totals->sum_sq_diff, sum_sq_diff);
    atomicAdd(&totals->sum_sq_ref, sum_sq_ref);
    if (bias_count) {
      atomicAdd(&totals->bias_count, bias_count);
      atomicAdd(&totals->bias_sum, bias_sum);
      atomicAdd(&totals->bias_sum_of_squares, bias_sum_of_squares);
    }
  }
}

// Counts the guard-band elements that no longer hold the poison: writes outside C.
__global__ void guard_kernel(const bf16* before, const bf16* after, size_t guard, DeviceTotals* totals) {
  unsigned long long stray = 0, first = ~0ull;
  const size_t stride = size_t{gridDim.x} * blockDim.x;
  for (size_t base = size_t{blockIdx.x} * blockDim.x; base < 2 * guard; base += stride) {
    const size_t i = base + threadIdx.x;
    if (i >= 2 * guard) continue;
    const bf16 element = i < guard ? before[i] : after[i - guard];
    if (__bfloat16_as_ushort(element) != kPoisonBits) {
      ++stray;
      first = min(first, static_cast<unsigned long long>(i));
    }
  }
  stray = warp_sum(stray);
  first = warp_min(first);
  if (threadIdx.x % 32 == 0 && stray) {
    atomicAdd(&totals->counts[static_cast<int>(ElementStatus::kOutOfBounds)], stray);
    atomicMin(&totals->first_stray, first);
  }
}

uint16_t read_bits(const bf16* matrix, size_t index) {
  return __bfloat16_as_ushort(copy_element_to_host(matrix + index));
}

float bf16_bits_to_float(uint16_t bits) { return std::bit_cast<float>(uint32_t{bits} << 16); }

// Rows or columns to sample: the first, the last, and up to `extra` random ones.
std::vector<int> sample_indices(int extent, int extra, std::mt19937_64& rng) {
  std::vector<int> indices = {0, extent - 1};
  for (int i = 0; i < extra; ++i) indices.push_back(static_cast<int>(uniform_int(rng, 0, extent - 1)));
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}

// `count` elements of row `row` of a K-column matrix, from column `first` on, as doubles into `out`.
void copy_row_part(const bf16* matrix, int row, int K, int64_t first, int count, double* out) {
  std::vector<bf16> bits(static_cast<size_t>(count));
  CUDA_CHECK(cudaMemcpy(bits.data(), matrix + static_cast<size_t>(row) * K + first, count * sizeof(bf16),
                        cudaMemcpyDeviceToHost));
  std::transform(bits.begin(), bits.end(), out, [](bf16 v) { return double(__bfloat162float(v)); });
}

constexpr int kSampledExtraRows = 14;  // 16 rows × 16 columns = 256 samples at most, corners included
// The checks above take milliseconds; the limit only guards against a GPU left wedged by the kernel.
constexpr double kValidationTimeLimit = kHangSlackSeconds;

}  // namespace

std::string ElementReport::describe() const {
  std::ostringstream text;
  if (status == ElementStatus::kOutOfBounds) {
    text << "a write " << (outside < 0 ? -outside : outside) << (outside < 0 ? " elements before the start of C"
                                                                              : " elements past the end of C");
    return text.str();
  }
  text << matrix << "[" << row << ", " << col << "] = " << value << " (" << element_status_name(status) << "), expected "
       << expected;
  return text.str();
}

uint64_t Validation::failures() const {
  uint64_t total = 0;
  for (size_t s = 1; s < counts.size(); ++s) total += counts[s];
  return total;
}

void StrayWrites::record(const char* matrix, uint64_t changes, uint64_t first_index, int row_length, float value,
                         float expected) {
  if (changes == 0) return;
  if (count == 0) {
    first.matrix = matrix;
    first.row = static_cast<int64_t>(first_index / static_cast<uint64_t>(row_length));
    first.col = static_cast<int64_t>(first_index % static_cast<uint64_t>(row_length));
    first.value = value;
    first.expected = expected;
    first.status = ElementStatus::kWrong;
  }
  count += changes;
}

std::string StrayWrites::summary() const {
  if (count == 0) return "";
  const bool reference = std::string_view(first.matrix) == "R";
  std::ostringstream text;
  text << culprit << (reference ? " wrote into the reference R: " : " wrote into its inputs: ") << count
       << (reference ? " elements of R changed; first " : " elements of A and B changed; first ") << first.matrix
       << "[" << first.row << ", " << first.col << "] = " << first.value
       << (reference ? ", the reference held " : ", the runner wrote ") << first.expected;
  return text.str();
}

std::string stray_writes_summary(const StrayWrites& input_writes, const StrayWrites& reference_writes) {
  const std::string inputs = input_writes.summary(), reference = reference_writes.summary();
  return inputs + (!inputs.empty() && !reference.empty() ? "; also " : "") + reference;
}

std::string Validation::failure_summary() const {
  std::ostringstream text;
  // Writes into A, B or R are the cause of anything else wrong: say them first.
  const std::string strays = stray_writes_summary(input_writes, reference_writes);
  if (!strays.empty()) {
    text << strays;
    if (failures() == 0 && sample_kernel_failures == 0 && !reference_failed() && !bias.failed()) return text.str();
    text << "; also ";
  }
  if (reference_failed()) {  // then nothing can be judged against it: say so first
    text << "the cuBLAS reference disagrees with fp64 at " << sample_reference_failures << " of " << samples
         << " samples; first " << first_reference_failure.describe();
  } else if (failures() > 0) {
    text << failures() << " wrong elements (";
    bool first = true;
    for (size_t s = 1; s < counts.size(); ++s) {
      if (!counts[s]) continue;
      text << (first ? "" : ", ") << counts[s] << " " << element_status_name(static_cast<ElementStatus>(s));
      first = false;
    }
    text << "); first " << first_failure.describe();
    if (max_rel_err > 0 && std::isfinite(max_rel_err))  // infinite with exact inputs: their tolerance is 0
      text << "; max error " << std::setprecision(3) << max_rel_err << "x the tolerance";
  } else if (sample_kernel_failures > 0) {
    text << sample_kernel_failures << " of " << samples << " fp64 samples wrong; first "
         << first_sample_failure.describe();
  }
  // Against a reference that disagrees with fp64 the bias says nothing about C. Otherwise it is said last: where
  // elements failed it is at most a consequence of theirs, and where none did it is the whole finding.
  if (bias.failed() && !reference_failed()) {
    if (failures() > 0 || sample_kernel_failures > 0) text << "; also ";
    text << bias_summary(bias);
  }
  return text.str();
}

std::string bias_summary(const BiasVerdict& bias) {
  const bool scaled = std::fabs(bias.mean) > kBiasScaledBeyond;  // further than a rounding mode moves C
  const char* diagnosis = bias.mean < 0 ? (scaled ? "scaled down?" : "rounding toward zero?")
                                        : (scaled ? "scaled up?" : "rounding away from zero?");
  std::ostringstream text;
  text << std::showpos << std::fixed << std::setprecision(2) << "C is biased by " << bias.mean
       << " steps on average" << std::noshowpos << " (bf16 steps of R, positive away from zero, over " << bias.count
       << " elements; spread " << bias.spread << "; a correct kernel stays within +-" << std::setprecision(3)
       << bias.bound << "): " << diagnosis;
  return text.str();
}

Validation validate(const GemmProblem& problem, const bf16* reference, size_t guard_elements, uint64_t sample_seed,
                    cudaStream_t stream, InputKind inputs) {
  const size_t count = static_cast<size_t>(problem.m) * problem.n;
  const bool exact_inputs = inputs == InputKind::kExact;
  const double atol = exact_inputs ? 0 : absolute_tolerance(problem.k);
  const double rel_tol = exact_inputs ? 0 : kRelTol;
  Validation result;

  DeviceBuffer<DeviceTotals> totals(1, "validation totals");
  DeviceTotals initial{};
  initial.first_failure = ~0ull;
  initial.first_stray = ~0ull;
  CUDA_CHECK(cudaMemcpyAsync(totals.get(), &initial, sizeof initial, cudaMemcpyHostToDevice, stream));
  compare_kernel<<<1024, 256, 0, stream>>>(problem.c, reference, count, atol, rel_tol, totals.get());
  check_launch("compare_kernel");
  if (guard_elements > 0) {
    guard_kernel<<<64, 256, 0, stream>>>(problem.c - guard_elements, problem.c + count, guard_elements, totals.get());
    check_launch("guard_kernel");
  }
  DeviceTotals host{};
  CUDA_CHECK(cudaMemcpyAsync(&host, totals.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  wait_for_stream(stream, kValidationTimeLimit);

  for (size_t s = 0; s < result.counts.size(); ++s) result.counts[s] = host.counts[s];
  result.max_abs_err = std::bit_cast<float>(host.max_abs_err_bits);
  result.max_rel_err = std::bit_cast<float>(host.max_rel_err_bits);
  result.rel_l2_err = host.sum_sq_ref > 0 ? std::sqrt(host.sum_sq_diff / host.sum_sq_ref) : std::sqrt(host.sum_sq_diff);
  result.bias = judge_bias({host.bias_count, host.bias_sum, host.bias_sum_of_squares}, problem.k);
  if (host.first_failure != ~0ull) {
    ElementReport& bad = result.first_failure;
    bad.row = static_cast<int64_t>(host.first_failure / problem.n);
    bad.col = static_cast<int64_t>(host.first_failure % problem.n);
    const uint16_t bits = read_bits(problem.c, host.first_failure);
    bad.value = bf16_bits_to_float(bits);
    bad.expected = bf16_bits_to_float(read_bits(reference, host.first_failure));
    bad.status = classify_element(bits, bad.value, bad.expected, atol, rel_tol);
  } else if (host.first_stray != ~0ull) {
    ElementReport& stray = result.first_failure;
    stray.status = ElementStatus::kOutOfBounds;
    stray.outside = host.first_stray < guard_elements ? static_cast<int64_t>(host.first_stray) -
                                                            static_cast<int64_t>(guard_elements)
                                                      : static_cast<int64_t>(host.first_stray - guard_elements) + 1;
  }

  // fp64 reference at sampled positions: exact products, double sums.
  std::mt19937_64 rng(sample_seed);
  const std::vector<int> rows = sample_indices(problem.m, kSampledExtraRows, rng);
  const std::vector<int> cols = sample_indices(problem.n, kSampledExtraRows, rng);
  BiasSums sample_bias_kernel, sample_bias_reference;
  // Streamed a chunk of K at a time: bounded host memory at any K (runner/sampled_sums.h).
  const std::vector<double> exact_sums = sampled_dot_products(
      rows, cols, problem.k, [&](SampledMatrix matrix, int row, int64_t first, int count, double* out) {
        copy_row_part(matrix == SampledMatrix::kA ? problem.a : problem.b, row, problem.k, first, count, out);
      });
  for (size_t i = 0; i < rows.size(); ++i) {
    const int row = rows[i];
    for (size_t j = 0; j < cols.size(); ++j) {
      const int col = cols[j];
      const double exact = exact_sums[i * cols.size() + j];
      // Exact inputs: `exact` is an integer below 2^24, which a float holds; C and R must be its bf16.
      const double expected =
          exact_inputs ? static_cast<double>(__bfloat162float(__float2bfloat16_rn(static_cast<float>(exact)))) : exact;
      const size_t index = static_cast<size_t>(row) * problem.n + col;
      ++result.samples;
      // The kernel's element first, then the reference's: the first failure seen is the one reported.
      for (const bf16* matrix : {static_cast<const bf16*>(problem.c), reference}) {
        const uint16_t bits = read_bits(matrix, index);
        const bool of_reference = matrix == reference;
        double error = 0;
        if (signed_step_error(bf16_bits_to_float(bits), exact, error))
          (of_reference ? sample_bias_reference : sample_bias_kernel).add(error);
        const ElementStatus status = classify_element(bits, bf16_bits_to_float(bits), expected, atol, rel_tol);
        if (status == ElementStatus::kOk) continue;
        int& failures = of_reference ? result.sample_reference_failures : result.sample_kernel_failures;
        if (failures++ == 0) {
          ElementReport& first = of_reference ? result.first_reference_failure : result.first_sample_failure;
          first.row = row;
          first.col = col;
          first.value = bf16_bits_to_float(bits);
          first.expected = expected;
          first.status = status;
          first.matrix = of_reference ? "R" : "C";
        }
      }
    }
  }
  result.sample_bias_kernel = judge_bias(sample_bias_kernel, problem.k);
  result.sample_bias_reference = judge_bias(sample_bias_reference, problem.k);
  return result;
}

}  // namespace gemm
