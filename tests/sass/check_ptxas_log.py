#!/usr/bin/env python3
"""Check what ptxas said when it compiled a kernel: no wgmma serialized, no wait injected.

usage: check_ptxas_log.py LOG

LOG is the compiler output the build kept beside the kernel's object file (tests/sass/log_compiler_output.sh).
When ptxas cannot keep wgmma instructions in flight together (an accumulator touched by ordinary code while a
wgmma writing it may be pending, which ptxas assumes wherever control-flow paths meet with different groups
pending; a function call in the loop; too few registers), it serializes them and says so with a "Potential
Performance Loss: wgmma.mma_async instructions are serialized" note; the kernel still runs, several times slower.
It also notes where it had to inject a warpgroup.arrive or warpgroup.wait because ordinary code touches
accumulators a wgmma may still be writing: each such wait stalls the pipeline. The test fails on either note, and
when the log is missing (the build did not record it).
"""
import re
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    path = sys.argv[1]
    try:
        with open(path, encoding="utf-8", errors="replace") as log:
            text = log.read()
    except OSError as error:
        print(f"FAIL: no compiler log {path}: {error}")
        return 1
    pattern = re.compile(r"wgmma.*serializ|warpgroup\.(arrive|wait) is injected", re.IGNORECASE)
    serialized = [line for line in text.splitlines() if pattern.search(line)]
    for line in serialized:
        print(f"FAIL: {line.strip()}")
    if not serialized:
        print(f"ok: ptxas serialized no wgmma and injected no wait ({path})")
    return 1 if serialized else 0


if __name__ == "__main__":
    sys.exit(main())
