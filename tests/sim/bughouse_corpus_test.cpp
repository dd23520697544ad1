// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Issue 5's corpus test. Every match of ../shared/corpora/bughouse (chess.com, two boards, clocks) is played
// by simulated hands on two scanning boards with their clocks, in virtual time, and fed to one Match: both
// boards must give back their moves exactly, with no alert. Then every crazyhouse game of
// ../shared/corpora/pgn/crazyhouse goes through one simulated board.
//
// How the two boards are put together: tests/sim/bughouse_match_sim.hpp (each board's timeline from the
// BPGN clocks, a drop held back until the capture that supplies it was pressed on the other board). The
// two boards' sensor events are then merged in time order. Hands are given a reaction time of 300 ms
// (no premoves on a wooden board); a second pass keeps the recorded timing, premoves included.
//
// FQE 11: a promoted pawn stays a pawn on the board, which shows a queen promotion unless the player
// names another piece. The test names it (Match::set_promotion_piece) at the start of that player's turn,
// as a player would tell the arbiter or his clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "rules/match.hpp"
#include "tests/sim/bughouse_match_sim.hpp"

using namespace eboard;
using namespace eboard::sim::test;

namespace {

const std::filesystem::path SHARED = EBOARD_SHARED_DIR;
const std::filesystem::path BPGN = SHARED / "corpora" / "bughouse" / "chesscom_bughouse_20matches.bpgn";
const std::filesystem::path ZH_DIR = SHARED / "corpora" / "pgn" / "crazyhouse";

std::string describe(int board, const rules::SensorEvent& e) {
  std::string what;
  if (auto* l = std::get_if<rules::PieceLifted>(&e.what))
    what = "-" + rules::square_name(l->square);
  else if (auto* pl = std::get_if<rules::PiecePlaced>(&e.what))
    what = "+" + rules::square_name(pl->square) + rules::piece_char(pl->piece);
  else if (auto* c = std::get_if<rules::ClockReading>(&e.what))
    what = std::string("clock up=") + (c->lever_up == rules::ClockSide::Left ? "L" : "R");
  else
    what = "snapshot";
  return "    " + std::to_string(e.t_ms) + (board == 0 ? " A " : " B ") + what;
}

struct Tally {
  int matches = 0, moves = 0, wrong = 0, alerts = 0, stopped = 0, results = 0, results_agree = 0;
  int read_back = 0;  // records written (BPGN/PGN) and read back to the same moves and result
  std::map<std::string, int> alert_codes;
  std::string first_problem;
};

// The match record the daemon would serve, written as BPGN and read back: the moves of each board (UCI)
// and the result, or why it could not be read.
tl::expected<std::pair<std::array<std::vector<std::string>, 2>, std::string>, std::string> bpgn_round_trip(
    const rules::BughouseRecord& record) {
  auto text = rules::write_bpgn(record);
  if (!text) return tl::unexpected("write: " + text.error());
  auto games = rules::read_bpgn(*text);
  if (!games) return tl::unexpected("read: " + games.error());
  if (games->size() != 1) return tl::unexpected("read " + std::to_string(games->size()) + " games");
  auto back = rules::replay_bughouse(games->front());
  if (!back) return tl::unexpected("replay: " + back.error());
  std::array<std::vector<std::string>, 2> moves;
  std::array<rules::Position, 2> pos = back->start;
  for (const auto& m : back->moves) {
    moves[std::size_t(m.board)].push_back(rules::to_uci(pos[std::size_t(m.board)], m.move));
    rules::play_bughouse_move(pos, m.board, m.move);
  }
  return std::make_pair(moves, back->result);
}

void play_match(const MatchPlan& mp, const sim::HandStyle& style, std::uint64_t seed, Tally& tally) {
  Built built = build(mp, style, seed);
  rules::MatchConfig cfg;
  rules::Match match(cfg, rules::Game(mp.boards[0].start), rules::Game(mp.boards[1].start));

  // The two boards' reports in time order (board A first at equal times).
  struct Item {
    std::int64_t t;
    int board;
    std::size_t index;
  };
  std::vector<Item> items;
  for (int b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < built.tl[std::size_t(b)].events.size(); ++i)
      items.push_back({built.tl[std::size_t(b)].events[i].t_ms, b, i});
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& x, const Item& y) { return x.t != y.t ? x.t < y.t : x.board < y.board; });
  // Named promotion pieces, at the start of the promoting player's turn.
  const std::vector<Naming> namings = promotion_namings(mp, built);

  std::array<std::vector<std::string>, 2> got;
  int alerts = 0;
  std::string first_alert;
  std::optional<std::int64_t> end_t;
  std::optional<rules::MatchResultEvent> result;
  std::vector<std::string> log;
  auto take = [&](const std::vector<rules::Event>& evs) {
    for (const auto& e : evs) {
      log.push_back(std::to_string(e.t_ms) + " " + e.board + " " + rules::event_type(e));
      int b = e.board == "A" ? 0 : 1;
      if (auto* m = std::get_if<rules::MoveEvent>(&e.what)) {
        got[std::size_t(b)].push_back(m->uci);
        log.back() += " " + m->uci;
      } else if (auto* a = std::get_if<rules::AlertEvent>(&e.what)) {
        ++tally.alert_codes[a->code];
        log.back() += " " + a->code + ": " + a->detail;
        if (!alerts++)
          first_alert = e.board + " " + a->code + " at ply " + std::to_string(a->ply) + ": " + a->detail;
      } else if (auto* r = std::get_if<rules::ResultEvent>(&e.what)) {
        log.back() += " " + r->reason;
        if (r->reason != "partner-board" && !end_t) end_t = e.t_ms;
      } else if (auto* mr = std::get_if<rules::MatchResultEvent>(&e.what)) {
        result = *mr;
      }
    }
  };
  const bool verbose = std::getenv("EBOARD_DEBUG") && std::string(std::getenv("EBOARD_DEBUG")) == "2";
  if (verbose)
    for (int b = 0; b < 2; ++b)
      for (const auto& a : built.tl[std::size_t(b)].actions) {
        std::string what;
        if (auto* l = std::get_if<sim::Lift>(&a.what)) what = "lift " + rules::square_name(l->square);
        if (auto* pl = std::get_if<sim::Place>(&a.what))
          what = "place " + rules::square_name(pl->square) + rules::piece_char(pl->piece);
        if (auto* pc = std::get_if<sim::PressClock>(&a.what))
          what = pc->player == rules::WHITE ? "press w" : "press b";
        log.push_back("    action " + std::to_string(a.t_ms) + (b == 0 ? " A " : " B ") + what);
      }
  std::size_t next_naming = 0;
  for (const Item& it : items) {
    while (next_naming < namings.size() && namings[next_naming].t <= it.t) {
      const Naming& n = namings[next_naming++];
      match.set_promotion_piece(n.board, n.color, n.type);
    }
    const rules::SensorEvent& ev = built.tl[std::size_t(it.board)].events[it.index];
    if (verbose) log.push_back(describe(it.board, ev));
    take(match.on_sensor(it.board, ev));
    if (verbose) {
      const auto& r = match.board(it.board);
      std::string diff;
      for (rules::Square q = 0; q < 64; ++q)
        if (r.physical()[q] != r.expected_board()[q])
          diff += " " + rules::square_name(q) + ":" +
                  (r.physical()[q] == rules::NO_PIECE ? '.' : rules::piece_char(r.physical()[q]));
      log.push_back("      fen " + r.game().position().fen() + " diff" + diff);
    }
  }
  take(match.advance(std::max(built.tl[0].end_ms, built.tl[1].end_ms) + 10000));

  ++tally.matches;
  tally.alerts += alerts;
  bool wrong = alerts > 0;
  std::string why;
  for (int b = 0; b < 2; ++b) {
    const BoardPlan& bp = mp.boards[std::size_t(b)];
    std::vector<std::string> want;
    rules::Position p = bp.start;
    for (std::size_t i = 0; i < bp.moves.size(); ++i) {
      want.push_back(rules::to_uci(p, bp.moves[i]));
      if (bp.moves[i].is_drop() && p.pocket(p.side_to_move(), bp.moves[i].drop_type()) == 0)
        p.set_pocket(p.side_to_move(), bp.moves[i].drop_type(), 1);
      p.do_move(bp.moves[i]);
    }
    tally.moves += int(want.size());
    const auto& g = got[std::size_t(b)];
    // Once a game has ended the match, the other game is stopped (FQE 4): its moves pressed after that
    // are not completed. chess.com records a few such moves made in the same instant.
    std::size_t n = g.size();
    bool prefix = n <= want.size() && std::equal(g.begin(), g.end(), want.begin());
    bool complete = n == want.size();
    if (prefix && !complete && end_t) {
      bool all_after = true;
      for (std::size_t i = n; i < want.size(); ++i)
        all_after &= built.tl[std::size_t(b)].press_ms[i] + 1000 >= *end_t;
      if (all_after) {
        tally.stopped += int(want.size() - n);
        complete = true;
      }
    }
    if (!prefix || !complete) {
      wrong = true;
      std::size_t i = 0;
      while (i < g.size() && i < want.size() && g[i] == want[i]) ++i;
      why += std::string(b == 0 ? " board A" : " board B") + " differs from move " + std::to_string(i + 1) +
             " (got " + (i < g.size() ? g[i] : "nothing") + ", want " +
             (i < want.size() ? want[i] : "nothing") + ")";
    }
  }
  if (result) {
    ++tally.results;
    tally.results_agree += rules::result_string(result->result) == mp.result;
  }
  // What the daemon serves as /matches/A-B.bpgn reads back to what was reconstructed.
  if (auto back = bpgn_round_trip(match.record()); !back) {
    wrong = true;
    why += " BPGN " + back.error();
  } else if (back->first != got || back->second != (result ? rules::result_string(result->result) : "*")) {
    wrong = true;
    why += " BPGN read back to other moves or another result (" + back->second + ")";
  } else {
    ++tally.read_back;
  }
  if (wrong) {
    ++tally.wrong;
    if (std::getenv("EBOARD_LIST"))
      std::printf("  wrong: seed %llu:%s%s\n", static_cast<unsigned long long>(seed), why.c_str(),
                  (alerts ? " first alert " + first_alert : std::string()).c_str());
    if (tally.first_problem.empty()) {
      tally.first_problem =
          "seed " + std::to_string(seed) + ":" + why + (alerts ? " first alert " + first_alert : "");
      if (std::getenv("EBOARD_DEBUG"))
        for (const auto& l : log) std::printf("  %s\n", l.c_str());
    }
  }
}

