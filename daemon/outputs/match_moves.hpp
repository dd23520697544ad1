// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A correction of the moves of one board of a finished bughouse match (the arbiter's `moves` on a match
// board's earlier game). Pure: texts in, texts out, no files, no clock.
//
// The match's BPGN orders both boards' plies as they were completed. The corrected board's plies from
// `from_ply` on are replaced: the new plies take the places (and the clocks) of the plies they replace, in
// order; fewer leave the last places empty, more go after the last ply of the match. The whole match is then
// replayed in that order, both boards together, the reserves fed by each capture as FQE 6 has it: a changed
// capture changes the partner's reserve, so every later ply of either board must still be legal. The first
// that is not refuses the correction (MatchMovesRefusal), and nothing is to be written.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "daemon/outputs/arbiter_result.hpp"

namespace eboard::outputs {

// The first ply that does not stand, on a board given by its index in the match (0: the first board).
struct MatchMovesRefusal {
  int board = 0;
  int ply = 0;       // on that board, 1 = White's first move; 0: not about one ply (the records as such)
  std::string move;  // as the record or the arbiter wrote it, with its number ("12... N@f3")
  std::string why;
};

struct MatchMovesCorrected {
  std::string bpgn;  // the match's BPGN, corrected
  // The boards' records, corrected: the board whose moves changed always, the other when its own text
  // changes (a drop it could answer a check with turns "+" into "#" or back); nullopt: unchanged.
  std::array<std::optional<std::string>, 2> records;
  std::string was;  // the SAN plies replaced ("-": none), as MovesCorrected tells them
};

// Board `board`'s plies from `from_ply` (1 = White's first) replaced by `moves` (SAN or UCI separated by
// spaces, move numbers skipped; empty: the board's record ends before that ply) in `bpgn` (one match, as
// eboardd writes it) and in `records` (both boards' records of that match, one game each, holding the same
// plies as the BPGN), then the match replayed as above. The corrected texts keep everything else (tags,
// result, the other plies with their clocks and comments); the corrected board's record and the BPGN get
// the tags MovesCorrected ("from ply P; was: …", the BPGN's naming the board: "board A, from ply P; was:
// …"), ArbiterReason, ArbiterBy and ArbiterTime from `v`. `ids`: the boards' ids, for the texts.
// A refusal names the ply that does not stand; a record that cannot be read or does not match the BPGN is
// refused with ply 0.
tl::expected<MatchMovesCorrected, MatchMovesRefusal> replace_match_moves(
    std::string_view bpgn, const std::array<std::string, 2>& records, int board, int from_ply,
    std::string_view moves, const ArbiterVerdict& v, const std::array<std::string, 2>& ids);

// "board B, ply 14 (7... N@e4): no knight in Black's reserve" (ply 0: "board B: <why>").
std::string refusal_text(const MatchMovesRefusal& r, const std::array<std::string, 2>& ids);

}  // namespace eboard::outputs
