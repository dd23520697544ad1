// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The PGN/BPGN reader on hand-made text and on the parser edge cases of the corpora; the writer; truncation.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "rules/movegen.hpp"
#include "rules/pgn.hpp"

using namespace eboard::rules;
namespace fs = std::filesystem;

namespace {

fs::path edge_cases() { return fs::path(EBOARD_SHARED_DIR) / "corpora/pgn/edge_cases"; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

PgnGame only_game(std::string_view text) {
  auto games = read_pgn(text);
  EXPECT_TRUE(games) << games.error();
  if (!games || games->size() != 1) {
    ADD_FAILURE() << "expected one game";
    return {};
  }
  return games->front();
}

std::vector<std::string> sans(const PgnGame& g) {
  std::vector<std::string> out;
  for (const PgnMove& m : g.moves) out.push_back(m.san);
  return out;
}

std::string uci_line(const GameRecord& r) {
  std::string out;
  Position pos = r.start;
  for (const RecordedMove& m : r.moves) {
    out += (out.empty() ? "" : " ") + to_uci(pos, m.move);
    if (m.move.is_none())
      pos.do_null_move();
    else
      pos.do_move(m.move);
  }
  return out;
}

// An edge-case file, skipping the test when the corpora are absent.
#define EDGE_FILE(var, relative)                                                \
  fs::path var##_path = edge_cases() / (relative);                              \
  if (!fs::exists(var##_path)) GTEST_SKIP() << "no corpus file " << var##_path; \
  std::string var = slurp(var##_path)

}  // namespace

TEST(PgnReader, TagsWithEscapesAndSeveralOnALine) {
  PgnGame g = only_game(
      "[Event \"A \\\"quoted\\\" \\\\ name\"][Site \"x\"]\n[ White   \"W\" ]\n\n\n[Black \"B\"]\n\n*\n");
  ASSERT_EQ(g.tags.size(), 4u);
  EXPECT_EQ(g.tag("Event"), "A \"quoted\" \\ name");
  EXPECT_EQ(g.tag("Site"), "x");
  EXPECT_EQ(g.tag("White"), "W");
  EXPECT_EQ(g.tag("Black"), "B");  // after blank lines inside the tag section
  EXPECT_TRUE(g.moves.empty());
  EXPECT_TRUE(g.terminated);
  EXPECT_EQ(g.result, "*");
}

TEST(PgnReader, MovetextCommentsNagsVariationsAndEscapes) {
  PgnGame g = only_game(
      "[Event \"t\"]\n\n"
      "1.e4 e5 2. Nf3 {first  comment\n continued} 2... Nc6 $1 3. Bb5!? a6?? ; a line comment\n"
      "% an escaped line with { and ( that must be ignored\n"
      "4. Ba4 (4. Bxc6 dxc6 (4... bxc6 {a ) in a comment}) 5. O-O $2) 4... Nf6 ! 1-0\n");
  EXPECT_EQ(sans(g), (std::vector<std::string>{"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"}));
  EXPECT_EQ(g.moves[2].comment, "first comment continued");
  EXPECT_EQ(g.moves[3].nags, std::vector<int>{1});
  EXPECT_EQ(g.moves[4].nags, std::vector<int>{5});
  EXPECT_EQ(g.moves[5].nags, std::vector<int>{4});
  EXPECT_EQ(g.moves[5].comment, "a line comment");
  EXPECT_TRUE(g.moves[6].nags.empty());  // the variation's $2 is not the main line's
  EXPECT_EQ(g.moves[7].nags, std::vector<int>{1});
  EXPECT_EQ(g.result, "1-0");
  EXPECT_EQ(g.moves[6].line, 6);  // the comment on line 3 took a line break
  auto r = replay(g);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(uci_line(*r), "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6");
}

TEST(PgnReader, ClocksAndElapsedTimes) {
  PgnGame g = only_game(
      "1. e4 { [%clk 0:05:00] } e5 {[%clk 1:02:03.4] [%emt 0:00:01.25] thinking [%csl Gd4]} "
      "2. Nf3 {[%emt 0:\n00:05]} Nc6 {[%clk nonsense]} *");
  ASSERT_EQ(g.moves.size(), 4u);
  EXPECT_EQ(g.moves[0].clock_ms, 300000);
  EXPECT_EQ(g.moves[0].comment, "");
  EXPECT_EQ(g.moves[1].clock_ms, 3723400);
  EXPECT_EQ(g.moves[1].emt_ms, 1250);
  EXPECT_EQ(g.moves[1].comment, "thinking [%csl Gd4]");
  EXPECT_EQ(g.moves[2].emt_ms, 5000);  // a command broken over two lines
  EXPECT_FALSE(g.moves[3].clock_ms);
  EXPECT_EQ(g.moves[3].comment, "[%clk nonsense]");
}

TEST(PgnReader, ByteOrderMarkCrlfAndNoTags) {
  PgnGame bom = only_game("\xEF\xBB\xBF[Event \"x\"]\r\n\r\n1. e4 e5\r\n2. Nf3 *\r\n");
  EXPECT_EQ(bom.tag("Event"), "x");
  EXPECT_EQ(sans(bom), (std::vector<std::string>{"e4", "e5", "Nf3"}));
  EXPECT_EQ(bom.moves[2].line, 4);
  PgnGame bare = only_game("e4 { nested { comment } here } e5 *");
  EXPECT_TRUE(bare.tags.empty());
  EXPECT_EQ(bare.moves[0].comment, "nested { comment } here");
  EXPECT_EQ(sans(bare), (std::vector<std::string>{"e4", "e5"}));
  // An unbalanced '{' inside a comment: the standard reading (first '}') wins.
  PgnGame unbalanced = only_game("e4 { a { b } e5 *");
  EXPECT_EQ(sans(unbalanced), (std::vector<std::string>{"e4", "e5"}));
}

TEST(PgnReader, GameBoundaries) {
  auto games = read_pgn(
      "[Event \"1\"]\n\n1. e4 e5\n\n"     // no result: ends where the next tags begin
      "[Event \"2\"]\n[Event \"3\"]\n\n"  // tags only: a repeated tag name starts a new game
      "1. d4 0-1\n{between games}\n"
      "[Event \"4\"]\n\n1. c4 1/2-1/2\n\n"
      "[Event \"5\"]\n\n1. Nf3");  // cut off at the end
  ASSERT_TRUE(games) << games.error();
  ASSERT_EQ(games->size(), 5u);
  EXPECT_FALSE((*games)[0].terminated);
  EXPECT_EQ((*games)[0].moves.size(), 2u);
  EXPECT_TRUE((*games)[1].moves.empty());
  EXPECT_FALSE((*games)[1].terminated);
  EXPECT_EQ((*games)[2].tag("Event"), "3");
  EXPECT_EQ((*games)[2].result, "0-1");
  EXPECT_EQ((*games)[3].intro_comment, "between games");
  EXPECT_EQ((*games)[3].result, "1/2-1/2");
  EXPECT_FALSE((*games)[4].terminated);
  EXPECT_EQ((*games)[4].result, "*");
  for (int i = 0; i < 5; ++i) EXPECT_EQ((*games)[i].index, i + 1);
}

TEST(PgnReader, ErrorsNameTheGameAndLineAndReadingGoesOn) {
  struct Case {
    const char* text;
    const char* expected;
  };
  for (auto [text, expected] : std::initializer_list<Case>{
           {"[Event \"x\"]\n\n1. e4 { oops\n", "PGN game 1, line 3: unterminated comment (opened at line 3)"},
           {"1. e4 (1. d4 d5\n\n", "PGN game 1, line 3: unterminated variation (opened at line 1)"},
           {"[Event \"abc\n1. e4 *", "PGN game 1, line 1: unterminated tag value (tag opened at line 1)"},
           {"[Event abc]\n*", "PGN game 1, line 1: tag value not in quotes (tag opened at line 1)"},
           {"[Event \"a\" x]\n*", "PGN game 1, line 1: tag not closed by ']' (tag opened at line 1)"},
           {"1. e4 e5 )\n", "PGN game 1, line 1: ')' without a variation to close"},
           {"1. e4 < e5 *", "PGN game 1, line 1: unexpected '<' in the movetext"},
           {"1. e4 \x01 *", "PGN game 1, line 1: unexpected byte 1 in the movetext"},
           {"1. e4 $ *", "PGN game 1, line 1: '$' without a NAG number (0-255)"},
           {"1. e4 (e5 [Event \"x\"])", "PGN game 1, line 1: '[' inside a variation"}}) {
    auto games = read_pgn(text);
    ASSERT_FALSE(games) << text;
    EXPECT_EQ(games.error(), expected);
  }
  PgnReader reader("[Event \"1\"]\n\n1. e4 < e5 *\n2. d4 *\n\n[Event \"2\"]\n\n1. d4 *\n");
  auto first = reader.next();
  ASSERT_TRUE(first && !*first);
  EXPECT_EQ(first->error(), "PGN game 1, line 3: unexpected '<' in the movetext");
  auto second = reader.next();
  ASSERT_TRUE(second && *second);
  EXPECT_EQ((*second)->tag("Event"), "2");
  EXPECT_EQ((*second)->index, 2);
  EXPECT_FALSE(reader.next());
}

TEST(PgnReplay, VariantsAndStartPositions) {
  auto refused = replay(only_game("[Variant \"Antichess\"]\n\n1. e3 *"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), "game 1 (line 1): unsupported variant 'Antichess'");
  auto bad_fen = replay(only_game("[SetUp \"1\"]\n[FEN \"8/8/8 w - - 0 1\"]\n\n*"));
  ASSERT_FALSE(bad_fen);
  EXPECT_NE(bad_fen.error().find("bad FEN"), std::string::npos);
  auto frc = replay(
      only_game("[Variant \"fischerandom\"]\n[FEN \"nrkbrnbq/pppppppp/8/8/8/8/PPPPPPPP/NRKBRNBQ w KQkq - "
                "0 1\"]\n\n1. d4 d5 2. e3 e6 3. Be2 Be7 4. O-O-O O-O-O *"));
  ASSERT_TRUE(frc) << frc.error();
  EXPECT_TRUE(frc->start.chess960());
  EXPECT_EQ(uci_line(*frc), "d2d4 d7d5 e2e3 e7e6 d1e2 d8e7 c1b1 c8b8");  // the king stays: c1b1 is the rook
  auto zh = replay(only_game("[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. P@e4 *"));
  ASSERT_TRUE(zh) << zh.error();
  EXPECT_EQ(final_position(*zh).fen(), "rnb1kbnr/ppp1pppp/8/3q4/4P3/8/PPPP1PPP/RNBQKBNR[p] b KQkq - 0 3");
  auto late = replay(only_game("[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 10 40\"]\n\n40... Kd7 41. O-O *"));
  ASSERT_TRUE(late) << late.error();
  EXPECT_EQ(uci_line(*late), "e8d7 e1g1");
  auto illegal = replay(only_game("[Event \"x\"]\n\n1. e4 e5 2. Ke3 *"));
  ASSERT_FALSE(illegal);
  EXPECT_EQ(illegal.error(), "game 1, line 3, move 2. Ke3: illegal SAN 'Ke3': no legal king move to e3");
  auto black = replay(only_game("1. e4 Nf6 2. e5 Nd5 3. d4 Nb4 4. c3 Nd3+ 5. Qxd3 d6 6. Qb5+ Ne5 *"));
  ASSERT_FALSE(black);
  EXPECT_EQ(black.error(), "game 1, line 1, move 6... Ne5: illegal SAN 'Ne5': no legal knight move to e5");
}

TEST(PgnEdgeCases, ByteOrderMark) {
  EDGE_FILE(text, "python-chess_testdata/utf8-bom.pgn");
  auto games = read_pgn(text);
  ASSERT_TRUE(games) << games.error();
  ASSERT_EQ(games->size(), 2u);
  EXPECT_EQ((*games)[0].tags.front().name, "Event");
  EXPECT_EQ((*games)[0].tag("Event"), "A");
  EXPECT_EQ((*games)[1].tag("Event"), "B");
  for (const PgnGame& g : *games) {
    EXPECT_TRUE(g.moves.empty());
    EXPECT_TRUE(replay(g));
  }
}

TEST(PgnEdgeCases, BlankLineInsideTheTags) {
  EDGE_FILE(text, "python-chess_testdata/chessbase-empty-line.pgn");
  PgnGame g = only_game(text);
  EXPECT_EQ(g.tag("Event"), "AlphaZero vs. Stockfish");
  EXPECT_EQ(g.tag("Date"), "2017.12.04");
  EXPECT_EQ(g.tag("BlackFideId"), "deepmind");
  auto r = replay(g);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->moves.size(), 134u);
  EXPECT_EQ(r->result, "0-1");
}

TEST(PgnEdgeCases, UciMovetext) {
  EDGE_FILE(text, "python-chess_testdata/uci-moves.pgn");
  auto r = replay(only_game(text));
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->moves.size(), 113u);
  std::string line = uci_line(*r);
  EXPECT_EQ(line.substr(0, 29), "g1f3 c7c5 e2e4 d7d6 d2d4 c5d4");
  // Written back as SAN, it reads again to the same moves.
  auto written = write_pgn(*r);
  ASSERT_TRUE(written);
  EXPECT_NE(written->find("1. Nf3 c5 2. e4 d6"), std::string::npos) << *written;
  auto again = replay(only_game(*written));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(uci_line(*again), line);
  // The pgn-extract files in long algebraic with check marks, and in plain UCI.
  for (const char* file :
       {"pgn-extract_tests/expected/test-WWlalg-out.pgn", "pgn-extract_tests/expected/test-WWuci-out.pgn"}) {
    if (!fs::exists(edge_cases() / file)) continue;
    auto lalg = replay(only_game(slurp(edge_cases() / file)));
    ASSERT_TRUE(lalg) << file << ": " << lalg.error();
    EXPECT_EQ(lalg->moves.size(), 72u) << file;
  }
}

TEST(PgnEdgeCases, UnsupportedVariantIsRefused) {
  EDGE_FILE(text, "python-chess_testdata/antichess-programfox.pgn");
  auto games = read_pgn(text);
  ASSERT_TRUE(games) << games.error();
  ASSERT_EQ(games->size(), 2u);
  for (const PgnGame& g : *games) {
    auto r = replay(g);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().find("unsupported variant 'Antichess'"), std::string::npos) << r.error();
  }
}

TEST(PgnEdgeCases, NestedCommentsAndNags) {
  EDGE_FILE(nested, "pgn-extract_tests/infiles/nested-comment.pgn");
  PgnGame g = only_game(nested);
  ASSERT_EQ(g.moves.size(), 1u);
  EXPECT_EQ(
      g.moves[0].comment,
      "This game contains { a nested comment } which should be handled ok with the --nestedcomment option.");
  EDGE_FILE(nags, "pgn-extract_tests/infiles/test-nagcomments.pgn");
  PgnGame n = only_game(nags);
  ASSERT_EQ(n.moves.size(), 1u);
  EXPECT_EQ(n.moves[0].nags, (std::vector<int>{1, 2}));
  EXPECT_EQ(n.moves[0].comment, "good or bad? some think this is good while others think it is not");
  auto r = replay(n);
  ASSERT_TRUE(r);
  auto written = write_pgn(*r);
  ASSERT_TRUE(written);
  EXPECT_NE(written->find("1. b3 $1 $2 {good or bad?"), std::string::npos) << *written;
}

TEST(PgnEdgeCases, AnnotatedGameWithVariationsAndEmt) {
  EDGE_FILE(text, "fairy-stockfish_Syrov-Dgebuadze_annotated.pgn");
  PgnGame g = only_game(text);
  auto r = replay(g);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->moves.size(), 86u);  // PlyCount: the variations are not main-line moves
  EXPECT_EQ(g.moves[0].emt_ms, 1000);
  EXPECT_EQ(g.moves[1].emt_ms, 21000);
  EXPECT_EQ(g.moves[11].emt_ms, 21 * 60000 + 13000);  // 6... d5 {[%emt 0:\n21:13]}
  std::size_t with_emt =
      std::count_if(g.moves.begin(), g.moves.end(), [](const PgnMove& m) { return m.emt_ms; });
  EXPECT_GT(with_emt, 40u);
  auto written = write_pgn(*r);
  ASSERT_TRUE(written);
  auto again = replay(only_game(*written));
  ASSERT_TRUE(again) << again.error();
  for (std::size_t i = 0; i < r->moves.size(); ++i) EXPECT_EQ(again->moves[i].emt_ms, r->moves[i].emt_ms);
}

