#!/usr/bin/env bash
# The one-call GPU run (DESIGN.md "Working on the GPU"): configure, build (-j16), run the GPU tests and the
# instruction ceilings, run `gemm compare`, copy the reports into OUTPUT_DIR, and print a short table last.
#
#   scripts/device_check.sh OUTPUT_DIR [extra gemm compare arguments...]
#
# Logs go to OUTPUT_DIR/*.log. If a folder .deps/ (a CMake prefix with CLI11 and nlohmann-json) sits in the
# repository root, it is used: the GPU machine may lack those headers and cannot install them.
set -uo pipefail
out=${1:?usage: scripts/device_check.sh OUTPUT_DIR [gemm compare arguments]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"

build=${BUILD_DIR:-build-device}
prefix_args=()
[ -d .deps ] && prefix_args=("-DCMAKE_PREFIX_PATH=$PWD/.deps")

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
  --format=csv >"$out/nvidia-smi.csv" 2>&1
{ cmake --version | head -1; nvcc --version | tail -1; } >"$out/tools.txt" 2>&1

echo "== configure + build (sm_90a)"
if ! cmake -S . -B "$build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90a "${prefix_args[@]}" >"$out/configure.log" 2>&1; then
  tail -40 "$out/configure.log"
  exit 1
fi
if ! cmake --build "$build" -j16 --target gemm ceilings tma_swizzle_test >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -40
  exit 1
fi

echo "== instruction ceilings"
timeout 300 "$build/ceilings" | tee "$out/ceilings.txt"

echo "== smoke check (every kernel, two small shapes)"
timeout 120 "$build/gemm" check all --shapes 128x256x64,300x520x72 --seeds 1 2>&1 | tee "$out/smoke.txt" | tail -15

echo "== GPU tests"
ctest --test-dir "$build" -L gpu --output-on-failure --timeout 180 >"$out/ctest_gpu.log" 2>&1
gpu_tests=$?
grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|Not Run" "$out/ctest_gpu.log"

echo "== compare"
timeout 400 "$build/gemm" compare --out "$out/compare" "$@" >"$out/compare.txt" 2>&1
compare=$?

echo
echo "== summary"
cat "$out/nvidia-smi.csv"
grep -E "^ceiling" "$out/ceilings.txt"
grep -E "tests passed|tests failed" "$out/ctest_gpu.log"
cat "$out/compare.txt"
echo "gpu tests exit $gpu_tests, compare exit $compare"
[ $gpu_tests -eq 0 ] && [ $compare -eq 0 ]
