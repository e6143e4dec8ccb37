// How a result is judged. The constants live here and nowhere else, and they never move to make a kernel
// pass (docs/design.md). classify_element is __host__ __device__: the GPU checker and the host tests use the
// same code.
//
// Inputs are uniform in [-1, 1) (rounded to bf16), so each output is a sum of K products with mean 0 and
// variance 1/9: its natural scale is sqrt(K)/3. An element passes when
//
//     |C − R| ≤ kRelTol·|R| + atol(K),    atol(K) = kAbsTolFraction · sqrt(K) / 3
//
//   kRelTol = 2⁻⁶: bf16 keeps 8 significant bits, so its ulp is 2⁻⁷..2⁻⁸ of the value; 2⁻⁶ is two ulps,
//     room for two fp32 sums in different orders that round to neighbouring bf16 values.
//   atol: only matters for outputs near zero, where a relative bound is meaningless. fp32 reordering moves a
//     sum by ~1e-5 of its scale; 2⁻¹⁰ of the scale leaves a wide margin and still catches any real bug
//     (a missed 16-deep k slice moves an element by ~sqrt(16)/3, far more).
// NaN, Inf, and the poison pattern (an element the kernel never wrote) always fail.
#pragma once

#include <cmath>
#include <cstdint>

namespace gemm {

constexpr double kRelTol = 1.0 / 64;           // 2^-6
constexpr double kAbsTolFraction = 1.0 / 1024;  // 2^-10 of sqrt(K)/3
constexpr double kInputMeanSquare = 1.0 / 3;    // E[x²] for x uniform in [-1, 1)

// C is filled with this NaN before every validated run. Arithmetic never produces it (the GPU's NaNs are
// 0x7fff), so an element still holding it was never written.
constexpr uint16_t kPoisonBits = 0x7fa5;

inline double absolute_tolerance(int k) { return kAbsTolFraction * std::sqrt(static_cast<double>(k)) * kInputMeanSquare; }

enum class ElementStatus : uint8_t { kOk = 0, kWrong, kNaN, kInf, kUnwritten, kCount };

inline const char* element_status_name(ElementStatus status) {
  switch (status) {
    case ElementStatus::kOk: return "ok";
    case ElementStatus::kWrong: return "wrong";
    case ElementStatus::kNaN: return "NaN";
    case ElementStatus::kInf: return "Inf";
    case ElementStatus::kUnwritten: return "unwritten";
    default: return "?";
  }
}

// Portable between host and device compilers (no std:: in device code, no CUDA overloads on the host).
__host__ __device__ inline bool is_nan(float value) { return value != value; }
__host__ __device__ inline bool is_inf(float value) { return !is_nan(value) && is_nan(value - value); }

// `bits` is the raw bf16 of the result, `value` the same widened to float, `reference` the expected value.
__host__ __device__ inline ElementStatus classify_element(uint16_t bits, float value, double reference, double atol) {
  if (bits == kPoisonBits) return ElementStatus::kUnwritten;
  if (is_nan(value)) return ElementStatus::kNaN;
  if (is_inf(value)) return ElementStatus::kInf;
  if (!(reference - reference == 0)) return ElementStatus::kWrong;  // a NaN or Inf reference: nothing can match it
  const double error = static_cast<double>(value) - reference;
  const double magnitude = reference < 0 ? -reference : reference;
  if (!(error <= kRelTol * magnitude + atol && -error <= kRelTol * magnitude + atol)) return ElementStatus::kWrong;
  return ElementStatus::kOk;
}

}  // namespace gemm
