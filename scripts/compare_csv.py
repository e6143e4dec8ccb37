"""Loading and querying the results of `gemm compare --out DIR` (DIR/compare.csv and DIR/compare.json).

Shared by plot_progression.py, update_results_table.py and update_ladder_table.py so that all read the CSV the same
way: the same column check, the same rule for which cells count as a measured number, and the same shape order; and
they link a results file from a Markdown page the same way (relative_link).
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pandas as pd

from script_errors import InputError

# The header `gemm compare` writes (runner/report.cpp, csv_columns()); extra columns are tolerated.
REQUIRED_COLUMNS = (
    "kernel", "name", "m", "n", "k", "ms_median", "ms_q1", "ms_q3", "tflops", "vs_cublas",
    "max_rel_err", "status", "max_abs_err", "rel_l2_err", "sm_clock_mhz", "power_w",
)
NUMERIC_COLUMNS = (
    "ms_median", "ms_q1", "ms_q3", "tflops", "vs_cublas", "max_rel_err", "max_abs_err", "rel_l2_err",
    "sm_clock_mhz", "power_w",
)
CUBLAS_ID = 0


@dataclass(frozen=True, order=True)
class Shape:
    """A GEMM problem size. Ordered by (m, n, k) so that tables and plots list shapes stably."""

    m: int
    n: int
    k: int

    @property
    def is_square(self) -> bool:
        return self.m == self.n == self.k

    def label(self) -> str:
        """`1024³` for square shapes, `4096×14336×4096` otherwise: how people write GEMM sizes."""
        return f"{self.m}³" if self.is_square else f"{self.m}×{self.n}×{self.k}"

    def note_label(self) -> str:
        """`1024³`, `256 × 6144 × 4096`: how the notes' prose and generated tables write a shape."""
        return f"{self.m}³" if self.is_square else f"{self.m} × {self.n} × {self.k}"

    @staticmethod
    def parse(text: str) -> "Shape":
        """Parses `MxNxK` (x or ×, as on the gemm command line); raises InputError when malformed."""
        parts = text.lower().replace("×", "x").split("x")
        try:
            m, n, k = (int(part) for part in parts)
        except ValueError:
            raise InputError(f"bad shape '{text}': expected MxNxK, e.g. 4096x4096x4096") from None
        if min(m, n, k) < 1:
            raise InputError(f"bad shape '{text}': sizes must be at least 1")
        return Shape(m, n, k)


def shape_argument(text: str) -> Shape:
    """Shape.parse as an argparse `type`: a malformed shape is argparse's usage error (exit 2)."""
    try:
        return Shape.parse(text)
    except InputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def relative_link(target: Path, page: Path) -> str:
    """`target` relative to the Markdown page's directory with forward slashes, as Markdown links need."""
    return Path(os.path.relpath(target.resolve(), page.resolve().parent)).as_posix()


def load_compare_csv(path: Path) -> pd.DataFrame:
    """Reads compare.csv and checks it is one: the columns exist, there are rows, ids and sizes are integers,
    and there is at most one row per (kernel, shape). Empty numeric cells become NaN.

    Checking up front turns a confusing pandas KeyError later on into a one-line message naming the file.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        # keep_default_na=False so that a status or name is never turned into NaN; numbers are converted below.
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: not a readable CSV ({str(error).splitlines()[0] if str(error) else 'empty'})")
    missing = [column for column in REQUIRED_COLUMNS if column not in frame.columns]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; is this a `gemm compare` compare.csv?")
    if frame.empty:
        raise InputError(f"{path}: no rows")
    for column in ("kernel", "m", "n", "k"):
        values = pd.to_numeric(frame[column], errors="coerce")
        if values.isna().any() or (values != values.round()).any():
            raise InputError(f"{path}: column '{column}' must hold integers")
        frame[column] = values.astype(int)
    for column in NUMERIC_COLUMNS:
        text = frame[column].str.strip()
        values = pd.to_numeric(text, errors="coerce")
        bad = values.isna() & (text != "")
        if bad.any():
            raise InputError(f"{path}: column '{column}' holds '{text[bad].iloc[0]}', not a number")
        frame[column] = values
    frame["status"] = frame["status"].str.strip()
    duplicated = frame.duplicated(subset=["kernel", "m", "n", "k"])
    if duplicated.any():
        row = frame[duplicated].iloc[0]
        raise InputError(f"{path}: kernel {row['kernel']} appears twice at {row['m']}x{row['n']}x{row['k']}")
    return frame.sort_values(["kernel", "m", "n", "k"], kind="stable").reset_index(drop=True)


def read_text(path: Path) -> str:
    """A text file's contents, its line endings as they are (newline=""), so that a page rewritten from them keeps its
    \r\n and a missing final newline; InputError if it cannot be read or is not UTF-8."""
    try:
        with open(path, encoding="utf-8", newline="") as file:
            return file.read()
    except OSError as error:
        raise InputError(f"{path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None


def load_compare_json(csv_path: Path) -> dict:
    """Reads the compare.json written beside the CSV, or returns {} when there is none (or it is unreadable):
    it only adds context (GPU name, reps, L2 mode), so its absence must not stop a plot or a table."""
    json_path = Path(csv_path).with_name("compare.json")
    try:
        with open(json_path, encoding="utf-8") as file:
            document = json.load(file)
    except (OSError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}


def gpu_name(document: dict) -> Optional[str]:
    """The GPU name from compare.json, or None."""
    environment = document.get("environment")
    gpu = environment.get("gpu") if isinstance(environment, dict) else None
    return gpu if isinstance(gpu, str) and gpu.strip() else None


def git_commit(document: dict) -> Optional[str]:
    """The commit compare.json says the run was taken with (stripped), or None."""
    environment = document.get("environment") if isinstance(document, dict) else None
    commit = environment.get("git_commit") if isinstance(environment, dict) else None
    return commit.strip() if isinstance(commit, str) and commit.strip() else None


def output_dir(out: Optional[Path], csv_path: Path) -> Path:
    """Where a plot script writes: `out`, or the CSV's directory; created if missing. InputError if it cannot be."""
    directory = out if out is not None else csv_path.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create {directory}: {error.strerror}") from None
    return directory


