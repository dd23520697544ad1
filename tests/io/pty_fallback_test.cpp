// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The direct-open fallback for terminals libserialport 0.1.1 refuses (no sysfs identity): bare ptys, as
// `eboardctl sim` makes them, opened by path or through a symlink, with no umockdev preload in this process
// (which is how an outside user runs `eboardctl sim` and then the daemon).
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "daemon/io/path_watch.hpp"
#include "daemon/io/serial_link.hpp"
#include "daemon/io/serial_port.hpp"
#include "tests/io/io_test_support.hpp"

namespace eboard::io {
namespace {

using namespace std::chrono_literals;
using test::MasterEnd;
using test::run_until;

// A pseudo-terminal pair; the test holds the master (the board's end).
struct Pty {
  int master = -1;
  int slave = -1;
  std::string name;
  Pty() {
    char buf[256] = {};
    if (::openpty(&master, &slave, buf, nullptr, nullptr) == 0) {
      name = buf;
      // Like `eboardctl sim`: raw from the start, then only the master stays open on this side.
      termios t{};
      ::tcgetattr(slave, &t);
      ::cfmakeraw(&t);
      ::tcsetattr(slave, TCSANOW, &t);
      ::close(slave);
      slave = -1;
    }
  }
  ~Pty() { close_master(); }
  Pty(const Pty&) = delete;
  Pty& operator=(const Pty&) = delete;
  bool ok() const { return !name.empty(); }
  void close_master() {
    if (master >= 0) ::close(master);
    master = -1;
  }
};

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "eboard-pty-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

TEST(PtyFallback, BarePtyOpensWithTheSameLineSettings) {
  Pty pty;
  if (!pty.ok()) GTEST_SKIP() << "no pty available";
  auto port = SerialPort::open(pty.name, LineSettings{});
  ASSERT_TRUE(port) << port.error().message;
  EXPECT_TRUE(port->is_open());
  const PortInfo& info = port->info();
  EXPECT_EQ(info.transport, PortInfo::Transport::pty);
  EXPECT_EQ(to_string(info.transport), "pty");
  EXPECT_EQ(info.name, pty.name);
  EXPECT_EQ(info.description, "pseudo-terminal");
  EXPECT_FALSE(info.usb_vid.has_value());
  EXPECT_NE(info.note.find("opened directly"), std::string::npos) << info.note;

  termios t{};
  ASSERT_EQ(::tcgetattr(port->native_handle(), &t), 0);
  EXPECT_EQ(::cfgetospeed(&t), B9600);
  EXPECT_EQ(::cfgetispeed(&t), B9600);
  EXPECT_EQ(t.c_cflag & CSIZE, static_cast<tcflag_t>(CS8));
  EXPECT_EQ(t.c_cflag & (PARENB | CSTOPB | CRTSCTS), 0u);
  EXPECT_NE(t.c_cflag & CREAD, 0u);
  EXPECT_NE(t.c_cflag & CLOCAL, 0u);
  EXPECT_EQ(t.c_iflag & (IXON | IXOFF | ICRNL | INLCR | IGNCR | ISTRIP), 0u);
  EXPECT_EQ(t.c_oflag & OPOST, 0u);
  EXPECT_EQ(t.c_lflag & (ICANON | ECHO | ISIG | IEXTEN), 0u);
  EXPECT_EQ(t.c_cc[VMIN], 1);
  EXPECT_EQ(t.c_cc[VTIME], 0);

  // Non-blocking, and an empty read is EAGAIN, not end of file.
  char c = 0;
  EXPECT_EQ(::read(port->native_handle(), &c, 1), -1);
  EXPECT_EQ(errno, EAGAIN);
}

TEST(PtyFallback, OtherLineSettingsReachTheTerminal) {
  Pty pty;
  if (!pty.ok()) GTEST_SKIP() << "no pty available";
  LineSettings line;
  line.baud = 115200;
  line.stop_bits = 2;
  auto port = SerialPort::open(pty.name, line);
  ASSERT_TRUE(port) << port.error().message;
  termios t{};
  ASSERT_EQ(::tcgetattr(port->native_handle(), &t), 0);
  EXPECT_EQ(::cfgetospeed(&t), B115200);
  EXPECT_NE(t.c_cflag & CSTOPB, 0u);
  port->close();  // it holds the terminal's lock: a second opener would be refused as busy
  line.baud = 12345;
  auto bad = SerialPort::open(pty.name, line);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, IoError::Kind::config_failed);
}

TEST(PtyFallback, ASecondOpenerIsRefusedAndTheLockDiesWithItsHolder) {
  Pty pty;
  if (!pty.ok()) GTEST_SKIP() << "no pty available";
  auto first = SerialPort::open(pty.name, LineSettings{});
  ASSERT_TRUE(first) << first.error().message;
  auto second = SerialPort::open(pty.name, LineSettings{});
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().sys_errno, EBUSY) << second.error().message;
  // A holder that dies without closing anything (kill -9): the kernel drops its lock with it, and the pty,
  // whose master lives on, opens again.
  first->close();  // before the fork: a child sharing its open file would share its lock
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto mine = SerialPort::open(pty.name, LineSettings{});
    ::_exit(mine ? 0 : 1);  // no destructor runs: the fd is left open as a crash leaves it
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto again = SerialPort::open(pty.name, LineSettings{});
  EXPECT_TRUE(again) << again.error().message;
}

