// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Our game-end detection agrees with pgn-extract's selections (its test suite in ../shared): for each
// rule, the games of the input file that our rules select are exactly the games of the expected output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "rules/game.hpp"
#include "rules/outcome.hpp"
#include "rules/pgn.hpp"

using namespace eboard::rules;

namespace {

const std::filesystem::path DIR =
    std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "pgn" / "edge_cases" / "pgn-extract_tests";

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Each game as a Game (all plies played) and a key: its moves, to recognise it in the other file.
std::vector<std::pair<std::string, Game>> games_of(const std::filesystem::path& file) {
  std::vector<std::pair<std::string, Game>> out;
  auto games = read_pgn(slurp(file));
  EXPECT_TRUE(games) << file << ": " << (games ? "" : games.error());
  if (!games) return out;
  for (const auto& g : *games) {
    auto rec = replay(g);
    EXPECT_TRUE(rec) << file << ": " << (rec ? "" : rec.error());
    if (!rec) continue;
    Game game(rec->start);
    std::string key;
    for (const auto& m : rec->moves) {
      key += std::to_string(m.move.raw()) + " ";
      game.play(m.move);
    }
    out.emplace_back(key, std::move(game));
  }
  return out;
}

bool ever(const Game& g, const std::function<bool(const Game&)>& pred) {
  Game replayed(g.start());
  if (pred(replayed)) return true;
  for (const auto& p : g.plies()) {
    replayed.play(p.move);
    if (pred(replayed)) return true;
  }
  return false;
}

void agree(const char* in, const char* expected, const std::function<bool(const Game&)>& select) {
  if (!std::filesystem::exists(DIR)) GTEST_SKIP() << "../shared is absent";
  auto inputs = games_of(DIR / "infiles" / in);
  std::set<std::string> want;
  for (const auto& [key, game] : games_of(DIR / "expected" / expected)) want.insert(key);
  std::set<std::string> got;
  for (const auto& [key, game] : inputs)
    if (select(game)) got.insert(key);
  EXPECT_EQ(got, want) << in << ": we select " << got.size() << " of " << inputs.size() << ", pgn-extract "
                       << want.size();
  EXPECT_FALSE(want.empty());
}

}  // namespace

TEST(GameEndCorpus, Checkmate) {
  agree("test-checkmate.pgn", "test-checkmate-out.pgn",
        [](const Game& g) { return is_checkmate(g.position()); });
}

TEST(GameEndCorpus, Stalemate) {
  agree("test-stalemate.pgn", "test-stalemate-out.pgn",
        [](const Game& g) { return is_stalemate(g.position()); });
}

TEST(GameEndCorpus, FiftyMoves) {
  agree("test-fifty.pgn", "test-fifty-out.pgn",
        [](const Game& g) { return ever(g, [](const Game& x) { return x.fifty_moves_claimable(); }); });
}

TEST(GameEndCorpus, SeventyFiveMoves) {
  agree("test-seventyfive.pgn", "test-seventyfive-out.pgn",
        [](const Game& g) { return ever(g, [](const Game& x) { return x.position().rule50() >= 150; }); });
}

TEST(GameEndCorpus, Repetition) {
  agree("test-repetition.pgn", "test-repetition-out.pgn",
        [](const Game& g) { return ever(g, [](const Game& x) { return x.threefold_claimable(); }); });
}
