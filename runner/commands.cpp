// The four commands: list, run, check, compare.
#include "runner/commands.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string_view>
#include <tuple>

#include <nlohmann/json.hpp>
#include <nvtx3/nvToolsExt.h>

#include "common/cuda_check.h"
#include "git_commit.h"
#include "kernels/registry.h"
#include "runner/device.h"
#include "runner/footprint.h"
#include "runner/inputs.h"
#include "runner/nvml.h"
#include "runner/report.h"
#include "runner/simple_reference.h"
#include "runner/timing.h"
#include "runner/validate.h"
#include "runner/watchdog.h"

namespace gemm {

std::string cublas_version();  // runner/cublas_gemm.cpp

namespace {

// ---- argument checks that need no GPU -----------------------------------------------------------------

const KernelInfo& require_kernel(int id) {
  const KernelInfo* kernel = find_kernel(id);
  if (!kernel) throw UsageError("unknown kernel id " + std::to_string(id) + "; known ids: " + known_kernel_ids());
  return *kernel;
}

// The width of the name column in the list and in check's lines, for every registered kernel's name.
int kernel_name_width() { return name_column_width(all_kernels()); }

std::string kernel_label(const KernelInfo& kernel) {
  return "kernel " + std::to_string(kernel.id) + " (" + std::string(kernel.name) + ")";
}

// What ErrorContext and the watchdog name: "kernel 3 (tma_wgmma) at 100x100x100, seed 7".
std::string activity(const KernelInfo& kernel, const Shape& shape, uint64_t seed) {
  return kernel_label(kernel) + " at " + to_string(shape) + ", seed " + std::to_string(seed);
}

void require_shape(const KernelInfo& kernel, const Shape& shape) {
  if (auto refusal = shape_refusal(kernel.shape_rule, shape.m, shape.n, shape.k))
    throw UsageError(kernel_label(kernel) + " cannot take " + to_string(shape) + ": " + *refusal);
}

// ---- the GPU -----------------------------------------------------------------------------------------

// A kernel's launcher, prepared for `problem`, with its set-up finished on the device. Launchers may copy
// tables and clear flags with cudaMemcpy and cudaMemset (kernels 09-14 do), which run on the legacy default
// stream and may return before the device has done them; the runner's streams are non-blocking and would not
// wait for them. An event behind them on that stream, waited for within a limit like every wait on the GPU.
GemmLaunch prepared(const KernelInfo& kernel, const GemmProblem& problem) {
  GemmLaunch launch = kernel.prepare(problem);
  const Event set_up;
  set_up.record(cudaStreamLegacy);
  wait_for_event(set_up.get(), kHangSlackSeconds,
                 "the launcher's set-up (copies on the default stream) did not complete, before the kernel ran: "
                 "another process or an earlier kernel may be holding the GPU");
  return launch;
}

bool runs_here(const KernelInfo& kernel, const GpuInfo& gpu) {
  return arch_runs_on(kernel.arch, gpu.cc_major, gpu.cc_minor);
}

std::string gpu_label(const GpuInfo& gpu) {
  return gpu.name + " (sm_" + std::to_string(gpu.cc_major) + std::to_string(gpu.cc_minor) + ")";
}

void require_arch(const KernelInfo& kernel, const GpuInfo& gpu) {
  if (!runs_here(kernel, gpu))
    throw UsageError(kernel_label(kernel) + " needs " + std::string(arch_name(kernel.arch)) + "; this GPU is " +
                     gpu_label(gpu));
}

std::string version_text(int version) {  // 13000 -> "13.0"
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

Environment make_environment(const GpuInfo& gpu) {
  Environment environment;
  environment.gpu = gpu.name;
  environment.compute_capability = std::to_string(gpu.cc_major) + "." + std::to_string(gpu.cc_minor);
  environment.sm_count = gpu.sm_count;
  environment.l2_mib = gpu.l2_bytes / 1048576.0;
  environment.memory_gib = gpu.memory_bytes / 1073741824.0;
  environment.max_sm_clock_mhz = gpu.max_sm_clock_mhz;
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  environment.driver = version_text(driver);
  environment.runtime = version_text(runtime);
  environment.driver_release = nvml_driver_version();
  environment.cublas = cublas_version();
  environment.gemm_version = GEMM_VERSION;
  environment.git_commit = GEMM_GIT_COMMIT;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::ostringstream stamp;
  stamp << std::put_time(&utc, "%Y-%m-%dT%H:%M:%SZ");
  environment.timestamp_utc = stamp.str();
  return environment;
}

uint64_t fresh_seed() {
  std::random_device device;
  return (uint64_t{device()} << 32 | device()) % 1000000007ull;  // short enough to retype
}

// "154 registers/thread, 197.7 KB shared memory, 0 B local memory": what ptxas gave the kernel.
std::string kernel_resources(const GemmLaunch& launch) {
  if (!launch.kernel) return "library kernel (no attributes)";
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, launch.kernel));
  std::ostringstream text;
  text << attributes.numRegs << " registers/thread, " << std::fixed << std::setprecision(1)
       << (attributes.sharedSizeBytes + attributes.maxDynamicSharedSizeBytes) / 1024.0 << " KB shared memory, "
       << attributes.localSizeBytes << " B local memory (spills, stack)";
  return text.str();
}

// ---- one shape's buffers -----------------------------------------------------------------------------

// Poison elements on each side of every C (64 KiB each, keeping C 128-byte aligned): a write past C lands
// there and fails validation as "out of bounds".
constexpr size_t kGuardElements = 32768;

// A, B, cuBLAS's result R and a copy of it (to find a kernel that wrote into R), and `outputs` matrices C (one per
// kernel timed together, so each kernel's last timed result can be validated), each with a poisoned guard band on
// both sides.
class ProblemBuffers {
 public:
  ProblemBuffers(const Shape& shape, int outputs) : shape_(shape) {
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Summed with overflow checks: a sum that wrapped could pass (runner/footprint.h). Past this, every size fits.
    const std::optional<uint64_t> needed = problem_device_bytes(shape, outputs, kGuardElements);
    if (!needed || *needed > free_bytes)
      throw CudaError(out_of_device_memory_message(shape, outputs, needed, free_bytes));
    const size_t c_elements = static_cast<size_t>(shape.m) * shape.n;
    a_ = DeviceBuffer<bf16>(static_cast<size_t>(shape.m) * shape.k, "A");
    b_ = DeviceBuffer<bf16>(static_cast<size_t>(shape.n) * shape.k, "B");
    reference_ = DeviceBuffer<bf16>(c_elements, "the reference");
    reference_copy_ = DeviceBuffer<bf16>(c_elements, "the reference's copy");
    for (int i = 0; i < outputs; ++i) outputs_.emplace_back(c_elements + 2 * kGuardElements, "C");
  }

