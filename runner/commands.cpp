// The four commands: list, run, check, compare.
#include "runner/commands.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>

#include "common/cuda_check.h"
#include "kernels/registry.h"
#include "runner/device.h"
#include "runner/inputs.h"
#include "runner/nvml.h"
#include "runner/report.h"
#include "runner/timing.h"
#include "runner/validate.h"

namespace gemm {

std::string cublas_version();  // runner/cublas_gemm.cpp

namespace {

// ---- argument checks that need no GPU -----------------------------------------------------------------

const KernelInfo& require_kernel(int id) {
  const KernelInfo* kernel = find_kernel(id);
  if (!kernel) throw UsageError("unknown kernel id " + std::to_string(id) + "; known ids: " + known_kernel_ids());
  return *kernel;
}

std::string kernel_label(const KernelInfo& kernel) {
  return "kernel " + std::to_string(kernel.id) + " (" + std::string(kernel.name) + ")";
}

void require_shape(const KernelInfo& kernel, const Shape& shape) {
  if (auto refusal = shape_refusal(kernel.shape_rule, shape.m, shape.n, shape.k))
    throw UsageError(kernel_label(kernel) + " cannot take " + to_string(shape) + ": " + *refusal);
}

// ---- the GPU -----------------------------------------------------------------------------------------

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

// ---- one shape's buffers -----------------------------------------------------------------------------

// A, B, the kernel's C and cuBLAS's result R for one shape, with inputs drawn from `seed`.
class ProblemBuffers {
 public:
  explicit ProblemBuffers(const Shape& shape) : shape_(shape) {
    const size_t elements = static_cast<size_t>(shape.m) * shape.k + static_cast<size_t>(shape.n) * shape.k +
                            2 * static_cast<size_t>(shape.m) * shape.n;
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const size_t needed = elements * sizeof(bf16);
    if (needed > free_bytes) {
      std::ostringstream message;
      message << std::fixed << std::setprecision(1) << "out of device memory: " << to_string(shape) << " needs "
              << needed / 1073741824.0 << " GiB for A, B, C and the reference; " << free_bytes / 1073741824.0
              << " GiB are free";
      throw CudaError(message.str());
    }
    a_ = DeviceBuffer<bf16>(static_cast<size_t>(shape.m) * shape.k, "A");
    b_ = DeviceBuffer<bf16>(static_cast<size_t>(shape.n) * shape.k, "B");
    c_ = DeviceBuffer<bf16>(static_cast<size_t>(shape.m) * shape.n, "C");
    reference_ = DeviceBuffer<bf16>(static_cast<size_t>(shape.m) * shape.n, "the reference");
  }