TEST(PtyFallback, SymlinkToAPtyOpensAsThePty) {
  Pty pty;
  if (!pty.ok()) GTEST_SKIP() << "no pty available";
  TempDir dir;
  const auto link = dir.path() / "dgt";
  std::filesystem::create_symlink(pty.name, link);
  auto port = SerialPort::open(link.string(), LineSettings{});
  ASSERT_TRUE(port) << port.error().message;
  EXPECT_EQ(port->info().name, pty.name);
  EXPECT_EQ(port->info().transport, PortInfo::Transport::pty);
}

TEST(PtyFallback, BytesFlowBothWaysAndTheFdIsClosedOnce) {
  Pty pty;
  if (!pty.ok()) GTEST_SKIP() << "no pty available";
  auto port = SerialPort::open(pty.name, LineSettings{});
  ASSERT_TRUE(port) << port.error().message;
  const std::vector<std::uint8_t> down = {0x86, 0x00, 0x43, 0x0A, 0x0D, 0x11, 0x13, 0x03, 0xFF};
  ASSERT_EQ(::write(pty.master, down.data(), down.size()), static_cast<ssize_t>(down.size()));
  std::vector<std::uint8_t> got(32);
  ssize_t n = -1;
  // Until the bytes are there (15 s at most: a starved machine's pty is slow to pass them on).
  for (auto end = std::chrono::steady_clock::now() + test::kWait;
       n <= 0 && std::chrono::steady_clock::now() < end;) {
    n = ::read(port->native_handle(), got.data(), got.size());
    if (n <= 0) std::this_thread::sleep_for(5ms);
  }
  ASSERT_EQ(n, static_cast<ssize_t>(down.size()));
  got.resize(static_cast<std::size_t>(n));
  EXPECT_EQ(got, down);  // raw: no CR/LF translation, no XON/XOFF, no signals
  const std::uint8_t cmd = 0x42;
  ASSERT_EQ(::write(port->native_handle(), &cmd, 1), 1);
  std::uint8_t echo = 0;
  ASSERT_EQ(::read(pty.master, &echo, 1), 1);
  EXPECT_EQ(echo, 0x42);

  SerialPort moved = std::move(*port);
  moved.close();
  moved.close();
  EXPECT_FALSE(moved.is_open());
}

TEST(PtyFallback, ARegularFileIsStillRefused) {
  TempDir dir;
  const auto file = dir.path() / "not-a-tty";
  std::ofstream(file) << "hello";
  auto port = SerialPort::open(file.string(), LineSettings{});
  ASSERT_FALSE(port);
  EXPECT_EQ(port.error().kind, IoError::Kind::not_found);
  EXPECT_NE(port.error().message.find("not a serial port"), std::string::npos) << port.error().message;
}

TEST(PtyFallback, AMissingPathIsNotFound) {
  TempDir dir;
  std::filesystem::create_symlink("/dev/pts/eboard-none", dir.path() / "dangling");
  for (const auto& p : {dir.path() / "missing", dir.path() / "dangling"}) {
    auto port = SerialPort::open(p.string(), LineSettings{});
    ASSERT_FALSE(port);
    EXPECT_EQ(port.error().kind, IoError::Kind::not_found) << port.error().message;
  }
}