struct Ceilings {
  int tidy, casual, blitz, messy;
};

void run_matches(std::int64_t reaction_ms, Ceilings ceilings) {
  if (!std::filesystem::exists(BPGN)) GTEST_SKIP() << "../shared is absent";
  auto games = rules::read_bpgn(slurp(BPGN));
  ASSERT_TRUE(games) << games.error();
  std::vector<MatchPlan> plans;
  int drops = 0;
  for (const auto& g : *games) {
    auto rec = rules::replay_bughouse(g);
    ASSERT_TRUE(rec) << rec.error();
    plans.push_back(plan(*rec));
    drops += plans.back().drops;
  }
  ASSERT_EQ(plans.size(), 20u);
  struct Named {
    const char* name;
    sim::HandStyle style;
    int ceiling;
  };
  Named styles[] = {{"tidy", sim::HandStyle::tidy(), ceilings.tidy},
                    {"casual", sim::HandStyle::casual(), ceilings.casual},
                    {"blitz", sim::HandStyle::blitz(), ceilings.blitz},
                    {"messy", sim::HandStyle::messy(), ceilings.messy}};
  for (auto& [name, style, ceiling] : styles) {
    style.reaction_ms = reaction_ms;
    Tally tally;
    // EBOARD_MATCH=n plays only the n-th match of each pass (for debugging).
    const char* only = std::getenv("EBOARD_MATCH");
    for (std::uint64_t seed : {1u, 2u})
      for (std::size_t i = 0; i < plans.size(); ++i)
        if (!only || std::to_string(i) == only)
          play_match(plans[i], style, seed * 7919 + (seed - 1) * plans.size() + i, tally);
    std::string codes;
    for (const auto& [code, n] : tally.alert_codes) codes += " " + code + "=" + std::to_string(n);
    std::printf(
        "bughouse %-6s reaction %3lld ms: %3d matches %5d moves (%d drops): %d matches wrong, %d alerts%s; "
        "%d plies stopped by the match end; %d match results, %d as recorded; %d BPGN read back the same\n",
        name, static_cast<long long>(reaction_ms), tally.matches, tally.moves, drops * 2, tally.wrong,
        tally.alerts, codes.c_str(), tally.stopped, tally.results, tally.results_agree, tally.read_back);
    EXPECT_LE(tally.wrong, ceiling) << name << ": " << tally.first_problem;
    EXPECT_EQ(tally.read_back, tally.matches) << name << ": " << tally.first_problem;
  }
}

}  // namespace

