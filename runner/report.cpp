#include "runner/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "common/errors.h"
#include "runner/watchdog.h"

namespace gemm {
namespace {

std::string format_number(const std::optional<double>& value, int precision, bool scientific = false) {
  if (!value) return "";
  std::ostringstream text;
  if (scientific)
    text << std::scientific << std::setprecision(precision) << *value;
  else
    text << std::fixed << std::setprecision(precision) << *value;
  return text.str();
}

// CSV quoting: fields with commas or quotes are quoted, quotes doubled.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// Rep times to 0.1 µs, finer than CUDA events resolve (about 0.5 µs), so each prints in a few digits.
nlohmann::json samples_json(const std::vector<double>& samples_ms) {
  nlohmann::json samples = nlohmann::json::array();
  for (const double ms : samples_ms) samples.push_back(std::round(ms * 1e4) / 1e4);
  return samples;
}

// compare.json's text: indented as nlohmann's dump(2) writes it, but an array of numbers (a row's samples) on one
// line, so two hundred reps take one line of the file and not two hundred.
void write_json(std::ostream& out, const nlohmann::json& value, int indent) {
  const auto is_number = [](const nlohmann::json& item) { return item.is_number(); };
  const bool numbers_only = value.is_array() && std::all_of(value.begin(), value.end(), is_number);
  if (value.empty() || !value.is_structured() || numbers_only) {
    out << value.dump();
    return;
  }
  const std::string inner(static_cast<size_t>(indent) + 2, ' ');
  out << (value.is_object() ? "{\n" : "[\n");
  bool first = true;
  for (const auto& [key, item] : value.items()) {
    out << (first ? "" : ",\n") << inner;
    if (value.is_object()) out << nlohmann::json(key).dump() << ": ";
    write_json(out, item, indent + 2);
    first = false;
  }
  out << "\n" << std::string(static_cast<size_t>(indent), ' ') << (value.is_object() ? "}" : "]");
}

namespace fs = std::filesystem;

std::filesystem::path temporary_name(const std::filesystem::path& path) { return path.string() + ".tmp"; }
// Where an earlier report waits while the new one is renamed into place.
std::filesystem::path previous_name(const std::filesystem::path& path) { return path.string() + ".previous"; }

// `path` absolute and lexically normal, without a trailing separator.
fs::path normal_absolute(const fs::path& path) {
  std::error_code ignored;
  const fs::path normal = fs::absolute(path, ignored).lexically_normal();
  return normal.has_filename() || normal == normal.root_path() ? normal : normal.parent_path();
}

// The outermost directory that creating `directory` creates (absolute); empty when `directory` exists.
fs::path outermost_missing(const fs::path& directory) {
  std::error_code error;
  if (fs::exists(directory, error)) return {};
  fs::path created = fs::absolute(directory, error);
  while (created.has_parent_path() && created.parent_path() != created && !fs::exists(created.parent_path(), error))
    created = created.parent_path();
  return created;
}

// The directories from `directory` up to `outermost`, innermost first: what rmdir removes, in order, to undo
// creating them. `directory` alone where `outermost` is not among its ancestors; none where it is empty.
std::vector<fs::path> created_chain(const fs::path& directory, const fs::path& outermost) {
  if (outermost.empty()) return {};
  const fs::path last = normal_absolute(outermost);
  std::vector<fs::path> chain;
  for (fs::path path = normal_absolute(directory);; path = path.parent_path()) {
    chain.push_back(path);
    if (path == last) return chain;
    if (!path.has_relative_path()) break;  // the root, and `outermost` not met
  }
  return {chain.front()};
}

constexpr const char* kWriteProbe = ".gemm-write-probe";

void write_temporary(const std::filesystem::path& path, const std::string& contents) {
  std::ofstream out(temporary_name(path), std::ios::binary | std::ios::trunc);
  out << contents;
  out.flush();
  if (!out) throw UsageError("cannot write " + temporary_name(path).string());
}

}  // namespace

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> columns = {
      "kernel",      "name",       "m",         "n",          "k",           "ms_median", "ms_q1",
      "ms_q3",       "tflops",     "vs_cublas", "max_rel_err", "status",     "max_abs_err", "rel_l2_err",
      "sm_clock_mhz", "power_w"};
  return columns;
}

