#!/usr/bin/env bash
# The one command for a GPU machine: install what is missing, build, and print the comparison table
# (`gemm compare` over every kernel this GPU can run, cuBLAS included). Arguments are passed to
# `gemm compare`, e.g. `scripts/compare.sh --sizes 4096 --out my_results`. Without a GPU it builds and then
# exits 77 with a one-line message. A .deps/ folder (a CMake prefix with CLI11 and nlohmann-json, for
# machines without network) is used when present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
export PATH="/usr/local/cuda/bin:$PATH"
prefix=()
[ -d .deps ] && prefix=("-DCMAKE_PREFIX_PATH=$PWD/.deps")
cmake -S . -B build -G Ninja "${prefix[@]}"
cmake --build build --target gemm -j "$(nproc)"
exec build/gemm compare "$@"
