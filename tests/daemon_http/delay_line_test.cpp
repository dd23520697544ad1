// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The broadcast delay's queue (daemon/eboardd/delay_line.hpp): nothing leaves before its event's time plus
// the delay, lines leave in the order they came, and what a snapshot may show agrees with what the feed
// has let out (never a line twice, never one the feed still holds).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "daemon/eboardd/delay_line.hpp"

using eboard::eboardd::DelayQueue;
using eboard::eboardd::event_time_of;

TEST(DelayQueue, NothingLeavesBeforeItsTimePlusTheDelay) {
  DelayQueue q(1000);
  q.push("A", 100, "a1");
  q.push("B", 150, "b1");
  q.push("A", 400, "a2");
  EXPECT_TRUE(q.take_due(1099).empty());
  EXPECT_EQ(q.next_due(), 1100);
  EXPECT_EQ(q.take_due(1100), std::deque<std::string>({"a1"}));
  EXPECT_EQ(q.take_due(1399), std::deque<std::string>({"b1"}));
  EXPECT_EQ(q.take_due(5000), std::deque<std::string>({"a2"}));
  EXPECT_EQ(q.waiting(), 0u);
  EXPECT_FALSE(q.next_due());
}

TEST(DelayQueue, AnOldLineWaitsBehindTheLinesBeforeIt) {
  // A move recovered after a gap carries the time it was made, long ago: it must not overtake the lines
  // published before it (a viewer would see ply 12 before ply 11).
  DelayQueue q(1000);
  q.push("A", 5000, "a11");
  q.push("A", 200, "a12-recovered");
  EXPECT_TRUE(q.take_due(5999).empty());
  EXPECT_EQ(q.take_due(6000), std::deque<std::string>({"a11", "a12-recovered"}));
}

TEST(DelayQueue, ASnapshotShowsWhatTheFeedLetOutAndNothingItStillHolds) {
  DelayQueue q(1000);
  q.push("A", 100, "a1");
  q.push("A", 300, "a2");
  // At 1200 the feed has let a1 out; a2 waits.
  EXPECT_EQ(q.take_due(1200).size(), 1u);
  EXPECT_TRUE(q.is_public("A", 100, 1200));
  EXPECT_FALSE(q.is_public("A", 300, 1200));
  // A line that never went through the queue (before a restart) is public once old enough.
  EXPECT_TRUE(q.is_public("B", 150, 1200));
  EXPECT_FALSE(q.is_public("B", 250, 1200));
  // Old enough but behind a waiting line of its board: the feed will send what follows it.
  q.push("B", 5000, "b-late");
  q.push("B", 100, "b-old");
  EXPECT_FALSE(q.is_public("B", 100, 1200)) << "still held by the feed";
  EXPECT_FALSE(q.is_public("B", 150, 1200));
  EXPECT_EQ(q.take_due(6000).size(), 3u);
  EXPECT_TRUE(q.is_public("B", 100, 6000));
  EXPECT_EQ(q.cutoff(6000), 5000);
}

TEST(DelayQueue, EventTimeOfALine) {
  EXPECT_EQ(event_time_of(R"({"board":"A","ply":3,"t":1700000000123,"type":"move"})"), 1700000000123);
  EXPECT_EQ(event_time_of(R"({"t":42,"type":"link"})"), 42);
  // A detail that quotes JSON is escaped text, never the key.
  EXPECT_EQ(event_time_of(R"({"detail":"say \"t\":5","t":9})"), 9);
  EXPECT_FALSE(event_time_of(R"({"detail":"no time"})"));
  EXPECT_FALSE(event_time_of(R"({"t":"x"})"));
  EXPECT_FALSE(event_time_of(""));
}

TEST(DelayLine, AWaitThatFiredJustBeforeTheLineWentFindsItGone) {
  // The timer has fired and its handler waits in the loop's queue when the line is destroyed (a reload):
  // a cancel no longer reaches that handler, so it must see the line is gone and release nothing.
  boost::asio::io_context io;
  std::int64_t now = 10'000;
  int released = 0;
  auto line = std::make_unique<eboard::eboardd::DelayLine>(
      io, 1000, [&] { return now; }, [&](const std::string&) { ++released; });
  line->push("A", now - 1000 + 1, R"({"t":9001})");  // due in 1 ms
  ASSERT_EQ(line->waiting(), 1u);
  now += 5;
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  boost::asio::post(io, [&] { line.reset(); });
  io.run();
  EXPECT_EQ(released, 0);
}
