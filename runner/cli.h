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

using Command = std::variant<ListCommand, RunCommand, CheckCommand, CompareCommand, HelpCommand, VersionCommand>;

// Throws UsageError with a one-line message on any bad argument. Kernel ids are checked for syntax here
// and against the registry by the command.
Command parse_command_line(int argc, const char* const* argv);

}  // namespace gemm
