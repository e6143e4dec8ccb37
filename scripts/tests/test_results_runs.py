"""Tests for scripts/results_runs.py: the declaration of what each results run measured (results/runs.json)."""

import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import results_runs  # noqa: E402
from script_errors import InputError  # noqa: E402


class ResultsRunsTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.root = Path(temp.name)
        (self.root / "results").mkdir()

    def declare(self, document):
        (self.root / "results" / "runs.json").write_text(json.dumps(document), encoding="utf-8")

    def test_ids(self):
        self.assertEqual(results_runs.parse_ids("0-3, 7,9-10"), frozenset({0, 1, 2, 3, 7, 9, 10}))
        self.assertEqual(results_runs.format_ids({0, 1, 2, 3, 7, 9, 10}), "00-03, 07, 09-10")
        self.assertEqual(results_runs.format_ids({8}), "08")
        for bad in ("", "a", "3-1", "1,,2", "-1"):
            with self.subTest(bad):
                with self.assertRaises(InputError):
                    results_runs.parse_ids(bad)

    def test_load(self):
        self.assertEqual(results_runs.load(self.root), [])  # no declaration: no runs
        self.declare({"runs": [{"gpu": "H100", "dir": "nvidia-h100", "commit": "4fa6af9", "current": "0-8",
                                "former": {"9": "old 09 (today's 13 and 14, dispatched)"}}]})
        (run,) = results_runs.load(self.root)
        self.assertEqual(run.csv, (self.root / "results" / "nvidia-h100" / "compare.csv").resolve())
        self.assertTrue(run.is_current(0) and run.is_current(8))
        self.assertFalse(run.is_current(9))
        self.assertEqual(run.label(9, "hilbert"), "old 09 (today's 13 and 14, dispatched)")
        self.assertEqual(run.label(10, "x"), "10 x of 4fa6af9 (changed since)")
        self.assertEqual(results_runs.for_csv(self.root, self.root / "results" / "nvidia-h100" / "compare.csv"), run)
        self.assertIsNone(results_runs.for_csv(self.root, self.root / "results" / "other" / "compare.csv"))

    def test_bad_declarations(self):
        cases = {
            "no runs": {},
            "missing commit": {"runs": [{"gpu": "A", "dir": "a", "current": "0"}]},
            "bad ids": {"runs": [{"gpu": "A", "dir": "a", "commit": "1234567", "current": "zero"}]},
            "current and former": {"runs": [{"gpu": "A", "dir": "a", "commit": "1234567", "current": "0-9",
                                             "former": {"9": "x"}}]},
        }
        for case, document in cases.items():
            with self.subTest(case):
                self.declare(document)
                with self.assertRaises(InputError):
                    results_runs.load(self.root)

    def test_same_commit(self):
        self.assertTrue(results_runs.same_commit("4fa6af9", "4fa6af9d3e"))
        self.assertFalse(results_runs.same_commit("4fa6af9", "4fa6af8"))
        self.assertFalse(results_runs.same_commit("4fa", "4fa6af9"))  # too short to name a commit

    def test_require_commit(self):
        run = self.root / "results" / "run"
        run.mkdir()
        csv_path = run / "compare.csv"
        for environment, taken in (({"git_commit": " 4fa6af9d3e\n"}, True), ({"git_commit": "4fa6af8"}, False),
                                   ({"git_commit": ""}, False), ({"git_commit": 7}, False), ({}, False), (None, False)):
            with self.subTest(environment=environment):
                (run / "compare.json").write_text(json.dumps({"environment": environment}), encoding="utf-8")
                if taken:
                    results_runs.require_commit(csv_path, "4fa6af9", "declared")
                else:
                    with self.assertRaisesRegex(InputError, "but declared$"):
                        results_runs.require_commit(csv_path, "4fa6af9", "declared")

    def test_moved_functions(self):
        """A function moved from a header into a kernel file leaves the comparison with a run before the move, and
        with a run after it (the header has no such function there any more) the file is compared as it is."""
        import subprocess

        def git(*args):
            subprocess.run(["git", "-C", str(self.root), *args], check=True, capture_output=True)

        def commit(message):
            git("add", "-A")
            git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message)
            return subprocess.run(["git", "-C", str(self.root), "rev-parse", "HEAD"], check=True,
                                  capture_output=True, text=True).stdout.strip()

        git("init", "-q")
        header, kernel = self.root / "wrappers.h", self.root / "kernel.cu"
        helper = "__device__ inline int helper(int x) {\n  return x + 1;\n}\n"
        header.write_text("#pragma once\n" + helper, encoding="utf-8")
        kernel.write_text("#include \"wrappers.h\"\nint main() { return helper(1); }\n", encoding="utf-8")
        before = commit("helper in the header")
        header.write_text("#pragma once\n", encoding="utf-8")
        kernel.write_text("#include \"wrappers.h\"\n" + helper + "int main() { return helper(1); }  // moved\n",
                          encoding="utf-8")
        after = commit("helper moved into the kernel")
        moved = [{"function": "helper", "from": "wrappers.h", "into": "kernel.cu"}]
        self.assertFalse(results_runs.code_changed_since(self.root, before, kernel, {}, moved))
        self.assertTrue(results_runs.code_changed_since(self.root, before, kernel, {}, []))  # undeclared: a change
        self.assertFalse(results_runs.code_changed_since(self.root, after, kernel, {}, moved))
        kernel.write_text("#include \"wrappers.h\"\n" + helper + "int main() { return helper(2); }\n",
                          encoding="utf-8")
        self.assertTrue(results_runs.code_changed_since(self.root, after, kernel, {}, moved))
        self.assertTrue(results_runs.code_changed_since(self.root, before, kernel, {}, moved))

    def test_the_repositorys_declaration_reads(self):
        root = Path(__file__).resolve().parents[2]
        runs = results_runs.load(root)
        self.assertTrue(runs)
        for run in runs:
            self.assertTrue(run.csv.is_file(), run.csv)


if __name__ == "__main__":
    unittest.main()
