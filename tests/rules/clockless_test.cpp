// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Boards without a clock (Millennium, Chessnut: ReconstructConfig::complete_after_ms): a move is complete
// when the board has rested on it, or at once when the other side begins its reply; boards that report
// whole positions give scans as snapshots, compared square by square.
#include <gtest/gtest.h>

#include "rules/notation.hpp"
#include "rules/reconstruct.hpp"
#include "tests/rules/reconstruct_script.hpp"

using namespace eboard::rules;

using test_support::Script;

namespace {

ReconstructConfig clockless(std::int64_t ms = 1500) {
  ReconstructConfig cfg;
  cfg.complete_after_ms = ms;
  return cfg;
}

// The board after `uci` moves from the start.
std::array<Piece, 64> board_after(std::initializer_list<const char*> uci) {
  Position p = Position::start();
  for (const char* m : uci) {
    auto move = parse_uci(p, m);
    EXPECT_TRUE(move) << m;
    if (move) p.do_move(*move);
  }
  return p.board();
}

}  // namespace

TEST(Clockless, AMoveRestingOnTheBoardIsCompletedAfterTheConfiguredTime) {
  Reconstructor r(clockless(1500));
  Script s(r);
  s.snapshot(Position::start());
  s.lift("e2").place("e4", W_PAWN).wait(1400);
  EXPECT_TRUE(s.moves().empty());  // not rested long enough yet
  s.wait(200);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4"}));
  s.lift("e7").place("e5", B_PAWN).wait(1600);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5"}));
  EXPECT_TRUE(s.alerts().empty());
}

TEST(Clockless, TheTimeIsConfigurable) {
  Reconstructor r(clockless(400));
  Script s(r);
  s.snapshot(Position::start());
  s.lift("d2").place("d4", W_PAWN).wait(450);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"d2d4"}));
}

TEST(Clockless, TheOtherSideBeginningItsReplyCompletesTheMoveAtOnce) {
  Reconstructor r(clockless(1500));
  Script s(r);
  s.snapshot(Position::start());
  s.lift("e2").place("e4", W_PAWN).wait(200).lift("e7");
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4"}));
  s.place("e5", B_PAWN).wait(100).lift("g1");
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5"}));
  s.place("f3", W_KNIGHT).wait(1600);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5", "g1f3"}));
  EXPECT_TRUE(s.alerts().empty());
}

TEST(Clockless, AMoveTakenBackBeforeItRestedIsNotCompleted) {
  Reconstructor r(clockless(1500));
  Script s(r);
  s.snapshot(Position::start());
  s.lift("e2").place("e4", W_PAWN).wait(1000);
  s.lift("e4").place("e2", W_PAWN).lift("d2").place("d4", W_PAWN).wait(1000);
  EXPECT_TRUE(s.moves().empty());
  s.wait(600);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"d2d4"}));
}

TEST(Clockless, APieceInTheHandCompletesNothing) {
  Reconstructor r(clockless(1500));
  Script s(r);
  s.snapshot(Position::start());
  s.lift("g1").wait(5000);
  EXPECT_TRUE(s.moves().empty());
  // The mover's own second piece lifted is no reply: castling's rook after the king.
  s.place("f3", W_KNIGHT).wait(2000);
  s.lift("g8").place("f6", B_KNIGHT).wait(100).lift("e2").place("e3", W_PAWN).wait(2000);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"g1f3", "g8f6", "e2e3"}));
}

TEST(Clockless, ScansAsSnapshotsGiveTheMovesAndACaptureInOneScan) {
  Reconstructor r(clockless(1500));
  Script s(r);
  s.snapshot(Position::start());
  auto in_air = board_after({});
  in_air[parse_square("e2")] = NO_PIECE;
  s.feed_board(in_air).feed_board(board_after({"e2e4"})).wait(300);
  // Black's reply begins in the next scan: e4 completes at once.
  auto black_lifts = board_after({"e2e4"});
  black_lifts[parse_square("d7")] = NO_PIECE;
  s.feed_board(black_lifts);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4"}));
  s.feed_board(board_after({"e2e4", "d7d5"})).wait(1600);
  s.feed_board(board_after({"e2e4", "d7d5", "e4d5"})).wait(1600);  // the capture seen whole in one scan
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "d7d5", "e4d5"}));
  EXPECT_TRUE(s.alerts().empty());
}

TEST(Clockless, ALiftInAScanIsATouch) {
  ReconstructConfig cfg = clockless(1500);
  Reconstructor r(cfg);
  Script s(r);
  s.snapshot(Position::start());
  s.feed_board(board_after({"e2e4"})).wait(1600);
  // Black touches the g8 knight (lifted and set back), then plays a pawn: touch-move under FIDE 4.3.
  auto touched = board_after({"e2e4"});
  touched[parse_square("g8")] = NO_PIECE;
  s.feed_board(touched).feed_board(board_after({"e2e4"})).wait(600);
  s.feed_board(board_after({"e2e4", "e7e5"})).wait(1600);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5"}));
  EXPECT_FALSE(s.alerts().empty()) << "a touched knight that could move and a pawn played instead";
}

TEST(Clockless, WithAClockNothingCompletesWithoutAPress) {
  Reconstructor r(ReconstructConfig{});  // complete_after_ms 0: the clock completes moves
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.lift("e2").place("e4", W_PAWN).wait(10000);
  EXPECT_TRUE(s.moves().empty());
}
