// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The PGN feeds' parts below the daemon: a bughouse board's game written with its partner's drops, the
// pairings files (CSV, TRF-16) and their errors, the round's files in the state directory.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "daemon/eboardd/lichess_push.hpp"
#include "daemon/eboardd/round.hpp"
#include "daemon/outputs/pairings.hpp"
#include "daemon/outputs/pgn_output.hpp"
#include "daemon/outputs/round_results.hpp"
#include "daemon/outputs/text_encoding.hpp"
#include "rules/notation.hpp"

namespace fs = std::filesystem;
using namespace eboard;
using namespace eboard::rules;

namespace {

void play(Game& g, std::string_view san) {
  auto m = parse_san(g.position(), san);
  ASSERT_TRUE(m) << san << ": " << m.error();
  g.play(*m);
}

// Board A of a match: White drops a pawn its partner sent (no capture on this board gave it).
Game partner_drop_game() {
  Game g(Position::start(Variant::Bughouse));
  for (auto san : {"e4", "e5", "Nf3", "Nc6"}) play(g, san);
  g.add_to_pocket(WHITE, PAWN);
  for (auto san : {"P@d5", "Nf6", "Nc3"}) play(g, san);
  return g;
}

}  // namespace

TEST(PgnFeed, BughouseBoardWritesThePartnersDropAndMarksIt) {
  Game g = partner_drop_game();
  outputs::BoardGame bg;
  bg.board_id = "A";
  bg.game = &g;
  bg.number = 1;
  bg.match = "A-B";
  bg.partner = "B";
  bg.defaults = {{"Event", "Open"}, {"Round", "3"}};
  bg.tags = {{"Round", "4"}, {"White", "Anna"}};
  std::string pgn = outputs::game_pgn(bg);
  EXPECT_EQ(pgn.find("cannot write"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("[Variant \"Bughouse\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("[Match \"A-B\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("[PartnerBoard \"B\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("[Event \"Open\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("[Round \"4\"]"), std::string::npos) << pgn;  // the board's own tag wins
  EXPECT_NE(pgn.find("3. P@d5 {From here this board alone cannot be replayed"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("/matches/A-B.bpgn"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("4. Nc3"), std::string::npos) << pgn;
  // It reads back: every move there, as written.
  auto games = read_pgn(pgn);
  ASSERT_TRUE(games) << games.error();
  ASSERT_EQ(games->size(), 1u);
  EXPECT_EQ((*games)[0].moves.size(), 7u);
  EXPECT_EQ((*games)[0].moves[4].san, "P@d5");
}

TEST(PgnFeed, ADropFromTheBoardsOwnPocketIsNotMarked) {
  Game g(Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[P] w KQkq - 0 1", Variant::Bughouse)
             .value());
  play(g, "P@e4");
  outputs::BoardGame bg;
  bg.board_id = "A";
  bg.game = &g;
  bg.match = "A-B";
  bg.partner = "B";
  std::string pgn = outputs::game_pgn(bg);
  EXPECT_NE(pgn.find("1. P@e4"), std::string::npos) << pgn;
  EXPECT_EQ(pgn.find("alone cannot"), std::string::npos) << pgn;
}

TEST(PgnFeed, Chess960AndCrazyhouseBoards) {
  Game c960(
      Position::from_fen("nrkbbqrn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQRN w GBgb - 0 1", Variant::Chess, true)
          .value());
  for (auto san : {"Nb3", "e5", "Ng3"}) play(c960, san);
  outputs::BoardGame a;
  a.board_id = "3";
  a.game = &c960;
  std::string pgn = outputs::game_pgn(a);
  EXPECT_NE(pgn.find("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"nrkbbqrn/"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("1. Nb3 e5 2. Ng3"), std::string::npos) << pgn;

  Game zh(Position::start(Variant::Crazyhouse));
  for (auto san : {"e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "P@d4"}) play(zh, san);
  outputs::BoardGame b;
  b.board_id = "4";
  b.game = &zh;
  pgn = outputs::game_pgn(b);
  EXPECT_NE(pgn.find("[Variant \"Crazyhouse\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("4. P@d4"), std::string::npos) << pgn;
  EXPECT_EQ(pgn.find("alone cannot"), std::string::npos) << pgn;  // no partner here
  auto games = read_pgn(pgn);
  ASSERT_TRUE(games) << games.error();
  auto record = replay((*games)[0]);
  ASSERT_TRUE(record) << record.error();
  EXPECT_EQ(record->moves.size(), 7u);
}

TEST(PgnFeed, AnIllegalRecordStillGivesEveryMove) {
  GameRecord r;
  r.tags = {{"Board", "7"}, {"White", "Anna"}};
  Move e4 = parse_uci(r.start, "e2e4").value();
  for (int i = 0; i < 2; ++i) r.moves.push_back(RecordedMove{e4, {}, {}, "", {}, ""});  // the second: no pawn
  EXPECT_FALSE(write_pgn(r));
  outputs::BoardGame bg;
  bg.board_id = "7";
  std::string pgn = outputs::record_pgn(bg, r);
  EXPECT_NE(pgn.find("cannot be written as movetext"), std::string::npos) << pgn;
  auto first = pgn.find("e2e4");  // every move, as text
  ASSERT_NE(first, std::string::npos) << pgn;
  EXPECT_NE(pgn.find("e2e4", first + 4), std::string::npos) << pgn;
  auto games = read_pgn(pgn);
  ASSERT_TRUE(games) << games.error() << "\n" << pgn;
  ASSERT_EQ(games->size(), 1u);
  EXPECT_EQ((*games)[0].tag("White").value_or(""), "Anna");
}

TEST(Pairings, CsvWithQuotesAndOptionalRatings) {
  auto p = outputs::parse_pairings_csv(
      "\xEF\xBB\xBF"
      "Board,White,Black,White_Elo,Black_Elo\r\n"
      "1,\"Carlsen, Magnus\",\"Nepo \"\"Ian\"\"\",2830,2790\r\n"
      "\n"
      "# a comment\n"
      "2, Anna , Boris ,,0\n");
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ((*p)[0].board, 1);
  EXPECT_EQ((*p)[0].white.name, "Carlsen, Magnus");
  EXPECT_EQ((*p)[0].black.name, "Nepo \"Ian\"");
  EXPECT_EQ((*p)[0].black.elo, "2790");
  EXPECT_EQ((*p)[1].white.name, "Anna");
  EXPECT_EQ((*p)[1].white.elo, "");
  EXPECT_EQ((*p)[1].black.elo, "");
  EXPECT_EQ((*p)[1].line, 5);
  auto tags = outputs::pairing_tags((*p)[0]);
  EXPECT_EQ(find_tag(tags, "WhiteElo").value_or(""), "2830");
  EXPECT_EQ(find_tag(tags, "WhiteTitle").value_or("x"), "");  // removes an older pairing's title
}

TEST(Pairings, CsvColumnsInAnyOrderWithoutRatings) {
  auto p = outputs::parse_pairings_csv("black,board,white\nB,3,W\n");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ((*p)[0].board, 3);
  EXPECT_EQ((*p)[0].white.name, "W");
  EXPECT_EQ((*p)[0].black.name, "B");
}

TEST(Pairings, BadCsvLinesAreNamed) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"", "empty"},
      {"board,white,black,colour\n", "line 1: unknown column 'colour'"},
      {"board,white\n", "line 1: the header has no 'black' column"},
      {"board,white,black\n1,A,B\nx,C,D\n", "line 3: board 'x' is not a number"},
      {"board,white,black\n1,A,B\n0,C,D\n", "line 3: board '0'"},
      {"board,white,black\n1,A\n", "line 2: 2 fields where the header has 3"},
      {"board,white,black,white_elo,black_elo\n1,A,B,28300,1\n", "line 2: white_elo '28300'"},
      {"board,white,black\n1,\"A,B\n", "line 2: a quoted field is not closed"},
      {"board,white,black\n1,A\"x,B\n", "line 2: a quote inside"},
      {"board,white,black\n1,A,B\n1,C,D\n", "line 3: board 1 is paired already on line 2"},
      {"board,white,black\n1,A\x01,B\n", "line 2: white holds a control character"},
  };
  for (const auto& c : cases) {
    auto p = outputs::parse_pairings_csv(c.text);
    ASSERT_FALSE(p) << c.text;
    EXPECT_NE(p.error().find(c.error), std::string::npos) << c.text << " → " << p.error();
  }
}

namespace {
// A 001 line with its fields in TRF-16's columns (1-based): rank 5-8, title 11-13, name 15-47, rating
// 49-52, FIDE number 58-68, points 81-84; round r from column 92 + 10 (r - 1).
std::string trf(int rank, const std::string& title, const std::string& name, int elo, long id,
                const std::vector<std::string>& rounds) {
  std::string line(91, ' ');
  auto put = [&](std::size_t col, const std::string& s) {
    if (line.size() < col - 1 + s.size()) line.resize(col - 1 + s.size(), ' ');
    line.replace(col - 1, s.size(), s);
  };
  char buf[16];
  put(1, "001");
  std::snprintf(buf, sizeof buf, "%4d", rank);
  put(5, buf);
  put(11, title);
  put(15, name);
  std::snprintf(buf, sizeof buf, "%4d", elo);
  put(49, buf);
  std::snprintf(buf, sizeof buf, "%11ld", id);
  put(58, buf);
  for (std::size_t r = 0; r < rounds.size(); ++r) put(92 + 10 * r, rounds[r]);
  return line + "\n";
}
}  // namespace

TEST(Pairings, TrfRoundTwoBoardsFollowTheScores) {
  // Round 1: 1-3 (1 wins), 2-4 (draw). Round 2: 1 (1.0) v 2 (0.5) on board 1, 4 (0.5) v 3 (0) on board 2.
  std::string text = "012 Test Open\n022 Lyon\n" +
                     trf(1, " GM", "Alpha, Ann", 2600, 1001, {"   3 w 1", "   2 b  "}) +
                     trf(2, "   ", "Beta, Bob", 2500, 1002, {"   4 w =", "   1 w  "}) +
                     trf(3, " IM", "Gamma, Cy", 2400, 0, {"   1 b 0", "   4 b  "}) +
                     trf(4, "   ", "Delta, Di", 0, 1004, {"   2 b =", "   3 w  "}) +
                     trf(5, "   ", "Eps, Ed", 1000, 1005, {"0000 - U", "0000 - H"});
  auto p = outputs::parse_trf(text, 2);
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->size(), 2u);  // the bye gets no board
  EXPECT_EQ((*p)[0].board, 1);
  EXPECT_EQ((*p)[0].white.name, "Beta, Bob");
  EXPECT_EQ((*p)[0].black.name, "Alpha, Ann");
  EXPECT_EQ((*p)[0].black.title, "GM");
  EXPECT_EQ((*p)[0].black.elo, "2600");
  EXPECT_EQ((*p)[0].black.fide_id, "1001");
  EXPECT_EQ((*p)[1].board, 2);
  EXPECT_EQ((*p)[1].white.name, "Delta, Di");
  EXPECT_EQ((*p)[1].white.elo, "");  // 0: unrated
  EXPECT_EQ((*p)[1].black.fide_id, "");
  // Round 1 from the same file; parse_pairings recognises TRF.
  auto r1 = outputs::parse_pairings(text, 1);
  ASSERT_TRUE(r1) << r1.error();
  EXPECT_EQ((*r1)[0].white.name, "Alpha, Ann");
  EXPECT_EQ((*r1)[1].white.name, "Beta, Bob");
}

TEST(Pairings, BadTrfLinesAreNamed) {
  const std::string a = trf(1, "", "A", 2000, 1, {"   2 w  "});
  const std::string b = trf(2, "", "B", 2000, 2, {"   1 b  "});
  const std::string bad_rating = std::string(a).replace(48, 4, "2x00");
  struct Case {
    std::string text;
    int round;
    const char* error;
  } cases[] = {
      {"012 x\n", 1, "no player lines"},
      {a + b, 0, "round 0"},
      {a + b, 2, "no games in round 2"},
      {"001   x1\n" + b, 1, "line 1: the starting rank"},
      {a + trf(1, "", "B", 2000, 2, {"   1 b  "}), 1, "line 2: starting rank 1 is on line 1 already"},
      {a + trf(2, "", "B", 2000, 2, {"   3 b  "}), 1, "line 1: round 1: plays 2 with white, but line 2"},
      {a, 1, "line 1: round 1: opponent 2 has no 001 line"},
      {trf(1, "", "A", 2000, 1, {"   2 x  "}) + b, 1, "line 1: round 1: colour 'x'"},
      {trf(1, "", "A", 2000, 1, {"  z2 w  "}) + b, 1, "line 1: round 1: opponent 'z2'"},
      {bad_rating + b, 1, "line 1: the rating (columns 49-52) '2x00'"},
  };
  for (const auto& c : cases) {
    auto p = outputs::parse_trf(c.text, c.round);
    ASSERT_FALSE(p) << c.text;
    EXPECT_NE(p.error().find(c.error), std::string::npos) << c.text << " → " << p.error();
  }
}

namespace {
// Latin-1 text as UTF-8 (each byte its own code point).
std::string latin1_to_utf8(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c < 0x80) {
      out += char(c);
    } else {
      out += char(0xC0 | (c >> 6));
      out += char(0x80 | (c & 0x3F));
    }
  }
  return out;
}
}  // namespace

TEST(Pairings, EncodingsDetectedOrNamed) {
  // Swiss-Manager's "ANSI" export (Windows-1252: Š is 0x8A, Œ 0x8C), ';' as a spreadsheet of a
  // comma-decimal locale writes it, CRLF.
  auto p = outputs::parse_pairings(
      "board;white;black;white_elo;black_elo\r\n1;M\xFCller, J\xFCrgen;\x8Aimek, \x8C"
      "dipe;2100;2050\r\n",
      1);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ((*p)[0].white.name, "Müller, Jürgen");
  EXPECT_EQ((*p)[0].black.name, "Šimek, Œdipe");
  EXPECT_EQ((*p)[0].black.elo, "2050");
  // Named: Latin-1 reads 0x8A as the control character it is there (no abort, valid UTF-8).
  auto latin = outputs::parse_pairings_csv("board,white,black\n1,M\xFCller,Dupr\xE9\n", "ISO-8859-1");
  ASSERT_TRUE(latin) << latin.error();
  EXPECT_EQ((*latin)[0].black.name, "Dupré");
  // Central Europe's "ANSI": Windows-1250 (Ł is 0xA3), through iconv.
  auto cp1250 = outputs::parse_pairings_csv("board,white,black\n1,\xA3ukasz,\x8A\xE8\n", "WINDOWS-1250");
  ASSERT_TRUE(cp1250) << cp1250.error();
  EXPECT_EQ((*cp1250)[0].white.name, "Łukasz");
  EXPECT_EQ((*cp1250)[0].black.name, "Šč");
  // UTF-16 with its byte order mark (a "Unicode" export).
  std::string utf16 = "\xFF\xFE";
  for (char16_t c : std::u16string(u"board,white,black\n1,Zoë,Łukasz\n")) {
    utf16 += char(c & 0xFF);
    utf16 += char(c >> 8);
  }
  auto u16 = outputs::parse_pairings(utf16, 1);
  ASSERT_TRUE(u16) << u16.error();
  EXPECT_EQ((*u16)[0].white.name, "Zoë");
  EXPECT_EQ((*u16)[0].black.name, "Łukasz");
  // A file that is not what it is named: refused with its line, never thrown.
  auto wrong = outputs::parse_pairings_csv("board,white,black\n1,M\xFCller,B\n", "UTF-8");
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().find("line 2"), std::string::npos) << wrong.error();
  auto unknown = outputs::parse_pairings_csv("board,white,black\n", "NO-SUCH-ENCODING");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("unknown encoding"), std::string::npos) << unknown.error();
  // Text of unknown origin on its way into JSON: every bad byte replaced, the rest kept.
  EXPECT_EQ(outputs::utf8_or_replaced("a\xFF"
                                      "b\xC3"),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_TRUE(outputs::valid_utf8("Łukasz"));
  EXPECT_FALSE(outputs::valid_utf8("\xC0\xAF"));      // overlong
  EXPECT_FALSE(outputs::valid_utf8("\xED\xA0\x80"));  // a surrogate
}

TEST(Pairings, TrfColumnsAreCharactersWhateverTheEncoding) {
  // The same two players with accented names: in Windows-1252 (a byte a character) and in UTF-8 (two
  // bytes for each accented letter, the columns still counted in characters).
  const std::string latin = "012 Open\r\n" + trf(1, " IM", "M\xFCller, J\xF6rg", 2400, 1001, {"   2 w  "}) +
                            trf(2, "   ",
                                "\xD8"
                                "degaard, \xC5se",
                                2300, 1002, {"   1 b  "});
  const std::string utf8 = latin1_to_utf8(latin);
  for (const std::string* text : {&latin, &utf8}) {
    auto p = outputs::parse_trf(*text, 1);
    ASSERT_TRUE(p) << p.error();
    ASSERT_EQ(p->size(), 1u);
    EXPECT_EQ((*p)[0].white.name, "Müller, Jörg");
    EXPECT_EQ((*p)[0].white.elo, "2400");
    EXPECT_EQ((*p)[0].white.fide_id, "1001");
    EXPECT_EQ((*p)[0].black.name, "Ødegaard, Åse");
    EXPECT_EQ((*p)[0].black.elo, "2300");
    EXPECT_EQ((*p)[0].white.rank, 1);
    EXPECT_EQ((*p)[0].black.rank, 2);
  }
}

TEST(Pairings, FiveHundredPlayers) {
  // Round 5 of a 500-player Swiss as a pairing program writes it, four rounds of results before it: over
  // 64 KiB (the daemon's old limit). Each round: k against k + 250, colours alternating, White wins.
  std::string text = "012 Grand Swiss\r\n022 Lyon\r\nXXR 9\r\n";
  for (int rank = 1; rank <= 500; ++rank) {
    const int opp = rank <= 250 ? rank + 250 : rank - 250;
    std::vector<std::string> rounds;
    for (int r = 1; r <= 5; ++r) {
      const int low = rank <= 250 ? rank : opp;
      const bool white = ((low + r) % 2 == 1) == (rank <= 250);
      char round[16];
      std::snprintf(round, sizeof round, "%4d %c %c", opp, white ? 'w' : 'b',
                    r == 5  ? ' '
                    : white ? '1'
                            : '0');
      rounds.push_back(round);
    }
    text +=
        trf(rank, "   ", "Spieler" + std::to_string(rank) + ", J\xF6rg", 2700 - rank, 300000 + rank, rounds);
  }
  ASSERT_GT(text.size(), 64u * 1024);
  auto p = outputs::parse_pairings(text, 5);
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->size(), 250u);
  std::set<std::string> names;
  for (std::size_t k = 0; k < p->size(); ++k) {
    EXPECT_EQ((*p)[k].board, int(k + 1));
    names.insert((*p)[k].white.name);
    names.insert((*p)[k].black.name);
  }
  EXPECT_EQ(names.size(), 500u);
  EXPECT_EQ(names.count("Spieler500, Jörg"), 1u);
}

namespace {
std::string pgn_game(const std::string& board, const std::string& white, const std::string& black,
                     const std::string& result, const std::string& termination,
                     const std::string& extra = "") {
  return "[Event \"Test\"]\n[Round \"1\"]\n[White \"" + white + "\"]\n[Black \"" + black + "\"]\n[Result \"" +
         result + "\"]\n[Board \"" + board + "\"]\n" + extra +
         (termination.empty() ? "" : "[Termination \"" + termination + "\"]\n") + "\n1. e4 e5 " + result +
         "\n\n";
}
int number_of(std::string_view id) { return id == "A" ? 1 : id == "B" ? 2 : id == "C" ? 3 : 0; }
}  // namespace

TEST(RoundResults, TrfAndCsvReadBackWithTheReaders) {
  // Board A: a game resigned, set up again (an empty game after it); B: a draw agreed; C: under way;
  // a remote board ("host:X") has no number and is left out.
  const std::string pgn = pgn_game("A", "Müller, Jörg", "Beta, Bob", "1-0", "resignation",
                                   "[WhiteElo \"2400\"]\n[WhiteTitle \"IM\"]\n[WhiteFideId \"1001\"]\n") +
                          pgn_game("A", "Müller, Jörg", "Beta, Bob", "*", "") +
                          pgn_game("B", "Gamma, Cy", "Delta, Di", "1/2-1/2", "agreement") +
                          pgn_game("C", "Eps, Ed", "Zeta, Zoë", "*", "") +
                          pgn_game("host:X", "Far, Away", "Over, There", "0-1", "checkmate");
  auto results = outputs::round_results(pgn, number_of);
  ASSERT_TRUE(results) << results.error();
  ASSERT_EQ(results->size(), 3u);
  EXPECT_EQ((*results)[0].result, "1-0");
  EXPECT_EQ((*results)[0].termination, "resignation");
  EXPECT_EQ((*results)[1].result, "1/2-1/2");
  EXPECT_EQ((*results)[2].result, "*");

  // TRF-16 without the round's pairings file: read back by the project's TRF reader, the same boards.
  auto trf_text = outputs::results_trf(*results, 1, "", "Test Open");
  ASSERT_TRUE(trf_text) << trf_text.error();
  auto back = outputs::parse_trf(*trf_text, 1);
  ASSERT_TRUE(back) << back.error() << "\n" << *trf_text;
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ((*back)[0].white.name, "Müller, Jörg");
  EXPECT_EQ((*back)[0].white.elo, "2400");
  EXPECT_EQ((*back)[0].white.title, "IM");
  EXPECT_EQ((*back)[0].white.fide_id, "1001");
  EXPECT_EQ((*back)[1].black.name, "Delta, Di");
  EXPECT_EQ((*back)[2].black.name, "Zeta, Zoë");
  // The results in the round's columns (92-99: opponent, colour, result) and the points (81-84).
  EXPECT_NE(trf_text->find("   2 w 1"), std::string::npos) << *trf_text;
  EXPECT_NE(trf_text->find("   1 b 0"), std::string::npos) << *trf_text;
  EXPECT_NE(trf_text->find("   4 w ="), std::string::npos) << *trf_text;
  // In Windows-1252 (for a program that reads no Unicode) it reads back alike.
  auto ansi = outputs::encode_text(*trf_text, "WINDOWS-1252");
  ASSERT_TRUE(ansi) << ansi.error();
  EXPECT_NE(ansi->find("M\xFCller, J\xF6rg"), std::string::npos);
  auto back_ansi = outputs::parse_trf(*ansi, 1);
  ASSERT_TRUE(back_ansi) << back_ansi.error();
  EXPECT_EQ((*back_ansi)[2].black.name, "Zeta, Zoë");

  // CSV: reads back as pairings.
  const std::string csv = outputs::results_csv(*results);
  EXPECT_NE(csv.find("1,\"Müller, Jörg\",\"Beta, Bob\",2400,,1-0,resignation"), std::string::npos) << csv;
  auto csv_back = outputs::parse_pairings_csv(csv);
  ASSERT_TRUE(csv_back) << csv_back.error();
  ASSERT_EQ(csv_back->size(), 3u);
  EXPECT_EQ((*csv_back)[1].white.name, "Gamma, Cy");
}

TEST(RoundResults, IntoTheRoundsTrfPairingsFile) {
  // The round-2 file of TrfRoundTwoBoardsFollowTheScores: board 1 Beta-Alpha, board 2 Delta-Gamma, Eps a
  // half-point bye. Results: board 1 0-1, board 2 1-0.
  const std::string source = "012 Test Open\n022 Lyon\n" +
                             trf(1, " GM", "Alpha, Ann", 2600, 1001, {"   3 w 1", "   2 b  "}) +
                             trf(2, "   ", "Beta, Bob", 2500, 1002, {"   4 w =", "   1 w  "}) +
                             trf(3, " IM", "Gamma, Cy", 2400, 0, {"   1 b 0", "   4 b  "}) +
                             trf(4, "   ", "Delta, Di", 0, 1004, {"   2 b =", "   3 w  "}) +
                             trf(5, "   ", "Eps, Ed", 1000, 1005, {"0000 - U", "0000 - H"});
  const std::vector<outputs::GameResult> results = {
      {1, "1", {"Beta, Bob", "", "", "", 0}, {"Alpha, Ann", "", "", "", 0}, "0-1", "checkmate"},
      {2, "2", {"Delta, Di", "", "", "", 0}, {"Gamma, Cy", "", "", "", 0}, "1-0", "resignation"}};
  auto out = outputs::results_trf(results, 2, source, "");
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->rfind("012 Test Open\r\n022 Lyon\r\n", 0), 0u) << *out;  // its other lines kept
  std::map<int, std::string> lines;
  std::size_t at = 0;
  while ((at = out->find("001 ", at)) != std::string::npos) {
    const std::size_t end = out->find("\r\n", at);
    lines[std::stoi(out->substr(at + 4, 4))] = out->substr(at, end - at);
    at = end;
  }
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[1].substr(101, 8), "   2 b 1");
  EXPECT_EQ(lines[1].substr(80, 4), " 2.0");
  EXPECT_EQ(lines[2].substr(101, 8), "   1 w 0");
  EXPECT_EQ(lines[2].substr(80, 4), " 0.5");
  EXPECT_EQ(lines[4].substr(101, 8), "   3 w 1");
  EXPECT_EQ(lines[4].substr(80, 4), " 1.5");
  EXPECT_EQ(lines[5].substr(101, 8), "0000 - H");  // the bye as it was
  EXPECT_EQ(lines[5].substr(80, 4), " 0.5");
  // Read back: round 2 is the same pairs; round 3 cannot be paired from it (no round-3 columns).
  auto back = outputs::parse_trf(*out, 2);
  ASSERT_TRUE(back) << back.error();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].white.name, "Beta, Bob");
  EXPECT_EQ((*back)[1].white.name, "Delta, Di");
}

TEST(LichessPushPlan, StandardAndChess960OnlyAtMost64ARound) {
  // 130 standard games, a bughouse board and a Chess960 one among them.
  std::string pgn;
  for (int k = 1; k <= 130; ++k) {
    std::string extra = k == 3 ? "[Variant \"Bughouse\"]\n" : k == 5 ? "[Variant \"Chess960\"]\n" : "";
    pgn += pgn_game(std::to_string(k), "W" + std::to_string(k), "B" + std::to_string(k), "*", "", extra);
  }
  auto count = [](const std::string& text) {
    std::size_t n = 0;
    for (std::size_t at = 0; (at = text.find("[Event ", at)) != std::string::npos; ++at) ++n;
    return n;
  };
  // Two lichess rounds: 64 + 64; the bughouse board and the last game (the 129th pushable) left out.
  auto plan = eboardd::plan_push(pgn, 2);
  ASSERT_EQ(plan.pgn.size(), 2u);
  EXPECT_EQ(count(plan.pgn[0]), 64u);
  EXPECT_EQ(count(plan.pgn[1]), 64u);
  EXPECT_EQ(plan.pgn[0].find("[Variant \"Bughouse\"]"), std::string::npos);
  EXPECT_NE(plan.pgn[0].find("[Variant \"Chess960\"]"), std::string::npos);
  EXPECT_NE(plan.pgn[0].rfind("[Board \"65\"]"), std::string::npos);  // boards 1-65 without 3
  EXPECT_NE(plan.pgn[1].find("[Board \"66\"]"), std::string::npos);
  // Each text reads as PGN, every game whole.
  for (const auto& text : plan.pgn) {
    auto games = rules::read_pgn(text);
    ASSERT_TRUE(games) << games.error();
    EXPECT_EQ(games->size(), 64u);
  }
  ASSERT_EQ(plan.left_out.size(), 2u) << plan.left_out.dump();
  EXPECT_EQ(plan.left_out[0]["board"], "3");
  EXPECT_NE(plan.left_out[0]["reason"].get<std::string>().find("variant Bughouse"), std::string::npos);
  EXPECT_EQ(plan.left_out[1]["board"], "130");
  EXPECT_NE(plan.left_out[1]["reason"].get<std::string>().find("more than 128 games"), std::string::npos);
  // One lichess round: 64; none: everything left out, saying why.
  EXPECT_EQ(count(eboardd::plan_push(pgn, 1).pgn[0]), 64u);
  auto none = eboardd::plan_push(pgn, 0);
  EXPECT_TRUE(none.pgn.empty());
  EXPECT_EQ(none.left_out.size(), 130u);
}

TEST(LichessPush, AWaitThatFiredJustBeforeThePusherWentFindsItGone) {
  // The timer has fired and its handler waits in the loop's queue when the pusher is destroyed (a round
  // set or a reload): a cancel no longer reaches that handler, so it must see the pusher is gone.
  boost::asio::io_context io;
  int asked = 0;
  eboardd::LichessPush::Options options{.url = "http://127.0.0.1:9/push", .token = "t"};
  auto push = std::make_unique<eboardd::LichessPush>(
      io, options,
      [&] {
        ++asked;
        return std::string();
      },
      [] { return std::int64_t(0); });
  push->start();  // armed to fire at once
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  boost::asio::post(io, [&] { push.reset(); });
  io.run();
  EXPECT_EQ(asked, 0);
}

TEST(Round, NamesStateAndArchive) {
  EXPECT_TRUE(eboardd::valid_round_name("3"));
  EXPECT_TRUE(eboardd::valid_round_name("2026-final_1.b"));
  EXPECT_FALSE(eboardd::valid_round_name(""));
  EXPECT_FALSE(eboardd::valid_round_name(".."));
  EXPECT_FALSE(eboardd::valid_round_name("a/b"));
  EXPECT_FALSE(eboardd::valid_round_name("round 3"));
  EXPECT_FALSE(eboardd::valid_round_name(std::string(33, 'x')));

  fs::path dir = fs::temp_directory_path() / ("eboard-round-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "games");
  auto none = eboardd::load_round(dir);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  ASSERT_TRUE(eboardd::save_round(dir, {"5", 1700000000500, {{"A", 3}, {"B-2", 1}}}));
  auto back = eboardd::load_round(dir);
  ASSERT_TRUE(back && *back);
  EXPECT_EQ((*back)->first_game, (std::map<std::string, int, std::less<>>{{"A", 3}, {"B-2", 1}}));
  EXPECT_EQ((*back)->name, "5");
  EXPECT_EQ((*back)->started_ms, 1700000000500);
  std::ofstream(dir / "round.json") << "{\"round\": 5}";
  EXPECT_FALSE(eboardd::load_round(dir));

  auto first = eboardd::archive_round(dir, {"5", 0, {}}, "x");
  auto second = eboardd::archive_round(dir, {"5", 0, {}}, "y");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->filename(), "5.pgn");
  EXPECT_EQ(second->filename(), "5-2.pgn");
  auto unnamed = eboardd::archive_round(dir, {"", 1700000000500, {}}, "z");
  ASSERT_TRUE(unnamed);
  EXPECT_EQ(unnamed->filename(), "round-20231114T221320Z.pgn");

  // 1700000000 s is 2023-11-14 22:13:20 UTC.
  const std::string game = "[Event \"?\"]\n[Result \"*\"]\n\n1. e4 *\n";
  for (const char* name :
       {"A-20231114T221319Z-1.pgn", "A-20231114T221320Z-2.pgn", "A-20231114T221400Z-3.pgn",
        "A-20231114T221500Z-4.pgn", "AB-20231114T221500Z-2.pgn", "A-B-20231114T221300Z-1.pgn",
        "A-20231114T221500Z-x.pgn", "A-20231114T221330Z-2.pgn.sig"})
    std::ofstream(dir / "games" / name) << game;
  std::ofstream(dir / "games" / "A-20231114T221401Z-5.pgn") << "[Event \"?\"]\n[Result \"*\"]\n\n*\n";
  eboardd::FinishedGames finished(dir / "games");
  const eboardd::Round by_time{"5", 1700000000500, {}};
  // Game 1 began before the round, game 4 is the current one.
  EXPECT_EQ(finished.of_round(by_time, "A", 4).size(), 2u);
  // Game 5 holds neither a move nor a result: nothing to broadcast.
  EXPECT_EQ(finished.of_round(by_time, "A", 6).size(), 3u);
  EXPECT_EQ(finished.of_round(by_time, "A-B", 2).size(), 0u);  // began before the round
  EXPECT_EQ(finished.of_round({"5", 1699999000000, {}}, "A-B", 2).size(), 1u);
  // A round that knows each board's first game does not go by the second.
  const eboardd::Round by_number{"5", 1700000000500, {{"A", 1}}};
  EXPECT_EQ(finished.of_round(by_number, "A", 4).size(), 3u);
  EXPECT_TRUE(eboardd::in_round(by_number, "A", 1, 0));
  EXPECT_FALSE(eboardd::in_round(by_time, "A", 1, 1700000000000 - 1));
  // A file that changes is read again.
  std::ofstream(dir / "games" / "A-20231114T221401Z-5.pgn") << game << "\n";
  EXPECT_EQ(finished.of_round(by_time, "A", 6).size(), 4u);
  // One number twice (a Chess960 set-up read after the standard start the board showed first: the game
  // keeps the number of the one nothing was played in): the latest start is the game, on disk or not.
  // (Eight files of game 1, the latest holding the move: whichever order the folder lists them in, only
  // the latest start may be taken.)
  for (int minute = 10; minute <= 17; ++minute)
    std::ofstream(dir / "games" / ("C-20231114T22" + std::to_string(minute) + "00Z-1.pgn"))
        << "[Event \"?\"]\n[Result \"*\"]\n\n*\n";
  std::ofstream(dir / "games" / "C-20231114T221700Z-1.pgn") << "[Event \"later\"]\n" << game.substr(12);
  eboardd::FinishedGames again(dir / "games");
  const auto of_c = again.of_round(by_time, "C", 2);
  ASSERT_EQ(of_c.size(), 1u);
  EXPECT_NE(of_c[0]->text.find("later"), std::string::npos) << of_c[0]->text;
  auto record = again.board_record("C", 1);
  ASSERT_TRUE(record);
  EXPECT_NE(record->text.find("1. e4"), std::string::npos) << record->text;
  fs::remove_all(dir);
}
