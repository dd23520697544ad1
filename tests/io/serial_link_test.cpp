// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// SerialLink on a real io_context against a mock USB-serial board (umockdev pty): byte order both ways,
// unplug => on_disconnected, replug at the same (by-id) path => reconnect, clean stop, garbage bursts.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "daemon/io/serial_link.hpp"
#include "daemon/io/testing/mock_serial_device.hpp"
#include "tests/io/io_test_support.hpp"

namespace eboard::io {
namespace {

using namespace std::chrono_literals;
using test::MasterEnd;
using test::random_bytes;
using test::run_for;
using test::run_until;
using testing::MockSerialDevice;

class SerialLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::umockdev_preload_loaded()) {
      GTEST_SKIP() << "libumockdev-preload not loadable (Debian package umockdev): no mock tty";
    }
    auto dev = MockSerialDevice::create();
    ASSERT_TRUE(dev) << dev.error();
    device_ = std::move(*dev);
    auto plugged = device_->plug();
    ASSERT_TRUE(plugged) << plugged.error();
  }

  void TearDown() override {
    if (link_) link_->stop();
    master_.reset();
    link_.reset();
    if (device_) device_->unplug();
  }

  LinkConfig config() const {
    LinkConfig cfg;
    cfg.device = device_->stable_path();  // what a deployment configures: a udev by-id symlink
    cfg.backoff.initial = 10ms;
    cfg.backoff.max = 80ms;
    return cfg;
  }

  SerialLink::Handlers handlers() {
    SerialLink::Handlers h;
    h.on_connected = [this] {
      ++connected_;
      if (on_connected_extra_) on_connected_extra_();
    };
    h.on_bytes = [this](std::span<const std::uint8_t> bytes) {
      ++chunks_;
      received_.insert(received_.end(), bytes.begin(), bytes.end());
      if (on_bytes_extra_) on_bytes_extra_();
    };
    h.on_disconnected = [this](const IoError& err) {
      ++disconnected_;
      last_error_ = err;
    };
    h.on_open_failed = [this](const IoError& err, std::chrono::milliseconds retry_in) {
      open_failures_.push_back(retry_in);
      last_open_error_ = err;
    };
    return h;
  }

  void make_link(LinkConfig cfg) { link_ = std::make_unique<SerialLink>(io_, std::move(cfg), handlers()); }

  // Starts the link and waits for the connection, then attaches the board's end.
  void connect() {
    if (!link_) make_link(config());
    link_->start();
    const int before = connected_;
    ASSERT_TRUE(run_until(io_, [&] { return connected_ > before; }));
    master_ = std::make_unique<MasterEnd>(io_, device_->master_fd());
  }

  void unplug() {
    master_.reset();  // our dup of the master must go too, or the pty is not hung up
    device_->unplug();
  }

  boost::asio::io_context io_;
  std::unique_ptr<MockSerialDevice> device_;
  std::unique_ptr<SerialLink> link_;
  std::unique_ptr<MasterEnd> master_;

  int connected_ = 0;
  int disconnected_ = 0;
  int chunks_ = 0;
  std::vector<std::uint8_t> received_;
  std::vector<std::chrono::milliseconds> open_failures_;
  IoError last_error_;
  IoError last_open_error_;
  std::function<void()> on_connected_extra_;
  std::function<void()> on_bytes_extra_;
};

TEST_F(SerialLinkTest, ConnectsThroughTheByIdPathAndReportsThePort) {
  connect();
  EXPECT_EQ(link_->state(), LinkState::connected);
  auto info = link_->port_info();
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->name, device_->kernel_path());
  EXPECT_EQ(info->usb_serial, device_->identity().serial);
  EXPECT_EQ(link_->stats().connects, 1u);
  EXPECT_EQ(link_->stats().reconnects, 0u);
}

TEST_F(SerialLinkTest, BytesFromTheBoardArriveInOrder) {
  connect();
  std::vector<std::uint8_t> all(256);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint8_t>(i);  // every byte value
  master_->write(all);
  ASSERT_TRUE(run_until(io_, [&] { return received_.size() >= all.size(); }));
  EXPECT_EQ(received_, all);
  EXPECT_EQ(link_->stats().bytes_in, all.size());
}

