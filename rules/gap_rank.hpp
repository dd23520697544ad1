// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gap ranking: the sequences a gap search found, likeliest first, by what the daemon can know of how people
// play. It never decides a move (the arbiter does): it only orders the list the arbiter reads.
//
// The evidence, each read as a number per sequence and weighed in pawns (rules/gap_features.hpp lists them
// with their weights; lower cost is likelier):
// - material: people take what is offered and answer a capture at once. At every position of a sequence,
//   the gain the side on move could have had by a capture (static exchange) and did not take, and the gain
//   its move left the opponent, each net of what the move itself won.
// - answers: people answer what was just played. A move that takes the piece the opponent just moved, takes
//   its own piece out of that piece's reach, defends a piece in its reach, goes through the square the
//   opponent's move left, replies in kind (e4 e5, castling after castling), or is played near it costs less.
// - risks and threats: a piece set where a pawn or a lesser piece of the opponent's attacks it costs more; a
//   piece taken out of such an attack, a check, and a move that attacks a greater or undefended piece cost
//   less (a check the less the earlier).
// - the order of each side's quiet moves and the ways its pieces go: people make the moves that do most for
//   their play first (develop, take the centre, castle; measured as the mobility a move gives the side's
//   pieces), go on near their own last move, and keep knights off the rim.
// - the clocks before and after the gap: each side's time used against its number of moves in the sequence
//   (a move takes at least about a second to make and press). Sequences of one length tie on it.
// - the hands, when scans were read during the gap (clockless boards): sequences the scans fit better come
//   first (`seen`, higher is better, from the caller).
// - the hand at work when the board went out of sight (a cable pulled with a piece in the air, or the first
//   move set down and not pressed): a piece touched is the one moved, or taken (FIDE 4.3), so a sequence
//   whose first move does not fit that board costs about as much as a piece.
// - the moves one by one: how likely people are to make each move of the sequence in the position it was made
//   in, among that position's legal moves (rules/gap_policy.hpp, a model fitted on every position of the
//   corpora's training games): the sequence's log-likelihood, in nats.
// - known opening lines, when the caller has a book of them (rules/gap_openings.hpp): the positions of the
//   sequence a line reaches.
// - an outside judgement (an engine's), when the caller has one: a cost per sequence added as given.
// The weights of the evidence of how people play were fitted on the corpora's games (gap_features.hpp).
// Pure code: no time, no I/O. Ties keep the search's order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "rules/gap_policy.hpp"
#include "rules/position.hpp"

namespace eboard::rules {

class OpeningLines;

struct GapEvidence {
  // How far each side's clock went down during the gap (ms: the reading before it less the reading after),
  // when both readings are known.
  std::optional<std::array<std::int64_t, 2>> time_used_ms;
  std::int64_t increment_ms = 0;  // added per move completed (Fischer): the clock ran that much longer
  // The board as the hands left it when it went out of sight, when it differs from the position before the
  // gap: each square that differs must be one the first move changes, empty (a piece in the air) or showing
  // what the move puts there.
  std::optional<std::array<Piece, 64>> hand_at_loss;
  // What the game showed just before the gap (its last moves): the context of the gap's first move for the
  // policy (rules/gap_policy.hpp); empty at a game's start.
  MoveContext before_gap;
  // Per sequence, optional: how well the scans seen during the gap fit it (higher is better; compared first).
  std::vector<int> seen;
  // A book of opening lines, when the caller has one (rules/gap_openings.hpp): not owned.
  const OpeningLines* openings = nullptr;
  // Per sequence, optional: an outside cost (an engine's judgement), in pawns.
  std::vector<double> outside_cost;
};

// The cost of each sequence from `before` (lower is likelier): the sum of the evidence above but `seen`,
// in pawns.
std::vector<double> gap_sequence_costs(const Position& before,
                                       const std::vector<std::vector<Move>>& candidates,
                                       const GapEvidence& evidence = {});

// The order of `candidates` (indices into it), likeliest first.
std::vector<std::size_t> rank_gap_candidates(const Position& before,
                                             const std::vector<std::vector<Move>>& candidates,
                                             const GapEvidence& evidence = {});

}  // namespace eboard::rules