TEST(PgnEdgeCases, NullMovesPromotionsAndMate) {
  EDGE_FILE(nulls, "pgn-extract_tests/infiles/test-allownullmoves.pgn");
  auto games = read_pgn(nulls);
  ASSERT_TRUE(games) << games.error();
  ASSERT_EQ(games->size(), 2u);
  auto r = replay((*games)[0]);
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->moves.size(), 5u);
  EXPECT_TRUE(r->moves[1].move.is_none());
  auto written = write_pgn(*r);
  ASSERT_TRUE(written);
  EXPECT_NE(written->find("31. Rh3 -- 32. Qxh7+ Rxh7 33. Rxh7# 1-0"), std::string::npos) << *written;
  EDGE_FILE(z0, "python-chess_testdata/anastasian-lewis.pgn");
  auto chessbase_null = replay(only_game(z0));
  ASSERT_TRUE(chessbase_null) << chessbase_null.error();
  EXPECT_TRUE(chessbase_null->moves[81].move.is_none());  // 41... Z0

  EDGE_FILE(promo, "pgn-extract_tests/infiles/test-promotion-in.pgn");
  auto promotions = read_pgn(promo);
  ASSERT_TRUE(promotions) << promotions.error();
  std::string types;
  for (const PgnGame& g : *promotions) {
    auto p = replay(g);
    ASSERT_TRUE(p) << p.error();
    ASSERT_EQ(p->moves.size(), 1u);
    types += piece_char(p->moves[0].move.promotion_type());
  }
  EXPECT_EQ(types, "RNBQRNBQ");

  EDGE_FILE(mate, "python-chess_testdata/molinari-bordais-1979.pgn");
  auto m = replay(only_game(mate));
  ASSERT_TRUE(m) << m.error();
  Position end = final_position(*m);
  EXPECT_TRUE(end.in_check());
  EXPECT_TRUE(MoveList(end).empty());
}

