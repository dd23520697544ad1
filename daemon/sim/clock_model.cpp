// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/sim/clock_model.hpp"

#include <algorithm>

namespace eboard::sim {

using rules::ClockSide;

namespace {
ClockSide other(ClockSide s) { return s == ClockSide::Left ? ClockSide::Right : ClockSide::Left; }
}  // namespace

ClockModel::ClockModel(ClockSettings s)
    : settings_(s), remaining_{s.base_ms, s.base_ms}, lever_up_(side_of(rules::WHITE)) {}

ClockSide ClockModel::side_of(rules::Color c) const {
  return (c == rules::WHITE) == settings_.white_on_left ? ClockSide::Left : ClockSide::Right;
}

rules::Color ClockModel::player_on(ClockSide side) const {
  return (side == ClockSide::Left) == settings_.white_on_left ? rules::WHITE : rules::BLACK;
}

void ClockModel::advance(std::int64_t t) {
  if (t <= last_ms_) return;
  if (running_) {
    std::int64_t& r = remaining_[index(lever_up_)];
    r -= t - last_ms_;
    if (r <= 0) {
      r = 0;
      flag_[index(lever_up_)] = true;
    }
  }
  last_ms_ = t;
}

void ClockModel::start(ClockSide running, std::int64_t t) {
  advance(t);
  lever_up_ = running;
  running_ = true;
}

void ClockModel::stop(std::int64_t t) {
  advance(t);
  running_ = false;
}

bool ClockModel::press(ClockSide side, std::int64_t t) {
  advance(t);
  if (lever_up_ != side) return false;
  if (running_ && !flag_[index(side)]) remaining_[index(side)] += settings_.increment_ms;
  lever_up_ = other(side);
  return true;
}

std::int64_t ClockModel::remaining_ms(ClockSide side, std::int64_t t) const {
  std::int64_t r = remaining_[index(side)];
  if (running_ && side == lever_up_ && t > last_ms_) r -= t - last_ms_;
  return std::max<std::int64_t>(r, 0);
}

rules::ClockTimes ClockModel::times(std::int64_t t) const {
  return {remaining_ms(side_of(rules::WHITE), t), remaining_ms(side_of(rules::BLACK), t)};
}

rules::ClockReading ClockModel::reading(std::int64_t t) const {
  const std::int64_t res = std::max<std::int64_t>(settings_.display_resolution_ms, 1);
  auto shown = [&](ClockSide s) { return (remaining_ms(s, t) + res - 1) / res * res; };
  rules::ClockReading r;
  r.left_ms = shown(ClockSide::Left);
  r.right_ms = shown(ClockSide::Right);
  r.running = running_;
  r.lever_up = lever_up_;
  r.left_flag = remaining_ms(ClockSide::Left, t) == 0;
  r.right_flag = remaining_ms(ClockSide::Right, t) == 0;
  r.present = true;
  return r;
}

}  // namespace eboard::sim
