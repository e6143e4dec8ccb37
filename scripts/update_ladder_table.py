#!/usr/bin/env python3
"""Regenerates the README's table of chapters from the registry, kernels/registry.inc.

    update_ladder_table.py [--check] [--root DIR] [--readme README.md]

DIR is the repository (default: the one holding this script); --readme defaults to DIR/README.md.

One row per GEMM_KERNEL line of kernels/registry.inc (id, name, base, architecture, shape rule, what it adds),
after the cuBLAS reference of kernels/registry.cu, with the size of each chapter's code change against its base
from scripts/diff_chapters.sh NN --stat. Only the text between the marker lines

    <!-- ladder-table:begin -->
    <!-- ladder-table:end -->

is replaced. --check changes nothing and exits 1 when the README's table is not what the registry gives (a
test runs this). The TFLOP/s table is scripts/update_readme_table.py's.

Exit codes: 0 done (updated or already current), 1 --check found a difference, 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
BEGIN_MARKER = "<!-- ladder-table:begin -->"
END_MARKER = "<!-- ladder-table:end -->"
EXIT_DIFFERENT = 1
EXIT_BAD_INPUT = 2

# kernels/registry.h's enumerators, as kernels/kernel_rules.cpp names them for `gemm list`.
ARCHITECTURES = {"kAny": "any", "kSm80": "sm_80+", "kSm90a": "sm_90a", "kSm100a": "sm_100a"}
SHAPE_RULES = {
    "kAny": "any M, N, K",
    "kTmaAligned": "N, K multiples of 8",
    "kTmaAlignedTileTable": "N, K multiples of 8; M, N ≤ 16,776,960",
}

KERNEL_LINE = re.compile(
    r'^GEMM_KERNEL\(\s*(?P<id>\d+)\s*,\s*(?P<name>\w+)\s*,\s*(?P<base>\d+)\s*,\s*(?P<arch>\w+)\s*,\s*'
    r'(?P<rule>\w+)\s*,\s*'
    r'"(?P<technique>(?:[^"\\]|\\.)*)"\s*\)\s*$')
CUBLAS_ENTRY = re.compile(r'\{\s*0\s*,\s*"cublas"\s*,\s*"(?P<technique>(?:[^"\\]|\\.)*)"')


class InputError(Exception):
    pass


class Chapter(NamedTuple):
    id: int
    name: str
    base: int  # the chapter it builds on; 0: none
    arch: str
    rule: str
    technique: str


def read_text(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as file:
            return file.read()
    except OSError as error:
        raise InputError(f"{path}: {error.strerror}") from None


def chapters(root: Path) -> list[Chapter]:
    """The GEMM_KERNEL lines of kernels/registry.inc, in file order (ids must increase)."""
    path = root / "kernels" / "registry.inc"
    result = []
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if not line.startswith("GEMM_KERNEL("):
            continue
        match = KERNEL_LINE.match(line)
        if not match:
            raise InputError(f"{path}:{number}: cannot read this GEMM_KERNEL line")
        arch, rule = match["arch"], match["rule"]
        if arch not in ARCHITECTURES or rule not in SHAPE_RULES:
            raise InputError(f"{path}:{number}: unknown architecture {arch} or shape rule {rule}")
        chapter = Chapter(int(match["id"]), match["name"], int(match["base"]), ARCHITECTURES[arch], SHAPE_RULES[rule],
                          match["technique"].replace('\\"', '"'))
        if result and chapter.id <= result[-1].id:
            raise InputError(f"{path}:{number}: ids must increase")
        if chapter.base >= chapter.id or (chapter.base and chapter.base not in [c.id for c in result]):
            raise InputError(f"{path}:{number}: the base of chapter {chapter.id} must be an earlier chapter or 0")
        result.append(chapter)
    if not result:
        raise InputError(f"{path}: no GEMM_KERNEL lines")
    return result


def cublas_technique(root: Path) -> str:
    path = root / "kernels" / "registry.cu"
    match = CUBLAS_ENTRY.search(read_text(path))
    if not match:
        raise InputError(f"{path}: no cuBLAS entry {{0, \"cublas\", ...}}")
    return match["technique"]


def lines_changed(root: Path, chapter: Chapter) -> str:
    """`+A −R` against the chapter's base from scripts/diff_chapters.sh, or — for a chapter without one."""
    if chapter.base == 0:
        return "—"
    script = Path(__file__).resolve().parent / "diff_chapters.sh"
    result = subprocess.run(["bash", str(script), str(chapter.id), "--stat"], capture_output=True, text=True,
                            env={**os.environ, "GEMM_KERNELS_DIR": str(root / "kernels")}, timeout=60)
    match = re.fullmatch(r"\+(\d+) -(\d+)\n", result.stdout)
    if result.returncode != 0 or not match:
        raise InputError(f"diff_chapters.sh {chapter.id} --stat failed: {result.stderr.strip() or result.stdout}")
    return f"+{match[1]} −{match[2]}"


def build_table(root: Path, readme: Path) -> list[str]:
    rows = [["#", "chapter", "adds", "builds on", "needs", "shapes", "lines changed"],
            ["---:", "---", "---", "---:", "---", "---", "---:"],
            ["00", "(runner)", cublas_technique(root), "—", "any", SHAPE_RULES["kAny"], "—"]]
    for chapter in chapters(root):
        notes = root / "kernels" / f"{chapter.id:02d}_{chapter.name}.md"
        stem = f"{chapter.id:02d}_{chapter.name}"
        link = f"[{stem}]({notes.relative_to(root).as_posix()})" if notes.is_file() else stem
        base = f"{chapter.base:02d}" if chapter.base else "—"
        rows.append([f"{chapter.id:02d}", link, chapter.technique, base, chapter.arch, chapter.rule,
                     lines_changed(root, chapter)])
    return ["| " + " | ".join(cells) + " |" for cells in rows]


def replace_between_markers(text: str, block: Sequence[str], source: Path) -> str:
    lines = text.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.strip() == BEGIN_MARKER]
    ends = [i for i, line in enumerate(lines) if line.strip() == END_MARKER]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise InputError(f"{source}: needs one '{BEGIN_MARKER}' line and, after it, one '{END_MARKER}' line")
    begin, end = begins[0], ends[0]
    newline = "\r\n" if lines[begin].endswith("\r\n") else "\n"
    begin_line = lines[begin] if lines[begin].endswith(("\n", "\r")) else lines[begin] + newline
    return "".join(lines[:begin]) + begin_line + "".join(line + newline for line in block) + "".join(lines[end:])


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the README's chapter table from kernels/registry.inc.")
    parser.add_argument("--readme", type=Path, default=None, help="README to update (default: ROOT/README.md)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the table differs")
    args = parser.parse_args(argv)
    program = Path(__file__).name
    readme = args.readme or args.root / "README.md"
    try:
        old = read_text(readme)
        new = replace_between_markers(old, [""] + build_table(args.root, readme) + [""], readme)
    except InputError as error:
        print(f"{program}: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if new == old:
        print(f"{readme}: chapter table up to date")
        return 0
    if args.check:
        print(f"{readme}: the chapter table differs from kernels/registry.inc (run {program})")
        return EXIT_DIFFERENT
    with open(readme, "w", encoding="utf-8", newline="") as file:
        file.write(new)
    print(f"{readme}: chapter table updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
