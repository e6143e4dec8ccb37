// Kernel 0: the cuBLAS reference, through cublasLt.
//
// cuBLAS is column-major; our row-major C = A·Bᵀ is, read column-major, Cᵀ (N × M) = B · Aᵀ with B stored
// as a K × N column-major matrix (hence op T) and A as K × M (op N): the "TN" layout cuBLAS is fastest at.
// For each shape the runner asks cublasLt for its top heuristics, times the candidates the way `gemm compare`
// times kernels, and keeps the fastest, so kernel 0 is the best cuBLAS offers for that shape rather than its first
// guess. Only algorithms that accumulate and reduce in fp32 are candidates: kernel 0 is also the reference.
#include <cublasLt.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common/cuda_check.h"
#include "common/gemm_problem.h"
#include "runner/device.h"
#include "runner/timing.h"
#include "runner/watchdog.h"

namespace gemm {
namespace {

constexpr size_t kWorkspaceBytes = 32u << 20;  // NVIDIA recommends 32 MiB of workspace on Hopper
constexpr int kCandidateAlgorithms = 8;
// Cold-L2 reps of each candidate, interleaved; the one with the smallest median is kept. Under a power limit one
// rep of a large shape can be several per cent off its neighbours; a median of 15 is not (docs/design.md, "kernel 0").
constexpr int kSelectionReps = 15;

void cublas_check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError(std::string("cuBLAS ") + call + " failed: " + cublasLtGetStatusString(status));
}
#define CUBLAS_CHECK(call) cublas_check((call), #call)

class LtContext {
 public:
  static LtContext& get() {
    static LtContext context;
    return context;
  }
  cublasLtHandle_t handle() const { return handle_; }
  void* workspace() const { return workspace_.get(); }
  std::map<std::tuple<int, int, int>, cublasLtMatmulAlgo_t> chosen;  // per (m, n, k)

 private:
  LtContext() : workspace_(kWorkspaceBytes, "the cuBLAS workspace") { CUBLAS_CHECK(cublasLtCreate(&handle_)); }
  ~LtContext() { cublasLtDestroy(handle_); }
  cublasLtHandle_t handle_ = nullptr;
  DeviceBuffer<unsigned char> workspace_;
};

// Descriptors of one problem; shared by the returned launch.
struct LtPlan {
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t layout_b = nullptr;  // cuBLAS's "A": our B, K × N column-major, op T
  cublasLtMatrixLayout_t layout_a = nullptr;  // cuBLAS's "B": our A, K × M column-major, op N
  cublasLtMatrixLayout_t layout_c = nullptr;  // N × M column-major = our row-major C
  cublasLtMatmulAlgo_t algorithm{};
  GemmProblem problem;
  float alpha = 1.0f;
  float beta = 0.0f;

  explicit LtPlan(const GemmProblem& p) : problem(p) {
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t transpose = CUBLAS_OP_T, no_transpose = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSB, &no_transpose, sizeof no_transpose));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_b, CUDA_R_16BF, p.k, p.n, p.k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_a, CUDA_R_16BF, p.k, p.m, p.k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_c, CUDA_R_16BF, p.n, p.m, p.n));
  }
  ~LtPlan() {
    cublasLtMatrixLayoutDestroy(layout_c);
    cublasLtMatrixLayoutDestroy(layout_a);
    cublasLtMatrixLayoutDestroy(layout_b);
    cublasLtMatmulDescDestroy(operation);
  }
  LtPlan(const LtPlan&) = delete;
  LtPlan& operator=(const LtPlan&) = delete;

  void run(const cublasLtMatmulAlgo_t& algo, cudaStream_t stream) const {
    const LtContext& context = LtContext::get();
    CUBLAS_CHECK(cublasLtMatmul(context.handle(), operation, &alpha, problem.b, layout_b, problem.a, layout_a, &beta,
                                problem.c, layout_c, problem.c, layout_c, &algo, context.workspace(), kWorkspaceBytes,
                                stream));
  }
};

cublasLtMatmulAlgo_t choose_algorithm(const LtPlan& plan) {
  LtContext& context = LtContext::get();
  const auto key = std::make_tuple(plan.problem.m, plan.problem.n, plan.problem.k);
  if (auto found = context.chosen.find(key); found != context.chosen.end()) return found->second;

  cublasLtMatmulPreference_t preference = nullptr;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
  const size_t workspace = kWorkspaceBytes;
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                    sizeof workspace));
  // Split-K algorithms whose partial sums are reduced in the output type (bf16: INPLACE or OUTPUT_TYPE) round
  // every partial sum to 8 bits and miss the fp64 reference by a bf16 ulp of the partial sums (seen on an H200
  // at 2688x2455x1489); only reductions in the compute type (fp32) make a reference.
  const uint32_t reduction_schemes = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                                    &reduction_schemes, sizeof reduction_schemes));
  cublasLtMatmulHeuristicResult_t results[kCandidateAlgorithms] = {};
  int returned = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(context.handle(), plan.operation, plan.layout_b, plan.layout_a, plan.layout_c,
                                     plan.layout_c, preference, kCandidateAlgorithms, results, &returned);
  cublasLtMatmulPreferenceDestroy(preference);
  cublas_check(status, "cublasLtMatmulAlgoGetHeuristic");
  if (returned == 0) throw CudaError("cuBLAS found no algorithm for this GEMM");

  // Time the candidates as `gemm compare` times kernels: interleaved rep by rep in a balanced order, each rep after
  // an L2 flush, at whatever clock the mix runs at. Timed one after another (five hot reps each, as the runner did
  // first), each candidate of a large shape ran at the clock the power limiter had reached by its turn: five
  // selections in a row on an H100 kept three different algorithms at 8192³, one 3 % slower than the best.
  std::vector<int> usable;
  for (int i = 0; i < returned; ++i)
    if (results[i].state == CUBLAS_STATUS_SUCCESS) usable.push_back(i);
  if (usable.empty()) throw CudaError("cuBLAS returned no usable algorithm for this GEMM");
  std::vector<GemmLaunch> launches;
  for (int i : usable)
    launches.push_back({[&plan, algo = results[i].algo](cudaStream_t stream) { plan.run(algo, stream); }});
  std::vector<TimedLaunch> timed;
  const double limit = reference_time_limit(plan.problem.m, plan.problem.n, plan.problem.k);
  for (const GemmLaunch& launch : launches) timed.push_back({&launch, limit, {}, {}});  // named by the caller's context
  int device = 0, l2_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  const L2Flusher flusher(static_cast<size_t>(l2_bytes));
  const Stream stream;
  const std::vector<Timing> timings =
      time_interleaved(timed, TimingSettings{.warmup = 1, .reps = kSelectionReps, .cold_l2 = true}, flusher,
                       stream.get());
  const auto fastest = std::ranges::min_element(timings, {}, [](const Timing& timing) { return timing.ms.median; });
  const int best = usable[fastest - timings.begin()];
  context.chosen[key] = results[best].algo;
  return results[best].algo;
}

}  // namespace

GemmLaunch prepare_cublas(const GemmProblem& problem) {
  auto plan = std::make_shared<LtPlan>(problem);
  plan->algorithm = choose_algorithm(*plan);
  return {[plan](cudaStream_t stream) { plan->run(plan->algorithm, stream); }};
}

std::string cublas_version() {
  const size_t version = cublasLtGetVersion();  // major * 10000 + minor * 100 + patch
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." + std::to_string(version % 100);
}

}  // namespace gemm
