"""Tests for scripts/update_note_layouts.py, with a stand-in for the gemm command (a small script that prints
its arguments and writes them as the SVG), so that the marker handling, --check and the figures are tested
without a build. The real notes against the real command are checked by the CTest scripts_note_layouts."""

import textwrap
import unittest
from pathlib import Path

from . import fake_gemm

SCRIPT = Path(__file__).resolve().parents[1] / "update_note_layouts.py"

FAKE_GEMM = textwrap.dedent("""\
    #!/usr/bin/env python3
    import sys
    args = sys.argv[1:]
    assert args[0] == "layout"
    args = args[1:]
    if "--svg" in args:
        at = args.index("--svg")
        svg = args[at + 1]
        args = args[:at] + args[at + 2:]
        open(svg, "w").write("<svg>" + " ".join(args) + "</svg>\\n")
    if args[0] == "broken":
        print("gemm: error: unknown layout 'broken'", file=sys.stderr)
        sys.exit(2)
    print("grid of " + " ".join(args))
    print("  second line")
    """)

NOTE = textwrap.dedent("""\
    # A note

    Prose before.

    <!-- layout: mma-m16n8k16 A -->
    stale grid
    <!-- /layout -->

    Prose between.

    <!-- layout: swizzle-128b tma --base 512 -->
    <!-- /layout -->
    The end.
    """)

EXPECTED = textwrap.dedent("""\
    # A note

    Prose before.

    <!-- layout: mma-m16n8k16 A -->
    ```text
    grid of mma-m16n8k16 A
      second line
    ```
    Drawn as SVG: [figures/mma-m16n8k16-A.svg](figures/mma-m16n8k16-A.svg)
    <!-- /layout -->

    Prose between.

    <!-- layout: swizzle-128b tma --base 512 -->
    ```text
    grid of swizzle-128b tma --base 512
      second line
    ```
    Drawn as SVG: [figures/swizzle-128b-tma-base-512.svg](figures/swizzle-128b-tma-base-512.svg)
    <!-- /layout -->
    The end.
    """)


class UpdateNoteLayoutsTest(fake_gemm.FakeGemmRepoTest):
    SCRIPT = SCRIPT
    FAKE_GEMM = FAKE_GEMM

    def setUp(self):
        super().setUp()
        self.note = self.root / "kernels" / "02_note.md"
        self.note.write_text(NOTE, encoding="utf-8")
        self.figures = self.root / "kernels" / "figures"

    def test_regenerates_blocks_and_writes_figures(self):
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.note.read_text(encoding="utf-8"), EXPECTED)
        self.assertEqual((self.figures / "mma-m16n8k16-A.svg").read_text(), "<svg>mma-m16n8k16 A</svg>\n")
        self.assertEqual((self.figures / "swizzle-128b-tma-base-512.svg").read_text(),
                         "<svg>swizzle-128b tma --base 512</svg>\n")

    def test_check_passes_when_current_and_is_idempotent(self):
        self.assertEqual(self.run_script().returncode, 0)
        before = self.note.read_bytes()
        result = self.run_script("--check")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("up to date", result.stdout)
        self.assertEqual(self.run_script().returncode, 0)
        self.assertEqual(self.note.read_bytes(), before)

    def test_check_reports_a_stale_note_and_changes_nothing(self):
        result = self.run_script("--check")
        self.assertEqual(result.returncode, 1)
        self.assertIn("02_note.md: its layout drawings differ", result.stdout)
        self.assertEqual(self.note.read_text(encoding="utf-8"), NOTE)
        self.assertFalse(self.figures.exists())

    def test_check_reports_a_changed_figure_and_a_figure_no_note_uses(self):
        self.assertEqual(self.run_script().returncode, 0)
        (self.figures / "mma-m16n8k16-A.svg").write_text("<svg>edited by hand</svg>\n")
        (self.figures / "orphan.svg").write_text("<svg/>\n")
        result = self.run_script("--check")
        self.assertEqual(result.returncode, 1)
        self.assertIn("mma-m16n8k16-A.svg: missing or differs", result.stdout)
        self.assertIn("orphan.svg: no note uses it", result.stdout)
        self.assertEqual(self.run_script().returncode, 0)  # repairs both
        self.assertFalse((self.figures / "orphan.svg").exists())
        self.assertEqual(self.run_script("--check").returncode, 0)

    def test_crlf_note_stays_crlf(self):
        self.note.write_bytes(NOTE.replace("\n", "\r\n").encode("utf-8"))
        self.assertEqual(self.run_script().returncode, 0)
        self.assertEqual(self.note.read_bytes(), EXPECTED.replace("\n", "\r\n").encode("utf-8"))

    def test_bad_markers_and_failing_layouts_exit_2_and_write_nothing(self):
        cases = {
            "no end": "<!-- layout: mma-m16n8k16 A -->\nold\n",
            "end first": "<!-- /layout -->\n<!-- layout: mma-m16n8k16 A -->\n<!-- /layout -->\n",
            "nested": "<!-- layout: a -->\n<!-- layout: b -->\n<!-- /layout -->\n",
            "no name": "<!-- layout:  -->\n<!-- /layout -->\n",
            "gemm fails": "<!-- layout: broken -->\n<!-- /layout -->\n",
        }
        for case, text in cases.items():
            with self.subTest(case):
                self.note.write_text(text, encoding="utf-8")
                result = self.run_script()
                self.assertEqual(result.returncode, 2, result.stdout)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertEqual(self.note.read_text(encoding="utf-8"), text)
                self.assertFalse(self.figures.exists())


if __name__ == "__main__":
    unittest.main()
