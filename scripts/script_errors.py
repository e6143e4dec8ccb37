"""How the scripts fail: the exception for input a user can fix, the exit codes they share, and the one line that
reports such an error (`PROGRAM: error: MESSAGE`, as the gemm command writes its own). No third-party imports, so the
scripts that only run the gemm command (gemm_command.py) need nothing installed."""

from __future__ import annotations

import sys

EXIT_DIFFERENT = 1  # a --check found a page, table or figure that is not what its sources give
EXIT_BAD_INPUT = 2  # input the user can fix, as for the gemm command's usage errors


class InputError(Exception):
    """Bad input the user can fix (a missing file, wrong columns, an unknown shape); reported as one line."""


def report(program: str, error: BaseException) -> int:
    """Writes `program: error: error` to stderr; returns EXIT_BAD_INPUT, for the caller to exit with."""
    print(f"{program}: error: {error}", file=sys.stderr)
    return EXIT_BAD_INPUT
