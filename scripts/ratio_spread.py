#!/usr/bin/env python3
"""Fills the notes' tables of a chapter's speed across the runs of record: over its base's, cuBLAS's, or in TFLOP/s.

    ratio_spread.py [--check] [--root DIR] [NOTE.md ...]

One run cannot resolve a change of a per cent: at 16384³ the power limiter moves a ratio by 2-4 % from run to run,
so a prediction (or a target) judged on one run flips at every new run. A note may therefore mark a generated table

    <!-- ratio-spread 10 09 nvidia-h200 -->
    ...
    <!-- ratio-spread:end -->

which this script fills from every run of record of results/nvidia-h200/compare.csv that git holds (each version of
the file in the history, and the working tree's if it differs): the runs taken with chapters 10 and 09 and the
runner's timing as they are today (their kernels/NN_name.cu and runner/timing.* differ from the run's commit in
nothing but comments, scripts/results_runs.py's test, with its renames and moved functions) and with a cold L2. For
each shape of the newest such run that measured both, it gives how many runs did, and 10 ÷ 09 (09's median time over
10's) in the median run, the lowest and the highest. A base of 00 is cuBLAS (the runs then also share
runner/cublas_gemm.cpp and the newest run's cuBLAS version), and

    <!-- tflops-spread 04 nvidia-h200 -->
    ...
    <!-- tflops-spread:end -->

gives chapter 04's TFLOP/s (2·M·N·K over its median time) the same way. A run appears once, by the commit it was taken
with (compare.json's git_commit), however many commits carried its CSV.

Without the history (not a git work tree, or a shallow clone) the runs cannot be listed: the script says so on
stderr, changes nothing and exits 77, which CTest counts as skipped (the test says so rather than pass).

Exit codes: 0 every table matches (or was written), 1 some table differs (--check; each named), 2 bad input,
77 no history to read the runs from (nothing checked or written).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import statistics
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

import results_runs  # noqa: E402
from compare_csv import Shape, git_commit  # noqa: E402
from script_errors import EXIT_DIFFERENT, InputError, report  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# A table's first marker: its kind, the chapter, the base (ratio tables only; 00 is cuBLAS) and the results folder.
BEGIN = re.compile(r"^<!-- (ratio|tflops)-spread (\d+)(?: (\d+))? ([\w.-]+) -->$")
CUBLAS = 0
NO_HISTORY = 77  # CTest's SKIP_RETURN_CODE for scripts_ratio_spread


@dataclass
class Run:
    commit: str                              # the commit the run was taken with
    times: dict[tuple[int, tuple[int, int, int]], float]  # (kernel, shape) -> median ms
    cublas: str = ""                         # the cuBLAS version it timed


def git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60)


def history_at_hand(root: Path) -> bool:
    inside = git(root, "rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        return False
    return git(root, "rev-parse", "--is-shallow-repository").stdout.strip() == "false"


def parse_run(csv_text: str, json_text: str) -> Optional[Run]:
    """A run from its compare.csv and compare.json texts; None for a run with a warm L2, or one whose files do not
    say what they need (the commit it was taken with, each row's kernel, shape and median: early runs' did not)."""
    try:
        document = json.loads(json_text)
        commit = git_commit(document)
        cublas = str(document["environment"].get("cublas", ""))
        rows = list(csv.DictReader(io.StringIO(csv_text)))
        times = {(int(row["kernel"]), (int(row["m"]), int(row["n"]), int(row["k"]))): float(row["ms_median"])
                 for row in rows}
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if commit is None or not document.get("settings", {}).get("cold_l2", False):
        return None
    return Run(commit, times, cublas)


def runs_of_record(root: Path, directory: str) -> list[Run]:
    """Every run of results/DIRECTORY/compare.csv git holds, newest first: the working tree's, then each committed
    version's; a run once, by its commit."""
    relative = f"results/{directory}"
    versions = []
    csv_path, json_path = root / relative / "compare.csv", root / relative / "compare.json"
    if csv_path.is_file() and json_path.is_file():
        versions.append((csv_path.read_text(encoding="utf-8"), json_path.read_text(encoding="utf-8")))
    log = git(root, "log", "--format=%H", "--", f"{relative}/compare.csv")
    if log.returncode != 0:
        raise InputError(f"git log of {relative}/compare.csv failed: {log.stderr.strip()}")
    for commit in log.stdout.split():
        csv_text, json_text = git(root, "show", f"{commit}:{relative}/compare.csv"), \
            git(root, "show", f"{commit}:{relative}/compare.json")
        if csv_text.returncode == 0 and json_text.returncode == 0:
            versions.append((csv_text.stdout, json_text.stdout))
    runs: list[Run] = []
    for csv_text, json_text in versions:
        run = parse_run(csv_text, json_text)
        if run and not any(results_runs.same_commit(run.commit, seen.commit) for seen in runs):
            runs.append(run)
    return runs


# The runner's files whose code decides what a run measured beside the kernels': how it times, and how it calls cuBLAS.
TIMING_FILES = ("runner/timing.cu", "runner/timing.h")
CUBLAS_FILES = ("runner/cublas_gemm.cpp",)


