// The registry: cuBLAS (id 0) and the ladder's kernels, listed once in kernels/registry.inc.
#include "kernels/registry.h"

namespace gemm {

GemmLaunch prepare_cublas(const GemmProblem&);  // runner/cublas_gemm.cpp

// Each kernel's launcher, defined in its kernels/NN_name.cu.
#define GEMM_KERNEL(id, name, base, arch, rule, technique) GemmLaunch prepare_##name(const GemmProblem&);
#include "kernels/registry.inc"
#ifdef GEMM_EXPERIMENTS_REGISTRY  // -DGEMM_EXPERIMENTS_DIR (CMakeLists.txt)
#include GEMM_EXPERIMENTS_REGISTRY
#endif
#undef GEMM_KERNEL

namespace {

constexpr KernelInfo kKernels[] = {
    {0, "cublas", "cublasLt: the fastest of 8 candidates, timed like the kernels", Arch::kAny,
     ShapeRule::kAny, prepare_cublas, 0},
#define GEMM_KERNEL(id, name, base, arch, rule, technique) \
  {id, #name, technique, Arch::arch, ShapeRule::rule, prepare_##name, base},
#include "kernels/registry.inc"
#ifdef GEMM_EXPERIMENTS_REGISTRY
#include GEMM_EXPERIMENTS_REGISTRY
#endif
#undef GEMM_KERNEL
};

}  // namespace

std::span<const KernelInfo> all_kernels() { return kKernels; }

}  // namespace gemm
