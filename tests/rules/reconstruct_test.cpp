// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Scripted sensor sequences through the reconstructor: clean play in its common physical forms.
// (The scenario table of irregularities and the corpus played by the simulated hand live beside this.)
#include <gtest/gtest.h>

#include "rules/notation.hpp"
#include "rules/reconstruct.hpp"
#include "tests/rules/reconstruct_script.hpp"

using namespace eboard::rules;

using test_support::Script;

TEST(Reconstruct, CleanOpeningCompletedByPresses) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.move("e2", "e4", W_PAWN).move("e7", "e5", B_PAWN).move("g1", "f3", W_KNIGHT);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5", "g1f3"}));
  EXPECT_TRUE(s.alerts().empty());
  EXPECT_EQ(r.left_player(), WHITE);
}

// What the operator's page needs to run the clocks between readings: both times, whose clock runs (the
// side on move: its lever is up), and when they were read.
TEST(Reconstruct, TheClockAsLastReadSaysWhoseClockRuns) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  EXPECT_FALSE(r.clock_now());
  s.snapshot(Position::start()).clock_start();
  auto c = r.clock_now();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->running, WHITE);
  EXPECT_EQ(c->read_ms, s.t());
  EXPECT_TRUE(c->times.known());
  s.move("e2", "e4", W_PAWN);
  c = r.clock_now();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->running, BLACK);
  EXPECT_EQ(c->read_ms, s.t());
  s.move("e7", "e5", B_PAWN);
  EXPECT_EQ(r.clock_now()->running, WHITE);
}

TEST(Reconstruct, MoveIsProvisionalUntilThePress) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.lift("e2").place("e4", W_PAWN).wait(400);
  EXPECT_TRUE(s.moves().empty());
  bool provisional = false;
  for (const auto& e : s.events()) provisional |= std::holds_alternative<ProvisionalMoveEvent>(e.what);
  EXPECT_TRUE(provisional);
  // The player changes his mind before pressing: e4 becomes d4.
  s.lift("e4").place("e2", W_PAWN).lift("d2").place("d4", W_PAWN).wait(300).press();
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"d2d4"}));
}

TEST(Reconstruct, CaptureInEitherOrderAndCastlingKingFirst) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.move("e2", "e4", W_PAWN).move("d7", "d5", B_PAWN);
  s.lift("d5").lift("e4").place("d5", W_PAWN).wait(300).press();  // victim first
  s.move("d8", "d5", B_QUEEN);                                    // mover first, victim never seen lifted
  s.move("g1", "f3", W_KNIGHT)
      .move("c8", "g4", B_BISHOP)
      .move("f1", "e2", W_BISHOP)
      .move("b8", "c6", B_KNIGHT);
  s.lift("e1").place("g1", W_KING).lift("h1").place("f1", W_ROOK).wait(300).press();
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "d7d5", "e4d5", "d8d5", "g1f3", "c8g4", "f1e2",
                                                 "b8c6", "e1g1"}));
  EXPECT_TRUE(s.alerts().empty());
}

// The press reading comes after the scans of what the hand did before the press (a DGT board reads its
// clock between sweeps), so a board showing a legal move then is completed by that very reading, however
// soon after the last placement it comes: no waiting for another scan.
TEST(Reconstruct, MoveShownAtThePressReadingIsCompletedByIt) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.lift("e2").place("e3", W_PAWN).press();  // e3 may look like a stop on the way to e4: it is not waited on
  ASSERT_EQ(s.moves(), (std::vector<std::string>{"e2e3"}));
  EXPECT_EQ(s.events().back().t_ms, s.t());  // out of the press reading itself
  s.lift("g8").place("f6", B_KNIGHT).press();
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e3", "g8f6"}));
  EXPECT_TRUE(s.alerts().empty());
}

// With a clock read apart from the scan, the press may be read before the scan that shows where a pushed
// piece stopped: a move that may be a stop on the way (e2-e3 on the way to e4, Rh1-f1 before the king
// castles) waits one scan after the board's last change; one that cannot (a knight's) does not.
TEST(Reconstruct, ClockReadApartFromTheScanWaitsForAPossibleSlide) {
  ReconstructConfig cfg;
  cfg.press_read_after_scan = false;
  Reconstructor r(cfg);
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.lift("e2").place("e3", W_PAWN).press();
  EXPECT_TRUE(s.moves().empty());
  s.lift("e3").place("e4", W_PAWN);  // the scan after the press: the pawn was pushed on to e4
  s.wait(300);
  ASSERT_EQ(s.moves(), (std::vector<std::string>{"e2e4"}));
  s.lift("g8").place("f6", B_KNIGHT).press();
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "g8f6"}));  // a knight does not slide
  EXPECT_TRUE(s.alerts().empty());
}

