// gemm: the runner. Parses the command line (no GPU needed), dispatches, and turns every failure into one
// line on stderr with the exit code docs/usage.md and docs/design.md document (a hung kernel is ended by the
// watchdog, exit 4).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "common/errors.h"
#include "runner/cli.h"
#include "git_commit.h"
#include "runner/commands.h"
#include "runner/layout.h"

namespace {

// A message on one line whatever it quotes: an argument with a line break in it is echoed with `\n`.
std::string one_line(std::string_view text) {
  std::string line;
  for (const char c : text) {
    if (c == '\n') line += "\\n";
    else if (c == '\r') line += "\\r";
    else line += c;
  }
  return line;
}

int fail(const char* kind, const std::exception& error, int code) {
  std::cerr << "gemm: " << kind << one_line(error.what()) << "\n";
  return code;
}

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

// The command the arguments name, run: its exit code, every failure reported as one line on stderr.
int run_command(int argc, char** argv) {
  using namespace gemm;
  try {
    const Command command = parse_command_line(argc, argv);
    return std::visit(Overloaded{
                          [](const HelpCommand& help) {
                            std::cout << help.text;
                            return int{kExitOk};
                          },
                          [](const VersionCommand&) {
                            std::cout << "gemm-ladder " << GEMM_VERSION << " (" << GEMM_GIT_COMMIT << ")\n";
                            return int{kExitOk};
                          },
                          [](const ListCommand& list) { return command_list(list); },
                          [](const RunCommand& run) { return command_run(run); },
                          [](const CheckCommand& check) { return command_check(check); },
                          [](const CompareCommand& compare) { return command_compare(compare); },
                          [](const LayoutCommand& layout) { return command_layout(layout); },
                          [](const ExplainCommand& explain) { return command_explain(explain); },
                      },
                      command);
  } catch (const UsageError& error) {
    return fail("error: ", error, kExitUsage);
  } catch (const NoGpuError& error) {
    return fail("", error, kExitNoGpu);
  } catch (const CudaError& error) {
    return fail("CUDA error: ", error, kExitCudaError);
  } catch (const std::filesystem::filesystem_error& error) {
    return fail("cannot write the report: ", error, kExitUsage);
  } catch (const std::bad_alloc&) {
    std::cerr << "gemm: out of host memory\n";
    return kExitCudaError;
  } catch (const std::exception& error) {
    return fail("internal error: ", error, kExitCudaError);
  }
}

// Why what the command wrote to stdout did not all arrive (nothing when it did). Buffered output to a full disk
// (`gemm list --json > /dev/full`) fails only when it is flushed, at the latest at exit, where nobody hears of it
// and the exit code says 0; flushed here, the failure is reported.
std::optional<std::string> stdout_failure() {
  errno = 0;
  std::cout.flush();  // flushes stdout too (std::cout writes through stdio)
  std::fflush(stdout);
  const int error = errno;  // why this flush failed; 0 when it had nothing to write
  if (!std::ferror(stdout) && std::cout.good()) return std::nullopt;
  // An earlier write failed instead (output larger than the buffer): errno has moved on since.
  return error != 0 ? std::string(std::strerror(error)) : std::string("part of the output was lost");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gemm;
  // A closed stdout (`gemm list >&-`): the first file the program opened would take its descriptor and receive what
  // is meant for stdout, so nothing is run.
  if (fcntl(STDOUT_FILENO, F_GETFD) == -1) {
    std::cerr << "gemm: error: cannot write to standard output: it is closed\n";
    return kExitUsage;
  }
  const int code = run_command(argc, argv);
  // A command that succeeded but whose output did not arrive has not succeeded (one that failed has said why).
  if (const std::optional<std::string> failure = stdout_failure(); failure && code == kExitOk) {
    std::cerr << "gemm: error: cannot write to standard output: " << *failure << "\n";
    return kExitUsage;
  }
  return code;
}
