// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// io::TimeBase: the scheduler's contract (time order, arming order within a time, cancel, re-arm, a handler
// that arms another) in manual time, and the conversion from clock ms to real waits of the scaled and
// system kinds. The real-time cases assert the order and the clock's reading at each run, never how long
// the wall clock took.
#include "daemon/io/time_base.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

namespace eboard::io {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000;

TEST(TimeBaseManual, RunsDueHandlersInTimeOrderThenArmingOrder) {
  boost::asio::io_context io;
  auto time = TimeBase::manual(io, kT0);
  std::vector<std::string> ran;
  time->at(kT0 + 30, [&] { ran.push_back("c@30"); });
  time->at(kT0 + 10, [&] { ran.push_back("a@10"); });
  time->at(kT0 + 10, [&] { ran.push_back("b@10"); });
  time->at(kT0 + 50, [&] { ran.push_back("d@50"); });
  time->advance_to(kT0 + 30);
  EXPECT_EQ(ran, (std::vector<std::string>{"a@10", "b@10", "c@30"}));
  EXPECT_EQ(time->now_ms(), kT0 + 30);
  EXPECT_EQ(time->next_due(), kT0 + 50);
  time->advance_to(kT0 + 49);
  EXPECT_EQ(ran.size(), 3U);
  time->advance_to(kT0 + 50);
  EXPECT_EQ(ran.back(), "d@50");
  EXPECT_EQ(time->armed(), 0U);
}

TEST(TimeBaseManual, EachHandlerSeesTheClockAtItsOwnTime) {
  boost::asio::io_context io;
  auto time = TimeBase::manual(io, kT0);
  std::vector<std::int64_t> seen;
  for (std::int64_t d : {40, 5, 17}) time->at(kT0 + d, [&] { seen.push_back(time->now_ms() - kT0); });
  time->advance_to(kT0 + 1000);
  EXPECT_EQ(seen, (std::vector<std::int64_t>{5, 17, 40}));
  EXPECT_EQ(time->now_ms(), kT0 + 1000);
}

TEST(TimeBaseManual, NeverGoesBack) {
  boost::asio::io_context io;
  auto time = TimeBase::manual(io, kT0);
  time->advance_to(kT0 + 100);
  time->advance_to(kT0 + 50);
  EXPECT_EQ(time->now_ms(), kT0 + 100);
}

TEST(TimeBaseManual, CancelledHandlerNeverRuns) {
  boost::asio::io_context io;
  auto time = TimeBase::manual(io, kT0);
  int a = 0;
  int b = 0;
  const auto id = time->at(kT0 + 10, [&] { ++a; });
  time->at(kT0 + 10, [&] { ++b; });
  time->cancel(id);
  time->cancel(id);  // twice: a no-op
  time->advance_to(kT0 + 10);
  EXPECT_EQ(a, 0);
  EXPECT_EQ(b, 1);
  time->cancel(id);  // after the time: still nothing
}

TEST(TimeBaseManual, HandlerCancelsALaterOneDueInTheSameAdvance) {
  boost::asio::io_context io;
  auto time = TimeBase::manual(io, kT0);
  int later = 0;
  TimeBase::TimerId victim = 0;
  time->at(kT0 + 1, [&] { time->cancel(victim); });
  victim = time->at(kT0 + 2, [&] { ++later; });
  time->advance_to(kT0 + 5);
  EXPECT_EQ(later, 0);
}

TEST(TimeBaseManual, HandlerArmsAnotherThatIsDueInTheSameAdvance) {
  boost::asio::io_context io;
  auto time = TimeBase::manual(io, kT0);
  std::vector<std::int64_t> ran;
  time->at(kT0 + 10, [&] {
    ran.push_back(time->now_ms() - kT0);
    time->at(kT0 + 20, [&] { ran.push_back(time->now_ms() - kT0); });  // due within this advance
    time->at(kT0 + 5, [&] { ran.push_back(time->now_ms() - kT0); });   // in the past: runs next, at 10
    time->at(kT0 + 200, [&] { ran.push_back(-1); });                   // not due yet
  });
  time->at(kT0 + 15, [&] { ran.push_back(time->now_ms() - kT0); });
  time->advance_to(kT0 + 100);
  EXPECT_EQ(ran, (std::vector<std::int64_t>{10, 10, 15, 20}));
  EXPECT_EQ(time->next_due(), kT0 + 200);
}

TEST(TimeBaseManual, PeriodicRearmRunsOncePerPeriod) {
  boost::asio::io_context io;
  auto time = TimeBase::manual(io, kT0);
  std::vector<std::int64_t> ticks;
  std::function<void()> tick = [&] {
    ticks.push_back(time->now_ms() - kT0);
    time->at(time->now_ms() + 1000, tick);
  };
  time->at(kT0 + 1000, tick);
  time->advance_to(kT0 + 4500);
  EXPECT_EQ(ticks, (std::vector<std::int64_t>{1000, 2000, 3000, 4000}));
}

TEST(TimeBaseManual, DueNowRunsOnTheLoopNotInsideAt) {
  boost::asio::io_context io;
  auto time = TimeBase::manual(io, kT0);
  int ran = 0;
  time->at(kT0, [&] { ++ran; });
  time->at(kT0 - 5, [&] { ++ran; });
  EXPECT_EQ(ran, 0);  // never inside at()
  io.poll();
  EXPECT_EQ(ran, 2);
  EXPECT_EQ(time->now_ms(), kT0);  // a drain does not move the manual clock
}

TEST(TimeBaseManual, TimerRearmReplacesAndDestructionCancels) {
  boost::asio::io_context io;
  auto time = TimeBase::manual(io, kT0);
  std::vector<int> ran;
  {
    Timer timer(time);
    timer.arm(kT0 + 10, [&] { ran.push_back(1); });
    timer.arm(kT0 + 30, [&] { ran.push_back(2); });  // replaces the first
    EXPECT_EQ(timer.armed_for(), kT0 + 30);
    time->advance_to(kT0 + 30);
    EXPECT_EQ(ran, std::vector<int>{2});
    EXPECT_FALSE(timer.armed_for().has_value());  // it ran
    timer.arm(kT0 + 40, [&] { ran.push_back(3); });
  }
  EXPECT_EQ(time->armed(), 0U);  // the destructor cancelled the last one
  time->advance_to(kT0 + 100);
  EXPECT_EQ(ran, std::vector<int>{2});
}

TEST(TimeBaseManual, TimerHandlerMayRearmItsOwnTimer) {
  boost::asio::io_context io;
  auto time = TimeBase::manual(io, kT0);
  Timer timer(time);
  int runs = 0;
  std::function<void()> again = [&] {
    if (++runs < 3) timer.arm(time->now_ms() + 7, again);
  };
  timer.arm(kT0 + 7, again);
  time->advance_to(kT0 + 100);
  EXPECT_EQ(runs, 3);
  EXPECT_FALSE(timer.armed_for().has_value());
}

// Scaled: a fake reading that the test moves makes the conversion visible without timing the run. At
// rate 1000 a clock distance of 5 s is a real wait of 5 ms; the handler runs when the reading says so.
TEST(TimeBaseScaled, WaitsTheClockDistanceDividedByTheRate) {
  boost::asio::io_context io;
  const auto real0 = std::chrono::steady_clock::now();
  // The reading runs 1000 times real time, as an emulator's scaled clock does: a real µs is a clock ms.
  auto reading = [real0] {
    return kT0 +
           std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - real0)
               .count();
  };
  auto time = TimeBase::scaled(io, 1000.0, reading);
  EXPECT_EQ(time->rate(), 1000.0);
  std::vector<std::int64_t> seen;
  time->at(kT0 + 5000, [&] { seen.push_back(time->now_ms()); });
  time->at(kT0 + 2000, [&] { seen.push_back(time->now_ms()); });
  io.run_for(std::chrono::seconds(20));  // returns when both ran (no work left)
  ASSERT_EQ(seen.size(), 2U);
  EXPECT_GE(seen[0], kT0 + 2000);  // the handler never runs before its time on the clock
  EXPECT_GE(seen[1], kT0 + 5000);
  EXPECT_LE(seen[0], seen[1]);
}