TEST(Reconstruct, OpponentStartsBeforeThePressIsRead) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.lift("e2").place("e4", W_PAWN).lift("e7");  // Black already lifts his pawn when the press arrives
  s.press();
  ASSERT_EQ(s.moves(), (std::vector<std::string>{"e2e4"}));  // completed by the press reading itself
  EXPECT_EQ(s.events().back().t_ms, s.t());
  s.place("e5", B_PAWN).wait(300).press();
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5"}));
}

TEST(Reconstruct, ClockWithoutMoveIsReported) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.move("e2", "e4", W_PAWN).press().wait(400);  // judged once the board has settled
  EXPECT_EQ(s.alerts(), (std::vector<std::string>{"clock-without-move"}));
}

TEST(Reconstruct, MissedPressIsRecoveredFromTwoMoves) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.move("e2", "e4", W_PAWN);
  // Black moves, but the reading of his press arrives only after White has replied on the board: the
  // press completes Black's move (the last one the board showed for him), White's reply stays pending.
  s.lift("e7").place("e5", B_PAWN).wait(300);
  s.lift("g1").place("f3", W_KNIGHT).wait(300);
  s.press().wait(400);  // decided one scan after the press, on the board states seen
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5"}));
}

TEST(Reconstruct, MateCompletesWithoutPress) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.move("f2", "f3", W_PAWN).move("e7", "e5", B_PAWN).move("g2", "g4", W_PAWN);
  s.lift("d8").place("h4", B_QUEEN).wait(400);
  EXPECT_EQ(s.moves().back(), "d8h4");
  bool mate = false;
  for (const auto& e : s.events())
    if (auto* res = std::get_if<ResultEvent>(&e.what))
      mate = res->reason == "checkmate" && res->result == Result::BlackWins;
  EXPECT_TRUE(mate);
}

TEST(Reconstruct, ResultGestureEndsTheGame) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.move("e2", "e4", W_PAWN).move("e7", "e5", B_PAWN);
  // Kings to the light central squares: 1-0. The e4 pawn must go first to make room.
  s.lift("e4").lift("e1").place("e4", W_KING).lift("e8").lift("d7").place("d5", B_KING).wait(400);
  bool one_nil = false;
  for (const auto& e : s.events())
    if (auto* res = std::get_if<ResultEvent>(&e.what)) one_nil = res->result == Result::WhiteWins;
  EXPECT_TRUE(one_nil);
  EXPECT_EQ(s.moves().size(), 2u);
}

TEST(Reconstruct, UnexplainedBoardRaisesMismatchOnceThenRecovers) {
  ReconstructConfig cfg;
  cfg.mismatch_ms = 2000;
  Reconstructor r(cfg);
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.move("e2", "e4", W_PAWN);
  s.place("e6", W_QUEEN).wait(300).wait(2500).wait(2500);  // a stray queen appears from nowhere
  EXPECT_EQ(s.alerts(), (std::vector<std::string>{"position-mismatch"}));
  s.lift("e6").wait(300).move("e7", "e5", B_PAWN);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5"}));
}

TEST(Reconstruct, StartPositionStartsANewGame) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.move("e2", "e4", W_PAWN);
  s.lift("e4").place("e2", W_PAWN).wait(300);
  EXPECT_EQ(r.game().ply_count(), 0);
}

TEST(Reconstruct, WrongSetupForTheNextGameIsReportedWithTheSquares) {
  ReconstructConfig cfg;
  cfg.mismatch_ms = 2000;
  Reconstructor r(cfg);
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.move("f2", "f3", W_PAWN).move("e7", "e5", B_PAWN).move("g2", "g4", W_PAWN);
  s.lift("d8").place("h4", B_QUEEN).wait(400);  // mate: the game is over
  ASSERT_TRUE(r.game().outcome().has_value());
  // The players set up the next game with the white king and queen swapped.
  auto wrong = Position::start().board();
  std::swap(wrong[parse_square("d1")], wrong[parse_square("e1")]);
  s.feed_board(wrong).wait(300).wait(2500).wait(2500);
  ASSERT_EQ(s.alerts(), (std::vector<std::string>{"setup-error"}));
  std::string detail;
  for (const auto& e : s.events())
    if (auto* a = std::get_if<AlertEvent>(&e.what)) detail = a->detail;
  EXPECT_NE(detail.find("d1 shows K instead of Q"), std::string::npos) << detail;
  EXPECT_NE(detail.find("e1 shows Q instead of K"), std::string::npos) << detail;
  // Corrected: the start position starts the new game, and play goes on without another alert.
  s.feed_board(Position::start().board()).wait(300).clock_start();
  s.move("e2", "e4", W_PAWN);
  EXPECT_EQ(r.game().ply_count(), 1);
  EXPECT_EQ(s.alerts().size(), 1u);
}

