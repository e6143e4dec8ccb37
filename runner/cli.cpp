#include "runner/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>

#include "common/errors.h"
#include "git_commit.h"
#include "runner/layout.h"

namespace gemm {
namespace {

int parse_kernel_id(const std::string& text) {
  int id = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || id < 0)
    throw UsageError("bad kernel id '" + text + "': expected a number such as 2 (see `gemm list`)");
  return id;
}

// "1024x1024x1024, 2048x2048x2048 and 4096x14336x4096", for the help.
std::string shape_list_text(const std::vector<Shape>& shapes) {
  std::string text;
  for (size_t i = 0; i < shapes.size(); ++i)
    text += (i == 0 ? "" : i + 1 == shapes.size() ? " and " : ", ") + to_string(shapes[i]);
  return text;
}

// "all" -> {} (every kernel); "3,1,3" -> {3, 1}: each id once, in the order first given.
std::vector<int> parse_kernel_list(const std::string& text) {
  std::vector<int> ids;
  if (text == "all") return ids;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const int id = parse_kernel_id(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ids;
}

// --inject-fault: absent, or the fault it names. An empty name is refused like any other unknown one: taken for no
// fault, a test that plants one would pass without it.
std::optional<Fault> fault_option(const CLI::Option* option, const std::string& text) {
  if (!option->count()) return std::nullopt;
  if (auto fault = parse_fault(text)) return fault;
  throw UsageError("bad --inject-fault '" + text + "': expected " + fault_names());
}

// hang-in-warmup hangs the first warm-up run: refused where there is none.
void require_warmup_for(const std::optional<Fault>& fault, int warmup) {
  if (fault == Fault::kHangInWarmup && warmup < 1)
    throw UsageError("--inject-fault hang-in-warmup needs --warmup 1 or more: it hangs the first warm-up run");
}

// Each shape once, in the order first given, as kernel ids are (parse_kernel_list): a shape named twice (in one
// list, or in --sizes and --shapes) is neither run nor reported twice.
std::vector<Shape> each_once(const std::vector<Shape>& shapes) {
  std::vector<Shape> unique;
  for (const Shape& shape : shapes)
    if (std::find(unique.begin(), unique.end(), shape) == unique.end()) unique.push_back(shape);
  return unique;
}

// A seed: a decimal integer from 0 to kMaxSeed. Anything else is refused, never clamped or wrapped.
uint64_t parse_seed(const std::string& text) {
  uint64_t seed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || seed > kMaxSeed)
    throw UsageError("bad --seed '" + text + "': expected an integer from 0 to " + std::to_string(kMaxSeed));
  return seed;
}

// --timeout: from a millisecond (no kernel run, launch included, finishes in less; 1e-300 is no limit anyone means)
// to 1e6 seconds.
constexpr double kMinTimeoutSeconds = 1e-3;
constexpr double kMaxTimeoutSeconds = 1e6;

std::optional<double> timeout_option(const CLI::Option* option, double seconds) {
  if (!option->count()) return std::nullopt;
  if (!(seconds >= kMinTimeoutSeconds && seconds <= kMaxTimeoutSeconds))  // NaN fails both
    throw UsageError("--timeout must be a number of seconds from 0.001 to 1e6, got " + option->as<std::string>());
  return seconds;
}

}  // namespace

