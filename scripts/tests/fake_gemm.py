"""The fixture of the tests of the scripts that run the gemm command over the notes (update_note_layouts.py,
check_note_commands.py): a temporary repository with kernels/, a stand-in gemm command (the subclass's FAKE_GEMM,
a small Python script) and the subclass's SCRIPT run against both."""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path


class FakeGemmRepoTest(unittest.TestCase):
    SCRIPT: Path
    FAKE_GEMM: str

    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.root = Path(temp.name)
        self.gemm = self.root / "fake_gemm"
        self.gemm.write_text(self.FAKE_GEMM, encoding="utf-8")
        self.gemm.chmod(0o755)
        (self.root / "kernels").mkdir()

    def run_script(self, *args):
        return subprocess.run([sys.executable, str(self.SCRIPT), "--root", str(self.root), "--gemm", str(self.gemm),
                               *args], capture_output=True, text=True, timeout=120)
