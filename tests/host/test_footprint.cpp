// The device memory a shape's buffers take (runner/footprint.h), summed with overflow checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "runner/footprint.h"

namespace gemm {
namespace {

constexpr uint64_t kGuard = 32768;  // runner/commands.cpp's guard band, elements on each side of C

// The same sum in 128 bits, where nothing overflows: nothing when it exceeds 64 bits.
std::optional<uint64_t> exact_bytes(const Shape& shape, int outputs, uint64_t guard) {
  using Wide = unsigned __int128;
  const Wide m = static_cast<Wide>(shape.m), n = static_cast<Wide>(shape.n), k = static_cast<Wide>(shape.k);
  const Wide bytes = 2 * (m * k + n * k + 2 * m * n + static_cast<Wide>(outputs) * (m * n + 2 * guard));
  if (bytes > std::numeric_limits<uint64_t>::max()) return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

TEST(ProblemDeviceBytes, IsAAndBTheReferenceTwiceAndEachGuardedC) {
  EXPECT_EQ(problem_device_bytes({1, 1, 1}, 1, kGuard), 2u * (1 + 1 + 2 + 1 + 2 * kGuard));
  EXPECT_EQ(problem_device_bytes({200000, 200000, 200000}, 1, kGuard),
            exact_bytes({200000, 200000, 200000}, 1, kGuard));
  EXPECT_EQ(problem_device_bytes({4096, 14336, 4096}, 12, kGuard), exact_bytes({4096, 14336, 4096}, 12, kGuard));
}

// The shape of the issue: an unchecked sum wrapped, for two outputs, to 32 GiB, which passed the check.
TEST(ProblemDeviceBytes, IsNothingWhereTheSumPasses64Bits) {
  for (int outputs : {1, 2, 6, 12})
    EXPECT_EQ(problem_device_bytes({2147483647, 2147483647, 8}, outputs, kGuard), std::nullopt) << outputs;
  EXPECT_EQ(problem_device_bytes({2147483647, 2147483647, 2147483647}, 1, kGuard), std::nullopt);
}

TEST(ProblemDeviceBytes, AgreesWithA128BitSumEverywhere) {
  const int big = std::numeric_limits<int>::max();
  for (const Shape& shape : {Shape{big, 1, 1}, Shape{1, big, big}, Shape{big, 1, big}, Shape{big, big, 1},
                             Shape{65536, 65536, 65536}, Shape{1 << 30, 1 << 30, 1}, Shape{big, 2, big},
                             Shape{1 << 20, 1 << 20, 1 << 30}, Shape{3, 5, 7}})
    for (int outputs : {1, 2, 13})
      EXPECT_EQ(problem_device_bytes(shape, outputs, kGuard), exact_bytes(shape, outputs, kGuard))
          << to_string(shape) << " with " << outputs << " outputs";
}

TEST(OutOfDeviceMemoryMessage, GivesTheFigureInGiBAndWhatIsFree) {
  EXPECT_EQ(out_of_device_memory_message({200000, 200000, 200000}, 1, uint64_t{320} << 30, uint64_t{3} << 29),
            "out of device memory: 200000x200000x200000 needs 320.0 GiB for A, B, 1 C and the reference (twice); "
            "1.5 GiB are free");
}

TEST(OutOfDeviceMemoryMessage, SaysMoreThan16EiBWhereTheSumOverflowed) {
  EXPECT_EQ(out_of_device_memory_message({2147483647, 2147483647, 8}, 2, std::nullopt, uint64_t{140} << 30),
            "out of device memory: 2147483647x2147483647x8 needs more than 16 EiB for A, B, 2 C and the reference "
            "(twice); 140.0 GiB are free");
}

}  // namespace
}  // namespace gemm
