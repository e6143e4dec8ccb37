#!/usr/bin/env bash
# Everything a GPU machine should do in one go: configure and build for sm_90a (-j16), run `gemm compare`,
# the instruction ceilings, the GPU tests (ctest -L gpu), the sanitizers (scripts/sanitize.sh over the kernels
# this GPU runs) and an Nsight Compute profile of each ladder kernel and of cuBLAS (at PROFILE_SIZE, default
# 4096, a size or MxNxK; the kernels PROFILE_IDS, default all this GPU runs and cuBLAS); print a short summary
# last.
#
#   scripts/device_check.sh OUTPUT_DIR [--steps LIST] [-- gemm compare arguments...]
#
# LIST is a comma-separated subset of build,compare,ceilings,tests,sanitize,profile,variants (default: all but
# variants, in that order; build is always done when a step needs its output and it is missing). The compare runs
# first, on a cool GPU: the later steps heat it. Logs and reports land in OUTPUT_DIR/device_check.tgz, the summary
# in OUTPUT_DIR/summary.txt and the compare reports in OUTPUT_DIR/compare/. Kernel ids come from `gemm list`.
# The variants step writes the chapter variants of bench/variants.json (scripts/make_variants.py), builds them
# beside the ladder in BUILD_DIR-variants, checks them and their chapters on the suite and, if all pass, times
# them with `gemm compare --out OUTPUT_DIR/variants` at VARIANT_SHAPES (default: the shapes the notes' variant
# tables show), 30 reps.
# BUILD_DIR names the ladder's build folder (default: build-device); the variants build in BUILD_DIR-variants.
# If a folder .deps/ (a CMake prefix with CLI11 and nlohmann-json) sits in the repository root, the build
# uses it: a GPU machine may lack those headers and have no network to install them.
# The reports name the commit the build was made from; where the machine's copy of the tree carries the git metadata
# of another commit, set GEMM_GIT_COMMIT to the commit the files are at (the summary warns when the tree differs from
# its git commit and GEMM_GIT_COMMIT is not set).
set -uo pipefail
out=${1:?usage: scripts/device_check.sh OUTPUT_DIR [--steps LIST] [-- gemm compare arguments]}
shift
steps=build,compare,ceilings,tests,sanitize,profile
if [ "${1:-}" = --steps ]; then steps=${2:?--steps needs a list}; shift 2; fi
[ "${1:-}" = -- ] && shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The logs are gathered outside OUTPUT_DIR and packed into device_check.tgz at the end, so that OUTPUT_DIR holds a
# handful of files: a machine that sends back only a few files of a run still sends the compare reports.
work=$(mktemp -d "${TMPDIR:-/tmp}/device_check.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$(dirname "$0")/.." || exit 2
export PATH="/usr/local/cuda/bin:$PATH"
build=${BUILD_DIR:-build-device}
want() { [[ ",$steps," == *",$1,"* ]]; }
prefix_args=()
[ -d .deps ] && prefix_args=("-DCMAKE_PREFIX_PATH=$PWD/.deps")
: >"$work/summary.txt"

finish() {
  tar czf "$out/device_check.tgz" -C "$work" . 2>/dev/null
  [ -d "$work/compare" ] && cp -r "$work/compare" "$out/"
  [ -d "$work/variants" ] && cp -r "$work/variants" "$out/"
  tee "$out/summary.txt" <"$work/summary.txt"
}

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
  cmake --version | head -1
  nvcc --version | tail -1
  git log -1 --format='commit %h %s' 2>/dev/null
  echo "repository at $PWD"
} >"$work/environment.txt" 2>&1
# The build names the commit it was made from (cmake/git_commit.cmake); a copy of the tree whose git metadata is not
# its own (a machine that was sent the files of a later commit) would name the wrong one: the summary says so first.
tree_commit=$(git describe --always --dirty --abbrev=12 2>/dev/null)
commit_warning=
if [[ $tree_commit == *-dirty && -z ${GEMM_GIT_COMMIT:-} ]]; then
  commit_warning="warning: the tree differs from its git commit ($tree_commit), and the reports will name it; set"
  commit_warning+=" GEMM_GIT_COMMIT to the commit the files are at"
fi

needs_ladder_build() { want build || want compare || want ceilings || want tests || want sanitize || want profile; }
if want build || { needs_ladder_build && [ ! -x "$build/gemm" ]; }; then
  echo "== configure + build (sm_90a)"
  start=$(date +%s)
  if ! cmake -S . -B "$build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90a "${prefix_args[@]}" >"$work/configure.log" 2>&1 ||
     ! cmake --build "$build" -j16 >"$work/build.log" 2>&1; then
    { echo "BUILD FAILED"; grep -E "error|Error" "$work/configure.log" "$work/build.log" | head -40; } >"$work/summary.txt"
    finish
    exit 1
  fi
  echo "build took $(( $(date +%s) - start )) s" >>"$work/environment.txt"
