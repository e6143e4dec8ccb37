// Fault injection: plant one bad element in C after the kernel ran, to prove validation catches it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/gemm_problem.h"

namespace gemm {

enum class Fault {
  kWrongValue,  // one element moved 4× outside the tolerance
  kUnwritten,   // one element left holding the poison pattern, as if the kernel skipped it
  kNaN,         // one element replaced by NaN
};

std::optional<Fault> parse_fault(const std::string& text);  // "wrong", "unwritten", "nan"

// Corrupts one element of problem.c, chosen by `seed`; returns its description ("C[3, 17]").
std::string inject_fault(Fault fault, const GemmProblem& problem, uint64_t seed);

}  // namespace gemm