TEST(PgnEdgeCases, EveryInputFileReads) {
  // Every edge-case file reads and replays, except the two that must not: the EPD output (not PGN at
  // all) and the antichess games (refused).
  if (!fs::exists(edge_cases())) GTEST_SKIP() << "no corpora";
  std::size_t games = 0, moves = 0;
  for (const auto& e : fs::recursive_directory_iterator(edge_cases())) {
    if (!e.is_regular_file() || e.path().extension() != ".pgn") continue;
    std::string name = e.path().filename().string();
    auto read = read_pgn(slurp(e.path()));
    if (name == "test-WWepd-out.pgn") {
      EXPECT_FALSE(read);
      continue;
    }
    ASSERT_TRUE(read) << name << ": " << read.error();
    for (const PgnGame& g : *read) {
      auto r = replay(g);
      if (name == "antichess-programfox.pgn") {
        EXPECT_FALSE(r);
        continue;
      }
      ASSERT_TRUE(r) << name << ": " << r.error();
      ++games;
      moves += r->moves.size();
      auto written = write_pgn(*r);
      ASSERT_TRUE(written) << name;
      auto again = replay(only_game(*written));
      ASSERT_TRUE(again) << name << ": " << again.error();
      EXPECT_EQ(uci_line(*again), uci_line(*r)) << name;
    }
  }
  std::printf("[ edge cases ] %zu games, %zu moves replayed and round-tripped\n", games, moves);
}

