// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The rule between a (re)connected board's decoder and reconstruction (daemon/session/link_gate.hpp), which
// the live session and the replay of a capture share.
#include "daemon/session/link_gate.hpp"

#include <gtest/gtest.h>

#include <variant>

namespace eboard::session {
namespace {

using rules::SensorEvent;

SensorEvent lifted(std::int64_t t) { return {t, rules::PieceLifted{rules::Square(12)}}; }
SensorEvent reading(std::int64_t t) { return {t, rules::ClockReading{}}; }
SensorEvent dump(std::int64_t t) { return {t, rules::BoardSnapshot{}}; }

template <class T>
bool is(const SensorEvent& e) {
  return std::holds_alternative<T>(e.what);
}

TEST(LinkGate, OpenUntilTheFirstConnect) {
  LinkGate gate(3000);
  auto out = gate.pass({lifted(5), reading(6)});
  EXPECT_EQ(out.size(), 2U);
  EXPECT_FALSE(gate.holding());
  EXPECT_FALSE(gate.deadline());
}

TEST(LinkGate, AfterAConnectSquaresWaitForTheDumpAndReadingsFollowIt) {
  LinkGate gate(3000);
  auto up = gate.connected(100);
  ASSERT_EQ(up.size(), 1U);
  EXPECT_TRUE(is<rules::DeviceLink>(up[0]) && std::get<rules::DeviceLink>(up[0].what).connected);
  EXPECT_TRUE(gate.holding());
  EXPECT_EQ(gate.deadline(), 3100);
  EXPECT_TRUE(gate.pass({lifted(110), reading(120)}).empty());
  auto out = gate.pass({dump(200), lifted(210)});
  ASSERT_EQ(out.size(), 3U);
  EXPECT_TRUE(is<rules::BoardSnapshot>(out[0]));
  EXPECT_TRUE(is<rules::ClockReading>(out[1]));
  EXPECT_EQ(out[1].t_ms, 200);  // after the dump it waited for
  EXPECT_TRUE(is<rules::PieceLifted>(out[2]));
  EXPECT_FALSE(gate.holding());
  EXPECT_EQ(gate.stats().field_updates_before_dump, 1U);
  EXPECT_EQ(gate.stats().readings_held, 1U);
}

TEST(LinkGate, NoDumpInTimeOpensTheGateWithTheReadings) {
  LinkGate gate(1000);
  (void)gate.connected(0);
  EXPECT_TRUE(gate.pass({reading(10)}).empty());
  EXPECT_TRUE(gate.advance(999).empty());
  EXPECT_FALSE(gate.timed_out());
  auto out = gate.advance(1000);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].t_ms, 1000);
  EXPECT_TRUE(gate.timed_out());
  EXPECT_FALSE(gate.holding());
  EXPECT_EQ(gate.stats().dump_timeouts, 1U);
  EXPECT_EQ(gate.pass({lifted(1001)}).size(), 1U);
}

TEST(LinkGate, ALossForgetsWhatWasHeld) {
  LinkGate gate(3000);
  (void)gate.connected(0);
  EXPECT_TRUE(gate.pass({reading(10)}).empty());
  auto down = gate.disconnected(20);
  ASSERT_EQ(down.size(), 1U);
  EXPECT_FALSE(std::get<rules::DeviceLink>(down[0].what).connected);
  EXPECT_FALSE(gate.holding());
  (void)gate.connected(30);
  auto out = gate.pass({dump(40)});
  EXPECT_EQ(out.size(), 1U);  // the reading from before the loss is gone
}

}  // namespace
}  // namespace eboard::session
