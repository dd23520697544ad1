// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// SerialPort: libserialport opens a mock USB-serial board (a umockdev pty) like a real one.
#include <gtest/gtest.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <string>

#include "daemon/io/serial_port.hpp"
#include "daemon/io/testing/mock_serial_device.hpp"

namespace eboard::io {
namespace {

using testing::MockSerialDevice;
using testing::UsbSerialIdentity;

std::unique_ptr<MockSerialDevice> plugged_device(UsbSerialIdentity id = {}) {
  auto dev = MockSerialDevice::create(std::move(id));
  if (!dev) return nullptr;
  if (auto ok = (*dev)->plug(); !ok) {
    ADD_FAILURE() << ok.error();
    return nullptr;
  }
  return std::move(*dev);
}

#define REQUIRE_UMOCKDEV()                                                                     \
  if (!testing::umockdev_preload_loaded()) {                                                   \
    GTEST_SKIP() << "libumockdev-preload not loadable (Debian package umockdev): no mock tty"; \
  }

TEST(SerialPort, OpensMockBoardThroughLibserialportWithUsbIdentity) {
  REQUIRE_UMOCKDEV();
  auto dev = plugged_device({0x0403, 0x6001, "FTDI", "DGT e-Board", "EB123456"});
  ASSERT_TRUE(dev);
  auto port = SerialPort::open(dev->kernel_path(), LineSettings{});
  ASSERT_TRUE(port) << port.error().message;
  EXPECT_TRUE(port->is_open());
  EXPECT_GE(port->native_handle(), 0);
  const PortInfo& info = port->info();
  EXPECT_EQ(info.name, dev->kernel_path());
  EXPECT_EQ(info.transport, PortInfo::Transport::usb);
  ASSERT_TRUE(info.usb_vid.has_value());
  EXPECT_EQ(*info.usb_vid, 0x0403);
  EXPECT_EQ(*info.usb_pid, 0x6001);
  EXPECT_EQ(info.usb_serial, "EB123456");
  EXPECT_EQ(info.usb_product, "DGT e-Board");
  EXPECT_EQ(info.usb_manufacturer, "FTDI");
}

TEST(SerialPort, DefaultLineSettingsAre9600RawEightNoneOne) {
  REQUIRE_UMOCKDEV();
  auto dev = plugged_device();
  ASSERT_TRUE(dev);
  auto port = SerialPort::open(dev->kernel_path(), LineSettings{});
  ASSERT_TRUE(port) << port.error().message;
  termios t{};
  ASSERT_EQ(::tcgetattr(port->native_handle(), &t), 0);
  EXPECT_EQ(::cfgetospeed(&t), B9600);
  EXPECT_EQ(::cfgetispeed(&t), B9600);
  EXPECT_EQ(t.c_cflag & CSIZE, static_cast<tcflag_t>(CS8));
  EXPECT_EQ(t.c_cflag & PARENB, 0u);
  EXPECT_EQ(t.c_cflag & CSTOPB, 0u);
  EXPECT_EQ(t.c_cflag & CRTSCTS, 0u);
  EXPECT_NE(t.c_cflag & CREAD, 0u);
  EXPECT_NE(t.c_cflag & CLOCAL, 0u);
  EXPECT_EQ(t.c_iflag & (IXON | IXOFF | ICRNL | INLCR | IGNCR | ISTRIP), 0u);
  EXPECT_EQ(t.c_oflag & OPOST, 0u);
  EXPECT_EQ(t.c_lflag & (ICANON | ECHO | ISIG | IEXTEN), 0u);
  // VMIN=1, VTIME=0: an empty non-blocking read is EAGAIN, not 0 (which Asio reads as end of file).
  EXPECT_EQ(t.c_cc[VMIN], 1);
  EXPECT_EQ(t.c_cc[VTIME], 0);
}

TEST(SerialPort, OtherBaudAndStopBitsReachTheTerminal) {
  REQUIRE_UMOCKDEV();
  auto dev = plugged_device();
  ASSERT_TRUE(dev);
  LineSettings line;
  line.baud = 19200;
  line.data_bits = 7;
  line.parity = Parity::even;
  line.stop_bits = 2;
  auto port = SerialPort::open(dev->kernel_path(), line);
  ASSERT_TRUE(port) << port.error().message;
  termios t{};
  ASSERT_EQ(::tcgetattr(port->native_handle(), &t), 0);
  EXPECT_EQ(::cfgetospeed(&t), B19200);
  EXPECT_NE(t.c_cflag & CSTOPB, 0u);
  // The kernel's pty driver forces CS8 and no parity on every tcsetattr (drivers/tty/pty.c), so data
  // bits and parity cannot be checked on a pty; a real UART keeps them.
}

TEST(SerialPort, FollowsUdevStyleSymlinkToTheKernelName) {
  REQUIRE_UMOCKDEV();
  auto dev = plugged_device();
  ASSERT_TRUE(dev);
  auto name = resolve_port_name(dev->stable_path());
  ASSERT_TRUE(name) << name.error().message;
  EXPECT_EQ(*name, dev->kernel_path());
  auto port = SerialPort::open(dev->stable_path(), LineSettings{});
  ASSERT_TRUE(port) << port.error().message;
  EXPECT_EQ(port->info().name, dev->kernel_path());
}

TEST(SerialPort, MissingDeviceIsNotFound) {
  auto port = SerialPort::open("/dev/ttyUSB_eboard_missing", LineSettings{});
  ASSERT_FALSE(port);
  EXPECT_EQ(port.error().kind, IoError::Kind::not_found);
  EXPECT_FALSE(port.error().message.empty());
}

TEST(SerialPort, UnpluggedDeviceIsNotFoundAtItsStablePath) {
  REQUIRE_UMOCKDEV();
  auto dev = plugged_device();
  ASSERT_TRUE(dev);
  const std::string path = dev->stable_path();
  dev->unplug();
  auto port = SerialPort::open(path, LineSettings{});
  ASSERT_FALSE(port);
  EXPECT_EQ(port.error().kind, IoError::Kind::not_found);
}

// libserialport 0.1.1 cannot open a bare pty (no /sys/class/tty entry): SerialPort falls back to opening
// it directly, and says so. (tests/io/pty_fallback_test.cpp covers the fallback without umockdev.)
TEST(SerialPort, BarePtyOpensThroughTheDirectFallback) {
  int master = -1;
  int slave = -1;
  char name[256] = {};
  if (::openpty(&master, &slave, name, nullptr, nullptr) != 0) GTEST_SKIP() << "no pty available";
  auto port = SerialPort::open(name, LineSettings{});
  ASSERT_TRUE(port) << port.error().message;
  EXPECT_EQ(port->info().transport, PortInfo::Transport::pty);
  EXPECT_EQ(port->info().name, name);
  EXPECT_NE(port->info().note.find("libserialport"), std::string::npos) << port->info().note;
  port->close();
  ::close(slave);
  ::close(master);
}

TEST(SerialPort, UmockdevBoardStillGoesThroughLibserialport) {
  REQUIRE_UMOCKDEV();
  auto dev = plugged_device();
  ASSERT_TRUE(dev);
  auto port = SerialPort::open(dev->stable_path(), LineSettings{});
  ASSERT_TRUE(port) << port.error().message;
  EXPECT_EQ(port->info().transport, PortInfo::Transport::usb);
  EXPECT_TRUE(port->info().note.empty());
}

TEST(SerialPort, MovedPortKeepsItsFdAndClosesOnce) {
  REQUIRE_UMOCKDEV();
  auto dev = plugged_device();
  ASSERT_TRUE(dev);
  auto port = SerialPort::open(dev->kernel_path(), LineSettings{});
  ASSERT_TRUE(port) << port.error().message;
  const int fd = port->native_handle();
  SerialPort moved = std::move(*port);
  EXPECT_FALSE(port->is_open());  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_EQ(moved.native_handle(), fd);
  moved.close();
  EXPECT_FALSE(moved.is_open());
  moved.close();  // idempotent
}

}  // namespace
}  // namespace eboard::io
