#!/usr/bin/env python3
"""Run a command and check how it ends: exit code, one-line stderr, regexes, files left behind.

usage: expect_exit.py --code N [--stderr REGEX] [--stdout REGEX] [--absent PATH] [--exists PATH]
                      [--stdout-to PATH | --stdout-closed] [--signal-after SECONDS [--signal NAME]] -- COMMAND...

A command that exits 77 (no usable GPU) when another code was expected is reported as skipped (exit 77),
so CTest's SKIP_RETURN_CODE marks GPU tests skipped on machines without one. A command ended by a signal has
the code -SIGNAL (-2 for SIGINT), as Python reports it.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--code", type=int, required=True, help="expected exit code (-N: ended by signal N)")
    parser.add_argument("--stderr", help="regex that stderr must contain")
    parser.add_argument("--stdout", help="regex that stdout must contain")
    parser.add_argument("--absent", action="append", default=[], help="path that must not exist afterwards")
    parser.add_argument("--exists", action="append", default=[], help="path that must exist afterwards")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--stdout-to", help="send the command's stdout to this file (e.g. /dev/full), uncaptured")
    target.add_argument("--stdout-closed", action="store_true", help="run the command with its stdout closed")
    parser.add_argument("--signal-after", type=float, help="send the command a signal after this many seconds")
    parser.add_argument("--signal", default="INT", help="the signal --signal-after sends: INT (default) or TERM")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    if args.stdout and (args.stdout_to or args.stdout_closed):
        parser.error("--stdout needs the command's stdout captured")

    for path in args.absent + args.exists:  # start from a clean slate
        shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else None
        if os.path.isfile(path):
            os.remove(path)

    stdout = subprocess.PIPE
    close_stdout = None
    if args.stdout_to:
        stdout = open(args.stdout_to, "w")
    elif args.stdout_closed:
        stdout = None
        close_stdout = lambda: os.close(1)  # in the child, before it runs the command
    process = subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE, text=True, preexec_fn=close_stdout)
    try:
        out, err = process.communicate(timeout=args.signal_after)
    except subprocess.TimeoutExpired:
        process.send_signal(getattr(signal, "SIG" + args.signal))
        out, err = process.communicate()
    out = out or ""
    sys.stdout.write(out)
    sys.stderr.write(err)
    failures = []
    if process.returncode == 77 and args.code != 77:
        print("skipped: no usable CUDA GPU")
        return 77
    if process.returncode != args.code:
        failures.append(f"exit code {process.returncode}, expected {args.code}")
    if args.code != 0:
        lines = err.splitlines()
        if len(lines) != 1 or not lines[0].strip():
            failures.append(f"stderr should be exactly one line, got {len(lines)}")
    if args.stderr and not re.search(args.stderr, err):
        failures.append(f"stderr does not match /{args.stderr}/")
    if args.stdout and not re.search(args.stdout, out):
        failures.append(f"stdout does not match /{args.stdout}/")
    failures += [f"{path} exists" for path in args.absent if os.path.exists(path)]
    failures += [f"{path} is missing" for path in args.exists if not os.path.exists(path)]
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
