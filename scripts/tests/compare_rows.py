"""Rows of a compare.csv for the scripts' tests: the header `gemm compare` writes (tests/data/compare.csv's first line)
and one row in its column order, with a time and TFLOP/s consistent with each other; and the cells of a generated
Markdown table's row, to read the tables back."""

from pathlib import Path

HEADER = (Path(__file__).resolve().parent / "data" / "compare.csv").read_text(encoding="utf-8").splitlines()[0]


def csv_row(kernel, name, m, n, k, ms, status="ok", vs_cublas=0.0):
    values = {"kernel": kernel, "name": name, "m": m, "n": n, "k": k, "ms_median": ms, "ms_q1": ms, "ms_q3": ms,
              "tflops": 2.0 * m * n * k / (ms * 1e9), "vs_cublas": vs_cublas, "max_rel_err": 0.0, "status": status,
              "max_abs_err": 0.0, "rel_l2_err": 0.0, "sm_clock_mhz": 1980, "power_w": 300.0}
    return ",".join(str(values.get(column, "")) for column in HEADER.split(","))


def table_row_cells(text, prefix):
    """The cells of the one line of Markdown `text` that starts with `prefix`; AssertionError unless exactly one does."""
    rows = [line for line in text.splitlines() if line.startswith(prefix)]
    if len(rows) != 1:
        raise AssertionError(f"{len(rows)} rows start with {prefix!r} in:\n{text}")
    return [cell.strip() for cell in rows[0].strip("|").split("|")]
