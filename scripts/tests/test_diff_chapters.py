"""Tests for scripts/diff_chapters.sh: on scratch chapters (GEMM_KERNELS_DIR) for exact output, and on the
repository's own chapters for the contract the README's table relies on."""

import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "diff_chapters.sh"
KERNELS = Path(__file__).resolve().parents[2] / "kernels"

OLD = """// Kernel 04 — the old header.
//
// Two paragraphs of prose
// that differ in every chapter.

#include "common/a.h"

int tile = 128;
int stages = 6;
"""
NEW = """// Kernel 05 — a new header, longer than the old one.
// It says something else entirely.

#include "common/a.h"
#include "common/b.h"

int tile = 256;
int stages = 6;
"""


# Chapter 5 builds on 4, chapter 6 on none, chapter 8 on 4 (its file is missing: exit 2 too).
REGISTRY = """// scratch registry
GEMM_KERNEL(4, old, 0, kAny, kAny, "the old idea")
GEMM_KERNEL(5, new, 4, kSm90a, kTmaAligned, "the new idea")
GEMM_KERNEL(6, first, 0, kAny, kAny, "no base")
GEMM_KERNEL(7, skips, 4, kAny, kAny, "builds on 4, not on 6")
"""


def run(*args, kernels=None):
    env = dict(os.environ)
    if kernels is not None:
        env["GEMM_KERNELS_DIR"] = str(kernels)
    return subprocess.run(["bash", str(SCRIPT), *map(str, args)], capture_output=True, text=True, env=env, timeout=60)


class ScratchChapters(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.kernels = Path(temp.name)
        (self.kernels / "04_old.cu").write_text(OLD, encoding="utf-8")
        (self.kernels / "05_new.cu").write_text(NEW, encoding="utf-8")
        (self.kernels / "registry.inc").write_text(REGISTRY, encoding="utf-8")

    def test_diff_leaves_out_the_header_comments(self):
        result = run(5, kernels=self.kernels)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("Kernel 0", result.stdout)
        self.assertNotIn("prose", result.stdout)
        self.assertIn("--- 04_old.cu\n+++ 05_new.cu\n", result.stdout)
        self.assertIn('+#include "common/b.h"\n', result.stdout)
        self.assertIn("-int tile = 128;\n+int tile = 256;\n", result.stdout)
        self.assertTrue(result.stdout.endswith("05_new.cu against 04_old.cu: +2 -1 lines (header comments excluded)\n"))

    def test_stat_is_one_line(self):
        result = run("05", "--stat", kernels=self.kernels)
        self.assertEqual((result.returncode, result.stdout), (0, "+2 -1\n"), result.stderr)

    def test_identical_code_is_no_change(self):
        (self.kernels / "05_new.cu").write_text("// another header\n" + OLD.split("\n\n", 1)[1], encoding="utf-8")
        result = run(5, "--stat", kernels=self.kernels)
        self.assertEqual((result.returncode, result.stdout), (0, "+0 -0\n"), result.stderr)

    def test_the_base_comes_from_the_registry_not_the_number_before(self):
        (self.kernels / "06_first.cu").write_text("// header\n\nint unrelated = 1;\n", encoding="utf-8")
        (self.kernels / "07_skips.cu").write_text(NEW.replace("Kernel 05", "Kernel 07"), encoding="utf-8")
        result = run(7, kernels=self.kernels)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.endswith("07_skips.cu against 04_old.cu: +2 -1 lines (header comments excluded)\n"))

    def test_bad_usage_and_missing_chapters_exit_2(self):
        (self.kernels / "06_first.cu").write_text("// header\n", encoding="utf-8")
        for args in [(), ("x",), (5, "--all"), (4,), (6,), (7,), (9,), (5, "--stat", "more")]:
            with self.subTest(args=args):
                result = run(*args, kernels=self.kernels)
                self.assertEqual(result.returncode, 2)
                self.assertEqual(result.stdout, "")
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)


    def test_no_registry_exits_2(self):
        (self.kernels / "registry.inc").unlink()
        result = run(5, kernels=self.kernels)
        self.assertEqual(result.returncode, 2)
        self.assertIn("registry.inc", result.stderr)


class RepositoryChapters(unittest.TestCase):
    def test_every_chapter_with_a_base_has_a_size(self):
        registry = (KERNELS / "registry.inc").read_text(encoding="utf-8")
        bases = {int(m[1]): int(m[2]) for m in re.finditer(r"^GEMM_KERNEL\((\d+), \w+, (\d+),", registry, re.M)}
        self.assertGreater(len(bases), 10)
        for chapter, base in bases.items():
            if base == 0:
                continue
            with self.subTest(chapter=chapter):
                result = run(chapter, "--stat")
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertRegex(result.stdout, r"^\+\d+ -\d+\n$")


if __name__ == "__main__":
    unittest.main()
