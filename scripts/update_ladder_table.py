#!/usr/bin/env python3
"""Regenerates the README's table of chapters from the registry, kernels/registry.inc, and the results runs.

    update_ladder_table.py [--check] [--root DIR] [--readme README.md] [--at MxNxK]

DIR is the repository (default: the one holding this script); --readme defaults to DIR/README.md.

One row per GEMM_KERNEL line of kernels/registry.inc (id, name, base, architecture, shape rule, what it adds: at
most ten words), after the cuBLAS reference of kernels/registry.cu, with the size of each chapter's code change
against its base from scripts/diff_chapters.sh NN --stat, and per results run declared in results/runs.json
(scripts/results_runs.py) the chapter's TFLOP/s at --at (default 8192³) and its ratio to cuBLAS in that run. A
run's figure is shown only for the chapters it measured as they are today; its other kernels are named under the
table with their declared labels. Only the text between the marker lines

    <!-- ladder-table:begin -->
    <!-- ladder-table:end -->

is replaced. --check changes nothing and exits 1 when the README's table is not what the registry and the results
give (a test runs this). The per-shape TFLOP/s tables are scripts/update_results_table.py's (docs/results.md).

Exit codes: 0 done (updated or already current), 1 --check found a difference, 2 bad input.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

import compare_csv
import results_runs
from compare_csv import CUBLAS_ID, Shape
from marked_pages import replace_between_markers
from script_errors import EXIT_DIFFERENT, InputError, report

ROOT = Path(__file__).resolve().parent.parent
BEGIN_MARKER = "<!-- ladder-table:begin -->"
END_MARKER = "<!-- ladder-table:end -->"
MAX_WORDS = 10  # what a chapter adds, in the registry's last field
DEFAULT_SHAPE = Shape(8192, 8192, 8192)
MISSING = "—"

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


class Chapter(NamedTuple):
    id: int
    name: str
    base: int  # the chapter it builds on; 0: none
    arch: str
    rule: str
    technique: str


def chapters(root: Path) -> list[Chapter]:
    """The GEMM_KERNEL lines of kernels/registry.inc, in file order (ids must increase)."""
    path = root / "kernels" / "registry.inc"
    result = []
    for number, line in enumerate(compare_csv.read_text(path).splitlines(), 1):
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
        if len(chapter.technique.split()) > MAX_WORDS:
            raise InputError(f"{path}:{number}: what chapter {chapter.id} adds takes more than {MAX_WORDS} words")
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
    match = CUBLAS_ENTRY.search(compare_csv.read_text(path))
    if not match:
        raise InputError(f"{path}: no cuBLAS entry {{0, \"cublas\", ...}}")
    if len(match["technique"].split()) > MAX_WORDS:
        raise InputError(f"{path}: the cuBLAS entry's technique takes more than {MAX_WORDS} words")
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


class Measured(NamedTuple):
    run: results_runs.Run
    frame: object  # the run's compare.csv, as compare_csv loads it
    document: dict  # its compare.json


def load_runs(root: Path, shape: Shape) -> list[Measured]:
    """Every run of results/runs.json, its CSV read and the declaration verified (results_runs.verify)."""
    result = []
    for run in results_runs.load(root):
        frame = compare_csv.load_compare_csv(run.csv)
        document = compare_csv.load_compare_json(run.csv)
        results_runs.verify(run, root, document, compare_csv.kernels(frame))
        if shape not in compare_csv.shapes(frame):
            raise InputError(f"{run.csv}: no measurement at {shape.label()}")
        result.append(Measured(run, frame, document))
    return result


def figures(measured: Measured, kernel_id: int, shape: Shape) -> tuple[str, str]:
    """(TFLOP/s, × cuBLAS) of a kernel at the shape in one run, as update_results_table.py writes them; — where the
    run has no valid number for it."""
    row = compare_csv.row_at(measured.frame, kernel_id, shape)
    if not compare_csv.is_measured(row):
        return MISSING, MISSING
    ratio = MISSING if math.isnan(row["vs_cublas"]) else f"{row['vs_cublas']:.2f}×"
    return f"{row['tflops']:.0f}", ratio


def run_settings(measured: Measured) -> str:
    """`commit 7026117, 200 reps, cold L2`: what compare.json says of the run (parts it lacks are left out)."""
    parts = [f"commit {measured.run.commit}"]
    reps = compare_csv.settings_value(measured.document, "reps")
    cold_l2 = compare_csv.settings_value(measured.document, "cold_l2")
    if reps is not None:
        parts.append(f"{reps} reps")
    if isinstance(cold_l2, bool):
        parts.append("cold L2" if cold_l2 else "hot L2")
    if compare_csv.settings_value(measured.document, "order") == "blocked":
        parts.append("each kernel timed alone")
    return ", ".join(parts)


def build_block(root: Path, readme: Path, shape: Shape = DEFAULT_SHAPE) -> list[str]:
    """Everything between the markers: a caption when there are results, the table, and under it a line per run
    whose kernels include ones that are not today's chapters, and what a dash means."""
    runs = load_runs(root, shape)
    header = ["#", "chapter", "adds", "builds on", "lines changed"]
    align = ["---:", "---", "---", "---:", "---:"]
    for measured in runs:
        header += [f"{measured.run.gpu} TFLOP/s", "× cuBLAS"]
        align += ["---:", "---:"]
    rows = [header, align, ["00", "(runner)", cublas_technique(root), MISSING, MISSING]
            + [cell for measured in runs for cell in figures(measured, CUBLAS_ID, shape)]]
    dashes = False
    for chapter in chapters(root):
        notes = root / "kernels" / f"{chapter.id:02d}_{chapter.name}.md"
        stem = f"{chapter.id:02d}_{chapter.name}"
        link = f"[{stem}]({compare_csv.relative_link(notes, readme)})" if notes.is_file() else stem
        base = f"{chapter.base:02d}" if chapter.base else MISSING
        cells = [f"{chapter.id:02d}", link, chapter.technique, base, lines_changed(root, chapter)]
        for measured in runs:
            pair = figures(measured, chapter.id, shape) if measured.run.is_current(chapter.id) else (MISSING,) * 2
            dashes |= MISSING in pair
            cells += pair
        rows.append(cells)
    table = ["| " + " | ".join(cells) + " |" for cells in rows]
    if not runs:
        return table
    links = [compare_csv.relative_link(m.run.csv, readme) for m in runs]
    sources = ", ".join(f"{m.run.gpu} from [{link}]({link}) ({run_settings(m)})" for m, link in zip(runs, links))
    caption = (f"TFLOP/s at {shape.label()} (median of the reps) and the ratio to cuBLAS timed in the same run, from "
               f"one `gemm compare --out` run per GPU: {sources}.")
    notes = []
    for measured in runs:
        run = measured.run
        former = [(kernel_id, name) for kernel_id, name in compare_csv.kernels(measured.frame)
                  if not run.is_current(kernel_id)]
        if not former:
            continue
        current = [kernel_id for kernel_id, _ in compare_csv.kernels(measured.frame) if run.is_current(kernel_id)]
        described = []
        for kernel_id, name in former:
            tflops, ratio = figures(measured, kernel_id, shape)
            described.append(f"its {kernel_id:02d} was {run.label(kernel_id, name)}: {tflops} TFLOP/s, {ratio} "
                             f"cuBLAS at {shape.label()}")
        notes.append(f"{run.gpu}: the run of commit {run.commit} measured kernels {results_runs.format_ids(current)} "
                     f"as they are today; {'; '.join(described)}.")
    if dashes:
        notes.append(f"{MISSING}: no measurement of the chapter as it is today.")
    return [caption, ""] + table + [line for note in notes for line in ("", note)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the README's chapter table from kernels/registry.inc.")
    parser.add_argument("--readme", type=Path, default=None, help="README to update (default: ROOT/README.md)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the table differs")
    parser.add_argument("--at", type=compare_csv.shape_argument, default=DEFAULT_SHAPE, metavar="MxNxK",
                        help="the shape of the TFLOP/s columns (default: 8192x8192x8192)")
    args = parser.parse_args(argv)
    program = Path(__file__).name
    readme = args.readme or args.root / "README.md"
    try:
        old = compare_csv.read_text(readme)
        new = replace_between_markers(old, [""] + build_block(args.root, readme, args.at) + [""], readme,
                                     (BEGIN_MARKER, END_MARKER))
    except InputError as error:
        return report(program, error)
    if new == old:
        print(f"{readme}: chapter table up to date")
        return 0
    if args.check:
        print(f"{readme}: the chapter table differs from kernels/registry.inc and results/ (run {program})")
        return EXIT_DIFFERENT
    with open(readme, "w", encoding="utf-8", newline="") as file:
        file.write(new)
    print(f"{readme}: chapter table updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
