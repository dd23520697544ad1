// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A serial link that survives unplugging: opens a port through libserialport, reads and writes it on an
// Asio io_context, and when the device goes away (EOF, hang-up, EIO/ENXIO/ENODEV) closes it and reopens it
// when it is back: at once when inotify sees the device path come back, else at a retry of the backoff
// (Backoff). The owner re-sends its init commands from on_connected().
//
// Threading: one io_context run by one thread. Call every member from that thread (or before run()).
// Callbacks run on that thread; they may call write(), stop() and start(), but must not destroy the link.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <tl/expected.hpp>

#include "daemon/io/serial_port.hpp"

namespace eboard::io {

// How a lost or absent board is retried. A device path that is absent (an unplugged ttyUSB/ttyACM, its
// by-id link, a pty's symlink, an rfcomm node released) is watched with inotify (path_watch.hpp): its return
// wakes the link at once, and the backoff below is only the fallback when no event comes. A path that is
// there but cannot be opened or keeps dropping (a bound rfcomm node, a ttyS, a node still waiting for udev
// to set its mode) gives no event to wait for: it is retried at least every `present_max`.
struct Backoff {
  std::chrono::milliseconds initial{200};
  std::chrono::milliseconds max{5000};
  std::chrono::milliseconds present_max{250};
  // A connection that lasted at least this long resets the delay to `initial`; shorter ones keep
  // doubling it, so a device that opens and drops at once is not hammered.
  std::chrono::milliseconds stable_after{2000};
};

struct LinkConfig {
  std::string device;  // e.g. /dev/ttyUSB0 or a udev symlink such as /dev/serial/by-id/...
  LineSettings line;
  OpenOptions open;
  Backoff backoff;
  std::size_t read_chunk = 4096;
  std::size_t max_queued_bytes = std::size_t{1} << 20;
  // Tests: opens an in-memory wire (a socketpair end, SerialPort::adopt) instead of `device`, at every
  // (re)connect, so that an emulator and a session talk with no kernel terminal in between and can run
  // in manual time. Empty: the device.
  std::function<tl::expected<SerialPort, IoError>()> open_wire;
};

struct LinkStats {
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t connects = 0;    // successful opens
  std::uint64_t reconnects = 0;  // successful opens after a disconnect
  std::uint64_t disconnects = 0;
  std::uint64_t open_failures = 0;
  std::uint64_t bytes_dropped = 0;  // queued writes discarded by a disconnect or stop()
  std::uint64_t wakeups = 0;        // opens tried at once because the device's directory changed
};

enum class LinkState : std::uint8_t { stopped, connecting, connected };

class SerialLink {
 public:
  struct Handlers {
    std::function<void()> on_connected;
    std::function<void(std::span<const std::uint8_t>)> on_bytes;  // valid only during the call
    std::function<void(const IoError&)> on_disconnected;
    // Optional: an open attempt failed; the next one is in `retry_in` (for logging "waiting for board").
    std::function<void(const IoError&, std::chrono::milliseconds retry_in)> on_open_failed;
  };

  SerialLink(boost::asio::io_context& io, LinkConfig config, Handlers handlers);
  ~SerialLink();
  SerialLink(const SerialLink&) = delete;
  SerialLink& operator=(const SerialLink&) = delete;

  // Begins opening (the first attempt is posted, so callbacks never run inside start()).
  void start();
  // Cancels everything: closes the port, drops queued writes, stops retrying. No callback after this.
  void stop();
  // Queues bytes; they go out in order. Fails with not_connected while no port is open (the owner
  // re-sends what it needs from on_connected) and with queue_full past max_queued_bytes.
  tl::expected<void, IoError> write(std::vector<std::uint8_t> bytes);
  // The device may be back (a hotplug arrival): while waiting to retry, tries now with the backoff reset
  // instead of waiting out the delay. `device`, if not empty, replaces the configured path from the next
  // open on (a board named by USB serial number whose tty was found again). Connected: only the path.
  void reconnect_now(const std::string& device = {});

  LinkState state() const;
  const LinkStats& stats() const;
  const LinkConfig& config() const;
  std::optional<PortInfo> port_info() const;  // the current connection's port, if connected
  std::size_t queued_bytes() const;
  // Bytes the device sent that are waiting in the kernel, not yet read (0 when not connected).
  std::size_t bytes_waiting() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace eboard::io
