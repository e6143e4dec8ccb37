#!/usr/bin/env python3
"""Writes the chapter variants of bench/variants.json as an experiments folder for -DGEMM_EXPERIMENTS_DIR.

    make_variants.py OUT_DIR [--spec FILE] [--root DIR]
    make_variants.py --print-ids [--spec FILE]

A variant is its chapter's kernels/NN_name.cu with named compile-time constants (`constexpr int kName = value;`) set
to other values (`set`), and where an idea needs other code, passages of the chapter replaced (`replace`: a list of
{"what", "old", "new"}, `what` a few words for the variant's header). Each named constant and each old passage must
appear exactly once in the chapter and each value or passage must change, so a renamed constant, an edited passage or
a stale spec fails here instead of building the chapter unchanged. The variant's launcher is renamed prepare_<name>
and its kernel <name>_kernel, <name> the variant's, a header line records where it came from, and OUT_DIR/registry.inc
gets its GEMM_KERNEL line (the chapter's architecture and shape rule, the variant's id and description). Ids must be
free in the ladder (kernels/registry.inc) and two digits, like the chapters' files. What the script wrote into OUT_DIR
before is replaced; a folder holding kernels it did not write is refused.

--print-ids prints the chapters and their variants as one comma-separated list, each chapter before its
variants, for `gemm check` and `gemm compare --kernels`.

Exit codes: 0 written (or printed), 2 bad input (a message on stderr).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from script_errors import InputError, report
from update_ladder_table import KERNEL_LINE  # how a GEMM_KERNEL line of kernels/registry.inc reads

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(r"[a-z][a-z0-9_]*")


def read_registry(root: Path) -> dict[int, dict[str, str]]:
    """The ladder's registry lines by id: name, architecture, rule."""
    kernels = {}
    for line in (root / "kernels" / "registry.inc").read_text(encoding="utf-8").splitlines():
        match = KERNEL_LINE.match(line)
        if match:
            kernels[int(match["id"])] = {"name": match["name"], "arch": match["arch"], "rule": match["rule"]}
    return kernels


def is_integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # JSON's true is not a constant's value


def read_spec(path: Path) -> list[dict]:
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputError(f"{path}: cannot read the variants ({error})") from None
    variants = spec.get("variants") if isinstance(spec, dict) else None
    if not isinstance(variants, list) or not all(isinstance(variant, dict) for variant in variants):
        raise InputError(f'{path}: expected {{"variants": [{{...}}, ...]}}')
    types = {"id": is_integer, "name": lambda v: isinstance(v, str), "base": is_integer,
             "set": lambda v: isinstance(v, dict), "about": lambda v: isinstance(v, str)}
    for variant in variants:
        missing = types.keys() - variant.keys()
        if missing:
            raise InputError(f"{path}: variant {variant.get('id', '?')} lacks {', '.join(sorted(missing))}")
        wrong = [key for key, valid in types.items() if not valid(variant[key])]
        if not wrong:
            wrong = [f"set.{key}" for key, value in variant["set"].items() if not is_integer(value)]
        if not wrong and not is_replace_list(variant.get("replace", [])):
            wrong = ["replace"]
        if wrong:
            raise InputError(f"{path}: variant {variant['id']}: {', '.join(wrong)} of the wrong type")
    return variants


def is_replace_list(value) -> bool:
    """A list of {"what", "old", "new"} with three strings each (the optional `replace` of a variant)."""
    return isinstance(value, list) and all(
        isinstance(item, dict) and set(item) == {"what", "old", "new"} and all(isinstance(v, str) for v in item.values())
        for item in value)


def replace_passage(source: str, item: dict[str, str], where: str) -> str:
    """`source` with the passage item["old"], which must appear exactly once, replaced by item["new"]."""
    count = source.count(item["old"]) if item["old"] else 0
    if count != 1:
        raise InputError(f"{where}: the passage to replace for {item['what']!r} appears {count} times, not once")
    if item["new"] == item["old"]:
        raise InputError(f"{where}: the replacement for {item['what']!r} changes nothing")
    return source.replace(item["old"], item["new"])


def set_constant(source: str, name: str, value: int, where: str) -> tuple[str, str]:
    """`source` with `constexpr int name = ...;` set to `value`, and the value it had."""
    pattern = re.compile(rf"^(\s*constexpr\s+int\s+{re.escape(name)}\s*=\s*)([^;]+)(;)", re.MULTILINE)
    matches = list(pattern.finditer(source))
    if len(matches) != 1:
        raise InputError(f"{where}: `constexpr int {name} = ...;` appears {len(matches)} times, not once")
    old = matches[0][2].strip()
    if old == str(value):
        raise InputError(f"{where}: {name} is already {value}; a variant must change something")
    return pattern.sub(lambda m: f"{m[1]}{value}{m[3]}", source), old


