"""Tests for scripts/check_note_figures.py on a scratch note and CSV; the repository's notes are checked by the
CTest scripts_note_figures."""

import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "check_note_figures.py"

CSV = textwrap.dedent("""\
    kernel,name,m,n,k,ms_median,ms_q1,ms_q3,tflops,vs_cublas,max_rel_err,status
    0,cublas,1024,1024,1024,0.01000,0.01,0.01,214.75,1.000,0,ok
    1,first,1024,1024,1024,0.10000,0.1,0.1,21.47,0.100,0,ok
    2,second,1024,1024,1024,0.02000,0.02,0.02,107.37,0.500,0,ok
    0,cublas,256,512,64,0.00100,0.001,0.001,16.78,1.000,0,ok
    2,second,256,512,64,0.00300,0.003,0.003,5.59,0.333,0,ok
    1,first,256,512,64,0.00400,0.004,0.004,4.19,0.250,0,ok
    """)

NOTE = textwrap.dedent("""\
    # 02

    Measured ([results](../results/gpu/compare.csv)):

    | shape | 02 TFLOP/s | cuBLAS | ratio | vs 01 |
    |---|---:|---:|---:|---:|
    | 1024³ | 107 | 215 | 0.50 | 5.0× |
    | 256 × 512 × 64 | 5.6 | 16.8 | 0.33 | 1.33× |

    Prose after the table.
    """)

SIDE_BY_SIDE = textwrap.dedent("""\
    # 02

    Variants ([results](../results/gpu/compare.csv)):

    | shape | 02: the chapter | 01: a variant |
    |---|---:|---:|
    | 1024³ | 107 (0.50) | 21.5 (0.100) |
    | 256 × 512 × 64 | 5.59 (0.33) | 4.2 (0.25) |
    """)


class CheckNoteFiguresTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.root = Path(temp.name)
        (self.root / "results" / "gpu").mkdir(parents=True)
        (self.root / "results" / "gpu" / "compare.csv").write_text(CSV, encoding="utf-8")
        (self.root / "kernels").mkdir()
        self.note = self.root / "kernels" / "02_second.md"

    def run_script(self, *extra):
        return subprocess.run([sys.executable, str(SCRIPT), "--root", str(self.root), *extra], capture_output=True,
                              text=True, timeout=60)

    def assert_checked_and_fixed(self, right: str, wrong: str, problem: str):
        """`right` passes; `wrong` fails, the problem named; --fix turns it back into `right`."""
        self.note.write_text(right, encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.note.write_text(wrong, encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 1)
        self.assertIn(problem, result.stdout)
        self.assertEqual(self.run_script("--fix").returncode, 0)
        self.assertEqual(self.note.read_text(encoding="utf-8"), right)

    def test_matching_figures_pass(self):
        self.note.write_text(NOTE, encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("1 measurement tables", result.stdout)

    def test_each_wrong_figure_is_named(self):
        self.note.write_text(NOTE.replace("| 107 |", "| 108 |").replace("1.33×", "1.30×"), encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 1)
        self.assertIn("02_second.md:7 (1024³): TFLOP/s says 108, ../results/gpu/compare.csv gives 107", result.stdout)
        self.assertIn("vs 01 says 1.30×", result.stdout)
        self.assertEqual(len(result.stdout.strip().splitlines()), 2)

    def test_missing_link_or_measurement_exits_2(self):
        for text in (NOTE.replace("../results/gpu/compare.csv", "nowhere.md"), NOTE.replace("1024³", "2048³")):
            with self.subTest(text=text[:40]):
                self.note.write_text(text, encoding="utf-8")
                result = self.run_script()
                self.assertEqual(result.returncode, 2, result.stdout)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1)

    def test_each_table_reads_the_csv_linked_nearest_above_it(self):
        (self.root / "results" / "other").mkdir()
        (self.root / "results" / "other" / "compare.csv").write_text(CSV.replace("107.37", "99.00"), encoding="utf-8")
        second = NOTE.replace("../results/gpu/compare.csv", "../results/other/compare.csv").replace("| 107 |", "| 99 |")
        self.note.write_text(NOTE + "\n" + second.split("\n", 1)[1], encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("2 measurement tables", result.stdout)

    def test_fix_rewrites_the_figures_from_the_csv_and_nothing_else(self):
        self.note.write_text(NOTE.replace("| 107 |", "| 108 |").replace("1.33×", "1.30×"), encoding="utf-8")
        result = self.run_script("--fix")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(self.note.read_text(encoding="utf-8"), NOTE)
        self.assertEqual(self.run_script().returncode, 0)

    def test_side_by_side_tables_are_checked_cell_by_cell(self):
        self.note.write_text(SIDE_BY_SIDE, encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("1 measurement tables", result.stdout)
        self.note.write_text(SIDE_BY_SIDE.replace("4.2 (0.25)", "4.2 (0.26)").replace("| 107 (", "| 106 ("),
                             encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 1)
        self.assertIn("02_second.md:7 (1024³): kernel 2 says 106 (0.50), ../results/gpu/compare.csv gives 107 (0.50)",
                      result.stdout)
        self.assertIn("02_second.md:8 (256 × 512 × 64): kernel 1 says 4.2 (0.26)", result.stdout)
        self.assertEqual(len(result.stdout.strip().splitlines()), 2)
        self.assertEqual(self.run_script("--fix").returncode, 0)
        self.assertEqual(self.note.read_text(encoding="utf-8"), SIDE_BY_SIDE)

    def test_malformed_side_by_side_tables_exit_2(self):
        cases = {
            "not 'TFLOP/s (ratio to cuBLAS)'": SIDE_BY_SIDE.replace("21.5 (0.100)", "21.5"),
            "1 cells under 2 kernels": SIDE_BY_SIDE.replace(" | 21.5 (0.100) |", " |"),
            "in some columns only": SIDE_BY_SIDE.replace("01: a variant", "a variant"),
        }
        for message, text in cases.items():
            with self.subTest(message=message):
                self.note.write_text(text, encoding="utf-8")
                result = self.run_script()
                self.assertEqual(result.returncode, 2, result.stdout)
                self.assertIn(message, result.stderr)


    def test_change_size_must_be_the_diffs(self):
        # Chapter 2 builds on 1; against it, its code (without the header comment) adds two lines and removes one.
        kernels = self.root / "kernels"
        (kernels / "registry.inc").write_text('GEMM_KERNEL(1, first, 0, kAny, kAny, "one")\n'
                                              'GEMM_KERNEL(2, second, 1, kAny, kAny, "two")\n', encoding="utf-8")
        (kernels / "01_first.cu").write_text("// header\n\nint a = 1;\nint b = 2;\n", encoding="utf-8")
        (kernels / "02_second.cu").write_text("// another header\n\nint a = 1;\nint b = 3;\nint c = 4;\n",
                                              encoding="utf-8")
        right = "# 02\n\n`scripts/diff_chapters.sh 2` (+2 −1 lines against 01): the new line.\n"
        self.assert_checked_and_fixed(right, right.replace("+2 −1", "+3 −1"),
                                      "02_second.md:3: the change of chapter 2 is +3 −1, diff_chapters.sh gives +2 −1")

    def test_ratio_column_is_one_kernels_speed_over_anothers(self):
        # 02 ÷ 01: kernel 1's median time over kernel 2's, 0.1 / 0.02 = 5.0 at 1024³ and 0.004 / 0.003 = 1.33 below.
        right = ("# 02\n\nModel and measurement ([results](../results/gpu/compare.csv)):\n\n"
                 "| shape | the model's pick | 02 ÷ 01, measured |\n|---|---|---:|\n"
                 "| 1024³ | 02 | 5.0 |\n| 256 × 512 × 64 | 01 | 1.33 |\n")
        self.assert_checked_and_fixed(
            right, right.replace("| 1.33 |", "| 0.75 |"),
            "02_second.md:8 (256 × 512 × 64): 02 ÷ 01 says 0.75, ../results/gpu/compare.csv gives 1.33")
        self.note.write_text(right.replace("02 ÷ 01", "02 ÷ 03"), encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 2)
        self.assertIn("no measurement of kernels 2 and 3", result.stderr)

if __name__ == "__main__":
    unittest.main()
