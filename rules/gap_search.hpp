// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gap search: the sequences of legal moves that lead from the last certain position to what a board shows,
// when the moves between were not seen (a cable out, the daemon down, lost bytes, a fast pair of moves).
//
// Iterative deepening over the number of plies: the first depth with any sequence gives every sequence of
// that length (transposed move orders, or different moves reaching the same board), so a caller can tell a
// unique explanation from an ambiguous one. A branch is cut when the pieces still to be placed on their
// squares need more moves than its side has left (a lower bound from piece geometry, blockers ignored), when
// the material cannot match with the captures and drops left, and when a position was already shown to
// reach nothing in that many plies (transpositions). What a move does to those bounds is told before it is
// made where they leave the side on move little room (a piece brought nearer to its square or not, a piece
// set where the board shows it, one taken from its square or leaving its own): a move that would leave one
// short is not made, and most such are not even generated (the generator is asked for the squares the
// others leave and reach). Each would be cut a ply later: the answers are those of a search without these
// cuts, only the work differs. Pure code: no time, no I/O.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "rules/position.hpp"

namespace eboard::rules {

struct GapQuery {
  Position from;                  // the last certain position, with the reserves known now (bughouse)
  std::array<Piece, 64> board{};  // what the board shows
  // FQE 11: a promoted piece may stand on the wood as the pawn it was (bughouse).
  bool pawn_may_stay_on_last_rank = false;
  unsigned promotion_types = (1u << KNIGHT) | (1u << BISHOP) | (1u << ROOK) | (1u << QUEEN);
  // The side on move after the gap, when the clock tells it (the side whose clock runs): only sequences
  // that end with that side on move.
  std::optional<Color> side_to_move;
  int min_plies = 1;
  int max_plies = 8;
  // Sequences kept; more are counted as truncated. Enough for the sequence played to be among them at 10
  // plies in most gaps (the ranking, rules/gap_rank.hpp, puts it near the top).
  std::size_t max_candidates = 2048;
  // A bound on the work: positions made, and the moves generated and not made (cut before them) at a
  // fraction of one (20 to 38 ms for a search that spends it all, at the 100 to 190 ns a position hosts of
  // this kind were measured at; bench_gap_recovery prints the p99 and the pace). Past it the search
  // reports what it found as incomplete (truncated when the length being searched had sequences, exhausted
  // when none was found), never a guess as the only explanation.
  std::uint64_t max_nodes = 200'000;
};

struct GapResult {
  int plies = 0;  // the length of the sequences found; 0: nothing within the bound explains the board
  std::vector<std::vector<Move>> sequences;
  // More sequences of that length than max_candidates, or the work bound ran out while it listed them (the
  // length is certain: every shorter one was searched whole); the list holds those found.
  bool truncated = false;
  bool exhausted = false;   // the node budget ran out before any sequence was found within the bound
  std::uint64_t nodes = 0;  // the work spent, as max_nodes counts it
  bool unique() const { return sequences.size() == 1 && !truncated; }
};

GapResult search_gap(const GapQuery& query);

// Whether the work bound ran out before `result` (of `query`) was through: nothing found (exhausted), or a
// list shorter than max_candidates left incomplete. (A list cut at max_candidates is not: more work finds
// only more of the same length.)
inline bool cut_by_work(const GapQuery& query, const GapResult& result) {
  return result.exhausted || (result.truncated && result.sequences.size() < query.max_candidates &&
                              result.nodes > query.max_nodes);
}

// search_gap with its last answers remembered (per thread): the search is deterministic, and a journal
// replayed asks again every question its games asked (a file of many games, the same position after every
// restart), where a question the search cannot settle costs the whole work bound each time. The last 64: a
// reconnect's reading asks a few dozen (its tries for a piece in the hand), then its first one again.
GapResult remembered_search_gap(const GapQuery& query);

// A reconnect's searches, as the Reconstructor runs them on the event loop (bench_gap_recovery times them:
// its `+retry` columns). A search is allowed kGapRetryWork times its query's bound (max_nodes) before it is
// told past the bound, or as a list that may lack the sequence played (cut_by_work).
inline constexpr std::uint64_t kGapRetryWork = 3;
// remembered_search_gap with kGapRetryWork times the work. The search with the query's own bound is not run
// first: the search is deterministic, so one its bound does not cut short answers the same with more work.
GapResult search_gap_harder(const GapQuery& query);
// The reconnect's probe a ply longer, once `spent` of the work went to its search (search_gap_harder): what
// is left of that work, at least a quarter of the query's own bound, so that the two take about one
// search_gap_harder's work together. A probe cut short (exhausted) is no answer.
GapResult search_gap_with_what_is_left(const GapQuery& query, std::uint64_t spent);

}  // namespace eboard::rules
