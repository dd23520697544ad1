// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The LiveChess listener ([livechess] listen): HTTP GET /api/v1.0/eboards and the WebSocket at /api/v1.0
// (session.hpp per client), on the daemon's io_context through the same server as the main listener (its
// limits and budgets). The owner supplies the boards and what `setup` does, and calls boards_changed()
// when a board's game, clock or link changed; the feeds are then brought up to date once per loop turn
// (and compared once a second besides, for changes that come without an event).
// `flip` is kept here: it is what the client says of how the board stands, and is echoed in the feeds.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <tl/expected.hpp>

#include "daemon/http/server.hpp"
#include "daemon/livechess/protocol.hpp"

namespace eboard::livechess {

struct Backend {
  // Every board, flipped left false (the listener fills it in).
  std::function<std::vector<BoardView>()> boards;
  // A new game on the board from `fen`; an error to answer otherwise.
  std::function<tl::expected<void, std::string>(const BoardView& board, const std::string& fen)> setup;
  std::function<std::int64_t()> now_ms;
};

struct ListenerOptions {
  http::ServerOptions http;
  bool control = true;  // setup and flip are obeyed (else answered with an error)
  // A request with an Origin header (a web page) must come from one of these (lower case; "*": any).
  std::vector<std::string> allowed_origins;
};

struct ListenerCore;

class Listener {
 public:
  Listener(boost::asio::io_context& io, ListenerOptions options, Backend backend);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  tl::expected<boost::asio::ip::tcp::endpoint, std::string> listen(const std::string& host,
                                                                   std::uint16_t port);
  void stop();
  // Some board changed: every subscriber is sent what changed for it, from the io_context, once however
  // many calls come in one loop turn (and after the answer to a request that caused it).
  void boards_changed();
  std::size_t clients() const;

 private:
  std::shared_ptr<ListenerCore> core_;
};

// The HTTP side, without sockets (for tests): GET /api/v1.0/eboards and friends; 101 for the WebSocket.
http::Response route(const http::Request& r, const std::vector<BoardView>& boards);
// Whether a request's Origin (empty: none) may use the API.
bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed);

}  // namespace eboard::livechess
