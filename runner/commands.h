// The `gemm` subcommands. Each returns the process exit code, or throws UsageError, CudaError or
// NoGpuError (runner/main.cpp turns those into one line on stderr and their exit codes).
#pragma once

#include "runner/cli.h"

namespace gemm {

int command_list(const ListCommand& command);
int command_run(const RunCommand& command);
int command_check(const CheckCommand& command);
int command_compare(const CompareCommand& command);

}  // namespace gemm
