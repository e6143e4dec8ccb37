// The `gemm` command line (runner/cli.h), parsed without a GPU.
#include <gtest/gtest.h>

#include <initializer_list>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "common/errors.h"
#include "runner/cli.h"
#include "runner/explain.h"

namespace gemm {

// GoogleTest prints shapes as MxNxK in failure messages.
static void PrintTo(const Shape& shape, std::ostream* out) { *out << to_string(shape); }

namespace {

// Parses `gemm <args...>`.
Command parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv{"gemm"};
  argv.insert(argv.end(), args.begin(), args.end());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

// Parses `gemm <args...>` and expects a command of type T (a test failure and T{} otherwise).
template <class T>
T parse_as(std::initializer_list<const char*> args) {
  const Command command = parse(args);
  if (const T* parsed = std::get_if<T>(&command)) return *parsed;
  ADD_FAILURE() << "parsed to the command with variant index " << command.index();
  return T{};
}

// The message of the UsageError `gemm <args...>` throws (a test failure when it throws none).
std::string usage_error(std::initializer_list<const char*> args) {
  try {
    parse(args);
  } catch (const UsageError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no UsageError thrown";
  return "";
}

// For EXPECT_TRUE: whether `text` contains `part`, showing both when it does not.
testing::AssertionResult has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// ---- list ---------------------------------------------------------------------------------------------

TEST(CliList, ParsesList) {
  const ListCommand list = parse_as<ListCommand>({"list"});
  EXPECT_FALSE(list.json);
  EXPECT_FALSE(list.details);
}

TEST(CliList, ParsesJsonAndDetails) {
  const ListCommand list = parse_as<ListCommand>({"list", "--json", "--details"});
  EXPECT_TRUE(list.json);
  EXPECT_TRUE(list.details);
}

// ---- run ----------------------------------------------------------------------------------------------

TEST(CliRun, DefaultsToA4096CubeWith50RepsAfter10WarmupsCold) {
  const RunCommand run = parse_as<RunCommand>({"run", "2"});
  EXPECT_EQ(run.kernel, 2);
  EXPECT_EQ(run.shape, (Shape{4096, 4096, 4096}));
  EXPECT_EQ(run.reps, 50);
  EXPECT_EQ(run.warmup, 10);
  EXPECT_FALSE(run.hot);
  EXPECT_EQ(run.seed, std::nullopt);
  EXPECT_EQ(run.fault, std::nullopt);
}

TEST(CliRun, SizeGivesACube) {
  EXPECT_EQ(parse_as<RunCommand>({"run", "2", "--size", "1024"}).shape, (Shape{1024, 1024, 1024}));
}

TEST(CliRun, MNKGiveTheShape) {
  const RunCommand run = parse_as<RunCommand>({"run", "2", "--m", "1", "--n", "2", "--k", "3"});
  EXPECT_EQ(run.kernel, 2);
  EXPECT_EQ(run.shape, (Shape{1, 2, 3}));
}

TEST(CliRun, ParsesHotRepsWarmupSeedAndFault) {
  const RunCommand run =
      parse_as<RunCommand>({"run", "1", "--hot", "--reps", "7", "--warmup", "0", "--seed", "42", "--inject-fault", "nan"});
  EXPECT_EQ(run.kernel, 1);
  EXPECT_TRUE(run.hot);
  EXPECT_EQ(run.reps, 7);
  EXPECT_EQ(run.warmup, 0);
  EXPECT_EQ(run.seed, 42u);
  EXPECT_EQ(run.fault, Fault::kNaN);
  EXPECT_EQ(run.shape, (Shape{4096, 4096, 4096}));
}

TEST(CliRun, SeedZeroIsPresentNotRandom) {
  EXPECT_EQ(parse_as<RunCommand>({"run", "0", "--seed", "0"}).seed, 0u);
}

TEST(CliRun, AcceptsTheLargestSeed) {
  EXPECT_EQ(parse_as<RunCommand>({"run", "0", "--seed", "9007199254740991"}).seed, kMaxSeed);
}

TEST(CliRun, RefusesSeedsOutOfRangeInsteadOfClampingThem) {
  for (const char* seed : {"-1", "9007199254740992", "18446744073709551616", "99999999999999999999", "1e3", "", "x"})
    EXPECT_TRUE(has(usage_error({"run", "0", "--seed", seed}), "expected an integer from 0 to 9007199254740991"))
        << seed;
}

TEST(CliRun, ParsesTimeoutAndTheNewFaults) {
  const RunCommand run = parse_as<RunCommand>({"run", "6", "--timeout", "2.5", "--inject-fault", "hang"});
  EXPECT_EQ(run.timeout, 2.5);
  EXPECT_EQ(run.fault, Fault::kHang);
  EXPECT_EQ(parse_as<RunCommand>({"run", "6"}).timeout, std::nullopt);
  EXPECT_EQ(parse_as<RunCommand>({"run", "1", "--inject-fault", "reference"}).fault, Fault::kReference);
}

TEST(CliRun, RefusesANonPositiveTimeout) {
  EXPECT_TRUE(has(usage_error({"run", "1", "--timeout", "0"}), "--timeout must be a number of seconds from 0.001"));
  EXPECT_TRUE(has(usage_error({"run", "1", "--timeout", "-3"}), "--timeout must be a number of seconds from 0.001"));
}

// No kernel run, its launch included, finishes within less than a millisecond: a limit below that is a mistake.
TEST(CliRun, RefusesATimeoutBelowAMillisecondOrAbove1e6) {
  for (const char* seconds : {"1e-300", "0.0009", "1e-4", "1000001", "nan", "inf"})
    EXPECT_TRUE(has(usage_error({"run", "1", "--timeout", seconds}),
                    std::string("--timeout must be a number of seconds from 0.001 to 1e6, got ") + seconds))
        << seconds;
  EXPECT_EQ(parse_as<RunCommand>({"run", "1", "--timeout", "0.001"}).timeout, 0.001);
  EXPECT_EQ(parse_as<RunCommand>({"run", "1", "--timeout", "1e6"}).timeout, 1e6);
  EXPECT_TRUE(has(usage_error({"check", "1", "--timeout", "1e-300"}), "from 0.001 to 1e6"));
  EXPECT_TRUE(has(usage_error({"compare", "--timeout", "1e-300"}), "from 0.001 to 1e6"));
}

// An empty fault name is no fault at all: a test planting "" would pass without one.
TEST(CliRun, RefusesAnEmptyFaultName) {
  EXPECT_TRUE(has(usage_error({"run", "1", "--inject-fault", ""}), "bad --inject-fault '': expected wrong, "));
  EXPECT_TRUE(has(usage_error({"check", "1", "--inject-fault", ""}), "bad --inject-fault ''"));
  EXPECT_TRUE(has(usage_error({"compare", "--inject-fault", ""}), "bad --inject-fault ''"));
}

// hang-in-warmup hangs the first warm-up run: run and compare take it with a warm-up, check (which has none) and
// --warmup 0 refuse it.
TEST(CliRun, TakesAHangInTheWarmUpWhereThereIsOne) {
  EXPECT_EQ(parse_as<RunCommand>({"run", "5", "--inject-fault", "hang-in-warmup"}).fault, Fault::kHangInWarmup);
  EXPECT_EQ(parse_as<CompareCommand>({"compare", "--inject-fault", "hang-in-warmup", "--warmup", "1"}).fault,
            Fault::kHangInWarmup);
  EXPECT_TRUE(has(usage_error({"run", "5", "--warmup", "0", "--inject-fault", "hang-in-warmup"}),
                  "--inject-fault hang-in-warmup needs --warmup 1 or more"));
  EXPECT_TRUE(has(usage_error({"compare", "--warmup", "0", "--inject-fault", "hang-in-warmup"}),
                  "needs --warmup 1 or more"));
  EXPECT_TRUE(has(usage_error({"check", "5", "--inject-fault", "hang-in-warmup"}), "check runs no warm-up"));
}

TEST(CliRun, KernelIdIsRequired) {
  const std::string message = usage_error({"run"});
  EXPECT_TRUE(has(message, "id is required"));
}

TEST(CliRun, RejectsANonNumericKernelId) {
  EXPECT_TRUE(has(usage_error({"run", "x"}), "bad kernel id 'x'"));
  EXPECT_TRUE(has(usage_error({"run", "2x"}), "bad kernel id '2x'"));
}

TEST(CliRun, RejectsSizeZero) {
  EXPECT_TRUE(has(usage_error({"run", "2", "--size", "0"}), "--size must be at least 1, got 0"));
}

TEST(CliRun, RejectsANonPositiveDimension) {
  EXPECT_TRUE(has(usage_error({"run", "2", "--m", "0", "--n", "1", "--k", "1"}), "--m must be at least 1, got 0"));
  EXPECT_TRUE(has(usage_error({"run", "2", "--m", "1", "--n", "1", "--k", "0"}), "--k must be at least 1, got 0"));
}

TEST(CliRun, RejectsSizeTogetherWithDimensions) {
  EXPECT_TRUE(has(usage_error({"run", "2", "--size", "64", "--m", "1"}), "either --size or --m/--n/--k"));
}

TEST(CliRun, RejectsPartialDimensions) {
  EXPECT_TRUE(has(usage_error({"run", "2", "--m", "1"}), "all three of --m, --n and --k"));
  EXPECT_TRUE(has(usage_error({"run", "2", "--m", "1", "--k", "1"}), "all three of --m, --n and --k"));
}

TEST(CliRun, RejectsZeroReps) {
  const std::string message = usage_error({"run", "2", "--reps", "0"});
  EXPECT_TRUE(has(message, "--reps"));
}

TEST(CliRun, RejectsAnUnknownFault) {
  EXPECT_TRUE(has(usage_error({"run", "2", "--inject-fault", "foo"}), "bad --inject-fault 'foo'"));
}

TEST(CliRun, RejectsAnUnknownOptionNamingIt) {
  const std::string message = usage_error({"run", "2", "--fast"});
  EXPECT_TRUE(has(message, "--fast"));
  EXPECT_TRUE(has(message, "see gemm --help"));
}

// ---- the command word ---------------------------------------------------------------------------------

TEST(CliCommand, RejectsAnUnknownCommandNamingIt) {
  EXPECT_TRUE(has(usage_error({"bench"}), "unknown command 'bench'"));
}

TEST(CliCommand, RequiresACommand) {
  const std::string message = usage_error({});
  EXPECT_TRUE(has(message, "subcommand"));
}

TEST(CliCommand, HelpDescribesTheTimeoutExitCode) {
  const Command command = parse({"--help"});
  ASSERT_TRUE(std::holds_alternative<HelpCommand>(command));
  EXPECT_TRUE(has(std::get<HelpCommand>(command).text, "4 a kernel did not finish in time"));
}

TEST(CliCommand, HelpDescribesTheExitCodes) {
  const HelpCommand help = parse_as<HelpCommand>({"--help"});
  EXPECT_TRUE(has(help.text, "Exit codes"));
  EXPECT_TRUE(has(help.text, "compare"));
}

TEST(CliCommand, SubcommandHelpDescribesItsOptions) {
  const HelpCommand help = parse_as<HelpCommand>({"run", "--help"});
  EXPECT_TRUE(has(help.text, "--size"));
  EXPECT_TRUE(has(help.text, "--inject-fault"));
}

TEST(CliCommand, VersionFlagGivesVersionCommand) {
  EXPECT_TRUE(std::holds_alternative<VersionCommand>(parse({"--version"})));
}

// ---- check --------------------------------------------------------------------------------------------

TEST(CliCheck, AllMeansEveryKernelOnTheSuiteWithTwoSeeds) {
  const CheckCommand check = parse_as<CheckCommand>({"check", "all"});
  EXPECT_TRUE(check.kernels.empty());
  EXPECT_TRUE(check.shapes.empty());
  EXPECT_EQ(check.seeds, 2);
  EXPECT_EQ(check.seed, std::nullopt);
  EXPECT_EQ(check.fault, std::nullopt);
}

TEST(CliCheck, ParsesKernelListShapesAndSeeds) {
  const CheckCommand check = parse_as<CheckCommand>({"check", "1,2", "--shapes", "8x8x8,16x16x16", "--seeds", "3"});
  EXPECT_EQ(check.kernels, (std::vector<int>{1, 2}));
  EXPECT_EQ(check.shapes, (std::vector<Shape>{{8, 8, 8}, {16, 16, 16}}));
  EXPECT_EQ(check.seeds, 3);
}

TEST(CliCheck, ExplicitSuiteMeansNoShapes) {
  EXPECT_TRUE(parse_as<CheckCommand>({"check", "2", "--shapes", "suite"}).shapes.empty());
}

TEST(CliCheck, ParsesSeedAndFault) {
  const CheckCommand check = parse_as<CheckCommand>({"check", "1", "--seed", "9", "--inject-fault", "unwritten"});
  EXPECT_EQ(check.kernels, (std::vector<int>{1}));
  EXPECT_EQ(check.seed, 9u);
  EXPECT_EQ(check.fault, Fault::kUnwritten);
}

TEST(CliCheck, RunsEachKernelOnceInTheOrderGiven) {
  EXPECT_EQ(parse_as<CheckCommand>({"check", "1,1,1"}).kernels, (std::vector<int>{1}));
  EXPECT_EQ(parse_as<CheckCommand>({"check", "3,1,3,2,1"}).kernels, (std::vector<int>{3, 1, 2}));
}

// Shapes are de-duplicated as kernel ids are: each once, in the order first given.
TEST(CliCheck, RunsEachShapeOnceInTheOrderGiven) {
  EXPECT_EQ(parse_as<CheckCommand>({"check", "1", "--shapes", "64x64x64,1x1x1,64x64x64,1x1x1,2x2x2"}).shapes,
            (std::vector<Shape>{{64, 64, 64}, {1, 1, 1}, {2, 2, 2}}));
}

TEST(CliCheck, ParsesRandomShapes) {
  const CheckCommand check = parse_as<CheckCommand>({"check", "5", "--shapes", "random:20", "--seed", "4"});
  EXPECT_EQ(check.random_shapes, 20);
  EXPECT_TRUE(check.shapes.empty());
  EXPECT_EQ(check.seed, 4u);
  EXPECT_EQ(parse_as<CheckCommand>({"check", "5"}).random_shapes, std::nullopt);
}

TEST(CliCheck, RejectsABadRandomShapeCount) {
  for (const char* text : {"random:0", "random:", "random:x", "random:10001", "random:-2"})
    EXPECT_TRUE(has(usage_error({"check", "1", "--shapes", text}), "expected random:N with N from 1 to 10000")) << text;
}

TEST(CliCheck, RefusesSeedsThatRunPastTheLargest) {
  EXPECT_TRUE(has(usage_error({"check", "1", "--seed", "9007199254740991", "--seeds", "2"}), "runs past the largest"));
  EXPECT_EQ(parse_as<CheckCommand>({"check", "1", "--seed", "9007199254740990", "--seeds", "2"}).seed,
            kMaxSeed - 1);
}

TEST(CliCheck, ParsesTheReference) {
  EXPECT_EQ(parse_as<CheckCommand>({"check", "1"}).reference, Reference::kCublas);
  EXPECT_EQ(parse_as<CheckCommand>({"check", "1", "--reference", "cublas"}).reference, Reference::kCublas);
  EXPECT_EQ(parse_as<CheckCommand>({"check", "1", "--reference", "simple"}).reference, Reference::kSimple);
  EXPECT_TRUE(has(usage_error({"check", "1", "--reference", "naive"}), "expected cublas or simple"));
}

TEST(CliCheck, ParsesTheInputs) {
  EXPECT_EQ(parse_as<CheckCommand>({"check", "1"}).inputs, InputKind::kUniform);
  EXPECT_EQ(parse_as<CheckCommand>({"check", "1", "--inputs", "uniform"}).inputs, InputKind::kUniform);
  EXPECT_EQ(parse_as<CheckCommand>({"check", "1", "--inputs", "exact"}).inputs, InputKind::kExact);
  EXPECT_TRUE(has(usage_error({"check", "1", "--inputs", "ternary"}), "expected uniform or exact"));
  EXPECT_EQ(parse_as<CheckCommand>({"check", "1", "--inputs", "exact", "--shapes", "8x8x16777208"}).inputs,
            InputKind::kExact);
  EXPECT_TRUE(has(usage_error({"check", "1", "--inputs", "exact", "--shapes", "8x8x16777216"}), "below 2^24"));
}

TEST(CliCheck, RejectsAnEmptyKernelInTheList) {
  EXPECT_TRUE(has(usage_error({"check", "1,,2"}), "bad kernel id ''"));
}

TEST(CliCheck, RejectsAMalformedShape) {
  EXPECT_TRUE(has(usage_error({"check", "1", "--shapes", "64x64"}), "bad shape '64x64'"));
}

// ---- compare ------------------------------------------------------------------------------------------

TEST(CliCompare, DefaultsToAllKernelsDefaultShapesAndNoOutput) {
  const CompareCommand compare = parse_as<CompareCommand>({"compare"});
  EXPECT_TRUE(compare.kernels.empty());
  EXPECT_TRUE(compare.shapes.empty());
  EXPECT_EQ(compare.out, std::nullopt);
  EXPECT_EQ(compare.reps, 50);
  EXPECT_EQ(compare.warmup, 10);
  EXPECT_FALSE(compare.hot);
  EXPECT_FALSE(compare.blocked);
  EXPECT_EQ(compare.seed, std::nullopt);
}

TEST(CliCompare, BlockedTimesEachKernelAlone) {
  EXPECT_TRUE(parse_as<CompareCommand>({"compare", "--blocked"}).blocked);
  EXPECT_TRUE(parse_as<CompareCommand>({"compare", "--blocked", "--hot", "--kernels", "9"}).hot);
}

TEST(CliCompare, SizesComeBeforeShapesInTheGivenOrder) {
  const CompareCommand compare = parse_as<CompareCommand>(
      {"compare", "--kernels", "0,3", "--sizes", "512,1024", "--shapes", "64x64x64", "--out", "dir"});
  EXPECT_EQ(compare.kernels, (std::vector<int>{0, 3}));
  EXPECT_EQ(compare.shapes, (std::vector<Shape>{{512, 512, 512}, {1024, 1024, 1024}, {64, 64, 64}}));
  EXPECT_EQ(compare.out, "dir");
}

TEST(CliCompare, TimesEachShapeOnceAcrossSizesAndShapes) {
  const CompareCommand compare = parse_as<CompareCommand>(
      {"compare", "--sizes", "512,64,512", "--shapes", "64x64x64,8x8x8,512x512x512,8x8x8"});
  EXPECT_EQ(compare.shapes, (std::vector<Shape>{{512, 512, 512}, {64, 64, 64}, {8, 8, 8}}));
}

TEST(CliCompare, ParsesFaultTimeoutAndSeed) {
  const CompareCommand compare =
      parse_as<CompareCommand>({"compare", "--inject-fault", "reference", "--timeout", "30", "--seed", "12"});
  EXPECT_EQ(compare.fault, Fault::kReference);
  EXPECT_EQ(compare.timeout, 30.0);
  EXPECT_EQ(compare.seed, 12u);
}

TEST(CliCompare, RejectsABadSize) {
  EXPECT_TRUE(has(usage_error({"compare", "--sizes", "512,0"}), "bad size '0'"));
}

TEST(CliCompare, RejectsZeroReps) {
  const std::string message = usage_error({"compare", "--reps", "0"});
  EXPECT_TRUE(has(message, "--reps"));
}

TEST(CliExplain, DefaultsToTheDispatchChapterAndTakesTheTwoItChoosesBetween) {
  EXPECT_EQ(parse_as<ExplainCommand>({"explain", "--clusters", "66"}).kernel, 16);
  const ExplainCommand few_tiles = parse_as<ExplainCommand>({"explain", "15", "--clusters", "66", "--shapes", "1x8x8"});
  EXPECT_EQ(few_tiles.kernel, 15);
  EXPECT_EQ(few_tiles.clusters, 66);
  EXPECT_EQ(few_tiles.shapes, (std::vector<Shape>{{1, 8, 8}}));
  EXPECT_EQ(parse_as<ExplainCommand>({"explain", "14", "--clusters", "66"}).kernel, 14);
  EXPECT_EQ(parse_as<ExplainCommand>({"explain", "15", "--clusters", "66", "--shape", "64x8x8"}).shapes,
            (std::vector<Shape>{{64, 8, 8}}));
  // A preset is expanded once, here: what the command then runs over.
  EXPECT_EQ(parse_as<ExplainCommand>({"explain", "--clusters", "66", "--shapes", "llama3-8b"}).shapes.size(), 28u);
  EXPECT_TRUE(has(usage_error({"explain", "13", "--clusters", "66"}), "13 not in {14,15,16}"));
}

TEST(CliExplain, AnEmptyOrBadShapeListIsAnError) {
  EXPECT_TRUE(has(usage_error({"explain", "--clusters", "66", "--shapes", ""}), "bad shape ''"));
  EXPECT_TRUE(has(usage_error({"explain", "--clusters", "66", "--shapes", "llama3-8x"}),
                  "or a model preset (llama3-8b, llama3-70b)"));
}

}  // namespace
}  // namespace gemm
