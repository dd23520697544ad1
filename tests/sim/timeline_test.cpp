// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Whole simulated games as the board reports them: replaying the sensor events on an empty board gives the
// game's position after every clock press, reports are real changes in time order, and a seed replays.
#include <gtest/gtest.h>

#include "daemon/sim/timeline.hpp"
#include "sim_test_support.hpp"

namespace eboard::sim::test {
namespace {

using rules::SensorEvent;

struct NamedScanner {
  const char* name;
  ScannerConfig config;
};

std::vector<NamedScanner> scanner_modes() {
  ScannerConfig at_press;
  at_press.clock_poll = ClockPoll::AtPress;
  ScannerConfig rotated;
  rotated.order = ScanOrder::FromH1;
  rotated.sweep = false;
  return {{"scan", ScannerConfig{}},
          {"scan-clock-at-press", at_press},
          {"scan-rotated-snapshot", rotated},
          {"exact", ScannerConfig::exact()}};
}

std::int64_t first_board_action(std::span<const HandAction> move) {
  for (const HandAction& a : move)
    if (!std::holds_alternative<PressClock>(a.what)) return a.t_ms;
  return move.back().t_ms;
}

// Checks one timeline against its game. Returns the number of press readings checked.
void check_timeline(const Timeline& tl, const RandomGame& g, const NamedScanner& mode,
                    const std::string& what) {
  ASSERT_EQ(check_actions(physical_board(g.start), tl.actions), "") << what;
  ASSERT_EQ(tl.press_ms.size(), g.moves.size()) << what;
  ASSERT_GE(tl.events.size(), 2u);
  ASSERT_TRUE(std::holds_alternative<rules::BoardSnapshot>(tl.events[0].what)) << what;
  ASSERT_TRUE(std::holds_alternative<rules::ClockReading>(tl.events[1].what)) << what;
  const auto moves = split_moves(tl.actions);
  ASSERT_EQ(moves.size(), g.moves.size());

  const bool quantized = mode.config.quantize;
  const bool press_after_changes = !quantized || mode.config.clock_poll == ClockPoll::BeforeSweep;
  PhysicalBoard board{};  // an empty board: the snapshot fills it
  rules::ClockSide lever = std::get<rules::ClockReading>(tl.events[1].what).lever_up;
  std::size_t presses_seen = 0, quiet_checked = 0;
  std::string error;
  for (std::size_t i = 0; i < tl.events.size(); ++i) {
    const SensorEvent& e = tl.events[i];
    if (i > 0) {
      ASSERT_LE(tl.events[i - 1].t_ms, e.t_ms) << what << " event " << i;
    }
    ASSERT_TRUE(apply_event(board, e, &error)) << what << ": " << error;
    // The board just before the next move's first touch: every change of the move before is reported
    // by then (it comes within two scans, and the next player thinks at least that long in every preset).
    const std::size_t ply = quiet_checked;
    if (ply < moves.size()) {
      const std::int64_t next_touch =
          ply + 1 < moves.size() ? first_board_action(moves[ply + 1]) : tl.end_ms + 1;
      const bool next_event_after =
          i + 1 == tl.events.size() ||
          (quantized ? tl.events[i + 1].t_ms > next_touch : tl.events[i + 1].t_ms >= next_touch);
      if (e.t_ms >= tl.press_ms[ply] && next_event_after) {
        ASSERT_EQ(board_string(board), board_string(physical_board(g.positions[ply + 1])))
            << what << " before the touch after ply " << ply;
        ++quiet_checked;
      }
    }
    if (const auto* c = std::get_if<rules::ClockReading>(&e.what)) {
      if (c->lever_up == lever) continue;
      lever = c->lever_up;
      // A press: the move it completes is entirely on the board right after it.
      ASSERT_LT(presses_seen, moves.size()) << what;
      const std::size_t p = presses_seen++;
      EXPECT_EQ(c->lever_up, g.positions[p + 1].side_to_move() == rules::WHITE ? rules::ClockSide::Left
                                                                               : rules::ClockSide::Right);
      EXPECT_GE(e.t_ms, tl.press_ms[p]);
      EXPECT_LE(e.t_ms, tl.press_ms[p] + 2 * mode.config.period_max_ms);
      if (press_after_changes) {
        ASSERT_TRUE(p + 1 == moves.size() || first_board_action(moves[p + 1]) >= e.t_ms)
            << what << ": the next player touched a piece before the press was reported";
        ASSERT_EQ(board_string(board), board_string(physical_board(g.positions[p + 1])))
            << what << " at the press reading of ply " << p;
      }
    }
  }
  EXPECT_EQ(presses_seen, moves.size()) << what;
  EXPECT_EQ(quiet_checked, moves.size()) << what;
  EXPECT_EQ(board_string(board), board_string(physical_board(g.positions.back()))) << what;
}

TEST(Timeline, RandomGamesReplayToThePositionAfterEveryPress) {
  std::size_t timelines = 0, events = 0;
  for (StartKind kind : {StartKind::Standard, StartKind::Chess960, StartKind::Crazyhouse})
    for (int game = 0; game < 50; ++game) {
      const RandomGame g = random_game(start_position(kind, game), 60, 7000 + std::uint64_t(game));
      const auto styles = all_styles();
      const auto modes = scanner_modes();
      // Every style (against a rotating opponent style) with every scanner mode and two seeds.
      for (std::size_t k = 0; k < styles.size(); ++k)
        for (const NamedScanner& mode : modes)
          for (std::uint64_t seed : {std::uint64_t(game) * 2 + 1, std::uint64_t(game) * 2 + 2}) {
            const NamedStyle& white = styles[k];
            const NamedStyle& black = styles[(k + std::size_t(game)) % styles.size()];
            TimelineSpec spec;
            spec.start = g.start;
            spec.moves = g.moves;
            spec.white = white.style;
            spec.black = black.style;
            spec.scanner = mode.config;
            spec.seed = seed;
            spec.start_ms = 1'000'000;
            const Timeline tl = build_timeline(spec);
            check_timeline(tl, g, mode,
                           std::string(name(kind)) + " game " + std::to_string(game) + ' ' + white.name +
                               '/' + black.name + ' ' + mode.name + " seed " + std::to_string(seed));
            if (HasFatalFailure()) return;
            ++timelines;
            events += tl.events.size();
          }
    }
  std::printf("%zu timelines, %zu sensor events\n", timelines, events);
}

TEST(Timeline, SameSeedSameEventsOtherSeedOthers) {
  const RandomGame g = random_game(fen(chess960_start_fen(300), rules::Variant::Chess, true), 60, 77);
  auto run = [&](std::uint64_t seed, ScannerConfig cfg) {
    TimelineSpec spec;
    spec.start = g.start;
    spec.moves = g.moves;
    spec.white = HandStyle::blitz();
    spec.black = HandStyle::messy();
    spec.scanner = cfg;
    spec.seed = seed;
    std::string s;
    for (const SensorEvent& e : build_timeline(spec).events) s += describe(e) + '\n';
    return s;
  };
  for (ScannerConfig cfg : {ScannerConfig{}, ScannerConfig::exact()}) {
    EXPECT_EQ(run(123, cfg), run(123, cfg));
    EXPECT_NE(run(123, cfg), run(124, cfg));
  }
}

TEST(Timeline, StartsWithSnapshotAndClock) {
  TimelineSpec spec;
  spec.moves = {Move::make(sq("e2"), sq("e4"))};
  spec.clock = ClockSettings{};
  spec.clock->base_ms = 300'000;
  spec.clock->increment_ms = 3'000;
  spec.start_ms = 500;
  const Timeline tl = build_timeline(spec);
  ASSERT_GE(tl.events.size(), 4u);
  EXPECT_EQ(tl.events[0].t_ms, 500);
  EXPECT_EQ(std::get<rules::BoardSnapshot>(tl.events[0].what).squares, physical_board(Position::start()));
  const auto& c = std::get<rules::ClockReading>(tl.events[1].what);
  EXPECT_TRUE(c.running);
  EXPECT_EQ(c.left_ms, 300'000);
  EXPECT_EQ(c.lever_up, rules::ClockSide::Left);
  EXPECT_EQ(tl.end_ms, tl.events.back().t_ms);
  // The last reading shows White's move paid for with the increment.
  rules::ClockReading last;
  for (const SensorEvent& e : tl.events)
    if (const auto* r = std::get_if<rules::ClockReading>(&e.what)) last = *r;
  EXPECT_EQ(last.lever_up, rules::ClockSide::Right);
  EXPECT_EQ(last.left_ms, (300'000 + 3'000 - (tl.press_ms[0] - 500) + 999) / 1000 * 1000);
}

TEST(Timeline, WithoutAClock) {
  TimelineSpec spec;
  spec.moves = {Move::make(sq("e2"), sq("e4")), Move::make(sq("e7"), sq("e5"))};
  spec.clock.reset();
  const Timeline tl = build_timeline(spec);
  EXPECT_FALSE(std::get<rules::ClockReading>(tl.events[1].what).present);
  for (std::size_t i = 2; i < tl.events.size(); ++i)
    EXPECT_FALSE(std::holds_alternative<rules::ClockReading>(tl.events[i].what));
}

TEST(Timeline, SpentTimesFromClockComments) {
  // 3+2: White spends 10 s, Black 4 s, White 3 s, Black unknown, White 3 s.
  const std::vector<std::optional<std::int64_t>> clk{172'000, 178'000, 171'000, std::nullopt, 170'000};
  const auto spent = spent_from_clk(clk, 180'000, 2'000);
  ASSERT_EQ(spent.size(), 5u);
  EXPECT_EQ(spent[0], 10'000);
  EXPECT_EQ(spent[1], 4'000);
  EXPECT_EQ(spent[2], 3'000);
  EXPECT_EQ(spent[3], std::nullopt);
  EXPECT_EQ(spent[4], 3'000);

  // Fed to the timeline, the clock shows the PGN's times after every move (to the second).
  const std::vector<Move> moves{Move::make(sq("e2"), sq("e4")), Move::make(sq("e7"), sq("e5")),
                                Move::make(sq("g1"), sq("f3")), Move::make(sq("b8"), sq("c6")),
                                Move::make(sq("f1"), sq("b5"))};
  TimelineSpec spec;
  spec.moves = moves;
  spec.spent_ms = spent;
  spec.white = spec.black = HandStyle::tidy();
  spec.clock = ClockSettings{};
  spec.clock->base_ms = 180'000;
  spec.clock->increment_ms = 2'000;
  spec.clock->display_resolution_ms = 1;
  spec.scanner = ScannerConfig::exact();
  const Timeline tl = build_timeline(spec);
  ClockModel clock(*spec.clock);
  clock.start_player(rules::WHITE, 0);
  for (std::size_t i = 0; i < moves.size(); ++i) {
    clock.press_player(i % 2 ? rules::BLACK : rules::WHITE, tl.press_ms[i]);
    if (clk[i] && spent[i] && (i < 2 || spent[i - 2])) {
      const rules::ClockTimes t = clock.times(tl.press_ms[i]);
      EXPECT_EQ(i % 2 ? t.black_ms : t.white_ms, *clk[i]) << "ply " << i;
    }
  }
}

TEST(Timeline, IllegalMoveIsRejected) {
  TimelineSpec spec;
  spec.moves = {Move::make(sq("e2"), sq("e5"))};
  EXPECT_THROW(build_timeline(spec), std::invalid_argument);
}

}  // namespace
}  // namespace eboard::sim::test
