// `gemm layout` (runner/layout.h): every listed layout draws, cells sit where the common/ functions say,
// unknown names and parts are usage errors, and the output is deterministic (the notes embed it).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "common/errors.h"
#include "runner/cli.h"
#include "runner/layout.h"

namespace gemm {
namespace {

LayoutCommand layout(std::string name, std::vector<std::string> parts = {}) {
  LayoutCommand command;
  command.name = std::move(name);
  command.parts = std::move(parts);
  return command;
}

const LayoutCell& cell(const LayoutBlock& grid, int row, int column) {
  return grid.cells.at(static_cast<size_t>(row) * grid.columns + (column - grid.first_column));
}

std::string usage_error(const LayoutCommand& command) {
  try {
    draw_layout(command, LayoutTarget::kText);
  } catch (const UsageError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no UsageError for layout " << command.name;
  return "";
}

TEST(Layout, EveryListedLayoutDrawsAsTextAndSvg) {
  const std::vector<LayoutCommand> commands = {
      layout("mma-m16n8k16"),          layout("ldmatrix"),       layout("swizzle-128b"),
      layout("wgmma-m64n128"),         layout("wgmma-m64n256"),  layout("tile-order", {"grouped"}),
      layout("tile-order", {"hilbert"}), layout("tmem"),
  };
  for (const LayoutCommand& command : commands) {
    EXPECT_NE(layout_list().find(command.name), std::string::npos) << command.name << " is not listed";
    const std::string text = layout_text(draw_layout(command, LayoutTarget::kText));
    EXPECT_FALSE(text.empty()) << command.name;
    EXPECT_EQ(text, layout_text(draw_layout(command, LayoutTarget::kText))) << command.name << " is not deterministic";
    const std::string svg = layout_svg(draw_layout(command, LayoutTarget::kSvg));
    EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << command.name;
    EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n") << command.name;
  }
}

TEST(Layout, MmaGridsHoldEachLaneWhereThePtxIsaDrawsIt) {
  const std::vector<LayoutBlock> blocks = draw_layout(layout("mma-m16n8k16"), LayoutTarget::kText);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(cell(blocks[0], 8, 9).label, "T0:a7");
  EXPECT_EQ(cell(blocks[0], 15, 15).label, "T31:a7");
  EXPECT_EQ(cell(blocks[1], 9, 0).label, "T0:b3");
  EXPECT_EQ(cell(blocks[1], 0, 1).label, "T4:b0");
  EXPECT_EQ(cell(blocks[2], 8, 1).label, "T0:c3");
  EXPECT_EQ(cell(blocks[2], 0, 1).colour, 0);  // coloured by lane
}

TEST(Layout, PartsSelectBlocks) {
  const std::vector<LayoutBlock> blocks = draw_layout(layout("mma-m16n8k16", {"C"}), LayoutTarget::kText);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].rows, 16);
  EXPECT_EQ(blocks[0].columns, 8);
  EXPECT_EQ(draw_layout(layout("ldmatrix", {"B"}), LayoutTarget::kText).size(), 3u);  // flow, table, stage
  EXPECT_EQ(draw_layout(layout("ldmatrix", {"flow"}), LayoutTarget::kText).size(), 2u);   // for A and B
  EXPECT_EQ(draw_layout(layout("ldmatrix", {"A", "addresses"}), LayoutTarget::kText).size(), 1u);
  EXPECT_EQ(draw_layout(layout("swizzle-128b", {"k-steps"}), LayoutTarget::kText).size(), 1u);
}

// The 03 notes' correction: lanes 4-7 of warp 1 (threads 36-39) hold rows 17 and 25.
// ldmatrix flow for A: element (9, 10) is in matrix 3 (rows 8-15, k 8-15), row 1 of it, whose address lane 25
// gave; it lands in lane 4·1 + 10 % 8 / 2 = 5, register 3 (= mma A element a6 of lane 5: row 9, column 10).
TEST(Layout, LdmatrixFlowNamesGiverAndReceiver) {
  const LayoutBlock flow = draw_layout(layout("ldmatrix", {"A", "flow"}), LayoutTarget::kText)[0];
  EXPECT_EQ(cell(flow, 9, 10).label, "25>5");
  EXPECT_EQ(cell(flow, 9, 10).colour, 3);
  EXPECT_EQ(cell(flow, 0, 0).label, "0>0");
}

// The PTX ISA's "Matrix fragments for shape .32x32b": thread t of warp w holds lane 32(w % 4) + t, one column
// per register; and its data-path layouts D, E and F (common/tmem.h).
TEST(Layout, TmemGridsPutEachCellWhereThePtxIsaSays) {
  const std::vector<LayoutBlock> blocks = draw_layout(layout("tmem"), LayoutTarget::kText);
  ASSERT_EQ(blocks.size(), 5u);
  EXPECT_EQ(blocks[0].table[5], (std::vector<std::string>{"5", "1", "32-63"}));
  EXPECT_EQ(cell(blocks[1], 0, 0).label, "W4.T0:r0");      // warp 4 reads lanes 0-31
  EXPECT_EQ(cell(blocks[1], 64, 3).label, "W2.T0:r3");     // warp 2 reads lanes 64-95
  EXPECT_EQ(cell(blocks[1], 127, 1).label, "W3.T31:r1");
  EXPECT_EQ(cell(blocks[2], 100, 7).label, "100,7");       // layout D: row i in lane i
  EXPECT_EQ(cell(blocks[3], 5, 3).label, "5,3");           // layout E: columns 0-7 in lanes 0-63 ...
  EXPECT_EQ(cell(blocks[3], 69, 3).label, "5,11");         // ... columns 8-15 in lanes 64-127
  EXPECT_EQ(cell(blocks[4], 33, 0).label, "17,0");         // layout F: rows 16-31 in lanes 32-47
  EXPECT_EQ(cell(blocks[4], 16, 0).label, "-");            // lanes 16-31 of each quarter idle
}

TEST(Layout, WgmmaAccumulatorRows17And25BelongToThreads36To39) {
  const std::vector<LayoutBlock> blocks = draw_layout(layout("wgmma-m64n128"), LayoutTarget::kText);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].rows, 64);
  EXPECT_EQ(blocks[0].columns, 8);
  EXPECT_EQ(cell(blocks[0], 17, 0).label, "T36:d0");
  EXPECT_EQ(cell(blocks[0], 25, 7).label, "T39:d3");
  EXPECT_EQ(draw_layout(layout("wgmma-m64n128"), LayoutTarget::kSvg)[0].columns, 16);
  LayoutCommand full = layout("wgmma-m64n256");
  full.full = true;
  const LayoutBlock all = draw_layout(full, LayoutTarget::kText)[0];
  EXPECT_EQ(all.columns, 256);
  EXPECT_EQ(cell(all, 63, 255).label, "T127:d127");
}

