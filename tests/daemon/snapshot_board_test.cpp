// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The Millennium emulator (drivers/millennium/emulator.hpp) and the adapters of boards that report whole
// positions (daemon/boards/snapshot_board.hpp): commands answered, reports as the hand changes squares,
// repeated reports given out once, junk skipped, and Chessnut frames read as the same positions.
#include <gtest/gtest.h>

#include "daemon/boards/snapshot_board.hpp"
#include "drivers/millennium/emulator.hpp"
#include "rules/position.hpp"

using namespace eboard;
namespace mil = eboard::drivers::millennium;
namespace cn = eboard::drivers::chessnut;
using daemon::ChessnutBoard;
using daemon::MillenniumBoard;

namespace {

std::vector<std::uint8_t> bytes(std::string_view s) { return {s.begin(), s.end()}; }

mil::Emulator start_emulator(mil::AutoReports reports = mil::AutoReports::on_change) {
  mil::Emulator e(mil::EmulatorConfig{.reports = reports});
  e.set_board(MillenniumBoard::to_squares(rules::Position::start().board()));
  return e;
}

}  // namespace

TEST(SnapshotBoards, SquaresMapBothWays) {
  const auto start = rules::Position::start().board();
  const mil::Squares sq = MillenniumBoard::to_squares(start);
  EXPECT_EQ(std::string(sq.begin(), sq.begin() + 8), "rnbqkbnr");  // a8 first
  EXPECT_EQ(std::string(sq.end() - 8, sq.end()), "RNBQKBNR");
  EXPECT_EQ(MillenniumBoard::from_squares(sq).squares, start);
  EXPECT_EQ(ChessnutBoard::from_position(ChessnutBoard::to_position(start)).squares, start);
}

TEST(SnapshotBoards, TheEmulatorAnswersSnapshotVersionLedsAndE2rom) {
  mil::Emulator e = start_emulator(mil::AutoReports::off);
  mil::Decoder d;
  e.host_bytes(0, mil::command::snapshot());
  e.host_bytes(0, mil::command::version());
  e.host_bytes(0, mil::command::write_e2rom(2, 3));
  e.host_bytes(0, mil::frame('R', "02"));
  std::array<std::uint8_t, 81> leds{};
  leds[0] = 0xFF;
  e.host_bytes(0, mil::command::leds(1, leds));
  auto replies = d.feed(e.take_output());
  ASSERT_EQ(replies.size(), 5u);
  EXPECT_EQ(std::get<mil::Snapshot>(replies[0]).squares, e.squares());
  EXPECT_EQ(std::get<mil::Version>(replies[1]), (mil::Version{1, 4}));
  EXPECT_EQ(std::get<mil::E2rom>(replies[2]), (mil::E2rom{true, 2, 3}));
  EXPECT_EQ(std::get<mil::E2rom>(replies[3]), (mil::E2rom{false, 2, 3}));
  EXPECT_TRUE(std::holds_alternative<mil::LedsSet>(replies[4]));
  EXPECT_EQ(e.leds()[0], 0xFF);
  e.host_bytes(0, mil::command::leds_off());
  EXPECT_EQ(e.leds()[0], 0);
  EXPECT_EQ(d.stats().bad_checks, 0u);
}

TEST(SnapshotBoards, TheEmulatorSkipsJunkAndBadChecksAndKeepsTheNextCommand) {
  mil::Emulator e = start_emulator(mil::AutoReports::off);
  std::vector<std::uint8_t> junk = bytes("zz\x01");  // junk, then S with a wrong check
  for (char c : std::string("S00")) junk.push_back(mil::with_odd_parity(c));
  e.host_bytes(0, junk);
  e.host_bytes(0, mil::command::snapshot());
  mil::Decoder d;
  auto replies = d.feed(e.take_output());
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(e.stats().bad_checks, 1u);
  EXPECT_GE(e.stats().unknown_bytes, 3u);
}

TEST(SnapshotBoards, AutomaticReportsComeAtTheNextScanAfterAChange) {
  mil::Emulator e = start_emulator();
  MillenniumBoard board;
  e.advance(0);  // the first scan reports the board
  auto first = board.feed(0, e.take_output());
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(std::get<rules::BoardSnapshot>(first[0].what).squares, rules::Position::start().board());
  EXPECT_FALSE(e.next_deadline());  // nothing changed: nothing to scan for
  e.set_square(rules::parse_square("e2"), '.');
  ASSERT_TRUE(e.next_deadline());
  e.advance(10);  // before the next scan
  EXPECT_TRUE(e.take_output().empty());
  e.advance(*e.next_deadline());
  auto lifted = board.feed(50, e.take_output());
  ASSERT_EQ(lifted.size(), 1u);
  EXPECT_EQ(std::get<rules::BoardSnapshot>(lifted[0].what).squares[rules::parse_square("e2")],
            rules::NO_PIECE);
}

