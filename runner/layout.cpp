// `gemm layout` (runner/layout.h): each layout is drawn by calling the functions the kernels call, never a
// copy of their formulas. A cell is placed where the function says; a cell placed twice, or one left empty
// where the mapping must cover the tile, is an internal error, so a broken mapping cannot draw a tidy picture.
#include "runner/layout.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/errors.h"
#include "common/fragment_layout.h"
#include "common/gemm_problem.h"
#include "common/hilbert_order.h"
#include "common/swizzle.h"
#include "common/tile_scheduler.h"
#include "common/tmem.h"
#include "runner/cli.h"

namespace gemm {
namespace {

// ---- building blocks ---------------------------------------------------------------------------------------

std::string str(int value) { return std::to_string(value); }

// Concatenation by appending (GCC 12 warns, wrongly, about `"literal" + std::string` chains under -Wall).
[[maybe_unused]] void append(std::string& text, const std::string& part) { text += part; }
void append(std::string& text, const char* part) { text += part; }
void append(std::string& text, char part) { text += part; }
void append(std::string& text, int part) { text += std::to_string(part); }
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string text;
  (append(text, parts), ...);
  return text;
}

LayoutBlock make_grid(std::string title, std::string row_axis, std::string column_axis, int rows, int columns,
                      int colours) {
  LayoutBlock block;
  block.title = std::move(title);
  block.row_axis = std::move(row_axis);
  block.column_axis = std::move(column_axis);
  block.rows = rows;
  block.columns = columns;
  block.colours = colours;
  block.cells.resize(static_cast<size_t>(rows) * columns);
  return block;
}

// Puts a label into an empty cell; a second label for the same cell means the mapping is not one-to-one.
void place(LayoutBlock& grid, int row, int column, std::string label, int colour) {
  const int local = column - grid.first_column;
  if (row < 0 || row >= grid.rows || local < 0 || local >= grid.columns)
    throw std::logic_error(grid.title + ": (" + str(row) + ", " + str(column) + ") is outside the grid");
  LayoutCell& cell = grid.cells[static_cast<size_t>(row) * grid.columns + local];
  if (!cell.label.empty())
    throw std::logic_error(grid.title + ": (" + str(row) + ", " + str(column) + ") holds both " + cell.label +
                           " and " + label);
  cell = {std::move(label), colour};
}

void require_full(const LayoutBlock& grid) {
  for (int i = 0; i < grid.rows * grid.columns; ++i)
    if (grid.cells[i].label.empty())
      throw std::logic_error(grid.title + ": (" + str(i / grid.columns) + ", " +
                             str(grid.first_column + i % grid.columns) + ") is held by nobody");
}

bool same_cells(const LayoutBlock& a, const LayoutBlock& b) {
  if (a.rows != b.rows || a.columns != b.columns) return false;
  for (size_t i = 0; i < a.cells.size(); ++i)
    if (a.cells[i].label != b.cells[i].label) return false;
  return true;
}

// The parts a layout was asked for: all of `known` when none were named. An unknown part is a UsageError.
std::vector<std::string> chosen_parts(const LayoutCommand& command, const std::vector<std::string>& known) {
  if (command.parts.empty()) return known;
  for (const std::string& part : command.parts)
    if (std::find(known.begin(), known.end(), part) == known.end()) {
      std::string names;
      for (const std::string& name : known) names += (names.empty() ? "" : ", ") + name;
      throw UsageError("layout " + command.name + " has no part '" + part + "': expected " + names);
    }
  return command.parts;
}

bool wants(const std::vector<std::string>& parts, const std::string& part) {
  return std::find(parts.begin(), parts.end(), part) != parts.end();
}

// ---- mma-m16n8k16 ------------------------------------------------------------------------------------------

std::vector<LayoutBlock> draw_mma(const LayoutCommand& command) {
  struct Operand {
    const char* part;
    const char* title;
    const char *row_axis, *column_axis;
    int rows, columns, elements;
    char prefix;
    FragmentCoord (*coord)(int lane, int element);
    const char* note;
  };
  const Operand operands[] = {
      {"A", "A: 16 x 16 bf16 (row m, column k); T<lane>:a<element>, register a[j] holds elements 2j and 2j+1",
       "m", "k", 16, 16, 8, 'a', mma_m16n8k16_a,
       "g = lane / 4 picks rows g and g + 8, t = lane % 4 the column pairs 2t and 2t + 8"},
      {"B", "B: 16 x 8 bf16 (row k, column n; column n is row n of our N x K B); T<lane>:b<element>, register "
            "b[j] holds elements 2j and 2j+1",
       "k", "n", 16, 8, 4, 'b', mma_m16n8k16_b,
       "g = lane / 4 picks the column n, t = lane % 4 the row pairs 2t and 2t + 8"},
      {"C", "C/D: 16 x 8 fp32 (row m, column n); T<lane>:c<element>, one register each", "m", "n", 16, 8, 4, 'c',
       mma_m16n8k16_c, "g = lane / 4 picks rows g and g + 8, t = lane % 4 the column pair 2t"},
  };
  const std::vector<std::string> parts = chosen_parts(command, {"A", "B", "C"});
  std::vector<LayoutBlock> blocks;
  for (const Operand& operand : operands) {
    if (!wants(parts, operand.part)) continue;
    LayoutBlock grid = make_grid(std::string("mma.sync m16n8k16 ") + operand.title, operand.row_axis,
                                 operand.column_axis, operand.rows, operand.columns, 32);
    for (int lane = 0; lane < 32; ++lane)
      for (int element = 0; element < operand.elements; ++element) {
        const FragmentCoord at = operand.coord(lane, element);
        place(grid, at.row, at.col, cat("T", lane, ":", operand.prefix, element), lane);
      }
    require_full(grid);
    grid.notes.push_back(cat("common/fragment_layout.h: mma_m16n8k16_", operand.prefix, "(lane, element); ",
                             operand.note));
    blocks.push_back(std::move(grid));
  }
  return blocks;
}

// ---- ldmatrix (kernel 02) ----------------------------------------------------------------------------------

std::vector<LayoutBlock> draw_ldmatrix(const LayoutCommand& command) {
  struct Operand {
    const char* part;
    const char* what;
    const char* row_axis;
    TileChunk (*source)(int lane);
    const char* registers[4];
  };
  const Operand operands[] = {
      {"A", "A, one m16 tile", "m", ldmatrix_x4_a_source, {"a[0]", "a[1]", "a[2]", "a[3]"}},
      {"B", "B, a pair of n8 tiles", "n", ldmatrix_x4_b_source, {"b[0][0]", "b[0][1]", "b[1][0]", "b[1][1]"}},
  };
  constexpr int kSteps = 4;  // k16 steps in a 64-wide k block
  // Parts: the operands (A, B) and the views (flow, addresses, stage); naming none of a kind means all of it.
  const std::vector<std::string> parts = chosen_parts(command, {"A", "B", "flow", "addresses", "stage"});
  const auto any_of = [&](std::initializer_list<const char*> names) {
    for (const char* name : names)
      if (wants(command.parts, name)) return true;
    return false;
  };
  const bool all_operands = !any_of({"A", "B"}), all_views = !any_of({"flow", "addresses", "stage"});
  std::vector<LayoutBlock> blocks;
  for (const Operand& operand : operands) {
    if (!all_operands && !wants(parts, operand.part)) continue;
    // The kernel's FragmentOffsets with the warp's first row 0, then swizzled_k_step per step (load_fragments).
    auto offset = [&](int lane, int step) {
      const TileChunk source = operand.source(lane);
      return swizzled_k_step(swizzled_chunk_offset(source.row, source.chunk), step);
    };

    if (all_views || wants(parts, "flow")) {
      // Register j of lane l, half h, is element ldmatrix_x4_element(l, h) of matrix j, whose row came from the
      // address lane 8j + that row gave: draw, over the 16 x 16 tile (k step 0), who gave the address > who
      // receives the element.
      LayoutBlock grid = make_grid(
          "ldmatrix.x4 flow, kernel 02, " + std::string(operand.what) + " (row " + operand.row_axis +
              ", column k): <lane giving the row's address>><lane receiving the element>; colour: the matrix "
              "= the register",
          operand.row_axis, "k", 16, 16, 4);
      for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < 4; ++reg)
          for (int half = 0; half < 2; ++half) {
            const FragmentCoord in_matrix = ldmatrix_x4_element(lane, half);
            const int giver = 8 * reg + in_matrix.row;  // lanes 8j..8j+7 address the rows of matrix j
            const TileChunk source = operand.source(giver);
            place(grid, source.row, 8 * source.chunk + in_matrix.col, cat(giver, ">", lane), reg);
          }
      require_full(grid);
      grid.notes = {"lanes 8j..8j+7 give the addresses of matrix j's 8 rows (ldmatrix_x4_" +
                        std::string(operand.part[0] == 'A' ? "a" : "b") + "_source); row r of a matrix lands in",
                    "lanes 4r..4r+3, two elements each (ldmatrix_x4_element), in register j = the matrix: " +
                        std::string(operand.registers[0]) + " " + operand.registers[1] + " " +
                        operand.registers[2] + " " + operand.registers[3]};
      blocks.push_back(std::move(grid));
    }

    if (all_views || wants(parts, "addresses")) {
      LayoutBlock table;
      table.title = "ldmatrix.x4 addresses, kernel 02, " + std::string(operand.what) +
                    ": the byte offset in the 128B-swizzled stage each lane gives, k16 steps 0-3";
      table.header = {"lane", "matrix", operand.row_axis, "k (step 0)", "position", "step 0", "step 1", "step 2",
                      "step 3", "fills"};
      for (int lane = 0; lane < 32; ++lane) {
        const TileChunk source = operand.source(lane);
        const int matrix = ldmatrix_x4_matrix_of_lane(lane);
        std::vector<std::string> row = {str(lane), str(matrix), str(source.row),
                                        cat(8 * source.chunk, "-", 8 * source.chunk + 7),
                                        str(static_cast<int>(offset(lane, 0) % kSwizzleRowBytes / 16))};
        for (int step = 0; step < kSteps; ++step) row.push_back(str(static_cast<int>(offset(lane, step))));
        row.push_back(operand.registers[matrix]);
        table.table.push_back(std::move(row));
      }
      table.notes = {std::string(operand.row_axis) + ", k: ldmatrix_x4_" + (operand.part[0] == 'A' ? "a" : "b") +
                         "_source(lane); position: the 16-byte slot chunk c of the row is stored in, c ^ (row % 8)",
                     "step s: swizzled_k_step(step 0, s) = step 0 XOR 32s, where chunk 2s + c of the same row lies"};
      blocks.push_back(std::move(table));
    }

    if (all_views || wants(parts, "stage")) {
      LayoutBlock grid = make_grid("ldmatrix.x4 over the swizzled stage, kernel 02, " + std::string(operand.what) +
                                       ": which lane reads each 16-byte chunk, at which k step (s<step>:L<lane>)",
                                   operand.row_axis, "position", 16, 8, kSteps);
      bool conflict_free = true;
      for (int step = 0; step < kSteps; ++step) {
        for (int lane = 0; lane < 32; ++lane) {
          const uint32_t at = offset(lane, step);
          place(grid, static_cast<int>(at / kSwizzleRowBytes), static_cast<int>(at % kSwizzleRowBytes / 16),
                cat("s", step, ":L", lane), step);
        }
        for (int matrix = 0; matrix < 4; ++matrix) {  // one phase of the instruction: 8 rows of one matrix
          std::set<uint32_t> positions;
          for (int lane = 8 * matrix; lane < 8 * matrix + 8; ++lane) positions.insert(offset(lane, step) % 128 / 16);
          conflict_free = conflict_free && positions.size() == 8;
        }
      }
      require_full(grid);
      grid.notes.push_back(conflict_free
                               ? "each phase (8 lanes, one 8x8 matrix) of each step reads 8 distinct positions: all "
                                 "32 banks once, no conflict"
                               : "some phase reads two chunks in the same position: a bank conflict");
      blocks.push_back(std::move(grid));
    }
  }
  return blocks;
}