  // Fresh inputs from `seed`, and R = cuBLAS(A, B) (or the simple reference kernel's), whose time sets the
  // watchdog's limits.
  void prepare_inputs(uint64_t seed, cudaStream_t stream, Reference reference = Reference::kCublas,
                      InputKind inputs = InputKind::kUniform) {
    const ErrorContext context(std::string(reference == Reference::kCublas ? "the cuBLAS" : "the simple") +
                               " reference at " + to_string(shape_) + ", seed " + std::to_string(seed));
    inputs_ = inputs;
    seed_ = seed;
    fill_inputs_bf16(inputs, a_.get(), a_.size(), seed, kStreamA, stream);
    fill_inputs_bf16(inputs, b_.get(), b_.size(), seed, kStreamB, stream);
    wait_for_stream(stream, kHangSlackSeconds);  // cuBLAS's algorithm selection runs on a stream of its own
    GemmProblem reference_problem = problem(0);
    reference_problem.c = reference_.get();
    const Event start, stop;
    if (reference == Reference::kCublas) {
      const GemmLaunch reference_launch = prepared(*find_kernel(0), reference_problem);
      start.record(stream);
      reference_launch(stream);
      stop.record(stream);
    } else {
      start.record(stream);
      simple_reference_gemm(reference_problem, stream);
      stop.record(stream);
    }
    wait_for_stream(stream, reference_time_limit(shape_.m, shape_.n, shape_.k));
    reference_ms_ = elapsed_ms(start, stop);
    accept_reference(stream);
  }

