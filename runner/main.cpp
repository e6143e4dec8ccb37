// gemm: the runner. Parses the command line (no GPU needed), dispatches, and turns every failure into one
// line on stderr with the exit code docs/usage.md and docs/design.md document (a hung kernel is ended by the
// watchdog, exit 4).
#include <filesystem>
#include <iostream>
#include <variant>

#include "common/errors.h"
#include "runner/cli.h"
#include "git_commit.h"
#include "runner/commands.h"
#include "runner/layout.h"

namespace {

int fail(const char* kind, const std::exception& error, int code) {
  std::cerr << "gemm: " << kind << error.what() << "\n";
  return code;
}

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

}  // namespace

int main(int argc, char** argv) {
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
