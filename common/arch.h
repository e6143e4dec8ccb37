// Which device pass is being compiled. The build targets sm_90a and sm_100a; a kernel that uses
// instructions of one of them (wgmma, setmaxnreg: sm_90a only) has its body compiled only in that pass and
// is left empty in the other. The runner never launches a kernel on a GPU its registry entry does not name.
// (The sm_100a twin of this macro comes with the first tcgen05 kernel.)
#pragma once

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMM_SM90A_DEVICE_CODE 1
#else
#define GEMM_SM90A_DEVICE_CODE 0
#endif
