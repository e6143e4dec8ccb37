"""Tests for scripts/update_layers_table.py on a small repository written into a temporary directory.

Each test writes a declaration, a run (compare.csv and compare.json) whose ratios are set by hand, and a page with the
marker lines; the expected cells are worked out here from those ratios, not by the script's code.
"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from .compare_rows import HEADER, csv_row, table_row_cells

SCRIPTS = Path(__file__).resolve().parents[1]
SCRIPT = SCRIPTS / "update_layers_table.py"
PAGE = "# notes\n\nbefore\n\n<!-- layers-table:begin -->\nstale\n<!-- layers-table:end -->\n\nafter\n"

# Kernel 16's ratio to cuBLAS by shape. Under 512 tokens: 0.81 and 0.64, geometric mean sqrt(0.5184) = 0.72; from 512:
# 1.0 and 0.9604, sqrt(0.9604) = 0.98; all four: sqrt(0.72 * 0.98) = sqrt(0.7056) = 0.84. Under 0.95: two.
LAYERS = {(128, 1024, 1024): 0.81, (256, 1024, 1024): 0.64, (512, 2048, 1024): 1.0, (1024, 2048, 1024): 0.9604}
CONTROL = (2048, 2048, 2048)  # measured beside the layers, left out by the declaration


class LayersTableTest(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.addCleanup(self.temp.cleanup)
        self.root = Path(self.temp.name)
        self.folder = self.root / "results" / "gpu-a" / "dispatch"
        self.page = self.root / "docs" / "notes.md"
        self.page.parent.mkdir(parents=True)
        self.page.write_text(PAGE, encoding="utf-8")

    def write_run(self, ratios, commit="abc1234", status=None):
        """A run where kernel 16's time is cuBLAS's (1 ms) over the shape's ratio; status overrides kernel 16's."""
        run = self.folder / "layers_a" / "abc1234"
        run.mkdir(parents=True, exist_ok=True)
        lines = [HEADER]
        for (m, n, k), value in ratios.items():
            lines.append(csv_row(0, "cublas", m, n, k, 1.0))
            lines.append(csv_row(16, "dispatch", m, n, k, 1.0 / value, (status or {}).get((m, n, k), "ok")))
        (run / "compare.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (run / "compare.json").write_text(json.dumps({"environment": {"git_commit": commit}}), encoding="utf-8")

    def write_declaration(self, leave_out=("2048x2048x2048",)):
        group = {"run": "layers_a/abc1234", "commit": "abc1234", "layers": "Model A", "leave_out": list(leave_out)}
        (self.folder / "layers.json").write_text(json.dumps({"gpu": "GPU-A", "kernel": 16, "groups": [group]}),
                                                 encoding="utf-8")

    def run_script(self, *args):
        return subprocess.run([sys.executable, str(SCRIPT), "--root", str(self.root), "--declaration",
                               str(self.folder / "layers.json"), *map(str, args)],
                              capture_output=True, text=True, timeout=120)

    def table_row(self):
        return table_row_cells(self.page.read_text(encoding="utf-8"), "| [Model A]")

    def test_cells_from_the_ratios(self):
        self.write_run({**LAYERS, CONTROL: 0.1})
        self.write_declaration()
        result = self.run_script(self.page)
        self.assertEqual(result.returncode, 0, result.stderr)
        cells = self.table_row()
        self.assertEqual(cells[0], "[Model A](../results/gpu-a/dispatch/layers_a/abc1234/compare.csv)")
        # The control (0.1) is left out: it would be the lowest and pull every mean down.
        self.assertEqual(cells[1:], ["128-1024", "4", "0.840", "0.720", "0.980", "2", "0.64 (256 × 1024 × 1024)",
                                     "1.00 (512 × 2048 × 1024)"])
        text = self.page.read_text(encoding="utf-8")
        self.assertNotIn("stale", text)
        self.assertIn("runs of commit abc1234", text)
        self.assertIn("[layers.json](../results/gpu-a/dispatch/layers.json)", text)
        self.assertTrue(text.startswith("# notes\n\nbefore\n") and text.endswith("\n\nafter\n"))

    def test_check_fails_on_a_stale_table_and_passes_once_updated(self):
        self.write_run({**LAYERS, CONTROL: 0.1})
        self.write_declaration()
        result = self.run_script("--check", self.page)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("differs", result.stdout)
        self.assertIn("stale", self.page.read_text(encoding="utf-8"))  # --check changes nothing
        self.assertEqual(self.run_script(self.page).returncode, 0)
        result = self.run_script("--check", self.page)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        # A figure of the table edited by hand is caught.
        self.page.write_text(self.page.read_text(encoding="utf-8").replace("| 0.840 |", "| 0.850 |"),
                             encoding="utf-8")
        self.assertEqual(self.run_script("--check", self.page).returncode, 1)

    def test_a_run_of_another_commit_is_an_error(self):
        self.write_run({**LAYERS, CONTROL: 0.1}, commit="fff0000")
        self.write_declaration()
        result = self.run_script(self.page)
        self.assertEqual(result.returncode, 2)
        self.assertIn("taken with commit fff0000", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1)
        self.assertIn("stale", self.page.read_text(encoding="utf-8"))

    def test_a_shape_without_a_valid_time_is_an_error(self):
        self.write_run({**LAYERS, CONTROL: 0.1}, status={(256, 1024, 1024): "wrong: 3 elements"})
        self.write_declaration()
        result = self.run_script(self.page)
        self.assertEqual(result.returncode, 2)
        self.assertIn("kernel 16 has no valid time at 256 × 1024 × 1024 (wrong)", result.stderr)

    def test_a_control_the_run_lacks_is_an_error(self):
        self.write_run(LAYERS)
        self.write_declaration()
        result = self.run_script(self.page)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no cuBLAS row at 2048³", result.stderr)

    def test_a_control_not_left_out_counts(self):
        # Without the declaration leaving it out, the control is one of the shapes: five, the lowest 0.10.
        self.write_run({**LAYERS, CONTROL: 0.1})
        self.write_declaration(leave_out=())
        self.assertEqual(self.run_script(self.page).returncode, 0)
        cells = self.table_row()
        self.assertEqual(cells[2], "5")
        self.assertEqual(cells[7], "0.10 (2048³)")


if __name__ == "__main__":
    unittest.main()