  GemmProblem problem(int output) const {
    return {shape_.m, shape_.n, shape_.k, a_.get(), b_.get(), outputs_[output].get() + kGuardElements};
  }
  bf16* reference() const { return reference_.get(); }
  double reference_ms() const { return reference_ms_; }
  InputKind inputs() const { return inputs_; }
  // C of `output` and its guard bands, all poison.
  void poison(int output, cudaStream_t stream) const {
    fill_poison(outputs_[output].get(), outputs_[output].size(), stream);
  }
  // The elements of A and B that differ from what prepare_inputs wrote (a kernel wrote into its inputs); when
  // there are any, A and B are written afresh, so that the kernels after it read what the reference read.
  StrayWrites check_inputs(cudaStream_t stream) const {
    StrayWrites writes;
    for (const auto& [matrix, data, stream_id] : {std::tuple{"A", &a_, kStreamA}, std::tuple{"B", &b_, kStreamB}}) {
      const ElementChanges changes = find_input_changes(inputs_, data->get(), data->size(), seed_, stream_id, stream);
      if (changes.count == 0) continue;
      writes.record(matrix, changes.count, changes.first, shape_.k,
                    __bfloat162float(copy_element_to_host(data->get() + changes.first)),
                    input_bf16_value(inputs_, seed_, stream_id, changes.first));
    }
    if (writes.count == 0) return writes;
    fill_inputs_bf16(inputs_, a_.get(), a_.size(), seed_, kStreamA, stream);
    fill_inputs_bf16(inputs_, b_.get(), b_.size(), seed_, kStreamB, stream);
    wait_for_stream(stream, kHangSlackSeconds);
    return writes;
  }
  // The elements of R that differ from its copy (a kernel wrote into R); when there are any, R is restored from
  // the copy, so that the kernels after it are judged against what cuBLAS computed.
  StrayWrites check_reference(cudaStream_t stream) const {
    StrayWrites writes;
    const ElementChanges changes =
        find_copy_changes(reference_.get(), reference_copy_.get(), reference_.size(), stream);
    if (changes.count == 0) return writes;
    writes.record("R", changes.count, changes.first, shape_.n,
                  __bfloat162float(copy_element_to_host(reference_.get() + changes.first)),
                  __bfloat162float(copy_element_to_host(reference_copy_.get() + changes.first)));
    copy_reference(reference_, reference_copy_, stream);
    return writes;
  }
  // R as it is now becomes what check_reference expects: once it is computed, and after the runner changed it
  // on purpose (the fault `reference`).
  void accept_reference(cudaStream_t stream) const { copy_reference(reference_copy_, reference_, stream); }

 private:
  static constexpr uint32_t kStreamA = 0, kStreamB = 1;  // the generator's streams: A and B independent

  // R or its copy onto the other, finished when it returns.
  static void copy_reference(const DeviceBuffer<bf16>& to, const DeviceBuffer<bf16>& from, cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(to.get(), from.get(), from.size() * sizeof(bf16), cudaMemcpyDeviceToDevice, stream));
    wait_for_stream(stream, kHangSlackSeconds);
  }

  Shape shape_;
  DeviceBuffer<bf16> a_, b_, reference_, reference_copy_;
  std::vector<DeviceBuffer<bf16>> outputs_;
  double reference_ms_ = 0;
  InputKind inputs_ = InputKind::kUniform;
  uint64_t seed_ = 0;
};

// The watchdog's limit for one run of a kernel on the buffers' shape.
double time_limit(const ProblemBuffers& buffers, const std::optional<double>& timeout) {
  return timeout.value_or(kernel_time_limit(buffers.reference_ms()));
}

// An NVTX range for the lifetime of the object. `gemm run` opens one ("gemm run") around the validated launch of
// the kernel it runs, after cuBLAS's algorithm selection: scripts/profile.sh profiles the first launch inside it,
// which for kernel 0 is the algorithm the timed reps use rather than the first candidate the selection tries.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

// C of `output` validated, and A, B and R checked for writes: those first, so that the fp64 samples read the inputs
// the reference read and C is judged against what cuBLAS computed (check_inputs and check_reference restore what
// changed), and a write into them is not also reported as a reference that disagrees with the samples.
Validation validate_run(const ProblemBuffers& buffers, int output, uint64_t seed, cudaStream_t stream) {
  const StrayWrites input_writes = buffers.check_inputs(stream);
  const StrayWrites reference_writes = buffers.check_reference(stream);
  Validation validation = validate(buffers.problem(output), buffers.reference(), kGuardElements, seed, stream,
                                   buffers.inputs());
  validation.input_writes = input_writes;
  validation.reference_writes = reference_writes;
  return validation;
}