TEST(PgnWriter, ExportFormat) {
  GameRecord r;
  r.tags = {{"White", "Anna"}, {"Black", "Ben"}, {"Event", "Club \"open\""}, {"TimeControl", "300"}};
  r.intro_comment = "A short game.";
  Position pos = r.start;
  for (const char* uci : {"e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"}) {
    auto m = parse_uci(pos, uci);
    ASSERT_TRUE(m);
    r.moves.push_back({*m, {}, {}, {}, {}});
    pos.do_move(*m);
  }
  r.moves[0].clock_ms = 300000;
  r.moves[1].clock_ms = 299500;
  r.moves[5].nags = {4};
  r.moves[5].comment = "Oops.";
  r.result = "1-0";
  auto text = write_pgn(r);
  ASSERT_TRUE(text) << text.error();
  EXPECT_EQ(
      *text,
      "[Event \"Club \\\"open\\\"\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"Anna\"]\n"
      "[Black \"Ben\"]\n[Result \"1-0\"]\n[TimeControl \"300\"]\n\n"
      "{A short game.} 1. e4 {[%clk 0:05:00]} 1... e5 {[%clk 0:04:59.5]} 2. Qh5 Nc6\n"
      "3. Bc4 Nf6 $4 {Oops.} 4. Qxf7# 1-0\n");
  auto again = replay(only_game(*text));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(uci_line(*again), "e2e4 e7e5 d1h5 b8c6 f1c4 g8f6 h5f7");
  EXPECT_EQ(again->moves[1].clock_ms, 299500);
  EXPECT_EQ(find_tag(again->tags, "Event"), "Club \"open\"");

  // A Chess960 start gets Variant, SetUp and FEN; an illegal move is refused.
  GameRecord frc;
  frc.start =
      *Position::from_fen("nrkbrnbq/pppppppp/8/8/8/8/PPPPPPPP/NRKBRNBQ w KQkq - 0 1", Variant::Chess, true);
  auto frc_text = write_pgn(frc);
  ASSERT_TRUE(frc_text);
  EXPECT_NE(frc_text->find(
                "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"nrkbrnbq/pppppppp/8/8/8/8/PPPPPPPP/NRKBRNBQ w "
                "KQkq - 0 1\"]\n"),
            std::string::npos)
      << *frc_text;
  frc.moves.push_back({Move::make(make_square(4, 1), make_square(4, 4)), {}, {}, {}, {}});
  EXPECT_FALSE(write_pgn(frc));
}

