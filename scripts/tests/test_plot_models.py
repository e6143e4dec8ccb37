"""Tests for scripts/plot_models.py on small CSVs written into a temporary directory.

The script is run as a subprocess for its command-line contract: the PNG written, exit codes and messages.
"""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from . import compare_rows
from .compare_rows import HEADER

SCRIPTS = Path(__file__).resolve().parents[1]
SCRIPT = SCRIPTS / "plot_models.py"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# The layers (N, K) of llama3-8b and llama3-70b, as runner/shapes.cpp's model_presets() lists them.
LAYERS = ((6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336),
          (10240, 8192), (8192, 8192), (57344, 8192), (8192, 28672))
TOKENS = (128, 1024)
KERNELS = {0: ("cublas", 1.0), 8: ("tma_store", 0.6), 16: ("dispatch", 0.95)}


def csv_row(kernel, name, m, n, k, ratio, status="ok"):
    """One compare.csv row with a time and TFLOP/s consistent with `ratio` to cuBLAS (1 ms)."""
    return compare_rows.csv_row(kernel, name, m, n, k, 1.0 / ratio, status, vs_cublas=ratio)


def write_csv(path, kernels=KERNELS, status_of=lambda kernel, m, n, k: "ok"):
    """Every preset layer at TOKENS for `kernels`, plus a 1024³ row per kernel (not a layer: left out)."""
    lines = [HEADER]
    for kernel, (name, ratio) in kernels.items():
        for n, k in LAYERS:
            for m in TOKENS:
                lines.append(csv_row(kernel, name, m, n, k, ratio, status_of(kernel, m, n, k)))
        lines.append(csv_row(kernel, name, 1024, 1024, 1024, ratio))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_script(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=120)


class PlotModelsCommandTest(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.addCleanup(self.temp.cleanup)
        self.dir = Path(self.temp.name)
        self.png = self.dir / "ratio_vs_tokens.png"

    def assertValidPng(self, path):
        self.assertTrue(path.is_file(), f"{path} not written")
        data = path.read_bytes()
        self.assertEqual(data[:8], PNG_SIGNATURE, f"{path} is not a PNG")
        self.assertGreater(len(data), 10_000, f"{path} is suspiciously small")

    def test_writes_png_beside_the_csv(self):
        result = run_script(write_csv(self.dir / "compare.csv"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertValidPng(self.png)
        self.assertIn(f"wrote {self.png}", result.stdout)

    def test_missing_kernel_exits_2_naming_it(self):
        without_16 = {kernel: value for kernel, value in KERNELS.items() if kernel != 16}
        result = run_script(write_csv(self.dir / "compare.csv", kernels=without_16))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn("kernel 16", result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        self.assertFalse(self.png.exists())

    def test_row_not_ok_is_skipped(self):
        wrong = lambda kernel, m, n, k: "wrong" if (kernel, m, n, k) == (16, 128, 6144, 4096) else "ok"
        result = run_script(write_csv(self.dir / "compare.csv", status_of=wrong))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertValidPng(self.png)


if __name__ == "__main__":
    unittest.main()
