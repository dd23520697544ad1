// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Touches of one turn (FIDE 4.3, 4.4.2, 4.7): the lifts the board reported since the last completed move,
// when the piece the board shows moved counts as released on its square, and the touch-move judgement of
// the move completed over them. The Reconstructor (rules/reconstruct.hpp) records the lifts, says which of
// them belong to the move it completes, and tells the alerts. Pure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "rules/events.hpp"
#include "rules/position.hpp"

namespace eboard::rules {

class TouchTracker {
 public:
  // A lift seen during the current turn: a touch (FIDE 4.3).
  struct Touch {
    std::int64_t t_ms;
    Square square;
    Piece piece;
    bool other_piece_in_air;  // the hand was busy with another own piece: an accidental knock, not a touch
    // Clockless: the lift that completed the opponent's move (complete_before_reply); it may have been the
    // opponent's hand.
    bool ended_turn = false;
  };

  const std::vector<Touch>& touches() const { return touches_; }
  std::size_t size() const { return touches_.size(); }
  void touched(const Touch& t) { touches_.push_back(t); }
  // Whether both squares were touched this turn (a Chess960 castling that leaves king or rook in place
  // needs both, 4.4.1).
  bool touched_both(Square a, Square b) const;
  // The touches after the first `count`: when a move is completed over those, the next turn's.
  std::vector<Touch> after(std::size_t count) const;
  // A new turn begins with `carried` (after()), whose mover is `next_mover`: his lifts were judged
  // "another piece in the air" for the previous mover's hand, not his.
  void resume(std::vector<Touch> carried, Color next_mover);
  // The turn passed to `next_mover` without a move completed here (an illegal move that stood).
  void hand_to(Color next_mover);

  // --- 4.7: a piece released on its square ----------------------------------------------------------------
  // When the move the board shows will count as released (it rests that long), and the move released.
  const std::optional<std::int64_t>& release_at() const { return release_at_; }
  void release_due(std::int64_t t_ms) { release_at_ = t_ms; }
  void release_cancelled() { release_at_.reset(); }
  // Nothing is released, nor will be by the time set.
  void forget_release() {
    release_at_.reset();
    released_.reset();
  }
  const std::optional<Move>& released() const { return released_; }
  // The release time came with the board showing `shown` (none when it shows no legal move).
  void release_time_came(std::optional<Move> shown) {
    release_at_.reset();
    if (shown && !released_) released_ = shown;
  }

  // A new turn: no touches, nothing released.
  void clear() {
    forget_release();
    touches_.clear();
  }

  // 4.3 (and 4.4.2) for `m` completed in `p` (as the game's ply `ply`) over the first `touch_count` touches:
  // a touched own piece that could move and did not, a touched opposing piece that could be taken and was
  // not, a rook touched clearly before the king of a castling. `wood`: the board of `p` as it stands;
  // `same_piece_square`: a square judged already (same-piece-required); `drop_placed_ms`: when a drop's piece
  // was set down (what was touched after it is no choice of this move); `touch_order_ms`: how much earlier a
  // touch must come than the moved piece's lift to bind (a scan lists one sweep's changes in board order).
  std::vector<AlertEvent> judge(const Position& p, int ply, const std::array<Piece, 64>& wood, Move m,
                                std::size_t touch_count, Square same_piece_square,
                                std::optional<std::int64_t> drop_placed_ms,
                                std::int64_t touch_order_ms) const;

 private:
  std::vector<Touch> touches_;              // lifts since the last completed move
  std::optional<std::int64_t> release_at_;  // when the shown successor will count as released (4.7)
  std::optional<Move> released_;            // a legal move whose piece was released on its square
};

}  // namespace eboard::rules
