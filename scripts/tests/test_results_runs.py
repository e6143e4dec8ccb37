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
        self.assertFalse(results_runs.code_changed_since(self.root, before, header, {}, moved))  # moved out of it
        self.assertTrue(results_runs.code_changed_since(self.root, before, header, {}, []))
        kernel.write_text("#include \"wrappers.h\"\n" + helper + "int main() { return helper(2); }\n",
                          encoding="utf-8")
        self.assertTrue(results_runs.code_changed_since(self.root, after, kernel, {}, moved))
        self.assertTrue(results_runs.code_changed_since(self.root, before, kernel, {}, moved))

    def test_included_and_launched_files(self):
        """A chapter's run stops being current when a header it includes, or the file of a chapter it launches, changes
        in code; a declared equivalence holds it current until that file changes again."""
        import subprocess

        def git(*args):
            return subprocess.run(["git", "-C", str(self.root), *args], check=True, capture_output=True,
                                  text=True).stdout.strip()

        def commit(message):
            git("add", "-A")
            git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message)
            return git("rev-parse", "HEAD")

        git("init", "-q")
        (self.root / "kernels").mkdir()
        (self.root / "common").mkdir()
        header = self.root / "common" / "choice.h"
        header.write_text("#pragma once\nconstexpr double kMargin = 1.05;  // how far ahead\n", encoding="utf-8")
        (self.root / "kernels" / "14_pingpong.cu").write_text("int pingpong() { return 14; }\n", encoding="utf-8")
        launched = self.root / "kernels" / "15_few_tiles.cu"
        launched.write_text("int few_tiles() { return 15; }\n", encoding="utf-8")
        (self.root / "kernels" / "16_dispatch.cu").write_text(
            "#include \"common/choice.h\"\nint dispatch(double a) { return a > kMargin ? 14 : 15; }\n",
            encoding="utf-8")
        run_commit = commit("the run's kernels")
        declaration = {"runs": [{"gpu": "H100", "dir": "gpu", "commit": run_commit, "current": "16"}],
                       "built_from": {"16": "14,15"}}
        self.declare(declaration)
        (run,) = results_runs.load(self.root)
        document = {"environment": {"git_commit": run_commit}}
        kernels = [(14, "pingpong"), (15, "few_tiles"), (16, "dispatch")]
        files = results_runs.chapter_files(self.root, 16, results_runs.load_built_from(self.root))
        self.assertEqual([path.relative_to(self.root.resolve()).as_posix() for path in files],
                         ["kernels/16_dispatch.cu", "kernels/14_pingpong.cu", "kernels/15_few_tiles.cu",
                          "common/choice.h"])
        results_runs.verify(run, self.root, document, kernels)
        header.write_text("#pragma once\nconstexpr double kMargin = 1.05;  // how far ahead of the other\n",
                          encoding="utf-8")
        results_runs.verify(run, self.root, document, kernels)  # a comment: no change
        header.write_text("#pragma once\nconstexpr double kMargin = 1.03;\n", encoding="utf-8")
        with self.assertRaisesRegex(InputError, r"^common/choice\.h changed since commit .* chapter 16 runs its code"):
            results_runs.verify(run, self.root, document, kernels)
        as_of = commit("a narrower margin")
        declaration["equivalent"] = [{"file": "common/choice.h", "runs": f"1234567, {run_commit[:7]}", "chapters": "16",
                                      "as_of": as_of[:7], "why": "no shape of the run is within 5 % of the margin"}]
        self.declare(declaration)
        results_runs.verify(run, self.root, document, kernels)
        header.write_text("#pragma once\nconstexpr double kMargin = 1.02;\n", encoding="utf-8")
        with self.assertRaisesRegex(InputError, r"^common/choice\.h changed since commit .*the version .* stands for"):
            results_runs.verify(run, self.root, document, kernels)
        header.write_text("#pragma once\nconstexpr double kMargin = 1.03;\n", encoding="utf-8")
        launched.write_text("int few_tiles() { return 16; }\n", encoding="utf-8")  # a chapter 16 launches
        with self.assertRaisesRegex(InputError, r"^kernels/15_few_tiles\.cu changed since commit"):
            results_runs.verify(run, self.root, document, kernels)
        launched.write_text("int few_tiles() { return 15; }\n", encoding="utf-8")
        results_runs.verify(run, self.root, document, kernels)
        # The chapter's own file, changed in code, retires the run unless an equivalence is declared for it too.
        own = self.root / "kernels" / "16_dispatch.cu"
        own.write_text("#include \"common/choice.h\"\nint dispatch(double a) { return a >= kMargin ? 14 : 15; }\n",
                       encoding="utf-8")
        with self.assertRaisesRegex(InputError, r"^kernels/16_dispatch\.cu changed since commit .* own file"):
            results_runs.verify(run, self.root, document, kernels)
        own_as_of = commit("the margin itself taken")
        declaration["equivalent"].append({"file": "kernels/16_dispatch.cu", "runs": run_commit[:7], "chapters": "16",
                                          "as_of": own_as_of[:7], "why": "no shape of the run lies on the margin"})
        self.declare(declaration)
        results_runs.verify(run, self.root, document, kernels)
        own.write_text("#include \"common/choice.h\"\nint dispatch(double a) { return a > kMargin ? 15 : 14; }\n",
                       encoding="utf-8")
        with self.assertRaisesRegex(InputError, r"^kernels/16_dispatch\.cu changed since commit .*the version .* "
                                                r"stands for"):
            results_runs.verify(run, self.root, document, kernels)

    def test_bad_built_from_and_equivalent(self):
        built_from, equivalent = results_runs.load_built_from, results_runs.load_equivalent
        entry = {"file": "a.h", "runs": "1234567, 1234569", "chapters": "16", "as_of": "1234568", "why": "x"}
        for case, (loader, document) in {
                "built_from not ids": (built_from, {"runs": [], "built_from": {"16": "x"}}),
                "built_from a list": (built_from, {"runs": [], "built_from": ["16"]}),
                "equivalent without why": (equivalent, {"runs": [], "equivalent": [{**entry, "why": ""}]}),
                "equivalent bad chapters": (equivalent, {"runs": [], "equivalent": [{**entry, "chapters": "all"}]}),
        }.items():
            with self.subTest(case):
                self.declare(document)
                with self.assertRaises(InputError):
                    loader(self.root)
        self.declare({"runs": [], "built_from": {"16": "14,15"}, "equivalent": [entry]})
        self.assertEqual(built_from(self.root), {16: frozenset({14, 15})})
        self.assertEqual(equivalent(self.root)[0].chapters, frozenset({16}))
        self.assertEqual(equivalent(self.root)[0].runs, ("1234567", "1234569"))

    def test_the_repositorys_declaration_reads(self):
        root = Path(__file__).resolve().parents[2]
        runs = results_runs.load(root)
        self.assertTrue(runs)
        for run in runs:
            self.assertTrue(run.csv.is_file(), run.csv)


if __name__ == "__main__":
    unittest.main()
