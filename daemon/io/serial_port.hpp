// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// One open serial port through libserialport: name resolution, line settings, the native fd for Asio.
// Blocking only in open() (a few syscalls); everything after that is the event loop's business.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

struct sp_port;

namespace eboard::io {

enum class Parity : std::uint8_t { none, odd, even };
enum class FlowControl : std::uint8_t { none, xon_xoff, rts_cts };

// The DGT default: 9600 baud, 8N1, no flow control (hardware.md §1).
struct LineSettings {
  int baud = 9600;
  int data_bits = 8;
  Parity parity = Parity::none;
  int stop_bits = 1;
  FlowControl flow = FlowControl::none;
};

struct IoError {
  enum class Kind : std::uint8_t {
    not_found,      // no such device, or libserialport does not know it as a serial port
    open_failed,    // the device exists but could not be opened (permissions, busy, hung up)
    config_failed,  // opened, but the line settings were refused
    disconnected,   // EOF, hang-up, EIO/ENXIO/ENODEV or another read/write error on an open port
    not_connected,  // write() while no port is open
    queue_full,     // write() would exceed the configured queue limit
  };
  Kind kind = Kind::open_failed;
  int sys_errno = 0;  // errno when the OS gave one, else 0
  std::string message;
};

std::string_view to_string(IoError::Kind kind);

// What libserialport (that is, sysfs) tells about the port; the USB fields identify a board across replugs.
// Transport `pty`: a terminal without a sysfs identity (a pseudo-terminal such as `eboardctl sim` makes, a
// socat link), which libserialport 0.1.1 refuses; SerialPort then opens it directly (see open()).
struct PortInfo {
  std::string name;  // the name libserialport accepted, e.g. /dev/ttyUSB0 (symlinks resolved)
  std::string description;
  enum class Transport : std::uint8_t { native, usb, bluetooth, pty } transport = Transport::native;
  std::optional<std::uint16_t> usb_vid, usb_pid;
  std::string usb_manufacturer, usb_product, usb_serial;
  // A sentence worth logging about how the port was opened (set for the direct `pty` fallback).
  std::string note;
};

// "native", "usb", "bluetooth", "pty".
std::string_view to_string(PortInfo::Transport transport);

struct OpenOptions {
  bool flush_on_open = true;  // drop bytes the kernel buffered before we opened
  // A second opener gets EBUSY (best effort): TIOCEXCL through libserialport, an flock() on a terminal
  // opened directly (a pty, whose TIOCEXCL would outlive a crashed opener).
  bool exclusive = true;
};

// Finds the name libserialport accepts for `path`. libserialport 0.1.1 looks a port up as
// /sys/class/tty/<path minus "/dev/">, so udev symlinks such as /dev/serial/by-id/... are not found by
// it directly: this follows the symlink chain one hop at a time until a name is accepted.
tl::expected<std::string, IoError> resolve_port_name(const std::string& path);

// An open port (move-only). The destructor closes it; call close() explicitly to order it after an Asio
// descriptor's release() (the fd belongs to libserialport, so Asio must never close it).
class SerialPort {
 public:
  SerialPort() = default;
  SerialPort(SerialPort&& other) noexcept;
  SerialPort& operator=(SerialPort&& other) noexcept;
  SerialPort(const SerialPort&) = delete;
  SerialPort& operator=(const SerialPort&) = delete;
  ~SerialPort();

  // resolve_port_name, sp_open, the line settings (sp_set_config), then VMIN=1/VTIME=0 so that a
  // non-blocking read with nothing waiting is EAGAIN rather than 0 (which an event loop takes for EOF).
  //
  // Fallback: when libserialport refuses `path` because it has no sysfs identity, but the path exists and
  // is a terminal (a pty from `eboardctl sim`, socat or tty0tty-like links: neither /sys/class/tty/<name> nor
  // /sys/dev/char/<major>:<minor> exists), the port is opened directly: open(O_RDWR|O_NOCTTY|O_NONBLOCK),
  // raw termios with the same line settings, VMIN=1/VTIME=0, an flock() for exclusivity and the flush as
  // asked. The port
  // then reports transport `pty` and says so in PortInfo::note. Everything libserialport accepts still
  // goes through libserialport.
  static tl::expected<SerialPort, IoError> open(const std::string& path, const LineSettings& line,
                                                const OpenOptions& options = {});

  // An open descriptor of a wire that is no device (a socketpair end: the tests' in-memory wire), owned
  // by the port from now on; no line settings, no exclusivity. `info` is what port_info() reports.
  static SerialPort adopt(int fd, PortInfo info);

  bool is_open() const { return port_ != nullptr || fd_ >= 0; }
  // Owned by the port (libserialport's, or ours for the direct fallback): never close() it yourself.
  int native_handle() const { return fd_; }
  const PortInfo& info() const { return info_; }
  void close();

 private:
  static tl::expected<SerialPort, IoError> open_direct(const std::string& path, const LineSettings& line,
                                                       const OpenOptions& options, const IoError& refusal);

  sp_port* port_ = nullptr;  // null for a directly opened terminal
  int fd_ = -1;
  PortInfo info_;
};

}  // namespace eboard::io
