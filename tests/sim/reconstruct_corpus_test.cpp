// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Issue 4's corpus test: every game of ../shared/corpora/pgn/standard and chess960 is played by simulated
// hands (several styles and seeds) on a scanning board with a clock, in virtual time, and the
// reconstruction must give back every move exactly, with no alert at all.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon/sim/timeline.hpp"
#include "rules/pgn.hpp"
#include "rules/reconstruct.hpp"

using namespace eboard;

namespace {

const std::filesystem::path PGN_DIR = std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "pgn";

struct Corpus {
  std::vector<rules::GameRecord> games;
};

Corpus load(const std::filesystem::path& dir) {
  Corpus c;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto games = rules::read_pgn(text.str());
    EXPECT_TRUE(games) << entry.path();
    if (!games) continue;
    for (const auto& g : *games)
      if (auto rec = rules::replay(g)) c.games.push_back(*rec);
  }
  return c;
}

// "180+2" → {180000, 2000}; anything else → a generous default.
std::pair<std::int64_t, std::int64_t> time_control(const rules::GameRecord& g) {
  for (const auto& t : g.tags)
    if (t.name == "TimeControl") {
      auto plus = t.value.find('+');
      try {
        return {std::stoll(t.value.substr(0, plus)) * 1000,
                plus == std::string::npos ? 0 : std::stoll(t.value.substr(plus + 1)) * 1000};
      } catch (...) {}
    }
  return {5400000, 30000};
}

struct Tally {
  int games = 0, moves = 0, wrong_games = 0, alerts = 0;
  std::string first_problem;
};

void play(const rules::GameRecord& g, sim::HandStyle style, std::uint64_t seed, bool chess960, Tally& tally,
          const char* profile) {
  sim::TimelineSpec spec;
  spec.start = g.start;
  for (const auto& m : g.moves) spec.moves.push_back(m.move);
  auto [base, inc] = time_control(g);
  std::vector<std::optional<std::int64_t>> clk;
  for (const auto& m : g.moves) clk.push_back(m.clock_ms);
  spec.spent_ms = sim::spent_from_clk(clk, base, inc);
  // Hands cannot premove: a physical move takes longer than many lichess moves did, so the clock gets
  // time to spare (a flag falling here would be the simulation's, not the game's).
  spec.clock = sim::ClockSettings{base + 3600000, inc};
  spec.white = style;
  spec.black = style;
  spec.seed = seed;
  sim::Timeline tl = sim::build_timeline(spec);

  rules::ReconstructConfig cfg;
  cfg.chess960 = chess960;
  cfg.profile = *rules::profile_by_name(profile);
  rules::Reconstructor rec(cfg, rules::Game(g.start));
  std::vector<std::string> got;
  int alerts = 0;
  std::string first_alert;
  std::vector<std::string> log;  // everything that came out, for the report of a failing game
  auto take = [&](const std::vector<rules::Event>& evs) {
    for (const auto& e : evs) {
      log.push_back(std::to_string(e.t_ms) + " " + rules::event_type(e));
      if (auto* r = std::get_if<rules::ResultEvent>(&e.what)) log.back() += " " + r->reason;
      if (auto* m = std::get_if<rules::MoveEvent>(&e.what)) got.push_back(m->uci);
      if (auto* a = std::get_if<rules::AlertEvent>(&e.what)) {
        if (!alerts++) first_alert = a->code + " at ply " + std::to_string(a->ply) + ": " + a->detail;
      }
    }
  };
  for (const auto& e : tl.events) take(rec.on_sensor(e));
  take(rec.advance(tl.end_ms + 10000));

  std::vector<std::string> want;
  rules::Position p = g.start;
  for (const auto& m : g.moves) {
    want.push_back(rules::to_uci(p, m.move));
    p.do_move(m.move);
  }
  ++tally.games;
  tally.moves += int(want.size());
  tally.alerts += alerts;
  if (got != want || alerts) {
    ++tally.wrong_games;
    if (std::getenv("EBOARD_LIST")) {
      std::size_t i = 0;
      while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
      std::printf("  wrong: seed %llu ply %zu of %zu%s\n", static_cast<unsigned long long>(seed), i + 1,
                  want.size(), alerts ? (" first alert " + first_alert).c_str() : "");
    }
    if (tally.first_problem.empty()) {
      std::size_t i = 0;
      while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
      tally.first_problem = "seed " + std::to_string(seed) + " game with " + std::to_string(want.size()) +
                            " plies: " +
                            (got != want ? "moves differ from ply " + std::to_string(i + 1) + " (got " +
                                               (i < got.size() ? got[i] : "nothing") + ", want " +
                                               (i < want.size() ? want[i] : "nothing") + ")"
                                         : "") +
                            (alerts ? " first alert " + first_alert : "");
      if (std::getenv("EBOARD_DEBUG") && std::string(std::getenv("EBOARD_DEBUG")) == "2") {
        for (const auto& a : tl.actions) {
          std::string what;
          if (auto* l = std::get_if<sim::Lift>(&a.what)) what = "lift " + rules::square_name(l->square);
          if (auto* pl = std::get_if<sim::Place>(&a.what))
            what = "place " + rules::square_name(pl->square) + rules::piece_char(pl->piece);
          if (auto* pc = std::get_if<sim::PressClock>(&a.what))
            what = pc->player == rules::WHITE ? "press w" : "press b";
          std::printf("    %lld action %s\n", static_cast<long long>(a.t_ms), what.c_str());
        }
        for (const auto& e : tl.events) {
          std::string what;
          if (auto* l = std::get_if<rules::PieceLifted>(&e.what))
            what = "-" + rules::square_name(l->square);
          else if (auto* pl = std::get_if<rules::PiecePlaced>(&e.what))
            what = "+" + rules::square_name(pl->square) + rules::piece_char(pl->piece);
          else if (auto* c = std::get_if<rules::ClockReading>(&e.what))
            what = std::string("clock up=") + (c->lever_up == rules::ClockSide::Left ? "L" : "R");
          else
            what = "snapshot";
          std::printf("    %lld %s\n", static_cast<long long>(e.t_ms), what.c_str());
        }
      }
      if (std::getenv("EBOARD_DEBUG")) {
        for (const auto& l : log) std::printf("  %s\n", l.c_str());
        std::printf("  FEN %s\n", g.start.fen().c_str());
      }
    }
  }
}

