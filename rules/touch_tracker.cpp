// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/touch_tracker.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "rules/movegen.hpp"
#include "rules/notation.hpp"

namespace eboard::rules {

bool TouchTracker::touched_both(Square a, Square b) const {
  bool a_touched = false, b_touched = false;
  for (const auto& t : touches_) {
    a_touched |= t.square == a;
    b_touched |= t.square == b;
  }
  return a_touched && b_touched;
}

std::vector<TouchTracker::Touch> TouchTracker::after(std::size_t count) const {
  count = std::min(count, touches_.size());
  return std::vector<Touch>(touches_.begin() + std::ptrdiff_t(count), touches_.end());
}

void TouchTracker::resume(std::vector<Touch> carried, Color next_mover) {
  touches_ = std::move(carried);
  hand_to(next_mover);
}

void TouchTracker::hand_to(Color next_mover) {
  for (auto& touch : touches_)
    if (color_of(touch.piece) == next_mover) touch.other_piece_in_air = false;
}

std::vector<AlertEvent> TouchTracker::judge(const Position& p, int ply, const std::array<Piece, 64>& wood,
                                            Move move, std::size_t touch_count, Square same_piece_square,
                                            std::optional<std::int64_t> drop_placed_ms,
                                            std::int64_t touch_order_ms) const {
  std::vector<AlertEvent> out;
  const Color us = p.side_to_move();
  const std::string who = us == WHITE ? "White" : "Black";
  MoveList legal(p);
  Square moved_from = move.is_drop() ? SQ_NONE : move.from();
  Square captured_on = move.kind() == Move::EN_PASSANT ? Square(us == WHITE ? move.to() - 8 : move.to() + 8)
                       : p.is_capture(move)            ? move.to()
                                                       : SQ_NONE;
  // When the moved piece (for castling, king or rook) left its square: touches clearly before it bind.
  std::int64_t mover_lifted = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < touch_count && i < touches_.size(); ++i) {
    Square sq = touches_[i].square;
    if (sq == moved_from || (move.kind() == Move::CASTLING && sq == move.to()))
      mover_lifted = std::min(mover_lifted, touches_[i].t_ms);
  }
  // A drop has no lift: what the hand touched after the reserve piece was set down is no longer a touch
  // of this move's choice (a piece knocked while dropping).
  if (move.is_drop() && drop_placed_ms) mover_lifted = *drop_placed_ms;
  // Without the moved piece's lift in this turn's trace (events missed, or read with the previous turn)
  // the order of touches is unknown: no judgement rather than a false alarm. Drops have no lift.
  if (!move.is_drop() && mover_lifted == std::numeric_limits<std::int64_t>::max()) return out;
  bool own_checked = false, theirs_checked = false;
  for (std::size_t i = 0; i < touch_count && i < touches_.size(); ++i) {
    const Touch& touch = touches_[i];
    if (touch.other_piece_in_air || wood[touch.square] != touch.piece) continue;
    // The lift that ended the opponent's turn on a clockless board, of a piece that then did not move: maybe
    // the opponent's hand (a knock set right), so no touch of this player's.
    if (touch.ended_turn && touch.square != moved_from &&
        !(move.kind() == Move::CASTLING && touch.square == move.to()))
      continue;
    if (touch.square == same_piece_square) continue;
    bool is_mover =
        touch.square == moved_from || (move.kind() == Move::CASTLING && touch.square == move.to());
    if (!is_mover && touch.t_ms + touch_order_ms > mover_lifted) continue;  // not clearly first
    bool own = color_of(touch.piece) == us;
    if (own && !own_checked) {
      bool movable = false;
      for (Move m : legal) movable |= !m.is_drop() && m.from() == touch.square;
      if (!movable) continue;  // 4.3.1 binds only a piece that can move
      own_checked = true;
      if (touch.square == moved_from) continue;
      bool rook_first = move.kind() == Move::CASTLING && touch.square == move.to();
      if (rook_first) {  // only when the king clearly came later: one scan may list the rook first
        bool king_soon = false;
        for (std::size_t k = i; k < touch_count && k < touches_.size(); ++k)
          king_soon |= touches_[k].square == moved_from && touches_[k].t_ms < touch.t_ms + touch_order_ms;
        if (king_soon) continue;
      }
      AlertEvent a{"touch-move",
                   ply,
                   us,
                   rook_first
                       ? who + " touched the rook before the king and then castled (4.4.2)"
                       : who + " touched the " + std::string(1, piece_char(type_of(touch.piece))) + " on " +
                             square_name(touch.square) + " first but moved another piece (4.3.1)",
                   {}};
      a.extra.push_back({"reason", rook_first ? "rook-before-king" : "own-piece-not-moved", false});
      a.extra.push_back({"square", square_name(touch.square), false});
      out.push_back(std::move(a));
    } else if (!own && !theirs_checked) {
      bool capturable = false;
      for (Move m : legal) {
        Square victim = m.kind() == Move::EN_PASSANT ? Square(us == WHITE ? m.to() - 8 : m.to() + 8)
                        : p.is_capture(m)            ? m.to()
                                                     : SQ_NONE;
        capturable |= victim == touch.square;
      }
      if (!capturable) continue;  // 4.3.2 binds only a piece that can be taken
      theirs_checked = true;
      if (touch.square == captured_on) continue;
      AlertEvent a{"touch-move",
                   ply,
                   us,
                   who + " touched the opponent's piece on " + square_name(touch.square) +
                       ", which could be taken, and did not take it (4.3.2)",
                   {}};
      a.extra.push_back({"reason", "opponent-piece-not-taken", false});
      a.extra.push_back({"square", square_name(touch.square), false});
      out.push_back(std::move(a));
    }
  }
  return out;
}

}  // namespace eboard::rules