TEST(Bpgn, ReadReplayAndWrite) {
  std::string text =
      "[Event \"t\"]\n[WhiteA \"a\"][BlackA \"b\"]\n[WhiteB \"c\"]\n[BlackB \"d\"]\n[Result \"*\"]\n\n"
      "{start} 1A. e4{120.0} 1B. d4{119.5} 1a. d5{118.2} 2A. exd5{117.0} 1b. Nf6{119.0}\n"
      "2B. c4 2b. P@e4{110.3} 2a. Qxd5 3B. Nc3 3b. e6 3A. Nc3 3a. Qa5 4B. Nf3 4b. Bb4 5B. Qc2 5b. Bxc3+ 6B. "
      "Qxc3 {won} *\n";
  auto games = read_bpgn(text);
  ASSERT_TRUE(games) << games.error();
  ASSERT_EQ(games->size(), 1u);
  const BpgnGame& g = games->front();
  ASSERT_EQ(g.moves.size(), 17u);
  EXPECT_EQ(g.moves[2].board, 0);
  EXPECT_EQ(g.moves[2].color, BLACK);
  EXPECT_EQ(g.moves[2].clock_ms, 118200);
  EXPECT_EQ(g.intro_comment, "start");
  EXPECT_EQ(g.moves.back().comment, "won");
  auto r = replay_bughouse(g);
  ASSERT_TRUE(r) << r.error();
  auto boards = final_positions(*r);
  // exd5 on A sent a black pawn to Black on B, who dropped it; Bxc3 on B and Qxc3 sent a knight and a bishop.
  EXPECT_EQ(boards[1].pocket(BLACK, PAWN), 0);
  EXPECT_EQ(boards[0].pocket(WHITE, KNIGHT), 1);  // black took White's knight on B → White on A gets a knight
  EXPECT_EQ(boards[0].pocket(BLACK, BISHOP), 1);  // white took Black's bishop on B → Black on A gets a bishop
  EXPECT_EQ(boards[1].pocket(WHITE, PAWN), 1);    // Qxd5 on A: a white pawn for White on B
  auto written = write_bpgn(*r);
  ASSERT_TRUE(written) << written.error();
  EXPECT_NE(written->find("{start} 1A. e4{120.0} 1B. d4{119.5} 1a. d5{118.2} 2A. exd5{117.0} 1b. Nf6{119.0}"),
            std::string::npos)
      << *written;
  auto again = read_bpgn(*written);
  ASSERT_TRUE(again) << again.error();
  auto r2 = replay_bughouse(again->front());
  ASSERT_TRUE(r2) << r2.error();
  ASSERT_EQ(r2->moves.size(), r->moves.size());
  for (std::size_t i = 0; i < r->moves.size(); ++i) {
    EXPECT_EQ(r2->moves[i].move, r->moves[i].move);
    EXPECT_EQ(r2->moves[i].board, r->moves[i].board);
    EXPECT_EQ(r2->moves[i].clock_ms, r->moves[i].clock_ms);
  }
}