// Poison C (and its guard bands), run the launch once, optionally plant a fault (not one of the warm-up), validate.
Validation run_and_validate(const GemmLaunch& launch, const ProblemBuffers& buffers, int output, uint64_t seed,
                            const std::optional<Fault>& fault, double limit, cudaStream_t stream) {
  const GemmProblem problem = buffers.problem(output);
  buffers.poison(output, stream);
  launch(stream);
  // A fault of the warm-up is the timed phase's (hanging_after_first_run): this run stays clean.
  const std::optional<Fault> planted = fault && !fault_is_in_warmup(*fault) ? fault : std::nullopt;
  if (planted && fault_is_a_launch(*planted)) inject_fault(*planted, problem, buffers.reference(), seed, stream);
  wait_for_stream(stream, limit);
  if (planted && !fault_is_a_launch(*planted)) inject_fault(*planted, problem, buffers.reference(), seed, stream);
  if (fault == Fault::kReference) buffers.accept_reference(stream);  // a wrong reference, not a write by the kernel
  return validate_run(buffers, output, seed, stream);
}

// The result a kernel left after its timed reps (its C was poisoned before the last one), validated again:
// a racy kernel must not be timed as correct. A, B and R are checked by the caller, who knows which kernels ran.
Validation validate_after_timing(const ProblemBuffers& buffers, int output, uint64_t seed, cudaStream_t stream) {
  return validate(buffers.problem(output), buffers.reference(), kGuardElements, seed, stream, buffers.inputs());
}

std::string format_sci(double value) {
  std::ostringstream text;
  text << std::scientific << std::setprecision(1) << value;
  return text.str();
}

std::string format_ratio(double value) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(3) << value;
  return text.str();
}

// "bias -0.003 steps (bound 0.112)": the bias check's measure next to what it may reach (runner/tolerance.h).
std::string format_bias(const BiasVerdict& bias) {
  if (!bias.judged()) return "bias not judged (" + std::to_string(bias.count) + " elements)";
  std::ostringstream text;
  text << std::fixed << std::setprecision(3) << "bias " << bias.mean << " steps (bound " << bias.bound << ")";
  return text.str();
}

// GEMM_BIAS_STATS=1: `check` prints the bias statistics of each check on a line of its own, for the measurements
// the bias check's bound was fixed from (runner/tolerance.h).
bool print_bias_statistics() {
  const char* setting = std::getenv("GEMM_BIAS_STATS");
  return setting && std::string_view(setting) == "1";
}

// "C-R mean -0.0031 spread 0.059 n 65536 bound 0.1051 | fp64 C -0.0120 (0.29) R -0.0100 (0.29) n 256".
std::string bias_statistics(const Validation& validation) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(4) << "C-R mean " << validation.bias.mean << " spread "
       << validation.bias.spread << " n " << validation.bias.count << " bound " << validation.bias.bound
       << " | fp64 C " << validation.sample_bias_kernel.mean << " (" << validation.sample_bias_kernel.spread << ") R "
       << validation.sample_bias_reference.mean << " (" << validation.sample_bias_reference.spread << ") n "
       << validation.sample_bias_reference.count;
  return text.str();
}

}  // namespace

// ---- list --------------------------------------------------------------------------------------------

int command_list(const ListCommand& command) {
  std::optional<GpuInfo> gpu;
  bool has_code = false;
  try {
    gpu = query_gpu();
    has_code = build_has_code_for(*gpu);
  } catch (const NoGpuError&) {
  }
  if (command.details && !gpu) throw NoGpuError("no usable CUDA GPU: --details reads the kernels' attributes from it");
  if (command.details && !has_code) throw UsageError(no_code_message(*gpu));
  const auto here = [&](const KernelInfo& kernel) { return gpu && has_code && runs_here(kernel, *gpu); };

  // --details: each kernel prepared for a small problem, for the attributes of the kernel it would launch.
  std::map<int, std::string> resources;
  if (command.details) {
    const Shape shape{256, 256, 64};
    ProblemBuffers buffers(shape, 1);
    for (const KernelInfo& kernel : all_kernels())
      if (here(kernel)) {
        const ErrorContext context(kernel_label(kernel) + " (attributes)");
        resources[kernel.id] = kernel_resources(prepared(kernel, buffers.problem(0)));
      }
  }

  if (command.json) {
    nlohmann::json document;
    document["gpu"] = gpu ? nlohmann::json(gpu_label(*gpu)) : nlohmann::json(nullptr);
    document["build_has_code_for_gpu"] = has_code;
    document["kernels"] = nlohmann::json::array();
    for (const KernelInfo& kernel : all_kernels()) {
      nlohmann::json entry = {{"id", kernel.id},
                              {"name", kernel.name},
                              {"arch", arch_name(kernel.arch)},
                              {"shapes", shape_rule_text(kernel.shape_rule)},
                              {"technique", kernel.technique},
                              {"runs_here", here(kernel)}};
      if (resources.count(kernel.id)) entry["resources"] = resources[kernel.id];
      document["kernels"].push_back(entry);
    }
    std::cout << document.dump(2) << "\n";
    return kExitOk;
  }

  const int names = kernel_name_width();
  std::cout << std::left << std::setw(4) << "id" << std::setw(names) << "name" << std::setw(9) << "arch"
            << std::setw(40) << "shapes" << std::setw(6) << "here" << "technique\n";
  for (const KernelInfo& kernel : all_kernels()) {
    std::cout << std::left << std::setw(4) << kernel.id << std::setw(names) << kernel.name << std::setw(9)
              << arch_name(kernel.arch) << std::setw(40) << shape_rule_text(kernel.shape_rule) << std::setw(6)
              << (gpu ? (here(kernel) ? "yes" : "no") : "-") << kernel.technique << "\n";
    if (resources.count(kernel.id)) std::cout << "    " << resources[kernel.id] << "\n";
  }
  // Until the tcgen05 kernels have run on a Blackwell GPU (docs/log/17_tcgen05.md, "What to check first on a
  // B200"), the list says so where it offers them.
  std::string never_run;
  for (const KernelInfo& kernel : all_kernels())
    if (kernel.arch == Arch::kSm100a) never_run += (never_run.empty() ? "" : ", ") + std::to_string(kernel.id);
  if (!never_run.empty())
    std::cout << "sm_100a: kernels " << never_run
              << " have not yet run on a GPU (none was at hand; CI compiles them and checks their SASS); run and check "
                 "validate them against cuBLAS before any timing\n";
  if (!gpu)
    std::cout << "here: no CUDA GPU visible\n";
  else if (!has_code)
    std::cout << "here: " << gpu_label(*gpu) << "; " << no_code_message(*gpu) << "\n";
  else
    std::cout << "here: " << gpu_label(*gpu) << "\n";
  return kExitOk;
}

