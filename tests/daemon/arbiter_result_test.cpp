// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The arbiter's results without a daemon: the vocabulary and what it refuses, the PGN and TRF-16 forms
// of each (forfeits: TRF + and -), and a record rewritten with a verdict, read back by the PGN reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "daemon/outputs/arbiter_result.hpp"
#include "daemon/outputs/match_moves.hpp"
#include "daemon/outputs/pairings.hpp"
#include "daemon/outputs/round_results.hpp"
#include "rules/notation.hpp"
#include "rules/pgn.hpp"

using namespace eboard;
using namespace eboard::outputs;

namespace {

// A game as eboardd writes it: Seven Tag Roster, more tags, SAN movetext with clock comments, result.
std::string record(const std::string& result, const std::string& termination) {
  rules::Game g(rules::Position::start());
  for (const char* san : {"e4", "e5", "Nf3", "Nc6", "Bb5"}) {
    auto m = rules::parse_san(g.position(), san);
    EXPECT_TRUE(m) << san;
    g.play(*m, {5400000, 5400000}, 0);
  }
  rules::GameRecord r;
  rules::set_record_moves(r, g);
  r.tags = {{"Event", "Open"}, {"Site", "Lyon"},   {"Date", "2026.11.28"}, {"Round", "1"},    {"White", "A"},
            {"Black", "B"},    {"Result", result}, {"Board", "1"},         {"Annotator", "x"}};
  if (!termination.empty()) r.tags.push_back({"Termination", termination});
  r.result = result;
  auto text = rules::write_pgn(r);
  EXPECT_TRUE(text) << text.error();
  return *text;
}

}  // namespace

TEST(ArbiterResult, VocabularyAndItsDefaults) {
  auto forfeit = make_verdict("+/-", "", "", "Black did not come (30 min)");
  ASSERT_TRUE(forfeit) << forfeit.error();
  EXPECT_EQ(forfeit->kind, "forfeit");
  EXPECT_EQ(forfeit->rule, "6.7.1");
  EXPECT_EQ(event_reason(forfeit->kind), "forfeit");
  EXPECT_EQ(pgn_result("+/-"), "1-0");
  EXPECT_EQ(pgn_result("-/+"), "0-1");
  EXPECT_EQ(pgn_result("-/-"), "*");  // PGN has no result for a double forfeit

  auto decision = make_verdict("0-1", "", "11.3.2", "a phone rang");
  ASSERT_TRUE(decision) << decision.error();
  EXPECT_EQ(decision->kind, "decision");
  EXPECT_EQ(decision->rule, "11.3.2");
  EXPECT_EQ(event_reason(decision->kind), "arbiter");

  auto flag = make_verdict("1/2", "flag", "", "White's flag fell; Black has a bare king");
  ASSERT_TRUE(flag) << flag.error();
  EXPECT_EQ(flag->code, "1/2-1/2");
  EXPECT_EQ(flag->rule, "6.9");
  EXPECT_EQ(event_reason(flag->kind), "flag");
}

TEST(ArbiterResult, RefusesWhatIsNoResult) {
  for (const char* code : {"", "2-0", "1-1", "0-0", "*", "+/+", "1-0 ", "forfeit"})
    EXPECT_FALSE(make_verdict(code, "", "", "why")) << code;
  EXPECT_FALSE(make_verdict("1-0", "forfeit", "", "why"));   // a forfeit's code is +/- …
  EXPECT_FALSE(make_verdict("+/-", "decision", "", "why"));  // … and a decision's is not
  EXPECT_FALSE(make_verdict("-/-", "flag", "", "why"));
  EXPECT_FALSE(make_verdict("1-0", "adjudication", "", "why"));
  EXPECT_FALSE(make_verdict("1-0", "", "", ""));            // no reason
  EXPECT_FALSE(make_verdict("1-0", "", "", "two\nlines"));  // one line
  EXPECT_FALSE(make_verdict("1-0", "", "", std::string(201, 'x')));
  EXPECT_FALSE(make_verdict("1-0", "", std::string(33, '1'), "why"));
  EXPECT_FALSE(make_verdict("1-0", "", "", "\xC3"));  // not UTF-8
  auto e = make_verdict("3-0", "", "", "why");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("3-0"), std::string::npos) << e.error();
}

