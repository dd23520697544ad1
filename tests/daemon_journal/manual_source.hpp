// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Test support: a board source driven by the test, synchronously, the way the serial source drives its sink
// (sensor event, then reconstruction's events; a timer's advance journaled as a tick before its events).
// It takes control input as the daemon's real sources do (GameMachine::control).
// Plus short simulated games to feed it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "daemon/eboardd/board_source.hpp"
#include "daemon/journal/machine.hpp"
#include "daemon/sim/timeline.hpp"
#include "rules/notation.hpp"

namespace eboard::test_support {

class ManualSource : public eboardd::BoardSource {
 public:
  ManualSource(eboardd::BoardSink& sink, journal::GameMachine machine)
      : sink_(sink), machine_(std::move(machine)) {}

  void start() override { running_ = true; }
  void stop() override { running_ = false; }
  const rules::Game& game() const override { return machine_.game(); }
  std::string link() const override { return running_ ? "manual" : "stopped"; }
  nlohmann::json info() const override { return {{"kind", "manual"}}; }
  tl::expected<void, std::string> new_game(const journal::NewGameEntry& g) override {
    ++new_games;
    return machine_.new_game(g);
  }
  tl::expected<std::vector<rules::Event>, std::string> control(const journal::ControlEntry& c) override {
    return machine_.control(c);
  }
  const rules::Reconstructor* reconstructor() const override {
    return machine_.has_game() ? &machine_.reconstructor() : nullptr;
  }

  // A sensor event, with the timer advances a live board would have made before it (each `late_ms`
  // after its deadline, as real timers fire).
  void feed(const rules::SensorEvent& e, std::int64_t late_ms = 3) {
    run_timers_until(e.t_ms, late_ms);
    sink_.sensor(e);
    sink_.events(machine_.on_sensor(e));
  }
  void run_timers_until(std::int64_t t, std::int64_t late_ms = 3) {
    while (auto d = machine_.next_deadline()) {
      if (*d + late_ms >= t) break;
      advance(*d + late_ms);
    }
  }
  void advance(std::int64_t t) {
    auto evs = machine_.advance(t);
    if (evs.empty()) return;
    sink_.tick(t);
    sink_.events(evs);
  }
  // A timer's events journaled without the tick before them (a journal written before every advance
  // that made events was journaled): replay has to find when the timer ran.
  void advance_untimed(std::int64_t t) { sink_.events(machine_.advance(t)); }
  const journal::GameMachine& machine() const { return machine_; }
  int new_games = 0;

 private:
  eboardd::BoardSink& sink_;
  journal::GameMachine machine_;
  bool running_ = false;
};

// A short game played by tidy simulated hands with a clock, starting at Unix time `t0`.
inline sim::Timeline short_game(std::int64_t t0, std::uint64_t seed = 7, int plies = 12) {
  static const char* UCI[] = {"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6",
                              "e1g1", "f8e7", "f1e1", "b7b5", "a4b3", "d7d6", "c2c3", "e8g8"};
  sim::TimelineSpec spec;
  rules::Position p = rules::Position::start();
  for (int i = 0; i < plies && i < 16; ++i) {
    auto m = rules::parse_uci(p, UCI[i]);
    spec.moves.push_back(*m);
    p.do_move(*m);
    spec.spent_ms.push_back(1500 + 100 * i);
  }
  spec.white = sim::HandStyle::tidy();
  spec.black = sim::HandStyle::tidy();
  spec.seed = seed;
  spec.start_ms = t0;
  return sim::build_timeline(spec);
}

// A game's moves in UCI; a bughouse drop is replayed even where the board's own pockets never held the
// piece (the partner's board fed it).
inline std::vector<std::string> move_ucis(const rules::Game& g) {
  std::vector<std::string> out;
  rules::Position p = g.start();
  for (const auto& ply : g.plies()) {
    out.push_back(rules::to_uci(p, ply.move));
    if (ply.move.is_drop() && p.pocket(p.side_to_move(), ply.move.drop_type()) == 0)
      p.set_pocket(p.side_to_move(), ply.move.drop_type(), 1);
    p.do_move(ply.move);
  }
  return out;
}

}  // namespace eboard::test_support
