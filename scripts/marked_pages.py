"""Replacing the generated block between two marker lines of a Markdown page, which every table script does.

`replace_between_markers` swaps the lines between a page's begin and end marker lines for a block, refusing a page
whose markers are missing, repeated or out of order; `update_marked_pages` does it for several pages and says per
page what it did (or, with --check, what differs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from compare_csv import read_text
from script_errors import InputError


def replace_between_markers(text: str, block_lines: Sequence[str], source: Path,
                            marker_lines: tuple[str, str]) -> str:
    """`text` with the lines strictly between the begin and end marker lines replaced by `block_lines`.

    Each marker must be a line of its own and appear exactly once, begin before end; anything else is an
    InputError, so a file whose markers were mangled is reported rather than half-overwritten. The
    block uses the line ending of the begin marker's line, so a CRLF file stays CRLF.
    """
    begin_marker, end_marker = marker_lines
    lines = text.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.strip() == begin_marker]
    ends = [i for i, line in enumerate(lines) if line.strip() == end_marker]
    if len(begins) != 1 or len(ends) != 1:
        found = f"found {len(begins)} '{begin_marker}' and {len(ends)} '{end_marker}'"
        raise InputError(f"{source}: needs exactly one of each marker line ({found})")
    begin, end = begins[0], ends[0]
    if end < begin:
        raise InputError(f"{source}: '{end_marker}' comes before '{begin_marker}'")
    newline = "\r\n" if lines[begin].endswith("\r\n") else "\n"
    begin_line = lines[begin] if lines[begin].endswith(("\n", "\r")) else lines[begin] + newline
    block = "".join(line + newline for line in block_lines)
    return "".join(lines[:begin]) + begin_line + block + "".join(lines[end:])


def update_marked_pages(pages: Sequence[Path], block_for: Callable[[Path], Sequence[str]], markers: tuple[str, str],
                        table: str, source: str, program: str, check: bool) -> int:
    """Puts `block_for(page)` between the marker lines of each page, saying per page whether `table` was up to date,
    updated or, with `check`, differs from `source` (then nothing is written). Returns 1 where --check found a
    difference, else 0; an unreadable page or mangled markers raise InputError."""
    status = 0
    for page in pages:
        old = read_text(page)
        new = replace_between_markers(old, block_for(page), page, markers)
        if new == old:
            print(f"{page}: {table} up to date")
        elif check:
            print(f"{page}: the {table} differs from {source} (run {program})")
            status = 1
        else:
            with open(page, "w", encoding="utf-8", newline="") as file:
                file.write(new)
            print(f"{page}: {table} updated")
    return status