TEST(Bpgn, PartnerPiecesFollowTheRules) {
  // En passant hands over a pawn; a promoted piece goes over as a pawn (FQE 6, 11).
  std::array<Position, 2> boards{
      *Position::from_fen("4k3/1P6/8/3pP3/8/8/8/4K3[] w - d6 0 2", Variant::Bughouse),
      Position::start(Variant::Bughouse)};
  play_bughouse_move(boards, 0, *parse_san(boards[0], "exd6"));
  EXPECT_EQ(boards[1].pocket(BLACK, PAWN), 1);
  EXPECT_EQ(boards[0].pocket(WHITE, PAWN), 0);  // never the capturer's own pocket
  std::array<Position, 2> promo{*Position::from_fen("8/kP6/8/8/8/8/8/4K3[] w - - 0 1", Variant::Bughouse),
                                Position::start(Variant::Bughouse)};
  play_bughouse_move(promo, 0, *parse_san(promo[0], "b8=Q+"));
  play_bughouse_move(promo, 0, *parse_san(promo[0], "Kxb8"));
  EXPECT_EQ(promo[1].pocket(WHITE, PAWN), 1);  // the promoted queen went over as a white pawn
  EXPECT_EQ(promo[1].pocket(WHITE, QUEEN), 0);
  EXPECT_EQ(promo[0].pocket(BLACK, PAWN), 0);
}

