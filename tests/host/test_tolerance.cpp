// How one output element is judged (runner/tolerance.h), and the names of the injectable faults.
#include <cuda_bf16.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>

#include "runner/faults.h"
#include "runner/inputs.h"
#include "runner/tolerance.h"

namespace gemm {

// GoogleTest prints statuses by name in failure messages.
static void PrintTo(ElementStatus status, std::ostream* out) { *out << element_status_name(status); }

namespace {

// A bf16 result element: its raw bits and the same value widened to float, as the checker sees them.
struct Element {
  uint16_t bits;
  float value;
};

// `value` must be exactly representable in bf16, so the tests below know the element they build.
Element bf16_element(float value) {
  const __nv_bfloat16 rounded = __float2bfloat16(value);
  const Element element{__bfloat16_as_ushort(rounded), __bfloat162float(rounded)};
  if (!std::isnan(value) && element.value != value) ADD_FAILURE() << value << " is not a bf16 value";
  return element;
}

Element element_from_bits(uint16_t bits) { return {bits, __bfloat162float(__ushort_as_bfloat16(bits))}; }

ElementStatus classify(const Element& element, double reference, double atol) {
  return classify_element(element.bits, element.value, reference, atol);
}

ElementStatus classify(float value, double reference, double atol) {
  return classify(bf16_element(value), reference, atol);
}

const double kSmallAtol = absolute_tolerance(1);  // 1/3072: negligible next to values near 1

constexpr uint16_t kNaNBits = 0x7fff;
constexpr uint16_t kPlusInfBits = 0x7f80;
constexpr uint16_t kMinusInfBits = 0xff80;

TEST(Tolerance, RelativeToleranceIsTwoToTheMinus6) {
  static_assert(kRelTol == 1.0 / 64);
  EXPECT_EQ(kRelTol, 0.015625);
}

TEST(Tolerance, OutputScaleIsSqrtKOver3) {
  EXPECT_DOUBLE_EQ(output_scale(1), 1.0 / 3);
  EXPECT_DOUBLE_EQ(output_scale(4096), 64.0 / 3);
}

TEST(Tolerance, AbsoluteToleranceIsAFractionOfTheScalePlusTheAccumulationTerm) {
  for (int k : {1, 7, 4096, 65536, 1 << 20})
    EXPECT_DOUBLE_EQ(absolute_tolerance(k), kAbsTolFraction * output_scale(k) + accumulation_error(k)) << "K = " << k;
}

// By hand: 2⁻¹⁰ of sqrt(K)/3 (64/3 at K = 4096, 1024/3 at 2²⁰) plus the accumulation term pinned below.
TEST(Tolerance, AbsoluteTolerancePinnedValues) {
  EXPECT_NEAR(absolute_tolerance(4096), 64.0 / 3 / 1024 + 0.00174, 0.00001);
  EXPECT_NEAR(absolute_tolerance(1 << 20), 1024.0 / 3 / 1024 + 7.111, 0.001);
}

// u · (4/3) · Σ_{j=1..n} sqrt(j), bounded by (2/3)·n^1.5 + sqrt(n)/2, with the margin, n = ⌈K/16⌉.
TEST(Tolerance, AccumulationErrorPinnedValues) {
  const double u = 1.0 / 8388608;
  EXPECT_DOUBLE_EQ(accumulation_error(16), kAccumulationMargin * u * (4.0 / 3) * (2.0 / 3 + 0.5));  // n = 1
  EXPECT_DOUBLE_EQ(accumulation_error(1), accumulation_error(16)) << "a partial k16 step is a whole step";
  EXPECT_NEAR(accumulation_error(4096), 0.00174, 0.00001);
  EXPECT_NEAR(accumulation_error(1 << 20), 7.111, 0.001);
}

TEST(Tolerance, AccumulationErrorBoundsTheSumOfTheRunningSumScales) {
  for (int k : {16, 160, 4096, 100000}) {
    double exact = 0;  // u · Σ_j σ_16j, summed
    for (int j = 1; j <= (k + 15) / 16; ++j) exact += (4.0 / 3) * std::sqrt(j);
    EXPECT_GE(accumulation_error(k), kAccumulationMargin * exact / 8388608) << "K = " << k;
    const double slack = k == 16 ? 1.2 : 1.05;  // the bound's sqrt(n)/2 term matters only for a few steps
    EXPECT_LE(accumulation_error(k), slack * kAccumulationMargin * exact / 8388608) << "K = " << k;
  }
}

TEST(Tolerance, AccumulationTermGrowsAsKToTheOneAndAHalf) {
  for (int k : {1 << 14, 1 << 16, 1 << 18}) EXPECT_NEAR(accumulation_error(4 * k) / accumulation_error(k), 8.0, 0.05);
}

TEST(Tolerance, AccumulationTermIsNegligibleAtOrdinaryKAndDominatesAtHugeK) {
  EXPECT_LT(accumulation_error(8192), 0.2 * kAbsTolFraction * output_scale(8192));
  EXPECT_GT(accumulation_error(1 << 20), 10 * kAbsTolFraction * output_scale(1 << 20));
}

TEST(Tolerance, AbsoluteToleranceGrowsWithK) {
  for (int k : {1, 16, 17, 64, 1000, 4096, 1 << 20}) EXPECT_LE(absolute_tolerance(k), absolute_tolerance(k + 16));
  for (int k : {1, 64, 1000, 4096, 1 << 20}) EXPECT_LT(absolute_tolerance(k), absolute_tolerance(4 * k));
}

TEST(Tolerance, TestElementsAreTheBf16BitsOfTheirValue) {
  EXPECT_EQ(bf16_element(1.0f).bits, 0x3f80);
  EXPECT_EQ(bf16_element(1.0078125f).bits, 0x3f81);
  EXPECT_EQ(bf16_element(-2.0f).bits, 0xc000);
  EXPECT_EQ(bf16_element(-0.0f).bits, 0x8000);
}

TEST(ClassifyElement, ExactMatchIsOk) {
  for (float value : {1.0f, -3.5f, 1024.0f, 0.0f, 0.00048828125f})
    EXPECT_EQ(classify(value, static_cast<double>(value), 0.0), ElementStatus::kOk) << value;
}

TEST(ClassifyElement, OneAndTwoUlpNeighboursAreOk) {
  EXPECT_EQ(classify(1.0078125f, 1.0, kSmallAtol), ElementStatus::kOk);  // 1 ulp above 1
  EXPECT_EQ(classify(1.015625f, 1.0, kSmallAtol), ElementStatus::kOk);   // 2 ulps above 1
  EXPECT_EQ(classify(0.99609375f, 1.0, kSmallAtol), ElementStatus::kOk);  // 1 ulp below 1 (ulp 2^-8 there)
  EXPECT_EQ(classify(-1.015625f, -1.0, kSmallAtol), ElementStatus::kOk);  // negative side
}

TEST(ClassifyElement, FourUlpsOffAtMagnitudeOneIsWrong) {
  EXPECT_EQ(classify(1.03125f, 1.0, kSmallAtol), ElementStatus::kWrong);
  EXPECT_EQ(classify(-1.03125f, -1.0, kSmallAtol), ElementStatus::kWrong);
  EXPECT_EQ(classify(1.0f, 1.03125, kSmallAtol), ElementStatus::kWrong);
}

// At reference 64 with atol 0.5 the bound is 64/64 + 0.5 = 1.5: 65.5 and 62.5 sit exactly on it.
TEST(ClassifyElement, RelativePlusAbsoluteBoundIsInclusive) {
  EXPECT_EQ(classify(65.5f, 64.0, 0.5), ElementStatus::kOk);
  EXPECT_EQ(classify(62.5f, 64.0, 0.5), ElementStatus::kOk);
}

TEST(ClassifyElement, JustInsideTheBoundIsOk) {
  EXPECT_EQ(classify(65.5f, 64.0, 0.5 + 1e-9), ElementStatus::kOk);
  EXPECT_EQ(classify(62.5f, 64.0, 0.5 + 1e-9), ElementStatus::kOk);
}

TEST(ClassifyElement, JustOutsideTheBoundIsWrong) {
  EXPECT_EQ(classify(65.5f, 64.0, 0.5 - 1e-9), ElementStatus::kWrong);
  EXPECT_EQ(classify(62.5f, 64.0, 0.5 - 1e-9), ElementStatus::kWrong);
}

TEST(ClassifyElement, BoundScalesWithTheReference) {
  // Error 16 at reference 1024 is exactly kRelTol·|R|; the same error at reference 512 is twice the bound.
  EXPECT_EQ(classify(1040.0f, 1024.0, 0.0), ElementStatus::kOk);
  EXPECT_EQ(classify(528.0f, 512.0, 0.0), ElementStatus::kWrong);
}

TEST(ClassifyElement, NaNValueIsNaN) {
  EXPECT_EQ(classify(element_from_bits(kNaNBits), 1.0, kSmallAtol), ElementStatus::kNaN);
  EXPECT_EQ(classify(element_from_bits(0xffc0), 1.0, kSmallAtol), ElementStatus::kNaN);
}

TEST(ClassifyElement, InfinitiesAreInf) {
  EXPECT_EQ(classify(element_from_bits(kPlusInfBits), 1.0, kSmallAtol), ElementStatus::kInf);
  EXPECT_EQ(classify(element_from_bits(kMinusInfBits), -1.0, kSmallAtol), ElementStatus::kInf);
}

TEST(ClassifyElement, InfinityIsInfEvenWhenTheReferenceIsInfinite) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(classify(element_from_bits(kPlusInfBits), inf, kSmallAtol), ElementStatus::kInf);
}

TEST(ClassifyElement, PoisonBitsAreUnwrittenAlthoughTheyAreANaN) {
  const Element poison = element_from_bits(kPoisonBits);
  ASSERT_TRUE(std::isnan(poison.value));
  EXPECT_EQ(classify(poison, 1.0, kSmallAtol), ElementStatus::kUnwritten);
}

TEST(ClassifyElement, NaNReferenceFailsAFiniteValue) {
  EXPECT_EQ(classify(1.0f, std::numeric_limits<double>::quiet_NaN(), kSmallAtol), ElementStatus::kWrong);
  EXPECT_EQ(classify(0.0f, std::numeric_limits<double>::quiet_NaN(), kSmallAtol), ElementStatus::kWrong);
}

TEST(ClassifyElement, InfReferenceFailsAFiniteValue) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(classify(1.0f, inf, kSmallAtol), ElementStatus::kWrong);
  EXPECT_EQ(classify(-1.0f, -inf, kSmallAtol), ElementStatus::kWrong);
}

