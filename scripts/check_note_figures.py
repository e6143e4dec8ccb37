#!/usr/bin/env python3
"""Checks the measurement tables in the notes against the results file they cite.

    check_note_figures.py [--fix] [--root DIR] [NOTE.md ...]

A measurement table in a note looks like

    | shape | 05 TFLOP/s | cuBLAS | ratio | vs 04 |
    |---|---:|---:|---:|---:|
    | 1024³ | 110 | 225 | 0.49 | 0.70× |
    | 4096 × 14336 × 4096 | 534 | 844 | 0.63 | 1.08× |

and the note links the CSV it comes from (a compare.csv, or a copy of one under results/): the nearest link ending in
.csv above the table (so a note can give one table per GPU, each under a link to that GPU's results).
Every figure must be the CSV's number written at the precision shown: TFLOP/s of the kernel and of cuBLAS
(`tflops`), the ratio to cuBLAS and the speed-up over the kernel named in "vs NN" (both ratios of the
`ms_median` times). Numbers are formatted as Python formats them, like scripts/update_results_table.py.

A table of several kernels side by side (a chapter and its variants) names a kernel id at the head of each column
and gives TFLOP/s with the ratio to cuBLAS in brackets:

    | shape | 06: bands of 16 | 61: row-major |
    |---|---:|---:|
    | 4096³ | 684 (0.90) | 631 (0.83) |

A table whose first column is `shape` may also give, in a column headed `NN ÷ MM, measured`, kernel NN's speed over
kernel MM's (MM's median time over NN's) from the CSV linked above it, its other columns not checked:

    | shape | the model's pick | 14 ÷ 15, measured |
    |---|---|---:|
    | 1024³ | 15 | 0.79 |

A note's size of its chapter's change, "`scripts/diff_chapters.sh NN` (+A −R lines ...)" (the sign and counts on the
same line as the command), must be what `scripts/diff_chapters.sh NN --stat` prints for the chapters under ROOT.

With --fix the figures that differ are rewritten in place from the CSV (at the precision shown) and the change sizes
from diff_chapters.sh, for when the results are measured again or a chapter changes; the other prose is not touched.

Exit codes: 0 every figure matches (or was fixed), 1 some figure differs (each printed), 2 bad input.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence

from script_errors import EXIT_DIFFERENT, InputError, report

ROOT = Path(__file__).resolve().parent.parent
HEADER = re.compile(r"^\|\s*shape\s*\|\s*(\d+) TFLOP/s\s*\|\s*cuBLAS\s*\|\s*ratio\s*\|(?:\s*vs (\d+)\s*\|)?\s*$")
CSV_LINK = re.compile(r"\]\(([^)]*\.csv)\)")
COLUMN_KERNEL = re.compile(r"(\d+): \S")  # a side-by-side table's column head
SPEED_AND_RATIO = re.compile(r"(\S+) \((\S+)\)")
RATIO_COLUMN = re.compile(r"(\d+) ÷ (\d+), measured")  # a column of one kernel's speed over another's
DIFF_SIZE = re.compile(r"`scripts/diff_chapters\.sh (\d+)`[^+\n]{0,30}?\+(\d+) −(\d+)")  # a note's size of its change


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


def table_cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def shape_head_cells(line: str) -> Optional[list[str]]:
    """The cells of a table head whose first column is `shape` and which has another, else None."""
    if not line.startswith("|"):
        return None
    cells = table_cells(line)
    return cells if len(cells) >= 2 and cells[0] == "shape" else None


def side_by_side_kernels(line: str) -> Optional[list[int]]:
    """The kernel ids of a side-by-side table's head (`| shape | 06: ... | 61: ... |`), else None. A head that names
    a kernel in some columns and not in others is a mistake, not another kind of table."""
    cells = shape_head_cells(line)
    if cells is None:
        return None
    heads = [COLUMN_KERNEL.match(cell) for cell in cells[1:]]
    if any(heads) and not all(heads):
        raise InputError(f"the table head {line.strip()!r} names a kernel (NN: ...) in some columns only")
    return [int(head[1]) for head in heads] if all(heads) else None


def ratio_columns(line: str) -> Optional[dict[int, tuple[int, int, str]]]:
    """{column: (NN, MM, "NN ÷ MM")} for the `NN ÷ MM, measured` columns of a table head whose first column is
    `shape`."""
    cells = shape_head_cells(line)
    if cells is None:
        return None
    columns = {i: (int(match[1]), int(match[2]), cell.split(",")[0]) for i, cell in enumerate(cells)
               if (match := RATIO_COLUMN.fullmatch(cell))}
    return columns or None


def table_head(line: str) -> Optional[tuple[Optional[re.Match], Optional[list[int]]]]:
    """A measurement table's first line read once: (its one-kernel head, None) or (None, the kernel ids of its
    side-by-side columns); None for any other line."""
    header = HEADER.match(line)
    if header:
        return header, None
    columns = side_by_side_kernels(line)
    return (None, columns) if columns else None


def change_size(root: Path, chapter: int) -> tuple[str, str]:
    """(added, removed) lines of chapter's code against its base, from scripts/diff_chapters.sh --stat."""
    result = subprocess.run(["bash", str(Path(__file__).resolve().parent / "diff_chapters.sh"), str(chapter), "--stat"],
                            capture_output=True, text=True, env={**os.environ, "GEMM_KERNELS_DIR": str(root / "kernels")},
                            timeout=60)
    size = re.fullmatch(r"\+(\d+) -(\d+)\n", result.stdout)
    if result.returncode != 0 or not size:
        raise InputError(f"diff_chapters.sh {chapter} --stat failed: {result.stderr.strip() or result.stdout}")
    return size[1], size[2]


