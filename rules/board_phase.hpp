// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The phase of a board as the Reconstructor follows it: followed, told as not followed (a board nothing
// explains), or adjourned; each phase with the data it needs, its transitions here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rules/game.hpp"
#include "rules/types.hpp"
#include "rules/wood.hpp"

namespace eboard::rules {

// Guidelines I: an adjourned game, the player on move having sealed his next move.
struct Adjournment {
  Color sealer = WHITE;
  std::string sealed;  // never shown: not in any event before the resumption
  int ply = 0;         // plies played before the sealed move
  ClockTimes clock;    // both clocks when the game was adjourned
  std::int64_t t_ms = 0;
};

class BoardPhase {
 public:
  enum class Phase {
    Following,     // the board is followed, or not followed and nothing told of it yet
    MismatchTold,  // a position-mismatch was told: nothing more until the board is followed again
    SetupTold,     // a setup-error was told: only another wrong setup is told until then
    Adjourned,     // the board is not judged until the resumption (adjournment())
  };

  Phase phase() const { return phase_; }
  // Something was told of a board nothing explains, and the board has not been followed since.
  bool mismatch_told() const { return phase_ == Phase::MismatchTold || phase_ == Phase::SetupTold; }
  // The adjournment, exactly while the phase is Adjourned.
  const std::optional<Adjournment>& adjournment() const { return adjournment_; }

  // A position-mismatch was told (not while adjourned: nothing is judged then).
  void tell_mismatch() {
    if (phase_ != Phase::Adjourned) phase_ = Phase::MismatchTold;
  }
  // Whether a setup-error is to be told for `board`: false when it is the last wrong setup told, which is
  // remembered past the board being followed again, so that setting it up again is not told twice.
  bool setup_to_tell(const Board& board) const { return last_setup_ != board; }
  // A setup-error was told for `board` (not while adjourned).
  void tell_setup(const Board& board) {
    if (phase_ == Phase::Adjourned) return;
    phase_ = Phase::SetupTold;
    last_setup_ = board;
  }
  // The board is followed again (it shows the game, or the game goes on from it): the next board nothing
  // explains is told again. An adjournment stays.
  void followed() {
    if (phase_ != Phase::Adjourned) phase_ = Phase::Following;
  }
  // The game is adjourned: what was told of the board is void.
  void adjourn(Adjournment a) {
    adjournment_ = std::move(a);
    phase_ = Phase::Adjourned;
  }
  // The adjournment ends (the resumption, or a result that voids the sealed move): the board is followed
  // again. Returns it, none when the game was not adjourned.
  std::optional<Adjournment> end_adjournment() {
    std::optional<Adjournment> a = std::move(adjournment_);
    adjournment_.reset();
    if (a) phase_ = Phase::Following;
    return a;
  }

 private:
  Phase phase_ = Phase::Following;
  std::optional<Adjournment> adjournment_;  // engaged exactly when phase_ is Adjourned
  std::optional<Board> last_setup_;
};

}  // namespace eboard::rules
