#!/usr/bin/env python3
"""Regenerates the `gemm layout` drawings embedded in the notes, and the SVGs beside them.

    update_note_layouts.py [--check] [--root DIR] [--gemm GEMM] [NOTE.md ...]

DIR is the repository (default: the one holding this script); GEMM defaults to DIR/build/gemm, whatever
the current directory.

A note embeds a layout between two marker lines, naming the `gemm layout` arguments:

    <!-- layout: mma-m16n8k16 A -->
    (generated: the command's text output in a code block, and a link to its SVG)
    <!-- /layout -->

Everything between the markers is replaced by the output of `gemm layout mma-m16n8k16 A`, and
kernels/figures/mma-m16n8k16-A.svg is written by `gemm layout mma-m16n8k16 A --svg ...`. So the grids in the
notes are drawn by the same functions the kernels call, never by hand. Default notes: DIR/kernels/*.md and
DIR/docs/*.md.

--check writes nothing and exits 1 naming every note or figure that differs from what the command draws now,
and every SVG in kernels/figures/ that no note uses (a test runs this, so a note cannot drift from the code).

Exit codes: 0 done (updated or already current), 1 --check found a difference, 2 bad input (markers, gemm).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

from gemm_command import run_gemm
from script_errors import EXIT_BAD_INPUT, EXIT_DIFFERENT, InputError, report

ROOT = Path(__file__).resolve().parent.parent
BEGIN = re.compile(r"^<!-- layout: (?P<args>[^>]*?) -->$")
END = "<!-- /layout -->"


def slug(args: Sequence[str]) -> str:
    """The SVG's file name stem: the arguments joined by '-', options without their dashes."""
    words = [arg.lstrip("-") for arg in args]
    name = "-".join(word for word in words if word)
    if not re.fullmatch(r"[A-Za-z0-9_.=-]+", name):
        raise InputError(f"layout arguments {' '.join(args)!r} do not make a file name")
    return name


def block_lines(text: str, svg_link: str) -> list[str]:
    """What goes between the markers."""
    return ["```text"] + text.rstrip("\n").split("\n") + ["```", f"Drawn as SVG: [{svg_link}]({svg_link})"]


def regenerate(note: Path, text: str, gemm: Path, figures: Path, svgs: dict[str, bytes], scratch: Path) -> str:
    """`text`, the note's, with every layout block regenerated; the SVGs it uses are added to `svgs`."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        begin = BEGIN.match(line.rstrip("\r\n"))
        if line.rstrip("\r\n") == END:
            raise InputError(f"{note}:{i + 1}: '{END}' without a '<!-- layout: ... -->' before it")
        if not begin:
            out.append(line)
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip("\r\n") == END), None)
        nested = next((j for j in range(i + 1, end or len(lines)) if BEGIN.match(lines[j].rstrip("\r\n"))), None)
        if end is None or nested is not None:
            raise InputError(f"{note}:{i + 1}: '{line.strip()}' has no '{END}' after it")
        args = shlex.split(begin.group("args"))
        if not args:
            raise InputError(f"{note}:{i + 1}: the layout marker names no layout")
        name = slug(args)
        svg_path = scratch / f"{name}.svg"
        text_output = run_gemm(gemm, ["layout", *args], output_args=["--svg", str(svg_path)])
        svgs[name] = svg_path.read_bytes()
        link = Path(os.path.relpath(figures.resolve() / f"{name}.svg", note.resolve().parent)).as_posix()
        newline = "\r\n" if line.endswith("\r\n") else "\n"
        out.append(line if line.endswith(("\n", "\r")) else line + newline)
        out.extend(block + newline for block in block_lines(text_output, link))
        out.append(lines[end])
        i = end + 1
    return "".join(out)


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Regenerate the `gemm layout` drawings in the notes.")
    parser.add_argument("notes", nargs="*", type=Path,
                        help="notes to update (default: ROOT/kernels/*.md and ROOT/docs/*.md)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    parser.add_argument("--gemm", type=Path, default=None, help="the built gemm command (default: ROOT/build/gemm)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if anything differs")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    program = Path(__file__).name
    figures = args.root / "kernels" / "figures"
    gemm = args.gemm or args.root / "build" / "gemm"
    notes = args.notes or sorted([*(args.root / "kernels").glob("*.md"), *(args.root / "docs").glob("*.md")])
    svgs: dict[str, bytes] = {}
    updates: dict[Path, tuple[str, str]] = {}
    try:
        with tempfile.TemporaryDirectory() as scratch:
            for note in notes:
                with open(note, encoding="utf-8", newline="") as file:
                    old = file.read()
                updates[note] = (old, regenerate(note, old, gemm, figures, svgs, Path(scratch)))
    except InputError as error:
        return report(program, error)
    except OSError as error:
        print(f"{program}: error: {error.filename}: {error.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT

    changed_notes = [note for note, (old, new) in updates.items() if old != new]
    changed_svgs = [name for name, data in svgs.items()
                    if not (figures / f"{name}.svg").is_file() or (figures / f"{name}.svg").read_bytes() != data]
    # Figures no note uses are stale, but only when every note was looked at.
    stale = [] if args.notes else sorted(path.name for path in figures.glob("*.svg") if path.stem not in svgs)

    if args.check:
        for note in changed_notes:
            print(f"{note}: its layout drawings differ from `gemm layout` (run {program})")
        for name in changed_svgs:
            print(f"{figures / name}.svg: missing or differs from `gemm layout` (run {program})")
        for name in stale:
            print(f"{figures / name}: no note uses it (remove it, or run {program})")
        if changed_notes or changed_svgs or stale:
            return EXIT_DIFFERENT
        print(f"{len(updates)} notes, {len(svgs)} figures: up to date")
        return 0

    for note in changed_notes:
        with open(note, "w", encoding="utf-8", newline="") as file:
            file.write(updates[note][1])
        print(f"{note}: layout drawings updated")
    if svgs:
        figures.mkdir(parents=True, exist_ok=True)
    for name in changed_svgs:
        (figures / f"{name}.svg").write_bytes(svgs[name])
        print(f"{figures / name}.svg: written")
    for name in stale:
        (figures / name).unlink()
        print(f"{figures / name}: removed (no note uses it)")
    if not (changed_notes or changed_svgs or stale):
        print(f"{len(updates)} notes, {len(svgs)} figures: already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
