// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The host's side of the ChessLink conversation (drivers/millennium/host.hpp) in virtual time: the settings
// written and read back one command at a time before the squares are asked, replies matched by letter with
// automatic reports in between, resends and giving up, a setting read back wrong written again, and the
// poll after a silence. Then the host against the emulated board, which starts with its reports off.
#include <gtest/gtest.h>

#include <string>

#include "drivers/millennium/emulator.hpp"
#include "drivers/millennium/host.hpp"

namespace mil = eboard::drivers::millennium;

namespace {

// What the host sent, as text: each frame's characters with the parity checked and stripped ("W020356|…").
std::string commands(const std::vector<std::uint8_t>& wire) {
  std::string out;
  for (std::uint8_t b : wire) {
    EXPECT_TRUE(mil::odd_parity(b)) << "byte " << int(b) << " sent with even parity";
    const char c = char(b & 0x7F);
    if (c >= 'A' && c <= 'Z' && !out.empty()) out += '|';
    out += c;
  }
  return out;
}

mil::Reply w(std::uint8_t a, std::uint8_t v) { return mil::E2rom{true, a, v}; }
mil::Reply r(std::uint8_t a, std::uint8_t v) { return mil::E2rom{false, a, v}; }
mil::Reply squares() {
  mil::Snapshot s;
  s.squares.fill('.');
  return s;
}

}  // namespace

TEST(MillenniumHost, ConnectWritesReadsBackThenAsksTheSquaresOneCommandAtATime) {
  mil::Host h;
  h.connected(0);
  EXPECT_EQ(commands(h.take_output()), "W020356");  // report mode 3: on change
  h.reply(5, squares());                            // an automatic report: not the answer
  EXPECT_TRUE(h.take_output().empty());
  h.reply(6, w(2, 3));
  EXPECT_EQ(commands(h.take_output()), "W011453");  // scan time 0x14 = 20
  h.reply(10, w(1, 20));
  EXPECT_EQ(commands(h.take_output()), "R0250");
  h.reply(15, r(1, 20));  // the wrong address: not the answer
  EXPECT_TRUE(h.take_output().empty());
  h.reply(20, r(2, 3));
  EXPECT_EQ(commands(h.take_output()), "R0153");
  EXPECT_FALSE(h.settings_confirmed());
  h.reply(25, r(1, 20));
  EXPECT_TRUE(h.settings_confirmed());
  EXPECT_EQ(commands(h.take_output()), "S53");
  h.reply(30, squares());
  EXPECT_TRUE(h.take_output().empty());
  EXPECT_EQ(h.stats().commands_sent, 5u);
  EXPECT_EQ(h.stats().settings_confirmed, 1u);
  EXPECT_EQ(h.next_deadline(), 30 + h.config().silence_ms);
}

TEST(MillenniumHost, ASettingReadBackWrongIsWrittenAgainAndAGiveUpIsCounted) {
  mil::HostConfig cfg;
  cfg.attempts = 2;
  mil::Host h(cfg);
  h.connected(0);
  (void)h.take_output();
  h.reply(1, w(2, 3));
  h.reply(2, w(1, 20));
  (void)h.take_output();
  h.reply(3, r(2, 1));  // reports still off: the write did not take
  EXPECT_EQ(commands(h.take_output()), "W020356");
  h.reply(4, w(2, 3));
  EXPECT_EQ(commands(h.take_output()), "R0250");
  h.reply(5, r(2, 1));
  (void)h.take_output();
  h.reply(6, w(2, 3));
  (void)h.take_output();
  h.reply(7, r(2, 1));  // the second rewrite did not take either: give up on it, go on
  EXPECT_EQ(commands(h.take_output()), "R0153");
  EXPECT_EQ(h.stats().settings_rewritten, 2u);
  EXPECT_EQ(h.stats().settings_refused, 1u);
  h.reply(8, r(1, 20));
  EXPECT_FALSE(h.settings_confirmed());
  EXPECT_EQ(commands(h.take_output()), "S53");
}

