// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A gap's length by the players' pace: on a clock without increment nothing counts the presses, and a story
// two plies longer (a piece's detour) reaches the same board. What the clock does tell is the time each side
// used over the gap; beside the time each took per move before it, that makes one move more per side
// likelier or not. Each move's time is taken as normal, with the mean and spread of the side's moves before
// the gap (the spread at least 15 % of the mean, and half a second). Pure code: no time, no I/O.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "rules/game.hpp"

namespace eboard::rules {

struct SidePace {
  std::vector<std::int64_t> per_move_ms;  // the side's moves before the gap, the latest last
};

// A gap held for its pace (ReconstructConfig::hold_uncounted_gaps): one move more per side at least this much
// likelier (a log ratio; e^2, about 7 to 1). sim_gap_recovery_test's late reconnects with the hold, gaps
// settled by the arbiter (2026-12-01): Chess960 told short 9 of 320 without the pace, 7 with it at presses
// only, 0 with it at readings too (237 gaps held where 216 were without it); standard 2 of 636 either way
// (presses read at the reconnect, the board at the game's position, held since by the press given back:
// Reconstructor::press_tells_unseen_moves), 469 gaps held where 451 were.
inline constexpr double kOneMoreMoveHoldLogRatio = 2.0;

// log p(used | moves + 1) - log p(used | moves): how much one move more fits `used` ms better than `moves`
// (a part of a move allowed). 0 without 3 moves to take the pace from.
double one_more_move_log_ratio(const SidePace& pace, std::int64_t used_ms, double moves);

// Each side's time per move over the game's last `last_moves` moves of that side seen with their clock and
// following a ply (or the start) read so too (seen_with_clock, rules/press_count.hpp); indexed by Color.
std::array<SidePace, 2> side_paces(const Game& game, int last_moves = 20);

}  // namespace eboard::rules
