// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/stood_illegal.hpp"

#include "rules/movegen.hpp"
#include "rules/wood.hpp"

namespace eboard::rules {

bool StoodIllegal::applies(const Profile& p) {
  // A.4.2 (rapid, blitz) and clock-move bughouse: a claim comes before the opponent's next move or never.
  return p.illegal_moves == IllegalMovePolicy::StandsUnlessClaimed ||
         p.illegal_moves == IllegalMovePolicy::LossIfClaimedBeforeNextMove;
}

void StoodIllegal::remember_move(const Position& before, Square from, Square to, ClockTimes clock,
                                 std::int64_t t_ms) {
  auto after = before.after_illegal_move(from, to);
  if (!after) return;
  remember(Move::make(from, to), std::move(*after), clock, t_ms);
}

void StoodIllegal::remember_pass(const Position& before, ClockTimes clock, std::int64_t t_ms) {
  // A.4.2 names 7.5.3 too: the opponent who plays on after a press without a move accepted the pass.
  Position after = before;
  after.do_null_move();
  remember(Move::none(), std::move(after), clock, t_ms);
}

void StoodIllegal::remember(Move shown, Position after, ClockTimes clock, std::int64_t t_ms) {
  Stood s{shown, std::move(after), {}, clock, t_ms};
  for (Move reply : MoveList(s.after)) s.replies.push_back(board_after(s.after.board(), s.after, reply));
  stood_ = std::move(s);
}

StoodIllegal::Stood StoodIllegal::take() {
  Stood s = std::move(*stood_);
  forget();
  return s;
}

bool StoodIllegal::shows_reply(const std::array<Piece, 64>& board, bool in_air) const {
  if (!stood_) return false;
  const Board& from = stood_->after.board();
  Color mover = ~stood_->after.side_to_move();  // who made the illegal move
  for (const Board& reply : stood_->replies) {
    bool ok = true;
    for (Square q = 0; q < 64 && ok; ++q) {
      Piece p = board[q];
      if (in_air)  // every square as before the reply or after it, or empty (a piece in the hand)
        ok = p == NO_PIECE || p == from[q] || p == reply[q];
      else  // the reply, and perhaps the first lift of the illegal mover's next turn in the same scan
        ok = p == reply[q] || (p == NO_PIECE && reply[q] != NO_PIECE && color_of(reply[q]) == mover);
    }
    if (ok) return true;
  }
  return false;
}

}  // namespace eboard::rules
