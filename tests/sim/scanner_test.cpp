// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The scanning board: what it reports of hand actions, and when.
#include <gtest/gtest.h>

#include "daemon/sim/scanner.hpp"
#include "sim_test_support.hpp"

namespace eboard::sim::test {
namespace {

using rules::SensorEvent;

// (A function, not a global: the rules' tables are not guaranteed to be set up during static initialisation.)
PhysicalBoard start_board() { return physical_board(Position::start()); }

std::vector<SensorEvent> board_events(const std::vector<SensorEvent>& ev) {
  std::vector<SensorEvent> out;
  for (const SensorEvent& e : ev)
    if (std::holds_alternative<rules::PieceLifted>(e.what) ||
        std::holds_alternative<rules::PiecePlaced>(e.what))
      out.push_back(e);
  return out;
}

Square event_square(const SensorEvent& e) {
  if (const auto* l = std::get_if<rules::PieceLifted>(&e.what)) return l->square;
  if (const auto* p = std::get_if<rules::PiecePlaced>(&e.what)) return p->square;
  return rules::SQ_NONE;
}

TEST(ScanOrder, DgtOrderStartsInTheA8Corner) {
  const auto a8 = scan_order(ScanOrder::FromA8);
  EXPECT_EQ(a8[0], sq("a8"));
  EXPECT_EQ(a8[7], sq("h8"));
  EXPECT_EQ(a8[8], sq("a7"));
  EXPECT_EQ(a8[63], sq("h1"));
  const auto h1 = scan_order(ScanOrder::FromH1);
  EXPECT_EQ(h1[0], sq("h1"));
  EXPECT_EQ(h1[63], sq("a8"));
  const auto a1 = scan_order(ScanOrder::FromA1);
  EXPECT_EQ(a1[0], sq("a1"));
  EXPECT_EQ(a1[63], sq("h8"));
}

TEST(Scanner, ExactModeReportsEveryActionAsItHappens) {
  const std::vector<HandAction> acts{{1000, Lift{sq("e2")}},
                                     {1100, Place{sq("e3"), rules::W_PAWN}},
                                     {1150, Lift{sq("e3")}},
                                     {1200, Place{sq("e4"), rules::W_PAWN}},
                                     {1500, PressClock{rules::WHITE}}};
  ClockModel clock;
  clock.start_player(rules::WHITE, 0);
  const auto ev = Scanner(ScannerConfig::exact(), 1).run(start_board(), acts, clock, 0, 3000);
  const auto b = board_events(ev);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].t_ms, 1000);
  EXPECT_TRUE(std::holds_alternative<rules::PieceLifted>(b[0].what));
  EXPECT_EQ(b[1].t_ms, 1100);
  EXPECT_EQ(std::get<rules::PiecePlaced>(b[1].what).piece, rules::W_PAWN);
  EXPECT_EQ(b[3].t_ms, 1200);
  // Readings: every second while running (1000 from the start), the press at 1500, then 2500.
  std::vector<std::int64_t> readings;
  for (const SensorEvent& e : ev)
    if (const auto* c = std::get_if<rules::ClockReading>(&e.what)) {
      readings.push_back(e.t_ms);
      if (e.t_ms >= 1500) {
        EXPECT_EQ(c->lever_up, rules::ClockSide::Right);
      }
    }
  EXPECT_EQ(readings, (std::vector<std::int64_t>{1000, 1500, 2500}));
  for (std::size_t i = 1; i < ev.size(); ++i) EXPECT_LE(ev[i - 1].t_ms, ev[i].t_ms);
}

TEST(Scanner, NoClockNoReadings) {
  const std::vector<HandAction> acts{
      {1000, Lift{sq("e2")}}, {1200, Place{sq("e4"), rules::W_PAWN}}, {1500, PressClock{rules::WHITE}}};
  for (ScannerConfig cfg : {ScannerConfig{}, ScannerConfig::exact()}) {
    const auto ev = Scanner(cfg, 3).run(start_board(), acts, std::nullopt, 0, 4000);
    EXPECT_EQ(board_events(ev).size(), ev.size());
    EXPECT_EQ(ev.size(), 2u);
  }
}

TEST(Scanner, OneMotionCaptureOftenNeverShowsTheSquareEmpty) {
  // Nxd5 with the knight knocking the pawn off: lift at 1500, knight down 20 ms later.
  const Position p = fen("rnbqkbnr/ppp1pppp/8/3p4/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 2");
  const std::vector<HandAction> acts{
      {1000, Lift{sq("f3")}}, {1500, Lift{sq("d5")}}, {1520, Place{sq("d5"), rules::W_KNIGHT}}};
  int direct = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    const auto ev = Scanner(ScannerConfig{}, seed).run(physical_board(p), acts, std::nullopt, 0, 3000);
    bool d5_lifted = false, d5_knight = false;
    for (const SensorEvent& e : ev) {
      d5_lifted |= std::holds_alternative<rules::PieceLifted>(e.what) && event_square(e) == sq("d5");
      if (const auto* pl = std::get_if<rules::PiecePlaced>(&e.what))
        d5_knight |= pl->square == sq("d5") && pl->piece == rules::W_KNIGHT;
    }
    EXPECT_TRUE(d5_knight);
    direct += !d5_lifted;
  }
  EXPECT_GT(direct, 70);  // the empty square is seen only when a scan reads d5 within those 20 ms
  EXPECT_LT(direct, 100);
}

