// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include <gtest/gtest.h>

#include "rules/game.hpp"
#include "rules/movegen.hpp"
#include "rules/outcome.hpp"

using namespace eboard::rules;

namespace {
Position fen(const char* f, Variant v = Variant::Chess) {
  auto p = Position::from_fen(f, v);
  EXPECT_TRUE(p) << (p ? "" : p.error());
  return p ? *p : Position::start();
}
Move mv(const char* from, const char* to) { return Move::make(parse_square(from), parse_square(to)); }
}  // namespace

TEST(Outcome, FoolsMateIsCheckmate) {
  Position p = fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
  EXPECT_TRUE(is_checkmate(p));
  EXPECT_FALSE(is_stalemate(p));
}

TEST(Outcome, Stalemate) {
  Position p = fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
  EXPECT_TRUE(is_stalemate(p));
  EXPECT_FALSE(is_checkmate(p));
}

TEST(Outcome, InsufficientMaterialCases) {
  EXPECT_TRUE(is_dead_position(fen("8/8/4k3/8/8/3K4/8/8 w - - 0 1")));      // K v K
  EXPECT_TRUE(is_dead_position(fen("8/8/4k3/8/8/3KN3/8/8 w - - 0 1")));     // K+N v K
  EXPECT_TRUE(is_dead_position(fen("8/8/4k3/8/8/3KB3/8/8 w - - 0 1")));     // K+B v K
  EXPECT_TRUE(is_dead_position(fen("8/8/4kb2/8/8/3KB3/8/8 w - - 0 1")));    // bishops on one colour
  EXPECT_FALSE(is_dead_position(fen("8/8/4k1b1/8/8/3KB3/8/8 w - - 0 1")));  // opposite colours: helpmate
  EXPECT_FALSE(is_dead_position(fen("8/8/4kn2/8/8/3KN3/8/8 w - - 0 1")));   // N v N: helpmate exists
  EXPECT_FALSE(is_dead_position(fen("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1")));   // two knights can mate (helped)
  EXPECT_FALSE(is_dead_position(fen("8/8/4k3/8/8/3K4/4P3/8 w - - 0 1")));   // a pawn
  EXPECT_FALSE(is_dead_position(fen("8/8/4k3/8/8/3K4/8/7R w - - 0 1")));    // a rook
}

TEST(Outcome, LockedPawnsAreDead) {
  // A closed chain across the board, kings on their own sides.
  EXPECT_TRUE(is_dead_position(fen("8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1")));
  // The same with a gap the white king can walk through to an undefended pawn: not dead.
  EXPECT_FALSE(is_dead_position(fen("8/4k3/8/3p1p1p/2pP1PpP/2P3P1/8/4K3 w - - 0 1")));
}

TEST(Outcome, FlagFallAgainstBareKingIsADraw) {
  Game g(fen("8/8/4k3/8/8/3K4/4P3/8 b - - 0 1"));
  EXPECT_EQ(g.flag_outcome(WHITE).result, Result::Draw);  // Black has a bare king: cannot mate
  EXPECT_EQ(g.flag_outcome(BLACK).result, Result::WhiteWins);
}

TEST(Outcome, ThreefoldAndFivefoldByKnightShuffle) {
  Game g(Position::start());
  const char* cycle[4][2] = {{"g1", "f3"}, {"g8", "f6"}, {"f3", "g1"}, {"f6", "g8"}};
  for (int round = 0; round < 4; ++round)
    for (auto& m : cycle) g.play(mv(m[0], m[1]));
  // The start position has now occurred five times.
  EXPECT_EQ(g.repetitions(), 5);
  EXPECT_TRUE(g.threefold_claimable());
  ASSERT_TRUE(g.automatic_outcome());
  EXPECT_EQ(g.automatic_outcome()->reason, "fivefold");
  g.undo();
  EXPECT_EQ(g.repetitions(), 4);  // after 16.. Ng8 undone, the position with Nf6 has occurred 4 times
  EXPECT_FALSE(g.automatic_outcome());
}

TEST(Outcome, SeventyFiveMovesEndTheGame) {
  Game g(fen("8/8/4k3/8/8/3K4/8/7R w - - 149 100"));
  EXPECT_FALSE(g.automatic_outcome());
  EXPECT_TRUE(g.fifty_moves_claimable());
  g.play(mv("h1", "h2"));
  ASSERT_TRUE(g.automatic_outcome());
  EXPECT_EQ(g.automatic_outcome()->reason, "seventy-five-moves");
}

