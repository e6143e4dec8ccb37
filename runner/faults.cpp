#include "runner/faults.h"

#include <cmath>
#include <random>

#include "common/cuda_check.h"
#include "runner/tolerance.h"

namespace gemm {

std::optional<Fault> parse_fault(const std::string& text) {
  if (text == "wrong") return Fault::kWrongValue;
  if (text == "unwritten") return Fault::kUnwritten;
  if (text == "nan") return Fault::kNaN;
  return std::nullopt;
}

std::string inject_fault(Fault fault, const GemmProblem& problem, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x5eedfa17ull);
  const int64_t row = std::uniform_int_distribution<int64_t>(0, problem.m - 1)(rng);
  const int64_t col = std::uniform_int_distribution<int64_t>(0, problem.n - 1)(rng);
  bf16* element = problem.c + row * problem.n + col;
  bf16 value;
  CUDA_CHECK(cudaMemcpy(&value, element, sizeof value, cudaMemcpyDeviceToHost));
  switch (fault) {
    case Fault::kWrongValue: {
      const double v = __bfloat162float(value);
      value = __float2bfloat16_rn(static_cast<float>(v + 4 * (kRelTol * std::fabs(v) + absolute_tolerance(problem.k))));
      break;
    }
    case Fault::kUnwritten: value = __ushort_as_bfloat16(kPoisonBits); break;
    case Fault::kNaN: value = __ushort_as_bfloat16(0x7fff); break;
  }
  CUDA_CHECK(cudaMemcpy(element, &value, sizeof value, cudaMemcpyHostToDevice));
  return "C[" + std::to_string(row) + ", " + std::to_string(col) + "]";
}

}  // namespace gemm