TEST(Scanner, NewSquareCanComeBeforeTheOldOneIsEmptied) {
  // Ra1-a8 is not possible here, so a plain board: a piece lifted on a1 and set down on h8 at once.
  PhysicalBoard b{};
  b[sq("a1")] = rules::W_ROOK;
  const std::vector<HandAction> acts{{1000, Lift{sq("a1")}}, {1001, Place{sq("h8"), rules::W_ROOK}}};
  int new_first_a8 = 0, new_first_a1 = 0;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    for (ScanOrder order : {ScanOrder::FromA8, ScanOrder::FromA1}) {
      ScannerConfig cfg;
      cfg.order = order;
      cfg.sweep = false;
      const auto ev = Scanner(cfg, seed).run(b, acts, std::nullopt, 0, 3000);
      ASSERT_EQ(ev.size(), 2u);
      const bool new_first = event_square(ev[0]) == sq("h8");
      if (ev[0].t_ms == ev[1].t_ms) {  // one scan saw both: scan order decides
        EXPECT_EQ(new_first, order == ScanOrder::FromA8);
        (order == ScanOrder::FromA8 ? new_first_a8 : new_first_a1) += new_first;
      }
    }
  }
  EXPECT_GT(new_first_a8, 40);
  EXPECT_EQ(new_first_a1, 0);
}

TEST(Scanner, PassingPieceSeenForAScanOrNot) {
  // A pawn slid e2-e3-e4, resting on e3 for `dwell` ms.
  for (std::int64_t dwell : {30, 400}) {
    int seen = 0;
    for (std::uint64_t seed = 0; seed < 100; ++seed) {
      const std::vector<HandAction> acts{{1000, Lift{sq("e2")}},
                                         {1010, Place{sq("e3"), rules::W_PAWN}},
                                         {1010 + dwell, Lift{sq("e3")}},
                                         {1020 + dwell, Place{sq("e4"), rules::W_PAWN}}};
      const auto ev = Scanner(ScannerConfig{}, seed).run(start_board(), acts, std::nullopt, 0, 4000);
      bool e3 = false;
      for (const SensorEvent& e : ev) e3 |= event_square(e) == sq("e3");
      seen += e3;
    }
    if (dwell == 30) {
      EXPECT_GT(seen, 0);
      EXPECT_LT(seen, 40);
    } else {
      EXPECT_EQ(seen, 100);  // longer than a scan: every scan sweep reads it once
    }
  }
}

TEST(Scanner, ReportsComeWithinTwoScansNeverBefore) {
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const std::int64_t t = 1000 + std::int64_t(seed) * 7;
    const std::vector<HandAction> acts{{t, Lift{sq("g1")}}};
    const auto ev = Scanner(ScannerConfig{}, seed).run(start_board(), acts, std::nullopt, 0, 4000);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_GT(ev[0].t_ms, t);
    EXPECT_LE(ev[0].t_ms, t + 500);
  }
}

TEST(Scanner, PressReadingFollowsTheMovesLastPlacement) {
  // Place at 1000, press 50 ms later: the reading showing the press comes after the placement.
  const std::vector<HandAction> acts{
      {800, Lift{sq("g1")}}, {1000, Place{sq("f3"), rules::W_KNIGHT}}, {1050, PressClock{rules::WHITE}}};
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    ClockModel clock;
    clock.start_player(rules::WHITE, 0);
    const auto ev = Scanner(ScannerConfig{}, seed).run(start_board(), acts, clock, 0, 4000);
    int placed_at = -1, press_at = -1;
    for (int i = 0; i < int(ev.size()); ++i) {
      if (std::holds_alternative<rules::PiecePlaced>(ev[i].what)) placed_at = i;
      if (const auto* c = std::get_if<rules::ClockReading>(&ev[i].what))
        if (c->lever_up == rules::ClockSide::Right && press_at < 0) press_at = i;
    }
    ASSERT_GE(placed_at, 0);
    ASSERT_GE(press_at, 0);
    EXPECT_LT(placed_at, press_at);
    EXPECT_LE(ev[press_at].t_ms, 1050 + 500);
  }
}

TEST(Scanner, ClockReadingsAboutOncePerSecondWhileRunning) {
  ClockModel clock;
  clock.start_player(rules::WHITE, 0);
  const auto ev = Scanner(ScannerConfig{}, 5).run(start_board(), {}, clock, 0, 10'000);
  ASSERT_GE(ev.size(), 8u);
  ASSERT_LE(ev.size(), 10u);
  std::int64_t prev = 0;
  for (const SensorEvent& e : ev) {
    ASSERT_TRUE(std::holds_alternative<rules::ClockReading>(e.what));
    EXPECT_GE(e.t_ms - prev, 1000);
    EXPECT_LE(e.t_ms - prev, 1250);
    prev = e.t_ms;
  }
  ClockModel stopped;  // never started: nothing to report
  EXPECT_TRUE(Scanner(ScannerConfig{}, 5).run(start_board(), {}, stopped, 0, 10'000).empty());
}

}  // namespace
}  // namespace eboard::sim::test
