// The fp64 dot products behind validation's sampled elements (runner/validate.cu): each sampled row of A with each
// sampled row of B, streamed through host memory a chunk of K at a time, so that the host memory they take is
// bounded at any K.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace gemm {

// Elements of K per row held at once. Whole rows in double took 8·K bytes each, 16 of B and one of A at a time plus
// their bf16 copies (about 170 GiB at K = 2^30, on a GPU where A and B of 1 × 2^30 take 4 GiB); chunks of 2^16 take
// (rows + columns) × 512 KiB, 16 MiB for the 16 + 16 that validation samples, at any K.
constexpr int kSampleChunk = 1 << 16;

enum class SampledMatrix { kA, kB };

// Reads `count` elements (at most kSampleChunk) of row `row` of A or B, from k = `first` on, into `out` as doubles.
using SampledRowReader = std::function<void(SampledMatrix matrix, int row, int64_t first, int count, double* out)>;

// Σ_k A[rows[i], k] · B[cols[j], k] over k = 0 .. k - 1 in fp64, at [i · cols.size() + j]. The products are added in
// order of k, chunk after chunk, as one loop over whole rows adds them: the same sums, bit for bit.
std::vector<double> sampled_dot_products(const std::vector<int>& rows, const std::vector<int>& cols, int k,
                                         const SampledRowReader& read);

}  // namespace gemm