// The whole reconnection story on bare ptys, as `eboardctl sim --reopen-at` plays it: the pty behind a stable
// symlink goes away (master closed), a new one appears behind the same link, the link reconnects.
TEST(PtyFallback, SerialLinkSurvivesAPtyReplacedBehindItsSymlink) {
  auto pty = std::make_unique<Pty>();
  if (!pty->ok()) GTEST_SKIP() << "no pty available";
  TempDir dir;
  const auto link_path = dir.path() / "dgt";
  std::filesystem::create_symlink(pty->name, link_path);

  boost::asio::io_context io;
  int connected = 0;
  int disconnected = 0;
  std::vector<std::uint8_t> received;
  std::optional<PortInfo> info;
  LinkConfig cfg;
  cfg.device = link_path.string();
  cfg.backoff.initial = 10ms;
  cfg.backoff.max = 50ms;
  SerialLink::Handlers h;
  std::unique_ptr<SerialLink> link;
  h.on_connected = [&] {
    ++connected;
    info = link->port_info();
    ASSERT_TRUE(link->write({0x4B, 0x42}));
  };
  h.on_bytes = [&](std::span<const std::uint8_t> b) { received.insert(received.end(), b.begin(), b.end()); };
  h.on_disconnected = [&](const IoError&) { ++disconnected; };
  link = std::make_unique<SerialLink>(io, cfg, h);
  link->start();
  ASSERT_TRUE(run_until(io, [&] { return connected == 1; }));
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->transport, PortInfo::Transport::pty);
  auto master = std::make_unique<MasterEnd>(io, pty->master);
  ASSERT_TRUE(run_until(io, [&] { return master->received().size() >= 2; }));
  EXPECT_EQ(master->received(), (std::vector<std::uint8_t>{0x4B, 0x42}));
  master->write({0x8E, 0x00, 0x05, 0x34, 0x00});
  ASSERT_TRUE(run_until(io, [&] { return received.size() >= 5; }));

  // Unplug: the board's end closes, the link notices.
  master.reset();
  pty->close_master();
  std::filesystem::remove(link_path);
  ASSERT_TRUE(run_until(io, [&] { return disconnected == 1; }));
  test::run_for(io, 100ms);  // it keeps looking while the link is gone

  // Replug: a new pty behind the same name.
  pty = std::make_unique<Pty>();
  ASSERT_TRUE(pty->ok());
  std::filesystem::create_symlink(pty->name, link_path);
  ASSERT_TRUE(run_until(io, [&] { return connected == 2; }));
  EXPECT_EQ(info->name, pty->name);
  EXPECT_EQ(link->stats().reconnects, 1u);
  master = std::make_unique<MasterEnd>(io, pty->master);
  ASSERT_TRUE(run_until(io, [&] { return master->received().size() >= 2; }));
  EXPECT_EQ(master->received(), (std::vector<std::uint8_t>{0x4B, 0x42}));
  received.clear();
  master->write({0x93, 0x00, 0x05, 0x01, 0x07});
  ASSERT_TRUE(run_until(io, [&] { return received.size() >= 5; }));
  EXPECT_EQ(received, (std::vector<std::uint8_t>{0x93, 0x00, 0x05, 0x01, 0x07}));
  link->stop();
  master.reset();
}

// Back within 250 ms (issue 25): the board's device returns 3.3 s after it went (the reported case: the
// backoff's retries fell at 3.0 s and 6.2 s, so it came back 3 s late); the link watches the path's directory
// and opens it as soon as it is there. The delay is printed (a figure for the README), not asserted: the
// assertion is that inotify, not a retry, brought it back.
TEST(PtyFallback, ALinkIsReopenedAsSoonAsItsDeviceComesBack) {
  auto pty = std::make_unique<Pty>();
  if (!pty->ok()) GTEST_SKIP() << "no pty available";
  TempDir dir;
  const auto link_path = dir.path() / "board";
  std::filesystem::create_symlink(pty->name, link_path);

  boost::asio::io_context io;
  int connected = 0;
  int disconnected = 0;
  std::chrono::steady_clock::time_point connected_at{};
  LinkConfig cfg;  // the default backoff: 200 ms doubling to 5 s
  cfg.device = link_path.string();
  SerialLink::Handlers h;
  h.on_connected = [&] {
    ++connected;
    connected_at = std::chrono::steady_clock::now();
  };
  h.on_disconnected = [&](const IoError&) { ++disconnected; };
  SerialLink link(io, cfg, h);
  link.start();
  ASSERT_TRUE(run_until(io, [&] { return connected == 1; }));

  std::vector<double> delays;
  for (int round = 0; round < 3; ++round) {
    pty->close_master();  // unplugged: the board's end is gone, and its name
    std::filesystem::remove(link_path);
    ASSERT_TRUE(run_until(io, [&] { return disconnected == round + 1; }));
    test::run_for(io, 3300ms);
    pty = std::make_unique<Pty>();
    ASSERT_TRUE(pty->ok());
    const auto back_at = std::chrono::steady_clock::now();
    std::filesystem::create_symlink(pty->name, link_path);
    ASSERT_TRUE(run_until(io, [&] { return connected == round + 2; }));
    delays.push_back(std::chrono::duration<double, std::milli>(connected_at - back_at).count());
  }
  std::printf("reopened %.1f ms, %.1f ms, %.1f ms after the device came back (3.3 s away each time)\n",
              delays[0], delays[1], delays[2]);
  EXPECT_GE(link.stats().wakeups, 3u);
  link.stop();
}