TEST(ArbiterResult, TrfCodesOfEachResult) {
  EXPECT_EQ(trf_codes("1-0"), (std::pair{'1', '0'}));
  EXPECT_EQ(trf_codes("0-1"), (std::pair{'0', '1'}));
  EXPECT_EQ(trf_codes("1/2-1/2"), (std::pair{'=', '='}));
  EXPECT_EQ(trf_codes("+/-"), (std::pair{'+', '-'}));
  EXPECT_EQ(trf_codes("-/+"), (std::pair{'-', '+'}));
  EXPECT_EQ(trf_codes("-/-"), (std::pair{'-', '-'}));
  EXPECT_FALSE(trf_codes("*"));
  // TRF-16's points: a forfeit win counts a point, a forfeit loss none.
  EXPECT_EQ(half_points('+'), 2);
  EXPECT_EQ(half_points('-'), 0);
}

TEST(ArbiterResult, AVerdictRewritesTheRecordAndKeepsTheRest) {
  const std::string before = record("*", "");
  auto v = make_verdict("-/+", "", "", "White left the hall with a \"phone\"");
  ASSERT_TRUE(v) << v.error();
  v->by = "Chief, control token from 127.0.0.1:5000";
  v->at_ms = 1795000000000;
  auto after = apply_verdict(before, *v, false);
  ASSERT_TRUE(after) << after.error();
  auto games = rules::read_pgn(*after);
  ASSERT_TRUE(games) << games.error();
  ASSERT_EQ(games->size(), 1u);
  const auto& g = games->front();
  EXPECT_EQ(g.result, "0-1");
  EXPECT_EQ(g.tag("Result"), "0-1");
  EXPECT_EQ(g.tag("Termination"), "forfeit");
  EXPECT_EQ(g.tag("ArbiterResult"), "-/+");
  EXPECT_EQ(g.tag("ArbiterRule"), "6.7.1");
  EXPECT_EQ(g.tag("ArbiterReason"), "White left the hall with a \"phone\"");
  EXPECT_EQ(g.tag("ArbiterBy"), "Chief, control token from 127.0.0.1:5000");
  EXPECT_TRUE(g.tag("ArbiterTime"));
  EXPECT_FALSE(g.tag("ArbiterPrevious"));
  EXPECT_EQ(g.moves.size(), 5u);
  EXPECT_EQ(pgn_tag(*after, "ArbiterResult"), "-/+");
  // Every line of the movetext but the result's is kept as it was.
  const std::string moves_before =
      before.substr(before.find("\n\n"), before.rfind('*') - before.find("\n\n"));
  EXPECT_NE(after->find(moves_before), std::string::npos) << *after;

  // A correction: the earlier result and its termination go into ArbiterPrevious.
  auto c = make_verdict("1/2-1/2", "", "12.2", "the forfeit was wrong: both agreed a draw");
  ASSERT_TRUE(c);
  auto corrected = apply_verdict(*after, *c, true);
  ASSERT_TRUE(corrected) << corrected.error();
  auto again = rules::read_pgn(*corrected);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->front().result, "1/2-1/2");
  EXPECT_EQ(again->front().tag("Termination"), "arbiter");
  EXPECT_EQ(again->front().tag("ArbiterPrevious"), "0-1 forfeit");
  EXPECT_EQ(again->front().tag("ArbiterResult"), "1/2-1/2");

  // A double forfeit: no PGN result, said by the tag.
  auto d = make_verdict("-/-", "", "", "neither player came");
  ASSERT_TRUE(d);
  auto dd = apply_verdict(record("1-0", "resignation"), *d, true);
  ASSERT_TRUE(dd) << dd.error();
  auto ddg = rules::read_pgn(*dd);
  ASSERT_TRUE(ddg);
  EXPECT_EQ(ddg->front().result, "*");
  EXPECT_EQ(ddg->front().tag("ArbiterPrevious"), "1-0 resignation");

  EXPECT_FALSE(apply_verdict("1. e4 e5 *\n", *v, false));                 // no tags
  EXPECT_FALSE(apply_verdict("[Event \"x\"]\n\n1. e4 e5\n", *v, false));  // no result
}

