// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/notify.hpp"

#include <systemd/sd-daemon.h>
#include <time.h>

#include <cstdint>

namespace eboard::eboardd {

Notifier::Notifier(boost::asio::io_context& io) : timer_(io) {}

Notifier::~Notifier() {
  *alive_ = false;
  timer_.cancel();
}

void Notifier::ready(const std::string& status) { sd_notifyf(0, "READY=1\nSTATUS=%s", status.c_str()); }

void Notifier::status(const std::string& status) { sd_notifyf(0, "STATUS=%s", status.c_str()); }

void Notifier::reloading() {
  // MONOTONIC_USEC is what Type=notify-reload (systemd 253+) checks; 252 ignores it.
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  auto usec = std::uint64_t(ts.tv_sec) * 1000000u + std::uint64_t(ts.tv_nsec) / 1000u;
  sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu", static_cast<unsigned long long>(usec));
}

void Notifier::stopping() { sd_notify(0, "STOPPING=1"); }

std::optional<std::chrono::microseconds> Notifier::start_watchdog() {
  std::uint64_t usec = 0;
  // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID (if set) is us.
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return std::nullopt;
  period_ = std::chrono::microseconds(usec / 2);
  ping();
  return period_;
}

void Notifier::ping() {
  // From the event loop: if the loop hangs, the pings stop and systemd restarts us.
  sd_notify(0, "WATCHDOG=1");
  timer_.expires_after(period_);
  timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    ping();
  });
}

}  // namespace eboard::eboardd