TEST(TimeBaseScaled, OriginAndRateGiveTheReading) {
  boost::asio::io_context io;
  const std::int64_t real_ms = TimeBase::system(io)->now_ms();
  // Origin a minute ago at rate 10: the clock reads ten minutes past the origin (give or take the call).
  auto time = TimeBase::scaled(io, 10.0, real_ms - 60'000);
  const std::int64_t ahead = time->now_ms() - (real_ms - 60'000);
  EXPECT_GE(ahead, 600'000);
  EXPECT_LT(ahead, 600'000 + 60'000);
}

TEST(TimeBaseScaled, ANonPositiveRateIsOne) {
  boost::asio::io_context io;
  EXPECT_EQ(TimeBase::scaled(io, 0.0, TimeBase::Reading{})->rate(), 1.0);
  EXPECT_EQ(TimeBase::scaled(io, -3.0, kT0)->rate(), 1.0);
}

TEST(TimeBaseSystem, RunsInOrderOnTheLoopAndCancelHolds) {
  boost::asio::io_context io;
  auto time = TimeBase::system(io);
  EXPECT_EQ(time->kind(), TimeBase::Kind::system);
  const std::int64_t t0 = time->now_ms();
  std::vector<int> ran;
  time->at(t0 + 20, [&] { ran.push_back(2); });
  time->at(t0 + 5, [&] { ran.push_back(1); });
  const auto never = time->at(t0 + 10, [&] { ran.push_back(99); });
  time->cancel(never);
  EXPECT_TRUE(ran.empty());
  io.run_for(std::chrono::seconds(20));
  EXPECT_EQ(ran, (std::vector<int>{1, 2}));
  EXPECT_GE(time->now_ms(), t0 + 20);
}

TEST(TimeBaseSystem, DestroyedBaseRunsNothing) {
  boost::asio::io_context io;
  int ran = 0;
  {
    auto time = TimeBase::system(io);
    time->at(time->now_ms(), [&] { ++ran; });
  }
  io.run_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ran, 0);
}

}  // namespace
}  // namespace eboard::io
