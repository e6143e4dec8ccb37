// What one shape's buffers take in device memory (runner/commands.cpp's ProblemBuffers), summed with overflow
// checks: the runner checks it against the free memory before it allocates anything.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runner/shapes.h"

namespace gemm {

// The bytes of A (M × K), B (N × K), the reference R and its copy (M × N each) and `outputs` matrices C (M × N, each
// with `guard_elements` of poison on either side), all bf16; nothing when the sum does not fit in 64 bits. At
// 2147483647 × 2147483647 × 8 with two outputs (compare with one kernel and cuBLAS) an unchecked sum wrapped to
// 32 GiB, passed the check on a GPU with more free, and the allocation failed with a CUDA error instead.
std::optional<uint64_t> problem_device_bytes(const Shape& shape, int outputs, uint64_t guard_elements);

// The one line of the CudaError (exit 3) for a shape that does not fit: "out of device memory: 200000x200000x200000
// needs 298.0 GiB for A, B, 1 C and the reference (twice); 139.5 GiB are free" (`needed` from problem_device_bytes;
// "more than 16 EiB" when it overflowed).
std::string out_of_device_memory_message(const Shape& shape, int outputs, const std::optional<uint64_t>& needed,
                                         uint64_t free_bytes);

}  // namespace gemm
