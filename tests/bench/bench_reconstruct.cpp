// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Reconstruction speed and latency, in virtual time, on corpus games played by simulated hands on a
// scanning board. Figures: CPU time per sensor event (median of 5 runs); how long after the press is
// read the completed move is out (goal: within 1 ms), with the default configuration and with a clock
// read apart from the scan (press_read_after_scan off: a move that may still be a slide waits a scan);
// how long after the board's last change a provisional move is out (goal: within 50 ms).
// Anchor: picochess waits 250-500 ms of quiet before it even looks at the board (reference/peers.md 1.2).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "daemon/sim/timeline.hpp"
#include "rules/pgn.hpp"
#include "rules/reconstruct.hpp"

using namespace eboard;

namespace {

std::int64_t percentile(std::vector<std::int64_t> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, std::size_t(p * double(v.size())))];
}

}  // namespace

int main() {
  auto dir = std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "pgn" / "standard";
  if (!std::filesystem::exists(dir)) {
    std::printf("skipped: ../shared is absent\n");
    return 0;
  }
  std::vector<rules::GameRecord> games;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = rules::read_pgn(text.str());
    if (!parsed) continue;
    for (const auto& g : *parsed)
      if (auto r = rules::replay(g); r && games.size() < 100) games.push_back(*r);
  }
  std::vector<sim::Timeline> timelines;
  for (std::size_t i = 0; i < games.size(); ++i) {
    sim::TimelineSpec spec;
    spec.start = games[i].start;
    for (const auto& m : games[i].moves) spec.moves.push_back(m.move);
    spec.white = spec.black = i % 2 ? sim::HandStyle::casual() : sim::HandStyle::tidy();
    spec.clock = sim::ClockSettings{3 * 3600000, 0};
    spec.seed = i + 1;
    timelines.push_back(sim::build_timeline(spec));
  }
  std::size_t events = 0;
  for (const auto& tl : timelines) events += tl.events.size();

  std::vector<double> per_event_ns;
  std::vector<std::int64_t> move_latency, provisional_latency;
  std::size_t without_press = 0;
  // Five timed runs with the default configuration (a DGT board reads its clock between sweeps), then one
  // with a clock read apart from the scan (press_read_after_scan off), for its latency only.
  rules::ReconstructConfig config;
  std::vector<std::int64_t> default_latency;
  for (int run = 0; run < 6; ++run) {
    if (run == 5) {
      default_latency = move_latency;
      config.press_read_after_scan = false;
    }
    move_latency.clear();
    provisional_latency.clear();
    without_press = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < timelines.size(); ++i) {
      rules::Reconstructor rec(config, rules::Game(games[i].start));
      std::int64_t last_press_read = 0, last_board = 0;
      bool press_unused = false;  // a press read and no move completed since
      // `now`: when the event comes out, as a daemon would see it (the sensor event's time, or the timer's
      // deadline), not the time the event carries (which may be the press it was decided for).
      auto take = [&](std::int64_t now, const std::vector<rules::Event>& out) {
        for (const auto& e : out) {
          if (std::holds_alternative<rules::MoveEvent>(e.what)) {
            if (press_unused)
              move_latency.push_back(now - last_press_read);
            else
              ++without_press;  // a mate, or the first of two moves recovered together
            press_unused = false;
          }
          if (std::holds_alternative<rules::ProvisionalMoveEvent>(e.what))
            provisional_latency.push_back(now - last_board);
        }
      };
      // The timer a daemon arms: every deadline before `t` fires at its time.
      auto run_timers_until = [&](std::int64_t t) {
        std::optional<std::int64_t> fired;
        while (auto d = rec.next_deadline()) {
          if (*d > t || d == fired) break;  // a deadline advance() keeps would fire again and again
          take(*d, rec.advance(*d));
          fired = d;
        }
      };
      std::optional<rules::ClockSide> lever;
      for (const auto& e : timelines[i].events) {
        run_timers_until(e.t_ms);
        if (auto* c = std::get_if<rules::ClockReading>(&e.what)) {
          if (lever && *lever != c->lever_up) {
            last_press_read = e.t_ms;
            press_unused = true;
          }
          lever = c->lever_up;
        } else {
          last_board = e.t_ms;
        }
        take(e.t_ms, rec.on_sensor(e));
      }
      run_timers_until(timelines[i].end_ms + 10000);
    }
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    if (run < 5) per_event_ns.push_back(ns / double(events));
  }
  std::sort(per_event_ns.begin(), per_event_ns.end());
  std::printf("%zu games, %zu sensor events (tidy and casual hands, scanning board)\n", games.size(), events);
  std::printf("CPU per sensor event (median of 5 runs): %.2f us\n", per_event_ns[2] / 1000);
  std::printf("completed move after the press is read:  median %lld ms, p99 %lld ms, worst %lld ms\n",
              static_cast<long long>(percentile(default_latency, 0.5)),
              static_cast<long long>(percentile(default_latency, 0.99)),
              static_cast<long long>(percentile(default_latency, 1.0)));
  std::printf("  the same, clock read apart from the scan: median %lld ms, p99 %lld ms, worst %lld ms\n",
              static_cast<long long>(percentile(move_latency, 0.5)),
              static_cast<long long>(percentile(move_latency, 0.99)),
              static_cast<long long>(percentile(move_latency, 1.0)));
  std::printf("moves completed without their own press (mates, two recovered together): %zu of %zu\n",
              without_press, move_latency.size() + without_press);
  std::printf("provisional move after the board's last change: median %lld ms, p99 %lld ms, worst %lld ms\n",
              static_cast<long long>(percentile(provisional_latency, 0.5)),
              static_cast<long long>(percentile(provisional_latency, 0.99)),
              static_cast<long long>(percentile(provisional_latency, 1.0)));
  std::printf(
      "anchor: picochess waits 250-500 ms of quiet, then asks for a board dump (reference/peers.md)\n");
  return 0;
}
