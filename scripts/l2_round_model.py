#!/usr/bin/env python3
"""A model of what kernel 10's rounds read from DRAM, walking K upwards in every round or up and down by turns.

    l2_round_model.py [--gemm build/gemm] [--clusters 66] [--l2-mib 25,40,50] MxNxK [MxNxK ...]

The L2 is modelled as one least-recently-used cache. Its lines are slabs of 32 KB: the 256 rows of A or B that a
cluster tile (2 × 1 CTAs of 128 × 256) reads at one k block of 64. A round is `--clusters` consecutive cluster
tiles of the Hilbert order, and all of them read the same k block at the same time (the round barrier keeps them
close); at a round's end its C tiles (128 KB each) are written through the cache. DRAM reads are the operand
slabs that miss. The model knows nothing of time, of the L2's two halves or its hashing, and treats the split
round's tiles as whole ones: it is for predictions, not measurements (the lab notebook
docs/log/09-15_one_chapter.md, "Up and down along K", and kernel 10's notes compare it with Nsight Compute).

The order comes from the built runner (`gemm layout tile-order hilbert --full`), which draws the table kernels
09-12 are given, so the model and the kernels cannot disagree about it.

Exit codes: 0 done, 2 bad input or the runner failed.
"""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
from collections import OrderedDict

TILE = 256         # rows of a cluster tile along M and along N (kernels 09-13: 2 × 1 CTAs of 128 × 256)
BLOCK_K = 64       # k elements per k block
SLAB_BYTES = TILE * BLOCK_K * 2   # bf16: one slab of A or B, 32 KB
C_SLABS = TILE * TILE * 2 // SLAB_BYTES  # a cluster tile of C in slabs: 128 KB


def dram_slabs(order: list[tuple[int, int]], k_blocks: int, clusters: int, capacity_slabs: int,
               up_and_down: bool, write_c: bool = True) -> int:
    """Operand slabs read from DRAM by the rounds of `order` through an LRU cache of `capacity_slabs`."""
    cache: OrderedDict = OrderedDict()
    misses = 0

    def touch(key, operand: bool) -> None:
        nonlocal misses
        if key in cache:
            cache.move_to_end(key)
            return
        misses += operand
        cache[key] = None
        if len(cache) > capacity_slabs:
            cache.popitem(last=False)

    for first in range(0, len(order), clusters):
        tiles = order[first:first + clusters]
        downwards = up_and_down and (first // clusters) % 2 == 1
        for k in (range(k_blocks - 1, -1, -1) if downwards else range(k_blocks)):
            for m, n in tiles:
                touch(("a", m, k), True)
                touch(("b", n, k), True)
        if write_c:
            for m, n in tiles:
                for part in range(C_SLABS):
                    touch(("c", m, n, part), False)
    return misses


def fail(message: str) -> None:
    print(f"l2_round_model.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def hilbert_order(gemm: str, m: int, n: int, clusters: int) -> list[tuple[int, int]]:
    """The cluster tiles in the order kernels 09-12 visit them, read from `gemm layout tile-order hilbert --full`."""
    command = [gemm, "layout", "tile-order", "hilbert", "--m", str(m), "--n", str(n), "--tile-m", str(TILE),
               "--tile-n", str(TILE), "--sms", str(clusters), "--full"]
    try:
        text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        fail(f"{' '.join(command)} failed: {error}")
    position = {}
    rows = iter(text.splitlines())
    for line in rows:
        if line.startswith("m\\n"):
            break
    for line in rows:
        match = re.fullmatch(r"\s*(\d+)((?:\s+\d+)+)\s*", line)
        if not match:
            break
        for column, value in enumerate(match.group(2).split()):
            position[int(value)] = (int(match.group(1)), column)
    tiles_m, tiles_n = -(-m // TILE), -(-n // TILE)
    if sorted(position) != list(range(tiles_m * tiles_n)):
        fail(f"could not read a {tiles_m} x {tiles_n} tile order from {command[0]}")
    return [position[p] for p in range(tiles_m * tiles_n)]


WHOLE = r"[1-9]\d*"  # a whole number >= 1, as the arguments take it


def parse_shape(text: str) -> tuple[int, int, int]:
    match = re.fullmatch(rf"({WHOLE})x({WHOLE})x({WHOLE})", text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected MxNxK with M, N, K >= 1, got '{text}'")
    return tuple(int(g) for g in match.groups())


def parse_positive_int(text: str) -> int:
    if not re.fullmatch(WHOLE, text):
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got '{text}'")
    return int(text)


def parse_cache_sizes(text: str) -> list[float]:
    """Comma-separated cache sizes in MiB, each finite and large enough for one slab."""
    sizes = []
    for part in text.split(","):
        try:
            mib = float(part)
        except ValueError:
            mib = None
        if mib is None or not math.isfinite(mib) or mib * 2**20 < SLAB_BYTES:
            raise argparse.ArgumentTypeError(
                f"expected sizes in MiB, each at least {SLAB_BYTES / 2**20:g} (one slab), got '{part}'")
        sizes.append(mib)
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="+", type=parse_shape, metavar="MxNxK")
    parser.add_argument("--gemm", default="build/gemm", help="the built runner (default: build/gemm)")
    parser.add_argument("--clusters", type=parse_positive_int, default=66,
                        help="clusters per round (default: 66, 132 SMs)")
    parser.add_argument("--l2-mib", type=parse_cache_sizes, default="25,40,50",
                        help="cache sizes to model, MiB (default: 25,40,50)")
    args = parser.parse_args()
    capacities = args.l2_mib
    rows = ["| shape | L2 model | K upwards | K up and down | change |", "|---|---:|---:|---:|---:|"]
    for m, n, k in args.shapes:
        order = hilbert_order(args.gemm, m, n, args.clusters)
        k_blocks = -(-k // BLOCK_K)
        for mib in capacities:
            slabs = int(mib * 2**20 / SLAB_BYTES)
            upwards, both = (dram_slabs(order, k_blocks, args.clusters, slabs, up_and_down)
                             for up_and_down in (False, True))
            gb = SLAB_BYTES / 1e9
            rows.append(f"| {m}x{n}x{k} | {mib:g} MiB | {upwards * gb:.2f} GB | {both * gb:.2f} GB | "
                        f"{(both / upwards - 1) * 100:+.0f} % |")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
