"""Tests for scripts/check_note_commands.py, with a stand-in for the gemm command (a small script that prints its
arguments), so that finding the transcripts, --fix and the exit codes are tested without a build. The real notes
against the real command are checked by the CTest scripts_note_commands."""

import textwrap
import unittest
from pathlib import Path

from . import fake_gemm

SCRIPT = Path(__file__).resolve().parents[1] / "check_note_commands.py"

FAKE_GEMM = textwrap.dedent("""\
    #!/usr/bin/env python3
    import sys
    if "--shapes" in sys.argv and sys.argv[sys.argv.index("--shapes") + 1] == "0x0x0":
        print("gemm: error: bad shape", file=sys.stderr)
        sys.exit(2)
    print("explained: " + " ".join(sys.argv[1:]))
    print("  second line")
    """)

CURRENT = textwrap.dedent("""\
    # A note

    ```
    $ gemm explain --clusters 66 --shapes 1x2x3
    explained: explain --clusters 66 --shapes 1x2x3
      second line
    ```

    ```cpp
    int untouched;
    ```
    """)


class CheckNoteCommandsTest(fake_gemm.FakeGemmRepoTest):
    SCRIPT = SCRIPT
    FAKE_GEMM = FAKE_GEMM

    def setUp(self):
        super().setUp()
        self.note = self.root / "kernels" / "16_note.md"

    def test_a_current_transcript_passes(self):
        self.note.write_text(CURRENT, encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_a_stale_line_fails_and_fix_rewrites_only_the_transcript(self):
        self.note.write_text(CURRENT.replace("  second line", "  an old line"), encoding="utf-8")
        result = self.run_script()
        self.assertEqual(result.returncode, 1)
        self.assertIn("16_note.md:4", result.stdout)
        self.assertEqual(self.run_script("--fix").returncode, 0)
        self.assertEqual(self.note.read_text(encoding="utf-8"), CURRENT)

    def test_a_missing_line_fails(self):
        self.note.write_text(CURRENT.replace("  second line\n", ""), encoding="utf-8")
        self.assertEqual(self.run_script().returncode, 1)

    def test_commands_that_need_a_gpu_and_failing_commands_are_bad_input(self):
        for command in ("$ gemm explain --shapes 1x2x3", "$ gemm run 3", "$ gemm explain --clusters 66 --shapes 0x0x0"):
            self.note.write_text(CURRENT.replace("$ gemm explain --clusters 66 --shapes 1x2x3", command),
                                 encoding="utf-8")
            result = self.run_script("--fix")
            self.assertEqual(result.returncode, 2, command)
            self.assertIn("16_note.md:4", result.stderr)


if __name__ == "__main__":
    unittest.main()
