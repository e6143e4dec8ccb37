#!/usr/bin/env bash
# Installs what building and testing the ladder needs, where it is missing: CMake, Ninja, CLI11,
# nlohmann-json and GoogleTest (Debian/Ubuntu packages), and the Python packages in
# scripts/requirements.txt (matplotlib, pandas, and cuobjdump/nvdisasm for the SASS tests).
# The CUDA toolkit itself (nvcc, cuBLAS) must already be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_if_needed=()
[ "$(id -u)" -ne 0 ] && sudo_if_needed=(sudo)

if command -v apt-get >/dev/null 2>&1; then
  missing=()
  for package in cmake ninja-build libcli11-dev nlohmann-json3-dev libgtest-dev python3-pip; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "install_deps: apt-get install ${missing[*]}"
    "${sudo_if_needed[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_if_needed[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
else
  echo "install_deps: no apt-get here; install CMake, Ninja, CLI11, nlohmann-json and GoogleTest yourself" >&2
fi

# Debian's system Python refuses plain pip installs (PEP 668); fall back to --break-system-packages there.
python3 -m pip install -q -r scripts/requirements.txt 2>/dev/null ||
  python3 -m pip install -q --break-system-packages -r scripts/requirements.txt

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install_deps: nvcc not found: install the CUDA toolkit (13.0)" >&2
  exit 1
fi