// ---- run ---------------------------------------------------------------------------------------------

int command_run(const RunCommand& command) {
  const KernelInfo& kernel = require_kernel(command.kernel);
  require_shape(kernel, command.shape);
  const GpuInfo gpu = select_gpu();
  require_arch(kernel, gpu);
  const uint64_t seed = command.seed.value_or(fresh_seed());

  std::cout << "GPU     " << environment_line(make_environment(gpu)) << "\n";
  std::cout << "kernel  " << kernel.id << " " << kernel.name << "  " << to_string(command.shape) << "  seed " << seed
            << std::endl;
  Stream stream;
  ProblemBuffers buffers(command.shape, 1);
  buffers.prepare_inputs(seed, stream.get());
  const ErrorContext context(activity(kernel, command.shape, seed));
  const GemmLaunch launch = prepared(kernel, buffers.problem(0));
  const double limit = time_limit(buffers, command.timeout);
  const Validation validation = [&] {
    const NvtxRange range("gemm run");
    return run_and_validate(launch, buffers, 0, seed, command.fault, limit, stream.get());
  }();
  if (!validation.passed()) {
    std::cerr << "gemm: " << kernel_label(kernel) << " is wrong at " << to_string(command.shape) << " (seed " << seed
              << "): " << validation.failure_summary() << "\n";
    return kExitWrongResult;
  }
  std::cout << "check   ok: max error " << format_ratio(validation.max_rel_err) << " of the tolerance, max abs err "
            << format_sci(validation.max_abs_err) << ", rel L2 err " << format_sci(validation.rel_l2_err) << ", fp64 "
            << validation.samples << "/" << validation.samples << " samples, " << format_bias(validation.bias)
            << "\n";
  std::cout << "build   " << kernel_resources(launch) << "\n";

  const TimingSettings settings{command.warmup, command.reps, !command.hot};
  const L2Flusher flusher(gpu.l2_bytes);
  NvmlSampler sampler(gpu.pci_bus_id);
  // --inject-fault hang-in-warmup: the launch timed hangs on its first run, the first of the warm-up.
  const GemmLaunch timed_launch = command.fault == Fault::kHangInWarmup ? hanging_after_first_run(launch) : launch;
  const TimedLaunch timed{&timed_launch, limit, [&](cudaStream_t s) { buffers.poison(0, s); },
                          activity(kernel, command.shape, seed)};
  const Timing timing =
      time_interleaved(std::span(&timed, 1), settings, flusher, stream.get(), [&] { sampler.start(); }).front();
  const auto power = sampler.stop();
  const Validation after = validate_run(buffers, 0, seed, stream.get());
  if (!after.passed()) {
    std::cerr << "gemm: " << kernel_label(kernel) << " passed its first check but the result of its last timed rep is "
              << "wrong at " << to_string(command.shape) << " (seed " << seed << "): " << after.failure_summary()
              << "\n";
    return kExitWrongResult;
  }
  std::cout << std::fixed << std::setprecision(4) << "time    " << timing.ms.median << " ms median (q1 " << timing.ms.q1
            << ", q3 " << timing.ms.q3 << ") over " << command.reps << " reps, "
            << (command.hot ? "hot L2" : "cold L2") << "; the last rep's result checked again\n";
  std::cout << std::setprecision(1) << "speed   "
            << tflops(command.shape.m, command.shape.n, command.shape.k, timing.ms.median) << " TFLOP/s";
  if (power) std::cout << std::setprecision(0) << "  (SM " << power->sm_clock_mhz << " MHz, " << power->power_w << " W)";
  std::cout << "\n";
  return kExitOk;
}