// Near zero the relative term vanishes and atol decides: atol(4096) = 1/48 ≈ 0.0208.
TEST(ClassifyElement, NearZeroAbsoluteToleranceDecides) {
  const double atol = absolute_tolerance(4096);
  EXPECT_EQ(classify(0.015625f, 0.0, atol), ElementStatus::kOk);      // 2^-6 < atol
  EXPECT_EQ(classify(-0.015625f, 0.0, atol), ElementStatus::kOk);
  EXPECT_EQ(classify(0.03125f, 0.0, atol), ElementStatus::kWrong);    // 2^-5 > atol
  EXPECT_EQ(classify(-0.03125f, 0.0, atol), ElementStatus::kWrong);
  EXPECT_EQ(classify(0.0f, 0.03125, atol), ElementStatus::kWrong);
}

TEST(ClassifyElement, NegativeZeroMatchesPositiveZero) {
  EXPECT_EQ(classify(-0.0f, 0.0, 0.0), ElementStatus::kOk);
  EXPECT_EQ(classify(0.0f, -0.0, 0.0), ElementStatus::kOk);
}

TEST(ExactInputs, AreMinusOneZeroAndOneInThirds) {
  int counts[3] = {};
  for (uint64_t i = 0; i < 30000; ++i) {
    const float value = ternary_bf16_value(7, 0, i);
    ASSERT_TRUE(value == -1.0f || value == 0.0f || value == 1.0f) << "index " << i << ": " << value;
    ++counts[static_cast<int>(value) + 1];
  }
  for (int count : counts) EXPECT_NEAR(count, 10000, 400);
}

