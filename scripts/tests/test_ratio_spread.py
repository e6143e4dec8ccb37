"""Tests for scripts/ratio_spread.py: a chapter's speed across the runs of record in git history."""

import contextlib
import io
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ratio_spread  # noqa: E402

HEAD = "kernel,name,m,n,k,ms_median,ms_q1,ms_q3,tflops,vs_cublas,max_rel_err,status\n"
SHAPE = (1000, 1000, 1000)  # 2·10⁹ flops: 100 TFLOP/s in 0.02 ms


def note(marker):
    kind = marker.split()[1].split("-")[0]
    return f"Before.\n{marker}\nstale\n<!-- {kind}-spread:end -->\nAfter.\n"


class RatioSpreadTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.root = Path(temp.name)
        for folder in ("kernels", "runner", "results/gpu"):
            (self.root / folder).mkdir(parents=True)
        self.git("init", "-q")

    def git(self, *args):
        result = subprocess.run(["git", "-C", str(self.root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                                capture_output=True, text=True, check=True)
        return result.stdout.strip()

    def commit(self, message):
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def write(self, path, text):
        (self.root / path).write_text(text, encoding="utf-8")

    def kernels(self, base_code, chapter_code):
        self.write("kernels/09_base.cu", base_code)
        self.write("kernels/10_chapter.cu", chapter_code)

    def run_file(self, commit, base_ms, chapter_ms, cublas_ms=1.0, cold_l2=True, cublas="13.1.0"):
        m, n, k = SHAPE
        rows = [f"0,cublas,{m},{n},{k},{cublas_ms},0,0,0,0,0,ok", f"9,base,{m},{n},{k},{base_ms},0,0,0,0,0,ok",
                f"10,chapter,{m},{n},{k},{chapter_ms},0,0,0,0,0,ok"]
        self.write("results/gpu/compare.csv", HEAD + "\n".join(rows) + "\n")
        document = {"environment": {"git_commit": commit[:7], "cublas": cublas}, "settings": {"cold_l2": cold_l2}}
        self.write("results/gpu/compare.json", json.dumps(document))

    def fill(self, marker, *extra):
        path = self.root / "kernels" / "10_chapter.md"
        path.write_text(note(marker), encoding="utf-8")
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = ratio_spread.main(["--root", str(self.root), *extra, str(path)])
        return code, path.read_text(encoding="utf-8"), err.getvalue()

    def build_history(self, second_cublas="13.1.0"):
        """Run 1 with an older chapter 10 (left out), run 2 and run 3 (the working tree's) with today's; a warm-L2
        run between them (left out); chapter 09 changed since run 2 in a comment only."""
        self.kernels("int base;\n", "int chapter_old;\n")
        self.write("runner/timing.cu", "int timing;\n")
        self.write("runner/cublas_gemm.cpp", "int cublas_call;\n")
        first = self.commit("kernels")
        self.run_file(first, 0.04, 0.02)  # 10 ÷ 09 = 2
        self.commit("run 1")
        self.kernels("int base;\n", "int chapter;\n")
        second = self.commit("chapter 10 changed")
        self.run_file(second, 0.08, 0.02, cublas_ms=0.03, cublas=second_cublas)  # 10 ÷ 09 4, ÷ cuBLAS 1.5, 100 TFLOP/s
        self.commit("run 2")
        self.run_file(second, 0.9, 0.1, cold_l2=False)  # warm L2: never counted
        self.commit("a warm run")
        self.kernels("int base;  // why\n", "int chapter;\n")
        third = self.commit("a comment in 09")
        self.run_file(third, 0.12, 0.04, cublas_ms=0.02)  # 3, 0.5, 50 TFLOP/s; in the working tree only
        return second, third

    def test_ratio_over_the_runs_with_todays_chapters(self):
        second, third = self.build_history()
        marker = "<!-- ratio-spread 10 09 gpu -->"
        code, text, _ = self.fill(marker, "--check")
        self.assertEqual(code, 1)  # the stale table
        self.assertEqual(text, note(marker))  # --check writes nothing
        code, text, _ = self.fill(marker)
        self.assertEqual(code, 0)
        self.assertIn(f"Over the 2 runs of record in results/gpu/ taken with chapters 10 and 09 and the runner's "
                      f"timing as they are today, from commit {second[:7]}'s to {third[:7]}'s",
                      " ".join(text.split("\n")))
        self.assertIn("| shape | runs | 10 ÷ 09, median | lowest | highest |\n|---|---:|---:|---:|---:|\n"
                      "| 1000³ | 2 | 3.500 | 3.000 | 4.000 |\n<!-- ratio-spread:end -->\nAfter.\n", text)
        self.assertTrue(text.startswith(f"Before.\n{marker}\n"))
        self.assertNotIn("stale", text)
        path = self.root / "kernels" / "10_chapter.md"
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(ratio_spread.main(["--root", str(self.root), "--check", str(path)]), 0)

    def test_over_cublas_and_in_tflops(self):
        self.build_history()
        code, text, _ = self.fill("<!-- ratio-spread 10 00 gpu -->")
        self.assertEqual(code, 0)
        self.assertIn("chapter 10 and the runner's timing and cuBLAS call as they are today, cuBLAS 13.1.0",
                      " ".join(text.split("\n")))
        self.assertIn("| 1000³ | 2 | 1.000 | 0.500 | 1.500 |", text)
        code, text, _ = self.fill("<!-- tflops-spread 10 gpu -->")
        self.assertEqual(code, 0)
        self.assertIn("| shape | runs | 10 TFLOP/s, median | lowest | highest |", text)
        self.assertIn("| 1000³ | 2 | 75.0 | 50.0 | 100.0 |\n<!-- tflops-spread:end -->", text)

    def test_another_cublas_or_timing_leaves_a_run_out(self):
        _, third = self.build_history(second_cublas="12.9.0")
        code, text, _ = self.fill("<!-- ratio-spread 10 00 gpu -->")
        self.assertEqual(code, 0)
        self.assertIn("| 1000³ | 1 | 0.500 | 0.500 | 0.500 |", text)  # run 2 timed another cuBLAS
        self.assertIn(f"Over the one run of record in results/gpu/ taken with chapter 10 and the runner's timing and "
                      f"cuBLAS call as they are today, cuBLAS 13.1.0, commit {third[:7]}'s", " ".join(text.split("\n")))
        code, text, _ = self.fill("<!-- ratio-spread 10 09 gpu -->")
        self.assertIn("| 1000³ | 2 | 3.500 | 3.000 | 4.000 |", text)  # which a ratio of two chapters does not mind
        self.write("runner/timing.cu", "int timing_changed;\n")  # the timing changed since every run
        self.commit("timing changed")
        code, text, err = self.fill("<!-- ratio-spread 10 09 gpu -->")
        self.assertEqual(code, 2)
        self.assertIn("no run of results/gpu measured chapters 10 and 09 and the runner's timing as they are today",
                      err)

    def test_a_run_once_however_many_commits_carry_it(self):
        self.build_history()
        self.commit("run 3")
        self.write("README", "moved\n")
        self.commit("another commit; the CSV unchanged")
        code, text, _ = self.fill("<!-- ratio-spread 10 09 gpu -->")
        self.assertEqual(code, 0)
        self.assertIn("| 1000³ | 2 | 3.500 | 3.000 | 4.000 |", text)

    def test_bad_tables(self):
        self.build_history()
        for marker, message in (("<!-- ratio-spread 10 gpu -->", "a ratio table names a chapter and its base"),
                                ("<!-- tflops-spread 10 09 gpu -->", "a ratio table names a chapter and its base"),
                                ("<!-- ratio-spread 10 09 other -->", "git holds no run of results/other")):
            with self.subTest(marker):
                code, text, err = self.fill(marker)
                self.assertEqual(code, 2)
                self.assertIn(message, err)
                self.assertEqual(text, note(marker))
        (self.root / "kernels" / "10_chapter.md").write_text("<!-- ratio-spread 10 09 gpu -->\n", encoding="utf-8")
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = ratio_spread.main(["--root", str(self.root), str(self.root / "kernels" / "10_chapter.md")])
        self.assertEqual(code, 2)
        self.assertIn("has no <!-- ratio-spread:end -->", err.getvalue())

    def test_without_history(self):
        with tempfile.TemporaryDirectory() as bare:
            (Path(bare) / "kernels").mkdir()
            path = Path(bare) / "kernels" / "10_chapter.md"
            text = note("<!-- ratio-spread 10 09 gpu -->")
            path.write_text(text, encoding="utf-8")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = ratio_spread.main(["--root", bare, "--check", str(path)])
            self.assertEqual(code, ratio_spread.NO_HISTORY)
            self.assertEqual(ratio_spread.NO_HISTORY, 77)  # what tests/CMakeLists.txt counts as skipped
            self.assertIn("no full git history here", err.getvalue())
            self.assertEqual(path.read_text(encoding="utf-8"), text)


if __name__ == "__main__":
    unittest.main()
