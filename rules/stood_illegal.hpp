// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// FIDE A.4.2: an illegal move stands unless claimed before the opponent's next move (profiles with
// IllegalMovePolicy::StandsUnlessClaimed, and clock-move bughouse, whose illegal move loses only if claimed
// before the claimant's next move). A clock press without a move (7.5.3) is such an illegal move too: when
// it stands it is a pass, the null move. The Reconstructor alerts the illegal move and keeps the position
// before it, as under 7.5.1, and remembers it here; when the opponent plays a legal move from the position
// it left and presses his clock, nobody claimed: it stood, and becomes a ply of the game. This class keeps
// the illegal move that may stand, the boards of the replies that would make it stand, and the opponent's
// press read while his reply was still in the hand. Pure.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "rules/game.hpp"
#include "rules/position.hpp"
#include "rules/profile.hpp"
#include "rules/sensor.hpp"

namespace eboard::rules {

class StoodIllegal {
 public:
  struct Stood {
    Move shown;                                  // the piece's way, from → to (none for a pass)
    Position after;                              // the position it left, the opponent to move
    std::vector<std::array<Piece, 64>> replies;  // the boards of the opponent's legal moves from there
    ClockTimes clock;                            // at the illegal move's press
    std::int64_t t_ms = 0;
  };
  // The opponent's press read while his reply was still in the hand (its placement not scanned yet).
  struct Press {
    ClockSide pressed;
    ClockReading reading;
    std::int64_t t_ms;
  };

  // Whether the profile lets an illegal move stand when nobody claims it in time.
  static bool applies(const Profile& p);

  // The illegal move from → to, completed in `before` by the press at `t_ms` (its clock `clock`), may
  // stand. Nothing is remembered when it leaves no position to play on (a pawn on the last rank, a king
  // taken): 7.5.1 alone applies.
  void remember_move(const Position& before, Square from, Square to, ClockTimes clock, std::int64_t t_ms);
  // A press without a move in `before` (7.5.3) may stand: a pass.
  void remember_pass(const Position& before, ClockTimes clock, std::int64_t t_ms);
  // A later irregularity, a move from the position before, a claim upheld: it can no longer stand.
  void forget() {
    stood_.reset();
    press_.reset();
  }

  bool standing() const { return stood_.has_value(); }
  const Stood& stood() const { return *stood_; }  // only while standing()
  // It stood: what it was, forgotten here.
  Stood take();

  // Whether `board` shows one of the opponent's replies (some of the illegal mover's pieces may already
  // be lifted: his next turn beginning in the same scan), or, with `in_air`, is on the way to one. False
  // when nothing may stand.
  bool shows_reply(const std::array<Piece, 64>& board, bool in_air = false) const;

  const std::optional<Press>& held_press() const { return press_; }
  void hold_press(const Press& p) { press_ = p; }
  void drop_press() { press_.reset(); }

 private:
  void remember(Move shown, Position after, ClockTimes clock, std::int64_t t_ms);

  std::optional<Stood> stood_;
  std::optional<Press> press_;
};

}  // namespace eboard::rules