// Games with a wrong move or any alert, per style. The goal is zero everywhere; where the sloppy or fast
// styles still miss (premove-fast lichess replies within one scan of the press), the measured count is a
// ceiling so that any regression fails. Lower these as reconstruction improves.
struct Ceilings {
  int tidy, casual, blitz, messy;
};

void run_corpus(const char* folder, bool chess960, std::int64_t reaction_ms, Ceilings ceilings,
                const char* profile = "fide-standard") {
  if (!std::filesystem::exists(PGN_DIR / folder)) GTEST_SKIP() << "../shared is absent";
  Corpus c = load(PGN_DIR / folder);
  ASSERT_FALSE(c.games.empty());
  struct Named {
    const char* name;
    sim::HandStyle style;
    int ceiling;
  };
  const Named styles[] = {{"tidy", sim::HandStyle::tidy(), ceilings.tidy},
                          {"casual", sim::HandStyle::casual(), ceilings.casual},
                          {"blitz", sim::HandStyle::blitz(), ceilings.blitz},
                          {"messy", sim::HandStyle::messy(), ceilings.messy}};
  for (auto [name, style, ceiling] : styles) {
    style.reaction_ms = reaction_ms;
    Tally tally;
    // EBOARD_GAME=seed plays only the game of that seed (as the failure report names it), for debugging.
    const char* only = std::getenv("EBOARD_GAME");
    for (std::uint64_t seed : {1u, 2u})
      for (std::size_t i = 0; i < c.games.size(); ++i) {
        std::uint64_t game_seed = seed * 7919 + (seed - 1) * c.games.size() + i;
        if (!only || std::to_string(game_seed) == only)
          play(c.games[i], style, game_seed, chess960, tally, profile);
      }
    std::string rules = std::string(profile) == "fide-standard" ? "" : std::string(" (") + profile + ")";
    std::printf("%-9s %-7s reaction %3lld ms: %4d games %6d moves: %d games wrong, %d alerts%s\n", folder,
                name, static_cast<long long>(reaction_ms), tally.games, tally.moves, tally.wrong_games,
                tally.alerts, rules.c_str());
    EXPECT_LE(tally.wrong_games, ceiling) << name << ": " << tally.first_problem;
  }
}

}  // namespace

// Hands that need at least 300 ms from the opponent's press to their first touch: no human replies faster
// on wood. Every move back, no alert, in every style.
TEST(ReconstructCorpus, StandardGamesThroughHumanHands) { run_corpus("standard", false, 300, {0, 0, 0, 0}); }
TEST(ReconstructCorpus, Chess960GamesThroughHumanHands) { run_corpus("chess960", true, 300, {0, 0, 0, 0}); }
// Under blitz rules an illegal move may stand (A.4.2) and the game then goes on from it: a move wrongly
// taken for an illegal one would be kept, not just alerted. Clean hands must still give every move back.
TEST(ReconstructCorpus, StandardGamesThroughHumanHandsUnderBlitzRules) {
  run_corpus("standard", false, 300, {0, 0, 0, 0}, "fide-blitz");
}

// The clock data as recorded: lichess premoves give replies that begin the instant the clock is pressed,
// within one scan of the board; some of those stay ambiguous. Measured residue as ceilings.
TEST(ReconstructCorpus, StandardGamesWithPremoveTiming) { run_corpus("standard", false, 0, {0, 0, 37, 14}); }
TEST(ReconstructCorpus, Chess960GamesWithPremoveTiming) { run_corpus("chess960", true, 0, {0, 0, 0, 0}); }
