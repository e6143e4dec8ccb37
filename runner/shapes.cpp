#include "runner/shapes.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <random>

#include "common/errors.h"
#include "runner/random.h"

namespace gemm {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

// A dimension: a decimal integer in [1, 2^31 - 1].
bool parse_dimension(std::string_view text, int& value) {
  if (text.empty()) return false;
  long long parsed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (error != std::errc() || end != text.data() + text.size()) return false;
  if (parsed < 1 || parsed > std::numeric_limits<int>::max()) return false;
  value = static_cast<int>(parsed);
  return true;
}

}  // namespace

std::string to_string(const Shape& shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

Shape parse_shape(std::string_view text) {
  const auto parts = split(text, 'x');
  Shape shape;
  if (parts.size() != 3 || !parse_dimension(parts[0], shape.m) || !parse_dimension(parts[1], shape.n) ||
      !parse_dimension(parts[2], shape.k))
    throw UsageError("bad shape '" + std::string(text) + "': expected MxNxK with integers from 1 to 2147483647, e.g. 4096x14336x4096");
  return shape;
}

std::vector<Shape> parse_shape_list(std::string_view text) {
  std::vector<Shape> shapes;
  for (std::string_view part : split(text, ',')) {
    const std::vector<Shape> preset = preset_shapes(part);
    if (!preset.empty()) {
      shapes.insert(shapes.end(), preset.begin(), preset.end());
      continue;
    }
    try {
      shapes.push_back(parse_shape(part));
    } catch (const UsageError&) {  // neither: say both forms (a misspelt preset may well contain an 'x')
      throw UsageError("bad shape '" + std::string(part) +
                       "': expected MxNxK with integers from 1 to 2147483647 (e.g. 4096x14336x4096) or a model "
                       "preset (" + model_preset_names() + ")");
    }
  }
  return shapes;
}

std::string model_preset_names() {
  std::string names;
  for (const ModelPreset& model : model_presets()) names += (names.empty() ? "" : ", ") + std::string(model.name);
  return names;
}

const std::vector<ModelPreset>& model_presets() {
  static const std::vector<ModelPreset> presets = {
      {"llama3-8b", {{"qkv", 6144, 4096}, {"attention output", 4096, 4096}, {"gate and up", 28672, 4096},
                     {"down", 4096, 14336}}},
      {"llama3-70b", {{"qkv", 10240, 8192}, {"attention output", 8192, 8192}, {"gate and up", 57344, 8192},
                      {"down", 8192, 28672}}},
  };
  return presets;
}

const std::vector<int>& preset_token_counts() {
  static const std::vector<int> tokens = {128, 256, 512, 1024, 2048, 4096, 8192};
  return tokens;
}

std::vector<Shape> preset_shapes(std::string_view name) {
  std::vector<Shape> shapes;
  for (const ModelPreset& model : model_presets())
    if (model.name == name)
      for (const ModelLayer& layer : model.layers)
        for (int tokens : preset_token_counts()) shapes.push_back({tokens, layer.n, layer.k});
  return shapes;
}

std::vector<int> parse_size_list(std::string_view text) {
  std::vector<int> sizes;
  for (std::string_view part : split(text, ',')) {
    int size = 0;
    if (!parse_dimension(part, size))
      throw UsageError("bad size '" + std::string(part) + "': expected an integer from 1 to 2147483647");
    sizes.push_back(size);
  }
  return sizes;
}

int parse_random_shape_count(std::string_view text) {
  constexpr std::string_view prefix = "random:";
  int count = 0;
  if (text.substr(0, prefix.size()) != prefix || !parse_dimension(text.substr(prefix.size()), count) ||
      count > kMaxRandomShapes)
    throw UsageError("bad --shapes '" + std::string(text) + "': expected random:N with N from 1 to " +
                     std::to_string(kMaxRandomShapes));
  return count;
}

std::vector<Shape> random_shapes(ShapeRule rule, int count, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x5a9e5eedull);
  const auto uniform = [&](int low, int high) { return static_cast<int>(uniform_int(rng, low, high)); };
  // One dimension; `step` is 8 where the rule needs multiples of 8, else 1.
  const auto draw = [&](int step, bool small_and_odd) {
    int value;
    const int kind = uniform(0, 99);
    if (small_and_odd && kind < 35) {
      value = step == 1 ? 2 * uniform(0, 31) + 1 : 8 * uniform(1, 8);  // 1..63 odd, or 8..64
    } else if (kind < 60) {
      const int edge = 64 * uniform(1, kMaxRandomDimension / 64);  // a tile edge, ± one step (two statements:
      value = edge + step * uniform(-1, 1);                         // the order of the draws is then fixed)
    } else if (kind < 75) {
      value = uniform(1, 48);  // thin
    } else {
      value = uniform(1, kMaxRandomDimension);
    }
    value = std::clamp(value, 1, kMaxRandomDimension);
    return (value + step - 1) / step * step;  // up to the rule's multiple
  };
  const int aligned = rule == ShapeRule::kAny ? 1 : 8;
  std::vector<Shape> shapes;
  for (int i = 0; i < count; ++i) shapes.push_back({draw(1, false), draw(aligned, false), draw(aligned, true)});
  return shapes;
}

std::vector<Shape> random_shapes_for_rules(const std::vector<ShapeRule>& rules, int count, uint64_t seed) {
  std::vector<Shape> shapes;
  for (ShapeRule rule : rules)
    for (const Shape& shape : random_shapes(rule, count, seed))
      if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
  return shapes;
}

