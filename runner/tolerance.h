// How a result is judged. The constants live here and nowhere else, and they never move to make a kernel
// pass (docs/design.md). classify_element is __host__ __device__: the GPU checker and the host tests use the
// same code.
//
// Inputs are uniform in [-1, 1) (rounded to bf16), so each output is a sum of K products with mean 0 and
// variance E[a²]·E[b²] = 1/9 each: its natural scale is σ_K = sqrt(K)/3. An element passes when
//
//     |C − R| ≤ kRelTol·|R| + atol(K)
//
//   kRelTol = 2⁻⁶: bf16 keeps 8 significant bits, so its ulp is 2⁻⁷..2⁻⁸ of the value; 2⁻⁶ is two ulps,
//     room for two fp32 sums in different orders that round to neighbouring bf16 values.
//   atol(K) = kAbsTolFraction·σ_K + accumulation(K): only matters for outputs near zero, where a relative
//     bound is meaningless.
//     - kAbsTolFraction·σ_K: fp32 reordering moves a sum by ~1e-5 of its scale; 2⁻¹⁰ of the scale leaves a
//       wide margin and is far below what a missed 16-deep k slice moves an element by, ~sqrt(16)/3 ≈ 1.3,
//       up to K ≈ 2²².
//     - accumulation(K): the error of the kernel's own fp32 accumulation, which grows faster than σ_K.
//       A tensor-core kernel adds K/16 partial products into one fp32 accumulator in sequence (one k16 step
//       each). Step j rounds the running sum S_j, an error of up to one fp32 ulp of S_j, u·|S_j| with
//       u = 2⁻²³, and the tensor cores' adder does not round to nearest (it truncates), so these errors do
//       not cancel like a random walk: they add up. After j steps S_j has the scale σ_16j = (4/3)·sqrt(j),
//       so over n = ⌈K/16⌉ steps the error is about u·Σ_j σ_16j = u·(4/3)·Σ_j sqrt(j) ≈ u·(4/3)·(2/3)·n^1.5:
//       it grows as K^1.5, against σ_K's K^0.5. kAccumulationMargin covers the elements whose running sum
//       wanders furthest (a few σ) among millions. At K = 4096 the term is 0.002 (σ_K = 21); at K = 2²⁰ it
//       is about 7 (σ_K = 341), where without it kernels 02 and 05 failed on 50 elements that cuBLAS (which
//       splits K) passed. Measured on an H100 (2 seeds each): the worst element of kernels 02-09, which all
//       accumulate in the same order, used 0.45, 0.44 and 0.34 of this tolerance at K = 2¹⁶, 2¹⁸ and 2²⁰
//       (kernel 01, fp32 FMA: 0.44, 0.38, 0.30).
//     The price: atol(K) is 0.2 at K = 2¹⁶, 1.1 at 2¹⁸, 7.4 at 2²⁰ and 57 at 2²², so from K ≈ 2¹⁸ on the
//     accumulation term, not 2⁻¹⁰·σ_K, decides what is caught. A kernel that skips one k16 step (or even 64
//     columns of K) moves elements by about 1.3-2.7 and can pass at K = 2²⁰ (a host replay of this
//     classifier with the runner's inputs: 0 of 4096 elements failed with 16 columns dropped at K = 2²⁰ + 16,
//     4 of 4096 with 64); up to K ≈ 2¹⁷ (atol 0.43) it fails on a large share of its elements. At K beyond
//     about 2¹⁸ random inputs catch gross errors only; exact inputs (below) catch the rest.
// NaN, Inf, the poison pattern (an element the kernel never wrote) and a write into the guard band around C
// always fail.
//
// Exact inputs (`gemm check --inputs exact`) close the gap at large K: A and B hold only −1, 0 and 1, so every
// product and every partial sum is an integer of magnitude ≤ K, exact in fp32 for K < 2²⁴ whatever the order
// of the additions and however the tensor cores round. C must then equal bf16(the exact sum), the reference's
// value, bit for bit (tolerance 0), and a kernel that skips a k16 step changes elements by a few units, which
// survive bf16 rounding in a large share of them.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include <cmath>
#include <cstdint>