// ---- swizzle-128b ------------------------------------------------------------------------------------------

std::vector<LayoutBlock> draw_swizzle(const LayoutCommand& command) {
  if (command.base < 0 || command.base >= 1024 || command.base % 128 != 0)
    throw UsageError("--base must be a multiple of 128 in 0..896 (the stage's address modulo 1024), got " +
                     str(command.base));
  const std::vector<std::string> parts = chosen_parts(command, {"chunks", "tma", "k-steps"});
  std::vector<LayoutBlock> blocks;

  // Kernel 02 stores chunk c of row r at swizzled_chunk_offset(r, c).
  LayoutBlock software = make_grid(
      "128-byte swizzle, kernel 02 (swizzled_chunk_offset): row r's 16-byte chunk c (k 8c..8c+7), stored at "
      "position c ^ (r % 8)",
      "row", "position", 8, 8, 8);
  for (int row = 0; row < 8; ++row)
    for (int chunk = 0; chunk < 8; ++chunk)
      place(software, row, static_cast<int>(swizzled_chunk_offset(row, chunk) % kSwizzleRowBytes / 16),
            cat("c", chunk), chunk);
  require_full(software);
  software.notes = {"rows 8-15, 16-23, ... repeat rows 0-7 (the pattern is a function of row % 8)",
                    "down any column c, rows 0-7 use 8 different positions: 8 x 16 bytes = all 32 banks"};

  // TMA's SWIZZLE_128B: the same XOR applied to the shared-memory address (bits 4-6 ^= bits 7-9).
  LayoutBlock hardware = make_grid(
      "TMA SWIZZLE_128B (swizzle_128b of the address) for a stage at 1024k + " + str(command.base) +
          ": row r's chunk c, stored at position",
      "row", "position", 8, 8, 8);
  for (int row = 0; row < 8; ++row)
    for (int chunk = 0; chunk < 8; ++chunk) {
      const uint32_t address = static_cast<uint32_t>(command.base) + row * kSwizzleRowBytes + chunk * 16u;
      place(hardware, row, static_cast<int>(swizzle_128b(address) % kSwizzleRowBytes / 16), cat("c", chunk), chunk);
    }
  require_full(hardware);
  if (same_cells(software, hardware))
    hardware.notes.push_back("the same grid as kernel 02's: a stage on a 1024-byte boundary sees the pattern of its "
                             "own rows (tests/gpu/tma_swizzle_test.cu checks the hardware)");
  else
    hardware.notes.push_back("not kernel 02's grid: the XOR comes from address bits 7-9, so a stage off a 1024-byte "
                             "boundary has row r swizzled as row r + " +
                             str(command.base / 128) + " (mod 8); wgmma would read the wrong chunks");

  if (wants(parts, "chunks")) blocks.push_back(std::move(software));
  if (wants(parts, "tma")) blocks.push_back(std::move(hardware));

  if (wants(parts, "k-steps")) {
    // wgmma's k16 step s reads k 16s..16s+15: the descriptor's start address is the stage + 32s (unswizzled); the
    // hardware forms start + 128r + 16h for half h of row r and swizzles that address.
    LayoutBlock table;
    table.title = "wgmma k16 steps on a 128B-swizzled K-major stage (1024-byte aligned): start address = stage + "
                  "32s; positions where row r's k 16s..16s+7 and 16s+8..16s+15 are read";
    table.header = {"row", "step 0 (+0)", "step 1 (+32)", "step 2 (+64)", "step 3 (+96)"};
    for (int row = 0; row < 8; ++row) {
      std::vector<std::string> line = {str(row)};
      for (uint32_t step = 0; step < 4; ++step) {
        const uint32_t start = step * kKStepBytes;
        std::string cell;
        for (uint32_t half = 0; half < 2; ++half) {
          const uint32_t byte = swizzle_128b(start + row * kSwizzleRowBytes + half * 16u);
          cell += (half ? "," : "") + str(static_cast<int>(byte % kSwizzleRowBytes / 16));
        }
        line.push_back(cell);
      }
      table.table.push_back(std::move(line));
    }
    table.notes = {"each cell: the positions of the step's two chunks (2s, 2s+1) in row r, i.e. (2s ^ r, 2s+1 ^ r)",
                   "adding 32 bytes to the unswizzled start moves by two chunks before the XOR, so the step finds its",
                   "chunks in every row without the kernel knowing the pattern; this only holds if the stage is "
                   "1024-byte aligned"};
    blocks.push_back(std::move(table));
  }
  return blocks;
}

