"""Tests for scripts/plot_progression.py on the checked-in fixture (tests/data/compare.csv).

The script is run as a subprocess for its command-line contract (files written, exit codes) and imported
for what a PNG cannot show cheaply (which shape was chosen, which points each line holds).
"""

import importlib.util
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1]
SCRIPT = SCRIPTS / "plot_progression.py"
FIXTURE_DIR = Path(__file__).resolve().parent / "data"
FIXTURE = FIXTURE_DIR / "compare.csv"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
HEADER = FIXTURE.read_text(encoding="utf-8").splitlines()[0]


def load_script():
    """Imports plot_progression.py from its path; its sibling compare_csv.py must be importable too."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location("plot_progression", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_script(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=120)


class PlotProgressionCommandTest(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.addCleanup(self.temp.cleanup)
        self.out = Path(self.temp.name) / "plots"

    def assertValidPng(self, path):
        self.assertTrue(path.is_file(), f"{path} not written")
        data = path.read_bytes()
        self.assertEqual(data[:8], PNG_SIGNATURE, f"{path} is not a PNG")
        self.assertGreater(len(data), 10_000, f"{path} is suspiciously small")

    def test_writes_both_pngs_into_out(self):
        result = run_script(FIXTURE, "--out", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        for name in ("progression.png", "scaling.png"):
            self.assertValidPng(self.out / name)
            self.assertIn(str(self.out / name), result.stdout)

    def test_default_out_is_the_csv_directory(self):
        run_dir = Path(self.temp.name) / "run"
        shutil.copytree(FIXTURE_DIR, run_dir)
        result = run_script(run_dir / "compare.csv")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertValidPng(run_dir / "progression.png")
        self.assertValidPng(run_dir / "scaling.png")

    def test_shape_option_selects_a_present_shape(self):
        for shape in ("1024x1024x1024", "4096x14336x4096"):
            with self.subTest(shape=shape):
                result = run_script(FIXTURE, "--out", self.out, "--shape", shape)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertValidPng(self.out / "progression.png")

    def test_absent_shape_exits_2_with_one_line_and_writes_nothing(self):
        result = run_script(FIXTURE, "--out", self.out, "--shape", "512x512x512")
        self.assertEqual(result.returncode, 2)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn("512x512x512", result.stderr)
        self.assertFalse((self.out / "progression.png").exists())

    def test_malformed_shape_exits_2(self):
        result = run_script(FIXTURE, "--out", self.out, "--shape", "1024x1024")
        self.assertEqual(result.returncode, 2)
        self.assertIn("expected MxNxK", result.stderr)

    def test_bad_input_exits_2(self):
        directory = Path(self.temp.name)
        (directory / "no_columns.csv").write_text("kernel,name,tflops\n0,cublas,1.0\n", encoding="utf-8")
        (directory / "no_rows.csv").write_text(HEADER + "\n", encoding="utf-8")
        (directory / "empty.csv").write_text("", encoding="utf-8")
        cases = {"missing file": directory / "absent.csv", "missing columns": directory / "no_columns.csv",
                 "no rows": directory / "no_rows.csv", "empty file": directory / "empty.csv"}
        for case, path in cases.items():
            with self.subTest(case):
                result = run_script(path, "--out", self.out)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertNotIn("Traceback", result.stderr)
                self.assertFalse((self.out / "progression.png").exists())


class PlotProgressionFigureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plot = load_script()
        cls.compare_csv = sys.modules["compare_csv"]
        cls.frame = cls.compare_csv.load_compare_csv(FIXTURE)

    def figure_texts(self, figure):
        return [text.get_text() for text in figure.axes[0].texts]

    def test_default_shape_is_the_largest_square_one(self):
        # 4096x14336x4096 is the largest problem, but the default is the largest *square* one.
        shape = self.plot.choose_shape(self.frame, None)
        self.assertEqual((shape.m, shape.n, shape.k), (2048, 2048, 2048))
        shape = self.plot.choose_shape(self.frame, "4096x14336x4096")
        self.assertEqual((shape.m, shape.n, shape.k), (4096, 14336, 4096))

    def test_bars_labelled_with_tflops_and_percent_of_cublas(self):
        shape = self.plot.choose_shape(self.frame, None)
        figure = self.plot.build_progression_figure(self.frame, shape, "Test GPU")
        axes = figure.axes[0]
        self.assertEqual(len(axes.patches), 4)  # every kernel has a number at 2048³
        self.assertEqual(self.figure_texts(figure), ["500\n100%", "40\n8%", "250\n50%", "400\n80%"])
        self.assertEqual([label.get_text() for label in axes.get_xticklabels()],
                         ["00 cublas", "01 simt_warptiling", "02 mma_sync", "03 tma_wgmma"])
        cublas_bar, kernel_bar = axes.patches[0], axes.patches[1]
        self.assertNotEqual(cublas_bar.get_facecolor(), kernel_bar.get_facecolor())
        reference = [line for line in axes.get_lines() if line.get_linestyle() == "--"]
        self.assertEqual(len(reference), 1)
        self.assertEqual(list(reference[0].get_ydata()), [500.0, 500.0])
        self.assertIn("2048×2048×2048", axes.get_title())
        self.assertIn("Test GPU", axes.get_title())

    def test_refused_and_wrong_kernels_are_labelled_gaps(self):
        wrong = self.plot.build_progression_figure(self.frame, self.compare_csv.Shape(1024, 1024, 1024), None)
        self.assertEqual(len(wrong.axes[0].patches), 3)
        self.assertIn("wrong", self.figure_texts(wrong))
        self.assertEqual(len(wrong.axes[0].get_xticklabels()), 4)  # the slot stays
        refused = self.plot.build_progression_figure(self.frame, self.compare_csv.Shape(4096, 14336, 4096), None)
        self.assertEqual(len(refused.axes[0].patches), 3)
        self.assertIn("refused", self.figure_texts(refused))

    def test_scaling_uses_only_square_shapes(self):
        figure = self.plot.build_scaling_figure(self.frame, None)
        lines = figure.axes[0].get_lines()
        self.assertEqual([line.get_label() for line in lines],
                         ["cuBLAS", "01 simt_warptiling", "02 mma_sync", "03 tma_wgmma"])
        for line in lines:
            self.assertEqual(list(line.get_xdata()), [1024, 2048], line.get_label())
        self.assertEqual(list(lines[0].get_ydata()), [200.0, 500.0])
        self.assertEqual(lines[0].get_linestyle(), "--")
        self.assertEqual(lines[1].get_linestyle(), "-")
        mma_sync = list(lines[2].get_ydata())  # wrong at 1024³: a gap, not a zero
        self.assertNotEqual(mma_sync[0], mma_sync[0])
        self.assertEqual(mma_sync[1], 250.0)
        axes = figure.axes[0]
        self.assertEqual(axes.get_xscale(), "log")
        self.assertEqual([label.get_text() for label in axes.get_xticklabels()], ["1024", "2048"])

    def test_gpu_name_comes_from_compare_json_beside_the_csv(self):
        with tempfile.TemporaryDirectory() as temp:
            bare = Path(temp) / "compare.csv"
            shutil.copy(FIXTURE, bare)  # no compare.json beside it
            self.assertIsNone(self.compare_csv.gpu_name(self.compare_csv.load_compare_json(bare)))
        self.assertEqual(self.compare_csv.gpu_name(self.compare_csv.load_compare_json(FIXTURE)),
                         "NVIDIA H100 80GB HBM3")


if __name__ == "__main__":
    unittest.main()
