#!/usr/bin/env python3
"""Check the SASS of one kernel in a binary: required instructions present, no local memory.

usage:
  check_sass.py --disassemble --cuobjdump PATH --binary FILE --arch sm_90a --sass-file OUT
  check_sass.py --sass-file FILE --binary FILE --function SUBSTRING --arch sm_90a [--require REGEX]... [--forbid REGEX]...
  check_sass.py --cuobjdump PATH --binary FILE --function SUBSTRING --arch sm_90a [--require REGEX]... [--forbid REGEX]...
  check_sass.py --arch sm_100a --function SUBSTRING --skip REASON

Every function whose (mangled) name contains SUBSTRING in the cubin for ARCH is checked: each --require
regex must match some instruction of each such function, no --forbid regex may match any, and the
resource usage must show LOCAL:0 (no spills, no local arrays). Local-memory loads and stores (LDL/STL)
are always forbidden.

Disassembling the whole binary takes about half a minute on a 2-core machine, so the tests do it once per
architecture: --disassemble runs `cuobjdump -sass` and `cuobjdump -res-usage` for ARCH and writes both to OUT
(after a first line naming the binary, its SHA-256 and ARCH; written whole or not at all), and each check reads
that file (--sass-file). A check refuses a file made from another binary, or from this one before it was
rebuilt: a stale disassembly is never checked. Given --cuobjdump instead, a check disassembles by itself.
--skip prints why the check is not made (the build has no code for ARCH) and exits 77, which CTest counts
as skipped.
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys

SKIPPED = 77
STAMP = re.compile(r"^# check_sass\.py: cuobjdump of (.*) for (\S+), sha256 ([0-9a-f]{64})$")
SASS_SECTION = "# ---- cuobjdump -sass ----"
USAGE_SECTION = "# ---- cuobjdump -res-usage ----"


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


def sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cuobjdump(tool: str, what: str, binary: str, arch=None) -> str:
    command = [tool, what] + (["-arch", arch] if arch else []) + [binary]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def disassemble(tool: str, binary: str, arch: str, out: str) -> int:
    """Write ARCH's SASS and resource usage of BINARY to OUT, stamped with the binary's SHA-256."""
    try:
        digest = sha256(binary)  # before disassembling: a binary rebuilt meanwhile makes the file stale, not wrong
        sass = cuobjdump(tool, "-sass", binary, arch)
        usage = cuobjdump(tool, "-res-usage", binary, arch)
    except (OSError, RuntimeError) as error:
        print(f"FAIL: {error}")
        return 1
    functions = functions_by_arch(sass, r"\s*Function : (\S+)")
    if arch not in functions:
        print(f"FAIL: {binary} has no {arch} code (cuobjdump -sass -arch {arch} shows none)")
        return 1
    text = (f"# check_sass.py: cuobjdump of {os.path.abspath(binary)} for {arch}, sha256 {digest}\n"
            f"{SASS_SECTION}\n{sass}{USAGE_SECTION}\n{usage}")
    directory = os.path.dirname(os.path.abspath(out))
    os.makedirs(directory, exist_ok=True)
    temporary = f"{out}.{os.getpid()}.tmp"
    try:
        with open(temporary, "w") as file:
            file.write(text)
        os.replace(temporary, out)  # readers see the old file or the new one, never half of one
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    print(f"{arch}: {len(functions[arch])} functions of {binary} disassembled into {out}")
    return 0


def read_disassembly(path: str, binary: str, arch: str):
    """(sass, res-usage) texts from a --disassemble file, or raise ValueError if it is not this binary's now."""
    try:
        with open(path) as file:
            text = file.read()
    except OSError as error:
        raise ValueError(f"no disassembly {path}: {error.strerror} (the sass_disassemble_{arch} test writes it)")
    first, _, rest = text.partition("\n")
    stamp = STAMP.match(first)
    if not stamp or SASS_SECTION + "\n" not in rest or USAGE_SECTION + "\n" not in rest:
        raise ValueError(f"{path} is not a disassembly written by check_sass.py --disassemble")
    if stamp.group(2) != arch:
        raise ValueError(f"{path} holds {stamp.group(2)} code, not {arch}")
    try:
        digest = sha256(binary)
    except OSError as error:
        raise ValueError(f"cannot read {binary}: {error.strerror}")
    if stamp.group(3) != digest:
        raise ValueError(f"{path} is stale: {binary} has changed since it was disassembled "
                         f"(run the sass_disassemble_{arch} test, or all of `ctest -L sass`)")
    sass, _, usage = rest.partition(USAGE_SECTION + "\n")
    return sass.partition(SASS_SECTION + "\n")[2], usage


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--disassemble", action="store_true", help="write ARCH's disassembly to --sass-file")
    parser.add_argument("--cuobjdump")
    parser.add_argument("--binary")
    parser.add_argument("--sass-file")
    parser.add_argument("--function")
    parser.add_argument("--arch", required=True)
    parser.add_argument("--require", action="append", default=[])
    parser.add_argument("--forbid", action="append", default=[])
    parser.add_argument("--skip", metavar="REASON", help="check nothing: print REASON and exit 77 (skipped)")
    args = parser.parse_args()

    if args.skip is not None:
        print(f"SKIP: {args.function or 'the'} {args.arch} SASS is not checked: {args.skip}")
        return SKIPPED
    if not args.binary:
        parser.error("--binary is required")
    if args.disassemble:
        if not args.cuobjdump or not args.sass_file:
            parser.error("--disassemble needs --cuobjdump and --sass-file")
        return disassemble(args.cuobjdump, args.binary, args.arch, args.sass_file)
    if not args.function:
        parser.error("--function is required")
    if args.sass_file:
        try:
            sass, usage = read_disassembly(args.sass_file, args.binary, args.arch)
        except ValueError as error:
            print(f"FAIL: {error}")
            return 1
    elif args.cuobjdump:
        try:
            sass = cuobjdump(args.cuobjdump, "-sass", args.binary)
            usage = cuobjdump(args.cuobjdump, "-res-usage", args.binary)
        except (OSError, RuntimeError) as error:
            print(f"FAIL: {error}")
            return 1
    else:
        parser.error("give --sass-file (a --disassemble output) or --cuobjdump")

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
