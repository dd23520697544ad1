// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Who may use eboardd over HTTP. A request must name the daemon by a host it answers to (DNS rebinding
// otherwise lets any web page reach a loopback daemon), a browser page must be of the daemon's own origin
// or an allowed one, and rights come from a token in the Authorization header: the control token
// controls and reads, the read token only reads. A browser cannot put a header on a WebSocket, so a page
// trades its token for a short-lived, single-use ticket and offers it as a WebSocket subprotocol.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "daemon/config/config.hpp"

namespace eboard::eboardd {

enum class Right { none, read, control };

// The Host header names the daemon: empty (HTTP/1.0), an IP address, a loopback name or a server_name.
bool host_acceptable(std::string_view host, const config::HttpConfig& http);
// No Origin (not a browser), the daemon's own origin (the one `host` names), or an allowed origin.
bool origin_acceptable(std::string_view origin, std::string_view host, const config::HttpConfig& http);
// Equal, without an early exit on the first difference (timing must not tell how much of a guess is right).
bool same_secret(std::string_view given, std::string_view want);
// What a token allows.
Right right_of_token(std::string_view token, const config::HttpConfig& http);
// The ticket a WebSocket client offers as the subprotocol "eboard-ticket.<ticket>", if any.
std::optional<std::string> offered_ticket(std::string_view ws_protocols);
inline constexpr std::string_view TICKET_PROTOCOL = "eboard-ticket.";

class Tickets {
 public:
  explicit Tickets(std::chrono::milliseconds ttl = std::chrono::seconds(30)) : ttl_(ttl) {}
  // A new random ticket worth `right` for the next `ttl`.
  std::string issue(Right right);
  // The ticket's right, once: it is used up. none if unknown or expired.
  Right redeem(std::string_view ticket);
  // The ticket's right without using it up (none if unknown or expired).
  Right peek(std::string_view ticket) const;
  // Tickets issued under tokens that changed must go with them.
  void clear() { live_.clear(); }
  std::size_t outstanding() const { return live_.size(); }

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    Right right;
    Clock::time_point expires;
  };
  std::chrono::milliseconds ttl_;
  std::map<std::string, Entry, std::less<>> live_;
};

}  // namespace eboard::eboardd