// A field update lost on the wire (Black's pawn set down on e5): the press finds the board with a pawn
// lifted and none set. Once it is at rest the board is asked for whole, once for that press; the dump it
// answers with shows the move, which the press then completes. Without the re-read option nothing is asked.
TEST(Reconstruct, APressTheBoardShowsNoMoveForAsksForTheWholeBoardOnce) {
  ReconstructConfig cfg;
  cfg.reread_board = true;
  Reconstructor r(cfg);
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.move("e2", "e4", W_PAWN);
  s.lift("e7").wait(300).press();  // e7-e5: the placement of e5 never arrives
  EXPECT_FALSE(r.board_read_wanted());
  s.wait(800);  // a scan for the last placement, then the board at rest
  ASSERT_TRUE(r.board_read_wanted());
  const std::int64_t asked_for = *r.board_read_wanted();
  Position now = Position::start();
  now.do_move(*parse_uci(now, "e2e4"));
  now.do_move(*parse_uci(now, "e7e5"));
  s.snapshot(now);
  EXPECT_FALSE(r.board_read_wanted());  // answered
  s.wait(400);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5"}));
  EXPECT_TRUE(s.alerts().empty()) << s.alerts().front();
  s.lift("g1").wait(300).press().wait(800);  // the next press the board shows no move for asks again
  ASSERT_TRUE(r.board_read_wanted());
  EXPECT_NE(*r.board_read_wanted(), asked_for);

  Reconstructor off{ReconstructConfig{}};
  Script o(off);
  o.snapshot(Position::start()).clock_start();
  o.move("e2", "e4", W_PAWN);
  o.lift("e7").wait(300).press().wait(800);
  EXPECT_FALSE(off.board_read_wanted());
}

// A board read whole on request that shows an illegal move standing is not a gap to explain: the rules of
// illegal moves apply (a gap search would find some legal story for it).
TEST(Reconstruct, ABoardReReadOnRequestIsNoGap) {
  ReconstructConfig cfg;
  cfg.reread_board = true;
  Reconstructor r(cfg);
  Script s(r);
  s.snapshot(Position::start()).clock_start();
  s.move("e2", "e4", W_PAWN).move("e7", "e5", B_PAWN);
  // White's knight from g1 to e2 and then, unseen, on to d4 in one gesture: the board re-read shows Nd4,
  // which two moves of White explain but no legal move does.
  s.lift("g1").wait(300).press().wait(800);
  ASSERT_TRUE(r.board_read_wanted());
  Position shown = Position::start();
  for (const char* u : {"e2e4", "e7e5"}) shown.do_move(*parse_uci(shown, u));
  auto board = shown.board();
  board[parse_square("g1")] = NO_PIECE;
  board[parse_square("d4")] = W_KNIGHT;
  s.feed_board(board).wait(6000);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5"}));
  ASSERT_FALSE(s.alerts().empty());
  for (const auto& a : s.alerts()) EXPECT_NE(a, "moves-missed");
}

// The clock's first reading comes after the game's first press (a clock switched on late, or read late):
// White's e4 is on the board and the lever already over, Black's clock running. That reading alone cannot
// tell "pressed" from "not pressed yet"; Black's press, the board showing e4 and e5, tells it.
TEST(Reconstruct, AClockFirstReadAfterTheFirstPressSeatsThePlayersByTheNextPress) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start());
  s.move("e2", "e4", W_PAWN);  // the first reading: White has pressed
  s.move("e7", "e5", B_PAWN).move("g1", "f3", W_KNIGHT).move("b8", "c6", B_KNIGHT);
  s.wait(1000);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5", "g1f3", "b8c6"}));
  EXPECT_TRUE(s.alerts().empty());
  EXPECT_EQ(r.left_player(), WHITE);
}

// The same first reading with the move shown and not pressed yet (White's clock running): the guess was
// right, and White's press completes e4.
TEST(Reconstruct, AClockFirstReadWithTheFirstMoveShownNotPressedKeepsTheSeats) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start());
  s.lift("e2").place("e4", W_PAWN).wait(300).clock_start();  // White's clock running, e4 on the board
  s.wait(300).press();
  s.move("e7", "e5", B_PAWN).move("g1", "f3", W_KNIGHT);
  s.wait(1000);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5", "g1f3"}));
  EXPECT_TRUE(s.alerts().empty());
  EXPECT_EQ(r.left_player(), WHITE);
}