// ---- wgmma-m64nN -------------------------------------------------------------------------------------------

std::vector<LayoutBlock> draw_wgmma(const LayoutCommand& command, int n, LayoutTarget target) {
  if (!command.parts.empty()) throw UsageError("layout " + command.name + " takes no parts");
  // The pattern repeats every 8 columns; text shows one chunk, SVG two (to show the step of 4 registers).
  const int columns = command.full ? n : std::min(n, target == LayoutTarget::kText ? 8 : 16);
  LayoutBlock grid = make_grid("wgmma m64n" + str(n) + "k16 accumulator: 64 x " + str(n) + " fp32, " + str(n / 2) +
                                   " registers per thread; T<thread in warpgroup>:d<register>" +
                                   (columns < n ? ", columns 0-" + str(columns - 1) + " of " + str(n) : ""),
                               "row", "column", 64, columns, 128);
  for (int thread = 0; thread < 128; ++thread)
    for (int reg = 0; reg < n / 2; ++reg) {
      const FragmentCoord at = wgmma_m64_accumulator(thread / 32, thread % 32, reg);
      if (at.col < columns) place(grid, at.row, at.col, cat("T", thread, ":d", reg), thread);
    }
  require_full(grid);
  const FragmentCoord lane4_warp1 = wgmma_m64_accumulator(1, 4, 0), lane4_warp1_low = wgmma_m64_accumulator(1, 4, 2);
  grid.notes = {"common/fragment_layout.h: wgmma_m64_accumulator(warp, lane, register); warp w holds rows 16w..16w+15",
                "lanes 4-7 of warp 1 (threads 36-39) hold rows " + str(lane4_warp1.row) + " and " +
                    str(lane4_warp1_low.row) + ": rows 16w + lane/4 and 16w + lane/4 + 8",
                "columns 8j..8j+7 are held by the same threads as columns 0-7, in registers 4j..4j+3"};
  return {grid};
}

