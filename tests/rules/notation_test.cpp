// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// SAN and UCI, written and read: hand-picked cases, then every legal move of the perft suites both ways.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/perft_suite.hpp"

using namespace eboard::rules;

namespace {

Position at(std::string_view fen, Variant v = Variant::Chess, bool chess960 = false) {
  auto p = Position::from_fen(fen, v, chess960);
  EXPECT_TRUE(p) << p.error();
  return p ? *p : Position::start();
}

// The legal move with this UCI text (found by writing every legal move, so it does not trust parse_uci).
Move by_uci(const Position& pos, std::string_view uci) {
  for (Move m : MoveList(pos))
    if (to_uci(pos, m) == uci) return m;
  ADD_FAILURE() << "no legal move " << uci << " in " << pos.fen();
  return Move::none();
}

std::string san_of(const Position& pos, std::string_view uci, const SanOptions& o = {}) {
  return to_san(pos, by_uci(pos, uci), o);
}

std::string uci_of_san(const Position& pos, std::string_view san, Language lang = Language::English) {
  auto m = parse_san(pos, san, lang);
  return m ? to_uci(pos, *m) : "error: " + m.error();
}

SanOptions french() {
  SanOptions o;
  o.language = Language::French;
  return o;
}

std::filesystem::path shared_dir() { return EBOARD_SHARED_DIR; }

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(Notation, SimpleMovesBothWays) {
  Position p = Position::start();
  EXPECT_EQ(san_of(p, "e2e4"), "e4");
  EXPECT_EQ(san_of(p, "g1f3"), "Nf3");
  EXPECT_EQ(uci_of_san(p, "Nf3"), "g1f3");
  EXPECT_EQ(uci_of_san(p, "e4"), "e2e4");
  EXPECT_EQ(to_uci(p, Move::none()), "0000");
  EXPECT_EQ(to_san(p, Move::none()), "--");
}

TEST(Notation, DisambiguationFileRankAndBoth) {
  // Three queens reach b2: a1 (needs file and rank), a3 (rank), c1 (file).
  Position p = at("4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1");
  EXPECT_EQ(san_of(p, "a1b2"), "Qa1b2");
  EXPECT_EQ(san_of(p, "a3b2"), "Q3b2");
  EXPECT_EQ(san_of(p, "c1b2"), "Qcb2");
  EXPECT_EQ(uci_of_san(p, "Qa1b2"), "a1b2");
  EXPECT_EQ(uci_of_san(p, "Q3b2"), "a3b2");
  EXPECT_EQ(uci_of_san(p, "Qcb2"), "c1b2");
  EXPECT_EQ(uci_of_san(p, "Qc1b2"), "c1b2");  // over-disambiguated
  // Knights: by file, by rank.
  Position n = at("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
  EXPECT_EQ(san_of(n, "b1d2"), "Nbd2");
  EXPECT_EQ(san_of(n, "f1d2"), "Nfd2");
  Position r = at("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
  EXPECT_EQ(san_of(r, "a1a3"), "R1a3");
  EXPECT_EQ(san_of(r, "a5a3"), "R5a3");
  // A pinned rival needs no disambiguation: only legal moves count.
  Position pinned = at("4k3/4r3/8/8/8/8/4N3/2N1K3 w - - 0 1");
  EXPECT_EQ(san_of(pinned, "c1d3"), "Nd3");
}

TEST(Notation, PawnsCapturesPromotionsEnPassant) {
  Position p = at("r3k3/1P6/8/3pP3/8/8/8/4K3 w q d6 0 2");
  EXPECT_EQ(san_of(p, "e5d6"), "exd6");
  EXPECT_EQ(uci_of_san(p, "exd6"), "e5d6");
  EXPECT_EQ(uci_of_san(p, "exd6 e.p."), "e5d6");
  EXPECT_EQ(uci_of_san(p, "ed6"), "e5d6");
  EXPECT_EQ(san_of(p, "b7a8q"), "bxa8=Q+");
  EXPECT_EQ(san_of(p, "b7a8n"), "bxa8=N");
  EXPECT_EQ(san_of(p, "b7b8r"), "b8=R+");
  for (std::string_view s : {"bxa8=Q+", "bxa8Q", "bxa8=Q", "ba8Q", "bxa8(Q)", "bxa8/Q", "bxa8q", "b7xa8=Q"})
    EXPECT_EQ(uci_of_san(p, s), "b7a8q") << s;
  EXPECT_EQ(uci_of_san(p, "e6"), "e5e6");
  auto missing = parse_san(p, "b8");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("promotion piece is missing"), std::string::npos) << missing.error();
}

TEST(Notation, CastlingStandard) {
  Position p = at("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  EXPECT_EQ(san_of(p, "e1g1"), "O-O");
  EXPECT_EQ(san_of(p, "e1c1"), "O-O-O");
  for (std::string_view s : {"O-O", "0-0", "o-o", "O-O+", "Kg1"}) EXPECT_EQ(uci_of_san(p, s), "e1g1") << s;
  for (std::string_view s : {"O-O-O", "0-0-0"}) EXPECT_EQ(uci_of_san(p, s), "e1c1") << s;
  // UCI: king-destination for standard chess, and king-takes-rook accepted too.
  auto g1 = parse_uci(p, "e1g1"), h1 = parse_uci(p, "e1h1");
  ASSERT_TRUE(g1 && h1);
  EXPECT_EQ(*g1, *h1);
  EXPECT_EQ(g1->kind(), Move::CASTLING);
  Position black = at("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
  EXPECT_EQ(san_of(black, "e8c8"), "O-O-O");
  EXPECT_EQ(uci_of_san(black, "O-O"), "e8g8");
}

TEST(Notation, CastlingChess960) {
  // The king already stands on g1: castling moves only the rook. UCI is king → rook in Chess960.
  Position p = at("6kr/8/8/8/8/8/8/6KR w Kk - 0 1", Variant::Chess, true);
  ASSERT_TRUE(p.chess960());
  Move oo = by_uci(p, "g1h1");
  EXPECT_EQ(oo.kind(), Move::CASTLING);
  EXPECT_EQ(to_san(p, oo), "O-O");
  EXPECT_EQ(uci_of_san(p, "O-O"), "g1h1");
  EXPECT_EQ(uci_of_san(p, "Kxh1"), "g1h1");  // king takes own rook: castling in some 960 notations
  // King b1, rooks a1 and h1 (X-FEN KQ): O-O-O puts the king on c1 and the rook on d1.
  Position q = at("rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1", Variant::Chess, true);
  Move ooo = by_uci(q, "b1a1");
  EXPECT_EQ(to_san(q, ooo), "O-O-O");
  EXPECT_EQ(uci_of_san(q, "O-O-O"), "b1a1");
  EXPECT_EQ(uci_of_san(q, "O-O"), "b1h1");
  auto by_destination = parse_uci(q, "b1g1");  // standard-style castling text still understood
  ASSERT_TRUE(by_destination);
  EXPECT_EQ(to_uci(q, *by_destination), "b1h1");
  Position after = q;
  after.do_move(ooo);
  EXPECT_EQ(after.piece_on(make_square(2, 0)), W_KING);
  EXPECT_EQ(after.piece_on(make_square(3, 0)), W_ROOK);
  // A king step to the castling square stays a king step in 960 UCI (f1g1 is not castling here).
  Position step = at("5k1r/8/8/8/8/8/8/5K1R w Kk - 0 1", Variant::Chess, true);
  auto kg1 = parse_uci(step, "f1g1");
  ASSERT_TRUE(kg1);
  EXPECT_EQ(kg1->kind(), Move::NORMAL);
}

TEST(Notation, Drops) {
  Position p =
      at("r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pn] w KQkq - 0 4", Variant::Crazyhouse);
  EXPECT_EQ(san_of(p, "P@d5"), "P@d5");
  EXPECT_EQ(uci_of_san(p, "P@d5"), "P@d5");
  EXPECT_EQ(uci_of_san(p, "@d5"), "P@d5");
  EXPECT_EQ(uci_of_san(p, "P*d5"), "P@d5");
  auto no_knight = parse_san(p, "N@d5");
  ASSERT_FALSE(no_knight);
  EXPECT_NE(no_knight.error().find("no knight in hand"), std::string::npos) << no_knight.error();
  EXPECT_FALSE(parse_san(p, "P@b8"));  // pawn drop on the last rank
  auto uci = parse_uci(p, "P@d5");
  ASSERT_TRUE(uci);
  EXPECT_TRUE(uci->is_drop());
  Position b =
      at("r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pn] b KQkq - 0 4", Variant::Crazyhouse);
  EXPECT_EQ(san_of(b, "N@d4"), "N@d4");
  EXPECT_EQ(uci_of_san(b, "N@d4"), "N@d4");
  EXPECT_EQ(uci_of_san(b, "n@d4"), "N@d4");
  EXPECT_EQ(san_of(b, "N@d4", french()), "C@d4");
  EXPECT_EQ(uci_of_san(b, "C@d4", Language::French), "N@d4");
}

TEST(Notation, CheckAndMateSuffixes) {
  Position p = at("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2");
  EXPECT_EQ(san_of(p, "d8h4"), "Qh4#");
  SanOptions no_mate;
  no_mate.mate_suffix = false;
  EXPECT_EQ(san_of(p, "d8h4", no_mate), "Qh4+");
  int asked = 0;
  SanOptions bughouse;
  bughouse.is_mate = [&](const Position&) {
    ++asked;
    return false;  // a partner could still send a blocker
  };
  EXPECT_EQ(san_of(p, "d8h4", bughouse), "Qh4+");
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(uci_of_san(p, "Qh4#"), "d8h4");
  EXPECT_EQ(uci_of_san(p, "Qh4+!!"), "d8h4");
  Position check = at("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
  EXPECT_EQ(san_of(check, "a1a8"), "Ra8+");
  // Crazyhouse: a check a drop can block is not mate.
  Position zh = at("4k3/8/8/8/8/8/8/R3K3[n] w - - 0 1", Variant::Crazyhouse);
  Position zh_empty = at("7k/6pp/8/8/8/8/6PP/R5K1[] w - - 0 1", Variant::Crazyhouse);
  EXPECT_EQ(san_of(zh, "a1a8"), "Ra8+");
  EXPECT_EQ(san_of(zh_empty, "a1a8"), "Ra8#");
}

TEST(Notation, TolerantSanInput) {
  Position p = at("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 2 3");
  struct Case {
    const char* san;
    const char* uci;
  };
  for (auto [san, uci] : std::initializer_list<Case>{{"Ng5", "f3g5"},
                                                     {"Nxe5", "f3e5"},
                                                     {"Ne5", "f3e5"},   // missing x
                                                     {"Nxg5", "f3g5"},  // extra x
                                                     {"Ng1-g5", "error"},
                                                     {"Nf3-g5", "f3g5"},
                                                     {"Nf3g5", "f3g5"},
                                                     {"Bxf7+", "c4f7"},
                                                     {"Bxf7+?!", "c4f7"},
                                                     {"Bf7", "c4f7"},
                                                     {"  d4  ", "d2d4"},
                                                     {"d2-d4", "d2d4"},
                                                     {"Pd4", "d2d4"},
                                                     {"O-O", "e1g1"},
                                                     {"0-0", "e1g1"},
                                                     {"nG5", "error"}}) {
    std::string got = uci_of_san(p, san);
    if (std::string_view(uci) == "error")
      EXPECT_EQ(got.rfind("error", 0), 0u) << san << " gave " << got;
    else
      EXPECT_EQ(got, uci) << san;
  }
  // Lowercase b: a pawn capture when one fits, else the bishop.
  Position b = at("4k3/8/8/B7/8/2p5/1P6/4K3 w - - 0 1");
  EXPECT_EQ(uci_of_san(b, "bxc3"), "b2c3");
  EXPECT_EQ(uci_of_san(b, "Bxc3"), "a5c3");
  Position bishop_only = at("4k3/8/8/B7/8/2p5/8/4K3 w - - 0 1");
  EXPECT_EQ(uci_of_san(bishop_only, "bxc3"), "a5c3");
  EXPECT_EQ(uci_of_san(bishop_only, "nxc3"), "error: illegal SAN 'nxc3': no legal knight move to c3");
}

TEST(Notation, ErrorsAreOneLine) {
  Position p = at("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
  auto ambiguous = parse_san(p, "Nd2");
  ASSERT_FALSE(ambiguous);
  EXPECT_EQ(ambiguous.error(), "ambiguous SAN 'Nd2': Nb1d2, Nf1d2");
  Position s = Position::start();
  for (std::string_view bad :
       {"",   "Nf6",  "e5", "Ke2", "O-O", "O-O-O", "Qxd7",  "e9",   "Nz3",   "@",      "N@f3",
        "xx", "e8=K", "+",  "\n",  "Q@",  "exd5",  "12345", "a1a1", "Rb1b1", "e2e4e4", "e4=Q"}) {
    auto m = parse_san(s, bad);
    EXPECT_FALSE(m) << bad;
    if (!m) {
      EXPECT_EQ(m.error().find('\n'), std::string::npos) << m.error();
    }
  }
  for (std::string_view bad : {"", "e2e5", "e7e5", "e2e4q", "e1g1", "N@f3", "z9z9", "e2", "0000"}) {
    auto m = parse_uci(s, bad);
    EXPECT_FALSE(m) << bad;
    if (!m) {
      EXPECT_EQ(m.error().find('\n'), std::string::npos) << m.error();
    }
  }
  EXPECT_EQ(parse_san(s, "Nf6").error(), "illegal SAN 'Nf6': no legal knight move to f6");
}

TEST(Notation, FrenchLetters) {
  Position p = at("r3k2r/1P6/8/8/8/8/8/R3K1NB w Qkq - 0 1");
  EXPECT_EQ(piece_letter(KING, Language::French), 'R');
  SanOptions fr = french();
  EXPECT_EQ(san_of(p, "g1f3", fr), "Cf3");
  EXPECT_EQ(san_of(p, "h1g2", fr), "Fg2");
  EXPECT_EQ(san_of(p, "a1a7", fr), "Ta7");
  EXPECT_EQ(san_of(p, "e1d2", fr), "Rd2");
  EXPECT_EQ(san_of(p, "b7a8q", fr), "bxa8=D+");
  EXPECT_EQ(san_of(p, "e1c1", fr), "O-O-O");
  EXPECT_EQ(uci_of_san(p, "Cf3", Language::French), "g1f3");
  EXPECT_EQ(uci_of_san(p, "Rd2", Language::French), "e1d2");
  EXPECT_EQ(uci_of_san(p, "Td1", Language::French), "a1d1");
  EXPECT_EQ(uci_of_san(p, "bxa8=D", Language::French), "b7a8q");
  EXPECT_EQ(uci_of_san(p, "fg2", Language::French), "h1g2");  // lowercase f: no pawn there, so the bishop
  EXPECT_EQ(uci_of_san(p, "Rd2"), "error: illegal SAN 'Rd2': no legal rook move to d2");
}

namespace {

struct SuiteFile {
  const char* name;
  Variant variant;
  bool chess960;
};

// Every perft-suite FEN with the variant it belongs to; none when the corpora are not there.
std::vector<std::pair<Position, std::string>> suite_positions() {
  std::vector<std::pair<Position, std::string>> out;
  for (auto [name, v, c960] :
       std::initializer_list<SuiteFile>{{"python-chess_tricky.perft", Variant::Chess, false},
                                        {"ethereal_standard.epd", Variant::Chess, false},
                                        {"python-chess_random.perft", Variant::Chess, false},
                                        {"python-chess_chess960.perft", Variant::Chess, true},
                                        {"lastemperor_chess960_startpos.epd", Variant::Chess, true},
                                        {"python-chess_crazyhouse.perft", Variant::Crazyhouse, false}}) {
    auto path = shared_dir() / "corpora/perft" / name;
    if (!std::filesystem::exists(path)) continue;
    auto suite = parse_perft_suite(slurp(path));
    EXPECT_TRUE(suite) << name << ": " << suite.error();
    if (!suite) continue;
    for (const PerftCase& c : *suite) {
      auto pos = Position::from_fen(c.fen, v, c960);
      EXPECT_TRUE(pos) << name << " " << c.id << ": " << pos.error();
      if (pos) out.emplace_back(*pos, std::string(name) + " " + c.id + ": " + c.fen);
    }
  }
  return out;
}

// Checks both notations both ways for every legal move; returns how many moves it checked.
std::size_t round_trip_all_moves(const Position& pos, const std::string& where) {
  std::size_t n = 0;
  for (Move m : MoveList(pos)) {
    std::string san = to_san(pos, m);
    auto back = parse_san(pos, san);
    EXPECT_TRUE(back && *back == m) << where << ": " << san << " -> "
                                    << (back ? to_uci(pos, *back) : back.error());
    std::string fr = to_san(pos, m, french());
    auto back_fr = parse_san(pos, fr, Language::French);
    EXPECT_TRUE(back_fr && *back_fr == m) << where << ": " << fr << (back_fr ? "" : " " + back_fr.error());
    std::string uci = to_uci(pos, m);
    auto back_uci = parse_uci(pos, uci);
    EXPECT_TRUE(back_uci && *back_uci == m) << where << ": " << uci;
    ++n;
    if (::testing::Test::HasFailure()) return n;
  }
  return n;
}

}  // namespace

TEST(Notation, RoundTripEveryLegalMoveOfThePerftSuites) {
  auto positions = suite_positions();
  if (positions.empty()) GTEST_SKIP() << "no corpora at " << shared_dir();
  // A crazyhouse position with full pockets: every drop type for both sides.
  positions.emplace_back(at("r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R[QRBNPqrbnp] w KQkq - 0 9",
                            Variant::Crazyhouse),
                         "full pockets");
  positions.emplace_back(at("r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R[QRBNPqrbnp] b KQkq - 0 9",
                            Variant::Crazyhouse),
                         "full pockets, black");
  std::size_t moves = 0;
  for (const auto& [pos, where] : positions) {
    moves += round_trip_all_moves(pos, where);
    if (HasFailure()) break;
  }
  std::printf("[ round trip ] %zu positions, %zu moves: SAN, French SAN and UCI\n", positions.size(), moves);
}

TEST(Notation, RoundTripOneLevelDeeper) {
  // The moves after each first move of a few rich positions: checks, mates and pins show up there.
  auto positions = suite_positions();
  if (positions.empty()) GTEST_SKIP() << "no corpora at " << shared_dir();
  std::size_t moves = 0, count = 0;
  for (const auto& [start, where] : positions) {
    if (++count > 160) break;
    Position pos = start;
    for (Move m : MoveList(start)) {
      pos.do_move(m);
      moves += round_trip_all_moves(pos, where + " after " + to_uci(start, m));
      pos.undo_move(m);
      if (HasFailure()) return;
    }
  }
  std::printf("[ round trip ] %zu moves at depth 2\n", moves);
}

TEST(Notation, FenRoundTripOnThePerftSuites) {
  auto positions = suite_positions();
  if (positions.empty()) GTEST_SKIP() << "no corpora at " << shared_dir();
  for (const auto& [pos, where] : positions) {
    for (bool shredder : {false, true}) {
      std::string fen = pos.fen(shredder);
      auto again = Position::from_fen(fen, pos.variant(), pos.chess960());
      ASSERT_TRUE(again) << where << ": " << again.error();
      EXPECT_EQ(again->fen(shredder), fen) << where;
      EXPECT_EQ(again->key(), pos.key()) << where;
    }
  }
}