// ---- check -------------------------------------------------------------------------------------------

int command_check(const CheckCommand& command) {
  std::vector<const KernelInfo*> kernels;
  for (int id : command.kernels) kernels.push_back(&require_kernel(id));
  const bool all_kernels_requested = kernels.empty();
  if (all_kernels_requested)
    for (const KernelInfo& kernel : all_kernels()) kernels.push_back(&kernel);
  // Shapes named explicitly for named kernels must be accepted: refuse before touching the GPU.
  if (!command.shapes.empty() && !all_kernels_requested)
    for (const KernelInfo* kernel : kernels)
      for (const Shape& shape : command.shapes) require_shape(*kernel, shape);

  const GpuInfo gpu = select_gpu();
  std::vector<const KernelInfo*> runnable;
  for (const KernelInfo* kernel : kernels) {
    if (runs_here(*kernel, gpu)) {
      runnable.push_back(kernel);
    } else if (all_kernels_requested) {
      std::cout << "skip  " << kernel_label(*kernel) << ": needs " << arch_name(kernel->arch) << "\n";
    } else {
      require_arch(*kernel, gpu);
    }
  }
  const uint64_t first_seed = command.seed.value_or(fresh_seed());

  // The shapes: the suite, the ones given, or for random:N, N shapes for each shape rule among the kernels.
  std::vector<Shape> shapes = command.shapes;
  if (command.random_shapes) {
    std::vector<ShapeRule> rules;
    for (const KernelInfo* kernel : runnable)
      if (std::find(rules.begin(), rules.end(), kernel->shape_rule) == rules.end()) rules.push_back(kernel->shape_rule);
    for (const Shape& shape : random_shapes_for_rules(rules, *command.random_shapes, first_seed))
      shapes.push_back(shape);
  } else if (shapes.empty()) {
    shapes = shape_suite();
  }
  std::cout << "GPU   " << gpu_label(gpu) << "; seeds " << first_seed << ".." << first_seed + command.seeds - 1
            << (command.random_shapes ? "; random shapes drawn from seed " + std::to_string(first_seed) : "")
            << "\n";

  Stream stream;
  const int name_width = kernel_name_width();
  int checks = 0, failures = 0;
  for (const Shape& shape : shapes) {
    std::vector<const KernelInfo*> takers;
    for (const KernelInfo* kernel : runnable)
      if (!shape_refusal(kernel->shape_rule, shape.m, shape.n, shape.k)) takers.push_back(kernel);
    if (takers.empty()) continue;
    ProblemBuffers buffers(shape, 1);
    for (int s = 0; s < command.seeds; ++s) {
      const uint64_t seed = first_seed + s;
      buffers.prepare_inputs(seed, stream.get(), command.reference, command.inputs);
      for (const KernelInfo* kernel : takers) {
        const ErrorContext context(activity(*kernel, shape, seed));
        const GemmLaunch launch = prepared(*kernel, buffers.problem(0));
        const Validation validation = run_and_validate(launch, buffers, 0, seed, command.fault,
                                                       time_limit(buffers, command.timeout), stream.get());
        ++checks;
        std::ostringstream line;
        line << std::left << std::setw(6) << (validation.passed() ? "ok" : "FAIL") << std::setw(4) << kernel->id
             << std::setw(name_width) << kernel->name << std::setw(20) << to_string(shape) << "seed "
             << std::setw(12) << seed;
        if (validation.passed()) {
          line << "max error " << format_ratio(validation.max_rel_err) << " of tolerance, rel L2 "
               << format_sci(validation.rel_l2_err) << ", " << format_bias(validation.bias);
        } else {
          ++failures;
          line << validation.failure_summary();
        }
        std::cout << line.str() << std::endl;
        if (print_bias_statistics()) std::cout << "      bias  " << bias_statistics(validation) << std::endl;
      }
    }
  }
  if (checks == 0) throw UsageError("no kernel could run any of the shapes given");
  std::cout << checks - failures << " of " << checks << " checks passed\n";
  if (failures) {
    std::cerr << "gemm: " << failures << " of " << checks << " checks failed (the FAIL lines above)\n";
    return kExitWrongResult;
  }
  return kExitOk;
}

