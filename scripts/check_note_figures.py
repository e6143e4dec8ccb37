#!/usr/bin/env python3
"""Checks the measurement tables in the notes against the results file they cite.

    check_note_figures.py [--root DIR] [NOTE.md ...]

A measurement table in a note looks like

    | shape | 05 TFLOP/s | cuBLAS | ratio | vs 04 |
    |---|---:|---:|---:|---:|
    | 1024³ | 110 | 225 | 0.49 | 0.70× |
    | 4096 × 14336 × 4096 | 534 | 844 | 0.63 | 1.08× |

and the note links the compare.csv it comes from (a link ending in compare.csv; the first one in the note).
Every figure must be the CSV's number written at the precision shown: TFLOP/s of the kernel and of cuBLAS
(`tflops`), the ratio to cuBLAS and the speed-up over the kernel named in "vs NN" (both ratios of the
`ms_median` times). Numbers are formatted as Python formats them, like scripts/update_readme_table.py.

Exit codes: 0 every figure matches, 1 some figure differs (each printed), 2 bad input.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path
from typing import Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
HEADER = re.compile(r"^\|\s*shape\s*\|\s*(\d+) TFLOP/s\s*\|\s*cuBLAS\s*\|\s*ratio\s*\|(?:\s*vs (\d+)\s*\|)?\s*$")
CSV_LINK = re.compile(r"\]\(([^)]*compare\.csv)\)")


class InputError(Exception):
    pass


def parse_shape(label: str) -> tuple[int, int, int]:
    label = label.strip()
    cube = re.fullmatch(r"(\d+)³", label)
    if cube:
        size = int(cube[1])
        return size, size, size
    dims = re.fullmatch(r"(\d+)\s*×\s*(\d+)\s*×\s*(\d+)", label)
    if not dims:
        raise InputError(f"cannot read the shape {label!r}")
    return int(dims[1]), int(dims[2]), int(dims[3])


def load_csv(path: Path) -> dict[tuple[int, tuple[int, int, int]], dict[str, str]]:
    try:
        with open(path, encoding="utf-8", newline="") as file:
            rows = list(csv.DictReader(file))
    except OSError as error:
        raise InputError(f"{path}: {error.strerror}") from None
    return {(int(row["kernel"]), (int(row["m"]), int(row["n"]), int(row["k"]))): row for row in rows}


def shown(value: float, cell: str) -> str:
    """`value` written with as many decimals as `cell` has."""
    digits = len(cell.split(".")[1]) if "." in cell else 0
    return f"{value:.{digits}f}"


def check_note(note: Path, root: Path) -> tuple[int, list[str]]:
    """(tables checked, problems) for one note."""
    text = note.read_text(encoding="utf-8")
    lines = text.splitlines()
    tables = [i for i, line in enumerate(lines) if HEADER.match(line)]
    if not tables:
        return 0, []
    link = CSV_LINK.search(text)
    if not link:
        raise InputError(f"{note}: has a measurement table but links no compare.csv")
    results = load_csv((note.parent / link[1]).resolve())
    problems = []
    for start in tables:
        header = HEADER.match(lines[start])
        kernel, previous = int(header[1]), int(header[2]) if header[2] else None
        for number in range(start + 2, len(lines)):
            line = lines[number]
            if not line.startswith("|"):
                break
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            shape = parse_shape(cells[0])
            where = f"{note.name}:{number + 1} ({cells[0]})"

            def row(kernel_id: int) -> dict[str, str]:
                found = results.get((kernel_id, shape))
                if not found or not found["tflops"]:
                    raise InputError(f"{where}: no measurement of kernel {kernel_id} in {link[1]}")
                return found

            ours, cublas = row(kernel), row(0)
            # Ratios from the median times (the CSV's vs_cublas is the same ratio rounded to 3 decimals).
            expected = [shown(float(ours["tflops"]), cells[1]), shown(float(cublas["tflops"]), cells[2]),
                        shown(float(cublas["ms_median"]) / float(ours["ms_median"]), cells[3])]
            if previous is not None:
                speedup = float(row(previous)["ms_median"]) / float(ours["ms_median"])
                expected.append(shown(speedup, cells[4].rstrip("×")) + "×")
            names = ["TFLOP/s", "cuBLAS", "ratio", f"vs {previous:02d}" if previous is not None else ""]
            for name, cell, want in zip(names, cells[1:], expected):
                if cell != want:
                    problems.append(f"{where}: {name} says {cell}, {link[1]} gives {want}")
    return len(tables), problems


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Check the notes' measurement tables against their CSV.")
    parser.add_argument("notes", nargs="*", type=Path, help="notes (default: ROOT/kernels/*.md)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    args = parser.parse_args(argv)
    program = Path(__file__).name
    notes = args.notes or sorted((args.root / "kernels").glob("*.md"))
    checked, problems = 0, []
    try:
        for note in notes:
            tables, found = check_note(note, args.root)
            checked += tables
            problems += found
    except (InputError, OSError, KeyError, ValueError) as error:
        print(f"{program}: error: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"{checked} measurement tables in {len(notes)} notes match their CSV")
    return 0


if __name__ == "__main__":
    sys.exit(main())
