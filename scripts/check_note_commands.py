#!/usr/bin/env python3
"""Checks the `gemm explain` transcripts in the notes against what the built command prints now.

    check_note_commands.py [--fix] [--root DIR] [--gemm GEMM] [NOTE.md ...]

A note shows a transcript as a fenced code block whose first line is the command, after "$ ":

    ```
    $ gemm explain --clusters 66 --quad-clusters 30 --shapes 512x4096x14336,200x11008x4096
    kernel 16 (dispatch) on 66 resident clusters of two CTAs and 30 2x2 clusters of four:
    512x4096x14336  15 few_tiles  ...
    ```

The lines after the command must be the command's output, line for line. Only `gemm explain` with --clusters is
run (it needs no GPU then, so the check runs anywhere the repository builds); a transcript of any other gemm
command, or of explain without --clusters, is bad input. GEMM defaults to DIR/build/gemm; the notes default to
DIR/kernels/*.md and DIR/docs/*.md. With --fix the transcripts that differ are rewritten from the command's output.

Exit codes: 0 every transcript matches (or was fixed), 1 some transcript differs (each named), 2 bad input.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Optional, Sequence

from gemm_command import run_gemm
from script_errors import EXIT_DIFFERENT, InputError, report

ROOT = Path(__file__).resolve().parent.parent
PROMPT = "$ gemm "


def run_explain(gemm: Path, args: Sequence[str], where: str) -> list[str]:
    if not args or args[0] != "explain" or "--clusters" not in args:
        raise InputError(f"{where}: only `gemm explain --clusters ...` transcripts are checked (no GPU needed), "
                         f"not `gemm {' '.join(args)}`")
    return run_gemm(gemm, args, where).rstrip("\n").split("\n")


def check_note(note: Path, gemm: Path, fix: bool) -> list[str]:
    """The transcripts of `note` that differ from the command's output (rewritten in place with `fix`)."""
    try:
        lines = note.read_text(encoding="utf-8").split("\n")
    except OSError as error:
        raise InputError(f"{note}: {error.strerror}") from None
    stale = []
    out: list[str] = []
    i = 0
    while i < len(lines):
        out.append(lines[i])
        opens_block = lines[i].startswith("```") and i + 1 < len(lines) and lines[i + 1].startswith(PROMPT)
        if not opens_block:
            i += 1
            continue
        end = next((j for j in range(i + 2, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise InputError(f"{note}:{i + 1}: a code block without its closing fence")
        command = lines[i + 1]
        printed = lines[i + 2:end]
        expected = run_explain(gemm, shlex.split(command[len(PROMPT):]), f"{note}:{i + 2}")
        if printed != expected:
            stale.append(f"{note}:{i + 2}: `{command[2:]}` prints something else now")
        out.append(command)
        out.extend(expected if fix else printed)
        i = end
    if fix and stale:
        note.write_text("\n".join(out), encoding="utf-8")
    return stale


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Check the `gemm explain` transcripts in the notes.")
    parser.add_argument("notes", nargs="*", type=Path,
                        help="notes to check (default: ROOT/kernels/*.md and ROOT/docs/*.md)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    parser.add_argument("--gemm", type=Path, default=None, help="the built gemm command (default: ROOT/build/gemm)")
    parser.add_argument("--fix", action="store_true", help="rewrite the transcripts that differ")
    args = parser.parse_args(argv)
    gemm = args.gemm or args.root / "build" / "gemm"
    notes = args.notes or sorted((args.root / "kernels").glob("*.md")) + sorted((args.root / "docs").glob("*.md"))
    try:
        stale = [problem for note in notes for problem in check_note(note, gemm, args.fix)]
    except InputError as error:
        return report(Path(__file__).name, error)
    for problem in stale:
        print(("fixed: " if args.fix else "") + problem)
    if stale and not args.fix:
        return EXIT_DIFFERENT
    print(f"{len(notes)} notes checked: their gemm explain transcripts are what the command prints")
    return 0


if __name__ == "__main__":
    sys.exit(main())