// ---- tmem ---------------------------------------------------------------------------------------------------

// Which warp may read which TMEM lanes, where tcgen05.ld .32x32b puts each cell (part "ld"), and where an MMA's
// D lands for the data paths of chapters 17-19 ("D": M = 128; "E": M = 64 with .ws; "F": M = 64 without).
std::vector<LayoutBlock> draw_tmem(const LayoutCommand& command) {
  const std::vector<std::string> parts = chosen_parts(command, {"ld", "D", "E", "F"});
  std::vector<LayoutBlock> blocks;
  if (wants(parts, "ld")) {
    LayoutBlock access;
    access.title = "TMEM lanes a warp may read or write with tcgen05.ld/st: its index in its warpgroup, w % 4, picks "
                   "a quarter";
    access.header = {"warp w", "w % 4", "lanes"};
    for (uint32_t warp = 0; warp < 8; ++warp) {
      const uint32_t first = tmem_first_lane_of_warp(warp);
      access.table.push_back({str(static_cast<int>(warp)), str(static_cast<int>(tmem_lane_quarter(warp))),
                              cat(static_cast<int>(first), "-", static_cast<int>(first + kTmemLanesPerWarp - 1))});
    }
    access.notes = {"common/tmem.h: tmem_first_lane_of_warp(warp); kernel 17's epilogue warps 2-5 read lanes 64-95, "
                    "96-127, 0-31, 32-63"};
    blocks.push_back(std::move(access));

    // Kernel 17's four epilogue warps (2-5), each loading .32x32b.x4 at column 0 of its own lane quarter.
    constexpr int kColumns = 4;
    LayoutBlock grid = make_grid("tcgen05.ld.32x32b.x4 at column 0 by warps 2-5: TMEM lane and column -> "
                                 "W<warp>.T<thread>:r<register>",
                                 "lane", "column", static_cast<int>(kTmemLanes), kColumns, 4);
    for (uint32_t warp = 2; warp < 6; ++warp)
      for (uint32_t thread = 0; thread < 32; ++thread)
        for (uint32_t reg = 0; reg < kColumns; ++reg) {
          const TmemCell at = tmem_32x32b_cell(warp, thread, reg, 0);
          place(grid, static_cast<int>(at.lane), static_cast<int>(at.column), cat("W", static_cast<int>(warp), ".T",
                static_cast<int>(thread), ":r", static_cast<int>(reg)), static_cast<int>(tmem_lane_quarter(warp)));
        }
    require_full(grid);
    grid.notes = {"common/tmem.h: tmem_32x32b_cell(warp, thread, register, first_column): lane 32(w % 4) + thread, "
                  "column first_column + register",
                  "one lane per thread, one column per register: with D in layout D (M = 128) the thread holds row "
                  "32(w % 4) + thread of C"};
    blocks.push_back(std::move(grid));
  }
  // Where D(row, column) of an M x 16 fp32 accumulator lands: the lane and column of each element.
  struct Path {
    const char* part;
    TmemDataPath path;
    const char* title;
  };
  constexpr uint32_t kN = 16;
  for (const Path& path : {Path{"D", TmemDataPath::kLayoutD, "layout D (M = 128, cta_group::1; also each CTA of layout A)"},
                           Path{"E", TmemDataPath::kLayoutE, "layout E (M = 64, .ws: the N halves fold onto lanes 0-63 "
                                                             "and 64-127)"},
                           Path{"F", TmemDataPath::kLayoutF, "layout F (M = 64, no .ws: 16 rows per lane quarter)"}}) {
    if (!wants(parts, path.part)) continue;
    const uint32_t rows = tmem_data_path_rows(path.path);
    const uint32_t columns = path.path == TmemDataPath::kLayoutE ? kN / 2 : kN;
    LayoutBlock grid = make_grid(cat("where tcgen05.mma's D (", static_cast<int>(rows), " x ", static_cast<int>(kN),
                                     " fp32) lands in TMEM, ", path.title, ": lane and column -> D row,column"),
                                 "lane", "column", static_cast<int>(kTmemLanes), static_cast<int>(columns), 4);
    for (uint32_t row = 0; row < rows; ++row)
      for (uint32_t column = 0; column < kN; ++column) {
        const TmemCell at = tmem_accumulator_cell(path.path, row, column, kN);
        place(grid, static_cast<int>(at.lane), static_cast<int>(at.column),
              cat(static_cast<int>(row), ",", static_cast<int>(column)), static_cast<int>(at.lane / 32));
      }
    for (uint32_t lane = 0; lane < kTmemLanes; ++lane)  // the cells no element of D lands in, shown as such
      for (uint32_t column = 0; column < columns; ++column)
        if (!tmem_cell_holds_accumulator(path.path, {lane, column}, kN))
          place(grid, static_cast<int>(lane), static_cast<int>(column), "-", 0);
    require_full(grid);
    grid.notes = {"common/tmem.h: tmem_accumulator_cell(path, row, column, n); '-': a cell the MMA does not write"};
    blocks.push_back(std::move(grid));
  }
  return blocks;
}

