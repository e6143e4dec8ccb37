#!/usr/bin/env bash
# What chapter NN changes in code: the unified diff of kernels/NN_*.cu against the chapter it builds on (its base,
# the third field of its GEMM_KERNEL line in kernels/registry.inc), each without its leading header comment (the
# prose that says what the chapter adds differs every time and is not code), then one line with the size of the
# change.
#
#   scripts/diff_chapters.sh NN           the diff, then "NN_name.cu against MM_name.cu: +A -R lines ..."
#   scripts/diff_chapters.sh NN --stat    only "+A -R" (the README's ladder table uses it)
#
# Exit 0 (also when the files are the same), 2 bad usage, a chapter missing from the registry or without a base
# (base 0), or a missing file. GEMM_KERNELS_DIR overrides the kernels/ directory (the tests use it).
set -euo pipefail

usage() {
  echo "usage: $(basename "$0") NN [--stat]   (NN: a chapter with a base in kernels/registry.inc)" >&2
  exit 2
}

[[ $# -ge 1 && $# -le 2 ]] || usage
[[ $1 =~ ^[0-9]+$ ]] || usage
stat_only=0
if [[ $# -eq 2 ]]; then
  [[ $2 == --stat ]] || usage
  stat_only=1
fi

kernels=${GEMM_KERNELS_DIR:-$(cd "$(dirname "$0")/.." && pwd)/kernels}
chapter=$((10#$1))
# The base: the third field of the line GEMM_KERNEL(chapter, name, base, ...).
registry=$kernels/registry.inc
if [[ ! -f $registry ]]; then
  echo "$(basename "$0"): no $registry to read chapter $1's base from" >&2
  exit 2
fi
base=$(awk -v id="$chapter" -F'[(,]' '/^GEMM_KERNEL\(/ { gsub(/ /, "", $2); gsub(/ /, "", $4); if ($2 == id) print $4 }' "$registry")
if [[ -z $base ]]; then
  echo "$(basename "$0"): chapter $1 is not in $registry" >&2
  exit 2
fi
if [[ ! $base =~ ^[0-9]+$ ]] || ((base == 0)); then
  echo "$(basename "$0"): chapter $1 builds on no other chapter (base $base in $registry)" >&2
  exit 2
fi

# The one kernels/NN_*.cu of chapter $1, or exit 2.
chapter_file() {
  local matches
  shopt -s nullglob
  matches=("$kernels/$(printf '%02d' "$1")"_*.cu)
  shopt -u nullglob
  if [[ ${#matches[@]} -ne 1 ]]; then
    echo "$(basename "$0"): expected one file $kernels/$(printf '%02d' "$1")_*.cu, found ${#matches[@]}" >&2
    exit 2
  fi
  echo "${matches[0]}"
}

# The file without its header: the leading lines that are // comments or blank.
code_of() {
  awk 'header && (/^[[:space:]]*\/\// || /^[[:space:]]*$/) { next } { header = 0; print }' header=1 "$1"
}

current=$(chapter_file "$chapter")
previous=$(chapter_file "$base")

set +e
diff_text=$(diff -u --label "$(basename "$previous")" --label "$(basename "$current")" \
  <(code_of "$previous") <(code_of "$current"))
status=$?
set -e
if ((status > 1)); then
  echo "$(basename "$0"): diff failed" >&2
  exit 2
fi

# Lines 1-2 of a unified diff are the file headers (--- / +++); every later line starting with + or - is one.
read -r added removed < <(printf '%s\n' "$diff_text" |
  awk 'NR > 2 && /^\+/ { a++ } NR > 2 && /^-/ { r++ } END { print a + 0, r + 0 }')
if ((stat_only)); then
  echo "+$added -$removed"
else
  [[ -n $diff_text ]] && printf '%s\n' "$diff_text"
  echo "$(basename "$current") against $(basename "$previous"): +$added -$removed lines (header comments excluded)"
fi
