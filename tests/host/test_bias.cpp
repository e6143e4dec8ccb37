// The bias check (runner/tolerance.h): the mean of (C − R)·sign(R) in R's bf16 steps, and its bound, on simulated
// kernels: fp32 sums of the runner's own inputs in other orders rounded to nearest (correct), a model of the tensor
// cores' truncating accumulation (correct, biased at deep K), and the faults `truncate` and `scale`.
#include <cuda_bf16.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runner/inputs.h"
#include "runner/tolerance.h"
#include "runner/validate.h"

namespace gemm {
namespace {

float round_to_bf16(float value) { return __bfloat162float(__float2bfloat16_rn(value)); }
// fp32 → bf16 by truncation: the low 16 bits dropped, the value moved toward zero.
float truncate_to_bf16(float value) { return std::bit_cast<float>(std::bit_cast<uint32_t>(value) & 0xffff0000u); }

// A and B filled as the runner fills them (uniform in [-1, 1), seed 5), held as floats.
struct Inputs {
  int m, n, k;
  std::vector<float> a, b;
  Inputs(int m_, int n_, int k_)
      : m(m_), n(n_), k(k_), a(static_cast<size_t>(m_) * k_), b(static_cast<size_t>(n_) * k_) {
    for (size_t i = 0; i < a.size(); ++i) a[i] = uniform_bf16_value(5, 0, i);
    for (size_t i = 0; i < b.size(); ++i) b[i] = uniform_bf16_value(5, 1, i);
  }
  const float* row_a(int row) const { return a.data() + static_cast<size_t>(row) * k; }
  const float* row_b(int col) const { return b.data() + static_cast<size_t>(col) * k; }
};

// One element's fp32 sum, as some kernel forms it.
using Accumulation = std::function<float(const float* a, const float* b, int k)>;

// fmaf over k in order: the simple reference and kernel 01 (per thread).
float sum_in_order(const float* a, const float* b, int k) {
  float sum = 0;
  for (int i = 0; i < k; ++i) sum = std::fmaf(a[i], b[i], sum);
  return sum;
}

float sum_reversed(const float* a, const float* b, int k) {
  float sum = 0;
  for (int i = k - 1; i >= 0; --i) sum = std::fmaf(a[i], b[i], sum);
  return sum;
}

// Four interleaved accumulators added at the end, as a kernel that splits K four ways.
float sum_split_four_ways(const float* a, const float* b, int k) {
  float sums[4] = {};
  for (int i = 0; i < k; ++i) sums[i % 4] = std::fmaf(a[i], b[i], sums[i % 4]);
  return (sums[0] + sums[1]) + (sums[2] + sums[3]);
}

// The tensor cores' accumulation as Fasi et al. describe it: each k16 step adds 16 exact products to the
// accumulator and truncates the result to fp32 (computed exactly in double, then rounded toward zero).
float sum_truncating_k16(const float* a, const float* b, int k) {
  float accumulator = 0;
  for (int start = 0; start < k; start += kAccumulationStep) {
    double exact = accumulator;
    for (int i = start; i < start + kAccumulationStep && i < k; ++i) exact += static_cast<double>(a[i]) * b[i];
    float rounded = static_cast<float>(exact);
    if (std::fabs(rounded) > std::fabs(exact)) rounded = std::nextafter(rounded, 0.0f);
    accumulator = rounded;
  }
  return accumulator;
}

// C of M × N elements: each element's fp32 sum, made bf16 by `to_bf16`.
std::vector<float> compute(const Inputs& inputs, const Accumulation& accumulate,
                           float (*to_bf16)(float) = round_to_bf16) {
  std::vector<float> c;
  c.reserve(static_cast<size_t>(inputs.m) * inputs.n);
  for (int row = 0; row < inputs.m; ++row)
    for (int col = 0; col < inputs.n; ++col)
      c.push_back(to_bf16(accumulate(inputs.row_a(row), inputs.row_b(col), inputs.k)));
  return c;
}

// The bias verdict on C against R, as the GPU checker sums it.
BiasVerdict bias_of(const std::vector<float>& c, const std::vector<float>& r, int k) {
  BiasSums sums;
  for (size_t i = 0; i < c.size(); ++i) {
    double error = 0;
    if (signed_step_error(c[i], r[i], error)) sums.add(error);
  }
  return judge_bias(sums, k);
}

std::vector<float> scaled(std::vector<float> c) {
  for (float& value : c) value = round_to_bf16(value * (1.0f + 1.0f / 128));
  return c;
}

// The fault `truncate` as runner/faults.cu plants it: C one bf16 step toward zero wherever the reference's fp32 sum
// (in K order) rounded away from zero.
std::vector<float> truncated_as_planted(std::vector<float> c, const Inputs& inputs) {
  for (int row = 0; row < inputs.m; ++row)
    for (int col = 0; col < inputs.n; ++col) {
      const float sum = sum_in_order(inputs.row_a(row), inputs.row_b(col), inputs.k);
      if (!(std::fabs(round_to_bf16(sum)) > std::fabs(sum))) continue;
      float& value = c[static_cast<size_t>(row) * inputs.n + col];
      const uint16_t bits = __bfloat16_as_ushort(__float2bfloat16_rn(value));
      if ((bits & 0x7fff) == 0 || (bits & 0x7fff) >= 0x7f80) continue;
      value = __bfloat162float(__ushort_as_bfloat16(static_cast<uint16_t>(bits - 1)));
    }
  return c;
}

std::string describe(const BiasVerdict& bias) {
  return "mean " + std::to_string(bias.mean) + ", spread " + std::to_string(bias.spread) + ", bound " +
         std::to_string(bias.bound) + " over " + std::to_string(bias.count);
}

struct Size {
  int m, n, k;
};
// From the smallest C that is judged to deep K; each costs at most ~10^8 multiply-adds per accumulation.
const Size kSizes[] = {{32, 32, 8}, {64, 64, 72}, {128, 64, 512}, {48, 40, 4096}, {32, 24, 65536}, {32, 32, 131072}};

TEST(BiasStep, IsTheSpacingOfBf16AtTheReference) {
  EXPECT_EQ(bf16_step(1.0), 1.0 / 128);
  EXPECT_EQ(bf16_step(1.9921875), 1.0 / 128);  // the largest bf16 below 2
  EXPECT_EQ(bf16_step(2.0), 1.0 / 64);
  EXPECT_EQ(bf16_step(-3.0), 1.0 / 64);
  EXPECT_EQ(bf16_step(384.0), 2.0);
  EXPECT_EQ(bf16_step(0.75), 1.0 / 256);
}

TEST(BiasStep, IsTheSubnormalSpacingBelowTheSmallestNormal) {
  EXPECT_EQ(bf16_step(std::ldexp(1.0, -126)), std::ldexp(1.0, -133));
  EXPECT_EQ(bf16_step(std::ldexp(1.0, -130)), std::ldexp(1.0, -133));
  EXPECT_EQ(bf16_step(-std::ldexp(1.0, -133)), std::ldexp(1.0, -133));  // the smallest subnormal
}

TEST(SignedStepError, CountsStepsAwayFromZeroAsPositive) {
  double error = 0;
  ASSERT_TRUE(signed_step_error(1.0078125, 1.0, error));  // one step above 1
  EXPECT_EQ(error, 1);
  ASSERT_TRUE(signed_step_error(0.99609375, 1.0, error));  // the step below 1 is half of 1's
  EXPECT_EQ(error, -0.5);
  ASSERT_TRUE(signed_step_error(-1.0078125, -1.0, error));  // further from zero on the negative side
  EXPECT_EQ(error, 1);
  ASSERT_TRUE(signed_step_error(-380.0, -384.0, error));  // nearer zero by two steps of 2
  EXPECT_EQ(error, -2);
  ASSERT_TRUE(signed_step_error(1.0, 1.0, error));
  EXPECT_EQ(error, 0);
}

TEST(SignedStepError, IsClippedSoThatOneElementWeighsLittle) {
  double error = 0;
  ASSERT_TRUE(signed_step_error(0.0, 1e-30, error));  // C zero, R tiny: hundreds of R's steps nearer zero
  EXPECT_EQ(error, -kBiasClip);
  ASSERT_TRUE(signed_step_error(100.0, 1.0, error));
  EXPECT_EQ(error, kBiasClip);
}

TEST(SignedStepError, LeavesOutZeroAndNonFiniteReferencesAndValues) {
  double error = 12345;
  EXPECT_FALSE(signed_step_error(1.0, 0.0, error));
  EXPECT_FALSE(signed_step_error(1.0, -0.0, error));
  EXPECT_FALSE(signed_step_error(NAN, 1.0, error));
  EXPECT_FALSE(signed_step_error(INFINITY, 1.0, error));
  EXPECT_FALSE(signed_step_error(1.0, NAN, error));
  EXPECT_FALSE(signed_step_error(1.0, -INFINITY, error));
  EXPECT_EQ(error, 12345) << "nothing written for an element left out";
  EXPECT_TRUE(signed_step_error(0.0, 1.0, error)) << "a zero value against a non-zero reference counts";
}

// −(n + 1)·2⁻¹⁶ / (8·ln²2) over n = ⌈K/16⌉ k16 steps.
TEST(AccumulationBias, PinnedValues) {
  const double ln2 = std::log(2.0);
  EXPECT_DOUBLE_EQ(accumulation_bias(16), -2 / (8 * ln2 * ln2) / 65536);
  EXPECT_DOUBLE_EQ(accumulation_bias(1), accumulation_bias(16)) << "a partial k16 step is a whole step";
  EXPECT_NEAR(accumulation_bias(4096), -0.00102, 0.00001);
  EXPECT_NEAR(accumulation_bias(1 << 16), -0.01626, 0.00001);
  EXPECT_NEAR(accumulation_bias(1 << 20), -0.2602, 0.0001);
}

TEST(BiasBound, IsTheFloorPlusTheAccumulationPlusChance) {
  EXPECT_DOUBLE_EQ(bias_bound(1 << 20, 0, 8), kBiasFloor + kBiasAccumulationMargin * -accumulation_bias(8));
  EXPECT_DOUBLE_EQ(bias_bound(10000, 0.5, 4096) - bias_bound(10000, 0, 4096),
                   kBiasSigmas * 0.5 * std::sqrt(kBiasCorrelation / 10000));
  EXPECT_LT(bias_bound(1 << 20, 0.5, 512), bias_bound(256, 0.5, 512)) << "more elements, a tighter bound";
  EXPECT_LT(bias_bound(65536, 0.5, 512), bias_bound(65536, 0.5, 1 << 20)) << "deeper K, a wider bound";
}

// The header's two worked figures, by hand: a floor of 0.05 steps, twice the accumulation bias (32 k16 steps at
// K = 512: (32 + 1) · 2⁻¹⁶ / (8 ln²2) = 0.000131; at 2²⁰, 0.2602 above), and 6 standard errors of a mean over
// 65536 / 4 independent elements (6 · spread · 2/256).
TEST(BiasBound, PinnedValues) {
  EXPECT_NEAR(bias_bound(256 * 256, 0.5, 512), 0.05 + 0.000262 + 0.0234375, 0.000005);
  EXPECT_NEAR(bias_bound(256 * 256, 0.64, 1 << 20), 0.05 + 0.5204 + 0.03, 0.0002);
}

TEST(BiasBound, LeavesTruncationCaughtAtTheFaultTestsShapeAndDeepK) {
  // A truncating kernel's spread is about 0.5 steps; 256 × 256 × 512 is the shape of the GPU fault tests.
  EXPECT_LT(bias_bound(256 * 256, 0.5, 512), 0.25);
  EXPECT_LT(bias_bound(256 * 256, 0.6, 1 << 18), 0.4);
  EXPECT_LT(bias_bound(kBiasMinElements, 0.5, 512), 0.5) << "truncation's -0.5 caught on the smallest C judged";
}

TEST(JudgeBias, GivesMeanAndSpreadAndNoVerdictBelowTheMinimumCount) {
  BiasSums sums;
  for (int i = 0; i < 300; ++i) sums.add(i % 2 == 0 ? -1.0 : 0.0);  // half the elements a step nearer zero
  const BiasVerdict verdict = judge_bias(sums, 512);
  EXPECT_EQ(verdict.count, 300u);
  EXPECT_DOUBLE_EQ(verdict.mean, -0.5);
  EXPECT_DOUBLE_EQ(verdict.spread, 0.5);
  EXPECT_DOUBLE_EQ(verdict.bound, bias_bound(300, 0.5, 512));
  EXPECT_TRUE(verdict.failed());

  BiasSums few;
  for (uint64_t i = 0; i + 1 < kBiasMinElements; ++i) few.add(-1.0);
  EXPECT_FALSE(judge_bias(few, 512).judged());
  EXPECT_FALSE(judge_bias(few, 512).failed()) << "too few elements: no verdict";
  few.add(-1.0);
  EXPECT_TRUE(judge_bias(few, 512).failed());
  EXPECT_FALSE(judge_bias(BiasSums{}, 512).failed());
}

TEST(JudgeBias, SparseElementsOffTheSameWayDoNotFailUnlessTheyAreAShareOfC) {
  const auto verdict = [](int off, int count) {
    BiasSums sums;
    for (int i = 0; i < count; ++i) sums.add(i < off ? 1.0 : 0.0);
    return judge_bias(sums, 4096);
  };
  EXPECT_FALSE(verdict(30, 65536).failed());
  EXPECT_FALSE(verdict(3000, 65536).failed());
  EXPECT_TRUE(verdict(20000, 65536).failed());
}

// Correct kernels: other summation orders than the reference's, each rounded to nearest, at every size.
TEST(BiasSimulation, CorrectKernelsPass) {
  for (const Size& size : kSizes) {
    const Inputs inputs(size.m, size.n, size.k);
    const std::vector<float> reference = compute(inputs, sum_in_order);
    for (const auto& [name, accumulate] : {std::pair<const char*, Accumulation>{"reversed", sum_reversed},
                                           {"split four ways", sum_split_four_ways},
                                           {"truncating k16 steps", sum_truncating_k16}}) {
      const BiasVerdict bias = bias_of(compute(inputs, accumulate), reference, size.k);
      EXPECT_TRUE(bias.judged()) << size.m << "x" << size.n << "x" << size.k;
      EXPECT_FALSE(bias.failed()) << name << " at " << size.m << "x" << size.n << "x" << size.k << ": "
                                  << describe(bias);
    }
  }
}

// Truncation instead of rounding, of the same sums: about half the elements a step nearer zero.
TEST(BiasSimulation, TruncationFailsAsRoundingTowardZero) {
  for (const Size& size : kSizes) {
    const Inputs inputs(size.m, size.n, size.k);
    const std::vector<float> reference = compute(inputs, sum_in_order);
    const BiasVerdict bias = bias_of(compute(inputs, sum_reversed, truncate_to_bf16), reference, size.k);
    const std::string shape = std::to_string(size.m) + "x" + std::to_string(size.n) + "x" + std::to_string(size.k);
    EXPECT_TRUE(bias.failed()) << shape << ": " << describe(bias);
    EXPECT_NEAR(bias.mean, -0.5, 0.1) << shape;
    EXPECT_NE(bias_summary(bias).find("rounding toward zero?"), std::string::npos) << bias_summary(bias);
  }
}

// The fault as the runner plants it, from the kernel's rounded C and the reference's fp32 sums, is truncation.
TEST(BiasSimulation, ThePlantedTruncationIsTruncationOfTheReferenceSums) {
  const Inputs inputs(64, 64, 512);
  const std::vector<float> reference = compute(inputs, sum_in_order);
  EXPECT_EQ(truncated_as_planted(reference, inputs), compute(inputs, sum_in_order, truncate_to_bf16));
  const BiasVerdict bias = bias_of(truncated_as_planted(compute(inputs, sum_reversed), inputs), reference, 512);
  EXPECT_TRUE(bias.failed()) << describe(bias);
  EXPECT_NEAR(bias.mean, -0.5, 0.1);
}

// C scaled by 1 + 2⁻⁷: one or two steps up, about +1.4 on average.
TEST(BiasSimulation, ScalingFailsAsScaledUp) {
  for (const Size& size : kSizes) {
    const Inputs inputs(size.m, size.n, size.k);
    const std::vector<float> reference = compute(inputs, sum_in_order);
    const BiasVerdict bias = bias_of(scaled(compute(inputs, sum_reversed)), reference, size.k);
    EXPECT_TRUE(bias.failed()) << describe(bias);
    EXPECT_GT(bias.mean, 1.2);
    EXPECT_LT(bias.mean, 1.6);
    EXPECT_NE(bias_summary(bias).find("scaled up?"), std::string::npos) << bias_summary(bias);
  }
}

// The model of the tensor cores' bias against a simulation of it at K = 2^20, where it is largest, and the bound
// holds it: a truncating accumulation against a reference that rounds to nearest.
TEST(BiasSimulation, TruncatingAccumulationMatchesTheModelAtDeepK) {
  const int k = 1 << 20;
  const Inputs inputs(16, 16, k);
  const std::vector<float> reference = compute(inputs, sum_in_order);
  const BiasVerdict bias = bias_of(compute(inputs, sum_truncating_k16), reference, k);
  EXPECT_FALSE(bias.failed()) << describe(bias);
  EXPECT_LT(bias.mean, 0.5 * accumulation_bias(k)) << describe(bias);  // the model: -0.26
  EXPECT_GT(bias.mean, 1.5 * accumulation_bias(k)) << describe(bias);
}

TEST(BiasSummary, SaysHowFarAndWhatItLooksLike) {
  BiasVerdict bias{65536, -0.48, 0.5, 0.11};
  EXPECT_EQ(bias_summary(bias),
            "C is biased by -0.48 steps on average (bf16 steps of R, positive away from zero, over 65536 elements; "
            "spread 0.50; a correct kernel stays within +-0.110): rounding toward zero?");
  bias.mean = 1.41;
  EXPECT_NE(bias_summary(bias).find("C is biased by +1.41 steps on average"), std::string::npos);
  EXPECT_NE(bias_summary(bias).find(": scaled up?"), std::string::npos);
  bias.mean = 0.5;
  EXPECT_NE(bias_summary(bias).find(": rounding away from zero?"), std::string::npos);
  bias.mean = -1.4;
  EXPECT_NE(bias_summary(bias).find(": scaled down?"), std::string::npos);
}

TEST(ValidationSummary, ReportsABiasedCWhenNoElementFailed) {
  Validation validation;
  validation.bias = {65536, -0.48, 0.5, 0.11};
  EXPECT_FALSE(validation.passed());
  EXPECT_EQ(validation.failures(), 0u);
  EXPECT_EQ(validation.failure_summary(), bias_summary(validation.bias));
  validation.counts[static_cast<size_t>(ElementStatus::kWrong)] = 1;
  validation.first_failure = {4, 5, 0, 1.5f, 1.0, ElementStatus::kWrong};
  const std::string summary = validation.failure_summary();
  EXPECT_EQ(summary.find("1 wrong elements (1 wrong)"), 0u) << summary;
  EXPECT_NE(summary.find("; also C is biased by -0.48 steps"), std::string::npos) << summary;
}

TEST(ValidationSummary, SaysNothingOfABiasAgainstAReferenceThatDisagreesWithFp64) {
  Validation validation;
  validation.bias = {65536, -0.48, 0.5, 0.11};
  validation.samples = 256;
  validation.sample_reference_failures = 1;
  validation.first_reference_failure = {0, 0, 0, 3.0f, 2.0, ElementStatus::kWrong, "R"};
  EXPECT_EQ(validation.failure_summary().find("biased"), std::string::npos) << validation.failure_summary();
}

TEST(ValidationSummary, PassesAnUnjudgedBias) {
  Validation validation;
  validation.bias = {kBiasMinElements - 1, -1.0, 0.0, 0.1};
  EXPECT_TRUE(validation.passed());
}

}  // namespace
}  // namespace gemm