void write_csv(std::ostream& out, const std::vector<ResultRow>& rows) {
  const auto& columns = csv_columns();
  for (size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << columns[i];
  out << "\n";
  for (const ResultRow& row : rows) {
    out << row.kernel << "," << csv_field(row.name) << "," << row.m << "," << row.n << "," << row.k << ","
        << format_number(row.ms_median, 5) << "," << format_number(row.ms_q1, 5) << "," << format_number(row.ms_q3, 5)
        << "," << format_number(row.tflops, 2) << "," << format_number(row.vs_cublas, 3) << ","
        << format_number(row.max_rel_err, 3, true) << "," << csv_field(row.status) << ","
        << format_number(row.max_abs_err, 3, true) << "," << format_number(row.rel_l2_err, 3, true) << ","
        << format_number(row.sm_clock_mhz, 0) << "," << format_number(row.power_w, 1) << "\n";
  }
}

nlohmann::json to_json(const Environment& environment, const CompareSettings& settings,
                       const std::vector<ResultRow>& rows) {
  nlohmann::json document;
  document["environment"] = {
      {"gpu", environment.gpu},
      {"compute_capability", environment.compute_capability},
      {"sm_count", environment.sm_count},
      {"l2_mib", environment.l2_mib},
      {"memory_gib", environment.memory_gib},
      {"max_sm_clock_mhz", environment.max_sm_clock_mhz},
      {"cuda_driver", environment.driver},
      {"driver_release", environment.driver_release},
      {"cuda_runtime", environment.runtime},
      {"cublas", environment.cublas},
      {"gemm_version", environment.gemm_version},
      {"git_commit", environment.git_commit},
      {"timestamp_utc", environment.timestamp_utc},
  };
  document["settings"] = {
      {"warmup", settings.warmup}, {"reps", settings.reps}, {"cold_l2", settings.cold_l2}, {"seed", settings.seed},
      {"order", timing_order(settings)}};
  document["rows"] = nlohmann::json::array();
  for (const ResultRow& row : rows) {
    document["rows"].push_back({
        {"kernel", row.kernel},
        {"name", row.name},
        {"m", row.m},
        {"n", row.n},
        {"k", row.k},
        {"ms_median", optional_json(row.ms_median)},
        {"ms_q1", optional_json(row.ms_q1)},
        {"ms_q3", optional_json(row.ms_q3)},
        {"tflops", optional_json(row.tflops)},
        {"vs_cublas", optional_json(row.vs_cublas)},
        {"max_rel_err", optional_json(row.max_rel_err)},
        {"status", row.status},
        {"max_abs_err", optional_json(row.max_abs_err)},
        {"rel_l2_err", optional_json(row.rel_l2_err)},
        {"sm_clock_mhz", optional_json(row.sm_clock_mhz)},
        {"power_w", optional_json(row.power_w)},
        {"samples_ms", samples_json(row.samples_ms)},
    });
  }
  return document;
}

std::string environment_line(const Environment& e) {
  std::ostringstream text;
  std::string sm = e.compute_capability;  // "9.0" -> "sm_90"
  sm.erase(std::remove(sm.begin(), sm.end(), '.'), sm.end());
  text << e.gpu << " (sm_" << sm << ", " << e.sm_count << " SMs, " << std::fixed
       << std::setprecision(0) << e.l2_mib << " MiB L2), driver " << e.driver
       << (e.driver_release.empty() ? "" : " (" + e.driver_release + ")") << ", runtime " << e.runtime << ", cuBLAS "
       << e.cublas;
  return text.str();
}

void write_markdown(std::ostream& out, const Environment& environment, const CompareSettings& settings,
                    const std::vector<ResultRow>& rows) {
  out << "# gemm compare\n\n";
  out << "- GPU: " << environment_line(environment) << "\n";
  out << "- " << settings.reps << " reps after " << settings.warmup << " warm-up, "
      << (settings.cold_l2 ? "cold L2 (flushed before every rep)" : "hot L2") << ", "
      << (settings.blocked ? "each kernel timed alone, after running back to back (--blocked)"
                           : "kernels interleaved rep by rep")
      << ", seed " << settings.seed << "\n";
  out << "- gemm " << environment.gemm_version << ", commit " << environment.git_commit << ", "
      << environment.timestamp_utc << "\n\n";
  out << "| kernel | name | M | N | K | median ms | q1 | q3 | TFLOP/s | vs cuBLAS | max rel err | SM MHz | W | status |\n";
  out << "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const ResultRow& row : rows) {
    out << "| " << row.kernel << " | " << row.name << " | " << row.m << " | " << row.n << " | " << row.k << " | "
        << format_number(row.ms_median, 4) << " | " << format_number(row.ms_q1, 4) << " | "
        << format_number(row.ms_q3, 4) << " | " << format_number(row.tflops, 1) << " | "
        << format_number(row.vs_cublas, 2) << " | " << format_number(row.max_rel_err, 2, true) << " | "
        << format_number(row.sm_clock_mhz, 0) << " | " << format_number(row.power_w, 0) << " | " << row.status
        << " |\n";
  }
}

