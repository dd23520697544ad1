// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A mock USB-serial board for tests and simulations, built on umockdev.
//
// libserialport 0.1.1 only opens ports that have a /sys/class/tty/<name> entry, and it asks the modem
// lines (TIOCMGET) on open, which a pseudo-terminal refuses. umockdev solves both: its testbed gives a
// pty a sysfs entry (with a USB parent carrying VID/PID/serial) and a /dev/ttyUSB<n> node, and an ioctl
// handler here answers the modem-line ioctls (a pty has no modem lines) while every other ioctl
// (termios, flush, TIOCEXCL, FIONBIO) runs for real on the pty. So code under test goes through
// sp_get_port_by_name, sp_open, sp_set_config and the native fd exactly as with a real board.
//
// The process that OPENS the device must run with libumockdev-preload.so loaded (it redirects /sys and
// /dev into the testbed): call ensure_umockdev_preload() first thing in main(), or run under
// `umockdev-wrapper`. The process that creates the device does not need it. Another process (e.g.
// eboardd started by `eboardctl sim`) sees the same devices when started with
// LD_PRELOAD=libumockdev-preload.so.0 and this process's UMOCKDEV_DIR (set by the testbed) in its
// environment; the modem-line ioctls are then answered by this process's umockdev worker thread.
//
// Each plug() creates a new kernel name (ttyUSB0, ttyUSB1, ...): umockdev cannot reuse a node name within
// one testbed. stable_path() is a udev-style /dev/serial/by-id/... symlink re-pointed on every plug(),
// which is what a daemon should be configured with anyway.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <tl/expected.hpp>

namespace eboard::io::testing {

// True when libumockdev-preload is mapped into this process.
bool umockdev_preload_loaded();

// For main(): when the preload is not loaded, re-executes this program with it in LD_PRELOAD (and
// ASAN_OPTIONS=verify_asan_link_order=0, which ASan builds need with any LD_PRELOAD). Returns when the
// preload is already loaded, or when re-executing is impossible (then umockdev_preload_loaded() is false).
void ensure_umockdev_preload(char** argv);

// The testbed root ($UMOCKDEV_DIR), creating the process-wide testbed if needed; empty if that failed.
std::string umockdev_root();

struct UsbSerialIdentity {
  std::uint16_t vid = 0x0403;  // FTDI FT232R, the bridge in DGT USB boards
  std::uint16_t pid = 0x6001;
  std::string manufacturer = "FTDI";
  std::string product = "DGT e-Board";
  std::string serial = "EB000001";
};

class MockSerialDevice {
 public:
  // A device that is not plugged yet. Fails only when the umockdev testbed cannot be created.
  static tl::expected<std::unique_ptr<MockSerialDevice>, std::string> create(UsbSerialIdentity identity = {});
  ~MockSerialDevice();
  MockSerialDevice(const MockSerialDevice&) = delete;
  MockSerialDevice& operator=(const MockSerialDevice&) = delete;

  // Adds the USB device, its ttyUSB<n> (a fresh pty) and the by-id symlink.
  tl::expected<void, std::string> plug();
  // Like pulling the cable: hangs up the pty (the opener reads EOF, writes get EIO), then removes the
  // sysfs entries, the node and the symlink. Close your own dup()s of master_fd() first, or the pty
  // master stays open and the opener sees no hang-up.
  void unplug();

  bool plugged() const { return master_fd_ >= 0; }
  // The board's end of the pty while plugged, else -1. Owned by the testbed: dup() it, never close it.
  int master_fd() const { return master_fd_; }
  const std::string& kernel_path() const { return kernel_path_; }  // e.g. /dev/ttyUSB3
  const std::string& stable_path() const { return stable_path_; }  // /dev/serial/by-id/usb-..-if00-port0
  const UsbSerialIdentity& identity() const { return identity_; }

 private:
  explicit MockSerialDevice(UsbSerialIdentity identity);

  UsbSerialIdentity identity_;
  std::string stable_path_;
  std::string kernel_path_;
  std::string usb_syspath_;
  std::string tty_syspath_;
  std::string pty_name_;           // /dev/pts/N behind kernel_path_
  void* ioctl_handler_ = nullptr;  // UMockdevIoctlBase*, kept out of this header
  int master_fd_ = -1;
};

}  // namespace eboard::io::testing