def table_rows(lines: list[str], start: int):
    """(line number, cells, shape) for each row of the table whose head is line `start` (its separator skipped)."""
    for number in range(start + 2, len(lines)):
        if not lines[number].startswith("|"):
            return
        cells = table_cells(lines[number])
        yield number, cells, parse_shape(cells[0])


def csv_link_above(note: Path, lines: list[str], start: int) -> str:
    """The last link to a .csv above line `start` of a note: the results file its table comes from."""
    links = [match for line in lines[:start] for match in CSV_LINK.finditer(line)]
    if not links:
        raise InputError(f"{note}: the measurement table at line {start + 1} has no link to a CSV above it")
    return links[-1][1]


def check_note(note: Path, root: Path, fix: bool = False) -> tuple[int, list[str]]:
    """(tables checked, problems) for one note; with `fix`, the note is rewritten with the CSV's figures."""
    text = note.read_text(encoding="utf-8")
    lines = text.splitlines()
    tables = {i: head for i, line in enumerate(lines) if (head := table_head(line))}
    ratio_tables = {i: columns for i, line in enumerate(lines) if (columns := ratio_columns(line))}
    problems = []
    changed = False
    for start, columns in ratio_tables.items():
        link = csv_link_above(note, lines, start)
        results = load_csv((note.parent / link).resolve())
        for number, cells, shape in table_rows(lines, start):
            for column, (kernel, over, name) in columns.items():
                times = [results.get((kernel_id, shape), {}).get("ms_median") for kernel_id in (kernel, over)]
                if not all(times):
                    raise InputError(f"{note.name}:{number + 1}: no measurement of kernels {kernel} and {over} at "
                                     f"{cells[0]} in {link}")
                want = shown(float(times[1]) / float(times[0]), cells[column])
                if cells[column] != want:
                    problems.append(f"{note.name}:{number + 1} ({cells[0]}): {name} says {cells[column]}, "
                                    f"{link} gives {want}")
                    cells[column] = want
                    if fix:
                        lines[number] = "| " + " | ".join(cells) + " |"
                        changed = True
    for number, line in enumerate(lines):
        for size in DIFF_SIZE.finditer(line):
            want_added, want_removed = change_size(root, int(size[1]))
            if (size[2], size[3]) != (want_added, want_removed):
                problems.append(f"{note.name}:{number + 1}: the change of chapter {size[1]} is +{size[2]} −{size[3]}, "
                                f"diff_chapters.sh gives +{want_added} −{want_removed}")
                if fix:
                    lines[number] = lines[number].replace(f"+{size[2]} −{size[3]}", f"+{want_added} −{want_removed}", 1)
                    changed = True
    for start, (header, columns) in tables.items():
        link = csv_link_above(note, lines, start)
        results = load_csv((note.parent / link).resolve())
        for number, cells, shape in table_rows(lines, start):
            where = f"{note.name}:{number + 1} ({cells[0]})"

            def row(kernel_id: int) -> dict[str, str]:
                found = results.get((kernel_id, shape))
                if not found or not found["tflops"]:
                    raise InputError(f"{where}: no measurement of kernel {kernel_id} in {link}")
                return found

            def ratio(kernel_id: int, over: int = 0) -> float:  # from the median times (the CSV's are rounded)
                return float(row(over)["ms_median"]) / float(row(kernel_id)["ms_median"])

            if header:
                kernel, previous = int(header[1]), int(header[2]) if header[2] else None
                expected = [shown(float(row(kernel)["tflops"]), cells[1]), shown(float(row(0)["tflops"]), cells[2]),
                            shown(ratio(kernel), cells[3])]
                if previous is not None:
                    expected.append(shown(ratio(kernel, previous), cells[4].rstrip("×")) + "×")
                names = ["TFLOP/s", "cuBLAS", "ratio", f"vs {previous:02d}" if previous is not None else ""]
            else:
                if len(cells) != len(columns) + 1:
                    raise InputError(f"{where}: {len(cells) - 1} cells under {len(columns)} kernels")
                expected, names = [], []
                for kernel, cell in zip(columns, cells[1:]):
                    figures = SPEED_AND_RATIO.fullmatch(cell)
                    if not figures:
                        raise InputError(f"{where}: {cell!r} is not 'TFLOP/s (ratio to cuBLAS)'")
                    expected.append(f"{shown(float(row(kernel)['tflops']), figures[1])} "
                                    f"({shown(ratio(kernel), figures[2])})")
                    names.append(f"kernel {kernel}")
            for name, cell, want in zip(names, cells[1:], expected):
                if cell != want:
                    problems.append(f"{where}: {name} says {cell}, {link} gives {want}")
            if fix and cells[1:1 + len(expected)] != expected:
                lines[number] = "| " + " | ".join([cells[0]] + expected + cells[1 + len(expected):]) + " |"
                changed = True
    if changed:
        note.write_text("\n".join(lines) + ("\n" if text.endswith("\n") else ""), encoding="utf-8")
    return len(tables) + len(ratio_tables), problems


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Check the notes' measurement tables against their CSV.")
    parser.add_argument("notes", nargs="*", type=Path, help="notes (default: ROOT/kernels/*.md)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    parser.add_argument("--fix", action="store_true", help="rewrite the figures that differ from the CSV")
    args = parser.parse_args(argv)
    program = Path(__file__).name
    notes = args.notes or sorted((args.root / "kernels").glob("*.md"))
    checked, problems = 0, []
    try:
        for note in notes:
            tables, found = check_note(note, args.root, args.fix)
            checked += tables
            problems += found
    except (InputError, OSError, KeyError, ValueError) as error:
        return report(program, error)
    for problem in problems:
        print(("fixed: " if args.fix else "") + problem)
    if problems and not args.fix:
        return EXIT_DIFFERENT
    print(f"{checked} measurement tables in {len(notes)} notes match their CSV, and their change sizes the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
