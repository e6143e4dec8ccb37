// The kernel registry (kernels/registry.h): the list itself, the files each kernel needs, and the
// architecture and shape rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/registry.h"

#ifndef GEMM_TEST_KERNEL_IDS
#error "GEMM_TEST_KERNEL_IDS (the CMake list GEMM_KERNEL_IDS, comma-separated) must be defined"
#endif
#ifndef GEMM_SOURCE_DIR
#error "GEMM_SOURCE_DIR must be defined"
#endif

namespace gemm {
namespace {

// The ids CMake runs the GPU tests on.
const std::vector<int> kCMakeKernelIds = {GEMM_TEST_KERNEL_IDS};

// GEMM_SOURCE_DIR/kernels/NN_name<extension>, e.g. kernels/02_mma_sync.cu.
std::filesystem::path kernel_file(const KernelInfo& kernel, const char* extension) {
  char name[256];
  std::snprintf(name, sizeof name, "%02d_%.*s%s", kernel.id, static_cast<int>(kernel.name.size()), kernel.name.data(),
                extension);
  return std::filesystem::path(GEMM_SOURCE_DIR) / "kernels" / name;
}

// Every kernel after the cuBLAS reference (id 0) lacking its kernels/NN_name<extension>.
std::vector<std::string> missing_kernel_files(const char* extension) {
  std::vector<std::string> missing;
  for (const KernelInfo& kernel : all_kernels())
    if (kernel.id > 0 && !std::filesystem::is_regular_file(kernel_file(kernel, extension)))
      missing.push_back(kernel_file(kernel, extension).string());
  return missing;
}

// For EXPECT_TRUE: whether `text` contains `part`, showing both when it does not.
testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// ---- the list -----------------------------------------------------------------------------------------

TEST(Registry, IdsMatchTheCMakeKernelList) {
  std::vector<int> ids;
  for (const KernelInfo& kernel : all_kernels()) ids.push_back(kernel.id);
  EXPECT_EQ(ids, kCMakeKernelIds);
}

TEST(Registry, IdsAreStrictlyIncreasing) {
  const auto kernels = all_kernels();
  ASSERT_FALSE(kernels.empty());
  for (size_t i = 1; i < kernels.size(); ++i) EXPECT_LT(kernels[i - 1].id, kernels[i].id) << "entry " << i;
}

TEST(Registry, StartsWithTheCublasReference) {
  ASSERT_FALSE(all_kernels().empty());
  EXPECT_EQ(all_kernels()[0].id, 0);
  EXPECT_EQ(all_kernels()[0].name, "cublas");
}

TEST(Registry, NamesAreNonEmptyAndUnique) {
  std::set<std::string_view> names;
  for (const KernelInfo& kernel : all_kernels()) {
    EXPECT_FALSE(kernel.name.empty()) << "kernel " << kernel.id;
    EXPECT_TRUE(names.insert(kernel.name).second) << "kernel " << kernel.id << " repeats the name " << kernel.name;
  }
}

TEST(Registry, EveryKernelHasATechniqueAndALauncher) {
  for (const KernelInfo& kernel : all_kernels()) {
    EXPECT_FALSE(kernel.technique.empty()) << "kernel " << kernel.id;
    EXPECT_NE(kernel.prepare, nullptr) << "kernel " << kernel.id;
  }
}

TEST(Registry, EveryLadderKernelHasItsSourceFile) {
  EXPECT_EQ(missing_kernel_files(".cu"), std::vector<std::string>{});
}

TEST(Registry, EveryLadderKernelHasItsNotes) {
  EXPECT_EQ(missing_kernel_files(".md"), std::vector<std::string>{});
}

// The architecture a kernel is registered for is the one its SASS expectations are compiled for: a chapter
// checked only on sm_90a is registered kSm90a, only on sm_100a kSm100a, and one checked on both runs on any
// GPU the runner supports (kAny or kSm80). A wrong entry would make the runner refuse, and the GPU tests skip,
// a kernel on the very GPU it was written for.
TEST(Registry, ArchitectureMatchesTheChaptersSassTargets) {
  for (const KernelInfo& kernel : all_kernels()) {
    if (kernel.id == 0) continue;  // cuBLAS
    std::ifstream source(kernel_file(kernel, ".cu"));
    ASSERT_TRUE(source) << kernel_file(kernel, ".cu");
    std::set<std::string> targets;
    for (std::string line; std::getline(source, line);) {
      if (line.rfind("// sass: ", 0) != 0) continue;
      std::istringstream fields(line.substr(9));
      std::string list;
      fields >> list;
      for (size_t start = 0; start <= list.size();) {
        const size_t comma = std::min(list.find(',', start), list.size());
        targets.insert(list.substr(start, comma - start));
        start = comma + 1;
      }
    }
    ASSERT_FALSE(targets.empty()) << "kernel " << kernel.id << " has no // sass: line";
    if (targets == std::set<std::string>{"sm_90a"}) {
      EXPECT_EQ(kernel.arch, Arch::kSm90a) << "kernel " << kernel.id;
    } else if (targets == std::set<std::string>{"sm_100a"}) {
      EXPECT_EQ(kernel.arch, Arch::kSm100a) << "kernel " << kernel.id;
    } else {
      EXPECT_EQ(targets, (std::set<std::string>{"sm_90a", "sm_100a"})) << "kernel " << kernel.id;
      EXPECT_TRUE(kernel.arch == Arch::kAny || kernel.arch == Arch::kSm80) << "kernel " << kernel.id;
    }
  }
}

TEST(FindKernel, FindsEveryRegisteredKernel) {
  for (const KernelInfo& kernel : all_kernels()) {
    const KernelInfo* found = find_kernel(kernel.id);
    ASSERT_NE(found, nullptr) << "kernel " << kernel.id;
    EXPECT_EQ(found, &kernel);
  }
}

TEST(FindKernel, ReturnsNullForUnknownIds) {
  EXPECT_EQ(find_kernel(99), nullptr);
  EXPECT_EQ(find_kernel(-1), nullptr);
}

TEST(KnownKernelIds, ListsTheIdsCommaSeparated) {
  std::string expected;
  for (int id : kCMakeKernelIds) expected += (expected.empty() ? "" : ", ") + std::to_string(id);
  EXPECT_EQ(known_kernel_ids(), expected);
}

// ---- shape rules --------------------------------------------------------------------------------------

TEST(ShapeRefusal, AnyRuleAcceptsTheSmallestShape) {
  EXPECT_EQ(shape_refusal(ShapeRule::kAny, 1, 1, 1), std::nullopt);
  EXPECT_EQ(shape_refusal(ShapeRule::kAny, 127, 129, 65), std::nullopt);
}

TEST(ShapeRefusal, EveryRuleRefusesAZeroDimension) {
  for (ShapeRule rule : {ShapeRule::kAny, ShapeRule::kTmaAligned, ShapeRule::kTmaAlignedTileTable}) {
    EXPECT_NE(shape_refusal(rule, 0, 8, 8), std::nullopt);
    EXPECT_NE(shape_refusal(rule, 8, 0, 8), std::nullopt);
    EXPECT_NE(shape_refusal(rule, 8, 8, 0), std::nullopt);
  }
}

TEST(ShapeRefusal, TmaRuleAcceptsAnyMWithAlignedNAndK) {
  EXPECT_EQ(shape_refusal(ShapeRule::kTmaAligned, 5, 16, 24), std::nullopt);
  EXPECT_EQ(shape_refusal(ShapeRule::kTmaAligned, 1, 8, 8), std::nullopt);
}

TEST(ShapeRefusal, TmaRuleRefusesUnalignedN) {
  const auto refusal = shape_refusal(ShapeRule::kTmaAligned, 5, 12, 16);
  ASSERT_NE(refusal, std::nullopt);
  EXPECT_TRUE(contains(*refusal, "multiples of 8"));
}

TEST(ShapeRefusal, TmaRuleRefusesUnalignedK) {
  const auto refusal = shape_refusal(ShapeRule::kTmaAligned, 5, 16, 12);
  ASSERT_NE(refusal, std::nullopt);
  EXPECT_TRUE(contains(*refusal, "multiples of 8"));
}

TEST(ShapeRefusal, TileTableRuleIsTheTmaRuleUpTo65535TilesOf256) {
  EXPECT_EQ(kTileTableMaxExtent, 16776960);
  EXPECT_EQ(shape_refusal(ShapeRule::kTmaAlignedTileTable, 5, 16, 24), std::nullopt);
  EXPECT_EQ(shape_refusal(ShapeRule::kTmaAlignedTileTable, kTileTableMaxExtent, kTileTableMaxExtent, 8), std::nullopt);
  EXPECT_TRUE(contains(*shape_refusal(ShapeRule::kTmaAlignedTileTable, 5, 12, 16), "multiples of 8"));
  for (const auto& [m, n] : {std::pair{kTileTableMaxExtent + 1, 8}, std::pair{8, kTileTableMaxExtent + 8}}) {
    const auto refusal = shape_refusal(ShapeRule::kTmaAlignedTileTable, m, n, 8);
    ASSERT_NE(refusal, std::nullopt) << m << "x" << n;
    EXPECT_TRUE(contains(*refusal, "at most 16776960")) << *refusal;
    EXPECT_EQ(shape_refusal(ShapeRule::kTmaAligned, m, n, 8), std::nullopt) << "the plain TMA rule has no limit";
  }
}

TEST(ShapeRuleText, DescribesEveryRule) {
  EXPECT_FALSE(shape_rule_text(ShapeRule::kAny).empty());
  EXPECT_FALSE(shape_rule_text(ShapeRule::kTmaAligned).empty());
  EXPECT_NE(shape_rule_text(ShapeRule::kAny), shape_rule_text(ShapeRule::kTmaAligned));
  EXPECT_TRUE(contains(std::string(shape_rule_text(ShapeRule::kTmaAlignedTileTable)), "16776960"));
}

// ---- architectures ------------------------------------------------------------------------------------

struct ComputeCapability {
  int major, minor;
};
const ComputeCapability kGpus[] = {{7, 5}, {8, 0}, {8, 6}, {8, 9}, {9, 0}, {9, 1}, {10, 0}, {10, 3}, {12, 0}};

TEST(ArchRunsOn, AnyRunsEverywhere) {
  for (const auto [major, minor] : kGpus) EXPECT_TRUE(arch_runs_on(Arch::kAny, major, minor)) << major << "." << minor;
}

TEST(ArchRunsOn, Sm80RunsOnAmpereAndLater) {
  for (const auto [major, minor] : {ComputeCapability{8, 0}, {8, 9}, {9, 0}, {10, 0}})
    EXPECT_TRUE(arch_runs_on(Arch::kSm80, major, minor)) << major << "." << minor;
  EXPECT_FALSE(arch_runs_on(Arch::kSm80, 7, 5));
}

TEST(ArchRunsOn, Sm90aRunsOnlyOn90) {
  for (const auto [major, minor] : kGpus)
    EXPECT_EQ(arch_runs_on(Arch::kSm90a, major, minor), major == 9 && minor == 0) << major << "." << minor;
}

TEST(ArchRunsOn, Sm100aRunsOnlyOn100) {
  for (const auto [major, minor] : kGpus)
    EXPECT_EQ(arch_runs_on(Arch::kSm100a, major, minor), major == 10 && minor == 0) << major << "." << minor;
}

TEST(ArchName, NamesEveryArchDistinctly) {
  std::set<std::string_view> names;
  for (Arch arch : {Arch::kAny, Arch::kSm80, Arch::kSm90a, Arch::kSm100a}) {
    EXPECT_FALSE(arch_name(arch).empty());
    EXPECT_TRUE(names.insert(arch_name(arch)).second) << arch_name(arch);
  }
  EXPECT_EQ(arch_name(Arch::kSm90a), "sm_90a");
  EXPECT_EQ(arch_name(Arch::kSm100a), "sm_100a");
}

}  // namespace
}  // namespace gemm