TEST(SnapshotBoards, ReportsAtEveryScanAreGivenOutOnlyWhenTheyChange) {
  mil::Emulator e = start_emulator(mil::AutoReports::every_scan);
  MillenniumBoard board;
  std::size_t events = 0;
  for (std::int64_t t = 0; t < 1000; t += 41) {
    if (t == 410) e.set_square(rules::parse_square("e2"), '.');
    e.advance(t);
    events += board.feed(t, e.take_output()).size();
  }
  EXPECT_EQ(events, 2u);  // the first report and the lift
  EXPECT_GT(board.repeated_reports(), 15u);
  board.reset_link();  // after a reconnect the same position is news again
  e.host_bytes(1000, mil::command::snapshot());
  EXPECT_EQ(board.feed(1000, e.take_output()).size(), 1u);
}

TEST(SnapshotBoards, TheEmulatorIgnoresBytesWithoutOddParity) {
  mil::Emulator e = start_emulator(mil::AutoReports::off);
  e.host_bytes(0, mil::frame('S', "", false));  // "S53" as 7-bit characters: 'S', '5' and '3' even
  EXPECT_TRUE(e.take_output().empty());
  EXPECT_EQ(e.stats().parity_errors, 3u);
  EXPECT_EQ(e.stats().commands, 0u);
  e.host_bytes(1, mil::command::snapshot());
  EXPECT_EQ(mil::Decoder().feed(e.take_output()).size(), 1u);
}

TEST(SnapshotBoards, TheEmulatorsReportModeAndScanTimeAreItsE2rom) {
  mil::Emulator e = start_emulator(mil::AutoReports::off);
  for (std::int64_t t = 0; t < 500; t += 10) e.advance(t);
  EXPECT_TRUE(e.take_output().empty());  // reports off: silent
  EXPECT_FALSE(e.next_deadline());
  e.host_bytes(500, mil::command::write_e2rom(mil::e2rom::SCAN_TIME, 50));  // 102.4 ms a scan
  EXPECT_EQ(e.scan_ms(), 102);
  e.host_bytes(500,
               mil::command::write_e2rom(mil::e2rom::REPORTS, std::uint8_t(mil::ReportMode::debounce_3)));
  EXPECT_EQ(e.reports(), mil::ReportMode::debounce_3);
  (void)e.take_output();
  // A change is reported once it has stood for 3 scans.
  e.set_square(rules::parse_square("e2"), '.');
  std::vector<std::int64_t> reported_at;
  MillenniumBoard board;
  for (std::int64_t t = 500; t < 1500; t += 1) {
    e.advance(t);
    auto out = e.take_output();
    if (!out.empty()) reported_at.push_back(t);
    board.feed(t, out);
  }
  ASSERT_EQ(reported_at.size(), 1u);
  EXPECT_GE(reported_at[0], 500 + 2 * 102);
  EXPECT_EQ(board.snapshot().squares[rules::parse_square("e2")], rules::NO_PIECE);
  // Below 15 the board takes its default, 20.
  e.host_bytes(1500, mil::command::write_e2rom(mil::e2rom::SCAN_TIME, 3));
  EXPECT_EQ(e.scan_ms(), 41);
  // A reset keeps the E2ROM (it is the board's non-volatile memory).
  e.host_bytes(1500, mil::command::reset());
  EXPECT_EQ(e.reports(), mil::ReportMode::debounce_3);
}

TEST(SnapshotBoards, ChessnutFramesBecomePositionsOnceEach) {
  ChessnutBoard board;
  const auto start = rules::Position::start().board();
  auto frame = cn::position_frame(ChessnutBoard::to_position(start));
  std::vector<std::uint8_t> stream{0x2A, 0x02, 0x55, 0x00};  // a battery reply first
  stream.insert(stream.end(), frame.begin(), frame.end());
  stream.insert(stream.end(), frame.begin(), frame.end());  // the same position again
  std::size_t events = 0;
  for (std::size_t i = 0; i < stream.size(); i += 7)  // any chunking
    events += board.feed(0, std::span(stream).subspan(i, std::min<std::size_t>(7, stream.size() - i))).size();
  EXPECT_EQ(events, 1u);
  EXPECT_EQ(board.snapshot().squares, start);
}
