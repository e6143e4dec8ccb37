"""Tests for scripts/install_deps.sh: it checks capabilities, not package names. Each test puts stub
commands first on PATH (apt-get and sudo that only record that they were called and fail, as on a GPU
machine without network; an old cmake; a pip that cannot reach its index) and runs the script."""

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "install_deps.sh"


class InstallDepsTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.stubs = Path(temp.name) / "bin"
        self.stubs.mkdir()
        self.calls = Path(temp.name) / "calls.log"
        # apt-get and sudo exist but fail, recording the call: a machine without network.
        for name in ("apt-get", "sudo"):
            self.stub(name, f'echo "{name} $*" >> "{self.calls}"; exit 1')

    def stub(self, name, body):
        path = self.stubs / name
        path.write_text("#!/usr/bin/env bash\n" + body + "\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)

    def run_script(self, *args):
        environment = dict(os.environ, PATH=f"{self.stubs}{os.pathsep}{os.environ['PATH']}")
        return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=environment,
                              timeout=600)

    def calls_made(self):
        return self.calls.read_text() if self.calls.exists() else ""

    @unittest.skipUnless(shutil.which("cmake") and shutil.which("ninja") and shutil.which("nvcc") or
                         os.path.exists("/usr/local/cuda/bin/nvcc"), "needs cmake, ninja and nvcc")
    def test_everything_present_never_calls_apt_get(self):
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("install_deps: ready", result.stdout)
        self.assertEqual(self.calls_made(), "", "apt-get or sudo was called although nothing was missing")

    def test_an_old_cmake_that_pip_cannot_replace_fails_with_one_line(self):
        self.stub("cmake", 'echo "cmake version 3.22.1"')  # Ubuntu 22.04's
        real_python = sys.executable
        self.stub("python3", f'if [ "$1" = -m ] && [ "$2" = pip ]; then exit 1; fi; exec "{real_python}" "$@"')
        result = self.run_script()
        self.assertEqual(result.returncode, 1)
        lines = result.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn("cmake ≥ 3.24 is needed (found 3.22.1)", lines[0])

    def test_refuses_an_unknown_option(self):
        result = self.run_script("--everything")
        self.assertEqual(result.returncode, 2)
        self.assertIn("usage: scripts/install_deps.sh [--tests]", result.stderr)


if __name__ == "__main__":
    unittest.main()