// A bughouse match's BPGN (rules::write_bpgn, as the daemon writes a match's archive): a board's verdict
// given as team 1 sees it, with the board it was given on, read back by the BPGN reader.
TEST(ArbiterResult, AMatchBoardsVerdictRewritesTheBpgnForTeamOne) {
  EXPECT_EQ(team1_code(0, "1-0"), "1-0");
  EXPECT_EQ(team1_code(0, "-/+"), "-/+");
  EXPECT_EQ(team1_code(1, "1-0"), "0-1");
  EXPECT_EQ(team1_code(1, "0-1"), "1-0");
  EXPECT_EQ(team1_code(1, "+/-"), "-/+");
  EXPECT_EQ(team1_code(1, "-/+"), "+/-");
  EXPECT_EQ(team1_code(1, "1/2-1/2"), "1/2-1/2");
  EXPECT_EQ(team1_code(1, "-/-"), "-/-");

  rules::BughouseRecord rec;
  rec.tags = {{"Event", "Open"}, {"WhiteA", "P1"}, {"BlackA", "P2"},       {"WhiteB", "P3"},
              {"BlackB", "P4"},  {"Result", "*"},  {"Variant", "Bughouse"}};
  std::array<rules::Position, 2> pos = rec.start;
  for (const auto& [board, san] : {std::pair{0, "e4"}, std::pair{1, "d4"}, std::pair{0, "e5"}}) {
    auto m = rules::parse_san(pos[std::size_t(board)], san);
    ASSERT_TRUE(m) << san;
    rules::BughouseMove bm;
    bm.board = board;
    bm.move = *m;
    rec.moves.push_back(bm);
    rules::play_bughouse_move(pos, board, *m);
  }
  auto text = rules::write_bpgn(rec);
  ASSERT_TRUE(text) << text.error();
  // White B forfeits: on board B that is -/+, for team 1 (Black B's team) +/-, a BPGN Result of 1-0.
  auto v = make_verdict("-/+", "", "", "White B did not come back");
  ASSERT_TRUE(v);
  v->code = team1_code(1, v->code);
  v->board = "B";
  auto after = apply_verdict(*text, *v, false);
  ASSERT_TRUE(after) << after.error();
  auto games = rules::read_bpgn(*after);
  ASSERT_TRUE(games && games->size() == 1u) << *after;
  auto back = rules::replay_bughouse(games->front());
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->result, "1-0");
  EXPECT_EQ(back->moves.size(), 3u);
  EXPECT_EQ(pgn_tag(*after, "ArbiterBoard"), "B");
  EXPECT_EQ(pgn_tag(*after, "ArbiterResult"), "+/-");
  EXPECT_EQ(pgn_tag(*after, "Termination"), "forfeit");
  // A single board's record has no ArbiterBoard.
  auto single = make_verdict("1-0", "", "", "x");
  ASSERT_TRUE(single);
  EXPECT_FALSE(pgn_tag(*apply_verdict(record("*", ""), *single, false), "ArbiterBoard"));
}

// The tag section ends at its first line that is not a tag: a tag-like line in the movetext (a damaged
// record, a comment cut at a line) is not read as a tag, as apply_verdict does not rewrite it as one
// (fuzz_arbiter_result found a record whose partner version read an ArbiterResult from its movetext).
TEST(ArbiterResult, ATagLikeLineInTheMovetextIsNoTag) {
  const std::string damaged = "\n[Event \"Lyon\"]\n[Result \"*\"]\n\n[ArbiterResult \"+/-\"]\n1. e4 *\n";
  EXPECT_EQ(pgn_tag(damaged, "Event"), "Lyon");
  EXPECT_FALSE(pgn_tag(damaged, "ArbiterResult"));
  auto v = make_verdict("1-0", "", "", "the partner board's flag");
  ASSERT_TRUE(v) << v.error();
  auto partner = apply_partner_result(damaged, "0-1", *v);
  ASSERT_TRUE(partner) << partner.error();
  EXPECT_EQ(pgn_tag(*partner, "Result"), "0-1");
  EXPECT_FALSE(pgn_tag(*partner, "ArbiterResult")) << *partner;
}

