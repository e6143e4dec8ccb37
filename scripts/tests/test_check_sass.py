"""Tests for tests/sass/check_sass.py: the SASS checks disassemble a binary once per architecture
(--disassemble) and each check reads that file (--sass-file). A stand-in cuobjdump (a Python script) prints
canned cuobjdump output for a stand-in "binary" (a JSON file of texts per architecture) and logs each call, so
the tests see how often the binary is disassembled and what a check makes of stale or foreign files."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "tests" / "sass" / "check_sass.py"

# cuobjdump's layout: a "Fatbin elf code" section per architecture, functions under "Function : NAME" (-sass)
# or "Function NAME:" (-res-usage).
SASS = """
Fatbin elf code:
================
arch = {arch}
code version = [1,8]
host = linux
compile_size = 64bit

\tcode for {arch}
\t\tFunction : _Z11good_kernelPf
\t.headerflags\t@"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24 ;
        /*0020*/                   EXIT ;
\t\t..........

\t\tFunction : _Z12spill_kernelPf
\t.headerflags\t@"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   STL [R1], R2 ;
        /*0010*/                   EXIT ;
\t\t..........
"""
USAGE = """
Fatbin elf code:
================
arch = {arch}
code version = [1,8]
host = linux
compile_size = 64bit
Resource usage:
 Common:
  GLOBAL:0
 Function _Z11good_kernelPf:
  REG:168 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _Z12spill_kernelPf:
  REG:255 STACK:8 SHARED:0 LOCAL:8 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0
