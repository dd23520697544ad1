// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// FIDE Annex A.4.2 (profiles fide-rapid, fide-blitz): an illegal move stands unless the opponent claims
// before he makes his own move. What the game, the move events and the PGN make of one that stood.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/pgn.hpp"
#include "rules/reconstruct.hpp"
#include "tests/rules/reconstruct_script.hpp"

using namespace eboard::rules;
using eboard::rules::test_support::Script;

namespace {

ReconstructConfig config(const char* profile) {
  ReconstructConfig cfg;
  cfg.profile = *profile_by_name(profile);
  cfg.mismatch_ms = 3000;
  return cfg;
}

std::vector<MoveEvent> move_events(const Script& s) {
  std::vector<MoveEvent> out;
  for (const auto& e : s.events())
    if (const auto* m = std::get_if<MoveEvent>(&e.what)) out.push_back(*m);
  return out;
}

// White plays Nb1-b3 (no knight move) and presses; Black, not claiming, answers e7-e5 and presses.
void knight_stands(Script& s, const Position& start) {
  s.snapshot(start).clock_start();
  s.lift("b1").place("b3", W_KNIGHT).wait(300).press().wait(500);
  s.move("e7", "e5", B_PAWN).wait(4000);
}

// One line per event, every field that a consumer sees: a replay must give the same lines.
std::vector<std::string> trace(const Script& s) {
  std::vector<std::string> out;
  for (const auto& e : s.events()) {
    std::string line = std::to_string(e.t_ms) + " " + event_type(e);
    if (const auto* m = std::get_if<MoveEvent>(&e.what))
      line += " " + std::to_string(m->ply) + " " + m->uci + " " + m->san + (m->illegal ? " illegal" : "") +
              " " + std::to_string(m->clock.white_ms) + "/" + std::to_string(m->clock.black_ms);
    if (const auto* a = std::get_if<AlertEvent>(&e.what)) {
      line += " " + a->code + " " + a->detail;
      for (const auto& f : a->extra) line += " " + f.name + "=" + f.value;
    }
    out.push_back(line);
  }
  return out;
}

}  // namespace

TEST(IllegalMoveStands, TheIllegalMoveAndTheReplyAreBothPlies) {
  Reconstructor r(config("fide-blitz"));
  Script s(r);
  knight_stands(s, Position::start());
  auto moves = move_events(s);
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(moves[0].ply, 1);
  EXPECT_EQ(moves[0].uci, "b1b3");
  EXPECT_EQ(moves[0].san, "Nb1-b3");
  EXPECT_TRUE(moves[0].illegal);
  EXPECT_TRUE(moves[0].clock.known());
  EXPECT_EQ(moves[1].ply, 2);
  EXPECT_EQ(moves[1].uci, "e7e5");
  EXPECT_EQ(moves[1].san, "e5");
  EXPECT_FALSE(moves[1].illegal);
  EXPECT_EQ(s.alerts(), std::vector<std::string>{"illegal-move"});

  const Game& g = r.game();
  ASSERT_EQ(g.ply_count(), 2);
  EXPECT_TRUE(g.plies()[0].illegal);
  EXPECT_FALSE(g.plies()[1].illegal);
  EXPECT_EQ(g.legal_since(), 1);
  // Every earlier position is kept with its clock times (7.5.1): the start, the illegal one, the reply's.
  EXPECT_EQ(g.position_at(0).fen(), START_FEN);
  EXPECT_EQ(g.position_at(1).fen(), "rnbqkbnr/pppppppp/8/8/8/1N6/PPPPPPPP/R1BQKBNR b KQkq - 1 1");
  EXPECT_EQ(g.position().fen(), "rnbqkbnr/pppp1ppp/8/4p3/8/1N6/PPPPPPPP/R1BQKBNR w KQkq - 0 2");
  EXPECT_EQ(g.clock_at(1), moves[0].clock);
  EXPECT_EQ(g.clock_at(2), moves[1].clock);
  EXPECT_TRUE(r.board_matches_game());
}