TEST(ArbiterResult, RoundResultsTakeTheArbitersCodes) {
  auto game = [](const std::string& board, const std::string& result, const std::string& arbiter) {
    return "[Event \"T\"]\n[White \"W" + board + "\"]\n[Black \"B" + board + "\"]\n[Result \"" + result +
           "\"]\n[Board \"" + board + "\"]\n" +
           (arbiter.empty() ? "" : "[Termination \"forfeit\"]\n[ArbiterResult \"" + arbiter + "\"]\n") +
           "\n" + result + "\n\n";
  };
  // Board 1 +/-, 2 -/-, 3 an ordinary 0-1, 4 an ArbiterResult that disagrees with the result (ignored).
  const std::string pgn =
      game("1", "1-0", "+/-") + game("2", "*", "-/-") + game("3", "0-1", "") + game("4", "1-0", "-/+");
  auto results = round_results(pgn, [](std::string_view id) { return std::stoi(std::string(id)); });
  ASSERT_TRUE(results) << results.error();
  ASSERT_EQ(results->size(), 4u);
  EXPECT_EQ((*results)[0].code(), "+/-");
  EXPECT_EQ((*results)[1].code(), "-/-");
  EXPECT_EQ((*results)[1].termination, "forfeit");
  EXPECT_EQ((*results)[2].code(), "0-1");
  EXPECT_EQ((*results)[3].code(), "1-0");
  auto trf = results_trf(*results, 1, "", "T");
  ASSERT_TRUE(trf) << trf.error();
  auto back = parse_trf(*trf, 1);
  ASSERT_TRUE(back) << back.error() << *trf;
  EXPECT_NE(trf->find("   2 w +"), std::string::npos) << *trf;
  EXPECT_NE(trf->find("   1 b -"), std::string::npos) << *trf;
  EXPECT_NE(trf->find("   4 w -"), std::string::npos) << *trf;
  EXPECT_NE(trf->find("   3 b -"), std::string::npos) << *trf;
  const std::string csv = results_csv(*results);
  EXPECT_NE(csv.find("1,W1,B1,,,+/-,forfeit"), std::string::npos) << csv;
  EXPECT_NE(csv.find("2,W2,B2,,,-/-,forfeit"), std::string::npos) << csv;
}

TEST(ArbiterResult, MovesCorrectedInARecord) {
  const std::string before = record("1-0", "resignation");  // 1. e4 e5 2. Nf3 Nc6 3. Bb5
  auto v = make_verdict("1-0", "", "", "the scoresheets show 2...Nf6");
  ASSERT_TRUE(v);
  v->by = "Chief";
  auto after = replace_moves(before, 4, "2... Nf6 3.Nc3 g1f3", *v);  // 3. g1f3 is not legal: refused
  ASSERT_FALSE(after);
  EXPECT_NE(after.error().find("ply 6"), std::string::npos) << after.error();
  after = replace_moves(before, 4, "2... Nf6 3.Nc3 f8b4", *v);
  ASSERT_TRUE(after) << after.error();
  auto games = rules::read_pgn(*after);
  ASSERT_TRUE(games) << games.error();
  auto r = rules::replay(games->front());
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->moves.size(), 6u);
  EXPECT_EQ(r->result, "1-0");  // the result stays
  EXPECT_EQ(games->front().tag("MovesCorrected"), "from ply 4; was: Nc6 Bb5");
  EXPECT_EQ(games->front().tag("ArbiterBy"), "Chief");
  EXPECT_EQ(games->front().tag("White"), "A");
  // The moves before keep their clocks.
  ASSERT_TRUE(r->moves[0].clock_ms);
  EXPECT_EQ(*r->moves[0].clock_ms, 5400000);
  EXPECT_FALSE(r->moves[3].clock_ms);
  // Cut short: nothing from ply 6 on; a ply past the end + 1 is refused.
  auto cut = replace_moves(before, 6, "", *v);
  ASSERT_TRUE(cut) << cut.error();
  EXPECT_EQ(rules::replay(rules::read_pgn(*cut)->front())->moves.size(), 5u);
  EXPECT_FALSE(replace_moves(before, 7, "a6", *v));
  EXPECT_FALSE(replace_moves(before, 0, "e4", *v));
  EXPECT_FALSE(replace_moves("not a game", 1, "e4", *v));
}

