// Error attribution (common/errors.h), ceil_div's range (common/gemm_problem.h), and how validation failures
// are summarised (runner/validate.h).
#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "common/errors.h"
#include "common/gemm_problem.h"
#include "runner/validate.h"

namespace gemm {
namespace {

TEST(ErrorContext, CudaErrorsNameTheCurrentActivity) {
  EXPECT_STREQ(CudaError("cudaMemcpy failed").what(), "cudaMemcpy failed");
  const ErrorContext context("kernel 3 (tma_wgmma) at 100x104x8, seed 7");
  EXPECT_STREQ(CudaError("cudaStreamSynchronize failed: an illegal memory access").what(),
               "kernel 3 (tma_wgmma) at 100x104x8, seed 7: cudaStreamSynchronize failed: an illegal memory access");
}

TEST(ErrorContext, NestsAndRestoresThePreviousActivity) {
  EXPECT_EQ(ErrorContext::current(), "");
  {
    const ErrorContext outer("outer");
    {
      const ErrorContext inner("inner");
      EXPECT_EQ(ErrorContext::current(), "inner");
    }
    EXPECT_EQ(ErrorContext::current(), "outer");
  }
  EXPECT_EQ(ErrorContext::current(), "");
}

TEST(CeilDiv, RoundsUp) {
  EXPECT_EQ(ceil_div(0, 128), 0);
  EXPECT_EQ(ceil_div(1, 128), 1);
  EXPECT_EQ(ceil_div(128, 128), 1);
  EXPECT_EQ(ceil_div(129, 128), 2);
}

TEST(CeilDiv, DoesNotOverflowNearIntMax) {
  EXPECT_EQ(ceil_div(INT_MAX, 128), 16777216);  // (2^31 - 1) / 128 rounded up
  EXPECT_EQ(ceil_div(INT_MAX, 1), INT_MAX);
  EXPECT_EQ(ceil_div(INT_MAX - 1, 2), 1073741823);
  static_assert(ceil_div(INT_MAX, 256) == 8388608);
}

TEST(ValidationSummary, NamesAWriteOutsideC) {
  Validation validation;
  validation.counts[static_cast<size_t>(ElementStatus::kOutOfBounds)] = 3;
  validation.first_failure.status = ElementStatus::kOutOfBounds;
  validation.first_failure.outside = 5;
  EXPECT_FALSE(validation.passed());
  const std::string summary = validation.failure_summary();
  EXPECT_NE(summary.find("3 wrong elements (3 out of bounds)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("a write 5 elements past the end of C"), std::string::npos) << summary;
  validation.first_failure.outside = -2;
  EXPECT_NE(validation.failure_summary().find("2 elements before the start of C"), std::string::npos);
}

TEST(ValidationSummary, ReportsABadReferenceBeforeTheElementsJudgedAgainstIt) {
  Validation validation;
  validation.counts[static_cast<size_t>(ElementStatus::kWrong)] = 1;
  validation.samples = 256;
  validation.sample_reference_failures = 1;
  validation.first_reference_failure = {0, 0, 0, 3.0f, 2.0, ElementStatus::kWrong, "R"};
  EXPECT_TRUE(validation.reference_failed());
  const std::string summary = validation.failure_summary();
  EXPECT_EQ(summary.find("the cuBLAS reference disagrees with fp64 at 1 of 256 samples; first R[0, 0] = 3"), 0u)
      << summary;
}

TEST(ValidationSummary, GivesTheWorstErrorAsAMultipleOfTheTolerance) {
  Validation validation;
  validation.counts[static_cast<size_t>(ElementStatus::kWrong)] = 2;
  validation.first_failure = {4, 5, 0, 1.5f, 1.0, ElementStatus::kWrong};
  validation.max_rel_err = 4.25;
  const std::string summary = validation.failure_summary();
  EXPECT_NE(summary.find("first C[4, 5] = 1.5 (wrong), expected 1"), std::string::npos) << summary;
  EXPECT_NE(summary.find("max error 4.25x the tolerance"), std::string::npos) << summary;
}

TEST(ValidationSummary, NamesAWriteIntoTheInputsFirst) {
  Validation validation;
  validation.input_writes.record("B", 2, 3 * 136 + 17, 136, 2.0f, -0.5f);  // linear index -> B[3, 17]
  validation.input_writes.record("A", 1, 0, 136, 1.0f, 0.25f);           // counted, not the first
  EXPECT_FALSE(validation.passed()) << "nothing in C failed, but the inputs changed";
  EXPECT_EQ(validation.failures(), 0u);
  EXPECT_EQ(validation.input_writes.count, 3u);
  EXPECT_EQ(validation.failure_summary(),
            "the kernel wrote into its inputs: 3 elements of A and B changed; first B[3, 17] = 2, the runner wrote -0.5");
  validation.input_writes.culprit = "one of the kernels timed together";
  validation.counts[static_cast<size_t>(ElementStatus::kWrong)] = 4;
  validation.first_failure = {4, 5, 0, 1.5f, 1.0, ElementStatus::kWrong};
  const std::string summary = validation.failure_summary();
  EXPECT_EQ(summary.find("one of the kernels timed together wrote into its inputs"), 0u) << summary;
  EXPECT_NE(summary.find("; also 4 wrong elements (4 wrong); first C[4, 5]"), std::string::npos) << summary;
}

TEST(ValidationSummary, NamesAWriteIntoTheReferenceAfterTheInputsAndBeforeC) {
  Validation validation;
  validation.reference_writes.record("R", 1, 2 * 200 + 7, 200, 9.0f, 0.75f);  // R is m x n: R[2, 7]
  EXPECT_FALSE(validation.passed()) << "nothing in C failed, but R changed";
  EXPECT_EQ(validation.failure_summary(),
            "the kernel wrote into the reference R: 1 elements of R changed; first R[2, 7] = 9, "
            "the reference held 0.75");
  validation.input_writes.record("A", 1, 0, 136, 1.0f, 0.25f);
  validation.counts[static_cast<size_t>(ElementStatus::kWrong)] = 4;
  validation.first_failure = {4, 5, 0, 1.5f, 1.0, ElementStatus::kWrong};
  const std::string summary = validation.failure_summary();
  EXPECT_EQ(summary.find("the kernel wrote into its inputs: 1 elements of A and B changed; first A[0, 0] = 1, the "
                         "runner wrote 0.25; also the kernel wrote into the reference R: 1 elements of R"),
            0u)
      << summary;
  EXPECT_NE(summary.find("the reference held 0.75; also 4 wrong elements (4 wrong); first C[4, 5]"),
            std::string::npos)
      << summary;
}

TEST(ValidationSummary, RecordsNoInputChangeWhenThereIsNone) {
  Validation validation;
  validation.input_writes.record("A", 0, 0, 8, 0.0f, 0.0f);
  EXPECT_TRUE(validation.passed());
  EXPECT_EQ(validation.failure_summary(), "");
  EXPECT_EQ(validation.input_writes.summary(), "");
}

}  // namespace
}  // namespace gemm
