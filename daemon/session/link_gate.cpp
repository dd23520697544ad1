// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/link_gate.hpp"

#include <algorithm>
#include <utility>
#include <variant>

namespace eboard::session {

std::vector<rules::SensorEvent> LinkGate::connected(std::int64_t t) {
  holding_ = true;
  timed_out_ = false;
  deadline_ = t + dump_wait_ms_;
  held_.clear();
  return {rules::SensorEvent{t, rules::DeviceLink{true}}};
}

std::vector<rules::SensorEvent> LinkGate::disconnected(std::int64_t t) {
  holding_ = false;
  held_.clear();
  return {rules::SensorEvent{t, rules::DeviceLink{false}}};
}

std::vector<rules::SensorEvent> LinkGate::pass(const std::vector<rules::SensorEvent>& decoded) {
  std::vector<rules::SensorEvent> out;
  for (const rules::SensorEvent& e : decoded) {
    if (!holding_) {
      out.push_back(e);
    } else if (std::holds_alternative<rules::BoardSnapshot>(e.what)) {
      holding_ = false;
      out.push_back(e);
      release(e.t_ms, out);
    } else if (std::holds_alternative<rules::ClockReading>(e.what)) {
      held_.push_back(e);
      ++stats_.readings_held;
    } else if (std::holds_alternative<rules::DeviceLink>(e.what)) {
      out.push_back(e);
    } else {
      ++stats_.field_updates_before_dump;
    }
  }
  return out;
}

std::vector<rules::SensorEvent> LinkGate::advance(std::int64_t t) {
  timed_out_ = false;
  std::vector<rules::SensorEvent> out;
  if (!holding_ || t < deadline_) return out;
  ++stats_.dump_timeouts;
  timed_out_ = true;
  holding_ = false;
  release(t, out);
  return out;
}

void LinkGate::release(std::int64_t t, std::vector<rules::SensorEvent>& out) {
  std::vector<rules::SensorEvent> readings = std::move(held_);
  held_.clear();
  for (rules::SensorEvent& e : readings) {
    e.t_ms = std::max(e.t_ms, t);  // they come after the dump they waited for
    out.push_back(e);
  }
}

}  // namespace eboard::session
