// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The hand at the loss: the board as the hands left it when it went out of sight (a cable pulled mid-move),
// a piece in the air. Under way to the gap's first move, that hand is a touch its player had to follow
// (FIDE 4.3): it tells which first moves the gap can have, to the ranking (rules/gap_features.hpp) and to
// the gap's length where nothing counts the presses. Pure code: no time, no I/O.
#pragma once

#include <array>
#include <optional>

#include "rules/gap_search.hpp"
#include "rules/position.hpp"

namespace eboard::rules {

// Whether `hand` (a board the hands left while making the first move from `p`, pieces in the air allowed)
// is on the way to `m`: every square where it differs from `p` is one `m` changes, empty or showing what
// `m` puts there. False when it does not differ from `p` at all.
bool hand_on_the_way(const Position& p, const std::array<Piece, 64>& hand, Move m);

// The stories the hand began, where the shortest found do not: `found` holds shortest stories of `q`, none
// of whose first moves `hand` is on the way to (every one of them, its search complete; or some, the work
// ran out as it listed them), or the search ran out of work before it found any (exhausted); and `hand` has a
// piece of the side on move in the air (an opponent's piece alone may be that player's hand still at work on
// the move he pressed). Then the shortest stories of `q` that begin with a move the hand is on the way to (of
// `found`'s length when the work cut its list short, longer otherwise, two plies at a time when `q` knows the
// side on move): each such move made, the rest searched from there, all within kGapRetryWork times `q`'s work
// bound. None otherwise, when none within `q`'s bound begins so, or when a search was cut short by its work.
std::optional<GapResult> stories_the_hand_began(const GapQuery& q, const GapResult& found,
                                                const std::array<Piece, 64>& hand);

// Of `found`'s stories from `before` to `board`, only those that begin with the move `hand` shows set down
// whole (a board the hands left as the link went down, or as the daemon stopped), when every square that
// move changed shows on `board` what it showed then (nothing moved on since), and some of the stories begin
// with it and some do not: set down, the piece was released there as a legal move (FIDE 4.7). True when it
// dropped any; `found` as it was otherwise. (A piece only lifted is no move made: the ranking weighs it.)
bool keep_the_stories_of_the_move_set_down(const Position& before, GapResult& found,
                                           const std::array<Piece, 64>& hand,
                                           const std::array<Piece, 64>& board);

}  // namespace eboard::rules
