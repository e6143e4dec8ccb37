#!/usr/bin/env python3
"""Plots the GEMM ladder from a `gemm compare --out DIR` result.

    plot_progression.py CSV [--out DIR] [--shape MxNxK]

Writes two PNGs into DIR (default: the CSV's directory):
  progression.png  TFLOP/s of every kernel at one shape, in id order, against cuBLAS: how far each
                   step up the ladder gets. Kernels without a number there (refused, wrong) keep their
                   slot with a label, so a missing bar is never mistaken for a missing kernel.
  scaling.png      TFLOP/s against size over the square shapes: where each kernel stops scaling.

Exit codes: 0 written, 2 bad input (missing file or columns, no rows, unknown --shape).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

import compare_csv
from compare_csv import CUBLAS_ID, Shape
from script_errors import InputError, report

CUBLAS_COLOR = "#555555"
KERNEL_COLOR = "#3A76AF"
GAP_COLOR = "#999999"


def choose_shape(frame: pd.DataFrame, requested: Optional[str]) -> Shape:
    """The shape to plot: --shape if given (it must be in the CSV), else the largest square shape, the
    headline size of the sweep; a CSV with no square shape falls back to its largest problem (by m·n·k)."""
    present = compare_csv.shapes(frame)
    if requested is not None:
        shape = Shape.parse(requested)
        if shape not in present:
            listed = ", ".join(f"{s.m}x{s.n}x{s.k}" for s in present)
            raise InputError(f"shape {shape.m}x{shape.n}x{shape.k} is not in the CSV; shapes present: {listed}")
        return shape
    squares = [shape for shape in present if shape.is_square]
    if squares:
        return squares[-1]
    return max(present, key=lambda shape: (shape.m * shape.n * shape.k, shape))


def format_tflops(value: float) -> str:
    """Whole TFLOP/s for fast kernels, one decimal for slow ones, where a whole number would hide differences."""
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def build_progression_figure(frame: pd.DataFrame, shape: Shape, gpu: Optional[str]) -> Figure:
    """Bar chart of TFLOP/s per kernel at `shape`, cuBLAS in its own colour and as a dashed reference line.

    Each bar is labelled with its TFLOP/s and its percentage of cuBLAS; a kernel without a number at this
    shape gets a rotated label naming why (refused, wrong, not run) in place of the bar.
    """
    kernel_list = compare_csv.kernels(frame)
    reference = compare_csv.tflops_at(frame, CUBLAS_ID, shape)
    values = [compare_csv.tflops_at(frame, kernel_id, shape) for kernel_id, _ in kernel_list]
    top = max([value for value in values if value is not None], default=1.0)

    figure = Figure(figsize=(max(6.0, 1.1 * len(kernel_list) + 2.0), 4.8), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    positions = range(len(kernel_list))
    for position, (kernel_id, _), value in zip(positions, kernel_list, values):
        if value is None:
            reason = compare_csv.gap_reason(compare_csv.row_at(frame, kernel_id, shape))
            axes.text(position, top * 0.02, reason, rotation=90, ha="center", va="bottom", color=GAP_COLOR,
                      style="italic", fontsize=10)
            continue
        color = CUBLAS_COLOR if kernel_id == CUBLAS_ID else KERNEL_COLOR
        axes.bar(position, value, width=0.7, color=color)
        label = format_tflops(value)
        if reference:
            label += f"\n{100.0 * value / reference:.0f}%"
        axes.text(position, value + top * 0.01, label, ha="center", va="bottom", fontsize=9)
    if reference:
        axes.axhline(reference, color=CUBLAS_COLOR, linestyle="--", linewidth=1.0,
                     label=f"cuBLAS {format_tflops(reference)} TFLOP/s")
        axes.legend(loc="upper left", frameon=False)

    axes.set_xticks(list(positions))
    axes.set_xticklabels([compare_csv.kernel_label(kernel_id, name) for kernel_id, name in kernel_list],
                         rotation=30, ha="right")
    axes.set_xlim(-0.6, len(kernel_list) - 0.4)
    axes.set_ylim(0, top * 1.2)
    axes.set_ylabel("TFLOP/s")
    axes.grid(axis="y", alpha=0.3)
    axes.set_axisbelow(True)
    axes.set_title(f"GEMM TFLOP/s at {shape.m}×{shape.n}×{shape.k}" + (f" on {gpu}" if gpu else ""))
    return figure


def build_scaling_figure(frame: pd.DataFrame, gpu: Optional[str]) -> Optional[Figure]:
    """TFLOP/s against size over the square shapes only (a non-square shape has no single "size"), one line
    per kernel, cuBLAS dashed; gaps where a kernel has no number. None when the CSV has no square shape."""
    squares = compare_csv.square_shapes(frame)
    if not squares:
        return None
    sizes = [shape.m for shape in squares]

    figure = Figure(figsize=(7.5, 4.8), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for kernel_id, name in compare_csv.kernels(frame):
        values = [compare_csv.tflops_at(frame, kernel_id, shape) for shape in squares]
        series = [float("nan") if value is None else value for value in values]
        label = "cuBLAS" if kernel_id == CUBLAS_ID else compare_csv.kernel_label(kernel_id, name)
        if all(value is None for value in values):
            label += " (no result)"
        style = dict(color=CUBLAS_COLOR, linestyle="--", linewidth=2.0) if kernel_id == CUBLAS_ID else {}
        axes.plot(sizes, series, marker="o", label=label, **style)

    axes.set_xscale("log", base=2)
    axes.set_xticks(sizes)
    axes.set_xticklabels([str(size) for size in sizes])
    axes.xaxis.set_minor_locator(NullLocator())  # no minor ticks between sizes that were never measured
    axes.set_xlabel("M = N = K")
    axes.set_ylabel("TFLOP/s")
    axes.set_ylim(bottom=0)
    axes.grid(alpha=0.3)
    axes.legend(loc="upper left", fontsize=9, frameon=False)
    axes.set_title("GEMM TFLOP/s vs size" + (f" on {gpu}" if gpu else ""))
    return figure


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Plot TFLOP/s per kernel (progression.png) and TFLOP/s vs size (scaling.png) "
                    "from a `gemm compare` compare.csv.")
    parser.add_argument("csv", type=Path, metavar="CSV", help="compare.csv written by `gemm compare --out DIR`")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="directory for the PNGs (default: the CSV's directory)")
    parser.add_argument("--shape", default=None, metavar="MxNxK",
                        help="MxNxK shape for progression.png (default: the largest square shape)")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    program = Path(__file__).name
    try:
        frame = compare_csv.load_compare_csv(args.csv)
        shape = choose_shape(frame, args.shape)
        out = compare_csv.output_dir(args.out, args.csv)
    except InputError as error:
        return report(program, error)
    gpu = compare_csv.gpu_name(compare_csv.load_compare_json(args.csv))

    progression_path = out / "progression.png"
    build_progression_figure(frame, shape, gpu).savefig(progression_path, dpi=150)
    print(f"wrote {progression_path}")
    scaling = build_scaling_figure(frame, gpu)
    if scaling is None:
        print("no square shapes in the CSV: scaling.png not written", file=sys.stderr)
    else:
        scaling_path = out / "scaling.png"
        scaling.savefig(scaling_path, dpi=150)
        print(f"wrote {scaling_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
