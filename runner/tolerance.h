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
//
// The bias check. The elementwise bound allows two to three bf16 steps, so it cannot see a kernel that is one
// step off in the same direction all over C: one that converts fp32 to bf16 by truncation instead of round-to-
// nearest (about half of C one step nearer zero), or one that scales its output by 1 + 2⁻⁷. Over all of C the
// check takes, for each element,
//
//     e = (C − R)·sign(R) / step(R),   clipped to ±kBiasClip,
//
// step(R) the spacing of bf16 values at |R|: 2^(E−7) for |R| in [2^E, 2^(E+1)), and 2⁻¹³³, bf16's subnormal
// spacing, below 2⁻¹²⁶. Elements where R = 0 (no sign to measure against) or C or R is not finite are left out
// (those last fail elementwise anyway). e < 0 means C lies nearer zero than R. The mean of e over the N elements
// left, and its spread (standard deviation), are the verdict's measure: |mean| ≤ bias_bound(N, spread, K) passes.
//
//   What the faults give. Truncation moves each element whose fp32 value round-to-nearest took away from zero
//   (half of them) one step toward zero: mean −0.5 (a little less where R is a power of two, since the step
//   below it is half R's). Scaling by 1 + 2⁻⁷ moves an element of significand m (128 ≤ m < 256, R = m·step) by
//   m/128 steps, rounded to a whole step: one for m < 192, two from there: mean ≈ +1.4. A mean of magnitude up
//   to kBiasScaledBeyond therefore reads as a rounding mode ("rounding toward zero?", "rounding away from
//   zero?"), a larger one as a scale ("scaled down?", "scaled up?").
//
//   What a correct kernel gives. C and R both round an fp32 sum to nearest; they differ only where the two sums
//   straddle a rounding boundary, a step up as often as a step down. Three things move the mean off 0:
//   - Chance. e is mostly 0 or ±1, and the mean of N values has a standard error of spread/√N. Elements that
//     share a row of A or a column of B are not independent draws, so the bound counts N/kBiasCorrelation of them
//     and allows kBiasSigmas standard errors: kBiasSigmas·spread·sqrt(kBiasCorrelation/N). The spread is the
//     one measured on the same C; a few elements far off do not move a mean that stands out from it (clipped,
//     each weighs at most kBiasClip/N), and a mean built from a sparse k of N elements, all off by one step the
//     same way, is k/N against a bound of at least kBiasFloor + kBiasSigmas·sqrt(kBiasCorrelation·k)/N: it fails
//     only where k is a sizeable share of C, which is a bias.
//   - The tensor cores' accumulation, which does not round to nearest: the fp32 sum of each step is truncated
//     (Fasi et al., "Numerical behavior of NVIDIA tensor cores", 2021). Step j of n = ⌈K/16⌉ leaves the
//     running sum S_j nearer zero than the exact one by a fraction U_j (uniform in [0, 1)) of an fp32 ulp:
//     E[error_j] = −½·ulp32(S_j)·sign(S_j) = −½·c·2⁻²³·S_j, c = E[2^⌊log2|x|⌋ / |x|] = 1/(2·ln 2) for
//     significands spread logarithmically. The errors add up, so the final sum is off by −½·c·2⁻²³·Σ_j S_j. In
//     steps of the result's bf16 value, 2⁻⁷·|S_n|/c' (c' = E[|x| / 2^⌊log2|x|⌋] = 1/ln 2), and signed by
//     sign(S_n): e = −½·c·c'·2⁻¹⁶·Σ_j S_j/S_n. A sum of independent steps has E[S_j | S_n] = (j/n)·S_n, hence
//         E[e] = −½·c·c'·2⁻¹⁶·(n + 1)/2 = −(n + 1)·2⁻¹⁶ / (8·ln²2) ≈ −n·2⁻¹⁸      (accumulation_bias)
//     independent of M and N: −0.0010 steps at K = 4096, −0.016 at 2¹⁶, −0.065 at 2¹⁸, −0.26 at 2²⁰. Simulated on
//     the host against an fp32 sum in K order rounded to nearest (tests/host/test_bias.cpp; 4000 elements at 2¹⁶,
//     300 at 2²⁰): −0.016 at 2¹⁶, −0.21 at 2²⁰ (clipping takes a little off). A reference that accumulates the same
//     way cancels it; one that splits K (cuBLAS at small M·N and deep K) carries less of it, one that rounds to
//     nearest (kernel 01's FMA, the simple reference) none: C − R may carry up to the larger of the two either way.
//     Measured on an H200 (below) the kernels' bias against fp64 is 0.6 to 1.2 times the model; the bound allows
//     kBiasAccumulationMargin times it, for hardware that rounds more often than once per k16 (tcgen05, the sm_100a
//     kernels, is not measured).
//   - Elements near zero, where step(R) is tiny and the sums' own rounding is many steps: clipped to ±kBiasClip,
//     they weigh what their share of C is.
//   kBiasFloor covers what the model leaves out (the order of the tensor cores' additions inside a step, ties);
//   measured, no correct kernel's mean exceeded 0.0005 at K ≤ 4096, a hundredth of it.
//   In all: bias_bound = kBiasFloor + kBiasAccumulationMargin·|accumulation_bias(K)| + kBiasSigmas·spread·
//   sqrt(kBiasCorrelation/N): 0.05 + 0.0003 + 0.023 = 0.073 at 256 × 256 × 512 for a truncating kernel (spread
//   0.5); 0.05 + 0.52 + 0.03 = 0.60 at 256 × 256 × 2²⁰ (spread 0.64).
//   Below kBiasMinElements elements the spread is too poorly known to judge a mean by, and no verdict is given
//   (the suite's 1 × 1 × 1, say); every shape the fault tests use has more.
//
//   What it catches. Truncation's −0.5 wherever the bound stays below it: every K up to about 2¹⁸ on C of a
//   thousand elements or more (on the fewest judged, 256, the bound is 0.43), and a scale of 1 + 2⁻⁷ at any K;
//   part of C truncated (one warpgroup's tiles, the edge tiles) from about a tenth of C at small K (two fifths
//   at K = 2¹⁸), part of it scaled from a twentieth. At K = 2²⁰ a truncating tensor-core kernel would show the
//   accumulation's −0.17 and the conversion's −0.5 together, beyond the bound of 0.60 but not by a margin to
//   count on; exact inputs catch truncation at any K where the sums exceed 256 (bf16 holds integers exactly only
//   up to there).
//
//   Measured on an H200 (cuBLAS 13.1; `GEMM_BIAS_STATS=1 gemm check`, seed 1; kernel ids as of commit 6cc9119, the
//   ladder 01-11): the mean of e over 256 × 256 × K (its spread in brackets), of kernels 02-09 (bit for bit the
//   same C: one k16 accumulation per element in K order), of kernel 01 (fp32 FMA, rounding to nearest) and of
//   cuBLAS against the simple reference; and the same measure at the 256 fp64 samples (standard error 0.02 to
//   0.04), of 02-09 and of cuBLAS's R:
//
//          K   02-09 − R        01 − R           0 − simple       02-09 − fp64   R − fp64   accumulation_bias
//     ≤ 512    0                ≤ 0.0001         ≤ 0.0001         −0.010 to +0.018 (as R: the same C)
//      4096   −0.0005 [0.05]   +0.0002 [0.03]   −0.0002 [0.03]   −0.008         −0.012     −0.0010
//       2¹⁵   −0.0050 [0.14]   +0.0004 [0.05]   −0.0004 [0.05]   +0.004         +0.008     −0.0081
//       2¹⁷   −0.022  [0.27]   +0.0015 [0.08]   −0.0014 [0.08]   −0.031         −0.022     −0.033
//       2¹⁸   −0.047  [0.36]   +0.0011 [0.08]   −0.0010 [0.08]   −0.079         +0.015     −0.065
//       2¹⁹   −0.086  [0.49]   +0.0056 [0.15]   −0.0056 [0.15]   −0.086         +0.053     −0.130
//       2²⁰   −0.183  [0.64]   +0.0030 [0.12]   −0.0030 [0.12]   −0.167         +0.014     −0.260
//
//   cuBLAS carries almost none of the bias at this shape (it splits K, by the look of it); at 1000 × 1000 × 2²⁰
//   more (R − fp64 −0.080), and 01 − R reads +0.048, 02-09 − R −0.139 (02-09 − fp64 −0.156); at 2000 × 264 × 2²⁰,
//   02-09 − R −0.162. Over the suite (205 checks), 40 random shapes per rule (511), those two shapes at K = 2²⁰
//   (20) and the exact inputs of the GPU tests (18), every kernel of 00-09 passed, the largest |mean| / bound 0.28
//   (02-09 at 2000 × 264 × 2²⁰; 0.25 in the suite, at 128 × 256 × 2¹⁸: −0.051 against 0.204). Those runs had
//   kBiasFloor 0.1; the ratios are for 0.05, from the same means and spreads. The faults at 256 × 256 × 512, every
//   kernel: truncate −0.50 (spread 0.50), scale +1.41 (spread 0.49). A second run with the constants as they are
//   now: the suite with 2 seeds (410 checks), 60 random shapes per rule (780) and 512 × 512 × 2²⁰, 3000 × 264 × 2¹⁹
//   and 4096 × 8 × 2²⁰ (30) all passed, the largest |mean| / bound 0.30 (02-09 at 512 × 512 × 2²⁰: −0.175 against
//   0.585; at 4096 × 8 × 2²⁰, 8 columns, −0.180 against 0.613), and every kernel's GPU tests of exact inputs,
//   truncate and scale passed (the sm_100a kernels 10-11 skipped: "needs sm_100a").
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

