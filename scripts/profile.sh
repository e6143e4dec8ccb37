#!/usr/bin/env bash
# Profile one kernel with Nsight Compute: speed of light (SM, tensor pipe, L1, L2, DRAM), compute and
# memory workload, occupancy, and every warp-stall reason. The clocks are left alone (--clock-control none),
# so the numbers describe the GPU as the benchmark sees it.
#
#   scripts/profile.sh GEMM_BINARY KERNEL_ID [SIZE | MxNxK] [--raw-csv FILE]   (report on stdout; default 4096)
#
# With --raw-csv the same launch is profiled with the same sections and metrics, and FILE gets Nsight Compute's raw
# page of it as CSV (a row of metric names, a row of base units, one row of values: every metric collected, with the
# kernel's demangled name) instead of the report on stdout; scripts/update_profile_table.py makes a table of such
# files. The metrics include the L2's: sectors the SMs read, sectors it fetched from its other half, and sectors the
# request coalescer served from another SM's request for them.
#
# The kernel profiled is the validated launch of `gemm run`: the first launch of `<name>_kernel` (chapter 16,
# dispatch, has none of its own: there, of chapter 15's few_tiles_kernel or chapter 14's pingpong_kernel,
# whichever its cost model picks for the shape) inside the runner's NVTX range "gemm run". For the cuBLAS
# reference (id 0) it is the first launch there of a kernel named like cuBLAS's Hopper GEMMs (nvjet_*, or
# CUTLASS's sm90_* names): the algorithm the runner's selection kept, the one its timed reps use. (Without the
# range it would be the first candidate the selection tries, usually another kernel.)
set -euo pipefail
usage="usage: scripts/profile.sh GEMM_BINARY KERNEL_ID [SIZE | MxNxK] [--raw-csv FILE]"
gemm=${1:?$usage}
id=${2:?$usage}
size=${3:-4096}
raw_csv=
if [ $# -gt 3 ]; then
  [ "$4" = --raw-csv ] && [ -n "${5:-}" ] && [ $# -eq 5 ] || { echo "$usage" >&2; exit 2; }
  raw_csv=$5
fi
IFS=x read -r m n k <<<"$size"
shape=(--m "$m" --n "${n:-$m}" --k "${k:-$m}")
name=$("$gemm" list | awk -v id="$id" '$1 == id { print $2 }')
[ -n "$name" ] || { echo "profile.sh: no kernel $id in \`$gemm list\`" >&2; exit 2; }
kernel_regex="${name}_kernel"
[ "$name" = dispatch ] && kernel_regex="few_tiles_kernel|pingpong_kernel"
[ "$id" = 0 ] && kernel_regex="nvjet|sm90_|cutlass"
profile=(ncu --clock-control none --nvtx --nvtx-include "gemm run/" --kernel-name "regex:${kernel_regex}" --launch-count 1
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
  --section Occupancy --section LaunchStats --section WarpStateStats
  --metrics "regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,regex:^sm__pipe_(fma|tensor_op_hmma|tensor_op_gmma)_cycles_active\.avg\.pct_of_peak_sustained_active$,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum")
run=("$gemm" run "$id" "${shape[@]}" --reps 1 --warmup 0)
[ -n "$raw_csv" ] || exec "${profile[@]}" "${run[@]}"
report_dir=$(mktemp -d)
trap 'rm -rf "$report_dir"' EXIT
"${profile[@]}" --export "$report_dir/profile" "${run[@]}" >&2
ncu --import "$report_dir/profile.ncu-rep" --csv --page raw --print-units base --print-kernel-base demangled >"$raw_csv"