  // Fresh inputs, and R = cuBLAS(A, B).
  void prepare_inputs(uint64_t seed, cudaStream_t stream) {
    fill_uniform_bf16(a_.get(), a_.size(), seed, 0, stream);
    fill_uniform_bf16(b_.get(), b_.size(), seed, 1, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));  // cuBLAS's algorithm selection runs on a stream of its own
    GemmProblem reference_problem = problem();
    reference_problem.c = reference_.get();
    const GemmLaunch reference_launch = find_kernel(0)->prepare(reference_problem);
    reference_launch(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  GemmProblem problem() const { return {shape_.m, shape_.n, shape_.k, a_.get(), b_.get(), c_.get()}; }
  const bf16* reference() const { return reference_.get(); }

 private:
  Shape shape_;
  DeviceBuffer<bf16> a_, b_, c_, reference_;
};

// Poison C, run the launch once, optionally plant a fault, validate.
Validation run_and_validate(const GemmLaunch& launch, const ProblemBuffers& buffers, uint64_t seed,
                            const std::optional<Fault>& fault, cudaStream_t stream) {
  const GemmProblem problem = buffers.problem();
  fill_poison(problem.c, static_cast<size_t>(problem.m) * problem.n, stream);
  launch(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if (fault) inject_fault(*fault, problem, seed);
  return validate(problem, buffers.reference(), seed, stream);
}

std::string format_sci(double value) {
  std::ostringstream text;
  text << std::scientific << std::setprecision(1) << value;
  return text.str();
}

double tflops(const Shape& shape, double ms) {
  return 2.0 * shape.m * static_cast<double>(shape.n) * shape.k / (ms * 1e-3) / 1e12;
}

}  // namespace

// ---- list --------------------------------------------------------------------------------------------

int command_list() {
  std::optional<GpuInfo> gpu;
  try {
    gpu = select_gpu();
  } catch (const NoGpuError&) {
  }
  std::cout << std::left << std::setw(4) << "id" << std::setw(18) << "name" << std::setw(9) << "arch" << std::setw(28)
            << "shapes" << std::setw(6) << "here" << "technique\n";
  for (const KernelInfo& kernel : all_kernels()) {
    const std::string here = gpu ? (runs_here(kernel, *gpu) ? "yes" : "no") : "-";
    std::cout << std::left << std::setw(4) << kernel.id << std::setw(18) << kernel.name << std::setw(9)
              << arch_name(kernel.arch) << std::setw(28) << shape_rule_text(kernel.shape_rule) << std::setw(6) << here
              << kernel.technique << "\n";
  }
  std::cout << (gpu ? "here: " + gpu_label(*gpu) : std::string("here: no CUDA GPU visible")) << "\n";
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
            << "\n";
  Stream stream;
  ProblemBuffers buffers(command.shape);
  buffers.prepare_inputs(seed, stream.get());
  const GemmLaunch launch = kernel.prepare(buffers.problem());
  const Validation validation = run_and_validate(launch, buffers, seed, command.fault, stream.get());
  if (!validation.passed()) {
    std::cerr << "gemm: " << kernel_label(kernel) << " is wrong at " << to_string(command.shape) << " (seed " << seed
              << "): " << validation.failure_summary() << "\n";
    return kExitWrongResult;
  }
  std::cout << "check   ok: max abs err " << format_sci(validation.max_abs_err) << ", max rel err "
            << format_sci(validation.max_rel_err) << ", rel L2 err " << format_sci(validation.rel_l2_err) << ", fp64 "
            << validation.samples << "/" << validation.samples << " samples\n";

  const TimingSettings settings{command.warmup, command.reps, !command.hot};
  const L2Flusher flusher(gpu.l2_bytes);
  NvmlSampler sampler(gpu.pci_bus_id);
  const Timing timing = time_interleaved(std::span(&launch, 1), settings, flusher, stream.get()).front();
  const auto power = sampler.stop();
  std::cout << std::fixed << std::setprecision(4) << "time    " << timing.ms.median << " ms median (q1 " << timing.ms.q1
            << ", q3 " << timing.ms.q3 << ") over " << command.reps << " reps, "
            << (command.hot ? "hot L2" : "cold L2") << "\n";
  std::cout << std::setprecision(1) << "speed   " << tflops(command.shape, timing.ms.median) << " TFLOP/s";
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
  const bool suite = command.shapes.empty();
  const std::vector<Shape>& shapes = suite ? shape_suite() : command.shapes;
  // Shapes named explicitly for named kernels must be accepted: refuse before touching the GPU.
  if (!suite && !all_kernels_requested)
    for (const KernelInfo* kernel : kernels)
      for (const Shape& shape : shapes) require_shape(*kernel, shape);

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
  std::cout << "GPU   " << gpu_label(gpu) << "; seeds " << first_seed << ".." << first_seed + command.seeds - 1
            << "\n";

  Stream stream;
  int checks = 0, failures = 0;
  for (const Shape& shape : shapes) {
    std::vector<const KernelInfo*> takers;
    for (const KernelInfo* kernel : runnable)
      if (!shape_refusal(kernel->shape_rule, shape.m, shape.n, shape.k)) takers.push_back(kernel);
    if (takers.empty()) continue;
    ProblemBuffers buffers(shape);
    for (int s = 0; s < command.seeds; ++s) {
      const uint64_t seed = first_seed + s;
      buffers.prepare_inputs(seed, stream.get());
      for (const KernelInfo* kernel : takers) {
        const GemmLaunch launch = kernel->prepare(buffers.problem());
        const Validation validation = run_and_validate(launch, buffers, seed, command.fault, stream.get());
        ++checks;
        std::ostringstream line;
        line << std::left << std::setw(6) << (validation.passed() ? "ok" : "FAIL") << std::setw(4) << kernel->id
             << std::setw(18) << kernel->name << std::setw(20) << to_string(shape) << "seed " << std::setw(12) << seed;
        if (validation.passed()) {
          line << "max rel err " << format_sci(validation.max_rel_err) << ", rel L2 " << format_sci(validation.rel_l2_err);
        } else {
          ++failures;
          line << validation.failure_summary();
        }
        std::cout << line.str() << std::endl;
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
  if (command.out) check_output_directory(*command.out);
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
  const CompareSettings settings{command.warmup, command.reps, !command.hot, command.seed.value_or(fresh_seed())};
  std::cout << "GPU   " << environment_line(environment) << "\n";
  std::cout << "      " << settings.reps << " reps, " << (settings.cold_l2 ? "cold" : "hot") << " L2, seed "
            << settings.seed << "\n";

  Stream stream;
  const L2Flusher flusher(gpu.l2_bytes);
  std::vector<ResultRow> rows;
  bool any_wrong = false;
  for (const Shape& shape : shapes) {
    ProblemBuffers buffers(shape);
    buffers.prepare_inputs(settings.seed, stream.get());
    std::vector<GemmLaunch> launches;
    std::vector<size_t> timed_rows;  // rows[timed_rows[i]] belongs to launches[i]
    for (const KernelInfo* kernel : kernels) {
      ResultRow row;
      row.kernel = kernel->id;
      row.name = kernel->name;
      row.m = shape.m, row.n = shape.n, row.k = shape.k;
      if (auto refusal = shape_refusal(kernel->shape_rule, shape.m, shape.n, shape.k)) {
        row.status = "refused: " + *refusal;
        rows.push_back(row);
        continue;
      }
      GemmLaunch launch = kernel->prepare(buffers.problem());
      const Validation validation = run_and_validate(launch, buffers, settings.seed, std::nullopt, stream.get());
      row.max_abs_err = validation.max_abs_err;
      row.max_rel_err = validation.max_rel_err;
      row.rel_l2_err = validation.rel_l2_err;
      if (validation.passed()) {
        row.status = "ok";
        launches.push_back(std::move(launch));
        timed_rows.push_back(rows.size());
      } else {
        row.status = "wrong: " + validation.failure_summary();
        any_wrong = true;
      }
      rows.push_back(row);
    }
    NvmlSampler sampler(gpu.pci_bus_id);
    const std::vector<Timing> timings =
        time_interleaved(launches, TimingSettings{settings.warmup, settings.reps, settings.cold_l2}, flusher, stream.get());
    const auto power = sampler.stop();
    std::optional<double> cublas_ms;
    for (size_t i = 0; i < timings.size(); ++i) {
      ResultRow& row = rows[timed_rows[i]];
      row.ms_median = timings[i].ms.median;
      row.ms_q1 = timings[i].ms.q1;
      row.ms_q3 = timings[i].ms.q3;
      row.tflops = tflops(shape, timings[i].ms.median);
      if (row.kernel == 0) cublas_ms = timings[i].ms.median;
      if (power) row.sm_clock_mhz = power->sm_clock_mhz, row.power_w = power->power_w;
    }
    for (size_t index : timed_rows)
      if (cublas_ms) rows[index].vs_cublas = *cublas_ms / *rows[index].ms_median;
  }

  std::cout << "\n";
  write_table(std::cout, rows);
  if (command.out) {
    write_reports(*command.out, environment, settings, rows);
    std::cout << "wrote " << *command.out << "/compare.{csv,json,md}\n";
  }
  if (any_wrong) {
    std::cerr << "gemm: a kernel gave a wrong result (status column above)\n";
    return kExitWrongResult;
  }
  return kExitOk;
}

}  // namespace gemm
