// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A whole simulated game as a board reports it: hands play the moves, the scanner turns the actions into
// field updates, the clock model into readings. This is the input `eboardctl sim` feeds to the board
// emulator and the reconstruction corpus tests feed straight to reconstruction.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "daemon/sim/clock_model.hpp"
#include "daemon/sim/hand.hpp"
#include "daemon/sim/scanner.hpp"
#include "rules/position.hpp"
#include "rules/sensor.hpp"

namespace eboard::sim {

struct TimelineSpec {
  rules::Position start = rules::Position::start();
  std::vector<rules::Move> moves;  // legal from `start`
  // Per move, the time it takes on the clock (turn start to press), e.g. from spent_from_clk(); missing
  // or nullopt entries let the player's style decide.
  std::vector<std::optional<std::int64_t>> spent_ms;
  // Per move, the earliest time of its first touch (MoveTiming::not_before_ms): a bughouse drop waits for
  // the capture on the partner's board that hands its piece over.
  std::vector<std::optional<std::int64_t>> not_before_ms;
  HandStyle white = HandStyle::casual();
  HandStyle black = HandStyle::casual();
  ScannerConfig scanner{};
  std::optional<ClockSettings> clock = ClockSettings{};  // nullopt: no clock connected
  std::uint64_t seed = 1;
  std::int64_t start_ms = 0;
  // Scanning goes on this long after the last action, so the last changes and readings are reported
  // (at least two scan periods are needed).
  std::int64_t tail_ms = 2000;
};

struct Timeline {
  std::vector<HandAction> actions;         // what the hands did
  std::vector<rules::SensorEvent> events;  // what the board and clock reported, in time order
  std::vector<std::int64_t> press_ms;      // per move, when its clock press happened
  std::int64_t end_ms = 0;                 // the time of the last event
  HandStats white_stats, black_stats;
};

// Builds the timeline: a BoardSnapshot of the start position and a first clock reading at `start_ms`
// (the clock is started then, with the side to move's time running; `present = false` without a clock),
// then every board change and clock reading in time order. Deterministic for a seed. Throws
// std::invalid_argument on an illegal move.
Timeline build_timeline(const TimelineSpec& spec);

// The time each move took on the clock, from the remaining times after each move ([%clk] of a PGN, in
// ms; nullopt when unknown) and the time control: move i is made by the player of move i-2, whose time
// before it was his [%clk] after that move (or the base time on his first move); the increment is
// counted as added at the press (Fischer). Unknown or negative results give nullopt.
std::vector<std::optional<std::int64_t>> spent_from_clk(
    std::span<const std::optional<std::int64_t>> clk_after_ms, std::int64_t base_ms,
    std::int64_t increment_ms);

}  // namespace eboard::sim
