#include "common/tensor_map.h"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "common/cuda_check.h"

namespace gemm {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_tiled_function() {
  static PFN_cuTensorMapEncodeTiled_v12000 function = [] {
    void* pointer = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &pointer, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || pointer == nullptr)
      throw CudaError("the driver does not provide cuTensorMapEncodeTiled (needs CUDA 12.0+ driver)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(pointer);
  }();
  return function;
}

}  // namespace

CUtensorMap make_tensor_map_2d(const bf16* base, uint64_t rows, uint64_t cols, uint32_t box_rows, uint32_t box_cols,
                               CUtensorMapSwizzle swizzle, CUtensorMapL2promotion promotion) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cols, rows};                    // innermost dimension first
  const cuuint64_t strides[1] = {cols * sizeof(bf16)};        // bytes between rows (rank - 1 entries)
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult result = encode_tiled_function()(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<bf16*>(base), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    throw CudaError("cuTensorMapEncodeTiled failed (error " + std::to_string(static_cast<int>(result)) + ") for a " +
                    std::to_string(rows) + " x " + std::to_string(cols) + " matrix, box " + std::to_string(box_rows) +
                    " x " + std::to_string(box_cols));
  return map;
}

CUtensorMapL2promotion l2_promotion(int fill_bytes) {
  switch (fill_bytes) {
    case 64: return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
    case 128: return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    case 256: return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    default:
      throw std::invalid_argument("no L2 promotion fetches " + std::to_string(fill_bytes) + " bytes (64, 128 or 256)");
  }
}

}  // namespace gemm