TEST(ArbiterResult, APartnerBoardsRecordFollowsItsMatch) {
  const std::string before = record("0-1", "partner-board");
  auto v = make_verdict("0-1", "", "11.2.3", "Black A had only stepped out");
  ASSERT_TRUE(v) << v.error();
  v->board = "A";
  v->at_ms = 1795000000000;
  auto after = apply_partner_result(before, "1-0", *v);
  ASSERT_TRUE(after) << after.error();
  auto games = rules::read_pgn(*after);
  ASSERT_TRUE(games) << games.error();
  ASSERT_EQ(games->size(), 1u);
  const auto& g = games->front();
  EXPECT_EQ(g.result, "1-0");
  EXPECT_EQ(g.tag("Result"), "1-0");
  EXPECT_EQ(g.tag("Termination"), "partner-board");
  EXPECT_EQ(g.tag("ArbiterPrevious"), "0-1 partner-board");
  EXPECT_EQ(g.tag("ArbiterBoard"), "A");
  EXPECT_EQ(g.tag("ArbiterReason"), "Black A had only stepped out");
  EXPECT_FALSE(g.tag("ArbiterResult"));  // no result was given on this board
  EXPECT_FALSE(g.tag("ArbiterRule"));
  EXPECT_EQ(g.moves.size(), 5u);
  EXPECT_EQ(after->back(), before.back());  // the text ends as it did
  EXPECT_FALSE(apply_partner_result(before, "+/-", *v));
  EXPECT_FALSE(apply_partner_result("no record", "1-0", *v));
}

namespace eboard::outputs {
namespace {

// A bughouse match as eboardd writes it, by hand: White on A takes a pawn (2A. exd5), which goes to Black
// on B, who drops it (1b. P@e6).
const char* const MATCH_BPGN =
    "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[WhiteA \"a\"]\n[BlackA \"b\"]\n[WhiteB \"c\"]\n"
    "[BlackB \"d\"]\n[Result \"*\"]\n[Variant \"Bughouse\"]\n\n"
    "1A. e4{119.0} 1a. d5{118.0} 1B. d4{119.5} 2A. exd5{117.0} 1b. P@e6{118.5} *\n";

std::string board_record(const char* white, const char* black, const char* moves) {
  return std::string("[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"") + white +
         "\"]\n[Black \"" + black + "\"]\n[Result \"*\"]\n[Variant \"Bughouse\"]\n\n" + moves + " *\n\n";
}

const std::array<std::string, 2> MATCH_RECORDS{
    board_record("a", "b", "1. e4 {[%clk 0:01:59]} 1... d5 {[%clk 0:01:58]} 2. exd5 {[%clk 0:01:57]}"),
    board_record("c", "d", "1. d4 {[%clk 0:01:59.5]} 1... P@e6 {[%clk 0:01:58.5]}")};
const std::array<std::string, 2> IDS{"A", "B"};

ArbiterVerdict moves_verdict() {
  auto v = make_verdict("1-0", "", "", "the scoresheets say so");
  EXPECT_TRUE(v);
  v->by = "Chief";
  return *v;
}

// The capture the drop on the other board took its pawn from, corrected away: the drop no longer stands.
TEST(MatchMoves, ACaptureALaterDropUsedCannotBeTakenAway) {
  auto r = replace_match_moves(MATCH_BPGN, MATCH_RECORDS, 0, 3, "Nf3", moves_verdict(), IDS);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().board, 1);
  EXPECT_EQ(r.error().ply, 2);
  EXPECT_EQ(r.error().move, "1... P@e6");
  EXPECT_NE(r.error().why.find("no pawn in Black's reserve"), std::string::npos) << r.error().why;
  EXPECT_EQ(refusal_text(r.error(), IDS).rfind("board B, ply 2 (1... P@e6): ", 0), 0u)
      << refusal_text(r.error(), IDS);
  // An arbiter's move that is not legal where it goes is named too.
  r = replace_match_moves(MATCH_BPGN, MATCH_RECORDS, 0, 3, "Ke3", moves_verdict(), IDS);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().board, 0);
  EXPECT_EQ(r.error().ply, 3);
  EXPECT_EQ(r.error().move, "2. Ke3");
  // A ply beyond the board's plies + 1, or records that do not hold the BPGN's plies.
  EXPECT_FALSE(replace_match_moves(MATCH_BPGN, MATCH_RECORDS, 1, 4, "e4", moves_verdict(), IDS));
  auto other = MATCH_RECORDS;
  other[1] = board_record("c", "d", "1. d4 Nf6");
  r = replace_match_moves(MATCH_BPGN, other, 0, 3, "exd5", moves_verdict(), IDS);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().board, 1);
  EXPECT_EQ(r.error().ply, 0);
}

