// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Electronic boards on USB: which tty nodes belong to a board we know (by USB vendor and product id),
// found in sysfs, and watched as they come and go.
//
// Finding is a sysfs walk (/sys/class/tty/*/device up to the USB device that holds idVendor/idProduct):
// it needs no permission on the device and gives the serial number the udev rules name the stable link
// after (/dev/eboard/<protocol>-<serial>). Watching uses libusb's hotplug callbacks on the event loop when
// libusb offers them, and otherwise polls sysfs (containers without udev, kernels without netlink access).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

namespace eboard::hotplug {

// A USB id under which a serial board appears: every row's `usb_serial_ids` (session/board_protocol.hpp,
// the one place a make is described; udev/60-eboardd.rules is tested against it).
struct UsbId {
  std::uint16_t vid;
  std::uint16_t pid;
  std::string_view protocol;
  // A generic USB-serial bridge chip (FTDI FT232, Microchip CDC) that other devices use too: it is a
  // board only when its descriptors say so (names_board()), or when discovery is told to claim them all.
  bool generic_bridge = false;
  std::string_view descriptor_mark;  // the word a board's descriptors hold on such a bridge: "DGT"
};
std::span<const UsbId> known_board_ids();

struct UsbBoard {
  std::string tty;       // e.g. ttyUSB0; empty for a USB HID board (Chessnut)
  std::string device;    // the node to open: <dev_root>/ttyUSB0, or "BUS:ADDRESS" for a USB HID board
  std::string usb_path;  // the USB device in sysfs (its bus position, e.g. 1-1.2): stable per socket
  std::uint16_t vid = 0, pid = 0;
  std::string serial, manufacturer, product;
  std::string protocol;  // "dgt"
  // The udev rules' stable name: /dev/eboard/<protocol>-<serial>, or -path-<usb_path> without a serial.
  std::string stable_name() const;
  // Its USB id is a board's own, or its manufacturer or product string names DGT: what
  // udev/60-eboardd.rules matches. A generic bridge with the chip's own strings is not known to be a board.
  bool names_board() const;
  bool operator==(const UsbBoard&) const = default;
};

// Every tty of a known board, sorted by tty name. Unreadable or odd entries are skipped, never fatal.
std::vector<UsbBoard> scan(const std::filesystem::path& sys_root = "/sys",
                           const std::filesystem::path& dev_root = "/dev");

struct UsbChange {
  std::vector<UsbBoard> added, removed;
  bool empty() const { return added.empty() && removed.empty(); }
};
UsbChange diff(const std::vector<UsbBoard>& before, const std::vector<UsbBoard>& after);

struct WatchOptions {
  std::filesystem::path sys_root = "/sys";
  std::filesystem::path dev_root = "/dev";
  bool use_libusb = true;  // false: poll only (tests with a fake sysfs tree)
  // libusb (as Debian builds it) hears of devices through udevd: where udevd does not run (containers),
  // its hotplug callbacks never come, so the watcher polls instead. This is udevd's control socket;
  // empty: trust libusb.
  std::filesystem::path udev_control = "/run/udev/control";
  std::chrono::milliseconds poll_interval{2000};
  // After a libusb arrival, the tty driver binds a moment later: rescan after this.
  std::chrono::milliseconds settle{300};
};

// Scans at start() (the boards present are reported as added), then reports every change. Runs on the
// io_context's thread; the handler may call stop().
class UsbWatcher {
 public:
  using Handler = std::function<void(const UsbChange&)>;
  UsbWatcher(boost::asio::io_context& io, WatchOptions options, Handler handler);
  ~UsbWatcher();
  UsbWatcher(const UsbWatcher&) = delete;
  UsbWatcher& operator=(const UsbWatcher&) = delete;

  void start();
  void stop();
  const std::vector<UsbBoard>& boards() const;
  // "libusb hotplug" or "polling sysfs every N ms", for the log and /status.
  std::string mechanism() const;
  // "libusb hotplug", "sysfs polling", or "stopped".
  std::string mode() const;
  const WatchOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace eboard::hotplug
