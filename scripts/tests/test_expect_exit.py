"""Tests for tests/expect_exit.py, which judges the command-line and GPU tests: the exit code, stderr of exactly
one line for an error, the regexes, the files left behind, and exit 77 (no usable GPU) passed on as a skip
only where another code was expected. Each case runs a one-line Python command in its place."""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "tests" / "expect_exit.py"


def command(code, stdout="", stderr=""):
    """A command that prints `stdout` and `stderr` as given and exits with `code`."""
    program = f"import sys; sys.stdout.write({stdout!r}); sys.stderr.write({stderr!r}); sys.exit({code})"
    return [sys.executable, "-c", program]


def expect(*options, run):
    result = subprocess.run([sys.executable, str(SCRIPT), *options, "--", *run], capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


class ExpectExitTest(unittest.TestCase):
    def test_the_expected_code_passes(self):
        self.assertEqual(expect("--code", "0", run=command(0, "ok\n"))[0], 0)
        self.assertEqual(expect("--code", "2", run=command(2, stderr="gemm: bad shape\n"))[0], 0)

    def test_another_code_fails(self):
        code, _, err = expect("--code", "2", run=command(1, stderr="gemm: bad shape\n"))
        self.assertEqual(code, 1)
        self.assertIn("exit code 1, expected 2", err)

    def test_an_error_must_be_one_line(self):
        for stderr in ("", "gemm: first line\nsecond line\n", "\n"):
            with self.subTest(stderr=stderr):
                code, _, err = expect("--code", "2", run=command(2, stderr=stderr))
                self.assertEqual(code, 1)
                self.assertIn("stderr should be exactly one line", err)

    def test_no_gpu_is_a_skip_only_where_another_code_was_expected(self):
        code, out, _ = expect("--code", "0", run=command(77, stderr="gemm: no usable CUDA GPU\n"))
        self.assertEqual(code, 77)
        self.assertIn("skipped", out)
        self.assertEqual(expect("--code", "77", run=command(77, stderr="gemm: no usable CUDA GPU\n"))[0], 0)
        code, _, err = expect("--code", "77", run=command(2, stderr="gemm: bad shape\n"))
        self.assertEqual(code, 1)
        self.assertIn("expected 77", err)

    def test_regexes(self):
        run = command(2, "partial output\n", "gemm: --shapes: 0x8x8 has a zero extent\n")
        self.assertEqual(expect("--code", "2", "--stderr", "zero extent", "--stdout", "^partial", run=run)[0], 0)
        code, _, err = expect("--code", "2", "--stderr", "negative", run=run)
        self.assertEqual(code, 1)
        self.assertIn("stderr does not match", err)
        code, _, err = expect("--code", "2", "--stdout", "^complete", run=run)
        self.assertEqual(code, 1)
        self.assertIn("stdout does not match", err)

    def test_files_left_behind(self):
        with tempfile.TemporaryDirectory() as folder:
            written = Path(folder) / "written.csv"
            writes = [sys.executable, "-c", f"open({str(written)!r}, 'w').write('x')"]
            self.assertEqual(expect("--code", "0", "--exists", str(written), run=writes)[0], 0)
            code, _, err = expect("--code", "0", "--absent", str(written), run=writes)
            self.assertEqual(code, 1)
            self.assertIn("exists", err)
            code, _, err = expect("--code", "0", "--exists", str(written), run=command(0))
            self.assertEqual(code, 1)
            self.assertIn("is missing", err)


if __name__ == "__main__":
    unittest.main()
