// Which device pass is being compiled. The build targets sm_90a and sm_100a; a kernel that uses
// instructions of one of them (wgmma, setmaxnreg: sm_90a only; tcgen05: sm_100a only) has its body compiled
// only in that pass and is left empty in the other. The runner never launches a kernel on a GPU its registry
// entry does not name.
#pragma once

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMM_SM90A_DEVICE_CODE 1
#else
#define GEMM_SM90A_DEVICE_CODE 0
#endif

// nvcc defines __CUDA_ARCH_FEAT_SM100_ALL in the device pass for compute_100a (the "a" features of sm_100:
// tcgen05, Tensor Memory), as __CUDA_ARCH_FEAT_SM90_ALL for compute_90a. Introduced by kernel 17.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define GEMM_SM100A_DEVICE_CODE 1
#else
#define GEMM_SM100A_DEVICE_CODE 0
#endif
