#!/usr/bin/env python3
"""Regenerates a per-shape TFLOP/s table (docs/results.md) from a `gemm compare --out DIR` result.

    update_results_table.py CSV --marker NAME [--ratio-at MxNxK] [--check] [--page FILE.md]

Only the text between the marker lines

    <!-- NAME:begin -->
    <!-- NAME:end -->

is replaced; every byte outside them is kept, so the file's prose stays hand-written while its numbers
always come from a checked-in measurement. docs/results.md (the default page) holds one table per GPU, marked
`kernel-table-h100` and `kernel-table-h200`: --marker names the one to write.
`--ratio-at` picks the shape of the vs cuBLAS column (default: the largest square size in the CSV). The file is
rewritten only when the table changed, so running the script twice leaves no diff; `--check` changes nothing and
only compares (the `scripts_results_table_*` tests).

A kernel's name links to its notes, kernels/NN_name.md of the repository (the nearest directory at or above the
file's that holds kernels/), when they exist. When the CSV is a run declared in results/runs.json
(scripts/results_runs.py), the declaration is verified and applied: a kernel of the run that is not today's chapter
of its number is shown under its declared label, never linked to today's notes, and the caption names the commit
and which chapters the run measured as they are today.

Exit codes: 0 done (updated, already current, or --check found it current), 1 --check found the table
differs, 2 bad input (CSV, Markdown file, --ratio-at shape not in the CSV, or markers missing/misordered) or bad
usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

import pandas as pd

import compare_csv
import results_runs
from compare_csv import CUBLAS_ID, Shape
from marked_pages import replace_between_markers
from script_errors import EXIT_DIFFERENT, InputError, report

MISSING = "—"
DEFAULT_PAGE = Path(__file__).resolve().parent.parent / "docs" / "results.md"


def repository_root(page: Path) -> Path:
    """The nearest directory at or above the file's that holds kernels/ (else the file's own directory)."""
    start = page.resolve().parent
    return next((directory for directory in (start, *start.parents) if (directory / "kernels").is_dir()), start)


def kernel_cell(kernel_id: int, name: str, page: Path, run: Optional[results_runs.Run] = None) -> str:
    """The kernel's name, linked to its notes (kernels/NN_name.md of the repository) only when they exist, so
    the table never carries a dead link; cuBLAS is the reference, not a chapter, and is never linked. A kernel
    that a declared run measured before its chapter changed gets the run's label for it, unlinked."""
    if kernel_id == CUBLAS_ID:
        return "cuBLAS"
    if run is not None and not run.is_current(kernel_id):
        return run.label(kernel_id, name)
    notes = repository_root(page) / "kernels" / f"{kernel_id:02d}_{name}.md"
    return f"[{name}]({compare_csv.relative_link(notes, page)})" if notes.is_file() else name


def caption(csv_path: Path, page: Path, document: dict, run: Optional[results_runs.Run] = None,
            frame: Optional[pd.DataFrame] = None) -> str:
    """The line above the table saying what the numbers are and where they come from. Parts that
    compare.json would supply (reps, L2 mode, GPU, commit) are left out when it is absent rather than guessed;
    for a declared run, which of its kernels are today's chapters."""
    reps = compare_csv.settings_value(document, "reps")
    cold_l2 = compare_csv.settings_value(document, "cold_l2")
    order = compare_csv.settings_value(document, "order")
    gpu = compare_csv.gpu_name(document)
    commit = compare_csv.git_commit(document)
    parts = ["TFLOP/s", f"median of {reps} reps" if reps is not None else "median"]
    if isinstance(cold_l2, bool):
        parts.append("cold L2" if cold_l2 else "hot L2")
    if order == "blocked":  # interleaved, the default, goes unsaid
        parts.append("each kernel timed alone (--blocked)")
    if gpu:
        parts.append(f"on {gpu}")
    if commit:
        parts.append(f"commit {commit}")
    text = ", ".join(parts)
    if run is not None and frame is not None:
        kernels = compare_csv.kernels(frame)
        current = [kernel_id for kernel_id, _ in kernels if run.is_current(kernel_id)]
        former = [f"{kernel_id:02d}: {run.label(kernel_id, name)}" for kernel_id, name in kernels
                  if not run.is_current(kernel_id)]
        if former:
            text += f"; kernels {results_runs.format_ids(current)} as they are today, {', '.join(former)}"
    link = compare_csv.relative_link(csv_path, page)
    return f"{text} — from [{link}]({link})."