fi
gemm=$build/gemm
ladder_ids=
needs_ladder_build && ladder_ids=$("$gemm" list --json | python3 -c '
import json, sys
print(" ".join(str(k["id"]) for k in json.load(sys.stdin)["kernels"] if k["runs_here"] and k["id"] != 0))')

compare=skipped gpu_tests=skipped sanitize=skipped variants=skipped
if want compare; then
  echo "== compare"
  timeout 570 "$gemm" compare --out "$work/compare" "$@" >"$work/compare.txt" 2>&1
  compare=$?
fi
if want ceilings; then
  echo "== instruction ceilings"
  cmake --build "$build" -j16 --target ceilings >/dev/null 2>&1
  timeout 120 "$build/ceilings" >"$work/ceilings.txt" 2>&1
fi
if want tests; then
  echo "== GPU tests"
  ctest --test-dir "$build" -L '^gpu$' -j1 --output-on-failure >"$work/ctest_gpu.log" 2>&1
  gpu_tests=$?
  # On a GPU machine the only GPU tests that may skip are those of kernels this GPU cannot run: a skip
  # anywhere else (a runner that wrongly says "no GPU", exit 77) would hide every check behind it.
  unexpected_skips=
  for test in $(sed -n 's/^[[:space:]]*[0-9]* - \([A-Za-z0-9_]*\) (Skipped)$/\1/p' "$work/ctest_gpu.log"); do
    id=${test##*_kernel_}
    if [[ $test =~ ^gpu_[a-z_]+_kernel_[0-9]+$ ]] && ! [[ " 0 $ladder_ids " == *" $id "* ]]; then continue; fi
    unexpected_skips="$unexpected_skips $test"
  done
  if [ -n "$unexpected_skips" ]; then
    echo "skipped on this GPU, though it runs them:$unexpected_skips" >>"$work/ctest_gpu.log"
    gpu_tests=1
  fi
fi
if want sanitize; then
  echo "== sanitizers"
  scripts/sanitize.sh --gemm "$gemm" $ladder_ids >"$work/sanitize.txt" 2>&1
  sanitize=$?
fi
if want profile; then
  echo "== profiles"
  for id in ${PROFILE_IDS:-0 $ladder_ids}; do
    timeout 120 scripts/profile.sh "$gemm" "$id" "${PROFILE_SIZE:-4096}" >"$work/profile_$id.txt" 2>&1
  done
fi
if want variants; then
  echo "== variants"
  variants_build=$build-variants
  variant_ids=$(python3 scripts/make_variants.py --print-ids)
  if ! python3 scripts/make_variants.py "$variants_build/variants" >"$work/variants_build.log" 2>&1 ||
     ! cmake -S . -B "$variants_build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90a "${prefix_args[@]}" \
       -DGEMM_EXPERIMENTS_DIR="$(cd "$variants_build/variants" && pwd)" >>"$work/variants_build.log" 2>&1 ||
     ! cmake --build "$variants_build" -j16 --target gemm >>"$work/variants_build.log" 2>&1; then
    variants=1
    { echo "VARIANTS BUILD FAILED"; grep -E "error|Error|make_variants" "$work/variants_build.log" | head -20; } \
      >"$work/variants_check.txt"
  else
    timeout 300 "$variants_build/gemm" check "$variant_ids" --shapes suite --timeout 10 >"$work/variants_check.txt" 2>&1
    variants=$?
    if [ "$variants" = 0 ]; then
      shapes=${VARIANT_SHAPES:-4096x4096x4096,8192x8192x8192,16384x16384x16384,4096x14336x4096,16384x4096x14336}
      timeout 400 "$variants_build/gemm" compare --kernels "$variant_ids" --shapes "$shapes" --reps 30 \
        --out "$work/variants" >"$work/variants_compare.txt" 2>&1
      variants=$?
    fi
  fi
fi

{
  [ -n "$commit_warning" ] && echo "$commit_warning"
  echo "== environment"; cat "$work/environment.txt"
  [ -f "$work/ceilings.txt" ] && { echo "== ceilings"; grep -E "^ceiling" "$work/ceilings.txt"; }
  [ -f "$work/ctest_gpu.log" ] && { echo "== GPU tests"
    grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|\(Failed\)|^skipped on this GPU" "$work/ctest_gpu.log"; }
  [ -f "$work/sanitize.txt" ] && { echo "== sanitizers"; grep -vE "^ok " "$work/sanitize.txt" | head -40; }
  if ls "$work"/profile_*.txt >/dev/null 2>&1; then
    echo "== profiles (${PROFILE_SIZE:-4096})"
    for file in "$work"/profile_*.txt; do
      printf "%s: " "$(basename "$file" .txt)"
      grep -E "^\s+(SM Frequency|Duration|DRAM Throughput|L2 Hit Rate|sm__pipe_tensor_op_[hg]mma_cycles_active[a-z_.]*|dram__bytes_read.sum|lts__t_bytes.sum) " "$file" |
        awk '{$1=$1; print}' | tr '\n' ';'
      echo
    done
  fi
  [ -f "$work/compare.txt" ] && { echo "== compare"; cat "$work/compare.txt"; }
  [ -f "$work/variants_check.txt" ] && { echo "== variants: check"; grep -vE "^ok " "$work/variants_check.txt" | head -20; }
  [ -f "$work/variants_compare.txt" ] && { echo "== variants: compare"; cat "$work/variants_compare.txt"; }
  echo "gpu tests: $gpu_tests, sanitizers: $sanitize, compare: $compare, variants: $variants"
} >"$work/summary.txt"
finish
for result in "$compare" "$gpu_tests" "$sanitize" "$variants"; do
  [ "$result" = 0 ] || [ "$result" = skipped ] || exit 1
done
