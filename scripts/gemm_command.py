"""Running the built gemm command from the scripts that check the notes against it (update_note_layouts.py,
check_note_commands.py): its output, or its failure as one line."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Sequence

from script_errors import InputError


def run_gemm(gemm: Path, args: Sequence[str], where: str = "", output_args: Sequence[str] = ()) -> str:
    """What `gemm args output_args` prints. A failure is an InputError naming `gemm args` (after `where:`, if given);
    output_args, which only say where to write, are left out of the message."""
    try:
        result = subprocess.run([str(gemm), *args, *output_args], capture_output=True, text=True, timeout=120)
    except OSError as error:
        raise InputError(f"cannot run {gemm}: {error.strerror}") from None
    if result.returncode != 0:
        message = result.stderr.strip().splitlines()
        raise InputError(f"{where + ': ' if where else ''}`gemm {' '.join(args)}` exited {result.returncode}: "
                         f"{message[0] if message else 'no message'}")
    return result.stdout
