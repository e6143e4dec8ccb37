// GPU test of the GPC probes (common/gpc_probe.h) on a Hopper GPU: they find GPCs and never merge two.
//
// GH100 has 8 GPCs of at most 9 TPCs, 2 SMs each (NVIDIA H100 Tensor Core GPU Architecture whitepaper, "H100 SM
// architecture"): a group of SMs with one label may hold at most 18, or the union-find joined two GPCs. Clusters of
// 8 CTAs, portable, fit on every GPC of an H100 or H200, so the probes must join most SMs into groups of 8 or more
// (on the machines measured, 124 of 132). The labels of a launch like kernel 14's ping-pong kernel's (66 clusters of
// 2 CTAs) are then one per cluster, each the label of an SM, and as many clusters share one as the GPC holds pairs:
// at most 9. Exit 0 pass, 1 fail, 77 no GPU or not a Hopper GPU.
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "common/gpc_probe.h"
#include "tests/gpu/gpu_test_main.h"

namespace gemm {
namespace {

constexpr int kMostSmsPerGpc = 18;  // GH100: 9 TPCs of 2 SMs per GPC

int run() {
  const GpuInfo gpu = select_gpu_or_skip();
  if (gpu.cc_major != 9) throw SkipTest("the probe's limits are GH100's; this GPU is " + gpu.name);
  int failures = 0;

  const std::vector<int> gpc_of_sm = probe_sm_gpcs();
  std::map<int, int> sms_of_label;
  for (int sm = 0; sm < gpu.sm_count; ++sm) ++sms_of_label[gpc_of_sm.at(sm)];
  int largest = 0, in_big_groups = 0;
  std::printf("SMs per label:");
  for (const auto& [label, sms] : sms_of_label) {
    std::printf(" %d", sms);
    largest = std::max(largest, sms);
    if (sms >= 8) in_big_groups += sms;
  }
  std::printf("\n");
  const bool merged_none = largest <= kMostSmsPerGpc;
  std::printf("%s the largest group holds %d SMs (a GPC holds at most %d)\n", merged_none ? "ok  " : "FAIL", largest,
              kMostSmsPerGpc);
  failures += !merged_none;
  const bool found = 4 * in_big_groups >= 3 * gpu.sm_count;
  std::printf("%s %d of %d SMs in groups of 8 or more\n", found ? "ok  " : "FAIL", in_big_groups, gpu.sm_count);
  failures += !found;

  // A launch shaped like kernel 14's ping-pong kernel's: one CTA per SM (200 KB of shared memory), 384 threads,
  // clusters of 2, as many as fit (one per SM pair).
  const int clusters = gpu.sm_count / 2;
  const std::vector<int> labels = probe_cluster_gpcs(2 * clusters, 384, 200 * 1024, 2);
  std::map<int, int> clusters_of_label;
  bool every_label_an_sms = labels.size() == static_cast<size_t>(clusters);
  for (int label : labels) {
    ++clusters_of_label[label];
    every_label_an_sms = every_label_an_sms && sms_of_label.count(label) == 1;
  }
  std::printf("%s %zu labels for %d clusters, each an SM group's\n", every_label_an_sms ? "ok  " : "FAIL",
              labels.size(), clusters);
  failures += !every_label_an_sms;
  int most_clusters = 0;
  std::printf("clusters per label:");
  for (const auto& [label, count] : clusters_of_label) {
    std::printf(" %d", count);
    most_clusters = std::max(most_clusters, count);
  }
  std::printf("\n");
  const bool fits = most_clusters <= kMostSmsPerGpc / 2;
  std::printf("%s at most %d clusters of 2 share a label (a GPC holds %d)\n", fits ? "ok  " : "FAIL", most_clusters,
              kMostSmsPerGpc / 2);
  failures += !fits;
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace gemm

int main() { return gemm::gpu_test_main("gpc_probe_test", gemm::run); }
