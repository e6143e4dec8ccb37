"""Tests for scripts/ratio_spread.py: a chapter's speed over its base's across the runs of record in git history."""

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
NOTE = "Before.\n<!-- ratio-spread 10 09 gpu -->\nstale\n<!-- ratio-spread:end -->\nAfter.\n"


class RatioSpreadTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.root = Path(temp.name)
        (self.root / "kernels").mkdir()
        (self.root / "results" / "gpu").mkdir(parents=True)
        self.git("init", "-q")

    def git(self, *args):
        result = subprocess.run(["git", "-C", str(self.root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                                capture_output=True, text=True, check=True)
        return result.stdout.strip()

    def commit(self, message):
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def kernels(self, base_code, chapter_code):
        (self.root / "kernels" / "09_base.cu").write_text(base_code, encoding="utf-8")
        (self.root / "kernels" / "10_chapter.cu").write_text(chapter_code, encoding="utf-8")

    def run_file(self, commit, base_ms, chapter_ms, cold_l2=True, shape=(64, 64, 64)):
        m, n, k = shape
        rows = [f"9,base,{m},{n},{k},{base_ms},0,0,0,0,0,ok", f"10,chapter,{m},{n},{k},{chapter_ms},0,0,0,0,0,ok"]
        (self.root / "results" / "gpu" / "compare.csv").write_text(HEAD + "\n".join(rows) + "\n", encoding="utf-8")
        document = {"environment": {"git_commit": commit[:7]}, "settings": {"cold_l2": cold_l2}}
        (self.root / "results" / "gpu" / "compare.json").write_text(json.dumps(document), encoding="utf-8")

    def fill(self, *extra):
        note = self.root / "kernels" / "10_chapter.md"
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = ratio_spread.main(["--root", str(self.root), *extra, str(note)])
        return code, note.read_text(encoding="utf-8"), err.getvalue()

    def build_history(self):
        """Run 1 with an older chapter 10 (left out), run 2 and run 3 (the working tree's) with today's; a warm-L2
        run between them (left out); chapter 09 changed since run 2 in a comment only."""
        self.kernels("int base;\n", "int chapter_old;\n")
        first = self.commit("kernels")
        self.run_file(first, 2.0, 1.0)  # 10 ÷ 09 = 2
        self.commit("run 1")
        self.kernels("int base;\n", "int chapter;\n")
        second = self.commit("chapter 10 changed")
        self.run_file(second, 2.0, 0.5)  # 4
        self.commit("run 2")
        self.run_file(second, 9.0, 1.0, cold_l2=False)  # warm L2: 9, never counted
        self.commit("a warm run")
        self.kernels("int base;  // why\n", "int chapter;\n")
        third = self.commit("a comment in 09")
        self.run_file(third, 3.0, 1.0)  # 3, in the working tree only
        (self.root / "kernels" / "10_chapter.md").write_text(NOTE, encoding="utf-8")
        return second, third

    def test_fills_from_the_runs_with_todays_chapters(self):
        second, third = self.build_history()
        code, text, _ = self.fill("--check")
        self.assertEqual(code, 1)  # the stale table
        self.assertEqual(text, NOTE)  # --check writes nothing
        code, text, _ = self.fill()
        self.assertEqual(code, 0)
        self.assertIn(f"Over the 2 runs of record in results/gpu/ taken with chapters 10 and 09 as they are today, "
                      f"from commit {second[:7]}'s to {third[:7]}'s", " ".join(text.split("\n")))
        self.assertIn("| shape | runs | 10 ÷ 09, median | lowest | highest |\n|---|---:|---:|---:|---:|\n"
                      "| 64³ | 2 | 3.500 | 3.000 | 4.000 |\n<!-- ratio-spread:end -->\nAfter.\n", text)
        self.assertTrue(text.startswith("Before.\n<!-- ratio-spread 10 09 gpu -->\n"))
        self.assertNotIn("stale", text)
        self.assertEqual(self.fill("--check")[0], 0)

    def test_a_run_once_however_many_commits_carry_it(self):
        second, third = self.build_history()
        self.commit("run 3")
        (self.root / "README").write_text("moved\n", encoding="utf-8")
        self.commit("another commit; the CSV unchanged")
        code, text, _ = self.fill()
        self.assertEqual(code, 0)
        self.assertIn("| 64³ | 2 | 3.500 | 3.000 | 4.000 |", text)

    def test_no_run_as_today(self):
        self.kernels("int base;\n", "int chapter_old;\n")
        first = self.commit("kernels")
        self.run_file(first, 2.0, 1.0)
        self.commit("run 1")
        self.kernels("int base;\n", "int chapter;\n")
        self.commit("chapter 10 changed")
        (self.root / "kernels" / "10_chapter.md").write_text(NOTE, encoding="utf-8")
        code, text, err = self.fill()
        self.assertEqual(code, 2)
        self.assertIn("no run of results/gpu measured chapters 10 and 09 as they are today", err)
        self.assertEqual(text, NOTE)

    def test_an_unclosed_table(self):
        self.build_history()
        (self.root / "kernels" / "10_chapter.md").write_text("<!-- ratio-spread 10 09 gpu -->\n", encoding="utf-8")
        code, _, err = self.fill()
        self.assertEqual(code, 2)
        self.assertIn("has no <!-- ratio-spread:end -->", err)

    def test_without_history(self):
        with tempfile.TemporaryDirectory() as bare:
            (Path(bare) / "kernels").mkdir()
            note = Path(bare) / "kernels" / "10_chapter.md"
            note.write_text(NOTE, encoding="utf-8")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = ratio_spread.main(["--root", bare, "--check", str(note)])
            self.assertEqual(code, 0)
            self.assertIn("no full git history here", err.getvalue())
            self.assertEqual(note.read_text(encoding="utf-8"), NOTE)


if __name__ == "__main__":
    unittest.main()
