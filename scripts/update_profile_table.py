#!/usr/bin/env python3
"""Regenerates a table of Nsight Compute profiles, cuBLAS's kernel beside ours, from the raw CSVs of a profiling run.

    update_profile_table.py [--check] [--root DIR] [--profiles FOLDER] [PAGE.md]

FOLDER (default DIR/results/nvidia-h100/dispatch/missed_targets) holds one file per launch profiled, named
MxNxK_ID.csv (ID 0 for cuBLAS's kernel), each written by `scripts/profile.sh GEMM ID MxNxK --raw-csv FILE`: Nsight
Compute's raw page, a row of metric names, a row of base units and one row of values. Every shape must have both
cuBLAS's file and one other. The table (in PAGE, default DIR/kernels/16_dispatch.md, between the marker lines

    <!-- profile-table:begin -->
    <!-- profile-table:end -->

) gives per shape, smallest M first, each kernel's launch (CTAs × threads, cluster size), its duration under the
profiler, how busy its SMs' tensor pipe was, the L2 sectors its SMs read, how many of those the L2 fetched from its
other half and how many the request coalescer served from another SM's request, and the bytes read from DRAM.
--check changes nothing and exits 1 when the page's table is not what the files give (a test runs this).

Exit codes: 0 done (updated or already current), 1 --check found a difference, 2 bad input.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from compare_csv import CUBLAS_ID, Shape
from marked_pages import update_marked_pages
from script_errors import InputError, report

ROOT = Path(__file__).resolve().parent.parent
BEGIN_MARKER = "<!-- profile-table:begin -->"
END_MARKER = "<!-- profile-table:end -->"
DEFAULT_PROFILES = Path("results/nvidia-h100/dispatch/missed_targets")
DEFAULT_PAGE = Path("kernels/16_dispatch.md")
FILE_NAME = re.compile(r"^(\d+)x(\d+)x(\d+)_(\d+)\.csv$")

DURATION = "gpu__time_duration.sum"
TENSOR_PIPES = ("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",  # wgmma counts here on sm_90
                "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed")
L2_READ = "lts__t_sectors_srcunit_tex_op_read.sum"
L2_FAR = "lts__t_sectors_srcunit_ltcfabric.sum"
L2_COALESCED = "lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum"
DRAM_READ = "dram__bytes_read.sum"
GRID, BLOCK = "launch__grid_size", "launch__block_size"
CLUSTER_DIMS = ("launch__cluster_dim_x", "launch__cluster_dim_y", "launch__cluster_dim_z")
TIME_UNITS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6, "nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3,
              "second": 1e6}  # to microseconds

HEAD = ("| shape | kernel | CTAs × threads, cluster | µs | tensor pipe busy (of the time) | L2 sectors read (M) | from its other "
        "half (M) | coalesced (M) | DRAM read (MB) |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|")


@dataclass(frozen=True)
class Profile:
    shape: Shape
    kernel_id: int
    kernel: str  # the demangled name, shortened
    ctas: int
    threads: int
    cluster: Optional[int]  # CTAs a cluster; None where the report has no cluster dimensions
    microseconds: float
    tensor_pct: float
    l2_read: float  # sectors
    l2_far: float
    l2_coalesced: float
    dram_read: float  # bytes


def short_name(demangled: str) -> str:
    """`void unnamed>::few_tiles_kernel<unnamed>::Tiling<64, 128, 2, 1, 0>>(CUtensorMap_st, ...)` (Nsight Compute
    writes the anonymous namespace so, its `<` dropped) -> `few_tiles_kernel<Tiling<64, 128, 2, 1, 0>>`."""
    name = re.sub(r"^void\s+", "", demangled.strip())
    name = re.sub(r"<<unnamed>::", "<", name)  # were the anonymous namespace written whole
    name = re.sub(r"^<unnamed>::|unnamed>::|\(anonymous namespace\)::|\bgemm::", "", name)
    depth = 0
    for index, char in enumerate(name):  # cut at the parameter list: the first '(' outside the template arguments
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif char == "(" and depth == 0:
            return name[:index]
    return name


def number(text: str, path: Path, column: str) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        raise InputError(f"{path}: {column} is {text!r}, not a number") from None


def read_profile(path: Path) -> Profile:
    match = FILE_NAME.match(path.name)
    if not match:
        raise InputError(f"{path}: expected a name MxNxK_ID.csv")
    try:
        with open(path, encoding="utf-8", newline="") as file:
            rows = [row for row in csv.reader(file) if row and not row[0].startswith("==")]
    except OSError as error:
        raise InputError(f"{path}: {error.strerror}") from None
    if len(rows) != 3:
        raise InputError(f"{path}: expected metric names, units and one launch's values ({len(rows)} rows)")
    names, units, values = rows
    table = {name: (unit, value) for name, unit, value in zip(names, units, values)}

    def value(column: str) -> float:
        if column not in table:
            raise InputError(f"{path}: no column {column}")
        return number(table[column][1], path, column)

    duration_unit = table.get(DURATION, ("", ""))[0]
    if duration_unit not in TIME_UNITS:
        raise InputError(f"{path}: {DURATION} in {duration_unit or 'no unit'}, not a time")
    tensor = next((column for column in TENSOR_PIPES if column in table), None)
    if tensor is None:
        raise InputError(f"{path}: no tensor pipe column ({' or '.join(TENSOR_PIPES)})")
    cluster = None
    if all(dim in table for dim in CLUSTER_DIMS):
        cluster = 1
        for dim in CLUSTER_DIMS:
            cluster *= max(1, int(value(dim)))
    return Profile(shape=Shape(int(match[1]), int(match[2]), int(match[3])), kernel_id=int(match[4]),
                   kernel=short_name(table.get("Kernel Name", ("", "?"))[1]), ctas=int(value(GRID)),
                   threads=int(value(BLOCK)), cluster=cluster,
                   microseconds=value(DURATION) * TIME_UNITS[duration_unit], tensor_pct=value(tensor),
                   l2_read=value(L2_READ), l2_far=value(L2_FAR), l2_coalesced=value(L2_COALESCED),
                   dram_read=value(DRAM_READ))


def row(profile: Profile, first_of_shape: bool) -> str:
    owner = "cuBLAS" if profile.kernel_id == CUBLAS_ID else f"{profile.kernel_id}"
    cluster = f", {profile.cluster}" if profile.cluster else ""
    shape = profile.shape.note_label() if first_of_shape else ""
    return (f"| {shape} | {owner}: `{profile.kernel}` | {profile.ctas} × {profile.threads}{cluster} | "
            f"{profile.microseconds:.1f} | {profile.tensor_pct:.0f} % | {profile.l2_read / 1e6:.2f} | "
            f"{profile.l2_far / 1e6:.2f} | {profile.l2_coalesced / 1e6:.2f} | {profile.dram_read / 1e6:.1f} |")


def build_block(folder: Path) -> list[str]:
    files = sorted(path for path in folder.glob("*.csv")) if folder.is_dir() else []
    if not files:
        raise InputError(f"{folder}: no profiles (MxNxK_ID.csv)")
    by_shape: dict[Shape, list[Profile]] = {}
    for path in files:
        profile = read_profile(path)
        by_shape.setdefault(profile.shape, []).append(profile)
    lines = list(HEAD)
    for shape in sorted(by_shape):
        profiles = sorted(by_shape[shape], key=lambda profile: profile.kernel_id)
        if len(profiles) != 2 or profiles[0].kernel_id != CUBLAS_ID:
            ids = ", ".join(str(profile.kernel_id) for profile in profiles)
            raise InputError(f"{folder}: {shape.note_label()} needs cuBLAS's profile and one other (has {ids})")
        lines += [row(profile, index == 0) for index, profile in enumerate(profiles)]
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the table of profiles beside cuBLAS's from raw CSVs.")
    parser.add_argument("page", nargs="?", type=Path, help="the page to update (default: kernels/16_dispatch.md)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    parser.add_argument("--profiles", type=Path, help=f"the raw CSVs (default: ROOT/{DEFAULT_PROFILES})")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the table differs")
    args = parser.parse_args(argv)
    program = Path(__file__).name
    page = args.page or args.root / DEFAULT_PAGE
    try:
        block = build_block(args.profiles or args.root / DEFAULT_PROFILES)
        return update_marked_pages([page], lambda _: block, (BEGIN_MARKER, END_MARKER), "profile table",
                                   "the profiles", program, args.check)
    except InputError as error:
        return report(program, error)

if __name__ == "__main__":
    sys.exit(main())
