// The `gemm` command line, parsed into plain structs without touching the GPU (so arguments are always
// validated before a GPU is looked for, and the parser is unit-tested on machines without one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "runner/faults.h"
#include "runner/shapes.h"

namespace gemm {

struct ListCommand {};

struct RunCommand {
  int kernel = 0;
  Shape shape;
  int reps = 50;
  int warmup = 10;
  bool hot = false;
  std::optional<uint64_t> seed;  // random when absent; printed so a run can be repeated
  std::optional<Fault> fault;
};

struct CheckCommand {
  std::vector<int> kernels;  // empty: all kernels
  std::vector<Shape> shapes;  // empty: the suite
  int seeds = 2;
  std::optional<uint64_t> seed;
  std::optional<Fault> fault;
};

struct CompareCommand {
  std::vector<int> kernels;   // empty: all kernels this GPU can run
  std::vector<Shape> shapes;  // from --sizes and --shapes; empty: default_compare_shapes()
  int reps = 50;
  int warmup = 10;
  bool hot = false;
  std::optional<uint64_t> seed;
  std::optional<std::string> out;
};

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
  int group = 8;                   // ... the grouped order's band (tile rows) ...
  int sms = 132;                   // ... and the CTAs of a wave (one per SM)
  int base = 0;                    // swizzle-128b tma: the stage's address modulo 1024
};

using Command = std::variant<ListCommand, RunCommand, CheckCommand, CompareCommand, HelpCommand, VersionCommand,
                             LayoutCommand>;

// Throws UsageError with a one-line message on any bad argument. Kernel ids are checked for syntax here
// and against the registry by the command.
Command parse_command_line(int argc, const char* const* argv);

}  // namespace gemm
