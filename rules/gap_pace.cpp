// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/gap_pace.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "rules/press_count.hpp"

namespace eboard::rules {

double one_more_move_log_ratio(const SidePace& pace, std::int64_t used_ms, double moves) {
  const auto& past = pace.per_move_ms;
  if (past.size() < 3 || moves < 0) return 0;
  double mean = 0;
  for (auto t : past) mean += double(t);
  mean /= double(past.size());
  double var = 0;
  for (auto t : past) var += (double(t) - mean) * (double(t) - mean);
  const double sd = std::max({std::sqrt(var / double(past.size())), 0.15 * mean, 500.0});
  const auto log_p = [&](double n) {
    // No move at all: the clock did not run (a second of reading's rounding either way).
    const double v = std::max(n, 0.05) * sd * sd;
    const double d = double(used_ms) - n * mean;
    return -0.5 * std::log(2 * std::numbers::pi * v) - d * d / (2 * v);
  };
  return log_p(moves + 1) - log_p(moves);
}

std::array<SidePace, 2> side_paces(const Game& game, int last_moves) {
  std::array<SidePace, 2> out;
  const auto& plies = game.plies();
  // The mover of each ply, walked back from the side on move now: the sides alternate but at a jump (a
  // position adopted, its side to move the board's), where the game tells the side before it.
  Color mover = ~game.position().side_to_move();
  const auto full = [&](Color c) { return int(out[std::size_t(c)].per_move_ms.size()) >= last_moves; };
  for (int i = game.ply_count(); i >= 1 && !(full(WHITE) && full(BLACK)); --i) {
    const PlyRecord& p = plies[std::size_t(i - 1)];
    const bool before_seen = i == 1 ? game.clock_at(0).known() : seen_with_clock(plies[std::size_t(i - 2)]);
    if (seen_with_clock(p) && before_seen && !full(mover)) {
      const ClockTimes before = game.clock_at(i - 1), after = p.clock;
      const std::int64_t spent =
          mover == WHITE ? before.white_ms - after.white_ms : before.black_ms - after.black_ms;
      if (spent >= 0) out[std::size_t(mover)].per_move_ms.push_back(spent);
    }
    mover = p.jump && i > 1 ? ~game.position_at(i - 1).side_to_move() : ~mover;
  }
  for (auto& s : out) std::reverse(s.per_move_ms.begin(), s.per_move_ms.end());
  return out;
}

}  // namespace eboard::rules
