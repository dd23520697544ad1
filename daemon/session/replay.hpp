// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Replays captures through the same protocol row (its decoder), link gate and reconstruction the daemon
// runs, in virtual time: no sleeping, the capture's times are the clock, and the same input always gives
// the same output. Every protocol of the table (board_protocol.hpp) replays; a capture's link records
// (`! offline`, `! online`) reach the gate and reconstruction as the link's changes did live. A board of a
// DGT bus line (`protocol: dgt-bus`, its `bus-address`) replays through its BusBoardFeed, the code the
// line's session runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/core/game_record.hpp"
#include "drivers/capture.hpp"
#include "rules/game.hpp"
#include "rules/match.hpp"
#include "rules/pgn.hpp"
#include "rules/reconstruct.hpp"

namespace eboard::session {

struct ReplayResult {
  std::vector<rules::Event> events;
  rules::Game game;
  // The arbiter's answer (`gap_moves`), when a gap waited for it: its refusal, or empty when accepted.
  std::optional<std::string> gap_refused;
};

// One board's capture. The board id comes from the capture's `board` header (else `cfg.board_id`). A board
// without a clock (its protocol row says so) completes moves after `cfg.complete_after_ms`, or after the
// daemon's default settle time when that is 0, as the daemon does. `gap_moves`: the arbiter's moves for
// the first gap that waits for them (`recover --moves`, SAN or UCI), given as soon as it is told (or, with
// `at_the_end`, once the capture is over: the moves published since then go out again at their plies); the
// replay goes on with what they settle. (Not for a board of a DGT bus line: there no gap is settled.)
tl::expected<ReplayResult, std::string> replay_capture(const drivers::Capture& capture,
                                                       rules::ReconstructConfig cfg,
                                                       const std::optional<std::string>& gap_moves = {},
                                                       bool at_the_end = false);

struct MatchReplayResult {
  std::vector<rules::Event> events;  // both boards, in time order
  rules::BughouseRecord record;      // BPGN: the moves of both boards in the order they were completed
};

// A bughouse match: the captures of boards A and B (one time origin), fed together to one rules::Match
// in time order. The board ids come from the captures' `board` headers (else cfg.board_ids).
tl::expected<MatchReplayResult, std::string> replay_match(const drivers::Capture& a,
                                                          const drivers::Capture& b, rules::MatchConfig cfg);

}  // namespace eboard::session