Command parse_command_line(int argc, const char* const* argv) {
  CLI::App app{"gemm: run, check and compare the GEMM ladder's bf16 kernels (C = A·Bᵀ) against cuBLAS.\n"
               "Exit codes: 0 ok, 1 a result was wrong, 2 bad usage, a shape/GPU a kernel cannot take, or output\n"
               "(a report, stdout) that cannot be written,\n"
               "3 CUDA or cuBLAS error, 4 a kernel did not finish in time (hung), 77 no usable CUDA GPU.",
               "gemm"};
  app.set_version_flag("--version", std::string("gemm-ladder ") + GEMM_VERSION + " (" + GEMM_GIT_COMMIT + ")");
  app.require_subcommand(1, 1);
  app.fallthrough(false);

  ListCommand list_command;
  auto* list = app.add_subcommand("list", "List the kernels: id, name, technique, architecture, shape rule");
  list->add_flag("--json", list_command.json, "One JSON document, for scripts");
  list->add_flag("--details", list_command.details,
                 "Also registers per thread, shared and local memory of each kernel (needs the GPU)");

  std::string run_id, run_fault, run_seed;
  int run_size = 0, run_m = 0, run_n = 0, run_k = 0;
  double run_timeout = 0;
  RunCommand run_defaults;
  auto* run = app.add_subcommand("run", "Validate one kernel against cuBLAS, then time it");
  run->add_option("id", run_id, "Kernel id (see `gemm list`)")->required();
  auto* run_size_option = run->add_option("--size", run_size, "M = N = K = S (default 4096)");
  auto* run_m_option = run->add_option("--m", run_m, "Rows of A and C");
  auto* run_n_option = run->add_option("--n", run_n, "Rows of B, columns of C");
  auto* run_k_option = run->add_option("--k", run_k, "The reduction dimension");
  run->add_option("--reps", run_defaults.reps, "Timed repetitions (median reported)")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  run->add_option("--warmup", run_defaults.warmup, "Untimed repetitions first")
      ->capture_default_str()->check(CLI::Range(0, 100000));
  run->add_flag("--hot", run_defaults.hot, "Keep the L2 warm (default: flush it before every rep)");
  auto* run_seed_option = run->add_option("--seed", run_seed, "Input seed (default: random, printed)");
  auto* run_fault_option =
      run->add_option("--inject-fault", run_fault, std::string("Plant a fault to test the checks: ") + fault_names());
  auto* run_timeout_option = run->add_option(
      "--timeout", run_timeout, "Seconds a kernel run may take before it counts as hung (default: 10 + 100x cuBLAS)");

  std::string check_ids, check_shapes = "suite", check_fault, check_seed, check_reference = "cublas",
                                                                       check_inputs = "uniform";
  double check_timeout = 0;
  CheckCommand check_defaults;
  auto* check = app.add_subcommand("check", "Validate kernels over a set of shapes and seeds");
  check->add_option("id", check_ids, "Kernel id, comma-separated ids, or all")->required();
  check->add_option("--shapes", check_shapes,
                    "suite (the default), MxNxK[,MxNxK...] and model presets (" + model_preset_names() +
                        "), or random:N (N shapes per shape rule, drawn from the seed)");
  check->add_option("--seeds", check_defaults.seeds, "Seeds per shape")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  auto* check_seed_option = check->add_option("--seed", check_seed, "First seed (default: random, printed)");
  auto* check_fault_option = check->add_option("--inject-fault", check_fault,
                                               std::string("Plant a fault to test the checks: ") + fault_names());
  check->add_option("--reference", check_reference,
                    "cublas (default), or simple: the runner's own fp32 kernel, for compute-sanitizer runs");
  check->add_option("--inputs", check_inputs,
                    "uniform (default: random in [-1, 1)), or exact: -1, 0 and 1, whose sums are exact in fp32, "
                    "compared with tolerance 0 (catches a skipped k step at any K below 2^24)");
  auto* check_timeout_option = check->add_option(
      "--timeout", check_timeout, "Seconds a kernel run may take before it counts as hung (default: 10 + 100x cuBLAS)");

  std::string compare_ids = "all", compare_sizes, compare_shapes, compare_out, compare_seed, compare_fault;
  double compare_timeout = 0;
  CompareCommand compare_defaults;
  auto* compare = app.add_subcommand("compare", "Time several kernels against cuBLAS in one run, interleaved rep by rep");
  compare->add_option("--kernels", compare_ids,
                      "all (the default), or comma-separated ids (cuBLAS is always included)");
  auto* sizes_option = compare->add_option("--sizes", compare_sizes, "Square sizes, e.g. 1024,4096");
  auto* shapes_option = compare->add_option(
      "--shapes", compare_shapes,
      "Shapes MxNxK[,MxNxK...] and model presets (" + model_preset_names() +
          "); with neither --sizes nor --shapes: " + shape_list_text(default_compare_shapes()));
  compare->add_option("--reps", compare_defaults.reps, "Timed repetitions per kernel and shape")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  compare->add_option("--warmup", compare_defaults.warmup, "Untimed repetitions first")
      ->capture_default_str()->check(CLI::Range(0, 100000));
  compare->add_flag("--hot", compare_defaults.hot, "Keep the L2 warm (default: flush it before every rep)");
  compare->add_flag("--blocked", compare_defaults.blocked,
                    "Time each kernel alone: 2 s back to back, then at least 2 s of reps, at the clock its own power allows "
                    "(default: interleaved rep by rep)");
  auto* compare_seed_option = compare->add_option(
      "--seed", compare_seed, "Seed of the inputs and of the order of the kernels (default: random, printed)");
  auto* out_option = compare->add_option("--out", compare_out, "Write compare.csv, compare.json and compare.md here");
  auto* compare_fault_option = compare->add_option("--inject-fault", compare_fault,
                                                   std::string("Plant a fault to test the checks: ") + fault_names());
  auto* compare_timeout_option = compare->add_option(
      "--timeout", compare_timeout, "Seconds a kernel run may take before it counts as hung (default: 10 + 100x cuBLAS)");

  LayoutCommand layout_command;
  CLI::App* layout = add_layout_subcommand(app, layout_command);  // runner/layout.cpp
  ExplainCommand explain_command;
  std::string explain_shapes;
  CLI::App* explain = add_explain_subcommand(app, explain_command, explain_shapes);  // runner/explain.cpp

  // CLI11 would call an unknown command word "a missing subcommand"; name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    if (word != "list" && word != "run" && word != "check" && word != "compare" && word != "layout" &&
        word != "explain")
      throw UsageError("unknown command '" + word +
                       "': expected list, run, check, compare, layout or explain (see gemm --help)");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    // Help for the subcommand the user named, else the whole program.
    for (const CLI::App* sub : app.get_subcommands()) return HelpCommand{sub->help()};
    return HelpCommand{app.help()};
  } catch (const CLI::CallForAllHelp&) {
    return HelpCommand{app.help("", CLI::AppFormatMode::All)};
  } catch (const CLI::CallForVersion&) {
    return VersionCommand{};
  } catch (const CLI::ParseError& error) {
    std::string message = error.what();
    if (message.empty()) message = "bad command line";
    throw UsageError(message + " (see gemm --help)");
  }

  if (list->parsed()) return list_command;
  if (layout->parsed()) {
    if (layout->count("--svg") > 0 && layout_command.svg.empty()) throw UsageError("--svg needs a file name");
    return layout_command;
  }
  if (explain->parsed()) {
    // A bad shape is a usage error now; an empty --shapes is one too, not the default shapes.
    if (explain->count("--shapes") > 0) explain_command.shapes = parse_shape_list(explain_shapes);
    return explain_command;
  }

  if (run->parsed()) {
    RunCommand command = run_defaults;
    command.kernel = parse_kernel_id(run_id);
    const int dims_given = static_cast<int>(run_m_option->count() > 0) + static_cast<int>(run_n_option->count() > 0) +
                           static_cast<int>(run_k_option->count() > 0);
    if (run_size_option->count() && dims_given)
      throw UsageError("give either --size or --m/--n/--k, not both");
    if (dims_given != 0 && dims_given != 3) throw UsageError("give all three of --m, --n and --k (or --size)");
    const auto positive = [](int value, const char* option) {
      if (value < 1) throw UsageError(std::string(option) + " must be at least 1, got " + std::to_string(value));
      return value;
    };
    if (dims_given == 3) {
      command.shape = {positive(run_m, "--m"), positive(run_n, "--n"), positive(run_k, "--k")};
    } else {
      const int size = run_size_option->count() ? positive(run_size, "--size") : 4096;
      command.shape = {size, size, size};
    }
    if (run_seed_option->count()) command.seed = parse_seed(run_seed);
    command.fault = fault_option(run_fault_option, run_fault);
    require_warmup_for(command.fault, command.warmup);
    command.timeout = timeout_option(run_timeout_option, run_timeout);
    return command;
  }

  if (check->parsed()) {
    CheckCommand command = check_defaults;
    command.kernels = parse_kernel_list(check_ids);
    if (check_shapes.rfind("random:", 0) == 0)
      command.random_shapes = parse_random_shape_count(check_shapes);
    else if (check_shapes != "suite")
      command.shapes = each_once(parse_shape_list(check_shapes));
    if (check_seed_option->count()) {
      command.seed = parse_seed(check_seed);
      if (*command.seed > kMaxSeed - static_cast<uint64_t>(command.seeds - 1))
        throw UsageError("--seed " + check_seed + " with --seeds " + std::to_string(command.seeds) +
                         " runs past the largest seed, " + std::to_string(kMaxSeed));
    }
    command.fault = fault_option(check_fault_option, check_fault);
    if (command.fault == Fault::kHangInWarmup)
      throw UsageError("--inject-fault hang-in-warmup is for run and compare: check runs no warm-up");
    command.timeout = timeout_option(check_timeout_option, check_timeout);
    if (check_reference == "simple")
      command.reference = Reference::kSimple;
    else if (check_reference != "cublas")
      throw UsageError("bad --reference '" + check_reference + "': expected cublas or simple");
    if (check_inputs == "exact")
      command.inputs = InputKind::kExact;
    else if (check_inputs != "uniform")
      throw UsageError("bad --inputs '" + check_inputs + "': expected uniform or exact");
    if (command.inputs == InputKind::kExact)
      for (const Shape& shape : command.shapes)
        if (shape.k >= kMaxExactK)
          throw UsageError("--inputs exact takes K below 2^24 (its sums must stay exact in fp32), not " +
                           to_string(shape));
    return command;
  }

  CompareCommand command = compare_defaults;
  command.kernels = parse_kernel_list(compare_ids);
  if (sizes_option->count())
    for (int size : parse_size_list(compare_sizes)) command.shapes.push_back({size, size, size});
  if (shapes_option->count())
    for (const Shape& shape : parse_shape_list(compare_shapes)) command.shapes.push_back(shape);
  command.shapes = each_once(command.shapes);
  if (compare_seed_option->count()) command.seed = parse_seed(compare_seed);
  command.fault = fault_option(compare_fault_option, compare_fault);
  require_warmup_for(command.fault, command.warmup);
  command.timeout = timeout_option(compare_timeout_option, compare_timeout);
  if (out_option->count()) {
    if (compare_out.empty()) throw UsageError("--out needs a directory");
    command.out = compare_out;
  }
  return command;
}

}  // namespace gemm