// ---- tile-order --------------------------------------------------------------------------------------------

std::vector<LayoutBlock> draw_tile_order(const LayoutCommand& command) {
  if (command.parts.size() != 1 || (command.parts[0] != "grouped" && command.parts[0] != "hilbert"))
    throw UsageError("layout tile-order takes one of grouped, hilbert");
  const bool hilbert = command.parts[0] == "hilbert";
  const int tiles_m = ceil_div(command.m, command.tile_m);
  const int tiles_n = ceil_div(command.n, command.tile_n);
  if (static_cast<long long>(tiles_m) * tiles_n > 65536)
    throw UsageError("tile-order draws at most 65536 tiles; this problem has " + str(tiles_m) + " x " + str(tiles_n));
  const int count = tiles_m * tiles_n;

  std::vector<TileCoord> order;
  if (hilbert) {
    order = hilbert_tile_order(tiles_m, tiles_n);
  } else {
    const GroupedTileOrder grouped{tiles_m, tiles_n, command.group};
    for (int position = 0; position < count; ++position) order.push_back(grouped.at(position));
  }
  const int waves = ceil_div(count, command.sms);
  LayoutBlock grid = make_grid(
      std::string(hilbert ? "Hilbert" : "grouped (" + str(command.group) + " tile rows per band)") +
          " tile order, " + str(command.m) + " x " + str(command.n) + " in " + str(command.tile_m) + " x " +
          str(command.tile_n) + " tiles (" + str(tiles_m) + " x " + str(tiles_n) + "): the position at which tile "
          "(m, n) is computed; colour: its wave of " + str(command.sms) + " CTAs",
      "m", "n", tiles_m, tiles_n, std::max(waves, 1));
  // The same grid with each tile's wave (position / CTAs per wave): the waves marked.
  LayoutBlock wave_grid = make_grid(cat("the wave of each tile: ", waves, " waves of ", command.sms,
                                        " CTAs, wave w = positions ", command.sms, "w to ", command.sms,
                                        "w + ", command.sms - 1),
                                    "m", "n", tiles_m, tiles_n, std::max(waves, 1));
  for (int position = 0; position < count; ++position) {
    place(grid, order[position].m, order[position].n, str(position), position / command.sms);
    place(wave_grid, order[position].m, order[position].n, str(position / command.sms), position / command.sms);
  }
  require_full(grid);
  require_full(wave_grid);

  // What a wave reads: the distinct tile rows m (a tile_m-row slab of A each) and tile columns n (a tile_n-row
  // slab of B each) among its tiles, counted in operand rows of K elements. For comparison, the same for tiles
  // numbered row by row (position p -> (p / tiles_n, p % tiles_n)), as kernels 03-05 launch them.
  auto footprint = [&](const std::function<TileCoord(int)>& at, int wave) {
    std::set<int> row_set, column_set;
    for (int p = wave * command.sms; p < std::min(count, (wave + 1) * command.sms); ++p) {
      row_set.insert(at(p).m);
      column_set.insert(at(p).n);
    }
    return std::pair<int, int>(static_cast<int>(row_set.size()), static_cast<int>(column_set.size()));
  };
  const auto in_order = [&](int p) { return order[p]; };
  const auto row_by_row = [&](int p) { return TileCoord{p / tiles_n, p % tiles_n}; };
  const auto operand_rows = [&](std::pair<int, int> tiles) {
    return static_cast<long long>(tiles.first) * command.tile_m + static_cast<long long>(tiles.second) * command.tile_n;
  };
  long long total = 0, row_major_total = 0;
  for (int wave = 0; wave < waves; ++wave) {
    const auto tiles = footprint(in_order, wave), row_major = footprint(row_by_row, wave);
    total += operand_rows(tiles);
    row_major_total += operand_rows(row_major);
    if (wave < 6)
      grid.notes.push_back(cat("wave ", wave, ": ", tiles.first, " tile rows of A and ", tiles.second,
                               " tile columns of B = ", std::to_string(operand_rows(tiles)),
                               " rows of A and B to read (row by row: ", std::to_string(operand_rows(row_major)), ")"));
  }
  if (waves > 6) grid.notes.push_back(cat("waves 6 to ", waves - 1, ": not listed, counted in the total"));
  grid.notes.push_back(cat("all ", waves, " waves: ", std::to_string(total), " rows of A and B of K elements each (row by row: ",
                           std::to_string(row_major_total), ")"));
  grid.notes.push_back(hilbert
                           ? "common/hilbert_order.h: hilbert_tile_order(tiles_m, tiles_n)"
                           : "common/tile_scheduler.h: GroupedTileOrder{tiles_m, tiles_n, group_rows}.at(position)");
  return {grid, wave_grid};
}

