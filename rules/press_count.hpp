// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Press count: how many moves were completed between two clock readings, on a clock that adds a Fischer
// increment at each press. Between two readings the clock ran (t1 - t0) in all, one side at a time, and each
// press added the increment to its presser, so the sum of both times went down by (t1 - t0) less presses ×
// increment: the count follows, where nothing on the board can tell it (a piece's detour, out and back,
// reaches the board a shorter story does). The increment is learned from the game's own presses; a clock
// without one, or one whose addition varies (a delay, a paused clock), tells nothing. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "rules/game.hpp"

namespace eboard::rules {

struct TimedClock {
  std::int64_t t_ms = 0;  // when it was read (on the clock's time scale)
  ClockTimes times;
};

// A ply seen being made and pressed, the clock read after it: not recovered or missed in a gap, adopted or
// illegal. Its reading, beside the one after the ply before, is what the players' own presses did.
bool seen_with_clock(const PlyRecord& p);

// The increment (ms, whole seconds) the clock adds at a press, from the last plies of `plies` that follow a
// ply with both readings known (seen moves; not recovered, missed, adopted or illegal): the mean of what each
// such press added, to the second, once the median of at least eight agrees with three quarters of them
// within 1.5 s; none otherwise (a delay clock, a clock paused or set again), or below 2 s (too little to
// count presses by, the readings being whole seconds).
std::optional<std::int64_t> learned_increment(std::span<const PlyRecord> plies);

// The number of presses between `before` and `after` (both readings known, the clock running between them),
// of the parity `odd` (the side whose clock runs changed): the count whose increments account for what the
// times lost less than the time that passed, within 1.5 s (2.5 s for increments of 5 s and more, whose counts
// of one parity lie 10 s apart); none when no count does, or the readings are not known.
std::optional<int> presses_between(const TimedClock& before, const TimedClock& after,
                                   std::int64_t increment_ms, bool odd);

}  // namespace eboard::rules
