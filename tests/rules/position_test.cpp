// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include <gtest/gtest.h>

#include "rules/movegen.hpp"

using namespace eboard::rules;

TEST(Position, StartPositionFenRoundTrip) {
  Position p = Position::start();
  EXPECT_EQ(p.fen(), START_FEN);
  EXPECT_EQ(MoveList(p).size(), 20u);
}

TEST(Position, DoUndoRestoresFenAndKey) {
  auto p = Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
  ASSERT_TRUE(p);
  std::string fen = p->fen();
  Key key = p->key();
  for (Move m : MoveList(*p)) {
    p->do_move(m);
    for (Move r : MoveList(*p)) {
      p->do_move(r);
      p->undo_move(r);
    }
    p->undo_move(m);
    ASSERT_EQ(p->fen(), fen);
    ASSERT_EQ(p->key(), key);
  }
}

TEST(Position, IncrementalKeyMatchesFreshKey) {
  // Play a few moves including a capture into the pocket, and compare with a position parsed from the FEN.
  auto p = Position::from_fen("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq - 0 2",
                              Variant::Crazyhouse);
  ASSERT_TRUE(p);
  p->do_move(Move::make(make_square(4, 3), make_square(3, 4)));  // exd5: a pawn to White's pocket
  EXPECT_EQ(p->pocket(WHITE, PAWN), 1);
  auto fresh = Position::from_fen(p->fen(), Variant::Crazyhouse);
  ASSERT_TRUE(fresh) << fresh.error();
  EXPECT_EQ(fresh->key(), p->key());
  EXPECT_EQ(fresh->fen(), p->fen());
}

// key_after tells the key do_move makes for exactly the moves key_after_is_exact names (the gap search
// skips a move whose position it knows leads nowhere by it): quiet moves and captures, drops and captures
// into a crazyhouse pocket.
TEST(Position, KeyAfterIsTheKeyOfThePlainMoves) {
  const std::pair<std::string_view, Variant> positions[] = {
      {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", Variant::Chess},
      {"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", Variant::Chess},
      {"r1bqk2r/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQK2R[Pn] b KQkq - 0 6", Variant::Crazyhouse},
  };
  int plain = 0;
  for (const auto& [fen, variant] : positions) {
    auto p = Position::from_fen(fen, variant);
    ASSERT_TRUE(p) << p.error();
    for (Move m : MoveList(*p)) {
      const Key promised = p->key_after(m);
      const bool exact = p->key_after_is_exact(m);
      const std::uint8_t rights = p->castling_rights();
      const bool double_step =
          type_of(p->moved_piece(m)) == PAWN && !m.is_drop() && std::abs(int(m.to()) - int(m.from())) == 16;
      p->do_move(m);
      const bool is_plain =
          (m.kind() == Move::NORMAL || m.is_drop()) && !double_step && p->castling_rights() == rights;
      EXPECT_EQ(exact, is_plain) << fen << " " << int(m.from()) << "-" << int(m.to());
      if (is_plain) {
        ++plain;
        EXPECT_EQ(promised, p->key()) << fen << " " << int(m.from()) << "-" << int(m.to());
      }
      p->undo_move(m);
    }
  }
  EXPECT_GT(plain, 100);
}

TEST(Position, MalformedFenGivesOneLineError) {
  for (const char* bad :
       {"", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
        "xnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w",
        "8/8/8/8/8/8/8/8 w - -", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq -",
        "4k3/8/8/8/8/8/8/4K3 w Z -", "4k3/8/8/8/8/8/8/4K3 w - e9", "4k3/4R3/8/8/8/8/8/4K3 w - -"}) {
    auto p = Position::from_fen(bad);
    EXPECT_FALSE(p) << bad;
    if (!p) {
      EXPECT_EQ(p.error().find('\n'), std::string::npos);
    }
  }
}

TEST(Position, BughouseCaptureDoesNotFillOwnPocket) {
  auto p =
      Position::from_fen("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq - 0 2", Variant::Bughouse);
  ASSERT_TRUE(p);
  p->do_move(Move::make(make_square(4, 3), make_square(3, 4)));
  EXPECT_EQ(p->pocket(WHITE, PAWN), 0);
}

TEST(Position, PromotedPieceIsRememberedAndGoesBackAsPawn) {
  auto p = Position::from_fen("4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1", Variant::Crazyhouse);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->captured_hand_type(make_square(1, 6)), PAWN);
  p->do_move(
      Move::make(make_square(4, 3), make_square(1, 6)));  // Bxb7: the promoted queen goes over as a pawn
  EXPECT_EQ(p->pocket(BLACK, PAWN), 1);
  EXPECT_EQ(p->pocket(BLACK, QUEEN), 0);
}