namespace gemm {

constexpr double kRelTol = 1.0 / 64;           // 2^-6
constexpr double kAbsTolFraction = 1.0 / 1024;  // 2^-10 of sqrt(K)/3
constexpr double kInputMeanSquare = 1.0 / 3;    // E[x²] for x uniform in [-1, 1)
constexpr double kAccumulatorUlp = 1.0 / 8388608;  // 2^-23: one ulp of an fp32 value in [1, 2)
constexpr int kAccumulationStep = 16;              // k per tensor-core step (mma.sync m16n8k16, wgmma k16)
constexpr double kAccumulationMargin = 4;

// C is filled with this NaN before every validated run. Arithmetic never produces it (the GPU's NaNs are
// 0x7fff), so an element still holding it was never written.
constexpr uint16_t kPoisonBits = 0x7fa5;

// The scale of an output: sqrt(K · E[a²] · E[b²]).
inline double output_scale(double k) { return std::sqrt(k) * kInputMeanSquare; }

// u · Σ_{j=1..n} σ_16j with σ_16j = (4/3)·sqrt(j), n = ⌈K/16⌉; Σ sqrt(j) ≤ (2/3)·n^1.5 + sqrt(n)/2.
inline double accumulation_error(int k) {
  const double steps = std::ceil(static_cast<double>(k) / kAccumulationStep);
  const double sum_of_sqrt = 2.0 / 3.0 * std::pow(steps, 1.5) + 0.5 * std::sqrt(steps);
  return kAccumulationMargin * kAccumulatorUlp * output_scale(kAccumulationStep) * sum_of_sqrt;
}

inline double absolute_tolerance(int k) { return kAbsTolFraction * output_scale(k) + accumulation_error(k); }

// The inputs a check fills A and B with: uniform in [-1, 1) (the default, what every kernel is timed on), or
// exact: −1, 0 or 1, each a third of the time.
enum class InputKind { kUniform, kExact };
// Exact sums stay integers in fp32 below 2^24: the deepest K the exact check takes.
constexpr int kMaxExactK = 1 << 24;

// The error bound of one element: an element passes when |C − R| ≤ element_tolerance(R, atol). With exact
// inputs (below) both terms are 0: the element must equal the reference.
__host__ __device__ inline double element_tolerance(double reference, double atol, double rel_tol = kRelTol) {
  return rel_tol * (reference < 0 ? -reference : reference) + atol;
}

enum class ElementStatus : uint8_t { kOk = 0, kWrong, kNaN, kInf, kUnwritten, kOutOfBounds, kCount };

inline const char* element_status_name(ElementStatus status) {
  switch (status) {
    case ElementStatus::kOk: return "ok";
    case ElementStatus::kWrong: return "wrong";
    case ElementStatus::kNaN: return "NaN";
    case ElementStatus::kInf: return "Inf";
    case ElementStatus::kUnwritten: return "unwritten";
    case ElementStatus::kOutOfBounds: return "out of bounds";
    default: return "?";
  }
}

// Portable between host and device compilers (no std:: in device code, no CUDA overloads on the host).
__host__ __device__ inline bool is_nan(float value) { return value != value; }
__host__ __device__ inline bool is_inf(float value) { return !is_nan(value) && is_nan(value - value); }

// `bits` is the raw bf16 of the result, `value` the same widened to float, `reference` the expected value.
__host__ __device__ inline ElementStatus classify_element(uint16_t bits, float value, double reference, double atol,
                                                          double rel_tol = kRelTol) {
  if (bits == kPoisonBits) return ElementStatus::kUnwritten;
  if (is_nan(value)) return ElementStatus::kNaN;
  if (is_inf(value)) return ElementStatus::kInf;
  if (!(reference - reference == 0)) return ElementStatus::kWrong;  // a NaN or Inf reference: nothing can match it
  const double error = static_cast<double>(value) - reference;
  const double bound = element_tolerance(reference, atol, rel_tol);
  if (!(error <= bound && -error <= bound)) return ElementStatus::kWrong;
  return ElementStatus::kOk;
}

}  // namespace gemm
