#include "runner/footprint.h"

#include <iomanip>
#include <sstream>

namespace gemm {
namespace {

// a × b and a + b, or nothing where the result does not fit in 64 bits.
std::optional<uint64_t> checked_product(std::optional<uint64_t> a, std::optional<uint64_t> b) {
  uint64_t product = 0;
  if (!a || !b || __builtin_mul_overflow(*a, *b, &product)) return std::nullopt;
  return product;
}
std::optional<uint64_t> checked_sum(std::optional<uint64_t> a, std::optional<uint64_t> b) {
  uint64_t sum = 0;
  if (!a || !b || __builtin_add_overflow(*a, *b, &sum)) return std::nullopt;
  return sum;
}

constexpr uint64_t kBf16Bytes = 2;

}  // namespace

std::optional<uint64_t> problem_device_bytes(const Shape& shape, int outputs, uint64_t guard_elements) {
  const uint64_t m = static_cast<uint64_t>(shape.m), n = static_cast<uint64_t>(shape.n),
                 k = static_cast<uint64_t>(shape.k);
  const std::optional<uint64_t> c = checked_product(m, n);
  const std::optional<uint64_t> guarded_c = checked_sum(c, checked_product(uint64_t{2}, guard_elements));
  std::optional<uint64_t> elements = checked_sum(checked_product(m, k), checked_product(n, k));  // A and B
  elements = checked_sum(elements, checked_product(uint64_t{2}, c));                             // R and its copy
  elements = checked_sum(elements, checked_product(static_cast<uint64_t>(outputs), guarded_c));  // the C
  return checked_product(elements, kBf16Bytes);
}

std::string out_of_device_memory_message(const Shape& shape, int outputs, const std::optional<uint64_t>& needed,
                                         uint64_t free_bytes) {
  constexpr double kGiB = 1073741824.0;
  std::ostringstream message;
  message << std::fixed << std::setprecision(1) << "out of device memory: " << to_string(shape) << " needs ";
  if (needed)
    message << *needed / kGiB << " GiB";
  else
    message << "more than 16 EiB";
  message << " for A, B, " << outputs << " C and the reference (twice); " << free_bytes / kGiB << " GiB are free";
  return message.str();
}

}  // namespace gemm
