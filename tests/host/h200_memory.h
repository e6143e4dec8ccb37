// What kernel 15's plan weighs a split over every cluster by on an H200 (common/few_tiles.h, FewTilesMemory): its DRAM
// at 2310 bytes an SM cycle (0.95 of 4.82 TB/s at 1980 MHz), and 60 MiB of L2. Shared by the host tests of
// common/few_tiles.h and common/pingpong_choice.h.
#pragma once

#include "common/few_tiles.h"

namespace gemm {

constexpr FewTilesMemory kH200Memory{2310, 60.0 * 1024 * 1024};

}  // namespace gemm