TEST(ExactInputs, SumsStayExactInFloatWhateverTheOrder) {
  // The worst case the check allows: K just below 2^24 products of ±1 in one direction stay integers.
  float forward = 0;
  const int k = kMaxExactK - 1;
  for (int i = 0; i < k; ++i) forward += 1.0f;
  EXPECT_EQ(forward, static_cast<float>(k));
  // A row of a real exact input, summed up and down: the same integer.
  float up = 0, down = 0;
  long long exact = 0;
  for (int i = 0; i < 1 << 20; ++i) {
    const float a = ternary_bf16_value(3, 0, i), b = ternary_bf16_value(3, 1, i);
    up += a * b;
    exact += static_cast<long long>(a) * static_cast<long long>(b);
  }
  for (int i = (1 << 20) - 1; i >= 0; --i) down += ternary_bf16_value(3, 0, i) * ternary_bf16_value(3, 1, i);
  EXPECT_EQ(up, static_cast<float>(exact));
  EXPECT_EQ(down, static_cast<float>(exact));
}

TEST(ExactInputs, ToleranceZeroAcceptsOnlyTheReferenceItself) {
  const auto classify = [](float value, double reference) {
    const __nv_bfloat16 bf = __float2bfloat16(value);
    return classify_element(__bfloat16_as_ushort(bf), __bfloat162float(bf), reference, 0, 0);
  };
  EXPECT_EQ(classify(384.0f, 384.0), ElementStatus::kOk);
  EXPECT_EQ(classify(386.0f, 384.0), ElementStatus::kWrong);  // one bf16 ulp at 384
  EXPECT_EQ(classify(-1.0f, -1.0), ElementStatus::kOk);
  EXPECT_EQ(classify(0.0f, 1.0), ElementStatus::kWrong);
}

