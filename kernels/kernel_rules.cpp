// Architecture and shape rules of the registry (host code, unit-tested without a GPU).
#include <string>

#include "kernels/registry.h"

namespace gemm {

std::string_view arch_name(Arch arch) {
  switch (arch) {
    case Arch::kAny: return "any";
    case Arch::kSm80: return "sm_80+";
    case Arch::kSm90a: return "sm_90a";
    case Arch::kSm100a: return "sm_100a";
  }
  return "?";
}

bool arch_runs_on(Arch arch, int cc_major, int cc_minor) {
  switch (arch) {
    case Arch::kAny: return true;
    case Arch::kSm80: return cc_major >= 8;
    case Arch::kSm90a: return cc_major == 9 && cc_minor == 0;   // wgmma/setmaxnreg exist only on 9.0
    case Arch::kSm100a: return cc_major == 10 && cc_minor == 0; // tcgen05 code built for 10.0 only
  }
  return false;
}

std::string_view shape_rule_text(ShapeRule rule) {
  switch (rule) {
    case ShapeRule::kAny: return "any M, N, K >= 1";
    case ShapeRule::kTmaAligned: return "any M; N, K multiples of 8";
    case ShapeRule::kTmaAlignedTileTable: return "M, N <= 16776960; N, K multiples of 8";
  }
  return "?";
}

std::optional<std::string> shape_refusal(ShapeRule rule, int m, int n, int k) {
  if (m < 1 || n < 1 || k < 1) return "M, N and K must be at least 1";
  if (rule == ShapeRule::kAny) return std::nullopt;
  if (n % 8 != 0 || k % 8 != 0)
    return "N and K must be multiples of 8 (TMA needs 16-byte-aligned rows), got N=" + std::to_string(n) +
           " K=" + std::to_string(k);
  if (rule == ShapeRule::kTmaAlignedTileTable && (m > kTileTableMaxExtent || n > kTileTableMaxExtent))
    return "M and N must be at most " + std::to_string(kTileTableMaxExtent) +
           " (its tile table holds 65535 tiles a side), got M=" + std::to_string(m) + " N=" + std::to_string(n);
  return std::nullopt;
}

const KernelInfo* find_kernel(int id) {
  for (const KernelInfo& kernel : all_kernels())
    if (kernel.id == id) return &kernel;
  return nullptr;
}

std::string known_kernel_ids() {
  std::string ids;
  for (const KernelInfo& kernel : all_kernels()) ids += (ids.empty() ? "" : ", ") + std::to_string(kernel.id);
  return ids;
}

}  // namespace gemm
