"""Tests for scripts/l2_round_model.py: the cache model on cases small enough to follow by hand, and the reading of
the tile order from `gemm layout` (with a stand-in for the runner that prints a known drawing)."""

import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "l2_round_model.py"
spec = importlib.util.spec_from_file_location("l2_round_model", SCRIPT)
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)


class CacheModel(unittest.TestCase):
    # Two rounds of one cluster tile each, sharing their A panel (tile row 0), 4 k blocks, a cache of 3 slabs.
    ORDER = [(0, 0), (0, 1)]

    def test_upwards_every_round_misses_everything(self):
        # Round 0 reads a0k0 b0k0 ... a0k3 b0k3 (8 misses) and ends holding b0k2, a0k3, b0k3; round 1 starts at
        # k block 0 again, so each of its 8 reads misses too.
        self.assertEqual(model.dram_slabs(self.ORDER, 4, 1, 3, up_and_down=False, write_c=False), 16)

    def test_up_and_down_starts_on_what_the_round_before_read_last(self):
        # Round 1 walks down: a0k3 is still cached (a hit), everything after it misses: 8 + 7.
        self.assertEqual(model.dram_slabs(self.ORDER, 4, 1, 3, up_and_down=True, write_c=False), 15)

    def test_c_evicts_but_is_not_counted(self):
        # C's four slabs per tile, written at the end of round 0, push a0k3 out before round 1 reads it.
        self.assertEqual(model.dram_slabs(self.ORDER, 4, 1, 3, up_and_down=True, write_c=True), 16)
        # A cache that holds everything reads each operand slab once, whichever way K is walked.
        for up_and_down in (False, True):
            self.assertEqual(model.dram_slabs(self.ORDER, 4, 1, 100, up_and_down), 12)

    def test_rounds_of_several_clusters_share_slabs(self):
        # One round of two tiles in one tile row: A's slabs are read once for both, B's once each.
        self.assertEqual(model.dram_slabs(self.ORDER, 4, 2, 100, False), 4 + 8)


FAKE_GEMM = textwrap.dedent("""\
    #!/usr/bin/env python3
    import sys
    assert sys.argv[1:5] == ["layout", "tile-order", "hilbert", "--m"], sys.argv
    print("Hilbert tile order, 1024 x 768 in 256 x 256 tiles (4 x 3): the position at which tile (m, n) is computed")
    print("m\\\\n 0  1  2")
    print("  0 0  3  4")
    print("  1 1  2  5")
    print("  2 10 9  6")
    print("  3 11 8  7")
    print("  wave 0: 2 tile rows of A and 3 tile columns of B = 1280 rows of A and B to read (row by row: 1280)")
    """)


class TileOrder(unittest.TestCase):
    def test_reads_the_drawing_as_positions(self):
        with tempfile.TemporaryDirectory() as tmp:
            gemm = Path(tmp) / "gemm"
            gemm.write_text(FAKE_GEMM)
            os.chmod(gemm, 0o755)
            order = model.hilbert_order(str(gemm), 1024, 768, 5)
        self.assertEqual(order, [(0, 0), (1, 0), (1, 1), (0, 1), (0, 2), (1, 2), (2, 2), (3, 2), (3, 1), (2, 1),
                                 (2, 0), (3, 0)])

    def test_a_drawing_of_the_wrong_size_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            gemm = Path(tmp) / "gemm"
            gemm.write_text(FAKE_GEMM)
            os.chmod(gemm, 0o755)
            with self.assertRaises(SystemExit) as exit_:
                model.hilbert_order(str(gemm), 2048, 768, 5)
        self.assertEqual(exit_.exception.code, 2)


class BadInput(unittest.TestCase):
    """Bad arguments end with one line and exit 2, before the runner is asked for anything."""

    def run_script(self, *arguments):
        return subprocess.run([sys.executable, str(SCRIPT), "--gemm", "/nonexistent/gemm", *arguments],
                              capture_output=True, text=True)

    def test_bad_arguments_exit_2(self):
        for arguments, message in [
            (["--l2-mib", "abc", "8x8x8"], "--l2-mib: expected sizes in MiB"),
            (["--l2-mib", "50,nan", "8x8x8"], "got 'nan'"),
            (["--l2-mib", "inf", "8x8x8"], "got 'inf'"),
            (["--l2-mib", "0.01", "8x8x8"], "at least 0.03125 (one slab)"),
            (["2048x2048x0"], "expected MxNxK with M, N, K >= 1"),
            (["--clusters", "0", "8x8x8"], "--clusters: expected a whole number >= 1"),
        ]:
            with self.subTest(arguments=arguments):
                result = self.run_script(*arguments)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(message, result.stderr)
                self.assertNotIn("Traceback", result.stderr)

    def test_cache_sizes_are_read_as_mib(self):
        self.assertEqual(model.parse_cache_sizes("25,40.5"), [25.0, 40.5])


if __name__ == "__main__":
    unittest.main()
