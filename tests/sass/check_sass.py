#!/usr/bin/env python3
"""Check the SASS of one kernel in a binary: required instructions present, no local memory.

usage: check_sass.py --cuobjdump PATH --binary FILE --function SUBSTRING --arch sm_90a
                     [--require REGEX]... [--forbid REGEX]...

Every function whose (mangled) name contains SUBSTRING in the cubin for ARCH is checked: each --require
regex must match some instruction of each such function, no --forbid regex may match any, and the
resource usage must show LOCAL:0 (no spills, no local arrays). Local-memory loads and stores (LDL/STL)
are always forbidden.
"""
import argparse
import re
import subprocess
import sys


def functions_by_arch(text: str, header: str) -> dict:
    """Split cuobjdump output into {arch: {function: body}} using lines like 'arch = sm_90a' and headers."""
    result, arch, function = {}, None, None
    for line in text.splitlines():
        if line.startswith("Fatbin"):  # the next section (another arch, or PTX) begins
            function = None
            continue
        arch_match = re.match(r"\s*arch = (\S+)", line)
        if arch_match:
            arch, function = arch_match.group(1), None
            result.setdefault(arch, {})
            continue
        function_match = re.match(header, line)
        if function_match and arch:
            function = function_match.group(1)
            result[arch][function] = ""
            continue
        if function and arch:
            result[arch][function] += line + "\n"
    return result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuobjdump", required=True)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--function", required=True)
    parser.add_argument("--arch", required=True)
    parser.add_argument("--require", action="append", default=[])
    parser.add_argument("--forbid", action="append", default=[])
    args = parser.parse_args()

    sass = subprocess.run([args.cuobjdump, "-sass", args.binary], capture_output=True, text=True, check=True).stdout
    usage = subprocess.run([args.cuobjdump, "-res-usage", args.binary], capture_output=True, text=True, check=True).stdout
    bodies = functions_by_arch(sass, r"\s*Function : (\S+)").get(args.arch, {})
    resources = functions_by_arch(usage, r"\s*Function (\S+):").get(args.arch, {})

    selected = {name: body for name, body in bodies.items() if args.function in name}
    if not selected:
        print(f"FAIL: no function containing '{args.function}' in the {args.arch} code of {args.binary}")
        return 1
    failures = []
    for name, body in selected.items():
        for pattern in args.require:
            if not re.search(pattern, body):
                failures.append(f"{name}: no instruction matches /{pattern}/")
        for pattern in args.forbid + [r"\b(LDL|STL)\b"]:
            found = re.search(pattern, body)
            if found:
                failures.append(f"{name}: forbidden /{pattern}/ found: {found.group(0)}")
        resource = resources.get(name + ":", resources.get(name, ""))
        local = re.search(r"LOCAL:(\d+)", resource)
        if not local:
            failures.append(f"{name}: no resource usage found")
        elif int(local.group(1)) != 0:
            failures.append(f"{name}: uses {local.group(1)} bytes of local memory (spills or local arrays)")
        print(f"{args.arch} {name}: {len(body.splitlines())} SASS lines; {resource.strip()}")
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
