"""Tests for tests/sass/check_ptxas_log.py, the oracle of every sass_*_wgmma_not_serialized test: it must fail on
the two notes ptxas writes when it serializes wgmma or injects a wait, as nvcc 13.0 words them, pass a log
without them, and fail when the log is missing. The two notes below were printed by nvcc 13.0
(`-gencode arch=compute_90a,code=sm_90a`) for a small kernel written to provoke them: a loop of wgmmas whose
accumulator ordinary code scales on odd iterations, with a `wgmma.wait_group 0` on one iteration only, gave both."""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "tests" / "sass" / "check_ptxas_log.py"

INJECTED = ("ptxas info    : (C7517) warpgroup.wait is injected in around line 165 by compiler to allow use of "
            "registers defined by GMMA in function '_Z1kPfmmi'")
SERIALIZED = ("ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized due "
              "to insufficient register resources for the wgmma pipeline in the function '_Z1kPfmmi'")
# What a clean compile may print: nothing (the build's logs are empty), or with -Xptxas -v ptxas's other notes, here
# nvcc 13.0's for a one-line kernel.
CLEAN = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z1tPf' for 'sm_90a'
ptxas info    : Function properties for _Z1tPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
"""


class CheckPtxasLogTest(unittest.TestCase):
    def run_on(self, text):
        with tempfile.TemporaryDirectory() as folder:
            log = Path(folder) / "kernel.cu.o.log"
            if text is not None:
                log.write_text(text, encoding="utf-8")
            result = subprocess.run([sys.executable, str(SCRIPT), str(log)], capture_output=True, text=True)
        return result.returncode, result.stdout

    def test_a_clean_log_passes(self):
        for text in ("", CLEAN):
            code, out = self.run_on(text)
            self.assertEqual(code, 0, out)
            self.assertIn("serialized no wgmma", out)

    def test_an_injected_wait_fails(self):
        code, out = self.run_on(CLEAN + INJECTED + "\n")
        self.assertEqual(code, 1)
        self.assertIn("FAIL: " + INJECTED.strip(), out)

    def test_serialized_wgmma_fails(self):
        code, out = self.run_on(SERIALIZED + "\n")
        self.assertEqual(code, 1)
        self.assertIn("(C7511)", out)

    def test_each_note_is_reported(self):
        code, out = self.run_on(INJECTED + "\n" + INJECTED.replace("165", "198") + "\n" + SERIALIZED + "\n")
        self.assertEqual(code, 1)
        self.assertEqual(out.count("FAIL: "), 3)

    def test_a_missing_log_fails(self):
        code, out = self.run_on(None)
        self.assertEqual(code, 1)
        self.assertIn("FAIL: no compiler log", out)

    def test_usage(self):
        result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
        self.assertEqual(result.returncode, 2)


if __name__ == "__main__":
    unittest.main()
