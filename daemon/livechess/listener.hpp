// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The LiveChess listener ([livechess] listen): HTTP GET /api/v1.0/eboards (and the tournament, round and
// game calls) and the WebSocket at /api/v1.0 (session.hpp per client), on the daemon's io_context through
// the same server class as the main listener, with options of its own: a LiveChess client stays connected
// as long as it likes (lichess' DGT page replays a reconnect's first feed as new moves).
// The owner supplies the boards and what `setup` does, and calls boards_changed() when a board's game,
// clock or link changed; the feeds are then brought up to date once per loop turn (and compared once a
// second besides, for changes that come without an event).
// Who may do what: a request must name this computer in its Host header (host_allowed) and, from a web
// page, come from an allowed origin. `setup` and `flip` are obeyed from a client whose WebSocket upgrade
// carried the control token (Authorization: Bearer), or from any when `control` is set. With `delayed`,
// a client without a token (control or read) sees the boards as the public does, behind the broadcast delay.
// `flip` is kept here: it is what the client says of how the board stands, and is echoed in the feeds.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <tl/expected.hpp>

#include "daemon/http/server.hpp"
#include "daemon/livechess/protocol.hpp"

namespace eboard::livechess {

struct Backend {
  // Every board, flipped left false (the listener fills it in). `live` false: as the public sees them,
  // behind the broadcast delay.
  std::function<std::vector<BoardView>(bool live)> boards;
  // The event, its current round and its boards' games, for the tournament calls (none: no tournament).
  std::function<RoundView(bool live)> round;
  // A new game on the board from `fen`; an error to answer otherwise.
  std::function<tl::expected<void, std::string>(const BoardView& board, const std::string& fen)> setup;
  std::function<std::int64_t()> now_ms;
};

enum class TokenRight { none, read, control };

struct ListenerOptions {
  // Its own, not the main listener's: no lifetime (ws_max_lifetime zero), its own client budget.
  http::ServerOptions http = default_server_options();
  bool control = false;  // setup and flip are obeyed from every client (else only with the token)
  // What a token allows (empty function: no token is known).
  std::function<TokenRight(std::string_view token)> token_right;
  // Whether a Host header names this computer (empty function: any).
  std::function<bool(std::string_view host)> host_allowed;
  // Clients without the control token are served the boards behind the broadcast delay.
  bool delayed = false;
  // The boards listed, by eboardd id, in this order (empty: every board, in the owner's order).
  std::vector<std::string> boards;
  // A request with an Origin header (a web page) must come from one of these (lower case; "*": any).
  std::vector<std::string> allowed_origins;

  static http::ServerOptions default_server_options();
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
// `round`: what the tournament calls answer with.
http::Response route(const http::Request& r, const std::vector<BoardView>& boards,
                     const RoundView& round = {});
// Who a request is: refused (Host, Origin) with the answer to give, or admitted with its rights.
struct Admission {
  std::optional<http::Response> refused;
  bool control = false;  // setup and flip obeyed
  bool live = true;      // the boards as they are (else behind the delay)
};
Admission admit(const http::Request& r, const ListenerOptions& o);
// `boards` filtered and ordered as `ids` says (empty: as they are).
std::vector<BoardView> chosen_boards(std::vector<BoardView> boards, const std::vector<std::string>& ids);
// Whether a request's Origin (empty: none) may use the API.
bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed);

}  // namespace eboard::livechess
