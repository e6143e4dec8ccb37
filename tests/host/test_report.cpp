// What `gemm compare` writes (runner/report.h): CSV, JSON, Markdown, and the --out directory handling.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "runner/report.h"
#include "runner/signal_cleanup.h"

namespace gemm {
namespace {

namespace fs = std::filesystem;

Environment test_environment() {
  Environment environment;
  environment.gpu = "NVIDIA H100 80GB HBM3";
  environment.compute_capability = "9.0";
  environment.sm_count = 132;
  environment.l2_mib = 50;
  environment.memory_gib = 79.1;
  environment.max_sm_clock_mhz = 1980;
  environment.driver = "13.0";
  environment.driver_release = "580.159.04";
  environment.runtime = "13.0";
  environment.cublas = "13.0.0";
  environment.gemm_version = "0.1.0";
  environment.timestamp_utc = "2025-01-02T03:04:05Z";
  return environment;
}

CompareSettings test_settings() { return {.warmup = 3, .reps = 7, .cold_l2 = true, .seed = 1234}; }

// A row that ran: every optional present.
ResultRow timed_row() {
  ResultRow row;
  row.kernel = 2;
  row.name = "mma_sync";
  row.m = 4096, row.n = 14336, row.k = 4096;
  row.ms_median = 1.25, row.ms_q1 = 1.2, row.ms_q3 = 1.3;
  row.tflops = 384.5, row.vs_cublas = 0.75;
  row.max_abs_err = 0.01, row.max_rel_err = 0.002, row.rel_l2_err = 0.0001;
  row.sm_clock_mhz = 1755, row.power_w = 650.5;
  row.status = "ok";
  row.samples_ms = {1.3, 1.25, 1.2, 1.2500499};
  return row;
}

// A row that did not run: no optional present.
ResultRow refused_row() {
  ResultRow row;
  row.kernel = 3;
  row.name = "tma_wgmma";
  row.m = 127, row.n = 129, row.k = 65;
  row.status = "refused: N and K must be multiples of 8";
  return row;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// One CSV record (RFC 4180: quoted fields, doubled quotes) split into its fields.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// Index of a CSV column by name.
size_t column(const std::string& name) {
  const auto& columns = csv_columns();
  const auto it = std::find(columns.begin(), columns.end(), name);
  if (it == columns.end()) ADD_FAILURE() << "no CSV column " << name;
  return static_cast<size_t>(it - columns.begin());
}

std::string csv_of(const std::vector<ResultRow>& rows) {
  std::ostringstream out;
  write_csv(out, rows);
  return out.str();
}

std::string markdown_of(const std::vector<ResultRow>& rows) {
  std::ostringstream out;
  write_markdown(out, test_environment(), test_settings(), rows);
  return out.str();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A fresh, not yet existing path in the system's temporary directory, removed with everything under it
// when the test ends.
class TempPathTest : public testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    const auto* test = testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() / ("gemm_host_tests_" + std::string(test->name()) + "_" +
                                         std::to_string(std::random_device{}()) + "_" + std::to_string(counter++));
    ASSERT_FALSE(fs::exists(root_)) << root_;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  void make_file(const fs::path& path) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "not a directory\n";
    ASSERT_TRUE(fs::is_regular_file(path)) << path;
  }
  fs::path root_;
};

// ---- CSV ----------------------------------------------------------------------------------------------

TEST(CsvColumns, StartWithTheRequiredColumnsInOrder) {
  const std::vector<std::string> required = {"kernel",  "name",  "m",      "n",         "k",           "ms_median",
                                             "ms_q1",   "ms_q3", "tflops", "vs_cublas", "max_rel_err", "status"};
  const auto& columns = csv_columns();
  ASSERT_GE(columns.size(), required.size());
  EXPECT_EQ(std::vector<std::string>(columns.begin(), columns.begin() + required.size()), required);
}

TEST(CsvColumns, AreUnique) {
  const auto& columns = csv_columns();
  for (size_t i = 0; i < columns.size(); ++i)
    EXPECT_EQ(std::count(columns.begin(), columns.end(), columns[i]), 1) << columns[i];
}

TEST(WriteCsv, HeaderIsTheColumnsJoinedByCommas) {
  std::string expected;
  for (const std::string& name : csv_columns()) expected += (expected.empty() ? "" : ",") + name;
  const auto lines = lines_of(csv_of({}));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], expected);
}

