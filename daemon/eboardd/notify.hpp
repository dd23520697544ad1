// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// systemd service notifications (sd_notify, systemd 252): READY=1 once serving, STATUS= lines,
// RELOADING=1 around a SIGHUP reload, STOPPING=1, and WATCHDOG=1 every half WATCHDOG_USEC when the unit
// sets WatchdogSec. Outside systemd (no NOTIFY_SOCKET) every call does nothing.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

namespace eboard::eboardd {

class Notifier {
 public:
  explicit Notifier(boost::asio::io_context& io);
  ~Notifier();

  void ready(const std::string& status);
  void status(const std::string& status);
  void reloading();
  void stopping();
  // Starts the watchdog pings if the service manager asked for them; returns the ping period.
  std::optional<std::chrono::microseconds> start_watchdog();

 private:
  void ping();
  boost::asio::steady_timer timer_;
  std::chrono::microseconds period_{0};
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace eboard::eboardd