void write_table(std::ostream& out, const std::vector<ResultRow>& rows) {
  const int names = name_column_width(rows);
  out << std::left << std::setw(4) << "id" << std::setw(names) << "name" << std::right << std::setw(20) << "shape"
      << std::setw(11) << "ms" << std::setw(10) << "TFLOP/s" << std::setw(11) << "vs cuBLAS" << std::setw(11)
      << "max rel" << "  " << "status\n";
  for (const ResultRow& row : rows) {
    const std::string shape = std::to_string(row.m) + "x" + std::to_string(row.n) + "x" + std::to_string(row.k);
    out << std::left << std::setw(4) << row.kernel << std::setw(names) << row.name << std::right << std::setw(20)
        << shape << std::setw(11) << format_number(row.ms_median, 4) << std::setw(10) << format_number(row.tflops, 1)
        << std::setw(11) << format_number(row.vs_cublas, 2) << std::setw(11) << format_number(row.max_rel_err, 1, true)
        << "  " << row.status << "\n";
  }
}

std::string json_text(const nlohmann::json& document) {
  std::ostringstream text;
  write_json(text, document, 0);
  text << "\n";
  return text.str();
}

void write_reports(const std::filesystem::path& directory, const Environment& environment,
                   const CompareSettings& settings, const std::vector<ResultRow>& rows) {
  std::filesystem::create_directories(directory);
  std::ostringstream csv, markdown;
  write_csv(csv, rows);
  write_markdown(markdown, environment, settings, rows);
  const std::vector<std::pair<std::filesystem::path, std::string>> files = {
      {directory / "compare.csv", csv.str()},
      {directory / "compare.json", json_text(to_json(environment, settings, rows))},
      {directory / "compare.md", markdown.str()},
  };
  std::error_code ignored;
  try {
    for (const auto& [path, contents] : files) write_temporary(path, contents);
  } catch (...) {
    for (const auto& file : files) fs::remove(temporary_name(file.first), ignored);
    throw;
  }
  // The earlier reports aside, then the new ones into place, each rename remembered so that a failure undoes them
  // all, last first: the directory then holds the earlier reports as they were (a directory in a report's place is
  // left alone; renaming a report onto it fails, and undoes the rest).
  std::vector<std::pair<fs::path, fs::path>> renamed;  // from, to
  const auto rename_remembered = [&renamed](const fs::path& from, const fs::path& to) {
    fs::rename(from, to);
    renamed.emplace_back(from, to);
  };
  try {
    for (const auto& file : files) {
      const fs::file_status earlier = fs::symlink_status(file.first);
      if (fs::exists(earlier) && !fs::is_directory(earlier)) rename_remembered(file.first, previous_name(file.first));
    }
    for (const auto& file : files) rename_remembered(temporary_name(file.first), file.first);
  } catch (...) {
    for (auto undo = renamed.rbegin(); undo != renamed.rend(); ++undo) fs::rename(undo->second, undo->first, ignored);
    for (const auto& file : files) fs::remove(temporary_name(file.first), ignored);
    throw;
  }
  for (const auto& file : files) fs::remove(previous_name(file.first), ignored);
}

// The probe is the one file the run writes before its reports; the handler removes it with the directories.
OutputDirectory::OutputDirectory(std::filesystem::path directory)
    : directory_(std::move(directory)),
      created_(outermost_missing(directory_)),
      cleanup_on_signal_({directory_ / kWriteProbe}, created_chain(directory_, created_),
                         created_.empty() ? "nothing was written to --out"
                                          : "the --out directory it had created was removed") {
  std::error_code error;
  if (std::filesystem::exists(directory_, error) && !std::filesystem::is_directory(directory_, error))
    throw UsageError("--out " + directory_.string() + " exists and is not a directory");
  if (!created_.empty()) {
    std::filesystem::create_directories(directory_, error);
    if (error) {
      created_.clear();
      throw UsageError("--out " + directory_.string() + " cannot be created: " + error.message());
    }
  }
  const std::filesystem::path probe = directory_ / kWriteProbe;
  {
    std::ofstream out(probe, std::ios::binary | std::ios::trunc);
    out << "probe\n";
    out.flush();
    if (!out) {
      if (!created_.empty()) std::filesystem::remove_all(created_, error);
      throw UsageError("--out " + directory_.string() + " is not writable");
    }
  }
  std::filesystem::remove(probe, error);
  if (!created_.empty())
    set_hang_cleanup([created = created_] {
      std::error_code ignored;
      std::filesystem::remove_all(created, ignored);
    });
}

void OutputDirectory::write_reports(const Environment& environment, const CompareSettings& settings,
                                    const std::vector<ResultRow>& rows) {
  cleanup_on_signal_.run_uninterrupted([&] {
    gemm::write_reports(directory_, environment, settings, rows);
    keep();
  });
}

OutputDirectory::~OutputDirectory() {
  if (created_.empty()) return;
  set_hang_cleanup({});
  if (keep_) return;
  std::error_code ignored;
  std::filesystem::remove_all(created_, ignored);
}

}  // namespace gemm
