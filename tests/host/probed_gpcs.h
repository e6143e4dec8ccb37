// The GPC labels the probes (common/gpc_probe.h) gave on every H100 and H200 measured, for a launch of the ping-pong
// kernel (kernel 14; 66 clusters of 2): the first four clusters on four SM pairs no probe joined to a GPC (SMs
// 124-131), then the clusters dealt round robin over eight GPCs of 9, 9, 8, 8, 8, 8, 8 and 4 clusters. Shared by the
// host tests of common/gpc_rounds.h and common/round_barrier.h.
#pragma once

#include <vector>

namespace gemm {

inline std::vector<int> probed_cluster_labels() {
  std::vector<int> labels = {130, 124, 126, 128};
  for (int lap = 0; lap < 4; ++lap)
    for (int gpc = 0; gpc < 8; ++gpc) labels.push_back(2 * gpc);
  for (int lap = 0; lap < 4; ++lap)
    for (int gpc = 1; gpc < 8; ++gpc) labels.push_back(2 * gpc);
  labels.push_back(12);
  labels.push_back(14);
  return labels;
}

}  // namespace gemm
