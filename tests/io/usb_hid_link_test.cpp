// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// UsbHidLink against a fake at the libusb seam: the fake device delivers its reports and write completions
// from its own thread, as libusb's event thread does, so the hop onto the Asio loop is exercised for real.
// Checked: reports in order, writes out in order and no closer together than the spacing (a lower bound,
// which a slow machine cannot break), an unplug takes the link offline and a replug brings it back.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "daemon/io/usb_hid_link.hpp"
#include "drivers/chessnut/protocol.hpp"
#include "tests/io/fake_hid_backend.hpp"

namespace eboard::io {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Bytes = std::vector<std::uint8_t>;
using test::board_sends;
using test::FakeBackend;
using test::FakeBus;
using test::unplug;

// Runs the loop until `done` or a generous safety limit (a hang fails the test instead of blocking ctest).
template <class Pred>
bool run_until(boost::asio::io_context& io, Pred done) {
  const auto limit = Clock::now() + 20s;
  while (!done() && Clock::now() < limit) {
    io.restart();
    io.run_for(5ms);
  }
  return done();
}

struct Fixture {
  std::shared_ptr<FakeBus> bus = std::make_shared<FakeBus>();
  boost::asio::io_context io;
  int connected = 0;
  int disconnected = 0;
  int open_failures = 0;
  Bytes received;
  std::unique_ptr<UsbHidLink> link;