def settings_value(document: dict, key: str):
    """One entry of compare.json's "settings" (reps, warmup, cold_l2, seed, order), or None."""
    settings = document.get("settings")
    return settings.get(key) if isinstance(settings, dict) else None


def kernels(frame: pd.DataFrame) -> list[tuple[int, str]]:
    """(id, name) of every kernel in the CSV, ordered by id: the order of the ladder."""
    first = frame.drop_duplicates(subset="kernel").sort_values("kernel")
    return [(int(row.kernel), str(row.name)) for row in first.itertuples(index=False)]


def kernel_label(kernel_id: int, name: str) -> str:
    """`02 mma_sync`: the id is zero-padded so labels sort and line up like the kernels/NN_name files."""
    return f"{kernel_id:02d} {name}"


def shapes(frame: pd.DataFrame) -> list[Shape]:
    """Every shape in the CSV, ordered by (m, n, k)."""
    unique = frame[["m", "n", "k"]].drop_duplicates()
    return sorted(Shape(int(m), int(n), int(k)) for m, n, k in unique.itertuples(index=False))


def square_shapes(frame: pd.DataFrame) -> list[Shape]:
    """The square shapes (m == n == k), smallest first: the size sweep."""
    return [shape for shape in shapes(frame) if shape.is_square]


def row_at(frame: pd.DataFrame, kernel_id: int, shape: Shape) -> Optional[pd.Series]:
    """The row of one kernel at one shape, or None when the kernel was not run there."""
    match = frame[(frame["kernel"] == kernel_id) & (frame["m"] == shape.m) & (frame["n"] == shape.n)
                  & (frame["k"] == shape.k)]
    return None if match.empty else match.iloc[0]


def is_measured(row: Optional[pd.Series]) -> bool:
    """Whether a row carries a TFLOP/s number worth showing: status ok and a timing present. A wrong kernel's
    speed is never shown, even if some tool recorded one, because a fast wrong answer is not a result."""
    return row is not None and row["status"] == "ok" and not pd.isna(row["tflops"])


def tflops_at(frame: pd.DataFrame, kernel_id: int, shape: Shape) -> Optional[float]:
    """The kernel's TFLOP/s at the shape, or None when it has no valid number there."""
    row = row_at(frame, kernel_id, shape)
    return float(row["tflops"]) if is_measured(row) else None


def gap_reason(row: Optional[pd.Series]) -> str:
    """One word for why a kernel has no number at a shape: refused, wrong, not run, or no timing."""
    if row is None:
        return "not run"
    status = row["status"]
    for reason in ("refused", "wrong"):
        if status.startswith(reason):
            return reason
    return "no timing" if status == "ok" else (status.split(":")[0] or "no timing")


def ratio_to_cublas(frame: pd.DataFrame, shape: Shape, kernel_id: int, csv_path: Path) -> float:
    """cuBLAS's median time over the kernel's at the shape, as the issue's targets are set; InputError where either
    has no valid time, so that a table never stands on a figure the run does not have."""
    rows = {kid: row_at(frame, kid, shape) for kid in (CUBLAS_ID, kernel_id)}
    for kid, row in rows.items():
        if not is_measured(row) or not row["ms_median"] > 0:
            raise InputError(f"{csv_path}: kernel {kid} has no valid time at {shape.note_label()} "
                             f"({gap_reason(row)})")
    return float(rows[CUBLAS_ID]["ms_median"]) / float(rows[kernel_id]["ms_median"])
