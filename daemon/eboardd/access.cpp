// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/access.hpp"

#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <stdexcept>

#include <boost/asio/ip/address.hpp>

namespace eboard::eboardd {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

bool is_ip(std::string_view s) {
  boost::system::error_code ec;
  boost::asio::ip::make_address(std::string(s), ec);
  return !ec;
}

// "host:port", "[v6]:port", a bare v6 address → the host (lower case, brackets and a final dot removed).
std::string host_part(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    auto end = authority.find(']');
    return lower(authority.substr(1, end == authority.npos ? authority.npos : end - 1));
  }
  std::string_view h = authority;
  if (std::count(h.begin(), h.end(), ':') == 1) h = h.substr(0, h.find(':'));
  if (!h.empty() && h.back() == '.') h.remove_suffix(1);
  return lower(h);
}

// Lower case, without the scheme's default port: what two spellings of one authority share.
std::string normalized_authority(std::string_view authority, std::string_view default_port) {
  std::string a = lower(authority);
  const std::string suffix = ":" + std::string(default_port);
  if (a.size() > suffix.size() && a.compare(a.size() - suffix.size(), suffix.size(), suffix) == 0 &&
      (a.front() == '[' || std::count(a.begin(), a.end(), ':') == 1))
    a.resize(a.size() - suffix.size());
  return a;
}

}  // namespace

bool host_acceptable(std::string_view host, const config::HttpConfig& http) {
  if (host.empty()) return true;
  const std::string h = host_part(host);
  // DNS rebinding needs a name: an address literal is the daemon's own.
  if (is_ip(h)) return true;
  if (h == "localhost" || (h.size() > 10 && h.compare(h.size() - 10, 10, ".localhost") == 0)) return true;
  return std::find(http.server_names.begin(), http.server_names.end(), h) != http.server_names.end();
}

bool origin_acceptable(std::string_view origin, std::string_view host, const config::HttpConfig& http) {
  if (origin.empty()) return true;
  std::string o = lower(origin);
  if (std::find(http.allowed_origins.begin(), http.allowed_origins.end(), o) != http.allowed_origins.end())
    return true;
  std::string_view default_port;
  std::string_view authority = o;
  if (authority.rfind("http://", 0) == 0) {
    authority.remove_prefix(7);
    default_port = "80";
  } else if (authority.rfind("https://", 0) == 0) {  // TLS ended by a proxy in front
    authority.remove_prefix(8);
    default_port = "443";
  } else {
    return false;  // "null" (sandboxed frames, files) and anything else
  }
  if (host.empty() || !host_acceptable(host, http)) return false;
  return normalized_authority(authority, default_port) == normalized_authority(host, default_port);
}

bool same_secret(std::string_view given, std::string_view want) {
  if (want.empty() || given.size() != want.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < want.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ want[i]);
  return diff == 0;
}

Right right_of_token(std::string_view token, const config::HttpConfig& http) {
  if (token.empty()) return Right::none;
  if (same_secret(token, http.token)) return Right::control;
  if (same_secret(token, http.read_token)) return Right::read;
  return Right::none;
}

std::optional<std::string> offered_ticket(std::string_view ws_protocols) {
  // A comma-separated list of tokens.
  while (!ws_protocols.empty()) {
    auto comma = ws_protocols.find(',');
    std::string_view p = ws_protocols.substr(0, comma);
    while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
    while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
    if (p.rfind(TICKET_PROTOCOL, 0) == 0) return std::string(p.substr(TICKET_PROTOCOL.size()));
    if (comma == std::string_view::npos) break;
    ws_protocols.remove_prefix(comma + 1);
  }
  return std::nullopt;
}

std::string Tickets::issue(Right right) {
  const auto now = Clock::now();
  std::erase_if(live_, [&](const auto& kv) { return kv.second.expires <= now; });
  // A page asks for one per connection: more than this outstanding is a loop gone wrong, not a need.
  constexpr std::size_t MAX_OUTSTANDING = 256;
  if (live_.size() >= MAX_OUTSTANDING) live_.erase(live_.begin());
  std::array<unsigned char, 24> raw{};
  std::size_t got = 0;
  while (got < raw.size()) {
    ssize_t n = ::getrandom(raw.data() + got, raw.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("getrandom failed");  // not on Linux ≥ 3.17
    got += std::size_t(n);
  }
  static constexpr char HEX[] = "0123456789abcdef";
  std::string t;
  for (unsigned char b : raw) {
    t.push_back(HEX[b >> 4]);
    t.push_back(HEX[b & 15]);
  }
  live_[t] = Entry{right, now + ttl_};
  return t;
}

Right Tickets::peek(std::string_view ticket) const {
  auto it = live_.find(ticket);
  return it != live_.end() && it->second.expires > Clock::now() ? it->second.right : Right::none;
}

Right Tickets::redeem(std::string_view ticket) {
  auto it = live_.find(ticket);
  if (it == live_.end()) return Right::none;
  const Entry e = it->second;
  live_.erase(it);
  return e.expires > Clock::now() ? e.right : Right::none;
}

}  // namespace eboard::eboardd
