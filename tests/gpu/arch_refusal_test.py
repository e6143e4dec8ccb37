#!/usr/bin/env python3
"""GPU test: a kernel built for an architecture this GPU lacks is refused with exit 2 and one line naming the
architecture it needs and the GPU found (never launched, never a CUDA error).

usage: arch_refusal_test.py GEMM

The kernel is taken from `gemm list --json`: on an H100 or H200 the sm_100a kernels (17-19), on a Blackwell
GPU the sm_90a ones. Exit 0 pass, 1 fail, 77 (skipped) when no GPU is visible or every kernel runs here.
"""
import json
import re
import subprocess
import sys


def main() -> int:
    gemm = sys.argv[1]
    listing = json.loads(subprocess.run([gemm, "list", "--json"], capture_output=True, text=True, check=True).stdout)
    if not listing["gpu"]:
        print("skipped: no usable CUDA GPU")
        return 77
    refused = [k for k in listing["kernels"] if not k["runs_here"]]
    if not refused:
        print(f"skipped: every kernel runs on the {listing['gpu']}")
        return 77
    failures = 0
    for kernel in refused:
        result = subprocess.run([gemm, "run", str(kernel["id"]), "--size", "256"], capture_output=True, text=True)
        expected = rf"^gemm: error: kernel {kernel['id']} \({kernel['name']}\) needs {re.escape(kernel['arch'])}; this GPU is "
        lines = result.stderr.splitlines()
        ok = result.returncode == 2 and len(lines) == 1 and re.match(expected, lines[0])
        print(f"{'ok  ' if ok else 'FAIL'} kernel {kernel['id']}: exit {result.returncode}, stderr {result.stderr.strip()!r}")
        failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
