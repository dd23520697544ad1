// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Rules profiles: which laws an arbiter applies (FIDE standard/rapid/blitz, FQE bughouse, clock-move
// bughouse).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rules/types.hpp"

namespace eboard::rules {

enum class IllegalMovePolicy : std::uint8_t {
  Reinstate,            // FIDE 7.5.1: the position before the illegal move is reinstated, penalties of 7.5.5
  StandsUnlessClaimed,  // FIDE A.4.2 / B: the move stands unless the opponent claims before his next move
  LossIfClaimed,        // bughouse (FQE 14, 21a): a completed illegal move loses if claimed
  LossIfClaimedBeforeNextMove,  // clock-move bughouse: loses if claimed before the claimant's next move
};

struct Profile {
  std::string name;
  Variant variant = Variant::Chess;
  bool touch_move = true;  // FIDE 4.3 / FQE 19
  IllegalMovePolicy illegal_moves = IllegalMovePolicy::Reinstate;
  std::int64_t illegal_move_bonus_ms = 120000;  // time added to the opponent after a first illegal move
  int illegal_moves_to_lose = 2;                // the count at which the player loses (0: never by count)
  bool pawn_may_stay_on_last_rank = false;      // FQE 11: the promoted pawn stays physically a pawn
  bool clock_press_without_move_is_reserve_claim = false;  // FQE 18
  // FQE 21a: an illegal move taken back before the press must be replaced by a move of the same piece
  // when that piece can move (alert same-piece-required).
  bool same_piece_after_illegal = false;
  // FIDE 7.5.1: after a completed illegal move the position before it is reinstated, and 4.3 applies to
  // the move replacing it: made with the same piece when that piece can move (alert same-piece-required).
  bool same_piece_after_completed_illegal = false;
  // FQE 19: a reserve piece set on an empty square must be dropped there (alert reserve-touch-move).
  bool reserve_touch_move = false;
  // The pieces a pawn may promote to, a bit per PieceType (1 << KNIGHT …): clock-move bughouse allows
  // only a queen or a knight.
  unsigned promotion_types = (1u << KNIGHT) | (1u << BISHOP) | (1u << ROOK) | (1u << QUEEN);
  std::int64_t release_ms = 1000;  // a rest this long on a square is a release (4.7)
  std::int64_t base_time_ms = 0;   // default time control (0: read from the clock)
};

// fide-standard, fide-rapid, fide-blitz, bughouse-fqe, bughouse-clock-move; nullopt for other names.
std::optional<Profile> profile_by_name(std::string_view name);

}  // namespace eboard::rules
