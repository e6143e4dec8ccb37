// The one explicit list of kernels. A new kernel takes the next free number and one line here.
#include "kernels/registry.h"

namespace gemm {

GemmLaunch prepare_cublas(const GemmProblem&);            // runner/cublas_gemm.cpp
GemmLaunch prepare_simt_warptiling(const GemmProblem&);   // kernels/01_simt_warptiling.cu
GemmLaunch prepare_mma_sync(const GemmProblem&);          // kernels/02_mma_sync.cu

namespace {

constexpr KernelInfo kKernels[] = {
    {0, "cublas", "cuBLAS reference: cublasLt, fastest of its top heuristics, with workspace", Arch::kAny,
     ShapeRule::kAny, prepare_cublas},
    {1, "simt_warptiling", "block, warp and thread tiling on CUDA cores; fp32 FMA; vector loads", Arch::kAny,
     ShapeRule::kAny, prepare_simt_warptiling},
    {2, "mma_sync", "mma.sync m16n8k16, ldmatrix, XOR-swizzled smem, cp.async multistage pipeline", Arch::kSm80,
     ShapeRule::kAny, prepare_mma_sync},
};

}  // namespace

std::span<const KernelInfo> all_kernels() { return kKernels; }

}  // namespace gemm
