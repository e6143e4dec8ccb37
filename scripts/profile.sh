#!/usr/bin/env bash
# Profile one kernel with Nsight Compute: speed of light (SM, tensor pipe, L1, L2, DRAM), compute and
# memory workload, occupancy, and every warp-stall reason. The clocks are left alone (--clock-control none),
# so the numbers describe the GPU as the benchmark sees it.
#
#   scripts/profile.sh GEMM_BINARY KERNEL_ID [SIZE | MxNxK]      (report on stdout; default 4096)
#
# The kernel profiled is the validated launch of `gemm run`: the first launch of `<name>_kernel` (chapter 16,
# dispatch, has none of its own: there, of chapter 15's few_tiles_kernel or chapter 14's pingpong_kernel,
# whichever its cost model picks for the shape) inside the runner's NVTX range "gemm run". For the cuBLAS
# reference (id 0) it is the first launch there of a kernel named like cuBLAS's Hopper GEMMs (nvjet_*, or
# CUTLASS's sm90_* names): the algorithm the runner's selection kept, the one its timed reps use. (Without the
# range it would be the first candidate the selection tries, usually another kernel.)
set -euo pipefail
gemm=${1:?usage: scripts/profile.sh GEMM_BINARY KERNEL_ID [SIZE | MxNxK]}
id=${2:?usage: scripts/profile.sh GEMM_BINARY KERNEL_ID [SIZE | MxNxK]}
size=${3:-4096}
IFS=x read -r m n k <<<"$size"
shape=(--m "$m" --n "${n:-$m}" --k "${k:-$m}")
name=$("$gemm" list | awk -v id="$id" '$1 == id { print $2 }')
[ -n "$name" ] || { echo "profile.sh: no kernel $id in \`$gemm list\`" >&2; exit 2; }
kernel_regex="${name}_kernel"
[ "$name" = dispatch ] && kernel_regex="few_tiles_kernel|pingpong_kernel"
[ "$id" = 0 ] && kernel_regex="nvjet|sm90_|cutlass"
exec ncu --clock-control none --nvtx --nvtx-include "gemm run/" --kernel-name "regex:${kernel_regex}" --launch-count 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section Occupancy --section LaunchStats --section WarpStateStats \
  --metrics "regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,regex:^sm__pipe_(fma|tensor_op_hmma|tensor_op_gmma)_cycles_active\.avg\.pct_of_peak_sustained_active$,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_bytes.sum" \
  "$gemm" run "$id" "${shape[@]}" --reps 1 --warmup 0