TEST_F(SerialLinkTest, LargeTransferFromTheBoardArrivesInChunksInOrder) {
  connect();
  std::vector<std::uint8_t> all;
  for (int i = 0; i < 40; ++i) {
    auto part = random_bytes(5000 + static_cast<std::size_t>(i) * 37, static_cast<std::uint32_t>(i));
    all.insert(all.end(), part.begin(), part.end());
    master_->write(std::move(part));
  }
  ASSERT_TRUE(run_until(io_, [&] { return received_.size() >= all.size(); }));
  EXPECT_EQ(received_.size(), all.size());
  EXPECT_TRUE(received_ == all) << "byte stream differs";
  EXPECT_GT(chunks_, 1);
  EXPECT_EQ(link_->stats().bytes_in, all.size());
}

TEST_F(SerialLinkTest, WritesArriveOnTheBoardInOrder) {
  connect();
  std::vector<std::uint8_t> expected;
  auto queue = [&](std::vector<std::uint8_t> bytes) {
    expected.insert(expected.end(), bytes.begin(), bytes.end());
    auto ok = link_->write(std::move(bytes));
    ASSERT_TRUE(ok) << ok.error().message;
  };
  queue({0x40});        // reset
  queue({0x42});        // send board
  queue({0x4B, 0x45});  // update nice, serial number
  for (int i = 0; i < 30; ++i)
    queue(random_bytes(3000 + static_cast<std::size_t>(i), 100u + static_cast<std::uint32_t>(i)));
  EXPECT_GT(link_->queued_bytes(), 0u);
  ASSERT_TRUE(run_until(io_, [&] { return master_->received().size() >= expected.size(); }));
  EXPECT_TRUE(master_->received() == expected) << "byte stream differs";
  ASSERT_TRUE(run_until(io_, [&] { return link_->queued_bytes() == 0; }));
  EXPECT_EQ(link_->stats().bytes_out, expected.size());
}

TEST_F(SerialLinkTest, BothDirectionsAtOnceDoNotDeadlock) {
  connect();
  const auto down = random_bytes(300000, 7);
  const auto up = random_bytes(300000, 8);
  master_->write(down);
  for (std::size_t off = 0; off < up.size(); off += 10000) {
    auto ok = link_->write(std::vector<std::uint8_t>(up.begin() + static_cast<long>(off),
                                                     up.begin() + static_cast<long>(off + 10000)));
    ASSERT_TRUE(ok) << ok.error().message;
  }
  ASSERT_TRUE(run_until(
      io_, [&] { return received_.size() >= down.size() && master_->received().size() >= up.size(); }));
  EXPECT_TRUE(received_ == down);
  EXPECT_TRUE(master_->received() == up);
}

TEST_F(SerialLinkTest, GarbageBurstsPassThroughUntouched) {
  connect();
  // Control characters a cooked tty would eat or translate: XON/XOFF, CR/LF, ^C, ^D, NUL, 0xFF.
  std::vector<std::uint8_t> all = {0x11, 0x13, 0x0D, 0x0A, 0x03, 0x04, 0x00, 0xFF, 0x1A, 0x7F};
  master_->write(all);
  for (int i = 0; i < 16; ++i) {
    auto burst = random_bytes(65536, 1000u + static_cast<std::uint32_t>(i));
    all.insert(all.end(), burst.begin(), burst.end());
    master_->write(std::move(burst));
    ASSERT_TRUE(link_->write(random_bytes(512, static_cast<std::uint32_t>(i))));
  }
  ASSERT_TRUE(run_until(io_, [&] { return received_.size() >= all.size(); }));
  EXPECT_TRUE(received_ == all);
  EXPECT_EQ(link_->state(), LinkState::connected);
  EXPECT_EQ(disconnected_, 0);
}

TEST_F(SerialLinkTest, UnplugMeansDisconnected) {
  connect();
  unplug();
  ASSERT_TRUE(run_until(io_, [&] { return disconnected_ == 1; }));
  EXPECT_EQ(last_error_.kind, IoError::Kind::disconnected);
  EXPECT_EQ(link_->state(), LinkState::connecting);
  EXPECT_FALSE(link_->port_info().has_value());
  EXPECT_EQ(link_->stats().disconnects, 1u);
  auto w = link_->write({0x42});
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().kind, IoError::Kind::not_connected);
  // It keeps trying while the board is away, with a growing delay capped at backoff.max.
  ASSERT_TRUE(run_until(io_, [&] { return open_failures_.size() >= 5; }));
  EXPECT_EQ(last_open_error_.kind, IoError::Kind::not_found);
  for (std::size_t i = 1; i < open_failures_.size(); ++i) {
    EXPECT_GE(open_failures_[i], open_failures_[i - 1]);
    EXPECT_LE(open_failures_[i], 80ms);
  }
  EXPECT_EQ(open_failures_.back(), 80ms);
}

