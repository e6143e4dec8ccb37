// The `gemm` command line, parsed into plain structs without touching the GPU (so arguments are always
// validated before a GPU is looked for, and the parser is unit-tested on machines without one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "runner/explain.h"
#include "runner/faults.h"
#include "runner/shapes.h"
#include "runner/tolerance.h"

namespace gemm {

struct ListCommand {
  bool json = false;     // one JSON document (for scripts) instead of the table
  bool details = false;  // registers, shared memory and local memory of each kernel (needs the GPU)
};

struct RunCommand {
  int kernel = 0;
  Shape shape;
  int reps = 50;
  int warmup = 10;
  bool hot = false;
  std::optional<uint64_t> seed;  // random when absent; printed so a run can be repeated
  std::optional<Fault> fault;
  std::optional<double> timeout;  // seconds per kernel run, 0.001 to 1e6; default: runner/watchdog.h
};

// What `check` validates against: cuBLAS (default), or the runner's own simple fp32 kernel, which tools like
// compute-sanitizer can follow (runner/simple_reference.h).
enum class Reference { kCublas, kSimple };

struct CheckCommand {
  std::vector<int> kernels;  // empty: all kernels; each id once, in the order given
  std::vector<Shape> shapes;  // empty: the suite (or random shapes); each shape once, in the order given
  std::optional<int> random_shapes;  // --shapes random:N: N shapes per shape rule, drawn from the seed
  int seeds = 2;
  std::optional<uint64_t> seed;
  std::optional<Fault> fault;
  std::optional<double> timeout;
  Reference reference = Reference::kCublas;
  InputKind inputs = InputKind::kUniform;  // --inputs exact: −1, 0, 1 and tolerance 0 (runner/tolerance.h)
};

struct CompareCommand {
  std::vector<int> kernels;   // empty: all kernels this GPU can run
  std::vector<Shape> shapes;  // from --sizes and --shapes, each shape once; empty: default_compare_shapes()
  int reps = 50;
  int warmup = 10;
  bool hot = false;
  bool blocked = false;  // each kernel timed alone after running back to back, not interleaved
  std::optional<uint64_t> seed;
  std::optional<std::string> out;
  std::optional<Fault> fault;
  std::optional<double> timeout;
};

// Seeds are integers from 0 to 2^53 - 1: a JSON number holds them exactly (compare.json records the seed).
constexpr uint64_t kMaxSeed = (uint64_t{1} << 53) - 1;

struct HelpCommand {
  std::string text;
};
struct VersionCommand {};

// `gemm layout [NAME [PART...]]`: draw a data mapping of the kernels (runner/layout.cpp); no GPU needed.
struct LayoutCommand {
  std::string name;                // empty: list the layouts
  std::vector<std::string> parts;  // what of it to draw, e.g. "A"; each layout says which it takes
  std::string svg;                 // --svg FILE: also draw it as SVG (empty: no)
  bool full = false;               // --full: every column, not only the window that shows the pattern
  int m = 4096, n = 4096;          // tile-order: the problem's M and N ...
  int tile_m = 128, tile_n = 256;  // ... its tile, ...
  int group = 16;                  // ... the grouped order's band (tile rows; kernel 06's) ...
  int sms = 132;                   // ... and the CTAs of a wave (one per SM)
  int base = 0;                    // swizzle-128b tma: the stage's address modulo 1024
};

using Command = std::variant<ListCommand, RunCommand, CheckCommand, CompareCommand, HelpCommand, VersionCommand,
                             LayoutCommand, ExplainCommand>;

// Throws UsageError with a one-line message on any bad argument. Kernel ids are checked for syntax here
// and against the registry by the command.
Command parse_command_line(int argc, const char* const* argv);

}  // namespace gemm