// ---- the list ----------------------------------------------------------------------------------------------

struct LayoutEntry {
  const char* name;
  const char* usage;
  const char* what;
};
const LayoutEntry kLayouts[] = {
    {"mma-m16n8k16", "mma-m16n8k16 [A|B|C]", "mma.sync m16n8k16 fragments: lane and element -> row and column (02)"},
    {"ldmatrix", "ldmatrix [A|B] [flow|addresses|stage]",
     "02's ldmatrix.x4: address -> register flow, lane -> address in the swizzled stage per k16 step"},
    {"swizzle-128b", "swizzle-128b [chunks|tma|k-steps]",
     "where row r's 16-byte chunks land: 02's swizzle, TMA's 128B mode (--base), wgmma's k steps (03)"},
    {"wgmma-m64n128", "wgmma-m64n128 [--full]", "wgmma accumulator: thread and register -> row and column (03, 04)"},
    {"wgmma-m64n256", "wgmma-m64n256 [--full]",
     "the same for m64n256 (05); any wgmma-m64nN with N % 8 == 0, up to 256, works"},
    {"tile-order", "tile-order grouped|hilbert",
     "persistent tile orders with waves marked (06, 09): --m --n --tile-m --tile-n --group --sms"},
    {"tmem", "tmem [ld|D|E|F]",
     "Tensor Memory: which warp reads which lanes, tcgen05.ld 32x32b, where D lands for M = 128 and 64 (17-19)"},
};

std::string layout_names() {
  std::string names;
  for (const LayoutEntry& entry : kLayouts) names += (names.empty() ? "" : ", ") + std::string(entry.name);
  return names;
}

// N of a name "wgmma-m64n<N>", or 0.
int wgmma_n(const std::string& name) {
  const std::string prefix = "wgmma-m64n";
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size() || name.size() > prefix.size() + 3) return 0;
  int n = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return 0;
    n = 10 * n + (name[i] - '0');
  }
  return n >= 8 && n <= 256 && n % 8 == 0 ? n : 0;
}

// ---- rendering ---------------------------------------------------------------------------------------------

