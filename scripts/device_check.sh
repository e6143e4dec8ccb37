#!/usr/bin/env bash
# The one-call GPU run (docs/design.md, "Working on the GPU"): configure and build (-j16), run `gemm compare`
# (its reports go to OUTPUT_DIR/compare/), the instruction ceilings, the GPU tests and an Nsight Compute
# profile of every ladder kernel; print a short summary last.
#
#   scripts/device_check.sh OUTPUT_DIR [extra gemm compare arguments...]
#
# Everything lands in OUTPUT_DIR/device_check.tgz (logs, reports, profiles) plus OUTPUT_DIR/summary.txt.
# The compare runs first, on a cool GPU: the later steps heat it, and clocks under tensor load drop with
# temperature. If a folder .deps/ (a CMake prefix with CLI11 and nlohmann-json) sits in the repository
# root, it is used: the GPU machine may lack those headers and cannot install them.
set -uo pipefail
out=${1:?usage: scripts/device_check.sh OUTPUT_DIR [gemm compare arguments]}
shift
mkdir -p "$out/work"
out=$(cd "$out" && pwd)
work=$out/work
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
build=${BUILD_DIR:-build-device}
prefix_args=()
[ -d .deps ] && prefix_args=("-DCMAKE_PREFIX_PATH=$PWD/.deps")

finish() {
  tar czf "$out/device_check.tgz" -C "$work" .
  cat "$work/summary.txt" | tee "$out/summary.txt"
}

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
  cmake --version | head -1
  nvcc --version | tail -1
  git log -1 --format='commit %h %s' 2>/dev/null
} >"$work/environment.txt" 2>&1
: >"$work/summary.txt"

echo "== configure + build (sm_90a)"
if ! cmake -S . -B "$build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90a "${prefix_args[@]}" >"$work/configure.log" 2>&1 ||
   ! cmake --build "$build" -j16 >"$work/build.log" 2>&1; then
  { echo "BUILD FAILED"; grep -E "error|Error" "$work/configure.log" "$work/build.log" | head -40; } >"$work/summary.txt"
  finish
  exit 1
fi

echo "== compare"
timeout 500 "$build/gemm" compare --out "$work/compare" "$@" >"$work/compare.txt" 2>&1
compare=$?

echo "== instruction ceilings"
timeout 120 "$build/ceilings" >"$work/ceilings.txt" 2>&1

echo "== GPU tests"
ctest --test-dir "$build" -L gpu -V --timeout 180 >"$work/ctest_gpu.log" 2>&1
gpu_tests=$?

echo "== profiles"
for id in 1 2 3 4 5; do
  timeout 120 scripts/profile.sh "$build/gemm" "$id" 4096 >"$work/profile_$id.txt" 2>&1
done

{
  echo "== environment"; cat "$work/environment.txt"
  echo "== ceilings"; grep -E "^ceiling" "$work/ceilings.txt"
  echo "== GPU tests"; grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" "$work/ctest_gpu.log"
  echo "== profiles (4096^3)"
  for id in 1 2 3 4 5; do
    printf "kernel %s: " "$id"
    grep -E "^\s+(SM Frequency|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Issue Slots Busy)" \
      "$work/profile_$id.txt" | awk '{$1=$1; print}' | tr '\n' ';'
    echo
  done
  echo "== compare"; cat "$work/compare.txt"
  echo "gpu tests exit $gpu_tests, compare exit $compare"
} >"$work/summary.txt"
finish
[ $gpu_tests -eq 0 ] && [ $compare -eq 0 ]
