// Problem shapes: parsing "MxNxK" and size lists, and the shape suite that `gemm check` runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/registry.h"

namespace gemm {

struct Shape {
  int m = 0;
  int n = 0;
  int k = 0;
  bool operator==(const Shape&) const = default;
};

std::string to_string(const Shape& shape);  // "MxNxK"

// "4096x14336x4096" -> Shape. Throws UsageError naming the text and the accepted form.
Shape parse_shape(std::string_view text);
// "512x512x64,1x1x1" -> shapes; an element may also name a model preset (below), which stands for its shapes.
std::vector<Shape> parse_shape_list(std::string_view text);

// Model presets: a language model's projection GEMMs, each layer's N × K (N: output features, the rows of B;
// K: input features) at M = 128 to 8192 tokens. `llama3-8b` is Llama 3 8B (hidden 4096, 32 query and 8 key-value
// heads of 128: fused QKV 6144 × 4096, attention output 4096 × 4096, fused gate and up 28672 × 4096, down 4096 ×
// 14336); `llama3-70b` is Llama 3 70B (hidden 8192, 64 query and 8 key-value heads: 10240 × 8192, 8192 × 8192,
// 57344 × 8192, 8192 × 28672).
struct ModelLayer {
  std::string_view name;
  int n = 0;
  int k = 0;
};
struct ModelPreset {
  std::string_view name;
  std::vector<ModelLayer> layers;
};
const std::vector<ModelPreset>& model_presets();
// The presets' names, comma-separated ("llama3-8b, llama3-70b"), for help texts and errors.
std::string model_preset_names();
// The token counts every preset runs at: 128, 256, ..., 8192.
const std::vector<int>& preset_token_counts();
// A preset's shapes, layer by layer, each at every token count in order; empty if `name` names no preset.
std::vector<Shape> preset_shapes(std::string_view name);
// "1024,2048" -> positive sizes.
std::vector<int> parse_size_list(std::string_view text);

// "random:N" -> N, from 1 to kMaxRandomShapes.
constexpr int kMaxRandomShapes = 10000;
int parse_random_shape_count(std::string_view text);

// `count` shapes drawn from `seed` that `rule` accepts, for fuzzing: dimensions from 1 to kMaxRandomDimension,
// about half of them at a tile edge (a multiple of 64, plus or minus one element, or one 8-element step where
// the rule needs multiples of 8), K often small (and odd where the rule allows). The same seed gives the same
// shapes.
constexpr int kMaxRandomDimension = 3000;
std::vector<Shape> random_shapes(ShapeRule rule, int count, uint64_t seed);
// `count` shapes for each of `rules`, in order, each shape once: rules that differ only where random shapes
// never reach (kTmaAligned and kTmaAlignedTileTable) draw the same shapes, which are then not run twice.
std::vector<Shape> random_shapes_for_rules(const std::vector<ShapeRule>& rules, int count, uint64_t seed);

// The suite `gemm check --shapes suite` runs: edges, tile multiples ± 1, thin, wide, K small and large.
// Each kernel runs the shapes its shape rule accepts.
const std::vector<Shape>& shape_suite();

// The nine shapes of the results runs (results/<gpu>/compare.csv): `gemm explain` without --shapes.
std::vector<Shape> results_run_shapes();

// The shapes `gemm compare` measures when given none: 1024..8192 cubed and one LLM-like projection.
std::vector<Shape> default_compare_shapes();

}  // namespace gemm