// A pawn on the first or last rank cannot arise in a game (issue 11): the parser refuses it with the reason,
// on either rank, for either colour, in every variant.
TEST(Position, PawnOnFirstOrLastRankIsRefused) {
  for (Variant v : {Variant::Chess, Variant::Crazyhouse, Variant::Bughouse}) {
    for (const char* bad : {"4k2P/8/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/8/p3K3 b - - 0 1",
                            "P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/8/4K2p w - - 0 1"}) {
      auto p = Position::from_fen(bad, v);
      ASSERT_FALSE(p) << bad;
      EXPECT_NE(p.error().find("a pawn stands on the first or last rank"), std::string::npos) << p.error();
    }
  }
  // Just short of those ranks the same pawns are fine.
  EXPECT_TRUE(Position::from_fen("4k3/7P/8/8/8/8/p7/4K3 w - - 0 1"));
}

// Pawns in a pocket are not on the board: both pocket notations, with promoted pieces, still parse.
TEST(Position, PocketPawnsAndPromotedPiecesStillParse) {
  for (Variant v : {Variant::Crazyhouse, Variant::Bughouse}) {
    for (const char* ok : {"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R/Pp w KQkq - 0 3",
                           "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[QNp] w KQkq - 0 3",
                           "4k3/1Q~6/8/8/4b3/8/Kpp5/8[PPp] b - - 0 1"}) {
      auto p = Position::from_fen(ok, v);
      ASSERT_TRUE(p) << ok << ": " << p.error();
    }
  }
}

// The six fields are the whole FEN (issue 11): text after the move counters is refused, not ignored.
TEST(Position, TrailingTextAfterTheFenIsRefused) {
  for (const char* bad : {"4k3/8/8/8/8/8/8/4K3 w - - 0 1 junk", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 0",
                          "4k3/8/8/8/8/8/8/4K3 w - - 0 1 4k3/8/8/8/8/8/8/4K3",
                          "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20"}) {
    auto p = Position::from_fen(bad);
    ASSERT_FALSE(p) << bad;
    EXPECT_NE(p.error().find("unexpected text after the move counters"), std::string::npos) << p.error();
  }
  // Shorter FENs and trailing blanks stay accepted.
  for (const char* ok : {"4k3/8/8/8/8/8/8/4K3 w - - 0 1  ", "4k3/8/8/8/8/8/8/4K3 w - -",
                         "4k3/8/8/8/8/8/8/4K3 w", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"}) {
    EXPECT_TRUE(Position::from_fen(ok)) << ok;
  }
}

// The generator asked for the moves between some squares only (the gap search's bounds) gives exactly the
// full list's moves that leave a square of `from` for one of `to` (a drop: to one of `to`), every castling
// besides, in the full list's order: on positions with castlings both ways (standard and Chess960), en
// passant, promotions, checks, a pin and drops, under masks from none to all.
TEST(MoveGen, MasksKeepExactlyTheMovesBetweenTheirSquares) {
  struct Case {
    const char* fen;
    Variant variant;
    bool chess960;
  };
  const Case cases[] = {
      {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", Variant::Chess, false},
      {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", Variant::Chess, false},
      {"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", Variant::Chess, false},
      {"n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", Variant::Chess, false},
      {"4k3/8/8/8/1b6/8/3N4/4K2R w K - 0 1", Variant::Chess, false},
      {"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", Variant::Chess, true},
      {"r1bqk2r/pppp1ppp/2n2n2/4p3/1b2P3/2NP1N2/PPP2PPP/R1BQKB1R[Pp] w KQkq - 0 1", Variant::Crazyhouse,
       false},
  };
  std::uint64_t x = 0x2545f4914f6cdd1dULL;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  int kept = 0, left = 0;
  for (const Case& c : cases) {
    auto parsed = Position::from_fen(c.fen, c.variant, c.chess960);
    ASSERT_TRUE(parsed) << c.fen << ": " << parsed.error();
    const MoveList all(*parsed);
    for (int round = 0; round < 64; ++round) {
      // About a quarter of the squares to leave, three quarters to reach.
      const Bitboard r1 = next(), r2 = next(), r3 = next(), r4 = next();
      Bitboard from = round == 0 ? 0 : round == 1 ? ~Bitboard(0) : r1 & r2;
      const Bitboard to = round == 0 ? ~Bitboard(0) : round == 1 ? 0 : r3 | r4;
      if (round == 2) from = ~Bitboard(0);
      std::vector<Move> want;
      for (Move m : all) {
        const bool between = m.is_drop() ? (to & square_bb(m.to())) != 0
                                         : (from & square_bb(m.from())) && (to & square_bb(m.to()));
        if (m.kind() == Move::CASTLING || between)
          want.push_back(m);
        else
          ++left;
      }
      Move out[MAX_MOVES];
      const std::vector<Move> got(out, generate_legal(*parsed, out, from, to));
      EXPECT_EQ(got, want) << c.fen << " round " << round;
      kept += int(got.size());
    }
  }
  EXPECT_GT(kept, 1000);
  EXPECT_GT(left, 1000);
}
