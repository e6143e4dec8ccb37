// Shapes (runner/shapes.h): parsing MxNxK and size lists, the check suite, and the compare defaults.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/errors.h"
#include "runner/random.h"
#include "runner/shapes.h"

namespace gemm {

// GoogleTest prints shapes as MxNxK in failure messages.
static void PrintTo(const Shape& shape, std::ostream* out) { *out << to_string(shape); }

namespace {

// The message of the UsageError `parse` throws, or a test failure when it throws none.
template <class Parse>
std::string usage_error_of(Parse parse) {
  try {
    parse();
  } catch (const UsageError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no UsageError thrown";
  return "";
}

bool contains(const std::vector<Shape>& shapes, const Shape& shape) {
  return std::find(shapes.begin(), shapes.end(), shape) != shapes.end();
}

bool tma_aligned(const Shape& shape) { return shape.n % 8 == 0 && shape.k % 8 == 0; }

TEST(ParseShape, AcceptsTheSmallestShape) {
  EXPECT_EQ(parse_shape("1x1x1"), (Shape{1, 1, 1}));
}

TEST(ParseShape, AcceptsALargeRectangularShapeInMNKOrder) {
  EXPECT_EQ(parse_shape("4096x14336x4096"), (Shape{4096, 14336, 4096}));
  EXPECT_EQ(parse_shape("3x5x7"), (Shape{3, 5, 7}));
}

TEST(ParseShape, AcceptsTheLargestInt) {
  EXPECT_EQ(parse_shape("2147483647x1x1"), (Shape{2147483647, 1, 1}));
}

TEST(ParseShape, RejectsMalformedTextNamingIt) {
  const std::string bad[] = {"",       "64x64",     "1x2x3x4", "0x1x1",          "1x0x1",   "1x1x0",
                             "-1x2x3", "axbxc",     "1x1x",    "2147483648x1x1", " 1x1x1",  "1x1x1 ",
                             "1X1X1",  "1.5x1x1",   "x1x1",    "1xx1x1",         "+1x1x1"};
  for (const std::string& text : bad) {
    const std::string message = usage_error_of([&] { parse_shape(text); });
    EXPECT_NE(message.find("'" + text + "'"), std::string::npos) << "input '" << text << "': " << message;
  }
}

TEST(ParseShape, ErrorMessageShowsTheAcceptedForm) {
  const std::string message = usage_error_of([] { parse_shape("64x64"); });
  EXPECT_NE(message.find("MxNxK"), std::string::npos) << message;
}

TEST(ParseShapeList, ParsesCommaSeparatedShapesInOrder) {
  EXPECT_EQ(parse_shape_list("512x512x64,1x1x1,3x2x1"),
            (std::vector<Shape>{{512, 512, 64}, {1, 1, 1}, {3, 2, 1}}));
}

TEST(ParseShapeList, ParsesASingleShape) {
  EXPECT_EQ(parse_shape_list("8x16x24"), (std::vector<Shape>{{8, 16, 24}}));
}

TEST(ParseShapeList, RejectsABadElementNamingIt) {
  const std::tuple<std::string, std::string> cases[] = {
      {"8x8x8,64x64", "'64x64'"},  // malformed element
      {"8x8x8,,16x16x16", "''"},   // empty element
      {"8x8x8,", "''"},            // trailing comma
      {"", "''"},                  // nothing at all
      {"8x8x8;16x16x16", "'8x8x8;16x16x16'"},
  };
  for (const auto& [text, named] : cases) {
    const std::string message = usage_error_of([&] { parse_shape_list(text); });
    EXPECT_NE(message.find("bad shape " + named), std::string::npos) << "input '" << text << "': " << message;
  }
}

// The presets' layers, from the models' published configurations (hidden size, heads of 128, key-value heads,
// intermediate size): Llama 3 8B 4096, 32, 8, 14336; Llama 3 70B 8192, 64, 8, 28672. QKV is (heads + 2 · key-value
// heads) · 128 wide ((32 + 16) · 128 = 6144, (64 + 16) · 128 = 10240), gate and up 2 · intermediate.
TEST(ModelPresets, Llama3LayersAtEveryTokenCount) {
  const std::vector<Shape> eight = parse_shape_list("llama3-8b");
  ASSERT_EQ(eight.size(), 28u);
  const std::vector<std::pair<int, int>> eight_layers = {{6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336}};
  const std::vector<int> tokens = {128, 256, 512, 1024, 2048, 4096, 8192};
  for (size_t layer = 0; layer < 4; ++layer)
    for (size_t t = 0; t < 7; ++t)
      EXPECT_EQ(eight[layer * 7 + t], (Shape{tokens[t], eight_layers[layer].first, eight_layers[layer].second}));
  const std::vector<Shape> seventy = parse_shape_list("llama3-70b");
  ASSERT_EQ(seventy.size(), 28u);
  EXPECT_EQ(seventy[0], (Shape{128, 10240, 8192}));
  EXPECT_EQ(seventy[7 + 6], (Shape{8192, 8192, 8192}));
  EXPECT_EQ(seventy[14 + 3], (Shape{1024, 57344, 8192}));
  EXPECT_EQ(seventy[27], (Shape{8192, 8192, 28672}));
}

TEST(ModelPresets, MixWithShapesInOrder) {
  const std::vector<Shape> shapes = parse_shape_list("1024x1024x1024,llama3-8b,2048x2048x2048");
  ASSERT_EQ(shapes.size(), 30u);
  EXPECT_EQ(shapes.front(), (Shape{1024, 1024, 1024}));
  EXPECT_EQ(shapes[1], (Shape{128, 6144, 4096}));
  EXPECT_EQ(shapes.back(), (Shape{2048, 2048, 2048}));
}

TEST(ModelPresets, AnUnknownNameListsThePresets) {
  const std::string message = usage_error_of([] { parse_shape_list("llama3-7b"); });
  EXPECT_NE(message.find("'llama3-7b'"), std::string::npos) << message;
  EXPECT_NE(message.find("llama3-8b, llama3-70b"), std::string::npos) << message;
  EXPECT_TRUE(preset_shapes("LLAMA3-8B").empty()) << "names are exact";
}

TEST(ParseSizeList, ParsesCommaSeparatedSizesInOrder) {
  EXPECT_EQ(parse_size_list("1024,2048,1"), (std::vector<int>{1024, 2048, 1}));
  EXPECT_EQ(parse_size_list("4096"), (std::vector<int>{4096}));
}

TEST(ParseSizeList, RejectsABadSizeNamingIt) {
  const std::tuple<std::string, std::string> cases[] = {
      {"0", "'0'"},         {"12x", "'12x'"}, {"1024,", "''"},
      {"-5", "'-5'"},       {"", "''"},       {"1024,2147483648", "'2147483648'"},
      {"64x64x64", "'64x64x64'"},
  };
  for (const auto& [text, named] : cases) {
    const std::string message = usage_error_of([&] { parse_size_list(text); });
    EXPECT_NE(message.find("bad size " + named), std::string::npos) << "input '" << text << "': " << message;
  }
}

TEST(ShapeToString, WritesMxNxK) {
  EXPECT_EQ(to_string(Shape{4096, 14336, 4096}), "4096x14336x4096");
  EXPECT_EQ(to_string(Shape{1, 2, 3}), "1x2x3");
}

TEST(ShapeToString, RoundTripsThroughParseShape) {
  for (const Shape& shape : shape_suite()) EXPECT_EQ(parse_shape(to_string(shape)), shape) << to_string(shape);
  const Shape largest{2147483647, 2147483647, 2147483647};
  EXPECT_EQ(parse_shape(to_string(largest)), largest);
}

TEST(ShapeSuite, ContainsTheNamedEdgeAndSquareShapes) {
  const auto& suite = shape_suite();
  for (const Shape& shape : {Shape{1, 1, 1}, Shape{127, 129, 65}, Shape{1000, 1000, 1000}, Shape{4096, 4096, 4096}})
    EXPECT_TRUE(contains(suite, shape)) << to_string(shape);
}

TEST(ShapeSuite, ContainsThinShapes) {  // a single row of a long N, and a few columns of a tall M
  const auto& suite = shape_suite();
  EXPECT_TRUE(std::any_of(suite.begin(), suite.end(), [](const Shape& s) { return s.m == 1 && s.n >= 256; }));
  EXPECT_TRUE(std::any_of(suite.begin(), suite.end(), [](const Shape& s) { return s.n <= 8 && s.m >= 128; }));
}

TEST(ShapeSuite, ContainsAWideShape) {
  const auto& suite = shape_suite();
  EXPECT_TRUE(std::any_of(suite.begin(), suite.end(), [](const Shape& s) { return s.n >= 8 * s.m; }));
}

TEST(ShapeSuite, ContainsAnOddKAboveOne) {  // K = 1 is odd too, but exercises no k loop
  const auto& suite = shape_suite();
  EXPECT_TRUE(std::any_of(suite.begin(), suite.end(), [](const Shape& s) { return s.k % 2 == 1 && s.k > 64; }));
}

TEST(ShapeSuite, AllDimensionsArePositive) {
  for (const Shape& shape : shape_suite()) {
    EXPECT_GE(shape.m, 1) << to_string(shape);
    EXPECT_GE(shape.n, 1) << to_string(shape);
    EXPECT_GE(shape.k, 1) << to_string(shape);
  }
}

TEST(ShapeSuite, HasNoDuplicates) {
  std::set<std::string> seen;
  for (const Shape& shape : shape_suite()) EXPECT_TRUE(seen.insert(to_string(shape)).second) << to_string(shape);
}

TEST(ShapeSuite, GivesTmaKernelsAtLeastTenShapes) {
  const auto& suite = shape_suite();
  EXPECT_GE(std::count_if(suite.begin(), suite.end(), tma_aligned), 10);
}

// Kernels 11-13 on a 132-SM GPU split the last round of the first two along K (stream-K's even runs); the third
// leaves too few k blocks idle to split, and runs its two rounds on 50 clusters. tests/host/test_stream_k.cpp pins
// the schedules.
TEST(ShapeSuite, ContainsTheShapesOfTheStreamKSchedules) {
  for (const Shape& shape : {Shape{2300, 2040, 4000}, Shape{4352, 1024, 8448}, Shape{2500, 2504, 4000}}) {
    EXPECT_TRUE(contains(shape_suite(), shape)) << to_string(shape);
    EXPECT_TRUE(tma_aligned(shape)) << to_string(shape) << ": kernels 11-13 must accept it";
  }
}

// tests/host/test_pingpong_choice.cpp: kernel 16's rule picks kernel 14 on both, 128 × 184 tiles on the first and
// 128 × 176 on the second.
TEST(ShapeSuite, ContainsAShapeForEachWidthOfKernel14) {
  for (const Shape& shape : {Shape{3900, 14000, 1008}, Shape{3900, 11600, 1008}}) {
    EXPECT_TRUE(contains(shape_suite(), shape)) << to_string(shape);
    EXPECT_TRUE(tma_aligned(shape)) << to_string(shape);
  }
}

// tests/host/test_pingpong_choice.cpp: kernel 14 computes these as Cᵀ, at each of its widths; kernel 16 launches it on
// the last.
TEST(ShapeSuite, ContainsATransposedShapeForEachWidthOfKernel14) {
  for (const Shape& shape : {Shape{257, 16904, 1040}, Shape{289, 17432, 1040}, Shape{321, 18224, 1040},
                             Shape{353, 19016, 1040}, Shape{257, 11272, 1040}}) {
    EXPECT_TRUE(contains(shape_suite(), shape)) << to_string(shape);
    EXPECT_TRUE(tma_aligned(shape)) << to_string(shape);
  }
}

TEST(ShapeSuite, ContainsTheLongKShapesOfTheAccumulationTerm) {
  EXPECT_TRUE(contains(shape_suite(), {100, 264, 65536}));
  EXPECT_TRUE(contains(shape_suite(), {128, 256, 262144}));
}

// ---- random shapes --------------------------------------------------------------------------------------

TEST(ParseRandomShapeCount, ParsesTheCount) {
  EXPECT_EQ(parse_random_shape_count("random:1"), 1);
  EXPECT_EQ(parse_random_shape_count("random:250"), 250);
  EXPECT_EQ(parse_random_shape_count("random:10000"), 10000);
}

TEST(ParseRandomShapeCount, RejectsOtherTexts) {
  for (const char* text : {"random:0", "random:10001", "random", "random:", "Random:5", "random:5x"})
    EXPECT_NE(usage_error_of([&] { parse_random_shape_count(text); }).find("random:N"), std::string::npos) << text;
}

TEST(RandomShapes, AreAcceptedByTheirRuleAndInRange) {
  for (ShapeRule rule : {ShapeRule::kAny, ShapeRule::kTmaAligned, ShapeRule::kTmaAlignedTileTable})
    for (const Shape& shape : random_shapes(rule, 2000, 7)) {
      EXPECT_EQ(shape_refusal(rule, shape.m, shape.n, shape.k), std::nullopt) << to_string(shape);
      for (int dimension : {shape.m, shape.n, shape.k}) {
        EXPECT_GE(dimension, 1) << to_string(shape);
        EXPECT_LE(dimension, kMaxRandomDimension) << to_string(shape);
      }
    }
}

TEST(RandomShapes, TheSameSeedGivesTheSameShapesAndAnotherSeedOthers) {
  EXPECT_EQ(random_shapes(ShapeRule::kAny, 50, 11), random_shapes(ShapeRule::kAny, 50, 11));
  EXPECT_NE(random_shapes(ShapeRule::kAny, 50, 11), random_shapes(ShapeRule::kAny, 50, 12));
  EXPECT_EQ(random_shapes(ShapeRule::kTmaAligned, 30, 3).size(), 30u);
}

// The shapes a seed names are the same from every standard library: these were computed by an independent
// model of std::mt19937_64 (checked against the standard's 10000th output) and of random_shapes' draws.
TEST(RandomShapes, ASeedNamesTheSameShapesEverywhere) {
  const std::vector<Shape> any = {{2559, 32, 674}, {1600, 831, 47}, {42, 275, 33}, {44, 1983, 255}};
  const std::vector<Shape> aligned = {{2559, 32, 680}, {1600, 824, 48}, {42, 280, 40}, {44, 1976, 248}};
  EXPECT_EQ(random_shapes(ShapeRule::kAny, 4, 1), any);
  EXPECT_EQ(random_shapes(ShapeRule::kTmaAligned, 4, 1), aligned);
}

TEST(UniformInt, IsTheHighHalfOfTheDrawTimesTheRange) {
  std::mt19937_64 rng(42);  // the same independent model's values
  std::vector<int64_t> digits, small, large;
  for (int i = 0; i < 5; ++i) digits.push_back(uniform_int(rng, 0, 9));
  for (int i = 0; i < 5; ++i) small.push_back(uniform_int(rng, -3, 3));
  for (int i = 0; i < 2; ++i) large.push_back(uniform_int(rng, 0, int64_t{1} << 40));
  EXPECT_EQ(digits, (std::vector<int64_t>{7, 6, 7, 1, 9}));
  EXPECT_EQ(small, (std::vector<int64_t>{-3, 1, -1, -2, -1}));
  EXPECT_EQ(large, (std::vector<int64_t>{13615000843, 575820384609}));
}

TEST(UniformInt, TakesTheHighHalfOfThe128BitProduct) {
  static_assert(high_64_bits_of_product(~0ull, ~0ull) == ~0ull - 1);  // (2^64 − 1)^2 = 2^128 − 2^65 + 1
  static_assert(high_64_bits_of_product(1ull << 63, 4) == 2);
  static_assert(high_64_bits_of_product(0xffffffffull, 0xffffffffull) == 0);
  EXPECT_EQ(high_64_bits_of_product(0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull), 0x7641f3080ff92329ull);
}

TEST(RandomShapes, RulesThatDrawTheSameShapesShareThem) {
  const std::vector<Shape> aligned = random_shapes(ShapeRule::kTmaAligned, 20, 3);
  EXPECT_EQ(random_shapes(ShapeRule::kTmaAlignedTileTable, 20, 3), aligned);
  EXPECT_EQ(random_shapes_for_rules({ShapeRule::kTmaAligned, ShapeRule::kTmaAlignedTileTable}, 20, 3), aligned);
  const std::vector<Shape> both = random_shapes_for_rules({ShapeRule::kAny, ShapeRule::kTmaAligned}, 20, 3);
  EXPECT_GT(both.size(), 20u);
  for (const Shape& shape : both) EXPECT_EQ(std::count(both.begin(), both.end(), shape), 1) << to_string(shape);
}

TEST(UniformInt, ReachesBothEndsAndNothingBeyond) {
  std::mt19937_64 rng(7);
  std::set<int64_t> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(uniform_int(rng, -2, 2));
  EXPECT_EQ(seen, (std::set<int64_t>{-2, -1, 0, 1, 2}));
  EXPECT_EQ(uniform_int(rng, 5, 5), 5);
}

TEST(RandomShapes, AreBiasedToTileEdgesAndSmallOddK) {
  int edges = 0, odd_small_k = 0, small_aligned_k = 0;
  const std::vector<Shape> any = random_shapes(ShapeRule::kAny, 1000, 5);
  for (const Shape& shape : any) {
    for (int dimension : {shape.m, shape.n})
      if (dimension >= 63 && (dimension % 64 == 0 || dimension % 64 == 1 || dimension % 64 == 63)) ++edges;
    if (shape.k < 64 && shape.k % 2 == 1) ++odd_small_k;
  }
  for (const Shape& shape : random_shapes(ShapeRule::kTmaAligned, 1000, 5))
    if (shape.k <= 64) ++small_aligned_k;
  EXPECT_GT(edges, 2 * 1000 * 40 / 100) << "about half of M and N at a tile edge";
  EXPECT_GT(odd_small_k, 1000 * 25 / 100) << "K small and odd about a third of the time";
  EXPECT_GT(small_aligned_k, 1000 * 25 / 100);
}

TEST(DefaultCompareShapes, AreFourSquaresAndOneLlmProjection) {
  EXPECT_EQ(default_compare_shapes(), (std::vector<Shape>{{1024, 1024, 1024},
                                                          {2048, 2048, 2048},
                                                          {4096, 4096, 4096},
                                                          {8192, 8192, 8192},
                                                          {4096, 14336, 4096}}));
}

}  // namespace
}  // namespace gemm
