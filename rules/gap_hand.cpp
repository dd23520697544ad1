// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/gap_hand.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "rules/movegen.hpp"

namespace eboard::rules {

bool hand_on_the_way(const Position& p, const std::array<Piece, 64>& hand, Move m) {
  Position after = p;
  after.do_move(m);
  bool differs = false;
  for (Square q = 0; q < 64; ++q) {
    if (hand[q] == p.piece_on(q)) continue;
    differs = true;
    if (after.piece_on(q) == p.piece_on(q)) return false;  // a square the move leaves as it was
    if (hand[q] != NO_PIECE && hand[q] != after.piece_on(q)) return false;
  }
  return differs;
}

namespace {

// `hand` has a piece of the side on move in `before` off its square.
bool movers_piece_lifted(const Position& before, const std::array<Piece, 64>& hand) {
  for (Square x = 0; x < 64; ++x)
    if (hand[x] == NO_PIECE && before.piece_on(x) != NO_PIECE &&
        color_of(before.piece_on(x)) == before.side_to_move())
      return true;
  return false;
}

}  // namespace

bool keep_the_stories_of_the_move_set_down(const Position& before, GapResult& found,
                                           const std::array<Piece, 64>& hand,
                                           const std::array<Piece, 64>& board) {
  if (found.sequences.size() < 2) return false;
  std::optional<Move> shown;
  for (Move m : MoveList(before)) {
    Position after = before;
    after.do_move(m);
    if (after.board() != hand) continue;
    if (shown) return false;  // (two moves set down alike: none is known)
    shown = m;
  }
  if (!shown) return false;
  for (Square q = 0; q < 64; ++q)
    if (hand[q] != before.piece_on(q) && board[q] != hand[q]) return false;  // moved on since, or taken
  std::vector<std::vector<Move>> began;
  for (const auto& seq : found.sequences)
    if (!seq.empty() && seq[0] == *shown) began.push_back(seq);
  if (began.empty() || began.size() == found.sequences.size()) return false;
  found.sequences = std::move(began);
  return true;
}

std::optional<GapResult> stories_the_hand_began(const GapQuery& q, const GapResult& found,
                                                const std::array<Piece, 64>& hand) {
  const Position& before = q.from;
  // Where the search ran out of work, the stories the hand began are searched from the shortest on (its
  // first move known, the rest is a search a ply shorter from a narrower start); where it ran out after it
  // listed some of the shortest, from that length. (A list cut at max_candidates is not searched again.)
  const bool listed_short = found.truncated && found.sequences.size() < q.max_candidates;
  if ((found.truncated && !listed_short) || (found.plies == 0 && !found.exhausted)) return std::nullopt;
  if (std::any_of(found.sequences.begin(), found.sequences.end(),
                  [&](const std::vector<Move>& seq) { return hand_on_the_way(before, hand, seq[0]); }))
    return std::nullopt;
  if (!movers_piece_lifted(before, hand)) return std::nullopt;
  std::vector<Move> fitting;
  for (Move m : MoveList(before))
    if (hand_on_the_way(before, hand, m)) fitting.push_back(m);
  if (fitting.empty()) return std::nullopt;
  // Length by length, each length's searches sharing the work left, at least a quarter of one search's
  // bound each.
  const int step = q.side_to_move ? 2 : 1;
  int shortest = listed_short ? found.plies : found.plies + step;
  if (found.exhausted) {
    shortest = std::max(2, q.min_plies);
    if (q.side_to_move && (shortest % 2 == 0) != (*q.side_to_move == before.side_to_move())) ++shortest;
  }
  const std::uint64_t work = kGapRetryWork * q.max_nodes;
  std::uint64_t spent = 0;
  for (int plies = shortest; plies <= q.max_plies; plies += step) {
    GapResult out;
    out.plies = plies;
    const std::uint64_t share =
        std::max<std::uint64_t>(q.max_nodes / 4, (work - std::min(work, spent)) / fitting.size());
    for (Move first : fitting) {
      GapQuery rest = q;
      rest.from.do_move(first);
      rest.min_plies = rest.max_plies = plies - 1;
      rest.max_nodes = share;
      const GapResult r = remembered_search_gap(rest);
      spent += r.nodes;
      if (cut_by_work(rest, r)) return std::nullopt;
      out.truncated |= r.truncated;
      for (const auto& seq : r.sequences) {
        if (out.sequences.size() == q.max_candidates) {
          out.truncated = true;
          break;
        }
        std::vector<Move> story{first};
        story.insert(story.end(), seq.begin(), seq.end());
        out.sequences.push_back(std::move(story));
      }
    }
    out.nodes = spent;
    if (!out.sequences.empty()) return out;
    if (spent >= work) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace eboard::rules
