// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The game clock as one board's reconstruction reads it: the readings (the one before and the one being
// handled), when it was read, whether the match has paused it (FQE 23), and who sits at which side, as a
// named phase: unknown before any running reading, guessed from the side whose clock runs (taken to be the
// side on move), confirmed by the first completed move. Readings are by side (left/right); the times and
// the player on move are by colour once the seats are known. The Reconstructor (rules/reconstruct.hpp)
// judges the presses. Pure.
#pragma once

#include <cstdint>
#include <optional>

#include "rules/game.hpp"
#include "rules/sensor.hpp"

namespace eboard::rules {

class TurnClock {
 public:
  enum class Seats {
    Unknown,    // no running clock read yet, no move completed
    Guessed,    // the side whose clock ran was taken to be the side on move
    Confirmed,  // a completed move told who sits where
  };

  // --- Who sits where -----------------------------------------------------------------------------------
  Seats seats() const { return seats_; }
  // The colour at the left side; none while Unknown.
  std::optional<Color> left_player() const {
    return seats_ == Seats::Unknown ? std::nullopt : std::optional<Color>(left_);
  }
  // The colour at `side` (only once the seats are known).
  Color player_at(ClockSide side) const { return side == ClockSide::Left ? left_ : ~left_; }
  void guess_left(Color c) {
    left_ = c;
    seats_ = Seats::Guessed;
  }
  void confirm_left(Color c) {
    left_ = c;
    seats_ = Seats::Confirmed;
  }

  // --- Readings -----------------------------------------------------------------------------------------
  // A reading arrives at `t_ms`: it is the one being handled (latest) until finish() makes it the last.
  void begin(const ClockReading& r, std::int64_t t_ms) {
    last_ms_ = t_ms;
    latest_ = r;
  }
  void finish(const ClockReading& r) {
    last_ = r;
    last_read_ms_ = last_ms_;
  }
  // The clock as set while nothing is judged (an adjournment): the last reading, nothing else.
  void set_last(const ClockReading& r) { last_ = r; }
  // The last reading handled (during a press: the one before it).
  const std::optional<ClockReading>& last() const { return last_; }
  // The reading being handled (set before a press is judged, where last() is still the one before): the
  // times an illegal move's penalty is proposed from (7.5.5); after it, the last reading.
  const std::optional<ClockReading>& latest() const { return latest_; }
  std::int64_t last_ms() const { return last_ms_; }
  // When last() was read (set_last's reading: when the reading before it was).
  std::int64_t last_read_ms() const { return last_read_ms_; }

  // Both times of `r` by colour; unknown while the seats are, or without a clock.
  ClockTimes times(const ClockReading& r) const {
    if (seats_ == Seats::Unknown || !r.present) return {};
    return left_ == WHITE ? ClockTimes{r.left_ms, r.right_ms} : ClockTimes{r.right_ms, r.left_ms};
  }
  // The times of the last reading; unknown without one.
  ClockTimes last_times() const { return last_ ? times(*last_) : ClockTimes{}; }
  // The side whose clock runs by the last reading (the side on move), when the clock tells it.
  std::optional<Color> on_move() const {
    if (!last_ || !last_->present || seats_ == Seats::Unknown) return std::nullopt;
    return player_at(last_->lever_up);
  }

  // FQE 23: the match is paused (both clocks stopped to call the arbiter): no flag falls meanwhile.
  bool paused() const { return paused_; }
  void set_paused(bool paused) { paused_ = paused; }

 private:
  std::optional<ClockReading> last_;
  std::optional<ClockReading> latest_;
  std::int64_t last_ms_ = 0;
  std::int64_t last_read_ms_ = 0;
  bool paused_ = false;
  Seats seats_ = Seats::Unknown;
  Color left_ = WHITE;
};

}  // namespace eboard::rules