const std::vector<Shape>& shape_suite() {
  static const std::vector<Shape> suite = {
      {1, 1, 1},            // the smallest problem
      {127, 129, 65},       // nothing is a multiple of anything
      {1000, 1000, 1000},   // not a tile multiple; K % 8 == 0
      {255, 257, 3},        // K smaller than any k block, odd
      {129, 259, 1023},     // odd K, tile + 1 rows
      {4096, 4096, 4096},   // a full-size square
      {1, 4096, 4096},      // a single row (thin)
      {4096, 3, 4096},      // three columns (thin, odd N)
      {8, 12288, 1024},     // wide
      {12288, 8, 1024},     // tall
      {128, 256, 64},       // exactly one tile of the larger kernels
      {127, 248, 56},       // one tile minus one row / one n8 / one k8
      {129, 264, 72},       // one tile plus one row / n8 / k8
      {257, 520, 8},        // K = 8: one k8 slice, TMA zero-fills the rest of the k block
      {640, 384, 8192},     // K large relative to M and N
      {200, 1000, 24},      // K small, M not a multiple of 64
      {3000, 2056, 1000},   // several tiles, ragged on every side
      {100, 264, 65536},    // K = 2^16: the accumulation term of the tolerance starts to matter
      {128, 256, 262144},   // K = 2^18: one tile of the large kernels, a long fp32 accumulation
      // Kernels 11-13 on a 132-SM GPU (66 clusters) split the last round of the first two along K:
      {2300, 2040, 4000},   // 72 cluster tiles, 63 k blocks (the last one partial), ragged: 6 tiles split
      {4352, 1024, 8448},   // 68 cluster tiles: 2 tiles left over, each shared by 33 clusters
      {2500, 2504, 4000},   // 100 cluster tiles, 34 left over: too few idle to split; 2 rounds on 50 clusters
      // Kernel 15 splits the whole problem of these along K (fewer cluster tiles than clusters; on an H200, as
      // tests/host/test_stream_k.cpp pins them): 16 cluster tiles of 128 x 128 and 125 k blocks (N ragged) in 2 x 1
      // clusters, each in 4 equal shares added by slices; 8 cluster tiles of 64 x 128 and 129 k blocks (M, N and K
      // ragged) in 2 x 2 clusters, each in 3 equal shares; and over every cluster, shares running across tiles (an
      // owner adds): 34 cluster tiles of 128 x 256 and 160 k blocks (M and N ragged) over 66 clusters of two, and 16
      // of 128 x 192 and 219 k blocks (K % 16 = 8) over 30 clusters of four.
      {256, 2040, 8000},
      {100, 1800, 8200},
      {136, 8696, 10240},
      {136, 5808, 14008},
      // Kernel 15 computes these as Cᵀ = B·Aᵀ (ragged token counts; common/few_tiles.h, plan_few_tiles_or_transposed)
      // and stores C transposed: 128 × 256 tiles in two whole rounds, the last tile row of Cᵀ (C's columns) ragged;
      // 128 × 192 tiles in 4 equal shares (each share stores its slice element by element); 64 × 128 tiles in 2
      // shares (an owner adds, one consumer warpgroup); 128 × 256 tiles in 1 × 2 clusters, a round and a split last
      // round (owners); 128 × 128 tiles in 2 × 2 clusters in 5 shares, K ragged.
      {488, 11400, 832},
      {264, 2032, 8576},
      {184, 1760, 2624},
      {776, 4632, 3584},
      {200, 1424, 7856},
      // Kernel 16 launches kernel 14 on these (common/pingpong_choice.h; 132 SMs): 16 cluster rows, the
      // last one's second CTA outside C, a partial k block (K a multiple of 16, as the rule wants it); 128 × 184
      // tiles on the first (77 columns, the last one ragged, 18.7 rounds), 128 × 176 on the second (66 columns, the
      // last one ragged, 16 rounds), 128 × 160 on the third (78 columns, ragged, 18.9 rounds), 128 × 144 on the
      // fourth (111 columns, ragged, 26.9 rounds).
      {3900, 14000, 1008},
      {3900, 11600, 1008},
      {3900, 12360, 1008},
      {3900, 15880, 1008},
      // Kernel 14 computes these as Cᵀ (ragged token counts; common/pingpong_choice.h, plan_pingpong) and stores C
      // transposed, in three rounds of 128 × 144, 160, 176 and 184 tiles of the N x M problem (Cᵀ's last tile column,
      // C's rows, ragged; an odd number of tile rows, so the last cluster's second CTA lies outside; a partial k block);
      // kernel 16 launches it on the last (128 × 144, two rounds).
      {257, 16904, 1040},
      {289, 17432, 1040},
      {321, 18224, 1040},
      {353, 19016, 1040},
      {257, 11272, 1040},
  };
  return suite;
}

std::vector<Shape> results_run_shapes() {
  return {{1024, 1024, 1024},    {2048, 2048, 2048},    {4096, 4096, 4096},
          {6144, 6144, 6144},    {8192, 8192, 8192},    {16384, 16384, 16384},
          {4096, 14336, 4096},   {16384, 4096, 14336},  {512, 8192, 8192}};
}

std::vector<Shape> default_compare_shapes() {
  return {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {4096, 14336, 4096}};
}

}  // namespace gemm
