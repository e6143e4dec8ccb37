#!/usr/bin/env python3
"""Regenerates the table of the dispatch chapter against cuBLAS on layers off the model presets.

    update_layers_table.py [--check] [--root DIR] [--declaration FILE] [--marker NAME] [PAGE.md ...]

DIR is the repository (default: the one holding this script). FILE (default
results/nvidia-h200/dispatch/layers.json) declares the runs, one table row each, in the order given:

    {"gpu": "H200", "kernel": 16, "groups": [
        {"run": "other_layers/8a6df2a", "commit": "8a6df2a", "layers": "Qwen2 7B, Phi-3 mini",
         "leave_out": ["512x4096x4096"]}, ...]}

`run` is a folder beside FILE holding a `gemm compare --out` run (compare.csv, compare.json), which must be of the
declared commit (compare.json's git_commit); `leave_out` names shapes the run measured beside the layers (controls),
which the row leaves out. Every other shape with a cuBLAS row is the group's, and the kernel must have a valid time
there (else an error): each ratio is cuBLAS's median time over the kernel's, as the targets table takes it. Per row:
the range of M, the number of shapes, the geometric mean over all of them, under 512 tokens and from 512, how many are
under 0.95, and the lowest and highest with their shapes.

The pages default to kernels/16_dispatch.md, docs/results.md and README.md. Only the text between the marker lines

    <!-- layers-table:begin -->
    <!-- layers-table:end -->

(NAME, default layers-table, names them: a page may hold one table per GPU) is replaced, with links relative to each
page. --check changes nothing and exits 1 when a page's table is not what the runs give (a test runs this), so that a
run measured again cannot leave an old figure standing in the prose's place.

Exit codes: 0 done (updated or already current), 1 --check found a difference, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import compare_csv
import results_runs
from compare_csv import CUBLAS_ID, Shape, ratio_to_cublas
from marked_pages import update_marked_pages
from script_errors import InputError, report

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MARKER = "layers-table"
DEFAULT_DECLARATION = Path("results/nvidia-h200/dispatch/layers.json")
DEFAULT_PAGES = (Path("kernels/16_dispatch.md"), Path("docs/results.md"), Path("README.md"))
EVERY_SHAPE_BAR = 0.95  # the bar for every preset shape, applied here too
SHORT_TOKENS = 512  # "under 512 tokens": the few-tile regime the issue is about
HEAD = ("| layers | M | shapes | geometric mean | under 512 tokens | from 512 | under 0.95 | lowest | highest |",
        "|---|---|---:|---:|---:|---:|---:|---|---|")


@dataclass(frozen=True)
class Group:
    """One declared run: its folder's compare.csv, the commit it must be of, the row's label, the controls left out."""

    csv_path: Path
    commit: str
    layers: str
    leave_out: frozenset


@dataclass(frozen=True)
class Figures:
    """The kernel's ratios to cuBLAS over one group's shapes."""

    tokens: tuple[int, int]  # lowest and highest M
    shapes: int
    mean: float
    short_mean: Optional[float]  # under SHORT_TOKENS; None where no shape is
    long_mean: Optional[float]
    under_bar: int
    lowest: tuple[float, Shape]
    highest: tuple[float, Shape]


def geometric_mean(values: Sequence[float]) -> Optional[float]:
    return statistics.geometric_mean(values) if values else None  # None: a row's column with no shape


def load_declaration(path: Path) -> tuple[str, int, list[Group]]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(f"{path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: not JSON ({error.msg}, line {error.lineno})") from None
    try:
        gpu, kernel_id, entries = str(document["gpu"]), int(document["kernel"]), document["groups"]
        groups = [Group(csv_path=path.parent / entry["run"] / "compare.csv", commit=str(entry["commit"]),
                        layers=str(entry["layers"]),
                        leave_out=frozenset(Shape.parse(text) for text in entry.get("leave_out", [])))
                  for entry in entries]
    except (KeyError, TypeError, ValueError) as error:
        raise InputError(f"{path}: needs gpu, kernel and groups of run, commit and layers ({error})") from None
    if not groups:
        raise InputError(f"{path}: declares no groups")
    return gpu, kernel_id, groups


def figures(group: Group, kernel_id: int) -> Figures:
    frame = compare_csv.load_compare_csv(group.csv_path)
    results_runs.require_commit(group.csv_path, group.commit, f"the declaration says {group.commit}")
    measured = set(compare_csv.shapes(frame[frame["kernel"] == CUBLAS_ID]))
    missing = group.leave_out - measured
    if missing:
        raise InputError(f"{group.csv_path}: has no cuBLAS row at {min(missing).note_label()}, declared as left out")
    shapes = sorted(measured - group.leave_out)
    if not shapes:
        raise InputError(f"{group.csv_path}: no shape left to tabulate")
    ratios = {shape: ratio_to_cublas(frame, shape, kernel_id, group.csv_path) for shape in shapes}
    ordered = sorted((value, shape) for shape, value in ratios.items())
    return Figures(tokens=(min(shape.m for shape in shapes), max(shape.m for shape in shapes)),
                   shapes=len(shapes), mean=geometric_mean(list(ratios.values())),
                   short_mean=geometric_mean([value for shape, value in ratios.items() if shape.m < SHORT_TOKENS]),
                   long_mean=geometric_mean([value for shape, value in ratios.items() if shape.m >= SHORT_TOKENS]),
                   under_bar=sum(value < EVERY_SHAPE_BAR for value in ratios.values()),
                   lowest=ordered[0], highest=ordered[-1])


def row(label: str, found: Figures) -> str:
    def mean(value: Optional[float]) -> str:
        return "—" if value is None else f"{value:.3f}"

    low, high = found.tokens
    tokens = f"{low}" if low == high else f"{low}-{high}"
    # Means at three decimals, as the targets table has them; single ratios at two, as the notes quote them.
    return (f"| {label} | {tokens} | {found.shapes} | {mean(found.mean)} | {mean(found.short_mean)} | "
            f"{mean(found.long_mean)} | {found.under_bar} | {found.lowest[0]:.2f} ({found.lowest[1].note_label()}) | "
            f"{found.highest[0]:.2f} ({found.highest[1].note_label()}) |")


def build_block(gpu: str, kernel_id: int, groups: Sequence[Group], found: Sequence[Figures], declaration: Path,
                page: Path) -> list[str]:
    commits = sorted({group.commit for group in groups})
    caption = (f"Kernel {kernel_id} ÷ cuBLAS on the {gpu} (cuBLAS's median time over the kernel's, timed in the same "
               f"`gemm compare --out` run; runs of commit {', '.join(commits)}, declared in "
               f"[{declaration.name}]({compare_csv.relative_link(declaration, page)})):")
    lines = [caption, "", *HEAD]
    for group, figures_of_group in zip(groups, found):
        label = f"[{group.layers}]({compare_csv.relative_link(group.csv_path, page)})"
        lines.append(row(label, figures_of_group))
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the table of kernel 16 against cuBLAS off the presets.")
    parser.add_argument("pages", nargs="*", type=Path,
                        help="pages to update (default: notes 16, docs/results.md and README.md)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    parser.add_argument("--declaration", type=Path, help=f"the runs to tabulate (default: {DEFAULT_DECLARATION})")
    parser.add_argument("--marker", default=DEFAULT_MARKER,
                        help=f"the name of the marker lines to write between (default: {DEFAULT_MARKER})")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table differs")
    args = parser.parse_args(argv)
    markers = (f"<!-- {args.marker}:begin -->", f"<!-- {args.marker}:end -->")
    program = Path(__file__).name
    pages = args.pages or [args.root / page for page in DEFAULT_PAGES]
    declaration = args.declaration or args.root / DEFAULT_DECLARATION
    try:
        gpu, kernel_id, groups = load_declaration(declaration)
        found = [figures(group, kernel_id) for group in groups]  # read once for all pages
        return update_marked_pages(pages,
                                   lambda page: build_block(gpu, kernel_id, groups, found, declaration, page),
                                   markers, "layers table", "the runs", program, args.check)
    except InputError as error:
        return report(program, error)


if __name__ == "__main__":
    sys.exit(main())
