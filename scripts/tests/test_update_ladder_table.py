"""Tests for scripts/update_ladder_table.py on a scratch repository (registry, two chapters, a README), run as a
subprocess; the repository's own README is checked by the CTest scripts_ladder_table."""

import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "update_ladder_table.py"

REGISTRY_INC = textwrap.dedent("""\
    // The ladder, one line per kernel.
    GEMM_KERNEL(1, first, 0, kAny, kAny, "the first idea")
    GEMM_KERNEL(2, second, 1, kSm90a, kTmaAligned, "the second idea, \\"quoted\\"")
    """)
REGISTRY_CU = '    {0, "cublas", "the reference", Arch::kAny,\n'
BEFORE = "# Title\n\nProse.\n\n"
AFTER = "\nLater prose.\n"
README = BEFORE + "<!-- ladder-table:begin -->\nold table\n<!-- ladder-table:end -->\n" + AFTER


class UpdateLadderTableTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.root = Path(temp.name)
        kernels = self.root / "kernels"
        kernels.mkdir()
        (kernels / "registry.inc").write_text(REGISTRY_INC, encoding="utf-8")
        (kernels / "registry.cu").write_text(REGISTRY_CU, encoding="utf-8")
        (kernels / "01_first.cu").write_text("// header\n\nint a = 1;\nint b = 2;\n", encoding="utf-8")
        (kernels / "02_second.cu").write_text("// other header\n\nint a = 1;\nint b = 3;\nint c = 4;\n",
                                              encoding="utf-8")
        (kernels / "02_second.md").write_text("# notes\n", encoding="utf-8")
        self.readme = self.root / "README.md"
        self.readme.write_text(README, encoding="utf-8")

    def run_script(self, *args):
        return subprocess.run([sys.executable, str(SCRIPT), "--root", str(self.root), *args], capture_output=True,
                              text=True, timeout=120)

    def test_table_from_the_registry(self):
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stderr)
        expected = BEFORE + textwrap.dedent("""\
            <!-- ladder-table:begin -->

            | # | chapter | adds | builds on | needs | shapes | lines changed |
            | ---: | --- | --- | ---: | --- | --- | ---: |
            | 00 | (runner) | the reference | — | any | any M, N, K | — |
            | 01 | 01_first | the first idea | — | any | any M, N, K | — |
            | 02 | [02_second](kernels/02_second.md) | the second idea, "quoted" | 01 | sm_90a | N, K multiples of 8 | +2 −1 |

            <!-- ladder-table:end -->
            """) + AFTER
        self.assertEqual(self.readme.read_text(encoding="utf-8"), expected)

    def test_check(self):
        result = self.run_script("--check")
        self.assertEqual(result.returncode, 1)  # a difference, said so, not a crash
        self.assertIn("the chapter table differs from kernels/registry.inc", result.stdout)
        self.assertNotIn("Traceback", result.stderr)
        self.assertEqual(self.readme.read_text(encoding="utf-8"), README)
        self.assertEqual(self.run_script().returncode, 0)
        result = self.run_script("--check")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertIn("up to date", result.stdout)

    def test_bad_input_exits_2(self):
        cases = {
            "unknown rule": ("kernels/registry.inc", 'GEMM_KERNEL(1, first, 0, kAny, kOdd, "x")\n'),
            "garbled line": ("kernels/registry.inc", "GEMM_KERNEL(1, first)\n"),
            "no base": ("kernels/registry.inc", 'GEMM_KERNEL(1, first, kAny, kAny, "x")\n'),
            "base not earlier": ("kernels/registry.inc", 'GEMM_KERNEL(1, first, 1, kAny, kAny, "x")\n'),
            "no markers": ("README.md", "# Title\n"),
            "no cublas": ("kernels/registry.cu", "nothing\n"),
        }
        for case, (path, text) in cases.items():
            with self.subTest(case):
                self.setUp()
                (self.root / path).write_text(text, encoding="utf-8")
                result = self.run_script()
                self.assertEqual(result.returncode, 2)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)


if __name__ == "__main__":
    unittest.main()