class History:
    """What git says of one tree, asked once per invocation however many tables need it: the runs of record of each
    results folder, and whether a file is as it was at a run's commit."""

    def __init__(self, root: Path):
        self.root = root
        self.renames, self.moved = results_runs.load_renames(root), results_runs.load_moved(root)
        self._runs: dict[str, list[Run]] = {}
        self._unchanged: dict[tuple[str, Path], bool] = {}

    def runs(self, directory: str) -> list[Run]:
        if directory not in self._runs:
            self._runs[directory] = runs_of_record(self.root, directory)
        return self._runs[directory]

    def unchanged_since(self, commit: str, path: Path) -> bool:
        """Whether `path` differs from its version at `commit` in nothing but comments (False where git cannot tell)."""
        if (commit, path) not in self._unchanged:
            self._unchanged[commit, path] = results_runs.code_changed_since(self.root, commit, path, self.renames,
                                                                           self.moved) is False
        return self._unchanged[commit, path]

    def as_today(self, run: Run, chapters: tuple[int, ...], runner_files: tuple[str, ...]) -> bool:
        """Whether the run was taken with these chapters' kernel files and the runner's files (those this tree has)
        as they are today, in more than comments."""
        paths = [results_runs.kernel_file(self.root, chapter) for chapter in chapters]
        if any(path is None for path in paths):
            return False
        paths += [self.root / name for name in runner_files if (self.root / name).is_file()]
        return all(self.unchanged_since(run.commit, path) for path in paths)


def spread_table(history: History, chapter: int, base: Optional[int], directory: str) -> list[str]:
    """The lines between a table's markers: a sentence naming the runs, and the table (of TFLOP/s where `base` is
    None)."""
    every_run = history.runs(directory)
    if not every_run:
        raise InputError(f"git holds no run of results/{directory} that says its commit")
    chapters = (chapter,) if base in (None, CUBLAS) else (chapter, base)
    runner_files = TIMING_FILES + (CUBLAS_FILES if base == CUBLAS else ())
    runs = [run for run in every_run if any(kernel == chapter for kernel, _ in run.times) and
            history.as_today(run, chapters, runner_files)]
    if base == CUBLAS:
        runs = [run for run in runs if run.cublas == every_run[0].cublas]
    if base is None:
        what = f"chapter {chapter:02d} and the runner's timing as they are today"
    elif base == CUBLAS:
        what = (f"chapter {chapter:02d} and the runner's timing and cuBLAS call as they are today, cuBLAS "
                f"{every_run[0].cublas or '(unnamed)'}")
    else:
        what = f"chapters {chapter:02d} and {base:02d} and the runner's timing as they are today"
    if not runs:
        raise InputError(f"no run of results/{directory} measured {what}")
    newest = runs[0]
    shapes = [shape for kernel, shape in newest.times if kernel == chapter and (base is None or (base, shape) in
                                                                                  newest.times)]
    which = (f"the one run of record in results/{directory}/ taken with {what}, commit {newest.commit[:7]}'s"
             if len(runs) == 1 else
             f"the {len(runs)} runs of record in results/{directory}/ taken with {what}, from commit "
             f"{runs[-1].commit[:7]}'s to {newest.commit[:7]}'s")
    sentence = f"Over {which} (`scripts/ratio_spread.py`):"
    name = (f"{chapter:02d} TFLOP/s" if base is None else
            f"{chapter:02d} ÷ cuBLAS" if base == CUBLAS else f"{chapter:02d} ÷ {base:02d}")
    lines = [*textwrap.wrap(sentence, width=120, break_on_hyphens=False), "",
             f"| shape | runs | {name}, median | lowest | highest |",
             "|---|---:|---:|---:|---:|"]
    for shape in shapes:
        if base is None:
            m, n, k = shape
            values = [2.0 * m * n * k / (run.times[(chapter, shape)] * 1e-3) / 1e12 for run in runs
                      if (chapter, shape) in run.times]
            digits = 1 if statistics.median(values) < 100 else 0
        else:
            values = [run.times[(base, shape)] / run.times[(chapter, shape)] for run in runs
                      if (chapter, shape) in run.times and (base, shape) in run.times]
            digits = 3
        lines.append(f"| {Shape(*shape).note_label()} | {len(values)} | {statistics.median(values):.{digits}f} | "
                     f"{min(values):.{digits}f} | {max(values):.{digits}f} |")
    return lines


def fill(text: str, history: History, where: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        begin = BEGIN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not begin:
            continue
        kind, chapter, base, directory = begin[1], int(begin[2]), begin[3], begin[4]
        if (kind == "ratio") != (base is not None):
            raise InputError(f"{where}: {lines[i - 1]}: a ratio table names a chapter and its base, a TFLOP/s "
                             f"table the chapter alone")
        end_marker = f"<!-- {kind}-spread:end -->"
        end = next((j for j in range(i, len(lines)) if lines[j] == end_marker), None)
        if end is None:
            raise InputError(f"{where}: {lines[i - 1]} has no {end_marker} after it")
        out.extend(spread_table(history, chapter, int(base) if base is not None else None, directory))
        i = end
    return "\n".join(out)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notes", nargs="*", type=Path, help="notes to fill (default: every kernels/*.md)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table differs")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    notes = args.notes or sorted((root / "kernels").glob("*.md"))
    if not history_at_hand(root):
        print("ratio_spread.py: no full git history here (not a work tree, or a shallow clone): the runs of record "
              "cannot be listed, tables left as they are", file=sys.stderr)
        return NO_HISTORY
    stale, tables = [], 0
    try:
        history = History(root)
        for note in notes:
            text = note.read_text(encoding="utf-8")
            tables += sum(1 for line in text.split("\n") if BEGIN.match(line))
            filled = fill(text, history, str(note))
            if filled != text:
                stale.append(note)
                if not args.check:
                    note.write_text(filled, encoding="utf-8")
    except (InputError, OSError) as error:
        return report(Path(__file__).name, error)
    for note in stale:
        print(f"{note}: {'differs from' if args.check else 'filled from'} the runs of record")
    if args.check and stale:
        return EXIT_DIFFERENT
    if args.check:
        print(f"{tables} spread tables in {len(notes)} notes match the runs of record")
    return 0

if __name__ == "__main__":
    sys.exit(main())