TEST(ElementStatusName, NamesEachStatus) {
  EXPECT_STREQ(element_status_name(ElementStatus::kOk), "ok");
  EXPECT_STREQ(element_status_name(ElementStatus::kWrong), "wrong");
  EXPECT_STREQ(element_status_name(ElementStatus::kNaN), "NaN");
  EXPECT_STREQ(element_status_name(ElementStatus::kInf), "Inf");
  EXPECT_STREQ(element_status_name(ElementStatus::kUnwritten), "unwritten");
  EXPECT_STREQ(element_status_name(ElementStatus::kOutOfBounds), "out of bounds");
}

TEST(ParseFault, MapsEachNameToItsFault) {
  EXPECT_EQ(parse_fault("wrong"), Fault::kWrongValue);
  EXPECT_EQ(parse_fault("unwritten"), Fault::kUnwritten);
  EXPECT_EQ(parse_fault("nan"), Fault::kNaN);
  EXPECT_EQ(parse_fault("hang"), Fault::kHang);
  EXPECT_EQ(parse_fault("stray"), Fault::kStray);
  EXPECT_EQ(parse_fault("illegal-address"), Fault::kIllegalAddress);
  EXPECT_EQ(parse_fault("reference"), Fault::kReference);
  EXPECT_EQ(parse_fault("input"), Fault::kInput);
  EXPECT_EQ(parse_fault("reference-write"), Fault::kReferenceWrite);
  EXPECT_EQ(parse_fault("truncate"), Fault::kTruncate);
  EXPECT_EQ(parse_fault("scale"), Fault::kScale);
}

TEST(ParseFault, RejectsAnythingElse) {
  for (const char* text : {"", "NaN", "Wrong", "wrong ", "inf", "unwriten", "maybe", "Hang", "ref", "reference_write",
                           "truncation", "Scale"})
    EXPECT_EQ(parse_fault(text), std::nullopt) << "'" << text << "'";
}

}  // namespace
}  // namespace gemm
