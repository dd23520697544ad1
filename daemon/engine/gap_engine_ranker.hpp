// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// An engine's judgement of a gap's candidates (issue 30): which of the sequences the pure ranking
// (rules/gap_rank.hpp) put first are the ones people play. It reorders the first `top` candidates of the
// pure order by their pure cost plus `weight` times the engine's cost: the sum over the sequence's plies of
// each move's loss against the engine's best (its score of the position before the move, plus its score of
// the position after for the other side, 0 to 5 pawns a move), each position searched `nodes` nodes. Ties
// keep the pure order; the candidates after the first `top` keep it too. Like the pure ranking it orders a
// list for the arbiter and never decides a move.
//
// Standard chess and Chess960 (UCI_Chess960); with drops (crazyhouse, bughouse) it declines and the pure
// order stands. Synchronous and slow (milliseconds per position): callers run it off the event loop. Every
// failure (engine missing, crashed, hung past `timeout_ms`) is an error value, the engine process stopped
// and reaped; the next call starts it again.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/engine/uci_process.hpp"
#include "rules/gap_rank.hpp"
#include "rules/position.hpp"

namespace eboard::engine {

// The score of a UCI `info` line (`... score cp 34 ...`, `... score mate -3 ...`) for the side on move, in
// centipawns within +-1000 (a mate is +-1000); nullopt for any other line or a score unreadable.
std::optional<int> uci_info_score(std::string_view line);

struct GapEngineSettings {
  std::string path = "/usr/games/stockfish";
  int nodes = 1000;       // searched per position
  std::size_t top = 32;   // candidates of the pure order reordered
  double weight = 1.0;    // of the engine's cost against the pure cost (both in pawns)
  int timeout_ms = 5000;  // per gap, the engine's start included
};

class GapEngineRanker {
 public:
  explicit GapEngineRanker(GapEngineSettings settings);
  ~GapEngineRanker();
  GapEngineRanker(const GapEngineRanker&) = delete;
  GapEngineRanker& operator=(const GapEngineRanker&) = delete;

  // The order of `candidates` (indices), likeliest first, as described above; or why the engine gave none
  // (the caller keeps rank_gap_candidates' order).
  tl::expected<std::vector<std::size_t>, std::string> rank(
      const rules::Position& before, const std::vector<std::vector<rules::Move>>& candidates,
      const rules::GapEvidence& evidence = {});
  // The same, with `order` (a permutation of the candidates' indices) as the order the engine refines: the
  // daemon's, which is rank_gap_candidates' with its own rules on top (castling rights kept first).
  tl::expected<std::vector<std::size_t>, std::string> reorder(
      const rules::Position& before, const std::vector<std::vector<rules::Move>>& candidates,
      std::vector<std::size_t> order, const rules::GapEvidence& evidence = {});
  // Per sequence: the engine's cost (pawns), or why none. Exposed for the benchmark.
  tl::expected<std::vector<double>, std::string> engine_costs(
      const rules::Position& before, const std::vector<std::vector<rules::Move>>& candidates,
      UciProcess::Clock::time_point deadline);

  const GapEngineSettings& settings() const { return settings_; }
  // The engine's process id while it runs (-1 otherwise): for tests of the fallback and the reaping.
  pid_t engine_pid() const { return engine_.pid(); }
  // Stops the engine (reaped); the next rank starts it again.
  void stop() { engine_.stop(); }
  // From any thread: the rank in progress and every later one fail at once (shutdown).
  void cancel() { engine_.cancel(); }

 private:
  // The engine's score of `p` for its side on move, in centipawns (mates as +-1000), remembered by key
  // for the gap being ranked.
  tl::expected<int, std::string> score(const rules::Position& p, UciProcess::Clock::time_point deadline);
  tl::expected<void, std::string> ready(bool chess960, UciProcess::Clock::time_point deadline);

  GapEngineSettings settings_;
  UciProcess engine_;
  bool chess960_ = false;  // the engine's UCI_Chess960 as last set
  std::unordered_map<rules::Key, int> scores_;
};

}  // namespace eboard::engine