  explicit Fixture(std::chrono::milliseconds spacing = 200ms) {
    UsbHidLinkConfig config;
    config.open.vendor_id = drivers::chessnut::VENDOR_ID;
    config.write_spacing = spacing;
    config.backoff.initial = 10ms;
    config.backoff.max = 20ms;
    UsbHidLink::Handlers h;
    h.on_connected = [this] { ++connected; };
    h.on_bytes = [this](std::span<const std::uint8_t> b) {
      received.insert(received.end(), b.begin(), b.end());
    };
    h.on_disconnected = [this](const IoError&) { ++disconnected; };
    h.on_open_failed = [this](const IoError&, std::chrono::milliseconds) { ++open_failures; };
    link = std::make_unique<UsbHidLink>(io, std::make_shared<FakeBackend>(bus), config, std::move(h));
  }
  ~Fixture() { link.reset(); }
};

TEST(UsbHidLink, DeliversReportsInOrderOnTheLoop) {
  Fixture f;
  f.link->start();
  EXPECT_EQ(f.connected, 0) << "start() must not call back";
  ASSERT_TRUE(run_until(f.io, [&] { return f.connected == 1; }));

  drivers::chessnut::Position start;
  const char* rows = "RNBQKBNRPPPPPPPP................................pppppppprnbqkbnr";
  for (int i = 0; i < 64; ++i) start.squares[static_cast<std::size_t>(i)] = rows[i];
  const Bytes frame = drivers::chessnut::position_frame(start);
  // Split across reports the way a 64-byte HID endpoint might cut it.
  board_sends(*f.bus, Bytes(frame.begin(), frame.begin() + 10));
  board_sends(*f.bus, Bytes(frame.begin() + 10, frame.end()));
  ASSERT_TRUE(run_until(f.io, [&] { return f.received.size() == frame.size(); }));
  EXPECT_EQ(f.received, frame);
  drivers::chessnut::Decoder decoder;
  const auto positions = decoder.feed(f.received);
  ASSERT_EQ(positions.size(), 1U);
  EXPECT_EQ(positions[0], start);
  EXPECT_EQ(f.link->stats().bytes_in, frame.size());
}

TEST(UsbHidLink, WritesGoOutInOrderAndSpacedApart) {
  Fixture f(200ms);
  f.link->start();
  ASSERT_TRUE(run_until(f.io, [&] { return f.connected == 1; }));
  const std::vector<Bytes> reports = {drivers::chessnut::command::realtime_mode(),
                                      drivers::chessnut::command::leds(0x1ULL),
                                      drivers::chessnut::command::leds(0x8000000000000000ULL)};
  for (const auto& r : reports) ASSERT_TRUE(f.link->write(r));
  ASSERT_TRUE(run_until(f.io, [&] {
    std::lock_guard lock(f.bus->mutex);
    return f.bus->written.size() == reports.size();
  }));
  std::lock_guard lock(f.bus->mutex);
  for (std::size_t i = 0; i < reports.size(); ++i) EXPECT_EQ(f.bus->written[i].second, reports[i]);
  for (std::size_t i = 1; i < reports.size(); ++i)
    EXPECT_GE(f.bus->written[i].first - f.bus->written[i - 1].first, 200ms) << "write " << i;
}

TEST(UsbHidLink, RefusesWritesWhileOfflineAndPastTheQueueLimit) {
  Fixture f(1h);  // the second write waits: the queue fills
  EXPECT_EQ(f.link->write({1}).error().kind, IoError::Kind::not_connected);
  f.link->start();
  ASSERT_TRUE(run_until(f.io, [&] { return f.connected == 1; }));
  std::size_t accepted = 0;
  for (int i = 0; i < 100; ++i)
    if (f.link->write({static_cast<std::uint8_t>(i)})) ++accepted;
  // One in flight (or written), the rest queued up to the limit.
  EXPECT_LE(accepted, f.link->config().max_queued_reports + 1);
  EXPECT_GE(accepted, f.link->config().max_queued_reports);
  EXPECT_EQ(f.link->write({1}).error().kind, IoError::Kind::queue_full);
}

TEST(UsbHidLink, UnplugTakesTheLinkOfflineAndReplugBringsItBack) {
  Fixture f(1h);
  f.link->start();
  ASSERT_TRUE(run_until(f.io, [&] { return f.connected == 1; }));
  ASSERT_TRUE(f.link->write({0x21, 0x01, 0x00}));
  ASSERT_TRUE(f.link->write({0x0A}));  // waits out the spacing: dropped by the unplug
  unplug(*f.bus);
  ASSERT_TRUE(run_until(f.io, [&] { return f.disconnected == 1; }));
  EXPECT_EQ(f.link->state(), LinkState::connecting);
  EXPECT_EQ(f.link->queued_reports(), 0U);
  EXPECT_GE(f.link->stats().bytes_dropped, 1U);
  EXPECT_EQ(f.link->write({1}).error().kind, IoError::Kind::not_connected);
  {
    std::lock_guard lock(f.bus->mutex);
    EXPECT_FALSE(f.bus->device_open) << "the gone device was closed";
  }
  ASSERT_TRUE(run_until(f.io, [&] { return f.open_failures >= 2; })) << "it keeps retrying";
  {
    std::lock_guard lock(f.bus->mutex);
    f.bus->plugged = true;
  }
  f.link->reconnect_now();
  ASSERT_TRUE(run_until(f.io, [&] { return f.connected == 2; }));
  EXPECT_EQ(f.link->state(), LinkState::connected);
  EXPECT_EQ(f.link->stats().reconnects, 1U);
  board_sends(*f.bus, {0x01, 0x24});
  ASSERT_TRUE(run_until(f.io, [&] { return f.received.size() == 2; }));
}

TEST(UsbHidLink, StopClosesTheDeviceAndCallsNothingAfter) {
  Fixture f;
  f.link->start();
  ASSERT_TRUE(run_until(f.io, [&] { return f.connected == 1; }));
  f.link->stop();
  {
    std::lock_guard lock(f.bus->mutex);
    EXPECT_FALSE(f.bus->device_open);
  }
  board_sends(*f.bus, {1, 2, 3});
  unplug(*f.bus);
  f.bus->events.drain();
  f.io.restart();
  f.io.run_for(20ms);
  EXPECT_TRUE(f.received.empty());
  EXPECT_EQ(f.disconnected, 0);
  EXPECT_EQ(f.link->state(), LinkState::stopped);
}

}  // namespace
}  // namespace eboard::io
