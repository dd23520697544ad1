// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The libusb seam for USB HID boards (Chessnut): the few things UsbHidLink needs from a device, so the
// link's logic (queue, spacing, unplug, retry) is tested against a fake and libusb stays behind one file
// (usb_hid_libusb.cpp). Callbacks come from the backend's own thread: the link posts them to its loop.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/io/serial_port.hpp"

namespace eboard::io {

struct HidReadHandlers {
  std::function<void(std::vector<std::uint8_t>)> on_report;  // one interrupt IN transfer's bytes
  std::function<void(const IoError&)> on_gone;               // unplugged or failed for good: no more reports
};

// One opened, claimed device. Destroying it cancels its transfers and waits for them: no callback after.
class HidDevice {
 public:
  virtual ~HidDevice() = default;
  virtual void start_reading(HidReadHandlers handlers) = 0;
  // One interrupt OUT report; `done` once it went out (nullopt) or failed. One write at a time.
  virtual void write(std::vector<std::uint8_t> report, std::function<void(std::optional<IoError>)> done) = 0;
  [[nodiscard]] virtual std::string description() const = 0;  // "2d80:8002 bus 1 address 7 serial …"
};

struct HidOpenRequest {
  // "BUS:ADDRESS" (decimal, as lsusb prints them) or the device's USB serial number; empty: the first match.
  std::string device;
  std::uint16_t vendor_id = 0;                               // 0: any
  bool (*product_matches)(std::uint16_t product) = nullptr;  // null: any
};

class HidBackend {
 public:
  virtual ~HidBackend() = default;
  // not_found when no such device is plugged in, open_failed when it cannot be opened or claimed.
  virtual tl::expected<std::unique_ptr<HidDevice>, IoError> open(const HidOpenRequest& request) = 0;
};

// The real one, through libusb.
[[nodiscard]] std::shared_ptr<HidBackend> libusb_hid_backend();

}  // namespace eboard::io
