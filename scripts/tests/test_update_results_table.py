"""Tests for scripts/update_results_table.py: each test builds a scratch repository layout (a page, results.md,
results/run1/compare.csv + compare.json, kernels/) in a temporary directory and runs the script on it as a
subprocess, so what is checked is the file the script actually leaves behind."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "update_results_table.py"
FIXTURE_DIR = Path(__file__).resolve().parent / "data"
BEGIN = "<!-- kernel-table:begin -->"
END = "<!-- kernel-table:end -->"
BEFORE = "# GEMM ladder\n\nHand-written intro — with *Markdown*, ünïcode and trailing spaces.  \n\n"
AFTER = "\n## Kernels\n\nMore prose that must survive.\n"
PAGE = BEFORE + BEGIN + "\nstale table\n" + END + AFTER


def run_script(*args, marker="kernel-table"):
    """The script on `args`, with --marker `marker` unless that is None."""
    marker_args = ("--marker", marker) if marker is not None else ()
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args), *marker_args], capture_output=True,
                          text=True, timeout=120)


class UpdateResultsTableTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.root = Path(temp.name)
        self.run_dir = self.root / "results" / "run1"
        shutil.copytree(FIXTURE_DIR, self.run_dir)
        self.csv = self.run_dir / "compare.csv"
        (self.root / "kernels").mkdir()
        self.page = self.root / "results.md"
        self.page.write_text(PAGE, encoding="utf-8", newline="")

    def update(self, csv_path=None):
        return run_script(csv_path or self.csv, "--page", self.page)

    def table(self):
        """The generated table as a list of cell lists (header first, separator dropped)."""
        text = self.page.read_text(encoding="utf-8")
        block = text[text.index(BEGIN):text.index(END)]
        rows = [line for line in block.splitlines() if line.startswith("|")]
        cells = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]
        return [cells[0]] + cells[2:]

    def rows_by_id(self):
        header, *rows = self.table()
        return {row[0]: dict(zip(header, row)) for row in rows}

    def test_text_outside_the_markers_is_unchanged(self):
        result = self.update()
        self.assertEqual(result.returncode, 0, result.stderr)
        text = self.page.read_bytes().decode("utf-8")
        self.assertTrue(text.startswith(BEFORE + BEGIN + "\n"))
        self.assertTrue(text.endswith(END + AFTER))
        self.assertNotIn("stale table", text)

    def test_a_named_marker_updates_only_its_own_table(self):
        other = "<!-- kernel-table-h100:begin -->\nstale h100 table\n<!-- kernel-table-h100:end -->\n"
        self.page.write_text(PAGE + other, encoding="utf-8", newline="")
        result = run_script(self.csv, "--page", self.page, marker="kernel-table-h100")
        self.assertEqual(result.returncode, 0, result.stderr)
        text = self.page.read_text(encoding="utf-8")
        self.assertIn("stale table", text)  # the default table is left alone
        self.assertNotIn("stale h100 table", text)
        h100 = text[text.index("<!-- kernel-table-h100:begin -->"):]
        self.assertIn("| 00 | cuBLAS |", h100)

    def test_ratio_at_a_chosen_shape(self):
        result = run_script(self.csv, "--page", self.page, "--ratio-at", "1024x1024x1024")
        self.assertEqual(result.returncode, 0, result.stderr)
        header = self.table()[0]
        self.assertEqual(header[-1], "vs cuBLAS at 1024³")
        bad = run_script(self.csv, "--page", self.page, "--ratio-at", "3x3x3")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("no measurement at 3³", bad.stderr)

    def test_check_reports_a_stale_table_without_changing_it(self):
        result = run_script(self.csv, "--page", self.page, "--check")
        self.assertEqual(result.returncode, 1)  # a difference, said so, not a crash
        self.assertIn("table differs from", result.stdout)
        self.assertNotIn("Traceback", result.stderr)
        self.assertEqual(self.page.read_text(encoding="utf-8"), PAGE)
        self.assertEqual(self.update().returncode, 0)
        self.assertEqual(run_script(self.csv, "--page", self.page, "--check").returncode, 0)

    def test_header_and_rows_ordered_by_id(self):
        # Shuffle the CSV's rows so that the order has to come from the ids, not from the file.
        lines = self.csv.read_text(encoding="utf-8").splitlines(keepends=True)
        self.csv.write_text(lines[0] + "".join(reversed(lines[1:])), encoding="utf-8")
        self.assertEqual(self.update().returncode, 0)
        header, *rows = self.table()
        self.assertEqual(header, ["#", "kernel", "1024³", "2048³", "4096×14336×4096", "vs cuBLAS"])
        self.assertEqual([row[0] for row in rows], ["00", "01", "02", "03"])
        self.assertEqual(rows[0][1:], ["cuBLAS", "200", "500", "700", "1.00×"])
        self.assertEqual(rows[1][1:], ["simt_warptiling", "20", "40", "50", "0.08×"])

    def test_refused_and_wrong_cells_show_a_dash(self):
        self.assertEqual(self.update().returncode, 0)
        rows = self.rows_by_id()
        self.assertEqual(rows["02"]["1024³"], "—")  # wrong: ...
        self.assertEqual(rows["03"]["4096×14336×4096"], "—")  # refused: ...
        self.assertEqual(rows["02"]["2048³"], "250")
        self.assertEqual(rows["03"]["2048³"], "400")

    def test_vs_cublas_is_taken_at_the_largest_square_size(self):
        self.assertEqual(self.update().returncode, 0)
        ratios = {kernel: row["vs cuBLAS"] for kernel, row in self.rows_by_id().items()}
        self.assertEqual(ratios, {"00": "1.00×", "01": "0.08×", "02": "0.50×", "03": "0.80×"})

    def test_kernel_linked_only_when_its_notes_exist(self):
        (self.root / "kernels" / "02_mma_sync.md").write_text("# mma_sync\n", encoding="utf-8")
        (self.root / "kernels" / "00_cublas.md").write_text("# not a chapter\n", encoding="utf-8")
        self.assertEqual(self.update().returncode, 0)
        rows = self.rows_by_id()
        self.assertEqual(rows["02"]["kernel"], "[mma_sync](kernels/02_mma_sync.md)")
        self.assertEqual(rows["01"]["kernel"], "simt_warptiling")
        self.assertEqual(rows["03"]["kernel"], "tma_wgmma")
        self.assertEqual(rows["00"]["kernel"], "cuBLAS")

    def test_caption_line(self):
        self.assertEqual(self.update().returncode, 0)
        expected = ("\nTFLOP/s, median of 50 reps, cold L2, on NVIDIA H100 80GB HBM3 — from "
                    "[results/run1/compare.csv](results/run1/compare.csv).\n")
        self.assertIn(expected, self.page.read_text(encoding="utf-8"))

    def test_a_file_below_the_repository_links_upwards(self):
        (self.root / "kernels" / "02_mma_sync.md").write_text("# mma_sync\n", encoding="utf-8")
        docs = self.root / "docs"
        docs.mkdir()
        results = docs / "results.md"
        results.write_text(PAGE, encoding="utf-8")
        result = run_script(self.csv, "--page", results)
        self.assertEqual(result.returncode, 0, result.stderr)
        text = results.read_text(encoding="utf-8")
        self.assertIn("| 02 | [mma_sync](../kernels/02_mma_sync.md) |", text)
        self.assertIn("— from [../results/run1/compare.csv](../results/run1/compare.csv).", text)

    def set_commit(self, commit):
        json_path = self.run_dir / "compare.json"
        document = json.loads(json_path.read_text(encoding="utf-8"))
        document["environment"]["git_commit"] = commit
        json_path.write_text(json.dumps(document), encoding="utf-8")

    def declare(self, **run):
        for stem in ("01_simt_warptiling", "02_mma_sync", "03_tma_wgmma"):  # today's chapters, as verify wants
            (self.root / "kernels" / f"{stem}.cu").write_text("int x;\n", encoding="utf-8")
        (self.root / "results" / "runs.json").write_text(
            json.dumps({"runs": [{"gpu": "H100", "dir": "run1", **run}]}), encoding="utf-8")

    def test_caption_names_the_commit(self):
        self.set_commit("abcdef1")
        self.assertEqual(self.update().returncode, 0)
        self.assertIn("\nTFLOP/s, median of 50 reps, cold L2, on NVIDIA H100 80GB HBM3, commit abcdef1 — from ",
                      self.page.read_text(encoding="utf-8"))

    def test_a_declared_run_names_its_kernels_that_are_not_todays_chapters(self):
        # Kernel 03 of this run was another kernel than today's chapter 03: its row keeps its figures under the
        # declared label and never links to today's notes.
        (self.root / "kernels" / "02_mma_sync.md").write_text("# mma_sync\n", encoding="utf-8")
        (self.root / "kernels" / "03_tma_wgmma.md").write_text("# today's 03\n", encoding="utf-8")
        self.set_commit("abcdef1")
        self.declare(commit="abcdef1", current="0-2", former={"3": "old 03 (today's 09)"})
        result = self.update()
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = self.rows_by_id()
        self.assertEqual(rows["03"]["kernel"], "old 03 (today's 09)")
        self.assertEqual(rows["03"]["2048³"], "400")
        self.assertEqual(rows["02"]["kernel"], "[mma_sync](kernels/02_mma_sync.md)")
        self.assertIn("\nTFLOP/s, median of 50 reps, cold L2, on NVIDIA H100 80GB HBM3, commit abcdef1; "
                      "kernels 00-02 as they are today, 03: old 03 (today's 09) — from ",
                      self.page.read_text(encoding="utf-8"))
        self.assertEqual(run_script(self.csv, "--page", self.page, "--check").returncode, 0)

    def test_a_kernel_neither_current_nor_labelled_is_named_with_its_commit(self):
        self.set_commit("abcdef1")
        self.declare(commit="abcdef1", current="0-2")
        self.assertEqual(self.update().returncode, 0)
        self.assertEqual(self.rows_by_id()["03"]["kernel"], "03 tma_wgmma of abcdef1 (changed since)")

    def test_a_declared_run_of_another_commit_is_refused(self):
        self.set_commit("1234567")
        self.declare(commit="abcdef1", current="0-3")
        result = self.update()
        self.assertEqual(result.returncode, 2)
        self.assertIn("compare.json is of commit 1234567, but results/runs.json declares abcdef1", result.stderr)
        self.assertEqual(self.page.read_text(encoding="utf-8"), PAGE)

    def test_caption_without_compare_json(self):
        (self.run_dir / "compare.json").unlink()
        self.assertEqual(self.update().returncode, 0)
        text = self.page.read_text(encoding="utf-8")
        self.assertIn("\nTFLOP/s, median — from [results/run1/compare.csv](results/run1/compare.csv).\n", text)
        self.assertEqual(len(self.table()), 5)

    def test_caption_says_hot_l2(self):
        json_path = self.run_dir / "compare.json"
        json_path.write_text(json_path.read_text(encoding="utf-8").replace('"cold_l2": true', '"cold_l2": false'),
                             encoding="utf-8")
        self.assertEqual(self.update().returncode, 0)
        self.assertIn("median of 50 reps, hot L2, on", self.page.read_text(encoding="utf-8"))

    def test_caption_says_blocked(self):
        json_path = self.run_dir / "compare.json"
        json_path.write_text(json_path.read_text(encoding="utf-8").replace('"cold_l2": true',
                                                                           '"cold_l2": true, "order": "blocked"'),
                             encoding="utf-8")
        self.assertEqual(self.update().returncode, 0)
        self.assertIn("median of 50 reps, cold L2, each kernel timed alone (--blocked), on",
                      self.page.read_text(encoding="utf-8"))

    def test_idempotent_and_does_not_rewrite_an_unchanged_file(self):
        self.assertEqual(self.update().returncode, 0)
        first = self.page.read_bytes()
        os.utime(self.page, ns=(1_000_000_000, 1_000_000_000))
        result = self.update()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("up to date", result.stdout)
        self.assertEqual(self.page.read_bytes(), first)
        self.assertEqual(self.page.stat().st_mtime_ns, 1_000_000_000)

    def test_crlf_page_stays_crlf(self):
        self.page.write_bytes(PAGE.replace("\n", "\r\n").encode("utf-8"))
        self.assertEqual(self.update().returncode, 0)
        data = self.page.read_bytes()
        self.assertEqual(data.count(b"\n"), data.count(b"\r\n"))
        self.assertTrue(data.startswith((BEFORE + BEGIN + "\n").replace("\n", "\r\n").encode("utf-8")))
        self.assertTrue(data.endswith((END + AFTER).replace("\n", "\r\n").encode("utf-8")))

    def test_bad_markers_exit_2_and_leave_the_file_untouched(self):
        cases = {
            "no markers": BEFORE + AFTER,
            "no end marker": BEFORE + BEGIN + "\nold\n" + AFTER,
            "misordered": BEFORE + END + "\nold\n" + BEGIN + AFTER,
            "two begin markers": BEFORE + BEGIN + "\n" + BEGIN + "\nold\n" + END + AFTER,
        }
        for case, text in cases.items():
            with self.subTest(case):
                self.page.write_text(text, encoding="utf-8", newline="")
                result = self.update()
                self.assertEqual(result.returncode, 2)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertEqual(self.page.read_bytes(), text.encode("utf-8"))

    def test_bad_csv_exits_2_and_leaves_the_file_untouched(self):
        broken = self.root / "broken.csv"
        broken.write_text("kernel,name\n0,cublas\n", encoding="utf-8")
        for path in (broken, self.root / "absent.csv"):
            with self.subTest(path=path.name):
                result = self.update(path)
                self.assertEqual(result.returncode, 2)
                self.assertNotIn("Traceback", result.stderr)
                self.assertEqual(self.page.read_text(encoding="utf-8"), PAGE)

    def test_the_marker_must_be_named(self):
        # docs/results.md holds one table per GPU: a default would name a table no page has.
        result = run_script(self.csv, "--page", self.page, marker=None)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--marker", result.stderr)
        self.assertEqual(self.page.read_text(encoding="utf-8"), PAGE)

    def test_missing_page_exits_2(self):
        self.page.unlink()
        result = self.update()
        self.assertEqual(result.returncode, 2)
        self.assertFalse(self.page.exists())


if __name__ == "__main__":
    unittest.main()