TEST(Outcome, EnPassantRightMakesPositionsDifferent) {
  // After 1. e4 … the e3 square is not capturable: keys match the FEN without an en-passant square.
  Position p = Position::start();
  p.do_move(mv("e2", "e4"));
  EXPECT_EQ(p.ep_square(), SQ_NONE);
  // A pinned pawn cannot take en passant: the square is not kept either.
  Position q = fen("8/8/8/8/k2p3R/8/4P3/4K3 w - - 0 1");
  q.do_move(mv("e2", "e4"));
  EXPECT_EQ(q.ep_square(), SQ_NONE);
  Position r = fen("8/8/8/8/3p4/8/4P3/k3K3 w - - 0 1");
  r.do_move(mv("e2", "e4"));
  EXPECT_EQ(r.ep_square(), parse_square("e3"));
}

// ---- Bughouse mate (FQE 8–9) ----

TEST(BughouseMate, DistantCheckThatADropCouldBlockIsNotMate) {
  // Black king h8 boxed in by its own pawns, white rook a8 checks along the rank; Black has nothing to
  // drop now, but knights, bishops, rooks and the queen can still arrive from the partner: not mate.
  Position p = fen("R6k/6pp/8/8/8/8/8/K7[] b - - 0 1", Variant::Bughouse);
  EXPECT_TRUE(p.in_check());
  EXPECT_TRUE(MoveList(p).empty());
  EXPECT_FALSE(is_checkmate(p));
  EXPECT_TRUE(must_wait(p));
  // The same in chess is mate.
  EXPECT_TRUE(is_checkmate(fen("R6k/6pp/8/8/8/8/8/K7 b - - 0 1")));
}

TEST(BughouseMate, ContactCheckIsMate) {
  Position p = fen("7k/6Q1/8/8/3B4/8/8/K7[] b - - 0 1", Variant::Bughouse);  // Qg7+ defended by Bd4
  EXPECT_TRUE(is_checkmate(p));
}

TEST(BughouseMate, KnightCheckIsMate) {
  Position p = fen("6rk/5Npp/8/8/8/8/8/K7[] b - - 0 1", Variant::Bughouse);  // smothered
  EXPECT_TRUE(is_checkmate(p));
}

TEST(BughouseMate, DoubleCheckIsMate) {
  // Rook a8 and bishop from d4 both check the h8 king; no single drop blocks both.
  Position p = fen("R6k/7p/8/8/3B4/8/8/K7[] b - - 0 1", Variant::Bughouse);
  ASSERT_EQ(popcount(p.checkers()), 2);
  EXPECT_TRUE(MoveList(p).empty());
  EXPECT_TRUE(is_checkmate(p));
}

TEST(BughouseMate, NoPieceOfABlockingTypeCanArrive) {
  // Every black piece but pawns is on this board, so only a pawn could come; the gap squares b8–d8 are
  // on the eighth rank, where pawns cannot be dropped: no drop could ever block this check.
  Position p = fen("R3k3/3ppp2/8/8/qrrnnbb1/8/8/7K[] b - - 0 1", Variant::Bughouse);
  ASSERT_TRUE(p.in_check());
  EXPECT_EQ(potentially_available_types(p, BLACK), 1u << PAWN);
  EXPECT_FALSE(bughouse_could_block(p));
  // With a black knight missing from the board, a knight could arrive and block: the check is blockable.
  Position q = fen("R3k3/3ppp2/8/8/qrrn1bb1/8/8/7K[] b - - 0 1", Variant::Bughouse);
  EXPECT_TRUE(bughouse_could_block(q));
}

TEST(BughouseMate, NoStalemateInBughouse) {
  Position p = fen("7k/5Q2/6K1/8/8/8/8/8[] b - - 0 1", Variant::Bughouse);
  EXPECT_FALSE(is_stalemate(p));
  EXPECT_TRUE(must_wait(p));
  EXPECT_FALSE(is_dead_position(fen("8/8/4k3/8/8/3K4/8/8[] w - - 0 1", Variant::Bughouse)));
}

TEST(BughouseMate, PocketDropThatBlocksIsALegalMove) {
  Position p = fen("R6k/6pp/8/8/8/8/8/K7[n] b - - 0 1", Variant::Bughouse);
  MoveList moves(p);
  EXPECT_FALSE(moves.empty());
  EXPECT_TRUE(moves.contains(Move::drop(KNIGHT, parse_square("g8"))));
}

TEST(Bughouse, FourfoldWithoutDrops) {
  Game g(fen("r3k3/8/8/8/8/8/8/R3K3[] w - - 0 1", Variant::Bughouse));
  const char* cycle[4][2] = {{"a1", "a2"}, {"a8", "a7"}, {"a2", "a1"}, {"a7", "a8"}};
  for (int round = 0; round < 3; ++round)
    for (auto& m : cycle) g.play(mv(m[0], m[1]));
  EXPECT_TRUE(g.fourfold_no_drops_claimable());
  EXPECT_FALSE(g.automatic_outcome());  // no fivefold in bughouse
}
