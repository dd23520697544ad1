// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A session taken over: the broker lets one client of a client id in at a time and throws the older out
// when another connects with it (MQTT 3.1.1 §3.1.4), so two daemons with one id throw each other out,
// each right after it got in, for ever. Told apart from a broker or a network that fails now and then by
// the pattern: several sessions in a row, each closed by the broker shortly after its CONNACK. Pure: the
// caller gives the times (steady clock).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace eboard::mqtt {

class TakeoverWatch {
 public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    std::chrono::milliseconds short_session{std::chrono::seconds(3)};  // closed sooner: a short session
    int in_a_row = 3;  // this many short sessions in a row: taken over
  };
  TakeoverWatch() : TakeoverWatch(Options{}) {}
  explicit TakeoverWatch(Options o) : options_(o) {}

  // The broker accepted the connection (CONNACK).
  void connected(Clock::time_point t) { since_ = t; }
  // The connection was lost (or closed by the broker). True when this loss makes the session judged taken
  // over (it was not before); a session that lasted resets the count. A loss without a session (refused,
  // unreachable) says nothing of a takeover and changes nothing.
  bool lost(Clock::time_point t);
  bool taken_over() const { return in_a_row_ >= options_.in_a_row; }
  // The same at `t`: a session under way that has lasted already ends the takeover.
  bool taken_over_at(Clock::time_point t) const {
    return taken_over() && !(since_ && t - *since_ >= options_.short_session);
  }
  int short_in_a_row() const { return in_a_row_; }
  // Short sessions in all (each one another client's turn).
  std::uint64_t short_sessions() const { return short_total_; }

 private:
  Options options_;
  std::optional<Clock::time_point> since_;
  int in_a_row_ = 0;
  std::uint64_t short_total_ = 0;
};

}  // namespace eboard::mqtt