TEST(Layout, SwizzleGridsAgreeAndMisalignedTmaShifts) {
  const std::vector<LayoutBlock> blocks = draw_layout(layout("swizzle-128b", {"chunks", "tma"}), LayoutTarget::kText);
  ASSERT_EQ(blocks.size(), 2u);
  for (int row = 0; row < 8; ++row)
    for (int position = 0; position < 8; ++position)
      EXPECT_EQ(cell(blocks[0], row, position).label, cell(blocks[1], row, position).label);
  EXPECT_EQ(cell(blocks[0], 5, 7).label, "c2");
  LayoutCommand shifted = layout("swizzle-128b", {"tma"});
  shifted.base = 512;
  EXPECT_EQ(cell(draw_layout(shifted, LayoutTarget::kText)[0], 0, 0).label, "c4");
  shifted.base = 100;
  EXPECT_NE(usage_error(shifted).find("--base must be a multiple of 128"), std::string::npos);
}

TEST(Layout, TileOrderPlacesEveryTileOnce) {
  LayoutCommand command = layout("tile-order", {"grouped"});
  command.m = 1000;
  command.n = 3000;
  command.group = 3;
  command.sms = 5;
  const std::vector<LayoutBlock> blocks = draw_layout(command, LayoutTarget::kText);
  ASSERT_EQ(blocks.size(), 2u);  // positions, then waves
  const LayoutBlock& grid = blocks[0];
  EXPECT_EQ(cell(blocks[1], 0, 1).label, "0");  // position 3: wave 0 of 5 CTAs
  EXPECT_EQ(cell(blocks[1], 2, 1).label, "1");  // position 5
  EXPECT_EQ(grid.rows, 8);      // ceil(1000 / 128)
  EXPECT_EQ(grid.columns, 12);  // ceil(3000 / 256)
  EXPECT_EQ(cell(grid, 0, 0).label, "0");
  EXPECT_EQ(cell(grid, 1, 0).label, "1");  // down the band first
  EXPECT_EQ(cell(grid, 0, 1).label, "3");
  std::vector<std::string> positions;  // every tile once: the grid's labels are exactly 0 .. 95
  for (int row = 0; row < grid.rows; ++row)
    for (int column = 0; column < grid.columns; ++column) positions.push_back(cell(grid, row, column).label);
  std::vector<std::string> expected;
  for (int position = 0; position < 96; ++position) expected.push_back(std::to_string(position));
  std::sort(positions.begin(), positions.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(positions, expected);
  // 96 tiles in waves of 5: the first six waves' reads are listed, the other fourteen only counted in the total.
  const auto has_note = [&](const std::string& text) {
    return std::find(grid.notes.begin(), grid.notes.end(), text) != grid.notes.end();
  };
  EXPECT_TRUE(has_note("waves 6 to 19: not listed, counted in the total"));
  EXPECT_EQ(std::count_if(grid.notes.begin(), grid.notes.end(),
                          [](const std::string& note) { return note.rfind("wave ", 0) == 0; }),
            6);
}

TEST(Layout, UnknownNamesAndPartsAreUsageErrors) {
  const std::string unknown = usage_error(layout("mma-m8n8k4"));
  EXPECT_NE(unknown.find("unknown layout 'mma-m8n8k4': expected mma-m16n8k16, ldmatrix, swizzle-128b"),
            std::string::npos)
      << unknown;
  EXPECT_NE(usage_error(layout("mma-m16n8k16", {"D"})).find("has no part 'D': expected A, B, C"), std::string::npos);
  EXPECT_NE(usage_error(layout("tile-order")).find("grouped, hilbert"), std::string::npos);
  EXPECT_NE(usage_error(layout("wgmma-m64n128", {"A"})).find("takes no parts"), std::string::npos);
  EXPECT_NE(usage_error(layout("wgmma-m64n100")).find("unknown layout"), std::string::npos);
}

// ---- the command line (runner/cli.cpp registers the subcommand through add_layout_subcommand) -----------

LayoutCommand parse_layout(std::vector<const char*> args) {
  args.insert(args.begin(), {"gemm", "layout"});
  const Command command = parse_command_line(static_cast<int>(args.size()), args.data());
  if (const LayoutCommand* parsed = std::get_if<LayoutCommand>(&command)) return *parsed;
  ADD_FAILURE() << "parsed to the command with variant index " << command.index();
  return {};
}

TEST(CliLayout, AloneListsTheLayouts) {
  const LayoutCommand command = parse_layout({});
  EXPECT_TRUE(command.name.empty());
  EXPECT_TRUE(command.parts.empty());
  EXPECT_TRUE(command.svg.empty());
}

TEST(CliLayout, TakesANamePartsAndOptions) {
  const LayoutCommand command =
      parse_layout({"tile-order", "hilbert", "--m", "2048", "--n", "8192", "--sms", "66", "--svg", "out.svg"});
  EXPECT_EQ(command.name, "tile-order");
  EXPECT_EQ(command.parts, (std::vector<std::string>{"hilbert"}));
  EXPECT_EQ(command.m, 2048);
  EXPECT_EQ(command.n, 8192);
  EXPECT_EQ(command.sms, 66);
  EXPECT_EQ(command.tile_m, 128);
  EXPECT_EQ(command.svg, "out.svg");
  EXPECT_EQ(parse_layout({"mma-m16n8k16", "A", "C"}).parts, (std::vector<std::string>{"A", "C"}));
  EXPECT_TRUE(parse_layout({"wgmma-m64n256", "--full"}).full);
}

TEST(CliLayout, RejectsABadOption) {
  std::vector<const char*> args = {"gemm", "layout", "tile-order", "grouped", "--sms", "0"};
  EXPECT_THROW(parse_command_line(static_cast<int>(args.size()), args.data()), UsageError);
  // --base: the parser takes 0..896 (its help says so); draw_layout refuses what is not a multiple of 128.
  EXPECT_EQ(parse_layout({"swizzle-128b", "tma", "--base", "896"}).base, 896);
  std::vector<const char*> past_the_last_row = {"gemm", "layout", "swizzle-128b", "tma", "--base", "1000"};
  EXPECT_THROW(parse_command_line(static_cast<int>(past_the_last_row.size()), past_the_last_row.data()), UsageError);
}

}  // namespace
}  // namespace gemm