"""

FAKE_CUOBJDUMP = textwrap.dedent("""\
    import json, os, sys
    with open(os.environ["FAKE_CUOBJDUMP_LOG"], "a") as log:
        log.write(" ".join(sys.argv[1:]) + "\\n")
    what, *rest = sys.argv[1:]
    arch = rest[1] if rest[0] == "-arch" else None
    if os.environ.get("FAKE_CUOBJDUMP_FAIL"):
        sys.exit("cuobjdump fatal   : broken")
    code = json.load(open(rest[-1]))
    for name in sorted(code):
        if arch in (None, name):
            sys.stdout.write(code[name]["sass" if what == "-sass" else "usage"])
    """)


class CheckSassTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.root = Path(temp.name)
        self.log = self.root / "cuobjdump.log"
        self.cuobjdump = self.root / "cuobjdump"
        self.cuobjdump.write_text(f"#!{sys.executable}\n" + FAKE_CUOBJDUMP)
        self.cuobjdump.chmod(0o755)
        self.binary = self.root / "gemm"
        self.write_binary(["sm_90a", "sm_100a"])
        self.sass_file = self.root / "out" / "gemm.sm_90a.sass"

    def write_binary(self, archs, instruction="HGMMA.64x128x16.F32.BF16"):
        code = {arch: {"sass": SASS.format(arch=arch).replace("HGMMA.64x128x16.F32.BF16", instruction),
                       "usage": USAGE.format(arch=arch)} for arch in archs}
        self.binary.write_text(json.dumps(code))

    def run_script(self, *args, fail=False):
        env = dict(os.environ, FAKE_CUOBJDUMP_LOG=str(self.log))
        if fail:
            env["FAKE_CUOBJDUMP_FAIL"] = "1"
        return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                              env=env, timeout=60)

    def disassemble(self, arch="sm_90a", sass_file=None, **kwargs):
        return self.run_script("--disassemble", "--cuobjdump", self.cuobjdump, "--binary", self.binary,
                               "--arch", arch, "--sass-file", sass_file or self.sass_file, **kwargs)

    def check(self, function="good_kernel", *extra, arch="sm_90a", sass_file=None):
        return self.run_script("--sass-file", sass_file or self.sass_file, "--binary", self.binary,
                               "--function", function, "--arch", arch, *extra)

    def calls(self):
        return self.log.read_text().splitlines() if self.log.exists() else []

    def test_one_disassembly_serves_every_check(self):
        result = self.disassemble()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("sm_90a: 2 functions", result.stdout)
        self.assertEqual(self.calls(), [f"-sass -arch sm_90a {self.binary}", f"-res-usage -arch sm_90a {self.binary}"])
        for _ in range(3):
            result = self.check("good_kernel", "--require", r"HGMMA\.64x128x16\.F32\.BF16", "--require", "LDC")
            self.assertEqual(result.returncode, 0, result.stdout)
            self.assertIn("sm_90a _Z11good_kernelPf: 6 SASS lines; REG:168 STACK:0 SHARED:0 LOCAL:0", result.stdout)
        self.assertEqual(len(self.calls()), 2, "a check with --sass-file ran cuobjdump")

    def test_the_file_holds_only_its_architecture(self):
        self.disassemble()
        text = self.sass_file.read_text()
        self.assertTrue(text.startswith(f"# check_sass.py: cuobjdump of {self.binary} for sm_90a, sha256 "))
        self.assertIn("arch = sm_90a", text)
        self.assertNotIn("sm_100a", text)

    def test_a_missing_instruction_fails(self):
        self.disassemble()
        result = self.check("good_kernel", "--require", r"HGMMA\.64x256x16")
        self.assertEqual(result.returncode, 1)
        self.assertIn(r"FAIL: _Z11good_kernelPf: no instruction matches /HGMMA\.64x256x16/", result.stdout)

    def test_local_memory_fails(self):
        self.disassemble()
        result = self.check("spill_kernel")
        self.assertEqual(result.returncode, 1)
        self.assertIn("forbidden /\\b(LDL|STL)\\b/ found: STL", result.stdout)
        self.assertIn("uses 8 bytes of local memory", result.stdout)

    def test_an_absent_function_fails(self):
        self.disassemble()
        result = self.check("no_such_kernel")
        self.assertEqual(result.returncode, 1)
        self.assertIn("no function containing 'no_such_kernel' in the sm_90a code", result.stdout)

    def test_a_stale_disassembly_is_refused(self):
        self.assertEqual(self.disassemble().returncode, 0)
        self.write_binary(["sm_90a", "sm_100a"], instruction="HGMMA.64x256x16.F32.BF16")  # "rebuilt"
        result = self.check("good_kernel", "--require", r"HGMMA\.64x128x16")
        self.assertEqual(result.returncode, 1)
        self.assertIn("is stale", result.stdout)
        self.assertIn("sass_disassemble_sm_90a", result.stdout)
        self.assertEqual(self.disassemble().returncode, 0)
        self.assertEqual(self.check("good_kernel", "--require", r"HGMMA\.64x256x16").returncode, 0)

    def test_another_architectures_file_is_refused(self):
        other = self.root / "out" / "gemm.sm_100a.sass"
        self.assertEqual(self.disassemble("sm_100a", sass_file=other).returncode, 0)
        result = self.check(sass_file=other)
        self.assertEqual(result.returncode, 1)
        self.assertIn("holds sm_100a code, not sm_90a", result.stdout)

    def test_a_missing_or_foreign_file_is_refused(self):
        result = self.check()
        self.assertEqual(result.returncode, 1)
        self.assertIn("no disassembly", result.stdout)
        self.assertIn("sass_disassemble_sm_90a", result.stdout)
        self.sass_file.parent.mkdir()
        self.sass_file.write_text(SASS.format(arch="sm_90a"))  # cuobjdump's text, without the stamp
        result = self.check()
        self.assertEqual(result.returncode, 1)
        self.assertIn("is not a disassembly written by check_sass.py --disassemble", result.stdout)

    def test_a_missing_binary_fails_without_a_traceback(self):
        self.assertEqual(self.disassemble().returncode, 0)
        self.binary.unlink()
        for result in (self.check(), self.disassemble()):
            self.assertEqual(result.returncode, 1)
            self.assertIn("FAIL: ", result.stdout)
            self.assertNotIn("Traceback", result.stderr)

    def test_no_code_for_the_architecture_fails_the_disassembly(self):
        self.write_binary(["sm_90a"])
        result = self.disassemble("sm_100a")
        self.assertEqual(result.returncode, 1)
        self.assertIn("has no sm_100a code", result.stdout)
        self.assertFalse(self.sass_file.exists())

    def test_a_failing_cuobjdump_keeps_the_old_file(self):
        self.assertEqual(self.disassemble().returncode, 0)
        before = self.sass_file.read_text()
        result = self.disassemble(fail=True)
        self.assertEqual(result.returncode, 1)
        self.assertIn("cuobjdump fatal   : broken", result.stdout)
        self.assertEqual(self.sass_file.read_text(), before)
        self.assertEqual(sorted(os.listdir(self.sass_file.parent)), ["gemm.sm_90a.sass"])  # no temporary left

    def test_skip_says_why_and_exits_77(self):
        result = self.run_script("--arch", "sm_100a", "--function", "tcgen05_kernel",
                                 "--skip", "the build has no sm_100a code")
        self.assertEqual(result.returncode, 77)
        self.assertEqual(result.stdout, "SKIP: tcgen05_kernel sm_100a SASS is not checked: the build has no sm_100a code\n")
        self.assertEqual(self.calls(), [])

    def test_without_a_file_a_check_disassembles_by_itself(self):
        result = self.run_script("--cuobjdump", self.cuobjdump, "--binary", self.binary, "--function", "good_kernel",
                                 "--arch", "sm_100a", "--require", "HGMMA")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertIn("sm_100a _Z11good_kernelPf", result.stdout)


if __name__ == "__main__":
    unittest.main()
