// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/sim/timeline.hpp"

#include "daemon/sim/rng.hpp"

namespace eboard::sim {

Timeline build_timeline(const TimelineSpec& spec) {
  Timeline tl;
  // Each consumer gets its own stream, so a change in one (a style, the scan jitter) leaves the others be.
  Hand white(spec.white, derive_seed(spec.seed, 1));
  Hand black(spec.black, derive_seed(spec.seed, 2));
  tl.actions =
      play_game(white, black, spec.start, spec.moves, spec.start_ms, spec.spent_ms, spec.not_before_ms);
  tl.white_stats = white.stats();
  tl.black_stats = black.stats();
  for (const HandAction& a : tl.actions)
    if (std::holds_alternative<PressClock>(a.what)) tl.press_ms.push_back(a.t_ms);

  const PhysicalBoard initial = physical_board(spec.start);
  const std::int64_t last = tl.actions.empty() ? spec.start_ms : tl.actions.back().t_ms;
  const std::int64_t end = last + std::max<std::int64_t>(spec.tail_ms, 0);

  tl.events.push_back({spec.start_ms, rules::BoardSnapshot{initial}});
  std::optional<ClockModel> clock;
  if (spec.clock) {
    clock.emplace(*spec.clock);
    clock->start_player(spec.start.side_to_move(), spec.start_ms);
    tl.events.push_back({spec.start_ms, clock->reading(spec.start_ms)});
  } else {
    rules::ClockReading none;
    none.present = false;
    tl.events.push_back({spec.start_ms, none});
  }

  Scanner scanner(spec.scanner, derive_seed(spec.seed, 3));
  std::vector<rules::SensorEvent> reports = scanner.run(initial, tl.actions, clock, spec.start_ms, end);
  tl.events.insert(tl.events.end(), reports.begin(), reports.end());
  tl.end_ms = tl.events.back().t_ms;
  return tl;
}

std::vector<std::optional<std::int64_t>> spent_from_clk(
    std::span<const std::optional<std::int64_t>> clk_after_ms, std::int64_t base_ms,
    std::int64_t increment_ms) {
  std::vector<std::optional<std::int64_t>> out(clk_after_ms.size());
  for (std::size_t i = 0; i < clk_after_ms.size(); ++i) {
    // The mover's time before this move: the start time on his first move, else after his previous one.
    const std::optional<std::int64_t> before =
        i < 2 ? std::optional<std::int64_t>(base_ms) : clk_after_ms[i - 2];
    if (!before || !clk_after_ms[i]) continue;
    const std::int64_t spent = *before + increment_ms - *clk_after_ms[i];
    if (spent >= 0) out[i] = spent;
  }
  return out;
}

}  // namespace eboard::sim
