// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The clock model: Fischer increment, lever, side mapping, display rounding, flags.
#include <gtest/gtest.h>

#include "daemon/sim/clock_model.hpp"

namespace eboard::sim {
namespace {

using rules::ClockSide;

ClockSettings blitz_3_2() {
  ClockSettings s;
  s.base_ms = 180'000;
  s.increment_ms = 2'000;
  return s;
}

TEST(ClockModel, BeforeStartNothingRuns) {
  ClockModel c(blitz_3_2());
  const rules::ClockReading r = c.reading(50'000);
  EXPECT_FALSE(r.running);
  EXPECT_EQ(r.left_ms, 180'000);
  EXPECT_EQ(r.right_ms, 180'000);
  EXPECT_EQ(r.lever_up, ClockSide::Left);  // White (on the left) will run when started
  EXPECT_TRUE(r.present);
}

TEST(ClockModel, PressAddsIncrementAndSwitchesSides) {
  ClockModel c(blitz_3_2());
  c.start_player(rules::WHITE, 1'000);
  EXPECT_EQ(c.remaining_ms(ClockSide::Left, 11'500), 169'500);
  EXPECT_EQ(c.reading(11'500).left_ms, 170'000);  // shown in whole seconds, rounded up
  EXPECT_TRUE(c.press_player(rules::WHITE, 11'500));
  EXPECT_EQ(c.remaining_ms(ClockSide::Left, 11'500), 171'500);
  EXPECT_EQ(c.lever_up(), ClockSide::Right);
  EXPECT_EQ(c.remaining_ms(ClockSide::Left, 20'000), 171'500);  // stands still now
  EXPECT_EQ(c.remaining_ms(ClockSide::Right, 20'000), 180'000 - 8'500);
  // Pressing a lever that is already down does nothing.
  EXPECT_FALSE(c.press_player(rules::WHITE, 20'000));
  EXPECT_EQ(c.remaining_ms(ClockSide::Left, 20'000), 171'500);
  const rules::ClockTimes t = c.times(20'000);
  EXPECT_EQ(t.white_ms, 171'500);
  EXPECT_EQ(t.black_ms, 171'500);
}

TEST(ClockModel, BlackOnTheLeft) {
  ClockSettings s = blitz_3_2();
  s.white_on_left = false;
  ClockModel c(s);
  EXPECT_EQ(c.side_of(rules::WHITE), ClockSide::Right);
  EXPECT_EQ(c.player_on(ClockSide::Left), rules::BLACK);
  c.start_player(rules::WHITE, 0);
  EXPECT_EQ(c.reading(5'000).right_ms, 175'000);
  EXPECT_EQ(c.reading(5'000).left_ms, 180'000);
  EXPECT_EQ(c.reading(5'000).lever_up, ClockSide::Right);
}

TEST(ClockModel, FlagFallsAtZeroAndBlocksThatSide) {
  ClockSettings s = blitz_3_2();
  s.base_ms = 3'000;
  ClockModel c(s);
  c.start_player(rules::WHITE, 0);
  EXPECT_FALSE(c.reading(2'999).left_flag);
  EXPECT_EQ(c.reading(2'999).left_ms, 1'000);
  const rules::ClockReading r = c.reading(4'000);
  EXPECT_TRUE(r.left_flag);
  EXPECT_FALSE(r.right_flag);
  EXPECT_EQ(r.left_ms, 0);
  EXPECT_TRUE(c.press_player(rules::WHITE, 4'000));  // no increment after the flag fell
  EXPECT_EQ(c.remaining_ms(ClockSide::Left, 4'000), 0);
  EXPECT_TRUE(c.reading(4'000).left_flag);
  EXPECT_EQ(c.remaining_ms(ClockSide::Right, 5'000), 2'000);  // Black's time runs on
}

TEST(ClockModel, StopAndExactResolution) {
  ClockSettings s = blitz_3_2();
  s.display_resolution_ms = 1;
  ClockModel c(s);
  c.start_player(rules::BLACK, 0);
  EXPECT_EQ(c.reading(1'234).right_ms, 178'766);
  c.stop(2'000);
  EXPECT_FALSE(c.running());
  EXPECT_EQ(c.reading(9'000).right_ms, 178'000);
  EXPECT_TRUE(c.press_player(rules::BLACK, 9'000));  // the lever moves, but no time runs or is added
  EXPECT_EQ(c.reading(9'000).right_ms, 178'000);
  EXPECT_EQ(c.lever_up(), ClockSide::Left);
}

}  // namespace
}  // namespace eboard::sim
