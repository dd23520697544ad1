// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/sim/scanner.hpp"

#include <algorithm>

#include "daemon/sim/rng.hpp"

namespace eboard::sim {

using rules::SensorEvent;
using rules::Square;

std::array<Square, 64> scan_order(ScanOrder order) {
  std::array<Square, 64> out{};
  for (int i = 0; i < 64; ++i) {
    const int row = i / 8, col = i % 8;
    switch (order) {
      case ScanOrder::FromA8:
        out[i] = rules::make_square(col, 7 - row);
        break;
      case ScanOrder::FromH1:
        out[i] = rules::make_square(7 - col, row);
        break;
      case ScanOrder::FromA1:
        out[i] = rules::make_square(col, row);
        break;
    }
  }
  return out;
}

namespace {

// Clock readings made straight from the presses: one at each press that moved the lever, and one every
// `period` while the clock runs. Used when the clock is not tied to the scan cycle.
std::vector<SensorEvent> clock_at_presses(ClockModel clock, std::span<const HandAction> actions,
                                          std::int64_t t0, std::int64_t end_ms, std::int64_t period) {
  std::vector<SensorEvent> out;
  std::int64_t last = t0;
  auto ticks_until = [&](std::int64_t t) {
    while (clock.running() && period > 0 && last + period <= t) {
      last += period;
      out.push_back({last, clock.reading(last)});
    }
  };
  for (const HandAction& a : actions) {
    const auto* press = std::get_if<PressClock>(&a.what);
    if (!press) continue;
    ticks_until(a.t_ms);
    if (clock.press_player(press->player, a.t_ms)) {
      last = a.t_ms;
      out.push_back({a.t_ms, clock.reading(a.t_ms)});
    }
  }
  ticks_until(end_ms);
  return out;
}

// Merges two time-sorted streams; at equal times the board's event comes first (a press follows the
// placement it completes).
std::vector<SensorEvent> merge(const std::vector<SensorEvent>& board, const std::vector<SensorEvent>& clock) {
  std::vector<SensorEvent> out;
  out.reserve(board.size() + clock.size());
  std::size_t i = 0, j = 0;
  while (i < board.size() || j < clock.size()) {
    if (j == clock.size() || (i < board.size() && board[i].t_ms <= clock[j].t_ms))
      out.push_back(board[i++]);
    else
      out.push_back(clock[j++]);
  }
  return out;
}

SensorEvent board_event(std::int64_t t, Square s, rules::Piece p) {
  if (p == rules::NO_PIECE) return {t, rules::PieceLifted{s}};
  return {t, rules::PiecePlaced{s, p}};
}

}  // namespace

std::vector<SensorEvent> Scanner::run(const PhysicalBoard& initial, std::span<const HandAction> actions,
                                      std::optional<ClockModel> clock, std::int64_t t0,
                                      std::int64_t end_ms) const {
  const std::int64_t clock_period = config_.clock_period_ms;

  if (!config_.quantize) {
    std::vector<SensorEvent> board;
    PhysicalBoard phys = initial;
    for (const HandAction& a : actions) {
      if (std::holds_alternative<PressClock>(a.what) || !apply(phys, a)) continue;
      if (const auto* l = std::get_if<Lift>(&a.what))
        board.push_back(board_event(a.t_ms, l->square, rules::NO_PIECE));
      if (const auto* p = std::get_if<Place>(&a.what))
        board.push_back(board_event(a.t_ms, p->square, p->piece));
    }
    if (!clock) return board;
    return merge(board, clock_at_presses(*clock, actions, t0, end_ms, clock_period));
  }

  Rng rng(seed_);
  const std::array<Square, 64> order = scan_order(config_.order);
  const bool poll_per_scan = clock && config_.clock_poll == ClockPoll::BeforeSweep;
  PhysicalBoard phys = initial, reported = initial;
  std::size_t next = 0;  // the first action not yet applied
  int presses = 0, presses_reported = 0;
  // Applies every action up to and including time `t`.
  auto apply_until = [&](std::int64_t t) {
    for (; next < actions.size() && actions[next].t_ms <= t; ++next) {
      const HandAction& a = actions[next];
      if (const auto* press = std::get_if<PressClock>(&a.what)) {
        if (poll_per_scan && clock->press_player(press->player, a.t_ms)) ++presses;
      } else {
        apply(phys, a);
      }
    }
  };

  std::vector<SensorEvent> out;
  std::int64_t last_reading = t0;
  // The board's scan loop is not in step with the players: the first scan starts at a random phase.
  std::int64_t s = t0 + rng.range(0, config_.period_max_ms);
  while (s < end_ms) {
    const std::int64_t period =
        std::max<std::int64_t>(rng.range(config_.period_min_ms, config_.period_max_ms), 1);
    const std::int64_t e = s + period;
    apply_until(s);
    std::optional<rules::ClockReading> poll;
    if (poll_per_scan) {
      const bool due = clock->running() && clock_period > 0 && e - last_reading >= clock_period;
      if (presses != presses_reported || due) {
        poll = clock->reading(s);
        presses_reported = presses;
      }
    }
    // Nothing changes during the sweep and nothing is pending: the scan finds nothing (skipped for speed;
    // the random numbers drawn do not depend on it).
    const bool quiet = (next == actions.size() || actions[next].t_ms >= e) && phys == reported;
    if (!quiet) {
      for (int j = 0; j < 64; ++j) {
        if (config_.sweep) apply_until(s + j * period / 64);
        const Square sq = order[j];
        if (phys[sq] != reported[sq]) {
          reported[sq] = phys[sq];
          out.push_back(board_event(e, sq, phys[sq]));
        }
      }
    }
    if (poll) {
      out.push_back({e, *poll});
      last_reading = e;
    }
    s = e;
  }

  if (!clock || poll_per_scan) return out;
  return merge(out, clock_at_presses(*clock, actions, t0, end_ms, clock_period));
}

}  // namespace eboard::sim
