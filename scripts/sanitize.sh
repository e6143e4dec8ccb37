#!/usr/bin/env bash
# compute-sanitizer's four tools over the ladder's kernels, at a few ragged shapes: memcheck (out of
# bounds and misaligned accesses), racecheck (shared-memory hazards), synccheck (barrier misuse) and
# initcheck (reads of memory nothing wrote). Each run is `gemm check` of one kernel against the runner's own
# simple reference (--reference simple: racecheck cannot run cuBLAS's cluster kernels), so the results are
# validated too, and every kernel of the run is instrumented (initcheck must see the writes that fill A and B).
#
#   scripts/sanitize.sh [--gemm PATH] [--tool TOOL] [--shapes MxNxK,...] [ID...]
#
# Defaults: build/gemm, all four tools, every ladder kernel this GPU runs (from `gemm list --json`; the cuBLAS
# reference, id 0, only when named), the shapes below (--shapes replaces them). Prints one line per kernel
# and tool and a summary. Exit 0 when every run is clean, 1 when a tool reported an error or a check failed,
# 77 when no GPU is visible or none of the kernels named runs here, 2 on bad usage. The GPU is looked for
# first; on a machine with one, a missing compute-sanitizer is an error (exit 2), never a silent skip.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
gemm=build/gemm
tools=(memcheck racecheck synccheck initcheck)
ids=()
custom_shapes=
while [ $# -gt 0 ]; do
  case "$1" in
    --gemm) gemm=${2:?--gemm needs a path}; shift 2 ;;
    --shapes) custom_shapes=${2:?--shapes needs a list of MxNxK}; shift 2 ;;
    --tool) tools=("${2:?--tool needs memcheck, racecheck, synccheck or initcheck}"); shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "sanitize.sh: unknown option $1" >&2; exit 2 ;;
    *) ids+=("$1"); shift ;;
  esac
done
for tool in "${tools[@]}"; do
  case "$tool" in memcheck|racecheck|synccheck|initcheck) ;; *) echo "sanitize.sh: unknown tool '$tool'" >&2; exit 2 ;; esac
done
[ -x "$gemm" ] || { echo "sanitize.sh: $gemm is not an executable (build first, or pass --gemm)" >&2; exit 2; }

# id name shape-rule runs-here, one line per kernel.
listing=$("$gemm" list --json | python3 -c '
import json, sys
for k in json.load(sys.stdin)["kernels"]:
    print(k["id"], k["name"], "any" if k["shapes"].startswith("any M, N, K") else "aligned", int(k["runs_here"]))')
[ -n "$listing" ] || { echo "sanitize.sh: \`$gemm list --json\` listed no kernels" >&2; exit 2; }
if ! "$gemm" list --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["gpu"] else 1)'; then
  echo "skipped: no usable CUDA GPU"
  exit 77
fi
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || { echo "sanitize.sh: compute-sanitizer not found (it comes with the CUDA toolkit)" >&2; exit 2; }
[ ${#ids[@]} -gt 0 ] || mapfile -t ids < <(awk '$1 != 0 && $4 == 1 { print $1 }' <<<"$listing")

# Small and ragged: one tile plus one row/column, several partial tiles, K not a multiple of the k block;
# kernels that take any shape also get odd N and K. 2304 x 2048 x 2816 is more tiles than a GPU has SMs (the
# persistent kernels loop), and on a 132-SM GPU kernels 11-13 and 15 (and 16, which gives it to 15) split its last
# round along K; 3000 x 2056 x 1000 gives kernels 10-13 two rounds (10 one full one, 11-13 two full ones on 54
# clusters), so their producers meet at the second, and kernel 14 three rounds of 128 x 176 tiles, two of them
# full, so the producers of each GPC meet at the second and third; on 3900 x 11600 x 48, 3900 x 14000 x 48,
# 3900 x 12360 x 48 and 3900 x 15880 x 48 kernel 14 (and 16, which gives them to it) takes 128 x 176, 128 x 184,
# 128 x 160 and 128 x 144 tiles (16, 19, 19 and 27 rounds of one partial k block, ragged M and N;
# tests/host/test_pingpong_choice.cpp).
# Kernel 15 (and 16, which gives them to it) splits the whole of these along K, fewer cluster tiles than clusters (on
# an H200; tests/host/test_stream_k.cpp pins the plans): 256 x 2040 x 8000 in 4 equal shares a tile (128 x 128, 2 x 1
# clusters, added by slices), 100 x 1800 x 8200 in 3 (64 x 128, 2 x 2 clusters), and 136 x 8696 x 10240 over every
# cluster, shares running across tiles (128 x 256, an owner adds).
aligned_shapes=129x264x72,67x40x24,300x520x200,2304x2048x2816,3000x2056x1000,3900x11600x48,3900x14000x48,3900x12360x48,3900x15880x48,256x2040x8000,100x1800x8200,136x8696x10240
odd_shapes=37x29x13

failures=0 runs=0
for id in "${ids[@]}"; do
  read -r _ name rule here <<<"$(awk -v id="$id" '$1 == id' <<<"$listing")"
  if [ -z "${name:-}" ]; then echo "sanitize.sh: no kernel $id" >&2; exit 2; fi
  if [ "$here" != 1 ]; then echo "skip  kernel $id ($name): does not run on this GPU"; continue; fi
  shapes=$aligned_shapes
  [ "$rule" = any ] && shapes=$shapes,$odd_shapes
  [ -n "$custom_shapes" ] && shapes=$custom_shapes
  for tool in "${tools[@]}"; do
    runs=$((runs + 1))
    log=$(mktemp)
    "$sanitizer" --tool "$tool" --error-exitcode 99 \
      "$gemm" check "$id" --reference simple --shapes "$shapes" --seeds 1 --seed 1 >"$log" 2>&1
    code=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed 's/^========= //')
    if [ $code -eq 0 ]; then
      echo "ok    kernel $id ($name) $tool: ${summary:-clean}"
    else
      failures=$((failures + 1))
      echo "FAIL  kernel $id ($name) $tool (exit $code): ${summary:-see below}"
      grep -E "=========|FAIL|gemm:" "$log" | head -20 | sed 's/^/      /'
    fi
    rm -f "$log"
  done
done
[ $runs -gt 0 ] || { echo "skipped: none of the kernels named runs on this GPU"; exit 77; }
echo "$((runs - failures)) of $runs sanitizer runs clean"
[ $failures -eq 0 ]