// The drop replaced by a knight's move: nothing taken from a reserve. The new ply keeps the clock of the one
// it replaces; the other board's record stays as it is.
TEST(MatchMoves, ACorrectionThatLeavesEveryDropItsPieceIsWritten) {
  auto r = replace_match_moves(MATCH_BPGN, MATCH_RECORDS, 1, 2, "2... g8f6", moves_verdict(), IDS);
  ASSERT_TRUE(r) << refusal_text(r.error(), IDS);
  EXPECT_EQ(r->was, "P@e6");
  EXPECT_NE(r->bpgn.find("1A. e4{119.0} 1a. d5{118.0} 1B. d4{119.5} 2A. exd5{117.0} 1b. Nf6{118.5} *\n"),
            std::string::npos)
      << r->bpgn;
  EXPECT_NE(r->bpgn.find("[MovesCorrected \"board B, from ply 2; was: P@e6\"]"), std::string::npos)
      << r->bpgn;
  EXPECT_FALSE(r->records[0]);
  ASSERT_TRUE(r->records[1]);
  auto games = rules::read_pgn(*r->records[1]);
  ASSERT_TRUE(games && games->size() == 1u) << *r->records[1];
  const auto& g = games->front();
  ASSERT_EQ(g.moves.size(), 2u);
  EXPECT_EQ(g.moves[1].san, "Nf6");
  EXPECT_EQ(g.moves[1].clock_ms, 118500);
  EXPECT_EQ(g.moves[0].clock_ms, 119500);
  EXPECT_EQ(g.tag("MovesCorrected"), "from ply 2; was: P@e6");
  EXPECT_EQ(g.tag("ArbiterBy"), "Chief");
  EXPECT_EQ(g.tag("White"), "c");

  // A ply added after the board's last goes after the match's last ply; its capture feeds White on B.
  r = replace_match_moves(MATCH_BPGN, MATCH_RECORDS, 0, 4, "Qxd5", moves_verdict(), IDS);
  ASSERT_TRUE(r) << refusal_text(r.error(), IDS);
  EXPECT_EQ(r->was, "-");
  // (The movetext is wrapped at 80 columns.)
  auto one_line = [](std::string t) {
    std::replace(t.begin(), t.end(), '\n', ' ');
    return t;
  };
  EXPECT_NE(one_line(r->bpgn).find("1b. P@e6{118.5} 2a. Qxd5 *"), std::string::npos) << r->bpgn;
  ASSERT_TRUE(r->records[0]);
  EXPECT_NE(one_line(*r->records[0]).find("2. exd5 {[%clk 0:01:57]} 2... Qxd5 *"), std::string::npos)
      << *r->records[0];
}

// The partner board's record follows when what its moves are called changes: White on B may answer 2...
// Qh4 by dropping the pawn Black on A took (2a. dxe4 feeds White on B), so it is check, not mate; the
// capture corrected away, nothing can be dropped on f2 or g3, and the record says mate.
TEST(MatchMoves, ThePartnersRecordFollowsWhenACheckBecomesAMate) {
  const std::string bpgn =
      "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[WhiteA \"a\"]\n[BlackA \"b\"]\n[WhiteB \"c\"]\n"
      "[BlackB \"d\"]\n[Result \"*\"]\n[Variant \"Bughouse\"]\n\n"
      "1A. e4 1a. d5 2A. a3 2a. dxe4 1B. f3 1b. e5 2B. g4 2b. Qh4+ *\n";
  const std::array<std::string, 2> records{board_record("a", "b", "1. e4 d5 2. a3 dxe4"),
                                           board_record("c", "d", "1. f3 e5 2. g4 Qh4+")};
  auto r = replace_match_moves(bpgn, records, 0, 4, "Nf6", moves_verdict(), IDS);
  ASSERT_TRUE(r) << refusal_text(r.error(), IDS);
  EXPECT_NE(r->bpgn.find("2b. Qh4# *"), std::string::npos) << r->bpgn;
  ASSERT_TRUE(r->records[0]);
  EXPECT_NE(r->records[0]->find("2. a3 Nf6 *"), std::string::npos) << *r->records[0];
  ASSERT_TRUE(r->records[1]);
  EXPECT_NE(r->records[1]->find("2. g4 Qh4# *"), std::string::npos) << *r->records[1];
  EXPECT_EQ(r->records[1]->find("MovesCorrected"), std::string::npos) << "its moves are not corrected";
  // With the capture kept, the other board's record stays as it is.
  r = replace_match_moves(bpgn, records, 0, 4, "dxe4", moves_verdict(), IDS);
  ASSERT_TRUE(r) << refusal_text(r.error(), IDS);
  EXPECT_FALSE(r->records[1]);
}

}  // namespace
}  // namespace eboard::outputs
