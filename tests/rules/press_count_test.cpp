// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Press count (rules/press_count.hpp): the increment learned from a game's presses, and the number of presses
// two readings of an increment clock imply.
#include "rules/press_count.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace eboard::rules {
namespace {

constexpr std::int64_t kBase = 300'000;

// `n` plies, one every `spent` ms, on a clock adding `increment` at each press, read in whole seconds
// (rounded up, as a DGT clock shows them).
std::vector<PlyRecord> plies(int n, std::int64_t spent, std::int64_t increment) {
  std::vector<PlyRecord> out;
  std::int64_t white = kBase, black = kBase;
  for (int i = 0; i < n; ++i) {
    std::int64_t& mover = i % 2 == 0 ? white : black;
    mover += increment - spent;
    auto shown = [](std::int64_t ms) { return (ms + 999) / 1000 * 1000; };
    PlyRecord p;
    p.clock = {shown(white), shown(black)};
    p.time_ms = std::int64_t(i + 1) * spent;
    out.push_back(p);
  }
  return out;
}

TEST(LearnedIncrement, TheMeanOfWhatEachPressAddedToTheSecond) {
  // Uneven thinking times, readings in whole seconds: each press's sample is off, their mean is not.
  std::vector<PlyRecord> g;
  std::int64_t white = kBase, black = kBase, t = 0;
  for (int i = 0; i < 20; ++i) {
    const std::int64_t spent = 3'217 + std::int64_t(i) * 1'311 % 7'000;
    t += spent;
    std::int64_t& mover = i % 2 == 0 ? white : black;
    mover += 3'000 - spent;
    PlyRecord p;
    p.clock = {(white + 999) / 1000 * 1000, (black + 999) / 1000 * 1000};
    p.time_ms = t;
    g.push_back(p);
  }
  EXPECT_EQ(learned_increment(g), 3'000);
}

TEST(LearnedIncrement, NoneWithoutEnoughPressesOrIncrement) {
  EXPECT_EQ(learned_increment(plies(8, 4'000, 5'000)), std::nullopt) << "seven pairs";
  EXPECT_EQ(learned_increment(plies(9, 4'000, 5'000)), 5'000) << "eight pairs";
  EXPECT_EQ(learned_increment(plies(30, 4'000, 0)), std::nullopt) << "no increment";
  EXPECT_EQ(learned_increment(plies(30, 4'000, 1'000)), std::nullopt) << "too small to count by";
}

TEST(LearnedIncrement, NoneWhenWhatAPressAddsVaries) {
  // A delay clock (Bronstein) gives back what was used up to the delay: from nothing to all of it.
  std::vector<PlyRecord> g = plies(20, 4'000, 5'000);
  std::int64_t extra = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    extra += (i % 3) * 2'500;
    g[i].clock.white_ms += extra;
  }
  EXPECT_EQ(learned_increment(g), std::nullopt);
}

TEST(LearnedIncrement, MovesNotSeenAreNoSamples) {
  std::vector<PlyRecord> g = plies(12, 4'000, 5'000);
  // A gap's recovered moves: one reading for all of them, at the last.
  for (int i : {4, 5, 6}) g[std::size_t(i)].recovered = true;
  g[4].clock = g[5].clock = {};
  EXPECT_EQ(learned_increment(g), std::nullopt) << "seven pairs left";
  g = plies(16, 4'000, 5'000);
  for (int i : {4, 5, 6}) g[std::size_t(i)].recovered = true;
  EXPECT_EQ(learned_increment(g), 5'000);
}

TEST(PressesBetween, WhatTheTimesLostLessTheTimeThatPassedCountsInIncrements) {
  // Four presses in 41 s: 20 s of increments given back, 21 s lost.
  const TimedClock before{100'000, {275'000, 275'000}};
  const TimedClock after{141'000, {264'000, 265'000}};
  EXPECT_EQ(presses_between(before, after, 5'000, false), 4);
  EXPECT_EQ(presses_between(before, after, 5'000, true), std::nullopt) << "an odd count is 5 s off";
  // Both readings a second short, or both a second long, still count four; three seconds off, nothing.
  EXPECT_EQ(presses_between(before, {141'000, {263'000, 264'000}}, 5'000, false), 4);
  EXPECT_EQ(presses_between(before, {141'000, {265'000, 266'000}}, 5'000, false), 4);
  EXPECT_EQ(presses_between(before, {141'000, {261'000, 265'000}}, 5'000, false), std::nullopt);
  // A 2 s increment: 1.5 s off at most.
  EXPECT_EQ(presses_between(before, {141'000, {253'400, 265'000}}, 2'000, false), 4);
  EXPECT_EQ(presses_between(before, {141'000, {253'600, 265'000}}, 2'000, false), std::nullopt);
}

TEST(PressesBetween, NothingWithoutBothReadingsOrAnIncrement) {
  const TimedClock before{100'000, {275'000, 275'000}};
  EXPECT_EQ(presses_between(before, {141'000, {}}, 5'000, false), std::nullopt);
  EXPECT_EQ(presses_between({100'000, {}}, {141'000, {264'000, 265'000}}, 5'000, false), std::nullopt);
  EXPECT_EQ(presses_between(before, {141'000, {264'000, 265'000}}, 0, false), std::nullopt);
  EXPECT_EQ(presses_between(before, {90'000, {264'000, 265'000}}, 5'000, false), std::nullopt)
      << "read before";
  // No press: the running side's time went down by the time that passed.
  EXPECT_EQ(presses_between(before, {103'000, {272'000, 275'000}}, 5'000, false), 0);
}

}  // namespace
}  // namespace eboard::rules
