// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Between a board's decoder and its reconstruction: what a (re)connected board's readings mean until the
// board has been read whole. Pure: no I/O, no clock (times are values passed in), so the live session and
// the replay of a capture (daemon/session/replay.cpp) run the same rule.
//
// The rule: on a connect the gate tells a DeviceLink{true} and holds. Until the first whole-board snapshot,
// square events are dropped (the snapshot shows where the pieces are; a square event from before it, or
// from a partial frame of before the link broke, would be read against a position the board may no
// longer have) and clock readings wait; the snapshot passes, then the readings, at its time or later.
// Without a snapshot within `dump_wait_ms` of the connect, the gate opens all the same and lets the held
// readings through. A loss of the link tells a DeviceLink{false} and forgets what was held. Before any
// connect the gate is open (a capture that begins mid-stream, with no link record, is read as it comes).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "rules/sensor.hpp"

namespace eboard::session {

struct LinkGateStats {
  std::uint64_t field_updates_before_dump = 0;  // dropped: the dump after the (re)connect shows them
  std::uint64_t readings_held = 0;              // clock readings delivered after that dump
  std::uint64_t dump_timeouts = 0;
};

class LinkGate {
 public:
  explicit LinkGate(std::int64_t dump_wait_ms = 3000) : dump_wait_ms_(dump_wait_ms) {}

  // The link came up at `t`: the DeviceLink{true} to deliver; readings are held from now on.
  std::vector<rules::SensorEvent> connected(std::int64_t t);
  // The link went down at `t`: the DeviceLink{false} to deliver; what was held is dropped.
  std::vector<rules::SensorEvent> disconnected(std::int64_t t);
  // The decoder's events, in order: what reconstruction is to get of them now.
  std::vector<rules::SensorEvent> pass(const std::vector<rules::SensorEvent>& decoded);
  // Time went on to `t`: past the dump deadline, the gate opens and gives the held readings.
  std::vector<rules::SensorEvent> advance(std::int64_t t);

  // Waiting for the board's snapshot after a connect.
  [[nodiscard]] bool holding() const { return holding_; }
  // When advance() has something to do: the dump deadline while holding.
  [[nodiscard]] std::optional<std::int64_t> deadline() const {
    return holding_ ? std::optional<std::int64_t>(deadline_) : std::nullopt;
  }
  [[nodiscard]] const LinkGateStats& stats() const { return stats_; }
  // Whether the last advance() opened the gate for want of a snapshot.
  [[nodiscard]] bool timed_out() const { return timed_out_; }

 private:
  void release(std::int64_t t, std::vector<rules::SensorEvent>& out);

  std::int64_t dump_wait_ms_;
  bool holding_ = false;
  bool timed_out_ = false;
  std::int64_t deadline_ = 0;
  std::vector<rules::SensorEvent> held_;
  LinkGateStats stats_;
};

}  // namespace eboard::session