TEST(MillenniumHost, AnUnansweredCommandIsResentThenLeftForTheNext) {
  mil::HostConfig cfg;
  cfg.attempts = 3;
  cfg.reply_timeout_ms = 100;
  mil::Host h(cfg);
  h.connected(1000);
  EXPECT_EQ(commands(h.take_output()), "W020356");
  EXPECT_EQ(h.next_deadline(), 1100);
  h.advance(1099);
  EXPECT_TRUE(h.take_output().empty());
  h.advance(1100);
  EXPECT_EQ(commands(h.take_output()), "W020356");
  h.advance(1200);
  EXPECT_EQ(commands(h.take_output()), "W020356");
  h.advance(1300);  // three sends: the next command
  EXPECT_EQ(commands(h.take_output()), "W011453");
  EXPECT_EQ(h.stats().resends, 2u);
  EXPECT_EQ(h.stats().unanswered, 1u);
}

TEST(MillenniumHost, ASilentBoardIsAskedItsSquaresAndItsReportModeIsPutRight) {
  mil::Host h;
  h.connected(0);
  for (const mil::Reply& reply : {w(2, 3), w(1, 20), r(2, 3), r(1, 20), squares()}) h.reply(10, reply);
  (void)h.take_output();
  const std::int64_t silent_at = 10 + h.config().silence_ms;
  h.advance(silent_at - 1);
  EXPECT_TRUE(h.take_output().empty());
  h.advance(silent_at);
  EXPECT_EQ(commands(h.take_output()), "S53");
  h.reply(silent_at + 5, squares());
  EXPECT_EQ(commands(h.take_output()), "R0250");
  h.reply(silent_at + 10, r(2, 1));  // someone turned the reports off
  EXPECT_EQ(commands(h.take_output()), "W020356");
  h.reply(silent_at + 15, w(2, 3));
  EXPECT_EQ(commands(h.take_output()), "R0250");
  h.reply(silent_at + 20, r(2, 3));
  EXPECT_TRUE(h.take_output().empty());
  EXPECT_EQ(h.stats().silence_polls, 1u);
  EXPECT_EQ(h.stats().settings_rewritten, 1u);
  // A board that answers nothing is polled again one silence after the last poll, not in a tight loop.
  h.advance(silent_at + 20 + h.config().silence_ms);
  EXPECT_EQ(commands(h.take_output()), "S53");
  h.disconnected();
  EXPECT_FALSE(h.next_deadline());
}

TEST(MillenniumHost, TheEmulatedBoardWithReportsOffAtPowerUpReportsAMoveAfterTheConversation) {
  mil::Emulator board(mil::EmulatorConfig{.reports = mil::ReportMode::off});
  mil::Squares start{};
  start.fill('.');
  start[52] = 'P';  // e2
  board.set_board(start);
  mil::Host host;
  mil::Decoder decoder;
  std::vector<mil::Snapshot> seen;
  host.connected(0);
  for (std::int64_t t = 0; t < 2000; t += 5) {
    if (t == 1000) board.set_square(28, 'P'), board.set_square(12, '.');  // e2-e4 by hand
    host.advance(t);
    board.host_bytes(t, host.take_output());
    board.advance(t);
    for (const mil::Reply& reply : decoder.feed(board.take_output())) {
      host.reply(t, reply);
      if (const auto* s = std::get_if<mil::Snapshot>(&reply)) seen.push_back(*s);
    }
  }
  EXPECT_TRUE(host.settings_confirmed());
  EXPECT_EQ(board.reports(), mil::ReportMode::on_change);
  EXPECT_EQ(board.e2rom(mil::e2rom::SCAN_TIME), 20);
  ASSERT_GE(seen.size(), 2u);
  EXPECT_EQ(seen.front().squares, start);
  EXPECT_EQ(seen.back().squares[std::size_t(mil::board_index(28))], 'P');
  EXPECT_EQ(seen.back().squares[std::size_t(mil::board_index(12))], '.');
  EXPECT_EQ(board.stats().parity_errors, 0u);
  EXPECT_EQ(host.stats().resends, 0u);
}
