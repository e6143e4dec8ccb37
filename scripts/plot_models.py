#!/usr/bin/env python3
"""Plots a kernel's speed relative to cuBLAS on the model-preset layers of a `gemm compare --out DIR` result.

    plot_models.py CSV [--out DIR] [--kernel ID] [--baseline ID]

Writes ratio_vs_tokens.png into DIR (default: the CSV's directory): one subplot per model preset (llama3-8b,
llama3-70b), x = M (tokens, log2 scale), y = the kernel's time ratio to cuBLAS (vs_cublas, above 1 is faster
than cuBLAS), one solid line per layer (N×K) for --kernel (default 16) and, dashed and thinner, the same layers
for --baseline (default 8), so that the step between the two is visible. Shapes that are not a preset layer
(e.g. 1024³) are left out; rows whose status is not "ok" are missing points, never zeros.

Exit codes: 0 written, 2 bad input (missing file or columns, no rows, a kernel or a preset layer not in the CSV).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

import compare_csv
from compare_csv import CUBLAS_ID
from script_errors import InputError, report

CUBLAS_COLOR = "#555555"
LAYER_COLORS = ("#3A76AF", "#EF8636", "#519E3E", "#C53A32")  # one per layer role, the same in every preset


@dataclass(frozen=True)
class Layer:
    """One GEMM of a transformer block: C[M×N] = A[M×K]·Bᵀ, B N×K (nn.Linear), M = tokens."""

    name: str
    n: int
    k: int


# Mirrors runner/shapes.cpp's model_presets(): keep the two in step when a preset or layer changes there.
MODEL_PRESETS: dict[str, tuple[Layer, ...]] = {
    "llama3-8b": (Layer("qkv", 6144, 4096), Layer("attention output", 4096, 4096),
                  Layer("gate and up", 28672, 4096), Layer("down", 4096, 14336)),
    "llama3-70b": (Layer("qkv", 10240, 8192), Layer("attention output", 8192, 8192),
                   Layer("gate and up", 57344, 8192), Layer("down", 8192, 28672)),
}


def kernel_name(frame: pd.DataFrame, kernel_id: int) -> str:
    """The kernel's name from the CSV's name column; raises InputError naming the kernels present if it is absent."""
    present = compare_csv.kernels(frame)
    for present_id, name in present:
        if present_id == kernel_id:
            return name
    listed = ", ".join(compare_csv.kernel_label(present_id, name) for present_id, name in present)
    raise InputError(f"kernel {kernel_id} is not in the CSV; kernels present: {listed}")


def layer_rows(frame: pd.DataFrame, kernel_id: int, preset: str, layer: Layer) -> pd.DataFrame:
    """The kernel's rows (every status) at one layer, ordered by M; raises InputError when there are none."""
    rows = frame[(frame["kernel"] == kernel_id) & (frame["n"] == layer.n) & (frame["k"] == layer.k)]
    if rows.empty:
        raise InputError(f"kernel {kernel_id} has no rows for {preset} layer '{layer.name}' "
                         f"(N×K = {layer.n}x{layer.k}); was the CSV written by `gemm compare --shapes {preset}`?")
    return rows.sort_values("m")


def ratio_series(rows: pd.DataFrame) -> tuple[list[int], list[float]]:
    """(M values, vs_cublas) of a layer's rows; a row that is not "ok" keeps its M with NaN, a gap in the line."""
    tokens = [int(m) for m in rows["m"]]
    ratios = [float(ratio) if status == "ok" and not pd.isna(ratio) else float("nan")
              for ratio, status in zip(rows["vs_cublas"], rows["status"])]
    return tokens, ratios


def check_inputs(frame: pd.DataFrame, kernel_ids: Sequence[int]) -> None:
    """Fails early, with one line, when a kernel or any preset layer of a kernel is missing."""
    for kernel_id in kernel_ids:
        kernel_name(frame, kernel_id)
    for kernel_id in kernel_ids:
        for preset, layers in MODEL_PRESETS.items():
            for layer in layers:
                layer_rows(frame, kernel_id, preset, layer)