// The bias check (above).
constexpr double kBiasClip = 2;                  // steps: one element's weight in the mean at most
constexpr double kBiasSigmas = 6;                // standard errors of the mean allowed ...
constexpr double kBiasCorrelation = 4;           // ... counting one element in this many as independent
constexpr double kBiasAccumulationMargin = 2;    // times the model of the tensor cores' accumulation bias
constexpr double kBiasFloor = 0.05;              // steps, whatever the shape
constexpr uint64_t kBiasMinElements = 256;       // fewer: no verdict
constexpr double kBiasScaledBeyond = 0.75;       // steps: a larger mean is a scale, a smaller one a rounding mode

// The spacing of bf16 values at |reference| (finite, non-zero): 2^(E−7) for |reference| in [2^E, 2^(E+1)),
// 2^-133 (bf16's subnormal spacing) below 2^-126.
__host__ __device__ inline double bf16_step(double reference) {
  int exponent = 0;
  frexp(reference, &exponent);  // |reference| = f·2^exponent with f in [0.5, 1): E = exponent − 1
  const int binade = exponent - 1 < -126 ? -126 : exponent - 1;
  return ldexp(1.0, binade - 7);
}

// e = (value − reference)·sign(reference) / bf16_step(reference), clipped to ±kBiasClip, into `error`; false (and
// nothing written) where the element is left out of the bias statistic: reference zero, or either not finite.
__host__ __device__ inline bool signed_step_error(double value, double reference, double& error) {
  if (reference == 0 || !(reference - reference == 0) || !(value - value == 0)) return false;
  const double steps = (value - reference) / bf16_step(reference);
  const double signed_steps = reference < 0 ? -steps : steps;
  error = signed_steps < -kBiasClip ? -kBiasClip : (signed_steps > kBiasClip ? kBiasClip : signed_steps);
  return true;
}