TEST(WriteCsv, WritesOneLinePerRowWithEveryColumn) {
  const auto lines = lines_of(csv_of({timed_row(), refused_row()}));
  ASSERT_EQ(lines.size(), 3u);
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_EQ(csv_fields(lines[i]).size(), csv_columns().size()) << lines[i];
}

TEST(WriteCsv, TimedRowHasItsValues) {
  const auto fields = csv_fields(lines_of(csv_of({timed_row()}))[1]);
  ASSERT_EQ(fields.size(), csv_columns().size());
  EXPECT_EQ(fields[column("kernel")], "2");
  EXPECT_EQ(fields[column("name")], "mma_sync");
  EXPECT_EQ(fields[column("m")], "4096");
  EXPECT_EQ(fields[column("n")], "14336");
  EXPECT_EQ(fields[column("k")], "4096");
  EXPECT_DOUBLE_EQ(std::stod(fields[column("ms_median")]), 1.25);
  EXPECT_DOUBLE_EQ(std::stod(fields[column("tflops")]), 384.5);
  EXPECT_DOUBLE_EQ(std::stod(fields[column("vs_cublas")]), 0.75);
  EXPECT_DOUBLE_EQ(std::stod(fields[column("max_rel_err")]), 0.002);
  EXPECT_EQ(fields[column("status")], "ok");
}

TEST(WriteCsv, MissingValuesAreEmptyFields) {
  const std::string line = lines_of(csv_of({refused_row()}))[1];
  EXPECT_EQ(static_cast<size_t>(std::count(line.begin(), line.end(), ',')), csv_columns().size() - 1) << line;
  const auto fields = csv_fields(line);
  ASSERT_EQ(fields.size(), csv_columns().size());
  for (const char* name : {"ms_median", "ms_q1", "ms_q3", "tflops", "vs_cublas", "max_rel_err", "max_abs_err",
                           "rel_l2_err", "sm_clock_mhz", "power_w"})
    EXPECT_EQ(fields[column(name)], "") << name;
  EXPECT_EQ(fields[column("m")], "127");
  EXPECT_EQ(fields[column("status")], refused_row().status);
}

