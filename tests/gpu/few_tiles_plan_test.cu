// GPU test of the launch kernel 16 hands a plan to (kernels/15_few_tiles.cu, prepare_few_tiles_plan): kernel 16 plans
// kernel 15 with kernel 14's resident clusters and launches that plan as it is, so a plan made for another count of
// resident clusters must be refused, not launched (its round barrier would wait for clusters that never start).
// Checked: a plan for this GPU's clusters is prepared; one for a cluster more, or for a 2 × 2 plan given the clusters
// of two, throws std::logic_error naming both counts. Nothing is launched. Exit 0 pass, 1 fail, 77 no Hopper GPU.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "common/device_buffer.h"
#include "common/few_tiles.h"
#include "common/gemm_problem.h"
#include "tests/gpu/gpu_test_main.h"

namespace gemm {

GemmLaunch prepare_few_tiles_plan(const GemmProblem& problem, const FewTilesPlan& plan);
int pingpong_resident_clusters();
int few_tiles_quad_clusters();

namespace {

// Whether preparing `plan` throws a logic_error whose message holds `words`.
bool refused(const GemmProblem& problem, const FewTilesPlan& plan, const std::string& words) {
  try {
    prepare_few_tiles_plan(problem, plan);
  } catch (const std::logic_error& error) {
    return std::string(error.what()).find(words) != std::string::npos;
  }
  return false;
}

int run() {
  const GpuInfo gpu = select_gpu_or_skip();
  if (gpu.cc_major != 9) throw SkipTest("kernel 15 needs sm_90a; this GPU is " + gpu.name);
  constexpr int m = 256, n = 4096, k = 4096;  // 32 cluster tiles of 128 × 128 in two shares over 64 clusters
  DeviceBuffer<bf16> a(size_t{m} * k, "A"), b(size_t{n} * k, "B"), c(size_t{m} * n, "C");
  const GemmProblem problem{m, n, k, a.get(), b.get(), c.get()};
  const int clusters = pingpong_resident_clusters();
  int failures = 0;
  const auto expect = [&](bool passed, const char* what) {
    std::printf("%s: %s\n", passed ? "ok" : "FAILED", what);
    failures += !passed;
  };

  const FewTilesPlan fitting = plan_few_tiles_or_transposed(m, n, k, clusters);
  bool prepared = true;
  try {
    prepare_few_tiles_plan(problem, fitting);
  } catch (const std::logic_error&) {
    prepared = false;
  }
  expect(prepared, "a plan for this GPU's resident clusters is prepared");

  const FewTilesPlan one_more = plan_few_tiles_or_transposed(m, n, k, clusters + 1);
  expect(refused(problem, one_more, "a plan for " + std::to_string(clusters + 1) + " resident clusters; this GPU keeps " +
                                        std::to_string(clusters)),
         "a plan for one cluster more is refused, both counts named");

  FewTilesPlan as_quad = fitting;  // the same schedule claimed for 2 × 2 clusters, of which fewer are resident
  as_quad.cluster_m = as_quad.cluster_n = 2;
  expect(few_tiles_quad_clusters() == clusters || refused(problem, as_quad, "resident clusters"),
         "a plan of clusters of two passed off as 2 x 2 is refused");
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace gemm

int main() { return gemm::gpu_test_main("few_tiles_plan_test", gemm::run); }
