"""Tests for scripts/update_targets_table.py on a small repository written into a temporary directory.

Each test writes results/runs.json, a models run (compare.csv and compare.json) whose ratios are set by hand, and a
page with the marker lines; the expected cells are worked out here from those ratios, not by the script's code.
"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from .compare_rows import HEADER, csv_row, table_row_cells

SCRIPTS = Path(__file__).resolve().parents[1]
SCRIPT = SCRIPTS / "update_targets_table.py"

# The layers (N, K) of llama3-8b and llama3-70b, as runner/shapes.cpp's model_presets() lists them.
LAYERS = ((6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336),
          (10240, 8192), (8192, 8192), (57344, 8192), (8192, 28672))
PAGE = "# notes\n\nbefore\n\n<!-- targets-table:begin -->\nstale\n<!-- targets-table:end -->\n\nafter\n"


class TargetsTableTest(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.addCleanup(self.temp.cleanup)
        self.root = Path(self.temp.name)
        self.page = self.root / "notes.md"
        self.page.write_text(PAGE, encoding="utf-8")

    def write_run(self, ratio_of, commit="abc1234", kernels=(0, 16), current="0-16", former=None,
                  tokens=(128, 256, 512, 1024, 2048, 4096, 8192)):
        """A models run where kernel 16's time is cuBLAS's (1 ms) over ratio_of(m, n, k)."""
        models = self.root / "results" / "gpu-a" / "models"
        models.mkdir(parents=True, exist_ok=True)
        shapes = [(m, n, k) for m in tokens for n, k in LAYERS] + [(1024, 1024, 1024), (2048, 2048, 2048)]
        lines = [HEADER]
        for m, n, k in shapes:
            if 0 in kernels:
                lines.append(csv_row(0, "cublas", m, n, k, 1.0))
            if 16 in kernels:
                lines.append(csv_row(16, "dispatch", m, n, k, 1.0 / ratio_of(m, n, k)))
        (models / "compare.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (models / "compare.json").write_text(json.dumps({"environment": {"git_commit": commit}}), encoding="utf-8")
        run = {"gpu": "GPU-A", "dir": "gpu-a", "commit": "abc1234", "current": current}
        if former:
            run["former"] = former
        (self.root / "results" / "runs.json").write_text(json.dumps({"runs": [run]}), encoding="utf-8")

    def run_script(self, *args):
        return subprocess.run([sys.executable, str(SCRIPT), "--root", str(self.root), *map(str, args)],
                              capture_output=True, text=True, timeout=120)

    def table_row(self):
        return table_row_cells(self.page.read_text(encoding="utf-8"), "| GPU-A")

    def test_cells_from_the_ratios(self):
        # 48 shapes with M >= 256: 46 at 1.0, one at 0.64 (512 x 4096 x 4096) and one at 0.9 (256 x 6144 x 4096):
        # geometric mean (0.64 * 0.9) ** (1 / 48) = 0.9886, 46 of 48 at 0.95 or above; at M = 128, 0.7 to 1.05.
        special = {(512, 4096, 4096): 0.64, (256, 6144, 4096): 0.9, (128, 57344, 8192): 0.7,
                   (128, 4096, 4096): 1.05, (1024, 1024, 1024): 0.8, (2048, 2048, 2048): 0.93}
        self.write_run(lambda m, n, k: special.get((m, n, k), 1.0))
        result = self.run_script(self.page)
        self.assertEqual(result.returncode, 0, result.stderr)
        cells = self.table_row()
        self.assertIn("16 dispatch of abc1234 (today's)", cells[0])
        self.assertIn("[models run](results/gpu-a/models/compare.csv)", cells[0])
        self.assertEqual(cells[1:], ["0.989", "46 of 48", "0.64 (512 × 4096 × 4096)", "0.70-1.05", "0.80", "0.93"])
        text = self.page.read_text(encoding="utf-8")
        self.assertNotIn("stale", text)
        self.assertTrue(text.startswith("# notes\n\nbefore\n") and text.endswith("\n\nafter\n"))
        self.assertIn("| target | ≥ 1.00 | all | ≥ 0.95 |", text)

    def test_check_fails_until_updated_then_passes(self):
        self.write_run(lambda m, n, k: 1.0)
        self.assertEqual(self.run_script("--check", self.page).returncode, 1)
        self.assertIn("stale", self.page.read_text(encoding="utf-8"))  # --check changes nothing
        self.assertEqual(self.run_script(self.page).returncode, 0)
        self.assertEqual(self.run_script("--check", self.page).returncode, 0)
        # A new run that moves one shape makes the table stale again.
        self.write_run(lambda m, n, k: 0.5 if (m, n, k) == (256, 4096, 4096) else 1.0)
        self.assertEqual(self.run_script("--check", self.page).returncode, 1)

    def test_a_former_kernel_is_named_by_its_label(self):
        self.write_run(lambda m, n, k: 1.0, current="0-15", former={"16": "16 dispatch of abc1234 (old plan)"})
        self.assertEqual(self.run_script(self.page).returncode, 0)
        self.assertIn("16 dispatch of abc1234 (old plan)", self.table_row()[0])
        self.assertNotIn("today's", self.table_row()[0])

    def test_run_of_another_commit_is_refused(self):
        self.write_run(lambda m, n, k: 1.0, commit="def5678")
        result = self.run_script(self.page)
        self.assertEqual(result.returncode, 2)
        self.assertIn("def5678", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn("stale", self.page.read_text(encoding="utf-8"))

    def test_missing_dispatch_kernel_or_markers_exit_2(self):
        self.write_run(lambda m, n, k: 1.0, kernels=(0,))
        result = self.run_script(self.page)
        self.assertEqual(result.returncode, 2)
        self.assertIn("kernel 16", result.stderr)
        self.write_run(lambda m, n, k: 1.0)
        self.page.write_text("# no markers\n", encoding="utf-8")
        result = self.run_script(self.page)
        self.assertEqual(result.returncode, 2)
        self.assertIn("targets-table:begin", result.stderr)
        self.assertNotIn("Traceback", result.stderr)

    def test_a_shape_without_a_time_exit_2(self):
        self.write_run(lambda m, n, k: 1.0, tokens=(256, 512, 1024, 2048, 4096, 8192))  # no M = 128 rows
        result = self.run_script(self.page)
        self.assertEqual(result.returncode, 2)
        self.assertIn("kernel 0 has no valid time at 128 × 6144 × 4096 (not run)", result.stderr)
        # A target's shape missing is an error too, not a mean over fewer shapes.
        self.write_run(lambda m, n, k: 1.0, tokens=(128, 256, 512, 1024, 2048, 8192))
        result = self.run_script(self.page)
        self.assertEqual(result.returncode, 2)
        self.assertIn("kernel 0 has no valid time at 4096 × 6144 × 4096 (not run)", result.stderr)


if __name__ == "__main__":
    unittest.main()