TEST(WriteCsv, QuotesAStatusWithACommaAndAQuote) {
  ResultRow row = timed_row();
  row.status = R"(wrong: 3 elements, first "C[0, 1]")";
  const std::string line = lines_of(csv_of({row}))[1];
  EXPECT_NE(line.find(R"("wrong: 3 elements, first ""C[0, 1]""")"), std::string::npos) << line;
  const auto fields = csv_fields(line);
  ASSERT_EQ(fields.size(), csv_columns().size()) << line;
  EXPECT_EQ(fields[column("status")], row.status);
}

// ---- JSON ---------------------------------------------------------------------------------------------

TEST(ToJson, HasEnvironmentAndSettings) {
  const nlohmann::json document = to_json(test_environment(), test_settings(), {});
  EXPECT_EQ(document.at("environment").at("gpu"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(document.at("environment").at("compute_capability"), "9.0");
  EXPECT_EQ(document.at("environment").at("sm_count"), 132);
  EXPECT_EQ(document.at("settings").at("reps"), 7);
  EXPECT_EQ(document.at("settings").at("warmup"), 3);
  EXPECT_EQ(document.at("settings").at("cold_l2"), true);
  EXPECT_EQ(document.at("settings").at("seed"), 1234);
  EXPECT_EQ(document.at("settings").at("order"), "interleaved");
  EXPECT_TRUE(document.at("rows").is_array());
  EXPECT_TRUE(document.at("rows").empty());
}

TEST(ToJson, TimedRowHasNumbers) {
  const nlohmann::json row = to_json(test_environment(), test_settings(), {timed_row()}).at("rows").at(0);
  EXPECT_EQ(row.at("kernel"), 2);
  EXPECT_EQ(row.at("name"), "mma_sync");
  EXPECT_EQ(row.at("n"), 14336);
  for (const char* name : {"ms_median", "ms_q1", "ms_q3", "tflops", "vs_cublas", "max_rel_err", "max_abs_err",
                           "rel_l2_err", "sm_clock_mhz", "power_w"})
    EXPECT_TRUE(row.at(name).is_number()) << name;
  EXPECT_DOUBLE_EQ(row.at("ms_median").get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(row.at("tflops").get<double>(), 384.5);
  EXPECT_EQ(row.at("status"), "ok");
}

TEST(ToJson, TimedRowHasItsSamplesInRunOrderTo0Point1Microseconds) {
  const nlohmann::json row = to_json(test_environment(), test_settings(), {timed_row()}).at("rows").at(0);
  EXPECT_EQ(row.at("samples_ms"), nlohmann::json({1.3, 1.25, 1.2, 1.2500}));
  EXPECT_EQ(row.at("samples_ms").dump(), "[1.3,1.25,1.2,1.25]");
  ResultRow many = timed_row();
  many.samples_ms.assign(200, 12.34567891);
  const nlohmann::json document = to_json(test_environment(), test_settings(), {many});
  const std::string dumped = document.at("rows").at(0).at("samples_ms").dump();
  EXPECT_EQ(dumped.size(), 200 * std::string("12.3457,").size() + 1) << dumped.substr(0, 40);
}

TEST(JsonText, IsDumpIndentedByTwoWithEachArrayOfNumbersOnOneLine) {
  const nlohmann::json document = to_json(test_environment(), test_settings(), {timed_row(), refused_row()});
  const std::string text = json_text(document);
  EXPECT_EQ(nlohmann::json::parse(text), document);
  EXPECT_NE(text.find("\n      \"samples_ms\": [1.3,1.25,1.2,1.25],\n"), std::string::npos) << text;
  ResultRow without_samples = timed_row();
  without_samples.samples_ms.clear();
  const nlohmann::json plain = to_json(test_environment(), test_settings(), {without_samples, refused_row()});
  EXPECT_EQ(json_text(plain), plain.dump(2) + "\n");
}

TEST(ToJson, MissingValuesAreNull) {
  const nlohmann::json row = to_json(test_environment(), test_settings(), {refused_row()}).at("rows").at(0);
  for (const char* name : {"ms_median", "ms_q1", "ms_q3", "tflops", "vs_cublas", "max_rel_err", "max_abs_err",
                           "rel_l2_err", "sm_clock_mhz", "power_w"})
    EXPECT_TRUE(row.at(name).is_null()) << name;
  EXPECT_EQ(row.at("samples_ms"), nlohmann::json::array());
  EXPECT_EQ(row.at("status"), refused_row().status);
}

TEST(ToJson, HasEveryCsvColumnInEachRow) {
  const nlohmann::json row = to_json(test_environment(), test_settings(), {timed_row()}).at("rows").at(0);
  for (const std::string& name : csv_columns()) EXPECT_TRUE(row.contains(name)) << name;
}

TEST(ToJson, KeepsRowOrderAndParsesBack) {
  const nlohmann::json document = to_json(test_environment(), test_settings(), {timed_row(), refused_row()});
  const nlohmann::json parsed = nlohmann::json::parse(document.dump(2));
  EXPECT_EQ(parsed, document);
  ASSERT_EQ(parsed.at("rows").size(), 2u);
  EXPECT_EQ(parsed.at("rows").at(0).at("kernel"), 2);
  EXPECT_EQ(parsed.at("rows").at(1).at("kernel"), 3);
  EXPECT_TRUE(parsed.at("rows").at(1).at("ms_median").is_null());
}

// ---- Markdown -----------------------------------------------------------------------------------------

TEST(WriteMarkdown, HasTheGpuLine) {
  const std::string markdown = markdown_of({timed_row()});
  EXPECT_NE(markdown.find("- GPU: " + environment_line(test_environment())), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("NVIDIA H100 80GB HBM3"), std::string::npos) << markdown;
}

TEST(ToJson, RecordsABlockedRun) {
  CompareSettings settings = test_settings();
  settings.blocked = true;
  EXPECT_EQ(to_json(test_environment(), settings, {}).at("settings").at("order"), "blocked");
}

TEST(WriteMarkdown, SaysHowTheKernelsWereTimed) {
  EXPECT_NE(markdown_of({timed_row()}).find("kernels interleaved rep by rep"), std::string::npos);
  CompareSettings settings = test_settings();
  settings.blocked = true;
  std::ostringstream out;
  write_markdown(out, test_environment(), settings, {timed_row()});
  EXPECT_NE(out.str().find("each kernel timed alone, after running back to back"), std::string::npos) << out.str();
}

TEST(WriteMarkdown, HasOneTableRowPerResult) {
  const std::vector<ResultRow> rows = {timed_row(), refused_row()};
  const auto lines = lines_of(markdown_of(rows));
  const auto table_lines = std::count_if(lines.begin(), lines.end(), [](const std::string& line) {
    return line.rfind("|", 0) == 0;
  });
  EXPECT_EQ(table_lines, static_cast<long>(rows.size()) + 2);  // + header and separator
  for (const ResultRow& row : rows) {
    const std::string start = "| " + std::to_string(row.kernel) + " | " + row.name + " |";
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [&](const std::string& line) { return line.rfind(start, 0) == 0; }),
              1)
        << start;
  }
}

TEST(EnvironmentLine, NamesGpuComputeCapabilityAndVersions) {
  const std::string line = environment_line(test_environment());
  for (const char* part : {"NVIDIA H100 80GB HBM3", "sm_90", "132 SMs", "50 MiB L2", "580.159.04", "13.0.0"})
    EXPECT_NE(line.find(part), std::string::npos) << part << " missing from: " << line;
}

// ---- files --------------------------------------------------------------------------------------------

using WriteReports = TempPathTest;

TEST_F(WriteReports, CreatesTheDirectoryAndThreeReports) {
  const fs::path out = root_ / "nested" / "out";
  const std::vector<ResultRow> rows = {timed_row(), refused_row()};
  write_reports(out, test_environment(), test_settings(), rows);
  EXPECT_EQ(read_file(out / "compare.csv"), csv_of(rows));
  EXPECT_EQ(nlohmann::json::parse(read_file(out / "compare.json")), to_json(test_environment(), test_settings(), rows));
  EXPECT_EQ(read_file(out / "compare.md"), markdown_of(rows));
}

TEST_F(WriteReports, LeavesNoTemporaryFiles) {
  write_reports(root_, test_environment(), test_settings(), {timed_row()});
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(root_)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"compare.csv", "compare.json", "compare.md"}));
}

TEST_F(WriteReports, ReplacesEarlierReports) {
  write_reports(root_, test_environment(), test_settings(), {timed_row(), refused_row()});
  write_reports(root_, test_environment(), test_settings(), {refused_row()});
  EXPECT_EQ(read_file(root_ / "compare.csv"), csv_of({refused_row()}));
}

TEST_F(WriteReports, WritesNoneWhenOneCannotBeWritten) {
  fs::create_directories(root_ / "compare.md.tmp");  // the markdown's temporary name is taken by a directory
  EXPECT_THROW(write_reports(root_, test_environment(), test_settings(), {timed_row()}), std::exception);
  EXPECT_FALSE(fs::exists(root_ / "compare.csv"));
  EXPECT_FALSE(fs::exists(root_ / "compare.json"));
  EXPECT_FALSE(fs::exists(root_ / "compare.md"));
  EXPECT_FALSE(fs::exists(root_ / "compare.csv.tmp"));
  EXPECT_FALSE(fs::exists(root_ / "compare.json.tmp"));
}

// The names in `directory`, sorted.
std::vector<std::string> names_in(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A failure part-way through the renames undoes the ones before it: the earlier reports stay as they were, with no
// temporary or moved-aside file beside them. Here the new compare.md cannot take the place of a directory of that
// name, after compare.csv and compare.json took theirs.
TEST_F(WriteReports, KeepsTheEarlierReportsWhenARenameIntoPlaceFails) {
  fs::create_directories(root_);
  std::ofstream(root_ / "compare.csv") << "earlier csv\n";
  std::ofstream(root_ / "compare.json") << "earlier json\n";
  fs::create_directories(root_ / "compare.md");
  EXPECT_THROW(write_reports(root_, test_environment(), test_settings(), {timed_row()}), std::exception);
  EXPECT_EQ(read_file(root_ / "compare.csv"), "earlier csv\n");
  EXPECT_EQ(read_file(root_ / "compare.json"), "earlier json\n");
  EXPECT_TRUE(fs::is_directory(root_ / "compare.md"));
  EXPECT_EQ(names_in(root_), (std::vector<std::string>{"compare.csv", "compare.json", "compare.md"}));
}

// The same where moving an earlier report aside fails (its moved-aside name is taken by a directory that is not
// empty): compare.csv and compare.json, moved aside already, come back.
TEST_F(WriteReports, KeepsTheEarlierReportsWhenMovingOneAsideFails) {
  write_reports(root_, test_environment(), test_settings(), {timed_row(), refused_row()});
  const std::string csv = read_file(root_ / "compare.csv"), json = read_file(root_ / "compare.json"),
                    markdown = read_file(root_ / "compare.md");
  make_file(root_ / "compare.md.previous" / "taken");
  EXPECT_THROW(write_reports(root_, test_environment(), test_settings(), {refused_row()}), std::exception);
  EXPECT_EQ(read_file(root_ / "compare.csv"), csv);
  EXPECT_EQ(read_file(root_ / "compare.json"), json);
  EXPECT_EQ(read_file(root_ / "compare.md"), markdown);
  EXPECT_EQ(names_in(root_),
            (std::vector<std::string>{"compare.csv", "compare.json", "compare.md", "compare.md.previous"}));
}

TEST_F(WriteReports, LeavesNoMovedAsideReports) {
  write_reports(root_, test_environment(), test_settings(), {timed_row()});
  write_reports(root_, test_environment(), test_settings(), {refused_row()});
  EXPECT_EQ(names_in(root_), (std::vector<std::string>{"compare.csv", "compare.json", "compare.md"}));
}

using OutputDirectoryTest = TempPathTest;

TEST_F(OutputDirectoryTest, RejectsAnExistingRegularFile) {
  const fs::path file = root_ / "report.txt";
  make_file(file);
  try {
    OutputDirectory out(file);
    FAIL() << "no UsageError for " << file;
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("exists and is not a directory"), std::string::npos) << error.what();
  }
}

TEST_F(OutputDirectoryTest, RejectsAPathUnderARegularFile) {
  const fs::path file = root_ / "report.txt";
  make_file(file);
  try {
    OutputDirectory out(file / "out");
    FAIL() << "no UsageError for " << file / "out";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot be created"), std::string::npos) << error.what();
  }
}

TEST_F(OutputDirectoryTest, CreatesAFreshPathAtOnceAndRemovesItUnlessKept) {
  const fs::path path = root_ / "a" / "b";
  {
    const OutputDirectory out(path);
    EXPECT_TRUE(fs::is_directory(path));
    EXPECT_TRUE(fs::is_empty(path)) << "the write probe must not stay";
  }
  EXPECT_FALSE(fs::exists(root_)) << "a failed run leaves nothing behind, created parents included";
}

TEST_F(OutputDirectoryTest, KeepsAFreshPathWhenKept) {
  const fs::path path = root_ / "a";
  {
    OutputDirectory out(path);
    out.keep();
  }
  EXPECT_TRUE(fs::is_directory(path));
}

TEST_F(OutputDirectoryTest, LeavesAnExistingDirectoryAndItsFilesAlone) {
  make_file(root_ / "earlier.csv");
  { const OutputDirectory out(root_); }
  EXPECT_TRUE(fs::exists(root_ / "earlier.csv"));
  EXPECT_EQ(std::distance(fs::directory_iterator(root_), fs::directory_iterator()), 1);
}

// ---- SIGINT and SIGTERM -------------------------------------------------------------------------------
// Each in a child process (a death test): the signal must end it, as it would without the handler, after the
// cleanup and one line on stderr.

using OutputDirectorySignalTest = TempPathTest;

TEST_F(OutputDirectorySignalTest, SigtermRemovesAFreshPathAndEndsTheProcessByTheSignal) {
  const fs::path path = root_ / "a" / "b";
  EXPECT_EXIT(
      {
        const OutputDirectory out(path);
        std::raise(SIGTERM);
      },
      testing::KilledBySignal(SIGTERM),
      "gemm: stopped by SIGTERM before the reports were written; the --out directory it had created was removed");
  EXPECT_FALSE(fs::exists(root_)) << "the directories it created, parents included, are gone";
}

TEST_F(OutputDirectorySignalTest, SigintRemovesAFreshPath) {
  EXPECT_EXIT(
      {
        const OutputDirectory out(root_);
        std::raise(SIGINT);
      },
      testing::KilledBySignal(SIGINT), "stopped by SIGINT before the reports were written");
  EXPECT_FALSE(fs::exists(root_));
}

TEST_F(OutputDirectorySignalTest, LeavesAnExistingDirectoryAndItsFilesAlone) {
  make_file(root_ / "earlier.csv");
  EXPECT_EXIT(
      {
        const OutputDirectory out(root_);
        std::raise(SIGTERM);
      },
      testing::KilledBySignal(SIGTERM), "before the reports were written; nothing was written to --out");
  EXPECT_EQ(names_in(root_), (std::vector<std::string>{"earlier.csv"}));
}

TEST_F(OutputDirectorySignalTest, NeverRemovesWhatTheRunDidNotWrite) {
  const fs::path path = root_ / "out";
  EXPECT_EXIT(
      {
        const OutputDirectory out(path);
        std::ofstream(path / "someone_elses.txt") << "kept\n";
        std::raise(SIGTERM);
      },
      testing::KilledBySignal(SIGTERM), "stopped by SIGTERM");
  EXPECT_TRUE(fs::exists(path / "someone_elses.txt"));
}

TEST_F(OutputDirectorySignalTest, ASignalAfterTheReportsWereWrittenKeepsThem) {
  EXPECT_EXIT(
      {
        OutputDirectory out(root_);
        out.write_reports(test_environment(), test_settings(), {timed_row()});
        std::raise(SIGTERM);
      },
      testing::KilledBySignal(SIGTERM), "");
  EXPECT_EQ(names_in(root_), (std::vector<std::string>{"compare.csv", "compare.json", "compare.md"}));
}

// A signal while the reports are written waits until they are: the process ends then, with all of them written
// (or, when writing failed, after the cleanup).
TEST_F(OutputDirectorySignalTest, ASignalWhileTheWorkRunsWaitsForItToFinish) {
  const fs::path path = root_ / "out";
  EXPECT_EXIT(
      {
        CleanupOnSignal cleanup({}, {path, root_}, "removed");
        fs::create_directories(path);
        cleanup.run_uninterrupted([&] {
          std::raise(SIGTERM);
          std::ofstream(path / "written") << "all of it\n";
        });
        std::_Exit(0);  // not reached: the signal ends the process once the work is done
      },
      testing::KilledBySignal(SIGTERM), "gemm: stopped by SIGTERM after the reports were written");
  EXPECT_EQ(read_file(path / "written"), "all of it\n");
}

TEST_F(OutputDirectorySignalTest, ASignalWhileTheWorkFailsCleansUpOnceItIsOver) {
  const fs::path path = root_ / "out";
  EXPECT_EXIT(
      {
        CleanupOnSignal cleanup({path / "partial"}, {path, root_}, "removed");
        fs::create_directories(path);
        try {
          cleanup.run_uninterrupted([&] {
            std::raise(SIGINT);
            std::ofstream(path / "partial") << "half\n";
            throw std::runtime_error("the disk is full");
          });
        } catch (const std::exception&) {
        }
        std::_Exit(0);  // not reached
      },
      testing::KilledBySignal(SIGINT), "gemm: stopped by SIGINT before the reports were written; removed");
  EXPECT_FALSE(fs::exists(root_));
}

// A background job ignores SIGINT: the run goes on, as it did before there was a handler.
TEST_F(OutputDirectorySignalTest, AnIgnoredSignalStaysIgnored) {
  const fs::path path = root_ / "out";
  EXPECT_EXIT(
      {
        std::signal(SIGINT, SIG_IGN);
        const OutputDirectory out(path);
        std::raise(SIGINT);
        std::_Exit(fs::is_directory(path) ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST_F(OutputDirectorySignalTest, HandlersOfBeforeComeBack) {
  struct sigaction before = {};
  sigaction(SIGTERM, nullptr, &before);
  { const OutputDirectory out(root_); }
  struct sigaction after = {};
  sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

}  // namespace
}  // namespace gemm
