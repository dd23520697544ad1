// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A chess clock as players use it: two sides (left and right, as they sit on the table), a lever, base
// time plus a Fischer increment. It answers what the clock shows at any moment, as a DGT board reports
// it (rules::ClockReading), so simulated games carry realistic clock data.
#pragma once

#include <array>
#include <cstdint>

#include "rules/game.hpp"
#include "rules/sensor.hpp"
#include "rules/types.hpp"

namespace eboard::sim {

struct ClockSettings {
  std::int64_t base_ms = 15 * 60 * 1000;
  std::int64_t increment_ms = 10 * 1000;  // Fischer: added to a player's time when he presses
  // Which colour sits on the clock's left. The clock itself knows only sides; the mapping is how the
  // players happened to sit down (White on the left is the usual arbiter setup).
  bool white_on_left = true;
  // Readings are rounded up to this (the DGT BWTIME message carries whole seconds, and a clock shows
  // 0:00 only once the flag falls). 1 gives exact milliseconds.
  std::int64_t display_resolution_ms = 1000;
};

class ClockModel {
 public:
  explicit ClockModel(ClockSettings s = {});

  const ClockSettings& settings() const { return settings_; }
  rules::ClockSide side_of(rules::Color c) const;
  rules::Color player_on(rules::ClockSide side) const;

  // The arbiter starts the clock at `t` with `running`'s time running (the lever up on that side).
  void start(rules::ClockSide running, std::int64_t t);
  void start_player(rules::Color to_move, std::int64_t t) { start(side_of(to_move), t); }
  // The clock is paused (both times stand still); the lever stays where it is.
  void stop(std::int64_t t);

  // The player on `side` pushes his lever down. If it was up, his time stops, he gets the increment (if
  // the clock runs and his flag has not fallen) and the other side runs. Pressing a lever that is already
  // down does nothing. Returns whether the lever moved. Times earlier than the last change count as then.
  bool press(rules::ClockSide side, std::int64_t t);
  bool press_player(rules::Color player, std::int64_t t) { return press(side_of(player), t); }

  bool running() const { return running_; }
  rules::ClockSide lever_up() const { return lever_up_; }

  // Exact remaining time of a side at `t` (never below 0: a fallen flag blocks that side at zero).
  std::int64_t remaining_ms(rules::ClockSide side, std::int64_t t) const;
  // Exact times by colour, as a game records them.
  rules::ClockTimes times(std::int64_t t) const;
  // What the clock shows at `t` (display resolution applied), with flags.
  rules::ClockReading reading(std::int64_t t) const;

 private:
  void advance(std::int64_t t);
  static int index(rules::ClockSide s) { return s == rules::ClockSide::Left ? 0 : 1; }

  ClockSettings settings_;
  std::array<std::int64_t, 2> remaining_;  // left, right: as of last_ms_
  std::array<bool, 2> flag_{};
  rules::ClockSide lever_up_;
  bool running_ = false;
  std::int64_t last_ms_ = 0;
};

}  // namespace eboard::sim