def make_variant(variant: dict, ladder: dict[int, dict[str, str]], root: Path) -> tuple[str, str, str]:
    """(file name, source, registry line) of one variant."""
    vid, name, base = variant["id"], variant["name"], variant["base"]
    if not 10 <= vid <= 99:
        raise InputError(f"variant {vid}: ids are two digits")
    if vid in ladder:
        raise InputError(f"variant {vid}: the id is the ladder's ({ladder[vid]['name']})")
    if not NAME.fullmatch(name):
        raise InputError(f"variant {vid}: the name {name!r} is not lower_snake_case")
    if any(chapter["name"] == name for chapter in ladder.values()):
        raise InputError(f"variant {vid}: the name {name} is a chapter's")
    if base not in ladder:
        raise InputError(f"variant {vid}: no chapter {base} in kernels/registry.inc")
    if not variant["set"] and not variant.get("replace"):
        raise InputError(f"variant {vid}: sets no constant and replaces no passage")
    chapter = ladder[base]
    chapter_file = f"kernels/{base:02d}_{chapter['name']}.cu"
    source = (root / chapter_file).read_text(encoding="utf-8")
    changes = []
    for constant, value in variant["set"].items():
        source, old = set_constant(source, constant, value, f"variant {vid} ({chapter_file})")
        changes.append(f"{constant} = {value} (was {old})")
    for item in variant.get("replace", []):
        source = replace_passage(source, item, f"variant {vid} ({chapter_file})")
        changes.append(f"code: {item['what']}")
    launcher = f"prepare_{chapter['name']}"
    if len(re.findall(rf"\b{launcher}\b", source)) != 1:
        raise InputError(f"variant {vid}: {chapter_file} does not define {launcher} exactly once")
    source = re.sub(rf"\b{launcher}\b", f"prepare_{name}", source)
    # The kernel, <name>_kernel like every chapter's, so that profiles (scripts/profile.sh) find it by name.
    kernel = f"{chapter['name']}_kernel"
    if not re.search(rf"__global__[^;{{]*\b{kernel}\(", source):
        raise InputError(f"variant {vid}: {chapter_file} has no __global__ {kernel}")
    source = re.sub(rf"\b{kernel}\b", f"{name}_kernel", source)
    header = (f"// Generated by scripts/make_variants.py from {chapter_file} (bench/variants.json, variant {vid}):\n"
              f"// {'; '.join(changes)}. Not part of the ladder.\n")
    about = variant["about"].replace("\\", "/").replace('"', "'")  # a C string literal without escapes
    line = f'GEMM_KERNEL({vid}, {name}, {base}, {chapter["arch"]}, {chapter["rule"]}, "{about}")'
    return f"{vid:02d}_{name}.cu", header + source, line


def ids_in_order(variants: list[dict]) -> list[int]:
    """Each chapter, then its variants, in the order of their first appearance."""
    ordered: list[int] = []
    for variant in variants:
        if variant["base"] not in ordered:
            ordered.append(variant["base"])
    return [id_ for base in ordered for id_ in [base] + [v["id"] for v in variants if v["base"] == base]]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, help="the experiments folder to write")
    parser.add_argument("--spec", type=Path, default=ROOT / "bench" / "variants.json")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (kernels/ and its registry)")
    parser.add_argument("--print-ids", action="store_true", help="print the chapters and variants, comma-separated")
    args = parser.parse_args(argv)
    try:
        variants = read_spec(args.spec)
        if args.print_ids:
            print(",".join(str(id_) for id_ in ids_in_order(variants)))
            return 0
        if args.out is None:
            raise InputError("give the folder to write, or --print-ids")
        ladder = read_registry(args.root)
        seen_ids, seen_names = set(), set()
        made = []
        for variant in variants:
            if variant["id"] in seen_ids or variant["name"] in seen_names:
                raise InputError(f"variant {variant['id']} ({variant['name']}): id or name used twice")
            seen_ids.add(variant["id"])
            seen_names.add(variant["name"])
            made.append(make_variant(variant, ladder, args.root))
        write_folder(args.out, made)
    except (InputError, OSError) as error:
        return report(Path(__file__).name, error)
    return 0


GENERATED = "// Generated by scripts/make_variants.py from bench/variants.json."


def write_folder(out: Path, made: list[tuple[str, str, str]]) -> None:
    """Writes the variants and their registry.inc into `out`, replacing what this script wrote there before (so
    that dropped variants leave no file behind) and refusing a folder that holds kernels it did not write."""
    registry = out / "registry.inc"
    old_kernels = list(out.glob("[0-9][0-9]_*.cu")) if out.is_dir() else []
    if old_kernels and not (registry.is_file() and registry.read_text(encoding="utf-8").startswith(GENERATED)):
        raise InputError(f"{out} holds kernels this script did not write; give an empty or a generated folder")
    out.mkdir(parents=True, exist_ok=True)
    for stale in old_kernels:
        stale.unlink()
    for file_name, source, _ in made:
        (out / file_name).write_text(source, encoding="utf-8")
    lines = "\n".join(line for _, _, line in made)
    registry.write_text(f"{GENERATED}\n{lines}\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
