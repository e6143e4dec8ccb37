// Test inputs on the device: seeded random bf16, and the poison that marks unwritten outputs.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/gemm_problem.h"
#include "runner/tolerance.h"

namespace gemm {

// Fill `count` elements with bf16(uniform[-1, 1)) from a counter-based generator: element i depends only
// on (seed, stream_id, i), so A and B get independent values and any element can be reproduced.
void fill_uniform_bf16(bf16* data, size_t count, uint64_t seed, uint32_t stream_id, cudaStream_t stream);

// The same, with values −1, 0 and 1 only (each with probability 1/3): inputs whose products and sums are
// exact in fp32 (runner/tolerance.h, "Exact inputs").
void fill_ternary_bf16(bf16* data, size_t count, uint64_t seed, uint32_t stream_id, cudaStream_t stream);

// fill_uniform_bf16 or fill_ternary_bf16, as `kind` says.
void fill_inputs_bf16(InputKind kind, bf16* data, size_t count, uint64_t seed, uint32_t stream_id,
                      cudaStream_t stream);

// Elements of a buffer that no longer hold what they should: how many, and the lowest index (meaningless when
// `count` is 0).
struct ElementChanges {
  uint64_t count = 0;
  uint64_t first = 0;
};

// The elements of `data` that no longer hold what fill_inputs_bf16(kind, ..., seed, stream_id) wrote there: a
// kernel that wrote into its inputs.
ElementChanges find_input_changes(InputKind kind, const bf16* data, size_t count, uint64_t seed, uint32_t stream_id,
                                  cudaStream_t stream);

// The elements of `data` whose bits differ from `copy`'s (a kernel that wrote into the reference R, kept twice).
ElementChanges find_copy_changes(const bf16* data, const bf16* copy, size_t count, cudaStream_t stream);

// Fill with kPoisonBits (runner/tolerance.h).
void fill_poison(bf16* data, size_t count, cudaStream_t stream);

// The value fill_uniform_bf16 writes at index i, computed on the host (used by tests).
float uniform_bf16_value(uint64_t seed, uint32_t stream_id, uint64_t index);
// The value fill_ternary_bf16 writes at index i, computed on the host (used by tests).
float ternary_bf16_value(uint64_t seed, uint32_t stream_id, uint64_t index);
// The value fill_inputs_bf16(kind, ...) writes at index i, computed on the host.
float input_bf16_value(InputKind kind, uint64_t seed, uint32_t stream_id, uint64_t index);

}  // namespace gemm
