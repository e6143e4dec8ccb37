// Where a producer or consumer stands in a ring of shared-memory stages. Introduced by kernel 06.
//
// Kernels 04-05 derived the stage and phase from the k-block index (stage = k % kStages, phase = k / kStages
// % 2), which works while a CTA computes one tile. A persistent CTA walks many tiles through the same ring,
// so the position must run on across tiles: the producer's fill of a new tile's first k block goes to
// whatever stage comes next. Each side keeps its own PipelineState and advances it once per k block.
//
//   stage   which slot of the ring (0 .. kStages - 1)
//   phase   the parity of the slot's current round: it flips every time the ring wraps around. Consumers
//           wait on full[stage] for parity `phase`; the producer waits on empty[stage] for parity `phase ^ 1`
//           (for the first round that names the phase before a fresh barrier's first, which counts as done).
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include <cstdint>

namespace gemm {

template <int kStages>
struct PipelineState {
  static_assert(kStages >= 1);
  int stage = 0;
  uint32_t phase = 0;

  __host__ __device__ void advance() {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1u;
    }
  }
  // `steps` stages at once (kernel 14's ping-pong: a warpgroup's position passes the other's tile by).
  __host__ __device__ void advance(int steps) {
    const int total = stage + steps;
    stage = total % kStages;
    phase ^= static_cast<uint32_t>(total / kStages) & 1u;
  }
};

}  // namespace gemm
