// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Scripted sensor sequences for reconstruction tests: a board whose clock has White on the left, events
// 40 ms apart unless a wait says otherwise, and everything reconstruction answers collected in order.
#pragma once

#include <string>
#include <vector>

#include "rules/reconstruct.hpp"

namespace eboard::rules::test_support {

class Script {
 public:
  explicit Script(Reconstructor& r) : r_(r) {}
  Script& snapshot(const Position& p) { return feed(BoardSnapshot{p.board()}); }
  Script& feed_board(const std::array<Piece, 64>& b) { return feed(BoardSnapshot{b}); }
  Script& lift(const char* sq) { return feed(PieceLifted{parse_square(sq)}); }
  Script& place(const char* sq, Piece p) { return feed(PiecePlaced{parse_square(sq), p}); }
  Script& wait(std::int64_t ms) {
    t_ += ms;
    take(r_.advance(t_));
    return *this;
  }
  // The player whose side is up presses: the lever goes to the other side.
  Script& press() {
    reading_.lever_up = reading_.lever_up == ClockSide::Left ? ClockSide::Right : ClockSide::Left;
    reading_.running = true;
    return feed(reading_);
  }
  Script& clock_start() {  // Black starts White's clock: left side up
    reading_.lever_up = ClockSide::Right;
    feed(reading_);
    return press();
  }
  Script& move(const char* from, const char* to, Piece p) {
    lift(from);
    place(to, p);
    wait(300);
    return press();
  }
  // Events that came from elsewhere (arbiter input), kept in order with the rest.
  void take(const std::vector<Event>& ev) { events_.insert(events_.end(), ev.begin(), ev.end()); }
  std::int64_t t() const { return t_; }
  const std::vector<Event>& events() const { return events_; }
  std::vector<std::string> moves() const {
    std::vector<std::string> m;
    for (const auto& e : events_)
      if (const auto* mv = std::get_if<MoveEvent>(&e.what)) m.push_back(mv->uci);
    return m;
  }
  std::vector<std::string> alerts() const {
    std::vector<std::string> a;
    for (const auto& e : events_)
      if (const auto* al = std::get_if<AlertEvent>(&e.what)) a.push_back(al->code);
    return a;
  }

 private:
  template <typename T>
  Script& feed(T what) {
    t_ += 40;
    take(r_.on_sensor(SensorEvent{t_, what}));
    return *this;
  }
  Reconstructor& r_;
  std::int64_t t_ = 0;
  ClockReading reading_{300000, 300000, false, ClockSide::Left};
  std::vector<Event> events_;
};

}  // namespace eboard::rules::test_support