// ---- compare -----------------------------------------------------------------------------------------

int command_compare(const CompareCommand& command) {
  std::vector<const KernelInfo*> requested;
  for (int id : command.kernels) requested.push_back(&require_kernel(id));
  std::optional<OutputDirectory> out;
  if (command.out) out.emplace(*command.out);  // probed now: a bad --out fails before any GPU work
  const std::vector<Shape> shapes = command.shapes.empty() ? default_compare_shapes() : command.shapes;

  const GpuInfo gpu = select_gpu();
  std::vector<const KernelInfo*> kernels = {find_kernel(0)};  // cuBLAS first: every ratio is against it
  if (requested.empty()) {
    for (const KernelInfo& kernel : all_kernels()) {
      if (kernel.id == 0) continue;
      if (runs_here(kernel, gpu))
        kernels.push_back(&kernel);
      else
        std::cout << "skip  " << kernel_label(kernel) << ": needs " << arch_name(kernel.arch) << "\n";
    }
  } else {
    for (const KernelInfo* kernel : requested) {
      require_arch(*kernel, gpu);
      if (kernel->id != 0 && std::find(kernels.begin(), kernels.end(), kernel) == kernels.end())
        kernels.push_back(kernel);
    }
  }

  const Environment environment = make_environment(gpu);
  const CompareSettings settings{command.warmup, command.reps, !command.hot, command.seed.value_or(fresh_seed()),
                                 command.blocked};
  std::cout << "GPU   " << environment_line(environment) << "\n";
  std::cout << "      " << settings.reps << " reps, " << (settings.cold_l2 ? "cold" : "hot") << " L2, "
            << timing_order(settings) << ", seed " << settings.seed << ", commit " << environment.git_commit << std::endl;

  Stream stream;
  const L2Flusher flusher(gpu.l2_bytes);
  std::vector<ResultRow> rows;
  bool any_wrong = false;
  for (const Shape& shape : shapes) {
    ProblemBuffers buffers(shape, static_cast<int>(kernels.size()));
    buffers.prepare_inputs(settings.seed, stream.get());
    std::vector<GemmLaunch> launches(kernels.size());
    std::vector<TimedLaunch> timed;
    std::vector<size_t> timed_rows;  // rows[timed_rows[i]] belongs to timed[i]
    std::vector<int> timed_outputs;  // and its C is output timed_outputs[i]
    const size_t first_row = rows.size();
    for (size_t i = 0; i < kernels.size(); ++i) {
      const KernelInfo& kernel = *kernels[i];
      ResultRow row;
      row.kernel = kernel.id;
      row.name = kernel.name;
      row.m = shape.m, row.n = shape.n, row.k = shape.k;
      if (auto refusal = shape_refusal(kernel.shape_rule, shape.m, shape.n, shape.k)) {
        row.status = "refused: " + *refusal;
        rows.push_back(row);
        continue;
      }
      const ErrorContext context(activity(kernel, shape, settings.seed));
      launches[i] = prepared(kernel, buffers.problem(static_cast<int>(i)));
      const double limit = time_limit(buffers, command.timeout);
      const Validation validation = run_and_validate(launches[i], buffers, static_cast<int>(i), settings.seed,
                                                     command.fault, limit, stream.get());
      row.max_abs_err = validation.max_abs_err;
      row.max_rel_err = validation.max_rel_err;
      row.rel_l2_err = validation.rel_l2_err;
      if (validation.passed()) {
        row.status = "ok";
        const int output = static_cast<int>(i);
        timed.push_back({&launches[i], limit, [&buffers, output](cudaStream_t s) { buffers.poison(output, s); },
                         activity(kernel, shape, settings.seed)});
        timed_rows.push_back(rows.size());
        timed_outputs.push_back(output);
      } else {
        row.status = "wrong: " + validation.failure_summary();
        any_wrong = true;
      }
      rows.push_back(row);
    }
    // --inject-fault hang-in-warmup: the first launch timed (cuBLAS, unless it was wrong) hangs on its first run,
    // the first of the warm-up.
    GemmLaunch hanging_launch;
    if (command.fault == Fault::kHangInWarmup && !timed.empty()) {
      hanging_launch = hanging_after_first_run(*timed.front().launch);
      timed.front().launch = &hanging_launch;
    }
    const TimingSettings timing_settings{settings.warmup, settings.reps, settings.cold_l2, settings.seed};
    std::vector<Timing> timings;
    std::vector<std::optional<PowerClockSummary>> powers;  // NVML's clock and power over each timing
    // A, B and R after the timing: alone, after each kernel; interleaved, once for all the kernels timed together,
    // since a write into them cannot be told apart by kernel there. What a kernel wrote there, as one line.
    std::vector<std::string> writes_after(timed.size());
    const auto stray_writes = [&](const char* culprit) {
      StrayWrites inputs = buffers.check_inputs(stream.get()), reference = buffers.check_reference(stream.get());
      inputs.culprit = reference.culprit = culprit;
      return stray_writes_summary(inputs, reference);
    };
    if (settings.blocked) {
      // Each kernel alone, as a program calling one GEMM in a loop runs it: first kBlockedWarmupSeconds of it
      // back to back, then its warm-up and at least kBlockedTimedSeconds of timed reps. Under a power limit it is
      // timed at the clock its own power draw allows (interleaved, the clock follows the power of the whole mix),
      // and NVML's samples belong to it alone.
      for (const TimedLaunch& launch : timed) {
        const int warm_up_runs = warm_up_for(launch, kBlockedWarmupSeconds, settings.cold_l2, flusher, stream.get());
        TimingSettings alone = timing_settings;  // at least kBlockedTimedSeconds of timed reps
        alone.reps = std::max(settings.reps, static_cast<int>(std::ceil(kBlockedTimedSeconds * warm_up_runs /
                                                                        kBlockedWarmupSeconds)));
        NvmlSampler sampler(gpu.pci_bus_id);
        timings.push_back(
            time_interleaved(std::span(&launch, 1), alone, flusher, stream.get(), [&] { sampler.start(); }).front());
        powers.push_back(sampler.stop());
        writes_after[timings.size() - 1] = stray_writes("the kernel");
      }
    } else {
      NvmlSampler sampler(gpu.pci_bus_id);
      timings = time_interleaved(timed, timing_settings, flusher, stream.get(), [&] { sampler.start(); });
      powers.assign(timings.size(), sampler.stop());
      writes_after.assign(timed.size(), stray_writes(timed.size() > 1 ? "one of the kernels timed together"
                                                                       : "the kernel"));
    }
    std::optional<double> cublas_ms;
    for (size_t i = 0; i < timings.size(); ++i) {
      ResultRow& row = rows[timed_rows[i]];
      if (!writes_after[i].empty()) {
        row.status = "wrong after the timed reps: " + writes_after[i];
        any_wrong = true;
        continue;
      }
      const ErrorContext context(kernel_label(*find_kernel(row.kernel)) + " at " + to_string(shape) +
                                 " after its timed reps, seed " + std::to_string(settings.seed));
      const Validation after = validate_after_timing(buffers, timed_outputs[i], settings.seed, stream.get());
      if (!after.passed()) {
        row.status = "wrong after the timed reps: " + after.failure_summary();
        any_wrong = true;
        continue;
      }
      row.ms_median = timings[i].ms.median;
      row.ms_q1 = timings[i].ms.q1;
      row.ms_q3 = timings[i].ms.q3;
      row.samples_ms = timings[i].samples_ms;
      row.tflops = tflops(shape.m, shape.n, shape.k, timings[i].ms.median);
      if (row.kernel == 0) cublas_ms = timings[i].ms.median;
      if (powers[i]) row.sm_clock_mhz = powers[i]->sm_clock_mhz, row.power_w = powers[i]->power_w;
    }
    for (size_t index = first_row; index < rows.size(); ++index)
      if (cublas_ms && rows[index].ms_median)
        rows[index].vs_cublas = speedup_vs_cublas(*rows[index].ms_median, *cublas_ms);
  }

  std::cout << "\n";
  write_table(std::cout, rows);
  if (out) {
    out->write_reports(environment, settings, rows);  // all three or none, never stopped half-way by a signal
    std::cout << "wrote " << out->path().string() << "/compare.{csv,json,md}\n";
  }
  if (any_wrong) {
    std::cerr << "gemm: a kernel gave a wrong result (status column above)\n";
    return kExitWrongResult;
  }
  return kExitOk;
}

}  // namespace gemm