// The running sums the mean and spread of e come from (the GPU checker keeps one per thread and adds them up).
struct BiasSums {
  uint64_t count = 0;
  double sum = 0;
  double sum_of_squares = 0;
  __host__ __device__ void add(double error) {
    ++count;
    sum += error;
    sum_of_squares += error * error;
  }
};

// The mean bias, in bf16 steps of the result toward sign(R), of one accumulation of K products in ⌈K/16⌉ k16 steps
// whose every step truncates: −(n + 1)·2⁻¹⁶ / (8·ln²2) (derived above). Negative: nearer zero than the exact sum.
inline double accumulation_bias(int k) {
  const double steps = std::ceil(static_cast<double>(k) / kAccumulationStep);
  const double ln2 = std::log(2.0);
  return -(steps + 1) / (8 * ln2 * ln2) / 65536;
}

// How far from 0 the mean of e over `count` elements of spread `spread` may be at depth k for a correct kernel.
inline double bias_bound(uint64_t count, double spread, int k) {
  const double independent = static_cast<double>(count) / kBiasCorrelation;
  const double chance = count > 0 ? kBiasSigmas * spread / std::sqrt(independent) : 0;
  return kBiasFloor + kBiasAccumulationMargin * std::fabs(accumulation_bias(k)) + chance;
}

// The verdict on the mean of e over C.
struct BiasVerdict {
  uint64_t count = 0;  // elements in the statistic
  double mean = 0;     // steps; negative: C nearer zero than R
  double spread = 0;   // the standard deviation of e
  double bound = 0;    // what |mean| may reach
  bool judged() const { return count >= kBiasMinElements; }
  bool failed() const { return judged() && !(std::fabs(mean) <= bound); }
};

inline BiasVerdict judge_bias(const BiasSums& sums, int k) {
  BiasVerdict verdict;
  verdict.count = sums.count;
  if (sums.count == 0) return verdict;
  const double n = static_cast<double>(sums.count);
  verdict.mean = sums.sum / n;
  verdict.spread = std::sqrt(std::fmax(0.0, sums.sum_of_squares / n - verdict.mean * verdict.mean));
  verdict.bound = bias_bound(sums.count, verdict.spread, k);
  return verdict;
}

}  // namespace gemm
