// Random integers that are the same from every C++ standard library. std::mt19937_64's output is fixed by the
// standard, but std::uniform_int_distribution's mapping of it is not (libstdc++, libc++ and MSVC differ), so a
// seed printed by one build would name other shapes, fault positions or samples in another.
#pragma once

#include <cstdint>
#include <random>

namespace gemm {

// The high 64 bits of the 128-bit product x · y, from 32-bit halves (no compiler's 128-bit type needed).
constexpr uint64_t high_64_bits_of_product(uint64_t x, uint64_t y) {
  const uint64_t x_low = x & 0xffffffffu, x_high = x >> 32, y_low = y & 0xffffffffu, y_high = y >> 32;
  const uint64_t low_low = x_low * y_low, low_high = x_low * y_high, high_low = x_high * y_low;
  const uint64_t middle = (low_low >> 32) + (low_high & 0xffffffffu) + (high_low & 0xffffffffu);  // < 3 · 2^32
  return x_high * y_high + (low_high >> 32) + (high_low >> 32) + (middle >> 32);
}

// An integer in [low, high] from one draw of `rng`: the high half of the 128-bit product of the draw and the
// range's size (Lemire's multiply-shift). Its bias, under size / 2^64, is far below anything a test could see.
inline int64_t uniform_int(std::mt19937_64& rng, int64_t low, int64_t high) {
  const uint64_t size = static_cast<uint64_t>(high - low) + 1;  // 0 only for the full 64-bit range, unused here
  return low + static_cast<int64_t>(high_64_bits_of_product(rng(), size));
}

}  // namespace gemm