TEST(Bpgn, Errors) {
  auto unnumbered = read_bpgn("[Event \"x\"]\n\n1A. e4 e5 *");
  ASSERT_FALSE(unnumbered);
  EXPECT_EQ(unnumbered.error(), "BPGN game 1, line 3: move 'e5' without a board number such as 12A. or 12a.");
  auto wrong_side = replay_bughouse(read_bpgn("1A. e4 2A. d4 *")->front());
  ASSERT_FALSE(wrong_side);
  EXPECT_EQ(wrong_side.error(), "match 1, line 1, move 2A. d4: it is Black's turn on board A");
  auto wrong_number = replay_bughouse(read_bpgn("1A. e4 2a. e5 *")->front());
  ASSERT_FALSE(wrong_number);
  EXPECT_EQ(wrong_number.error(), "match 1, line 1, move 2a. e5: board A is at move 1");
  auto no_piece = replay_bughouse(read_bpgn("1A. N@e4 *")->front());
  ASSERT_FALSE(no_piece);
  EXPECT_EQ(no_piece.error(), "match 1, line 1, move 1A. N@e4: illegal SAN 'N@e4': no knight in hand");
}

namespace {

// Cuts `text` at `cuts` random places and reads and replays what is left: an error (one line) or games
// whose moves are the start of the uncut game's moves. Never a crash.
void cut_and_read(const std::string& text, const std::vector<GameRecord>& full, int cuts, std::mt19937& rng,
                  std::size_t& partial_games, std::size_t& errors) {
  std::uniform_int_distribution<std::size_t> where(0, text.size());
  for (int i = 0; i < cuts; ++i) {
    std::size_t cut = where(rng);
    PgnReader reader(std::string_view(text).substr(0, cut));
    std::size_t index = 0;
    while (auto game = reader.next()) {
      if (!*game) {
        ++errors;
        EXPECT_EQ(game->error().find('\n'), std::string::npos);
        continue;
      }
      auto r = replay(**game);
      if (!r) {
        ++errors;
        EXPECT_EQ(r.error().find('\n'), std::string::npos);
        continue;
      }
      index = std::size_t((*game)->index - 1);
      if (index >= full.size()) continue;
      const GameRecord& whole = full[index];
      if (!(*game)->terminated) ++partial_games;
      // All but the last move must be the uncut game's (the last may be a cut token: O-O-O → O-O).
      std::size_t n = r->moves.size();
      ASSERT_LE(n, whole.moves.size());
      for (std::size_t k = 0; k + 1 < n; ++k)
        ASSERT_EQ(r->moves[k].move, whole.moves[k].move) << "cut at " << cut;
    }
  }
}

}  // namespace