def format_ratio(frame: pd.DataFrame, kernel_id: int, shape: Optional[Shape]) -> str:
    """`0.87×`: the kernel's speed relative to cuBLAS (the CSV's vs_cublas, from median times), or — when
    either side has no valid number there."""
    if shape is None:
        return MISSING
    row = compare_csv.row_at(frame, kernel_id, shape)
    if not compare_csv.is_measured(row) or pd.isna(row["vs_cublas"]):
        return MISSING
    return f"{row['vs_cublas']:.2f}×"


def build_table(frame: pd.DataFrame, page: Path, ratio_shape: Optional[Shape] = None,
                run: Optional[results_runs.Run] = None) -> list[str]:
    """The Markdown table lines: one row per kernel in id order; square sizes first (the sweep), then the
    non-square shapes, then vs cuBLAS at `ratio_shape` (default: the largest square size), the headline."""
    squares = compare_csv.square_shapes(frame)
    others = [shape for shape in compare_csv.shapes(frame) if not shape.is_square]
    columns = squares + others
    largest_square = ratio_shape or (squares[-1] if squares else None)

    header = ["#", "kernel"] + [shape.label() for shape in columns] + [
        "vs cuBLAS" if ratio_shape is None else f"vs cuBLAS at {ratio_shape.label()}"]
    align = ["---:", "---"] + ["---:"] * (len(columns) + 1)
    lines = [_table_line(header), _table_line(align)]
    for kernel_id, name in compare_csv.kernels(frame):
        cells = [f"{kernel_id:02d}", kernel_cell(kernel_id, name, page, run)]
        for shape in columns:
            value = compare_csv.tflops_at(frame, kernel_id, shape)
            cells.append(MISSING if value is None else f"{value:.0f}")
        cells.append(format_ratio(frame, kernel_id, largest_square))
        lines.append(_table_line(cells))
    return lines


def _table_line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def markers(name: str) -> tuple[str, str]:
    """The begin and end marker lines of the table called `name` ("kernel-table-h200", say)."""
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def render_block(frame: pd.DataFrame, csv_path: Path, page: Path, document: dict,
                 ratio_shape: Optional[Shape] = None, run: Optional[results_runs.Run] = None) -> list[str]:
    """Everything between the markers: caption, blank line, table. Blank lines around it keep Markdown
    renderers from gluing the table to the marker comments."""
    return (["", caption(csv_path, page, document, run, frame), ""] + build_table(frame, page, ratio_shape, run)
            + [""])


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Rewrite a kernel table between its markers in a Markdown page (docs/results.md) from a "
                    "`gemm compare` compare.csv.")
    parser.add_argument("csv", type=Path, metavar="CSV", help="compare.csv written by `gemm compare --out DIR`")
    parser.add_argument("--page", type=Path, default=DEFAULT_PAGE, metavar="PAGE",
                        help="Markdown page to update (default: docs/results.md of this repository)")
    parser.add_argument("--ratio-at", type=compare_csv.shape_argument, metavar="MxNxK",
                        help="the shape of the vs cuBLAS column (default: the largest square size)")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 when the table differs from what the CSV gives (for tests)")
    parser.add_argument("--marker", required=True, metavar="NAME",
                        help="the table's markers, <!-- NAME:begin --> and <!-- NAME:end --> (kernel-table-h100 or "
                             "kernel-table-h200 in docs/results.md), so one page can hold a table per GPU")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    program = Path(__file__).name
    try:
        frame = compare_csv.load_compare_csv(args.csv)
        old = compare_csv.read_text(args.page)
        if args.ratio_at is not None and args.ratio_at not in compare_csv.shapes(frame):
            raise InputError(f"{args.csv}: no measurement at {args.ratio_at.label()} for --ratio-at")
        document = compare_csv.load_compare_json(args.csv)
        root = repository_root(args.page)
        run = results_runs.for_csv(root, args.csv)
        if run is not None:
            results_runs.verify(run, root, document, compare_csv.kernels(frame))
        block = render_block(frame, args.csv, args.page, document, args.ratio_at, run)
        new = replace_between_markers(old, block, args.page, markers(args.marker))
    except InputError as error:
        return report(program, error)

    table_rows = len(compare_csv.kernels(frame))
    if args.check:
        if new != old:
            print(f"{args.page}: the {args.marker} table differs from {args.csv}; run {program} to regenerate it")
            return EXIT_DIFFERENT
        print(f"{args.page}: the {args.marker} table matches {args.csv}")
        return 0
    if new == old:
        print(f"{args.page}: kernel table already up to date ({table_rows} kernels)")
        return 0
    with open(args.page, "w", encoding="utf-8", newline="") as file:
        file.write(new)
    print(f"{args.page}: kernel table updated ({table_rows} kernels, "
          f"{len(compare_csv.shapes(frame))} shapes) from {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
