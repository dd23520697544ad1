// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A clock press of the player on move that the board did not explain yet (a placement not scanned yet,
// the opponent's hand already on the piece), and the stage of its wait: decided one scan after the board's
// last change, or waiting for the board to show a move up to a deadline (pieces in the air), after which
// it is judged as the board stands. The Reconstructor (rules/reconstruct.hpp) decides it. Pure.
#pragma once

#include <cstdint>
#include <optional>

#include "rules/game.hpp"

namespace eboard::rules {

struct PendingPress {
  std::int64_t t_ms;
  ClockTimes clock;
  Color presser;
  // Its place in the stream: the board changes read before it (Reconstructor::board_changes_). Times alone
  // do not order what one late read brings, stamped alike.
  std::uint64_t board_changes = 0;
  // Read only after a link change, with the first clock reading since: the lever moved while nothing was
  // seen (Reconstructor::unseen_press_without_move).
  bool across_link = false;
};

class PressWait {
 public:
  enum class Stage {
    None,      // no press waits
    Deciding,  // decided at decide_at(): one scan after the board's last change
    Waiting,   // resolved when the board shows a move, judged once it has settled or at the deadline
  };

  Stage stage() const { return stage_; }
  bool pending() const { return stage_ != Stage::None; }
  const PendingPress& press() const { return press_; }  // only while pending()

  // A press begins to wait, up to `deadline_ms` for pieces in the air.
  void start(const PendingPress& p, std::int64_t deadline_ms) {
    press_ = p;
    deadline_ = deadline_ms;
    stage_ = Stage::Waiting;
  }
  // The press is decided at `t_ms` (one scan after the board's last change).
  void decide_at(std::int64_t t_ms) {
    decide_at_ = t_ms;
    stage_ = Stage::Deciding;
  }
  // The decision time came: the press waits for the board from now.
  void decision_came() {
    if (stage_ == Stage::Deciding) stage_ = Stage::Waiting;
  }
  // The deadline came: the press is judged now.
  void deadline_came() { deadline_.reset(); }
  // The press was decided (completed a move, judged, or given up with the turn).
  void clear() {
    stage_ = Stage::None;
    deadline_.reset();
  }

  std::optional<std::int64_t> decision_time() const {
    return stage_ == Stage::Deciding ? std::optional<std::int64_t>(decide_at_) : std::nullopt;
  }
  std::optional<std::int64_t> deadline() const { return pending() ? deadline_ : std::nullopt; }

 private:
  Stage stage_ = Stage::None;
  PendingPress press_{};
  std::int64_t decide_at_ = 0;
  std::optional<std::int64_t> deadline_;  // give up waiting for pieces in the air
};

}  // namespace eboard::rules
