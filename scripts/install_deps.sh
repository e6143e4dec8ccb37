#!/usr/bin/env bash
# Makes sure what building the ladder needs is here (and, with --tests, what its tests need), installing
# only what is missing. It checks capabilities, not package names, so tools that came from pip or conda
# count as much as Debian packages:
#
#   cmake ≥ 3.24 and ninja on PATH        missing or too old: pip (cmake, ninja), else apt-get (ninja-build)
#   nvcc (the CUDA toolkit)               never installed here: one line saying so
#   CLI11, nlohmann-json                  found by CMake's find_package, in the system, under CMAKE_PREFIX_PATH
#   (--tests) GoogleTest                  or in .deps/ (a CMake prefix carried to machines without network);
#                                         missing: apt-get (libcli11-dev, nlohmann-json3-dev, libgtest-dev)
#   (--tests) Python packages             scripts/requirements.txt (matplotlib, pandas, cuobjdump/nvdisasm,
#                                         the CUTLASS headers), by pip, when an import is missing
#
# apt-get runs as root or through `sudo -n` (never a password prompt). Written for Debian 12 and Ubuntu
# 22.04/24.04 (their package names); exercised on Debian 12. When something is missing and cannot be
# installed (no network, no root), it stops with one line saying what, exit 1.
#
#   scripts/install_deps.sh [--tests]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
for_tests=0
case "${1:-}" in
  --tests) for_tests=1 ;;
  "") ;;
  *) echo "usage: scripts/install_deps.sh [--tests]" >&2; exit 2 ;;
esac
export PATH="$PATH:/usr/local/cuda/bin"

fail() { echo "install_deps: $*" >&2; exit 1; }
say() { echo "install_deps: $*"; }

# apt-get as root or through passwordless sudo; returns non-zero when neither works or the install fails.
apt_updated=0
apt_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  local run=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo -n true >/dev/null 2>&1 || return 1
    run=(sudo -n)
  fi
  if [ $apt_updated -eq 0 ]; then
    "${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 || return 1
    apt_updated=1
  fi
  say "apt-get install $*"
  "${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1
}

# pip into the interpreter the scripts use; Debian's system Python needs --break-system-packages (PEP 668).
pip_install() {
  say "pip install $*"
  python3 -m pip install -q "$@" >/dev/null 2>&1 || python3 -m pip install -q --break-system-packages "$@" >/dev/null 2>&1
}

version_at_least() {  # version_at_least 3.25.1 3.24
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]
}

# ---- cmake and ninja ----------------------------------------------------------------------------------
cmake_version() { cmake --version 2>/dev/null | awk 'NR == 1 { print $3 }'; }
if ! version_at_least "$(cmake_version)" 3.24 2>/dev/null || [ -z "$(cmake_version)" ]; then
  found=$(cmake_version)
  pip_install "cmake>=3.24" && hash -r
  version_at_least "$(cmake_version)" 3.24 ||
    fail "cmake ≥ 3.24 is needed (found ${found:-none}) and pip could not install it (no network?): install CMake 3.24 or later"
fi
if ! command -v ninja >/dev/null 2>&1; then
  pip_install ninja || apt_install ninja-build
  hash -r
  command -v ninja >/dev/null 2>&1 || fail "ninja is needed and neither pip nor apt-get could install it: install ninja"
fi

# ---- the CUDA toolkit -----------------------------------------------------------------------------------
command -v nvcc >/dev/null 2>&1 || fail "nvcc not found: install the CUDA toolkit (13.0) and put its bin/ on PATH"

# ---- C++ libraries, as CMake's find_package sees them ------------------------------------------------------
packages=(CLI11 nlohmann_json)
[ $for_tests -eq 1 ] && packages+=(GTest)
declare -A debian_package=([CLI11]=libcli11-dev [nlohmann_json]=nlohmann-json3-dev [GTest]=libgtest-dev)
missing_packages() {  # prints the packages find_package cannot find
  local probe
  probe=$(mktemp -d)
  {
    echo "cmake_minimum_required(VERSION 3.24)"
    echo "project(probe LANGUAGES CXX)"
    for package in "${packages[@]}"; do
      echo "find_package($package CONFIG QUIET)"
      echo "if(NOT ${package}_FOUND)"
      echo "  message(STATUS \"missing:$package\")"
      echo "endif()"
    done
  } >"$probe/CMakeLists.txt"
  local prefix=()
  [ -d .deps ] && prefix=("-DCMAKE_PREFIX_PATH=$PWD/.deps;${CMAKE_PREFIX_PATH:-}")
  cmake -S "$probe" -B "$probe/build" "${prefix[@]}" 2>&1 | sed -n 's/.*missing:\([A-Za-z0-9_]*\).*/\1/p'
  rm -rf "$probe"
}
missing=$(missing_packages)
if [ -n "$missing" ]; then
  to_install=()
  for package in $missing; do to_install+=("${debian_package[$package]}"); done
  apt_install "${to_install[@]}"
  missing=$(missing_packages)
  [ -z "$missing" ] ||
    fail "CMake cannot find $(echo $missing | sed 's/ /, /g') and apt-get could not install ${to_install[*]} (no network or no root?): install them, or put their CMake packages under .deps/ or on CMAKE_PREFIX_PATH"
fi

# ---- what the tests need -------------------------------------------------------------------------------
if [ $for_tests -eq 1 ]; then
  command -v python3 >/dev/null 2>&1 || fail "python3 is needed for the tests"
  if ! python3 -c "import matplotlib, pandas, nvidia.cu13, cutlass_library" >/dev/null 2>&1; then
    pip_install -r scripts/requirements.txt ||
      fail "pip could not install scripts/requirements.txt (no network?): install the packages it lists"
  fi
fi
say "ready"
