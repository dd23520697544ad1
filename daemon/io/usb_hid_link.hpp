// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A USB HID board link on the Asio loop, the HID counterpart of SerialLink: opens the device through a
// HidBackend (libusb, or a fake in tests), delivers its reports on the loop, sends queued reports no closer
// together than `write_spacing` (the Chessnut SDK keeps 200 ms between writes), and when the device goes
// (LIBUSB_ERROR_NO_DEVICE and the like) closes it, reports the link offline and retries with a backoff.
//
// Threading: call every member from the loop's thread; callbacks run there and may call write() and stop().
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <tl/expected.hpp>

#include "daemon/io/serial_link.hpp"
#include "daemon/io/usb_hid.hpp"

namespace eboard::io {

struct UsbHidLinkConfig {
  HidOpenRequest open;
  std::chrono::milliseconds write_spacing{200};
  Backoff backoff;
  std::size_t max_queued_reports = 64;
};

class UsbHidLink {
 public:
  using Handlers = SerialLink::Handlers;

  UsbHidLink(boost::asio::io_context& io, std::shared_ptr<HidBackend> backend, UsbHidLinkConfig config,
             Handlers handlers);
  ~UsbHidLink();
  UsbHidLink(const UsbHidLink&) = delete;
  UsbHidLink& operator=(const UsbHidLink&) = delete;

  void start();  // the first open is posted: no callback inside start()
  void stop();   // closes the device, drops queued writes; no callback after this
  // Queues one report. not_connected while no device is open, queue_full past max_queued_reports.
  tl::expected<void, IoError> write(std::vector<std::uint8_t> report);
  // A hotplug arrival: retry now instead of after the backoff; `device`, if not empty, replaces the
  // configured one from the next open on.
  void reconnect_now(const std::string& device = {});

  [[nodiscard]] LinkState state() const;
  [[nodiscard]] const LinkStats& stats() const;
  [[nodiscard]] const UsbHidLinkConfig& config() const;
  [[nodiscard]] std::string description() const;  // the open device, empty when none
  [[nodiscard]] std::size_t queued_reports() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace eboard::io
