"""Tests for scripts/marked_pages.py: a page's generated block replaced between its markers, the page otherwise as it
was."""

import contextlib
import io
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from script_errors import InputError  # noqa: E402
from marked_pages import update_marked_pages  # noqa: E402

MARKERS = ("<!-- t:begin -->", "<!-- t:end -->")
PAGE = "intro\n<!-- t:begin -->\nold\n<!-- t:end -->\noutro\n"


class UpdateMarkedPagesTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.page = Path(temp.name) / "page.md"

    def update(self, check=False):
        with contextlib.redirect_stdout(io.StringIO()):
            return update_marked_pages([self.page], lambda _: ["new"], MARKERS, "table", "source", "prog", check)

    def test_a_crlf_page_stays_crlf(self):
        self.page.write_bytes(PAGE.replace("\n", "\r\n").encode("utf-8"))
        self.assertEqual(self.update(), 0)
        self.assertEqual(self.page.read_bytes(), PAGE.replace("old", "new").replace("\n", "\r\n").encode("utf-8"))
        self.assertEqual(self.update(check=True), 0)  # what it wrote is what it would write again

    def test_check_writes_nothing(self):
        self.page.write_text(PAGE, encoding="utf-8")
        self.assertEqual(self.update(check=True), 1)
        self.assertEqual(self.page.read_text(encoding="utf-8"), PAGE)

    def test_a_page_that_is_not_utf8_is_an_input_error(self):
        self.page.write_bytes(b"\xff\xfe" + PAGE.encode("utf-8"))
        with self.assertRaisesRegex(InputError, "not UTF-8 text"):
            self.update()


if __name__ == "__main__":
    unittest.main()
