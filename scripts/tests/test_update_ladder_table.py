"""Tests for scripts/update_ladder_table.py on a scratch repository (registry, two chapters, a README, and results
runs declared in results/runs.json), run as a subprocess; the repository's own README is checked by the CTest
scripts_ladder_table."""

import json
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
CSV_HEADER = ("kernel,name,m,n,k,ms_median,ms_q1,ms_q3,tflops,vs_cublas,max_rel_err,status,max_abs_err,rel_l2_err,"
              "sm_clock_mhz,power_w")


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

            | # | chapter | adds | builds on | lines changed |
            | ---: | --- | --- | ---: | ---: |
            | 00 | (runner) | the reference | — | — |
            | 01 | 01_first | the first idea | — | — |
            | 02 | [02_second](kernels/02_second.md) | the second idea, "quoted" | 01 | +2 −1 |

            <!-- ladder-table:end -->
            """) + AFTER
        self.assertEqual(self.readme.read_text(encoding="utf-8"), expected)

    def write_run(self, directory, commit, rows, gpu="NVIDIA H100 80GB HBM3"):
        """results/<directory>/compare.csv and compare.json: rows of (id, name, TFLOP/s, ratio) at 8192³."""
        run = self.root / "results" / directory
        run.mkdir(parents=True, exist_ok=True)
        lines = [CSV_HEADER] + [f"{kernel},{name},8192,8192,8192,1.0,1.0,1.0,{tflops},{ratio},0,ok,0,0,1980,700"
                                for kernel, name, tflops, ratio in rows]
        (run / "compare.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        document = {"environment": {"gpu": gpu, "git_commit": commit},
                    "settings": {"reps": 200, "warmup": 10, "cold_l2": True, "order": "interleaved"}}
        (run / "compare.json").write_text(json.dumps(document), encoding="utf-8")

    def declare(self, runs, renames=None, moved=None):
        (self.root / "results").mkdir(exist_ok=True)
        document = {"runs": runs}
        if renames is not None:
            document["renames"] = renames
        if moved is not None:
            document["moved"] = moved
        (self.root / "results" / "runs.json").write_text(json.dumps(document), encoding="utf-8")

    def two_runs(self, commit_a="aaaaaaa", commit_b="bbbbbbb"):
        self.write_run("gpu-a", commit_a, [(0, "cublas", 800.4, 1.0), (1, "first", 40.2, 0.05),
                                           (2, "second", 812.6, 1.012)])
        self.write_run("gpu-b", commit_b, [(0, "cublas", 821.0, 1.0), (1, "first", 42.0, 0.051),
                                           (2, "second", 833.0, 1.014)])
        self.declare([{"gpu": "A", "dir": "gpu-a", "commit": "aaaaaaa", "current": "0-2"},
                      {"gpu": "B", "dir": "gpu-b", "commit": "bbbbbbb", "current": "0-1",
                       "former": {"2": "old 02 (today's 05)"}}])

    def table_rows(self):
        text = self.readme.read_text(encoding="utf-8")
        rows = [line for line in text.splitlines() if line.startswith("| ")]
        return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]

    def test_figures_per_run_only_for_current_chapters(self):
        self.two_runs()
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stderr)
        header, _, cublas, first, second = self.table_rows()
        self.assertEqual(header, ["#", "chapter", "adds", "builds on", "lines changed", "A TFLOP/s", "× cuBLAS",
                                  "B TFLOP/s", "× cuBLAS"])
        self.assertEqual(cublas[5:], ["800", "1.00×", "821", "1.00×"])
        self.assertEqual(first[5:], ["40", "0.05×", "42", "0.05×"])
        # Run B's kernel 02 is not today's chapter 02: no figure in its row, named under the table instead.
        self.assertEqual(second[5:], ["813", "1.01×", "—", "—"])
        text = self.readme.read_text(encoding="utf-8")
        self.assertIn("TFLOP/s at 8192³ (median of the reps) and the ratio to cuBLAS timed in the same run, from one "
                      "`gemm compare --out` run per GPU: "
                      "A from [results/gpu-a/compare.csv](results/gpu-a/compare.csv) "
                      "(commit aaaaaaa, 200 reps, cold L2), "
                      "B from [results/gpu-b/compare.csv](results/gpu-b/compare.csv) "
                      "(commit bbbbbbb, 200 reps, cold L2).\n", text)
        self.assertIn("\nB: the run of commit bbbbbbb measured kernels 00-01 as they are today; its 02 was old 02 "
                      "(today's 05): 833 TFLOP/s, 1.01× cuBLAS at 8192³.\n\n"
                      "—: no measurement of the chapter as it is today.\n\n<!-- ladder-table:end -->", text)
        self.assertEqual(self.run_script("--check").returncode, 0)

    def test_a_run_of_another_commit_is_refused(self):
        self.two_runs(commit_b="ccccccc")
        result = self.run_script()
        self.assertEqual(result.returncode, 2)
        self.assertIn("results/gpu-b/compare.json is of commit ccccccc, but results/runs.json declares bbbbbbb",
                      result.stderr)
        self.assertEqual(self.readme.read_text(encoding="utf-8"), README)

    def test_a_current_kernel_under_another_name_is_refused(self):
        self.write_run("gpu-a", "aaaaaaa", [(0, "cublas", 800.0, 1.0), (2, "renamed", 700.0, 0.9)])
        self.declare([{"gpu": "A", "dir": "gpu-a", "commit": "aaaaaaa", "current": "0-2"}])
        result = self.run_script()
        self.assertEqual(result.returncode, 2)
        self.assertIn("kernel 02 of the run is renamed, not today's chapter 02", result.stderr)

    def test_the_shape_must_be_in_every_run(self):
        self.two_runs()
        result = self.run_script("--at", "4096x4096x4096")
        self.assertEqual(result.returncode, 2)
        self.assertIn("no measurement at 4096³", result.stderr)

    def git(self, *args):
        result = subprocess.run(["git", "-C", str(self.root), "-c", "user.name=test", "-c", "user.email=test@test",
                                 *args], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout.strip()

    def test_a_chapter_whose_code_changed_since_the_run_is_refused(self):
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "the run's commit")
        commit = self.git("rev-parse", "--short=7", "HEAD")
        self.write_run("gpu-a", commit, [(0, "cublas", 800.0, 1.0), (1, "first", 40.0, 0.05),
                                         (2, "second", 812.0, 1.01)])
        self.declare([{"gpu": "A", "dir": "gpu-a", "commit": commit, "current": "0-2"}])
        source = self.root / "kernels" / "02_second.cu"
        # Comments and blank lines may change: the chapter is still the one measured.
        source.write_text("// a new header\n\nint a = 1;\n\nint b = 3;\nint c = 4;\n// a closing note\n",
                          encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stderr)
        # Code may not: then the run no longer measures chapter 02 as it is.
        source.write_text("// other header\n\nint a = 1;\nint b = 5;\nint c = 4;\n", encoding="utf-8")
        result = self.run_script("--check")
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"kernels/02_second.cu changed since commit {commit}", result.stderr)
        # Declared no longer current, its figure leaves the table.
        self.declare([{"gpu": "A", "dir": "gpu-a", "commit": commit, "current": "0-1"}])
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.table_rows()[4][5:], ["—", "—"])
        self.assertIn(f"A: the run of commit {commit} measured kernels 00-01 as they are today; its 02 was 02 second "
                      f"of {commit} (changed since): 812 TFLOP/s, 1.01× cuBLAS at 8192³.",
                      self.readme.read_text(encoding="utf-8"))

    def test_declared_renames_are_not_a_change_of_code(self):
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "the run's commit")
        commit = self.git("rev-parse", "--short=7", "HEAD")
        self.write_run("gpu-a", commit, [(0, "cublas", 800.0, 1.0), (1, "first", 40.0, 0.05),
                                         (2, "second", 812.0, 1.01)])
        run = [{"gpu": "A", "dir": "gpu-a", "commit": commit, "current": "0-2"}]
        source = self.root / "kernels" / "02_second.cu"
        # 02 was "int a = 1; int b = 3; int c = 4;" (c is 02's alone): a renamed variable, a new trailing comment.
        source.write_text("// other header\n\nint a = 1;  // a new remark\nint b = 3;\nint gamma = 4;\n",
                          encoding="utf-8")
        self.declare(run)
        result = self.run_script("--check")
        self.assertEqual(result.returncode, 2)  # undeclared, the rename is a change
        self.assertIn(f"kernels/02_second.cu changed since commit {commit}", result.stderr)
        self.declare(run, renames={"c": "gamma"})
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stderr)
        # A rename does not excuse another change.
        source.write_text("// other header\n\nint a = 2;\nint b = 3;\nint gamma = 4;\n", encoding="utf-8")
        result = self.run_script("--check")
        self.assertEqual(result.returncode, 2)
        self.assertIn("changed since commit", result.stderr)
        # A rename must name identifiers or words.
        self.declare(run, renames={"c": "gamma;"})
        result = self.run_script()
        self.assertEqual(result.returncode, 2)
        self.assertIn("renames must map identifiers", result.stderr)

    def test_a_function_moved_into_its_one_chapter_is_not_a_change_of_code(self):
        common = self.root / "common"
        common.mkdir()
        helper = ("template <int kN>\n__device__ void store_box(int x) {\n  int y = x + kN;  // why\n  use(y);\n}\n")
        (common / "epilogue.h").write_text("#pragma once\n\n// Boxes.\n" + helper, encoding="utf-8")
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "the run's commit")
        commit = self.git("rev-parse", "--short=7", "HEAD")
        self.write_run("gpu-a", commit, [(0, "cublas", 800.0, 1.0), (1, "first", 40.0, 0.05),
                                         (2, "second", 812.0, 1.01)])
        run = [{"gpu": "A", "dir": "gpu-a", "commit": commit, "current": "0-2"}]
        moved = [{"function": "store_box", "from": "common/epilogue.h", "into": "kernels/02_second.cu"}]
        source = self.root / "kernels" / "02_second.cu"
        before = source.read_text(encoding="utf-8")
        # The function now in 02's file (its comments reworded), the header without it.
        source.write_text(before.replace("int a = 1;\n", "int a = 1;\n" + helper.replace("// why", "// because")),
                          encoding="utf-8")
        (common / "epilogue.h").write_text("#pragma once\n", encoding="utf-8")
        self.declare(run)
        result = self.run_script("--check")
        self.assertEqual(result.returncode, 2)  # undeclared, the move is a change
        self.assertIn("kernels/02_second.cu changed since commit", result.stderr)
        self.declare(run, moved=moved)
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stderr)
        # A change inside the moved function is a change.
        source.write_text(before.replace("int a = 1;\n", "int a = 1;\n" + helper.replace("x + kN", "x - kN")),
                          encoding="utf-8")
        result = self.run_script("--check")
        self.assertEqual(result.returncode, 2)
        self.assertIn("changed since commit", result.stderr)

    def test_what_a_chapter_adds_takes_at_most_ten_words(self):
        registry = self.root / "kernels" / "registry.inc"
        ten = "one two three four five six seven eight nine ten"
        registry.write_text(f'GEMM_KERNEL(1, first, 0, kAny, kAny, "{ten}")\n', encoding="utf-8")
        self.assertEqual(self.run_script().returncode, 0)
        registry.write_text(f'GEMM_KERNEL(1, first, 0, kAny, kAny, "{ten} eleven")\n', encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 2)
        self.assertIn("what chapter 1 adds takes more than 10 words", result.stderr)

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
            "long cublas": ("kernels/registry.cu", '{0, "cublas", "a b c d e f g h i j k", Arch::kAny,\n'),
            "bad runs.json": ("results/runs.json", '{"runs": [{"gpu": "A"}]}'),
        }
        for case, (path, text) in cases.items():
            with self.subTest(case):
                self.setUp()
                (self.root / path).parent.mkdir(parents=True, exist_ok=True)
                (self.root / path).write_text(text, encoding="utf-8")
                result = self.run_script()
                self.assertEqual(result.returncode, 2)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)


if __name__ == "__main__":
    unittest.main()