TEST(IllegalMoveStands, ReplayingTheSameInputsGivesTheSameOutputs) {
  std::vector<std::string> runs[2];
  for (auto& run : runs) {
    Reconstructor r(config("fide-blitz"));
    Script s(r);
    knight_stands(s, Position::start());
    s.move("b3", "c5", W_KNIGHT).wait(4000);
    run = trace(s);
  }
  EXPECT_EQ(runs[0], runs[1]);
  // The alert, the illegal move, the reply, White's next move (shown provisionally, then completed).
  EXPECT_EQ(runs[0].size(), 5u);
}

TEST(IllegalMoveStands, StandardProfileNeverAdoptsIt) {
  Reconstructor r(config("fide-standard"));
  Script s(r);
  knight_stands(s, Position::start());
  EXPECT_TRUE(move_events(s).empty());
  EXPECT_EQ(s.alerts(), (std::vector<std::string>{"illegal-move", "position-mismatch"}));
  EXPECT_EQ(r.game().ply_count(), 0);
}

TEST(IllegalMoveStands, PgnStartsAfreshFromThePositionItLeft) {
  Reconstructor r(config("fide-blitz"));
  Script s(r);
  knight_stands(s, Position::start());
  s.move("b3", "c5", W_KNIGHT).wait(4000);
  GameRecord record;
  set_record_moves(record, r.game());
  auto text = write_pgn(record);
  ASSERT_TRUE(text) << text.error();
  EXPECT_NE(text->find("[SetUp \"1\"]"), std::string::npos) << *text;
  EXPECT_NE(text->find("[FEN \"rnbqkbnr/pppppppp/8/8/8/1N6/PPPPPPPP/R1BQKBNR b KQkq - 1 1\"]"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("{Moves before this position: 1. Nb1-b3 (illegal move that stood, FIDE A.4.2)}"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("1... e5 {[%clk "), std::string::npos) << *text;
  // Our own reader takes it back: the same moves, and the position the players are in.
  auto games = read_pgn(*text);
  ASSERT_TRUE(games) << games.error();
  ASSERT_EQ(games->size(), 1u);
  auto replayed = replay((*games)[0]);
  ASSERT_TRUE(replayed) << replayed.error();
  EXPECT_EQ(replayed->moves.size(), 2u);
  EXPECT_EQ(final_position(*replayed).fen(), r.game().position().fen());
  EXPECT_EQ(replayed->moves[0].clock_ms, record.moves[0].clock_ms);
}

TEST(IllegalMoveStands, KingLeftInCheckIsWrittenFromAfterTheReply) {
  // The position right after Be2-d3?? has White's king attacked with Black to move: no FEN reader takes
  // it, so the record starts after Black's reply, with White to move and in check.
  auto start = Position::from_fen("4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1");
  ASSERT_TRUE(start);
  Reconstructor r(config("fide-blitz"), Game(*start));
  Script s(r);
  s.snapshot(*start).clock_start();
  s.lift("e2").place("d3", W_BISHOP).wait(300).press().wait(500);
  s.move("e8", "d8", B_KING).wait(500);
  auto moves = move_events(s);
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(moves[0].san, "Be2-d3");
  EXPECT_TRUE(moves[0].illegal);
  EXPECT_EQ(moves[1].uci, "e8d8");
  EXPECT_TRUE(r.game().position().in_check());  // White must answer the check now

  GameRecord record;
  set_record_moves(record, r.game());
  EXPECT_EQ(record.start.fen(), r.game().position_at(2).fen());
  EXPECT_TRUE(record.moves.empty());
  EXPECT_EQ(record.intro_comment,
            "Moves before this position: 1. Be2-d3 (illegal move that stood, FIDE A.4.2) 1... Kd8+");
  auto text = write_pgn(record);
  ASSERT_TRUE(text) << text.error();
  auto games = read_pgn(*text);
  ASSERT_TRUE(games) << games.error();
  auto replayed = replay((*games)[0]);
  ASSERT_TRUE(replayed) << replayed.error();
  EXPECT_EQ(final_position(*replayed).fen(), r.game().position().fen());
}

TEST(IllegalMoveStands, GameWithoutIllegalMoveIsWrittenAsBefore) {
  Game g(Position::start());
  g.play(*parse_uci(g.position(), "e2e4"), ClockTimes{1000, 2000});
  GameRecord record;
  set_record_moves(record, g);
  EXPECT_EQ(record.start.fen(), START_FEN);
  EXPECT_TRUE(record.intro_comment.empty());
  ASSERT_EQ(record.moves.size(), 1u);
  EXPECT_EQ(record.moves[0].clock_ms, 1000);
}

TEST(IllegalMoveStands, UndoOfTheIllegalPlyGivesThePositionBack) {
  Game g(Position::start());
  g.play(*parse_uci(g.position(), "e2e4"));
  Position before = g.position();
  auto after = before.after_illegal_move(parse_square("e7"), parse_square("e4"));  // a pawn straight on
  ASSERT_TRUE(after) << after.error();
  g.play_illegal(Move::make(parse_square("e7"), parse_square("e4")), *after);
  g.play(*parse_uci(g.position(), "d2d4"));
  EXPECT_EQ(g.legal_since(), 2);
  EXPECT_EQ(g.position_at(2).fen(), after->fen());
  g.undo();
  EXPECT_EQ(g.position().fen(), after->fen());
  g.undo();
  EXPECT_EQ(g.position().fen(), before.fen());
  EXPECT_EQ(g.legal_since(), 0);
  EXPECT_EQ(g.ply_count(), 1);
}

TEST(IllegalMoveStands, PositionAfterAnIllegalMove) {
  auto p = Position::from_fen("r3k2r/8/8/8/3p4/8/4P3/R3K2R w KQkq - 0 1");
  ASSERT_TRUE(p);
  // The king two squares up: no castling for White any more; Black keeps both.
  auto king = p->after_illegal_move(parse_square("e1"), parse_square("e3"));
  ASSERT_TRUE(king);
  EXPECT_EQ(king->fen(), "r3k2r/8/8/8/3p4/4K3/4P3/R6R b kq - 1 1");
  // A rook taking the rook on a8 across the board: each side loses that wing's castling.
  auto rook = p->after_illegal_move(parse_square("a1"), parse_square("a8"));
  ASSERT_TRUE(rook);
  EXPECT_EQ(rook->fen(), "R3k2r/8/8/8/3p4/8/4P3/4K2R b Kk - 0 1");
  // A pawn's double step next to an enemy pawn leaves no en-passant square (no move made it).
  auto pawn = Position::from_fen("4k3/8/8/8/3p4/4n3/4P3/4K3 w - - 0 1")
                  ->after_illegal_move(parse_square("e2"), parse_square("e4"));
  ASSERT_TRUE(pawn);
  EXPECT_EQ(pawn->ep_square(), SQ_NONE);
  EXPECT_EQ(pawn->fen(), "4k3/8/8/8/3pP3/4n3/8/4K3 b - - 0 1");
  // No position to play on: a king taken, a pawn on the last rank, no piece of the side to move.
  auto bare = Position::from_fen("4k3/P7/8/8/8/8/8/4K2R w - - 0 1");
  ASSERT_TRUE(bare);
  EXPECT_FALSE(bare->after_illegal_move(parse_square("h1"), parse_square("e8")));
  EXPECT_FALSE(bare->after_illegal_move(parse_square("a7"), parse_square("b8")));
  EXPECT_FALSE(bare->after_illegal_move(parse_square("e8"), parse_square("e7")));
}

TEST(IllegalMoveStands, AKingLeftAttackedIsNeverTaken) {
  auto p = Position::from_fen("4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1");
  ASSERT_TRUE(p);
  auto after = p->after_illegal_move(parse_square("e2"), parse_square("d3"));
  ASSERT_TRUE(after);
  for (Move m : MoveList(*after)) EXPECT_NE(m.to(), parse_square("e1")) << to_uci(*after, m);
  EXPECT_FALSE(MoveList(*after).empty());
}

TEST(IllegalMoveStands, LongAlgebraicNotation) {
  Position start = Position::start();
  EXPECT_EQ(to_long_algebraic(start, Move::make(parse_square("b1"), parse_square("b3"))), "Nb1-b3");
  EXPECT_EQ(to_long_algebraic(start, Move::make(parse_square("e2"), parse_square("e5"))), "e2-e5");
  EXPECT_EQ(to_long_algebraic(start, Move::make(parse_square("d1"), parse_square("d7"))), "Qd1xd7+");
  EXPECT_EQ(to_long_algebraic(start, Move::make(parse_square("d1"), parse_square("d7")), Language::French),
            "Dd1xd7+");
}