TEST_F(SerialLinkTest, ReplugAtTheSamePathReconnectsAndTheOwnerReinitialises) {
  // The owner's part: on every connect, send the init commands (reset, then ask for the whole board).
  on_connected_extra_ = [this] { ASSERT_TRUE(link_->write({0x40, 0x42})); };
  connect();
  ASSERT_TRUE(run_until(io_, [&] { return master_->received().size() >= 2; }));
  const std::string first_kernel = device_->kernel_path();

  unplug();
  ASSERT_TRUE(run_until(io_, [&] { return disconnected_ == 1; }));
  ASSERT_TRUE(run_until(io_, [&] { return !open_failures_.empty(); }));  // it looked, the board is away
  auto plugged = device_->plug();
  ASSERT_TRUE(plugged) << plugged.error();
  master_ = std::make_unique<MasterEnd>(io_, device_->master_fd());
  ASSERT_TRUE(run_until(io_, [&] { return connected_ == 2; }));
  EXPECT_EQ(link_->stats().reconnects, 1u);
  EXPECT_EQ(link_->port_info()->name, device_->kernel_path());
  EXPECT_NE(device_->kernel_path(), first_kernel);

  // The init commands went out again, and data flows both ways on the new connection.
  ASSERT_TRUE(run_until(io_, [&] { return master_->received().size() >= 2; }));
  EXPECT_EQ(master_->received(), (std::vector<std::uint8_t>{0x40, 0x42}));
  received_.clear();
  master_->write({0x86, 0x00, 0x43});
  ASSERT_TRUE(run_until(io_, [&] { return received_.size() >= 3; }));
  EXPECT_EQ(received_, (std::vector<std::uint8_t>{0x86, 0x00, 0x43}));
}

TEST_F(SerialLinkTest, SurvivesManyUnplugReplugCycles) {
  connect();
  for (int cycle = 1; cycle <= 5; ++cycle) {
    unplug();
    ASSERT_TRUE(run_until(io_, [&] { return disconnected_ == cycle; }));
    ASSERT_TRUE(device_->plug());
    master_ = std::make_unique<MasterEnd>(io_, device_->master_fd());
    ASSERT_TRUE(run_until(io_, [&] { return connected_ == cycle + 1; }));
    received_.clear();
    master_->write({static_cast<std::uint8_t>(cycle)});
    ASSERT_TRUE(run_until(io_, [&] { return !received_.empty(); }));
    EXPECT_EQ(received_.front(), cycle);
  }
  EXPECT_EQ(link_->stats().reconnects, 5u);
  EXPECT_EQ(link_->stats().disconnects, 5u);
}

TEST_F(SerialLinkTest, StartsBeforeTheBoardIsPluggedAndConnectsWhenItAppears) {
  const std::string path = device_->stable_path();
  device_->unplug();
  make_link(config());
  link_->start();
  EXPECT_EQ(link_->state(), LinkState::connecting);
  EXPECT_EQ(connected_, 0);  // the first attempt is posted, never inside start()
  ASSERT_TRUE(run_until(io_, [&] { return open_failures_.size() >= 3; }));
  EXPECT_EQ(open_failures_[0], 10ms);
  EXPECT_EQ(open_failures_[1], 20ms);
  EXPECT_EQ(open_failures_[2], 40ms);
  ASSERT_TRUE(device_->plug());
  ASSERT_EQ(device_->stable_path(), path);
  ASSERT_TRUE(run_until(io_, [&] { return connected_ == 1; }));
  EXPECT_EQ(link_->stats().reconnects, 0u);
  EXPECT_GE(link_->stats().open_failures, 3u);
}

// Back within 250 ms (issue 25) on the USB-serial path: a mock ttyUSB behind its by-id link, away 3.3 s
// three times, with the daemon's default backoff (whose retries would fall at 3.0 s and 6.2 s). The delay
// from the replug to on_connected is printed, not asserted; the assertion is that the link was woken by
// the device's return rather than by a retry.
TEST_F(SerialLinkTest, ALinkIsReopenedAsSoonAsItsUsbDeviceComesBack) {
  LinkConfig cfg = config();
  cfg.backoff = Backoff{};
  make_link(cfg);
  connect();
  std::vector<double> delays;
  std::chrono::steady_clock::time_point connected_at{};
  on_connected_extra_ = [&] { connected_at = std::chrono::steady_clock::now(); };
  for (int round = 0; round < 3; ++round) {
    unplug();
    ASSERT_TRUE(run_until(io_, [&] { return disconnected_ == round + 1; }));
    run_for(io_, 3300ms);
    const auto back_at = std::chrono::steady_clock::now();
    ASSERT_TRUE(device_->plug());
    ASSERT_TRUE(run_until(io_, [&] { return connected_ == round + 2; }));
    master_ = std::make_unique<MasterEnd>(io_, device_->master_fd());
    delays.push_back(std::chrono::duration<double, std::milli>(connected_at - back_at).count());
  }
  std::printf(
      "mock ttyUSB reopened %.1f ms, %.1f ms, %.1f ms after it was plugged back (3.3 s away each time)\n",
      delays[0], delays[1], delays[2]);
  EXPECT_GE(link_->stats().wakeups, 3u);
}