// A path that is there but will not open (a bound rfcomm node with its board away, a ttyS another program
// holds, a node udev has not yet given its mode; here a plain file) gives inotify nothing to report: it is
// retried at least every Backoff::present_max, whatever the backoff has grown to.
TEST(PtyFallback, APathThatIsThereButWillNotOpenIsRetriedAtLeastEveryPresentMax) {
  TempDir dir;
  const auto path = dir.path() / "rfcomm0";
  std::ofstream(path) << "not a terminal";
  boost::asio::io_context io;
  std::vector<std::chrono::milliseconds> retries;
  LinkConfig cfg;
  cfg.device = path.string();
  cfg.backoff.initial = 100ms;
  cfg.backoff.present_max = 150ms;
  SerialLink::Handlers h;
  h.on_open_failed = [&](const IoError&, std::chrono::milliseconds retry_in) { retries.push_back(retry_in); };
  SerialLink link(io, cfg, h);
  link.start();
  ASSERT_TRUE(run_until(io, [&] { return retries.size() >= 4; }));
  EXPECT_EQ(retries[0], 100ms);
  for (std::size_t i = 1; i < retries.size(); ++i) EXPECT_EQ(retries[i], 150ms);
  // Gone, the path is waited for with the backoff (and inotify): the delay grows again past present_max.
  std::filesystem::remove(path);
  const std::size_t before = retries.size();
  ASSERT_TRUE(run_until(io, [&] { return retries.size() >= before + 2; }));
  EXPECT_GT(retries.back(), 150ms);
  link.stop();
}

TEST(PathWatch, TheDirectoriesOfEveryLinkOnTheWayAreWatched) {
  TempDir a;
  TempDir b;
  const auto first = a.path() / "board";
  const auto second = b.path() / "by-id" / "usb-board";
  std::filesystem::create_directories(second.parent_path());
  std::filesystem::create_symlink(second, first);
  std::filesystem::create_symlink("/dev/pts/4242", second);
  EXPECT_EQ(PathWatch::directories_for(first.string()),
            (std::vector<std::string>{a.path().string(), second.parent_path().string(), "/dev/pts"}));
  // A directory that is gone (udev removes /dev/serial/by-id with its last link): its nearest ancestor.
  EXPECT_EQ(PathWatch::directories_for((b.path() / "gone" / "deeper" / "tty").string()),
            (std::vector<std::string>{b.path().string()}));
}

// The owner watches again after an open that failed (SerialLink does, as the chain may have grown): what a
// directory still watched reported before that and was not read yet still wakes it. A board plugged in
// again in two steps (`eboardctl sim` makes the new link under another name, then renames it into place)
// is reopened at the second step's news, not at a retry of the backoff, even when the first step's wake
// found nothing to open and the second came before the owner watched again.
TEST(PathWatch, WhatCameBeforeTheOwnerWatchedAgainStillWakesIt) {
  TempDir dir;
  boost::asio::io_context io;
  int changes = 0;
  PathWatch watch(io, [&] { ++changes; });
  const std::string board = (dir.path() / "board").string();
  ASSERT_TRUE(watch.watch(board));
  std::filesystem::create_symlink("/dev/pts/4242", dir.path() / "board");  // reported; the loop has not run
  ASSERT_TRUE(watch.watch(board));
  EXPECT_EQ(watch.directories(), (std::vector<std::string>{dir.path().string(), "/dev/pts"}));
  EXPECT_TRUE(run_until(io, [&] { return changes > 0; }));
  // A directory no longer on the way is no longer watched: a new terminal in /dev/pts wakes nobody now.
  std::filesystem::remove(dir.path() / "board");
  ASSERT_TRUE(watch.watch(board));
  EXPECT_EQ(watch.directories(), (std::vector<std::string>{dir.path().string()}));
  test::run_for(io, 50ms);
  const int before = changes;
  Pty pty;
  ASSERT_TRUE(pty.ok());
  test::run_for(io, 50ms);
  EXPECT_EQ(changes, before);
  std::filesystem::create_symlink(pty.name, dir.path() / "board");
  EXPECT_TRUE(run_until(io, [&] { return changes > before; }));
  watch.stop();
}

}  // namespace
}  // namespace eboard::io
