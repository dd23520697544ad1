// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/profile.hpp"

namespace eboard::rules {

std::optional<Profile> profile_by_name(std::string_view name) {
  Profile p;
  p.name = std::string(name);
  p.same_piece_after_completed_illegal = true;  // 7.5.1 (and A.4.2 when the illegal move is claimed)
  if (name == "fide-standard") return p;
  if (name == "fide-rapid") {
    p.illegal_moves = IllegalMovePolicy::StandsUnlessClaimed;  // Annex A.4.2
    return p;
  }
  if (name == "fide-blitz") {
    p.illegal_moves = IllegalMovePolicy::StandsUnlessClaimed;  // Annex B via A.4.2
    p.illegal_move_bonus_ms = 60000;                           // B.2 (2023 Laws: one minute)
    return p;
  }
  if (name == "bughouse-fqe" || name == "bughouse-clock-move") {
    p.variant = Variant::Bughouse;
    p.same_piece_after_completed_illegal = false;  // FQE: a completed illegal move loses if claimed
    bool fqe = name == "bughouse-fqe";
    p.illegal_moves = fqe ? IllegalMovePolicy::LossIfClaimed : IllegalMovePolicy::LossIfClaimedBeforeNextMove;
    p.illegal_move_bonus_ms = 0;
    p.illegal_moves_to_lose = 0;
    p.pawn_may_stay_on_last_rank = fqe;  // FQE 11; clock-move: promote to Q or N
    p.clock_press_without_move_is_reserve_claim = fqe;
    p.touch_move = fqe;
    p.reserve_touch_move = fqe;        // FQE 19
    p.same_piece_after_illegal = fqe;  // FQE 21a
    if (!fqe) p.promotion_types = (1u << KNIGHT) | (1u << QUEEN);
    p.base_time_ms = 5 * 60 * 1000;  // FQE 2
    return p;
  }
  return std::nullopt;
}

}  // namespace eboard::rules