// Hands that take at least 300 ms from the opponent's press to their first touch (no premoves).
TEST(BughouseCorpus, MatchesOnTwoSimulatedBoards) { run_matches(300, {0, 0, 0, 0}); }

// The clock data as recorded: chess.com premoves give replies that begin the instant the clock is
// pressed, faster than a scanning board reads: a piece set down and taken within one scan is never seen,
// and when two moves explain the board only one way of several (which piece was dropped, which piece a
// pawn became) the press stays unexplained. Measured residue (matches with a wrong move or any alert, of
// 40 per style; every one traced to a reply begun within a scan of the press): tidy 0, casual 1,
// blitz 10, messy 0. These are ceilings: lower them as reconstruction improves.
TEST(BughouseCorpus, MatchesWithPremoveTiming) { run_matches(0, {0, 1, 10, 0}); }

namespace {

void play_zh(const rules::GameRecord& g, const sim::HandStyle& style, std::uint64_t seed, Tally& tally) {
  sim::TimelineSpec spec;
  spec.start = g.start;
  for (const auto& m : g.moves) spec.moves.push_back(m.move);
  auto [base, inc] = time_control(g.tags);
  std::vector<std::optional<std::int64_t>> clk;
  for (const auto& m : g.moves) clk.push_back(m.clock_ms);
  spec.spent_ms = sim::spent_from_clk(clk, base, inc);
  spec.clock = sim::ClockSettings{base + 3600000, inc};
  spec.white = style;
  spec.black = style;
  spec.seed = seed;
  sim::Timeline tl = sim::build_timeline(spec);

  rules::ReconstructConfig cfg;
  cfg.profile.variant = rules::Variant::Crazyhouse;
  rules::Reconstructor rec(cfg, rules::Game(g.start));
  std::vector<std::string> got;
  int alerts = 0;
  std::string first_alert;
  std::vector<std::string> log;
  auto take = [&](const std::vector<rules::Event>& evs) {
    for (const auto& e : evs) {
      log.push_back(std::to_string(e.t_ms) + " " + rules::event_type(e));
      if (auto* m = std::get_if<rules::MoveEvent>(&e.what)) log.back() += " " + m->uci;
      if (auto* a = std::get_if<rules::AlertEvent>(&e.what)) log.back() += " " + a->detail;
      if (auto* m = std::get_if<rules::MoveEvent>(&e.what)) got.push_back(m->uci);
      if (auto* a = std::get_if<rules::AlertEvent>(&e.what)) {
        ++tally.alert_codes[a->code];
        if (!alerts++) first_alert = a->code + " at ply " + std::to_string(a->ply) + ": " + a->detail;
      }
    }
  };
  if (std::getenv("EBOARD_DEBUG"))
    for (const auto& a : tl.actions) {
      std::string what;
      if (auto* l = std::get_if<sim::Lift>(&a.what)) what = "lift " + rules::square_name(l->square);
      if (auto* pl = std::get_if<sim::Place>(&a.what))
        what = "place " + rules::square_name(pl->square) + rules::piece_char(pl->piece);
      if (auto* pc = std::get_if<sim::PressClock>(&a.what))
        what = pc->player == rules::WHITE ? "press w" : "press b";
      log.push_back("    action " + std::to_string(a.t_ms) + " " + what);
    }
  for (const auto& e : tl.events) {
    if (std::getenv("EBOARD_DEBUG")) log.push_back(describe(0, e));
    take(rec.on_sensor(e));
  }
  take(rec.advance(tl.end_ms + 10000));
  std::vector<std::string> want;
  rules::Position p = g.start;
  for (const auto& m : g.moves) {
    want.push_back(rules::to_uci(p, m.move));
    p.do_move(m.move);
  }
  ++tally.matches;
  tally.moves += int(want.size());
  tally.alerts += alerts;
  // The game record written as PGN and read back gives the reconstructed moves.
  bool read_back = false;
  {
    rules::GameRecord out;
    out.start = rec.game().start();
    for (const auto& ply : rec.game().plies()) out.moves.push_back({ply.move, {}, {}, {}, {}});
    if (auto text = rules::write_pgn(out)) {
      auto games = rules::read_pgn(*text);
      if (games && games->size() == 1)
        if (auto back = rules::replay(games->front())) {
          std::vector<std::string> again;
          rules::Position q = back->start;
          for (const auto& m : back->moves) {
            again.push_back(rules::to_uci(q, m.move));
            q.do_move(m.move);
          }
          read_back = again == got;
        }
    }
  }
  tally.read_back += read_back;
  if (got != want || alerts || !read_back) {
    ++tally.wrong;
    if (tally.first_problem.empty()) {
      std::size_t i = 0;
      while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
      tally.first_problem = "seed " + std::to_string(seed) + ": moves differ from ply " +
                            std::to_string(i + 1) + " (got " + (i < got.size() ? got[i] : "nothing") +
                            ", want " + (i < want.size() ? want[i] : "nothing") + ")" +
                            (alerts ? " first alert " + first_alert : "");
      if (std::getenv("EBOARD_DEBUG"))
        for (const auto& l : log) std::printf("  %s\n", l.c_str());
    }
  }
}

void run_crazyhouse(std::int64_t reaction_ms, Ceilings ceilings) {
  if (!std::filesystem::exists(ZH_DIR)) GTEST_SKIP() << "../shared is absent";
  std::vector<rules::GameRecord> games;
  for (const auto& entry : std::filesystem::directory_iterator(ZH_DIR)) {
    auto read = rules::read_pgn(slurp(entry.path()));
    ASSERT_TRUE(read) << entry.path();
    for (const auto& g : *read) {
      auto rec = rules::replay(g);
      ASSERT_TRUE(rec) << rec.error();
      games.push_back(*rec);
    }
  }
  ASSERT_GT(games.size(), 100u);
  struct Named {
    const char* name;
    sim::HandStyle style;
    int ceiling;
  };
  Named styles[] = {{"tidy", sim::HandStyle::tidy(), ceilings.tidy},
                    {"casual", sim::HandStyle::casual(), ceilings.casual},
                    {"blitz", sim::HandStyle::blitz(), ceilings.blitz},
                    {"messy", sim::HandStyle::messy(), ceilings.messy}};
  for (auto& [name, style, ceiling] : styles) {
    style.reaction_ms = reaction_ms;
    Tally tally;
    for (std::uint64_t seed : {1u, 2u})
      for (const auto& g : games) play_zh(g, style, seed * 7919 + std::uint64_t(tally.matches), tally);
    std::string codes;
    for (const auto& [code, n] : tally.alert_codes) codes += " " + code + "=" + std::to_string(n);
    std::printf(
        "crazyhouse %-6s reaction %3lld ms: %3d games %6d moves: %d games wrong, %d alerts%s; %d PGN read "
        "back the same\n",
        name, static_cast<long long>(reaction_ms), tally.matches, tally.moves, tally.wrong, tally.alerts,
        codes.c_str(), tally.read_back);
    EXPECT_LE(tally.wrong, ceiling) << name << ": " << tally.first_problem;
    EXPECT_EQ(tally.read_back, tally.matches) << name << ": " << tally.first_problem;
  }
}

}  // namespace

TEST(BughouseCorpus, CrazyhouseGamesOnOneSimulatedBoard) { run_crazyhouse(300, {0, 0, 0, 0}); }

// As recorded: the lichess bullet game's clock (whole seconds) gives many replies begun the instant the
// clock is pressed. Measured residue (games with a wrong move or any alert, of 206 per style): that game
// once in blitz and once in messy; ceilings as measured.
TEST(BughouseCorpus, CrazyhouseGamesWithPremoveTiming) { run_crazyhouse(0, {0, 0, 1, 0}); }
