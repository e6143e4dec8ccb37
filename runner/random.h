// Random integers that are the same from every C++ standard library. std::mt19937_64's output is fixed by the
// standard, but std::uniform_int_distribution's mapping of it is not (libstdc++, libc++ and MSVC differ), so a
// seed printed by one build would name other shapes, fault positions or samples in another.
#pragma once

#include <cstdint>
#include <random>

namespace gemm {

// An integer in [low, high] from one draw of `rng`: the high half of the 128-bit product of the draw and the
// range's size (Lemire's multiply-shift). Its bias, under size / 2^64, is far below anything a test could see.
inline int64_t uniform_int(std::mt19937_64& rng, int64_t low, int64_t high) {
  const uint64_t size = static_cast<uint64_t>(high - low) + 1;  // 0 only for the full 64-bit range, unused here
  const unsigned __int128 product = static_cast<unsigned __int128>(rng()) * size;
  return low + static_cast<int64_t>(product >> 64);
}

}  // namespace gemm
