"""Tests for scripts/update_profile_table.py on raw Nsight Compute CSVs written into a temporary directory.

The files imitate `ncu --import REPORT --csv --page raw --print-units base --print-kernel-base demangled`: a row of
column names, a row of units, one row of values (quoted, with thousands separators), among many other columns. The
expected cells are worked out here by hand from the values written.
"""

import csv
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1]
SCRIPT = SCRIPTS / "update_profile_table.py"
sys.path.insert(0, str(SCRIPTS))
from update_profile_table import short_name  # noqa: E402

PAGE = "# 16\n\n<!-- profile-table:begin -->\nstale\n<!-- profile-table:end -->\n\nWhy.\n"
TENSOR = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"


def write_profile(folder, name, kernel, duration_ns, tensor_pct, l2_read, l2_far, coalesced, dram, grid=128,
                  block=384, cluster=(2, 1, 1), drop=None):
    columns = {"ID": ("", "0"), "Kernel Name": ("", kernel), "Block Size": ("", f"({block}, 1, 1)"),
               "gpu__time_duration.sum": ("ns", f"{duration_ns:,}"), TENSOR: ("%", f"{tensor_pct}"),
               "lts__t_sectors_srcunit_tex_op_read.sum": ("sector", f"{l2_read:,}"),
               "lts__t_sectors_srcunit_ltcfabric.sum": ("sector", f"{l2_far:,}"),
               "lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum": ("sector", f"{coalesced:,}"),
               "dram__bytes_read.sum": ("byte", f"{dram:,}"), "launch__grid_size": ("", f"{grid}"),
               "launch__block_size": ("", f"{block}"), "launch__cluster_dim_x": ("", f"{cluster[0]}"),
               "launch__cluster_dim_y": ("", f"{cluster[1]}"), "launch__cluster_dim_z": ("", f"{cluster[2]}"),
               "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": ("%", "99")}
    columns.pop(drop, None)
    with open(folder / name, "w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file, quoting=csv.QUOTE_ALL)
        writer.writerow(columns)
        writer.writerow(unit for unit, _ in columns.values())
        writer.writerow(value for _, value in columns.values())


class ProfileTableTest(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.addCleanup(self.temp.cleanup)
        self.root = Path(self.temp.name)
        self.folder = self.root / "profiles"
        self.folder.mkdir()
        self.page = self.root / "notes.md"
        self.page.write_text(PAGE, encoding="utf-8")

    def write_pair(self, shape, ours="void unnamed>::few_tiles_kernel<unnamed>::Tiling<64, 128, 2, 1, 0>>(int)"):
        write_profile(self.folder, f"{shape}_0.csv", "nvjet_sm90_tst_64x128_64x8_2x1_v_bz_TNN", 6976, 32.29,
                      668200, 147856, 381872, 4213248)
        write_profile(self.folder, f"{shape}_16.csv", ours, 10048, 21.91, 736077, 220657, 363680, 4239360,
                      block=256)

    def run_script(self, *args):
        return subprocess.run([sys.executable, str(SCRIPT), "--root", str(self.root), "--profiles", str(self.folder),
                               str(self.page), *args], capture_output=True, text=True, timeout=120)

    def rows(self):
        return [line for line in self.page.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]

    def test_cells_from_the_raw_values(self):
        self.write_pair("1024x1024x1024")
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stderr)
        head, cublas, ours = self.rows()
        self.assertIn("| shape | kernel |", head)
        # 6976 ns -> 7.0 µs; 32.29 % of the elapsed time (not the 99 % of the active cycles); sectors and bytes in
        # millions: 668,200 -> 0.67, 147,856 -> 0.15, 381,872 -> 0.38, 4,213,248 B -> 4.2 MB.
        self.assertEqual(cublas, "| 1024³ | cuBLAS: `nvjet_sm90_tst_64x128_64x8_2x1_v_bz_TNN` | 128 × 384, 2 | 7.0 | 32 % "
                                 "| 0.67 | 0.15 | 0.38 | 4.2 |")
        self.assertEqual(ours, "|  | 16: `few_tiles_kernel<Tiling<64, 128, 2, 1, 0>>` | 128 × 256, 2 | 10.0 | 22 % "
                               "| 0.74 | 0.22 | 0.36 | 4.2 |")
        text = self.page.read_text(encoding="utf-8")
        self.assertNotIn("stale", text)
        self.assertTrue(text.endswith("<!-- profile-table:end -->\n\nWhy.\n"))

    def test_shapes_smallest_m_first_cublas_first(self):
        self.write_pair("2048x2048x2048")
        self.write_pair("512x4096x4096")
        self.write_pair("256x6144x4096")
        self.assertEqual(self.run_script().returncode, 0)
        shapes = [row.split("|")[1].strip() for row in self.rows()[1:]]
        self.assertEqual(shapes, ["256 × 6144 × 4096", "", "512 × 4096 × 4096", "", "2048³", ""])
        owners = [row.split("|")[2].strip().split(":")[0] for row in self.rows()[1:]]
        self.assertEqual(owners, ["cuBLAS", "16"] * 3)

    def test_check_fails_until_updated_then_passes(self):
        self.write_pair("1024x1024x1024")
        self.assertEqual(self.run_script("--check").returncode, 1)
        self.assertIn("stale", self.page.read_text(encoding="utf-8"))
        self.assertEqual(self.run_script().returncode, 0)
        self.assertEqual(self.run_script("--check").returncode, 0)

    def test_a_shape_without_cublas_exit_2(self):
        self.write_pair("1024x1024x1024")
        (self.folder / "1024x1024x1024_0.csv").unlink()
        result = self.run_script()
        self.assertEqual(result.returncode, 2)
        self.assertIn("1024³ needs cuBLAS's profile and one other (has 16)", result.stderr)
        self.assertNotIn("Traceback", result.stderr)

    def test_a_missing_metric_exit_2(self):
        self.write_pair("1024x1024x1024")
        write_profile(self.folder, "1024x1024x1024_16.csv", "k", 1, 1.0, 1, 1, 1, 1,
                      drop="lts__t_sectors_srcunit_ltcfabric.sum")
        result = self.run_script()
        self.assertEqual(result.returncode, 2)
        self.assertIn("no column lts__t_sectors_srcunit_ltcfabric.sum", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)

    def test_no_profiles_or_bad_names_exit_2(self):
        result = self.run_script()
        self.assertEqual(result.returncode, 2)
        self.assertIn("no profiles", result.stderr)
        write_profile(self.folder, "1024x1024_16.csv", "k", 1, 1.0, 1, 1, 1, 1)
        result = self.run_script()
        self.assertEqual(result.returncode, 2)
        self.assertIn("MxNxK_ID.csv", result.stderr)

    def test_short_names(self):
        self.assertEqual(short_name("void unnamed>::few_tiles_kernel<unnamed>::Tiling<128, 256, 2, 1, 0>>"
                                    "(CUtensorMap_st, CUtensorMap_st, GemmProblem, const unsigned int *)"),
                         "few_tiles_kernel<Tiling<128, 256, 2, 1, 0>>")
        self.assertEqual(short_name("void <unnamed>::pingpong_kernel<<unnamed>::Tile<176>, false>(int)"),
                         "pingpong_kernel<Tile<176>, false>")
        self.assertEqual(short_name("void gemm::(anonymous namespace)::pingpong_kernel<184, true>(CUtensorMap_st)"),
                         "pingpong_kernel<184, true>")
        self.assertEqual(short_name("nvjet_sm90_tst_128x128_64x6_2x1_v_bz_TNT"), "nvjet_sm90_tst_128x128_64x6_2x1_v_bz_TNT")


if __name__ == "__main__":
    unittest.main()