std::string pad(const std::string& text, size_t width) {
  // Pads to `width` characters; the labels are ASCII.
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}
std::string pad_left(const std::string& text, size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

void text_grid(std::ostringstream& out, const LayoutBlock& grid) {
  size_t width = 1;
  for (const LayoutCell& cell : grid.cells) width = std::max(width, cell.label.size());
  for (int c = 0; c < grid.columns; ++c) width = std::max(width, str(grid.first_column + c).size());
  const std::string corner = grid.row_axis + "\\" + grid.column_axis;
  size_t row_width = corner.size();
  row_width = std::max(row_width, str(grid.rows - 1).size());
  std::string line = pad_left(corner, row_width);
  for (int c = 0; c < grid.columns; ++c) {
    line += ' ';
    line += pad(str(grid.first_column + c), width);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out << line << "\n";
  for (int r = 0; r < grid.rows; ++r) {
    line = pad_left(str(r), row_width);
    for (int c = 0; c < grid.columns; ++c) {
      const std::string& label = grid.cells[static_cast<size_t>(r) * grid.columns + c].label;
      line += ' ';
      line += pad(label.empty() ? "." : label, width);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

// A table's lines: columns right-aligned, two spaces apart.
std::vector<std::string> table_lines(const LayoutBlock& table) {
  std::vector<size_t> widths(table.header.size(), 0);
  for (size_t c = 0; c < table.header.size(); ++c) widths[c] = table.header[c].size();
  for (const auto& row : table.table)
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  std::vector<std::string> lines;
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c) line += "  ";
      line += pad_left(cells[c], widths[c]);
    }
    lines.push_back(line);
  };
  emit(table.header);
  for (const auto& row : table.table) emit(row);
  return lines;
}

void text_table(std::ostringstream& out, const LayoutBlock& table) {
  for (const std::string& line : table_lines(table)) out << line << "\n";
}

std::string xml_escape(const std::string& text) {
  std::string escaped;
  for (char ch : text) {
    switch (ch) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      default: escaped += ch;
    }
  }
  return escaped;
}

// A light colour for class `index` of `count`, from integer arithmetic only (the SVG files are compared byte
// for byte, so no floating-point rounding may differ between machines). Successive classes step the hue by a
// golden-ratio angle, so neighbours differ clearly even among 128 classes.
std::string colour_of(int index, int count) {
  if (index < 0) return "#ffffff";
  const int hue = count <= 8 ? index * 360 / std::max(count, 1) : (index * 13753 / 100) % 360;  // degrees
  // HSV with saturation 35 % and value 100 %, channels in 0..255.
  const int max = 255, min = 255 - 255 * 35 / 100;
  const int sector = hue / 60, within = hue % 60;
  const int rising = min + (max - min) * within / 60, falling = max - (max - min) * within / 60;
  int r = 0, g = 0, b = 0;
  switch (sector) {
    case 0: r = max, g = rising, b = min; break;
    case 1: r = falling, g = max, b = min; break;
    case 2: r = min, g = max, b = rising; break;
    case 3: r = min, g = falling, b = max; break;
    case 4: r = rising, g = min, b = max; break;
    default: r = max, g = min, b = falling; break;
  }
  char buffer[16];  // "#rrggbb" needs 8; the slack spares the compiler proving that each channel fits two digits
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", r, g, b);
  return buffer;
}

}  // namespace

// ---- public ------------------------------------------------------------------------------------------------

std::vector<LayoutBlock> draw_layout(const LayoutCommand& command, LayoutTarget target) {
  const std::string& name = command.name;
  if (name == "mma-m16n8k16") return draw_mma(command);
  if (name == "ldmatrix") return draw_ldmatrix(command);
  if (name == "swizzle-128b") return draw_swizzle(command);
  if (const int n = wgmma_n(name)) return draw_wgmma(command, n, target);
  if (name == "tile-order") return draw_tile_order(command);
  if (name == "tmem") return draw_tmem(command);
  throw UsageError("unknown layout '" + name + "': expected " + layout_names() + " (see gemm layout)");
}

std::string layout_text(const std::vector<LayoutBlock>& blocks) {
  std::ostringstream out;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const LayoutBlock& block = blocks[i];
    if (i) out << "\n";
    out << block.title << "\n";
    if (block.rows > 0)
      text_grid(out, block);
    else
      text_table(out, block);
    for (const std::string& note : block.notes) out << "  " << note << "\n";
  }
  return out.str();
}

