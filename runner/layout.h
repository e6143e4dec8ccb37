// `gemm layout`: the data mappings that make tensor-core GEMMs hard to read (which lane holds which element,
// where a 16-byte chunk lands after the swizzle, which tile a CTA computes when), drawn as text grids and as
// SVG from the very functions the kernels call: common/fragment_layout.h, common/swizzle.h,
// common/tile_scheduler.h, common/hilbert_order.h. No GPU needed.
//
// A layout is drawn as blocks: grids (rows × columns of labelled, coloured cells) and tables (text only). The
// notes embed the text (scripts/update_note_layouts.py regenerates it and a test fails when a note differs)
// and link the SVG beside them in kernels/figures/. docs/design.md says how to add a layout.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gemm {

struct LayoutCommand;  // runner/cli.h

struct LayoutCell {
  std::string label;  // empty: a blank cell
  int colour = -1;    // colour class, 0 .. colours - 1 (-1: none)
};

// A grid when `rows` > 0, otherwise a table (`header` and `table`). `notes` follow either.
struct LayoutBlock {
  std::string title;
  std::string row_axis;     // what the rows count, e.g. "m"
  std::string column_axis;  // what the columns count, e.g. "k"
  int rows = 0;
  int columns = 0;
  int first_column = 0;     // the index of column 0 (a window that starts further right)
  int colours = 1;
  std::vector<LayoutCell> cells;  // rows × columns, row-major
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> notes;
};

enum class LayoutTarget { kText, kSvg };

// The blocks of the layout the command names (UsageError for an unknown name or part). Some layouts draw a
// narrower window as text than as SVG (the pattern, not every column); --full draws everything in both.
std::vector<LayoutBlock> draw_layout(const LayoutCommand& command, LayoutTarget target);

std::string layout_text(const std::vector<LayoutBlock>& blocks);
std::string layout_svg(const std::vector<LayoutBlock>& blocks);  // grids as cells, tables as text lines
std::string layout_list();                                        // what `gemm layout` alone prints

// The `layout` subcommand's arguments, registered on `app` (runner/cli.cpp calls this), filling `command`.
CLI::App* add_layout_subcommand(CLI::App& app, LayoutCommand& command);

// Prints the layout (or the list) and writes the SVG when asked: exit 0, or UsageError.
int command_layout(const LayoutCommand& command);

}  // namespace gemm
