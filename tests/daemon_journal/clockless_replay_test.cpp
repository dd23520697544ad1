// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Journals kept from emulated Millennium boards (no clock) on a loaded machine at 8x time: scans read late
// show a move and its reply at once, or moves with the next hand already at work. Their sensor records
// replayed through the same reconstruction must follow the game to the board's last position, as the
// emulated hands played it, never lost after a position-mismatch.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/machine.hpp"
#include "daemon/journal/records.hpp"
#include "rules/notation.hpp"

using namespace eboard;

namespace {

struct Replayed {
  std::vector<std::string> moves;  // UCI, as completed
  std::vector<std::string> alerts;
  std::array<rules::Piece, 64> last_board{};
  rules::Position position;
  bool board_seen = false;
  std::string told;  // what the replay published, for a failure's message
};

Replayed replay(const std::string& file, const std::string& board) {
  Replayed out;
  auto scan = journal::scan_journal(std::string(EBOARD_TEST_DATA) + "/journals/" + file);
  EXPECT_TRUE(scan) << file;
  if (!scan) return out;
  journal::GameMachine machine(board);
  auto take = [&](const std::vector<rules::Event>& events) {
    for (const auto& e : events) {
      if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) {
        out.moves.push_back(m->uci);
        out.told += std::to_string(e.t_ms) + " " + std::to_string(m->ply) + " " + m->san + "\n";
      }
      if (const auto* a = std::get_if<rules::AlertEvent>(&e.what)) {
        out.alerts.push_back(a->code);
        out.told += std::to_string(e.t_ms) + " " + a->code + " " + a->detail + "\n";
      }
    }
  };
  for (const auto& r : scan->records) {
    auto entry = journal::decode_entry(r.type, r.body);
    if (!entry) continue;
    if (const auto* g = std::get_if<journal::NewGameEntry>(&*entry)) {
      EXPECT_TRUE(machine.new_game(*g));
    } else if (const auto* s = std::get_if<rules::SensorEvent>(&*entry)) {
      if (const auto* b = std::get_if<rules::BoardSnapshot>(&s->what)) {
        out.last_board = b->squares;
        out.board_seen = true;
      }
      take(machine.on_sensor(*s));
    } else if (const auto* a = std::get_if<journal::AdvanceEntry>(&*entry)) {
      take(machine.advance(a->t_ms));
    }
  }
  take(machine.advance(machine.last_t() + 60'000));  // the board left at rest
  out.position = machine.game().position();
  return out;
}

void expect_followed_to_the_end(const Replayed& r, std::size_t at_least) {
  ASSERT_TRUE(r.board_seen);
  EXPECT_GE(r.moves.size(), at_least) << r.told;
  EXPECT_TRUE(r.position.board() == r.last_board) << "the game stops short of the board's last position\n"
                                                  << r.told;
}

}  // namespace

// Game 18: O-O and Bxf6 seen with the queen already in the hand, after a scan gap of 14 s (game time).
// Published then: 17 plies and a position-mismatch, nothing after. The emulated hands played 47 plies,
// to 24.Qe6# (five of them, 32-36, come as a moves-missed gap: several orders reach the board).
TEST(ClocklessJournalReplay, Game18IsFollowedToTheEnd) {
  Replayed r = replay("M18.journal", "M18");
  expect_followed_to_the_end(r, 42);
  const std::vector<std::string> first = {"e2e4", "e7e5", "g1f3", "b8c6", "d2d4", "e5d4", "f3d4",
                                          "f8b4", "b1c3", "g8f6", "d1f3", "d7d6", "c1g5", "c8g4",
                                          "d4c6", "b7c6", "f3f4", "e8g8", "g5f6", "d8e7", "f6e7"};
  ASSERT_GE(r.moves.size(), first.size());
  EXPECT_EQ(std::vector<std::string>(r.moves.begin(), r.moves.begin() + std::ptrdiff_t(first.size())), first);
  for (const auto& a : r.alerts) EXPECT_NE(a, "position-mismatch") << r.told;
}

// Game 22: Qd1 set down with Black's hand already on the f8 bishop, Bb4+ with White's on c1; later Qxc2
// read with both queens in the air, and a king's move (Kb4) never seen at all. Published then: 6 plies
// and a position-mismatch, nothing after. The emulated hands played corpus game 22, all 111 plies, to
// 56.h6: every one is followed, in order, with no alert.
TEST(ClocklessJournalReplay, Game22IsFollowedToTheEnd) {
  Replayed r = replay("M22.journal", "M22");
  expect_followed_to_the_end(r, 111);
  const std::vector<std::string> game = {
      "d2d4", "e7e5", "g1f3", "e5d4", "d1d4", "b8c6", "d4d1", "f8b4", "c1d2", "b4d2", "b1d2", "g8f6", "e2e4",
      "e8g8", "e4e5", "d7d6", "e5f6", "d8f6", "f1e2", "f6b2", "e1g1", "c8f5", "a1b1", "b2c2", "d1c2", "f5c2",
      "b1b2", "c2a4", "d2b3", "a4b3", "b2b3", "b7b6", "e2b5", "c6e5", "f3e5", "d6e5", "b5c6", "a8d8", "b3b1",
      "a7a5", "h2h3", "f7f6", "b1c1", "f8f7", "c6f3", "f7e7", "f3d5", "g8f8", "d5c6", "d8d6", "c6b7", "c7c5",
      "b7f3", "e7c7", "f1d1", "d6d1", "c1d1", "c5c4", "d1c1", "c4c3", "f3e4", "b6b5", "c1c2", "b5b4", "g1f1",
      "f8e7", "f1e2", "e7d6", "e2d3", "d6c5", "e4h7", "a5a4", "h7g8", "c5b6", "d3e4", "b6a5", "e4f5", "b4b3",
      "a2b3", "a4b3", "g8b3", "a5b4", "b3e6", "c7c6", "e6d5", "c6c7", "f5e4", "c7d7", "e4d3", "d7c7", "d3e4",
      "b4a3", "g2g4", "a3b4", "e4d3", "b4c5", "c2c3", "c5d5", "c3c7", "d5d6", "c7g7", "d6e6", "h3h4", "e5e4",
      "d3e4", "e6d6", "e4f5", "d6d5", "h4h5", "d5d4", "h5h6"};
  EXPECT_EQ(r.moves, game) << r.told;
  EXPECT_TRUE(r.alerts.empty()) << r.told;
}
