// The L2 fill size a chapter asks for, as the tensor map's promotion (common/tensor_map.h). The sizes are those the
// driver's enum names (cuda.h: CU_TENSOR_MAP_L2_PROMOTION_L2_64B = 1, _128B = 2, _256B = 3).
#include <gtest/gtest.h>

#include <stdexcept>

#include "common/tensor_map.h"

namespace gemm {
namespace {

TEST(L2Promotion, EachFillSizeGivesThePromotionOfThatSize) {
  EXPECT_EQ(l2_promotion(64), 1);
  EXPECT_EQ(l2_promotion(128), 2);
  EXPECT_EQ(l2_promotion(256), 3);
  EXPECT_EQ(l2_promotion(128), CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
}

TEST(L2Promotion, RejectsSizesNoPromotionFetches) {
  EXPECT_THROW(l2_promotion(0), std::invalid_argument);
  EXPECT_THROW(l2_promotion(32), std::invalid_argument);
  EXPECT_THROW(l2_promotion(512), std::invalid_argument);
}

}  // namespace
}  // namespace gemm