def build_figure(frame: pd.DataFrame, kernel_id: int, baseline_id: int, gpu: Optional[str]) -> Figure:
    """Side-by-side subplots, one per preset, sharing the y axis; each with its legend below it."""
    series = [(kernel_id, dict(linestyle="-", linewidth=2.0, marker="o", markersize=4)),
              (baseline_id, dict(linestyle="--", linewidth=1.0, marker="o", markersize=2.5, alpha=0.8))]
    labels = {kid: compare_csv.kernel_label(kid, kernel_name(frame, kid)) for kid, _ in series}

    figure = Figure(figsize=(12.0, 6.2), layout="constrained")
    FigureCanvasAgg(figure)
    axes_list = figure.subplots(1, len(MODEL_PRESETS), sharey=True, squeeze=False)[0]
    all_tokens: set[int] = set()
    all_ratios: list[float] = [1.0]
    for axes, (preset, layers) in zip(axes_list, MODEL_PRESETS.items()):
        axes.axhline(1.0, color=CUBLAS_COLOR, linewidth=1.0, label="cuBLAS (1.0)")
        for color, layer in zip(LAYER_COLORS, layers):
            for kid, style in series:
                tokens, ratios = ratio_series(layer_rows(frame, kid, preset, layer))
                all_tokens.update(tokens)
                all_ratios.extend(ratio for ratio in ratios if ratio == ratio)
                label = f"{layer.name} {layer.n}×{layer.k}, {labels[kid]}"
                if all(ratio != ratio for ratio in ratios):
                    label += " (no result)"
                axes.plot(tokens, ratios, color=color, label=label, **style)
        axes.set_title(preset)
        axes.set_xscale("log", base=2)
        axes.set_xlabel("M (tokens)")
        axes.grid(alpha=0.3)
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=8, frameon=False)

    ticks = sorted(all_tokens)
    for axes in axes_list:
        axes.set_xticks(ticks)
        axes.set_xticklabels([str(tokens) for tokens in ticks])
        axes.xaxis.set_minor_locator(NullLocator())  # no minor ticks between token counts never measured
    low, high = min(all_ratios), max(all_ratios)
    pad = 0.05 * max(high - low, 0.1)
    axes_list[0].set_ylim(low - pad, high + pad)
    axes_list[0].set_ylabel("time ratio to cuBLAS (cuBLAS ms / kernel ms; >1 faster)")
    figure.suptitle(f"{labels[kernel_id]} (solid) vs {labels[baseline_id]} (dashed): time ratio to cuBLAS "
                    "on the model-preset layers" + (f" ({gpu})" if gpu else ""))
    return figure


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Plot a kernel's time ratio to cuBLAS against token count on the llama3 model-preset layers "
                    "(ratio_vs_tokens.png) from a `gemm compare` compare.csv.")
    parser.add_argument("csv", type=Path, metavar="CSV", help="compare.csv written by `gemm compare --out DIR`")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="directory for the PNG (default: the CSV's directory)")
    parser.add_argument("--kernel", type=int, default=16, metavar="ID",
                        help="kernel drawn solid (default: 16, the dispatch chapter)")
    parser.add_argument("--baseline", type=int, default=8, metavar="ID",
                        help="kernel drawn dashed for comparison (default: 8)")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    program = Path(__file__).name
    try:
        if CUBLAS_ID in (args.kernel, args.baseline):
            raise InputError(f"kernel {CUBLAS_ID} is cuBLAS, the reference (its ratio is 1 by definition); "
                             "choose another --kernel/--baseline")
        if args.kernel == args.baseline:
            raise InputError(f"--kernel and --baseline are both {args.kernel}; choose two different kernels")
        frame = compare_csv.load_compare_csv(args.csv)
        check_inputs(frame, (args.kernel, args.baseline))
        out = compare_csv.output_dir(args.out, args.csv)
    except InputError as error:
        return report(program, error)
    gpu = compare_csv.gpu_name(compare_csv.load_compare_json(args.csv))

    path = out / "ratio_vs_tokens.png"
    build_figure(frame, args.kernel, args.baseline, gpu).savefig(path, dpi=150)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