std::string layout_svg(const std::vector<LayoutBlock>& blocks) {
  constexpr int kCharWidth = 7, kTitleCharWidth = 8, kRowHeight = 18, kMargin = 10, kTitleHeight = 22, kGap = 16;
  std::ostringstream body;
  int y = kMargin, width = 0;
  for (const LayoutBlock& grid : blocks) {
    if (grid.rows == 0) {  // a table: its text lines, header on a grey band
      body << "<text x=\"" << kMargin << "\" y=\"" << y + 14 << "\" class=\"title\">" << xml_escape(grid.title)
           << "</text>\n";
      width = std::max(width, kMargin + static_cast<int>(grid.title.size()) * kTitleCharWidth + kMargin);
      y += kTitleHeight;
      const std::vector<std::string> lines = table_lines(grid);
      for (size_t i = 0; i < lines.size(); ++i) {
        if (i == 0)
          body << "<rect x=\"" << kMargin << "\" y=\"" << y << "\" width=\""
               << static_cast<int>(lines[0].size()) * kCharWidth << "\" height=\"" << kRowHeight
               << "\" fill=\"#e8e8e8\" stroke=\"none\"/>\n";
        body << "<text x=\"" << kMargin << "\" y=\"" << y + 13 << "\" class=\"line\">" << xml_escape(lines[i])
             << "</text>\n";
        width = std::max(width, kMargin + static_cast<int>(lines[i].size()) * kCharWidth + kMargin);
        y += kRowHeight;
      }
      for (const std::string& note : grid.notes) {
        y += kRowHeight;
        body << "<text x=\"" << kMargin << "\" y=\"" << y << "\" class=\"note\">" << xml_escape(note) << "</text>\n";
        width = std::max(width, kMargin + static_cast<int>(note.size()) * kCharWidth + kMargin);
      }
      y += kGap + kRowHeight;
      continue;
    }
    size_t longest = 1;
    for (const LayoutCell& cell : grid.cells) longest = std::max(longest, cell.label.size());
    for (int c = 0; c < grid.columns; ++c) longest = std::max(longest, str(grid.first_column + c).size());
    const int cell_width = static_cast<int>(longest) * kCharWidth + 8;
    const int header_width = static_cast<int>(std::max(str(grid.rows - 1).size(),
                                                       (grid.row_axis + "\\" + grid.column_axis).size())) *
                                 kCharWidth + 8;
    body << "<text x=\"" << kMargin << "\" y=\"" << y + 14 << "\" class=\"title\">" << xml_escape(grid.title)
         << "</text>\n";
    y += kTitleHeight;
    const int x0 = kMargin + header_width;
    body << "<text x=\"" << kMargin + header_width / 2 << "\" y=\"" << y + 13 << "\" class=\"axis\">"
         << xml_escape(grid.row_axis + "\\" + grid.column_axis) << "</text>\n";
    for (int c = 0; c < grid.columns; ++c)
      body << "<text x=\"" << x0 + c * cell_width + cell_width / 2 << "\" y=\"" << y + 13 << "\" class=\"axis\">"
           << grid.first_column + c << "</text>\n";
    y += kRowHeight;
    for (int r = 0; r < grid.rows; ++r) {
      body << "<text x=\"" << kMargin + header_width / 2 << "\" y=\"" << y + r * kRowHeight + 13
           << "\" class=\"axis\">" << r << "</text>\n";
      for (int c = 0; c < grid.columns; ++c) {
        const LayoutCell& cell = grid.cells[static_cast<size_t>(r) * grid.columns + c];
        const int x = x0 + c * cell_width, cy = y + r * kRowHeight;
        body << "<rect x=\"" << x << "\" y=\"" << cy << "\" width=\"" << cell_width << "\" height=\"" << kRowHeight
             << "\" fill=\"" << colour_of(cell.colour, grid.colours) << "\"/>";
        if (!cell.label.empty())
          body << "<text x=\"" << x + cell_width / 2 << "\" y=\"" << cy + 13 << "\">" << xml_escape(cell.label)
               << "</text>";
        body << "\n";
      }
    }
    y += grid.rows * kRowHeight;
    width = std::max(width, x0 + grid.columns * cell_width + kMargin);
    width = std::max(width, kMargin + static_cast<int>(grid.title.size()) * kTitleCharWidth + kMargin);
    for (const std::string& note : grid.notes) {
      y += kRowHeight;
      body << "<text x=\"" << kMargin << "\" y=\"" << y << "\" class=\"note\">" << xml_escape(note) << "</text>\n";
      width = std::max(width, kMargin + static_cast<int>(note.size()) * kCharWidth + kMargin);
    }
    y += kGap + kRowHeight;
  }
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << y << "\" viewBox=\"0 0 "
      << width << " " << y << "\" font-family=\"monospace\" font-size=\"11\" xml:space=\"preserve\">\n"
      << "<style>text{text-anchor:middle} rect{stroke:#666;stroke-width:0.5} .title{text-anchor:start;"
         "font-size:12px;font-weight:bold} .note{text-anchor:start} .axis{fill:#555} "
         ".line{text-anchor:start;white-space:pre}</style>\n"
      << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << y << "\" fill=\"#ffffff\" stroke=\"none\"/>\n"
      << body.str() << "</svg>\n";
  return svg.str();
}

std::string layout_list() {
  std::ostringstream out;
  out << "gemm layout NAME [PART...] [--svg FILE]: the kernels' data mappings, drawn by the functions they call\n";
  size_t width = 0;
  for (const LayoutEntry& entry : kLayouts) width = std::max(width, std::string(entry.usage).size());
  for (const LayoutEntry& entry : kLayouts) out << "  " << pad(entry.usage, width) << "  " << entry.what << "\n";
  return out.str();
}

CLI::App* add_layout_subcommand(CLI::App& app, LayoutCommand& command) {
  CLI::App* layout = app.add_subcommand("layout", "Draw a data mapping of the kernels (no GPU needed); alone: list them");
  layout->add_option("name", command.name, "The layout (see `gemm layout`)");
  layout->add_option("parts", command.parts, "What of it to draw, e.g. A (each layout lists its parts)");
  layout->add_option("--svg", command.svg, "Also draw it as SVG into this file");
  layout->add_flag("--full", command.full, "Every column, not only the window that shows the pattern");
  // The tile orders' and the swizzle's integer options, each with its default shown and its range checked.
  const auto bounded = [layout](const char* name, int& value, const char* what, int low, int high) {
    layout->add_option(name, value, what)->capture_default_str()->check(CLI::Range(low, high));
  };
  bounded("--m", command.m, "tile-order: rows of C", 1, 1 << 24);
  bounded("--n", command.n, "tile-order: columns of C", 1, 1 << 24);
  bounded("--tile-m", command.tile_m, "tile-order: rows of a tile", 1, 4096);
  bounded("--tile-n", command.tile_n, "tile-order: columns of a tile", 1, 4096);
  bounded("--group", command.group, "tile-order grouped: tile rows per band", 1, 1 << 20);
  bounded("--sms", command.sms, "tile-order: CTAs per wave (one per SM)", 1, 1 << 16);
  bounded("--base", command.base, "swizzle-128b tma: stage address modulo 1024, a multiple of 128", 0, 896);
  return layout;
}

int command_layout(const LayoutCommand& command) {
  if (command.name.empty()) {
    if (!command.svg.empty()) throw UsageError("--svg needs a layout name (see gemm layout)");
    std::cout << layout_list();
    return kExitOk;
  }
  std::cout << layout_text(draw_layout(command, LayoutTarget::kText));
  if (!command.svg.empty()) {
    const std::string svg = layout_svg(draw_layout(command, LayoutTarget::kSvg));
    std::ofstream file(command.svg, std::ios::binary);
    file << svg;
    file.close();
    if (!file) throw UsageError("cannot write " + command.svg);
  }
  return kExitOk;
}

}  // namespace gemm
