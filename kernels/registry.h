// The registry: the one explicit list of kernels the runner knows, with what each needs.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/gemm_problem.h"
#include "common/hilbert_order.h"  // kTileTableMaxExtent

namespace gemm {

// The GPU a kernel's code needs. "a" targets (sm_90a, sm_100a) run only on exactly that compute capability.
enum class Arch { kAny, kSm80, kSm90a, kSm100a };

// The shapes a kernel accepts.
enum class ShapeRule {
  kAny,                  // any M, N, K ≥ 1 (predicated edges)
  kTmaAligned,           // any M; N and K multiples of 8 (TMA needs 16-byte-aligned row strides)
  kTmaAlignedTileTable,  // kTmaAligned, with M and N at most kTileTableMaxExtent
};

struct KernelInfo {
  int id;
  std::string_view name;       // short name, as in the file name: "mma_sync"
  std::string_view technique;  // what the kernel adds, one line
  Arch arch;
  ShapeRule shape_rule;
  GemmLaunch (*prepare)(const GemmProblem&);  // host set-up; returns the enqueue-only launch
  int base;                    // the chapter it builds on (0: none)
};

std::span<const KernelInfo> all_kernels();
const KernelInfo* find_kernel(int id);  // nullptr when unknown
std::string known_kernel_ids();         // "0, 1, 2, 3, 4, 5", for error messages

std::string_view arch_name(Arch arch);                  // "sm_90a"
bool arch_runs_on(Arch arch, int cc_major, int cc_minor);
std::string_view shape_rule_text(ShapeRule rule);       // "any M, N, K >= 1"
// Why `rule` refuses m × n × k, or nothing when it accepts the shape.
std::optional<std::string> shape_refusal(ShapeRule rule, int m, int n, int k);

}  // namespace gemm