TEST(PgnTruncation, EveryGameCutAtRandomPoints) {
  fs::path file =
      fs::path(EBOARD_SHARED_DIR) / "corpora/pgn/standard/shakmaty_lichess_db_2025-05_blitz_438games_clk.pgn";
  if (!fs::exists(file)) GTEST_SKIP() << "no corpora";
  std::mt19937 rng(20240601);
  std::size_t partial = 0, errors = 0, cuts = 0;
  for (const fs::path& f :
       {file,
        fs::path(EBOARD_SHARED_DIR) / "corpora/pgn/crazyhouse/crazyara_v0.3.1_engine_tournament_102games.pgn",
        edge_cases() / "fairy-stockfish_Syrov-Dgebuadze_annotated.pgn"}) {
    std::string text = slurp(f);
    auto games = read_pgn(text);
    ASSERT_TRUE(games) << games.error();
    // Each game on its own, cut at several places.
    std::vector<std::size_t> starts;
    std::size_t from = 0;
    for (std::size_t i = 0; i < games->size(); ++i) {
      std::size_t next = text.find("\n[Event ", from + 1);
      starts.push_back(from);
      from = next == std::string::npos ? text.size() : next + 1;
    }
    ASSERT_EQ(from, text.size()) << "games and [Event tags do not line up in " << f;
    starts.push_back(text.size());
    for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
      std::string one = text.substr(starts[i], starts[i + 1] - starts[i]);
      auto record = replay((*games)[i]);
      ASSERT_TRUE(record) << record.error();
      cut_and_read(one, {*record}, 6, rng, partial, errors);
      cuts += 6;
      if (HasFailure()) return;
    }
  }
  std::printf("[ truncation ] %zu cuts: %zu partial games read, %zu clear errors\n", cuts, partial, errors);
}

TEST(PgnTruncation, BpgnCutAtRandomPoints) {
  fs::path file = fs::path(EBOARD_SHARED_DIR) / "corpora/bughouse/chesscom_bughouse_20matches.bpgn";
  if (!fs::exists(file)) GTEST_SKIP() << "no corpora";
  std::string text = slurp(file);
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::size_t> where(0, text.size());
  std::size_t read = 0, failed = 0;
  for (int i = 0; i < 400; ++i) {
    BpgnReader reader(std::string_view(text).substr(0, where(rng)));
    while (auto game = reader.next()) {
      if (!*game) {
        ++failed;
        continue;
      }
      auto r = replay_bughouse(**game);
      if (r) {
        ++read;
        auto w = write_bpgn(*r);
        EXPECT_TRUE(w);
      } else {
        ++failed;
        EXPECT_EQ(r.error().find('\n'), std::string::npos);
      }
    }
  }
  std::printf("[ truncation ] BPGN: %zu matches replayed, %zu clear errors\n", read, failed);
}
