// What `gemm compare` reports: a table on stdout and, with --out, compare.csv / compare.json / compare.md.
#pragma once

#include <algorithm>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/signal_cleanup.h"
#include "runner/watchdog.h"

namespace gemm {

struct Environment {
  std::string gpu;
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  double l2_mib = 0;
  double memory_gib = 0;
  int max_sm_clock_mhz = 0;
  std::string driver;   // CUDA driver API version, "13.0"
  std::string driver_release;  // NVML's driver version, "580.159.04" (may be empty)
  std::string runtime;  // CUDA runtime version
  std::string cublas;
  std::string gemm_version;
  std::string git_commit;  // the commit the binary was built from ("52077f9", "-dirty" when modified)
  std::string timestamp_utc;
};

struct CompareSettings {
  int warmup = 0;
  int reps = 0;
  bool cold_l2 = true;
  unsigned long long seed = 0;
  bool blocked = false;  // each kernel timed alone (--blocked) rather than interleaved rep by rep
};

// How the kernels were timed, as compare.json's settings.order and the console say it: "interleaved" or "blocked".
inline const char* timing_order(const CompareSettings& settings) {
  return settings.blocked ? "blocked" : "interleaved";
}

// One kernel on one shape. Timing fields are empty when the kernel did not run (refused or failed).
struct ResultRow {
  int kernel = 0;
  std::string name;
  int m = 0, n = 0, k = 0;
  std::optional<double> ms_median, ms_q1, ms_q3, tflops, vs_cublas;
  std::optional<double> max_abs_err, max_rel_err, rel_l2_err;
  std::optional<double> sm_clock_mhz, power_w;  // NVML, over the shape's timed interval
  std::string status;  // "ok", "wrong: ...", "refused: ..."
  // Every timed rep's time in the order the reps ran (compare.json only): where the clock follows the power of the
  // mix, a kernel's reps can fall in two humps, and the median's quartiles alone do not show it.
  std::vector<double> samples_ms;
};

// The CSV columns, in order (the required ones of docs/design.md first).
const std::vector<std::string>& csv_columns();

void write_csv(std::ostream& out, const std::vector<ResultRow>& rows);
nlohmann::json to_json(const Environment& environment, const CompareSettings& settings,
                       const std::vector<ResultRow>& rows);
// The text of compare.json: `document` indented by two spaces a level, arrays of numbers on one line, a newline last.
std::string json_text(const nlohmann::json& document);
void write_markdown(std::ostream& out, const Environment& environment, const CompareSettings& settings,
                    const std::vector<ResultRow>& rows);
// The width of the kernel-name column of the stdout tables (compare's, check's lines, list): 18, or wider where
// the longest `name` of `named` (registry entries, result rows) needs it (the experiments' names can be long).
template <typename Named>
int name_column_width(const Named& named) {
  size_t longest_name = 0;
  for (const auto& item : named) longest_name = std::max(longest_name, item.name.size());
  return static_cast<int>(std::max<size_t>(18, longest_name + 2));
}
// The stdout table.
void write_table(std::ostream& out, const std::vector<ResultRow>& rows);
std::string environment_line(const Environment& environment);

// Writes compare.csv, compare.json and compare.md into `directory`, all three or none: each is written to a
// temporary name (compare.csv.tmp) first; then earlier reports are moved aside (compare.csv.previous) and the new
// ones renamed into place, and a rename that fails undoes the ones before it, so the directory holds the earlier
// reports or the new ones, never a mix (and no temporary or moved-aside file); the earlier ones are removed last.
void write_reports(const std::filesystem::path& directory, const Environment& environment,
                   const CompareSettings& settings, const std::vector<ResultRow>& rows);

// The --out directory, probed before any GPU work: created if missing, and a file written to it and
// removed, so a bad --out fails at once (UsageError) rather than after minutes of measuring. If this object
// created the directory and keep() is never called (the run failed), it removes the directory again when
// it goes, so a failed run leaves nothing behind; so do SIGINT and SIGTERM (runner/signal_cleanup.h) and the
// watchdog.
class OutputDirectory {
 public:
  explicit OutputDirectory(std::filesystem::path directory);
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;
  ~OutputDirectory();
  const std::filesystem::path& path() const { return directory_; }
  // write_reports into the directory with SIGINT and SIGTERM held off until it is done, then keep().
  void write_reports(const Environment& environment, const CompareSettings& settings,
                     const std::vector<ResultRow>& rows);
  void keep() {
    keep_ = true;
    set_hang_cleanup({});
    cleanup_on_signal_.disarm();
  }

 private:
  std::filesystem::path directory_;
  std::filesystem::path created_;  // the outermost directory this object created; empty when none
  bool keep_ = false;
  CleanupOnSignal cleanup_on_signal_;
};

}  // namespace gemm
