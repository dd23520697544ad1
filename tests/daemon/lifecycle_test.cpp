// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The daemon's lifecycle (daemon/eboardd/lifecycle.hpp): parts start in the order they were added and stop
// in reverse; a part that fails to start is stopped with every part before it, and nothing after it starts;
// stop is safe before a start, after a failed one, and twice.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "daemon/eboardd/lifecycle.hpp"

using eboard::eboardd::Lifecycle;

namespace {

// Parts that write "+name" when started and "-name" when stopped into one log; `failing` fails its start.
struct Parts {
  std::vector<std::string> log;
  Lifecycle life;

  void add(const std::string& name, bool failing = false) {
    life.add(
        name,
        [this, name, failing]() -> tl::expected<void, std::string> {
          log.push_back("+" + name);
          if (failing) return tl::unexpected("cannot " + name);
          return {};
        },
        [this, name] { log.push_back("-" + name); });
  }
};

using Log = std::vector<std::string>;

}  // namespace

TEST(Lifecycle, StartsInOrderAndStopsInReverse) {
  Parts p;
  for (const char* name : {"lock", "boards", "listener", "hall"}) p.add(name);
  EXPECT_FALSE(p.life.running());
  ASSERT_TRUE(p.life.start());
  EXPECT_TRUE(p.life.running());
  EXPECT_EQ(p.log, (Log{"+lock", "+boards", "+listener", "+hall"}));
  EXPECT_EQ(p.life.started(), (Log{"lock", "boards", "listener", "hall"}));
  p.log.clear();
  p.life.stop();
  EXPECT_EQ(p.log, (Log{"-hall", "-listener", "-boards", "-lock"}));
  EXPECT_FALSE(p.life.running());
  EXPECT_TRUE(p.life.started().empty());
}

TEST(Lifecycle, AFailingPartStopsItselfAndThoseBeforeItAndNothingAfterStarts) {
  Parts p;
  p.add("lock");
  p.add("boards");
  p.add("listener", /*failing=*/true);
  p.add("hall");
  auto ok = p.life.start();
  ASSERT_FALSE(ok);
  EXPECT_EQ(ok.error(), "listener: cannot listener");
  EXPECT_EQ(p.log, (Log{"+lock", "+boards", "+listener", "-listener", "-boards", "-lock"}));
  EXPECT_FALSE(p.life.running());
  EXPECT_TRUE(p.life.started().empty());
  // Stopping again (the owner's destructor does) stops nothing twice.
  p.log.clear();
  p.life.stop();
  EXPECT_TRUE(p.log.empty());
}

TEST(Lifecycle, TheFirstPartFailingStopsOnlyItself) {
  Parts p;
  p.add("lock", /*failing=*/true);
  p.add("boards");
  ASSERT_FALSE(p.life.start());
  EXPECT_EQ(p.log, (Log{"+lock", "-lock"}));
}

TEST(Lifecycle, StopIsSafeBeforeStartAndTwice) {
  Parts p;
  p.add("lock");
  p.add("boards");
  p.life.stop();
  EXPECT_TRUE(p.log.empty());
  ASSERT_TRUE(p.life.start());
  p.life.stop();
  p.life.stop();
  EXPECT_EQ(p.log, (Log{"+lock", "+boards", "-boards", "-lock"}));
}

TEST(Lifecycle, PartsWithoutAStartOrAStopKeepTheirPlace) {
  Parts p;
  p.add("lock");
  p.life.add("listen file", [&p]() -> tl::expected<void, std::string> {
    p.log.push_back("+listen file");
    return {};
  });  // no stop: the file stays for tools to read
  p.life.add("signals", {}, [&p] { p.log.push_back("-signals"); });
  p.add("hall");
  ASSERT_TRUE(p.life.start());
  p.life.stop();
  EXPECT_EQ(p.log, (Log{"+lock", "+listen file", "+hall", "-hall", "-signals", "-lock"}));
  EXPECT_EQ(p.life.names(), (Log{"lock", "listen file", "signals", "hall"}));
}

TEST(Lifecycle, StartsAgainAfterAStop) {
  Parts p;
  p.add("lock");
  p.add("boards");
  ASSERT_TRUE(p.life.start());
  p.life.stop();
  p.log.clear();
  ASSERT_TRUE(p.life.start());
  EXPECT_EQ(p.log, (Log{"+lock", "+boards"}));
  EXPECT_TRUE(p.life.running());
}

TEST(Lifecycle, AStopThatStopsTheLifecycleAgainStopsEachPartOnce) {
  // A part's stop that leads back to stop() (an owner stopping itself from a callback) is no second stop.
  Parts p;
  p.add("lock");
  p.life.add("hall", {}, [&p] {
    p.log.push_back("-hall");
    p.life.stop();
  });
  p.add("listener");
  ASSERT_TRUE(p.life.start());
  p.life.stop();
  EXPECT_EQ(p.log, (Log{"+lock", "+listener", "-listener", "-hall", "-lock"}));
}
