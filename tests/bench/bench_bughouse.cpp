// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Bughouse speed: a match of two boards reconstructed from simulated hands on scanning boards, in virtual
// time (the 20 chess.com matches of ../shared, blitz hands). Figures: CPU time per sensor event of a match
// (median of 5 runs), how long after the press is read a completed move is out, and the time to decide
// mate with potential drops (FQE 8-9) on every position of the corpus where the side to move is in check.
// Anchor: a DGT board scans its 64 squares in 200-250 ms and reports one event per changed square, so a
// match of two boards yields a few tens of events per second at most.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "rules/match.hpp"
#include "rules/movegen.hpp"
#include "rules/outcome.hpp"
#include "tests/sim/bughouse_match_sim.hpp"

using namespace eboard;

namespace {

std::int64_t percentile(std::vector<std::int64_t> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, std::size_t(p * double(v.size())))];
}

}  // namespace

int main() {
  auto file =
      std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "bughouse" / "chesscom_bughouse_20matches.bpgn";
  if (!std::filesystem::exists(file)) {
    std::printf("skipped: ../shared is absent\n");
    return 0;
  }
  auto games = rules::read_bpgn(sim::test::slurp(file));
  if (!games) {
    std::printf("cannot read %s: %s\n", file.c_str(), games.error().c_str());
    return 1;
  }
  std::vector<rules::BughouseRecord> records;
  std::vector<sim::test::MatchPlan> plans;
  std::vector<sim::test::Built> built;
  sim::HandStyle style = sim::HandStyle::blitz();
  style.reaction_ms = 300;
  for (const auto& g : *games) {
    auto rec = rules::replay_bughouse(g);
    if (!rec) continue;
    records.push_back(*rec);
    plans.push_back(sim::test::plan(*rec));
    built.push_back(sim::test::build(plans.back(), style, plans.size()));
  }
  std::size_t events = 0;
  for (const auto& b : built) events += b.tl[0].events.size() + b.tl[1].events.size();

  // --- A match of two boards, sensor event by sensor event ---------------------------------------
  std::vector<double> per_event_ns;
  std::vector<std::int64_t> move_latency;
  std::size_t moves = 0, alerts = 0;
  for (int run = 0; run < 5; ++run) {
    move_latency.clear();
    moves = alerts = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t m = 0; m < plans.size(); ++m) {
      rules::Match match(rules::MatchConfig{}, rules::Game(plans[m].boards[0].start),
                         rules::Game(plans[m].boards[1].start));
      struct Item {
        std::int64_t t;
        int board;
        std::size_t index;
      };
      std::vector<Item> items;
      for (int b = 0; b < 2; ++b)
        for (std::size_t i = 0; i < built[m].tl[std::size_t(b)].events.size(); ++i)
          items.push_back({built[m].tl[std::size_t(b)].events[i].t_ms, b, i});
      std::stable_sort(items.begin(), items.end(), [](const Item& x, const Item& y) { return x.t < y.t; });
      std::array<std::int64_t, 2> press_read{-1, -1};
      std::array<std::optional<rules::ClockSide>, 2> lever;
      // `now`: the virtual time of the call that gave the events out (a move event carries its press time).
      auto take = [&](const std::vector<rules::Event>& out, std::int64_t now) {
        for (const auto& e : out) {
          int b = e.board == "A" ? 0 : 1;
          if (std::holds_alternative<rules::MoveEvent>(e.what)) {
            ++moves;
            if (press_read[std::size_t(b)] >= 0) move_latency.push_back(now - press_read[std::size_t(b)]);
            press_read[std::size_t(b)] = -1;
          }
          alerts += std::holds_alternative<rules::AlertEvent>(e.what);
        }
      };
      for (const Item& it : items) {
        const rules::SensorEvent& e = built[m].tl[std::size_t(it.board)].events[it.index];
        for (auto d = match.next_deadline(); d && *d <= e.t_ms; d = match.next_deadline())
          take(match.advance(*d), *d);
        if (auto* c = std::get_if<rules::ClockReading>(&e.what)) {
          auto& l = lever[std::size_t(it.board)];
          if (l && *l != c->lever_up) press_read[std::size_t(it.board)] = e.t_ms;
          l = c->lever_up;
        }
        take(match.on_sensor(it.board, e), e.t_ms);
      }
      std::int64_t end = std::max(built[m].tl[0].end_ms, built[m].tl[1].end_ms) + 10000;
      for (auto d = match.next_deadline(); d && *d <= end; d = match.next_deadline())
        take(match.advance(*d), *d);
    }
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    per_event_ns.push_back(ns / double(events));
  }
  std::sort(per_event_ns.begin(), per_event_ns.end());
  std::printf(
      "%zu matches on two boards, %zu sensor events (blitz hands, scanning boards): %zu moves, "
      "%zu alerts\n",
      plans.size(), events, moves, alerts);
  std::printf("CPU per sensor event of a match (median of 5 runs): %.2f us\n", per_event_ns[2] / 1000);
  std::printf("completed move after its press is read: median %lld ms, p99 %lld ms, worst %lld ms\n",
              static_cast<long long>(percentile(move_latency, 0.5)),
              static_cast<long long>(percentile(move_latency, 0.99)),
              static_cast<long long>(percentile(move_latency, 1.0)));

  // --- Mate with potential drops -------------------------------------------------------------------
  std::vector<rules::Position> checks;
  for (const auto& rec : records) {
    std::array<rules::Position, 2> boards = rec.start;
    for (const auto& m : rec.moves) {
      rules::play_bughouse_move(boards, m.board, m.move);
      if (boards[std::size_t(m.board)].in_check()) checks.push_back(boards[std::size_t(m.board)]);
    }
  }
  std::size_t mates = 0, rescued = 0;
  for (const auto& p : checks) {
    bool mate = rules::is_checkmate(p);
    mates += mate;
    rescued += !mate && rules::MoveList(p).empty();  // no move now, but a potential drop could block
  }
  // Checks without any move now, where only the potential-drop rule decides (FQE 9a): distant checks a
  // dropped piece could block, a knight mate and a contact mate.
  std::vector<rules::Position> no_move;
  for (const char* fen : {"k3R3/pp6/8/8/8/8/8/7K[] b - - 0 1", "7k/6pp/8/8/8/8/PP6/K6r[] w - - 0 1",
                          "kr6/ppN5/8/8/8/8/8/7K[] b - - 0 1", "kQ6/p7/8/8/8/8/8/1R5K[] b - - 0 1"})
    if (auto p = rules::Position::from_fen(fen, rules::Variant::Bughouse)) no_move.push_back(*p);
  auto time_per_call = [](const std::vector<rules::Position>& set) {
    const int reps = 2000;
    std::vector<double> per_call_ns;
    for (int run = 0; run < 5; ++run) {
      std::size_t sink = 0;
      auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps; ++r)
        for (const auto& p : set) sink += rules::is_checkmate(p);
      double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      per_call_ns.push_back(ns / double(std::size_t(reps) * set.size()));
      if (sink == 0) std::printf(" ");
    }
    std::sort(per_call_ns.begin(), per_call_ns.end());
    return per_call_ns[2];
  };
  std::printf(
      "mate with potential drops, %zu corpus positions in check (%zu mates, %zu saved only by a potential "
      "drop): %.0f ns per decision (median of 5 runs)\n",
      checks.size(), mates, rescued, time_per_call(checks));
  std::size_t saved = 0;
  for (const auto& p : no_move) saved += !rules::is_checkmate(p);
  std::printf(
      "checks with no move at all (%zu positions, %zu saved by a potential drop): %.0f ns per decision\n",
      no_move.size(), saved, time_per_call(no_move));
  std::printf("anchor: a scanning board reports a change at most every 200-250 ms per square\n");
  return 0;
}
