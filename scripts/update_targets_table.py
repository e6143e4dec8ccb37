#!/usr/bin/env python3
"""Regenerates the table of the model-preset targets (the dispatch chapter against cuBLAS) from the models runs.

    update_targets_table.py [--check] [--root DIR] [PAGE.md ...]

DIR is the repository (default: the one holding this script); the pages default to kernels/16_dispatch.md,
docs/results.md and README.md. For each results run declared in results/runs.json (scripts/results_runs.py) that has a
models run, results/<dir>/models/compare.csv (`gemm compare --shapes llama3-8b,llama3-70b,1024x1024x1024,2048x2048x2048 --out`),
one row gives the dispatch chapter's ratio to cuBLAS, each the ratio of the median times, as its targets are set (a
shape of them missing from the run, or without a valid time, is an error):

- the geometric mean over the presets' shapes with M >= 256, 256 to 8192 tokens (target at least 1.00),
- how many of them are at 0.95 or above (target: all), and the lowest, with its shape,
- the range at M = 128 (an aim of 0.90),
- 1024³ (at least 0.90) and 2048³ (at least 1.00).

The models run must be of the run's commit (its compare.json's git_commit); where the run's dispatch chapter is not
today's (results/runs.json: not current), the row names it by its declared label. Only the text between the marker
lines

    <!-- targets-table:begin -->
    <!-- targets-table:end -->

is replaced, in each page, with links relative to that page. --check changes nothing and exits 1 when a page's table
is not what the runs give (a test runs this), so that a new run cannot leave an old figure standing.

Exit codes: 0 done (updated or already current), 1 --check found a difference, 2 bad input.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import compare_csv
import results_runs
from compare_csv import Shape, ratio_to_cublas
from plot_models import MODEL_PRESETS
from marked_pages import update_marked_pages
from script_errors import InputError, report

ROOT = Path(__file__).resolve().parent.parent
BEGIN_MARKER = "<!-- targets-table:begin -->"
END_MARKER = "<!-- targets-table:end -->"
DISPATCH_ID = 16
DEFAULT_PAGES = (Path("kernels/16_dispatch.md"), Path("docs/results.md"), Path("README.md"))
TARGET_TOKENS = (256, 512, 1024, 2048, 4096, 8192)  # the targets' shapes: every preset layer at these M, all needed
SHORT_TOKENS = 128  # the aim's
SMALL, MEDIUM = Shape(1024, 1024, 1024), Shape(2048, 2048, 2048)
EVERY_SHAPE_BAR = 0.95
TARGET_ROW = "| target | ≥ 1.00 | all | ≥ 0.95 | ≥ 0.90 (an aim) | ≥ 0.90 | ≥ 1.00 |"
HEAD = ("| run | geometric mean, M ≥ 256 | at 0.95 or above | lowest, M ≥ 256 | M = 128 | 1024³ | 2048³ |",
        "|---|---:|---:|---|---|---:|---:|")


@dataclass(frozen=True)
class Targets:
    """The dispatch chapter's ratios to cuBLAS on one models run."""

    mean: float  # geometric mean over the presets' shapes at TARGET_TOKENS
    at_bar: int  # how many of them at EVERY_SHAPE_BAR or above
    shapes: int  # how many there are
    lowest: float
    lowest_shape: Shape
    short_low: float  # the range at M = SHORT_TOKENS
    short_high: float
    small: float  # 1024³
    medium: float  # 2048³


def preset_shapes(tokens: int) -> list[Shape]:
    """Every preset layer at M = tokens, in the presets' order."""
    return [Shape(tokens, layer.n, layer.k) for layers in MODEL_PRESETS.values() for layer in layers]


def targets(frame, csv_path: Path, kernel_id: int = DISPATCH_ID) -> Targets:
    target_shapes = [shape for tokens in TARGET_TOKENS for shape in preset_shapes(tokens)]
    # A shape missing from the run is an error.
    ratios = {shape: ratio_to_cublas(frame, shape, kernel_id, csv_path) for shape in target_shapes}
    short = [ratio_to_cublas(frame, shape, kernel_id, csv_path) for shape in preset_shapes(SHORT_TOKENS)]
    lowest_shape = min(ratios, key=lambda shape: (ratios[shape], shape))
    return Targets(mean=statistics.geometric_mean(ratios.values()),
                   at_bar=sum(value >= EVERY_SHAPE_BAR for value in ratios.values()), shapes=len(ratios),
                   lowest=ratios[lowest_shape], lowest_shape=lowest_shape, short_low=min(short), short_high=max(short),
                   small=ratio_to_cublas(frame, SMALL, kernel_id, csv_path),
                   medium=ratio_to_cublas(frame, MEDIUM, kernel_id, csv_path))


def row(label: str, found: Targets) -> str:
    # The ratios at two decimals, as the notes quote them; the mean at three, since its target is 1.00.
    return (f"| {label} | {found.mean:.3f} | {found.at_bar} of {found.shapes} | {found.lowest:.2f} "
            f"({found.lowest_shape.note_label()}) | {found.short_low:.2f}-{found.short_high:.2f} | {found.small:.2f} "
            f"| {found.medium:.2f} |")


@dataclass(frozen=True)
class RunTargets:
    """One models run's row before it is placed on a page: the GPU, the kernel's label, the CSV (linked from each page
    relative to it) and the figures."""

    gpu: str
    kernel: str
    csv_path: Path
    found: Targets


def run_targets(root: Path) -> list[RunTargets]:
    """The figures of every declared run that has a models run, in results/runs.json's order: read once for all pages."""
    runs = []
    for run in results_runs.load(root):
        csv_path = run.directory / "models" / "compare.csv"
        if not csv_path.is_file():
            continue
        frame = compare_csv.load_compare_csv(csv_path)
        results_runs.require_commit(csv_path, run.commit,
                                    f"results/runs.json declares the run of {run.gpu} at {run.commit}")
        names = dict(compare_csv.kernels(frame))
        if DISPATCH_ID not in names:
            raise InputError(f"{csv_path}: kernel {DISPATCH_ID} was not run")
        kernel = (f"{DISPATCH_ID} {names[DISPATCH_ID]} of {run.commit} (today's)" if run.is_current(DISPATCH_ID)
                  else run.label(DISPATCH_ID, names[DISPATCH_ID]))
        runs.append(RunTargets(run.gpu, kernel, csv_path, targets(frame, csv_path)))
    if not runs:
        raise InputError(f"no results run in {root / results_runs.RUNS_FILE} has a models run")
    return runs


def build_block(runs: Sequence[RunTargets], page: Path) -> list[str]:
    lines = list(HEAD) + [TARGET_ROW]
    for run in runs:
        label = f"{run.gpu}: {run.kernel}, [models run]({compare_csv.relative_link(run.csv_path, page)})"
        lines.append(row(label, run.found))
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the model presets' targets table from the models runs.")
    parser.add_argument("pages", nargs="*", type=Path,
                        help="pages to update (default: notes 16, docs/results.md and README.md)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table differs")
    args = parser.parse_args(argv)
    program = Path(__file__).name
    pages = args.pages or [args.root / page for page in DEFAULT_PAGES]
    try:
        runs = run_targets(args.root)
        return update_marked_pages(pages, lambda page: build_block(runs, page), (BEGIN_MARKER, END_MARKER),
                                   "targets table", "the models runs", program, args.check)
    except InputError as error:
        return report(program, error)


if __name__ == "__main__":
    sys.exit(main())
