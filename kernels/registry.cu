// The one explicit list of kernels. A new kernel takes the next free number and one line here.
#include "kernels/registry.h"

namespace gemm {

GemmLaunch prepare_cublas(const GemmProblem&);            // runner/cublas_gemm.cpp
GemmLaunch prepare_simt_warptiling(const GemmProblem&);   // kernels/01_simt_warptiling.cu
GemmLaunch prepare_mma_sync(const GemmProblem&);          // kernels/02_mma_sync.cu
GemmLaunch prepare_tma_wgmma(const GemmProblem&);         // kernels/03_tma_wgmma.cu
GemmLaunch prepare_producer_consumer(const GemmProblem&); // kernels/04_producer_consumer.cu
GemmLaunch prepare_setmaxnreg(const GemmProblem&);        // kernels/05_setmaxnreg.cu

namespace {

constexpr KernelInfo kKernels[] = {
    {0, "cublas", "cuBLAS reference: cublasLt, fastest of its top heuristics, with workspace", Arch::kAny,
     ShapeRule::kAny, prepare_cublas},
    {1, "simt_warptiling", "block, warp and thread tiling on CUDA cores; fp32 FMA; vector loads", Arch::kAny,
     ShapeRule::kAny, prepare_simt_warptiling},
    {2, "mma_sync", "mma.sync m16n8k16, ldmatrix, XOR-swizzled smem, cp.async multistage pipeline", Arch::kSm80,
     ShapeRule::kAny, prepare_mma_sync},
    {3, "tma_wgmma", "TMA loads (128B swizzle) completing on mbarriers; wgmma from smem descriptors", Arch::kSm90a,
     ShapeRule::kTmaAligned, prepare_tma_wgmma},
    {4, "producer_consumer", "warp specialization: producer warpgroup, 2 consumers, full/empty mbarrier ring",
     Arch::kSm90a, ShapeRule::kTmaAligned, prepare_producer_consumer},
    {5, "setmaxnreg", "128x256 tile; setmaxnreg moves registers from the producer to the consumers", Arch::kSm90a,
     ShapeRule::kTmaAligned, prepare_setmaxnreg},
};

}  // namespace

std::span<const KernelInfo> all_kernels() { return kKernels; }

}  // namespace gemm