TEST_F(SerialLinkTest, StopCancelsEverythingAndLeavesNoWork) {
  connect();
  // Fill the pty so a write stays pending: the board does not read.
  master_->close();
  master_.reset();
  std::size_t queued = 0;
  for (int i = 0; i < 20; ++i) {
    if (link_->write(random_bytes(20000, static_cast<std::uint32_t>(i)))) queued += 20000;
  }
  run_for(io_, 100ms);
  ASSERT_GT(link_->queued_bytes(), 0u);
  const auto connected = connected_;
  const auto chunks = chunks_;
  link_->stop();
  EXPECT_EQ(link_->state(), LinkState::stopped);
  EXPECT_EQ(link_->queued_bytes(), 0u);
  EXPECT_GT(link_->stats().bytes_dropped, 0u);
  EXPECT_LE(link_->stats().bytes_out + link_->stats().bytes_dropped, queued);
  ASSERT_FALSE(link_->write({0x40}));

  // Nothing is left on the loop: run() returns by itself (bounded, in case it would not).
  io_.restart();
  io_.run_for(test::kWait);  // returns as soon as the loop is out of work
  EXPECT_TRUE(io_.stopped());
  EXPECT_EQ(connected_, connected);
  EXPECT_EQ(chunks_, chunks);
  EXPECT_EQ(disconnected_, 0);

  // And it can start again.
  link_->start();
  ASSERT_TRUE(run_until(io_, [&] { return connected_ == connected + 1; }));
}

TEST_F(SerialLinkTest, StopWhileWaitingToRetryLeavesNoWork) {
  device_->unplug();
  make_link(config());
  link_->start();
  ASSERT_TRUE(run_until(io_, [&] { return open_failures_.size() >= 2; }));
  link_->stop();
  io_.restart();
  io_.run_for(test::kWait);  // returns as soon as the loop is out of work
  EXPECT_TRUE(io_.stopped());
  const auto failures = open_failures_.size();
  run_for(io_, 100ms);
  EXPECT_EQ(open_failures_.size(), failures);
}

TEST_F(SerialLinkTest, CallbacksMayStopTheLink) {
  on_bytes_extra_ = [this] { link_->stop(); };
  connect();
  master_->write(random_bytes(50000, 3));
  ASSERT_TRUE(run_until(io_, [&] { return chunks_ >= 1; }));
  run_for(io_, 100ms);
  EXPECT_EQ(chunks_, 1);
  EXPECT_EQ(link_->state(), LinkState::stopped);
}

TEST_F(SerialLinkTest, DestroyingTheLinkWithPendingOperationsIsSafe) {
  connect();
  master_->close();  // nobody reads: writes stay pending
  for (int i = 0; i < 10; ++i) (void)link_->write(random_bytes(20000, static_cast<std::uint32_t>(i)));
  run_for(io_, 50ms);
  link_.reset();
  run_for(io_, 100ms);  // the cancelled handlers run now, against nothing
  io_.restart();
  io_.run_for(test::kWait);  // returns as soon as the loop is out of work
  EXPECT_TRUE(io_.stopped());
  EXPECT_EQ(disconnected_, 0);
}

TEST_F(SerialLinkTest, WriteQueueIsBounded) {
  LinkConfig cfg = config();
  cfg.max_queued_bytes = 16;
  make_link(cfg);
  connect();
  master_->close();
  ASSERT_TRUE(link_->write(std::vector<std::uint8_t>(16, 0x42)));
  auto w = link_->write(std::vector<std::uint8_t>(32, 0x42));
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().kind, IoError::Kind::queue_full);
  EXPECT_TRUE(link_->write({}));  // an empty write is a no-op
}

}  // namespace
}  // namespace eboard::io
