// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// eboardd's HTTP and WebSocket server (Boost.Beast) on the daemon's single io_context.
//
// Hostile or broken clients cost little and never stall a board: requests have header and body limits and
// must arrive whole within `request_timeout` (so a slowloris connection is closed), malformed requests get
// 400 and the connection is closed, and every WebSocket client has a bounded send queue: a client that
// falls `ws_queue_bytes` behind is dropped. Broadcasting only queues; no board ever waits for a socket. A
// response that reads files (a capture export) is made on a worker thread (Response::deferred), so the loop
// answers /status meanwhile; a long one is streamed (Response::stream) in pieces made there too.
//
// Connection budgets keep a crowd from locking the arbiter out. A connection is *pending* until a whole
// request has arrived (and again between keep-alive requests); pending connections are capped in total and
// per client address, and when a cap is reached the oldest pending one is closed, never the newcomer, so a
// real request always gets in however many slow clients hold on. A parsed request is then one of three
// kinds: control (ServerHandlers::is_control), which is always served; a WebSocket viewer, capped in total
// and per address and closed after `ws_max_lifetime` (clients reconnect); or a reader, whose responses
// being written are capped (503 beyond). A streamed response (Response::stream) holds its reader slot until
// its last piece is written.
//
// Routing is the owner's: on_request gets every parsed request (a WebSocket upgrade too, with
// `websocket = true`; answering it with status 101 accepts it). An accepted WebSocket client is sent
// ws_snapshot()'s messages and then every broadcast() of its feed, in order, with nothing lost in between.
//
// A WebSocket client may also talk (a request/response protocol such as the LiveChess API): with
// on_ws_message set, each text message it sends is handed over with the client's number, answered (if at
// all) with send_to(), and on_ws_closed tells when that number is gone. Without it what clients say is
// ignored.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <tl/expected.hpp>

namespace eboard::http {

struct Request {
  std::string method;  // GET, POST …
  std::string target;  // as sent
  std::string path;    // the target before '?'
  std::string query;   // after '?'
  std::string body;
  std::string content_type;
  std::string authorization;  // the Authorization header
  std::string host;           // the Host header, as sent
  std::string origin;         // the Origin header (browsers send it), empty if none
  std::string ws_protocols;   // Sec-WebSocket-Protocol, as sent
  std::string if_none_match;  // If-None-Match: the ETags of the copies the client holds
  std::string remote;         // peer address:port
  bool websocket = false;     // an upgrade request

  // The value of `key` in the query string (percent-decoded), if present.
  std::optional<std::string> query_value(std::string_view key) const;
  // The token of "Authorization: Bearer <token>"; empty without one. A token in the URL is not looked at
  // here: URLs end up in logs, histories and Referer headers.
  std::string token() const;
};

struct Response {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Set: the response is this function's, called on one of the server's worker threads while the loop
  // goes on; the connection waits for it. It must touch nothing the loop owns (it reads files).
  std::function<Response()> deferred;
  // Set in a deferred response: the body is made by this function instead, piece after piece on a worker
  // thread until it returns an empty string, each piece written (chunked transfer coding) before the next
  // is asked for: a long body is never whole in memory. It is called by one thread at a time. Should it
  // throw, the connection is closed (the status was sent already).
  std::function<std::string()> stream;
  // A WebSocket accepted by this response (status 101) is sent the broadcasts of this feed only (the owner
  // numbers its feeds: e.g. live and delayed).
  int ws_feed = 0;

  static Response text(unsigned status, std::string body);
  static Response json(unsigned status, std::string json_text);
};

struct ServerOptions {
  std::size_t header_limit = 8 * 1024;
  std::size_t body_limit = 64 * 1024;
  // A larger limit for the requests ServerHandlers::large_body admits (a file uploaded by the operator).
  std::size_t large_body_limit = 0;
  std::chrono::milliseconds request_timeout{10000};  // a whole request (or the wait for the next one)
  std::chrono::milliseconds write_timeout{10000};    // a whole HTTP response
  std::size_t max_pending = 256;             // connections without a whole request yet: the oldest goes
  std::size_t max_pending_per_address = 64;  // beyond, per client address: that address's oldest goes
  std::size_t max_clients = 64;              // reader responses being written at once (503 beyond)
  std::size_t max_clients_per_address = 32;
  std::size_t max_ws_clients = 256;  // WebSocket viewers (503 beyond)
  std::size_t max_ws_per_address = 64;
  std::chrono::milliseconds ws_max_lifetime{std::chrono::hours(4)};  // then closed (going away); 0: never
  std::size_t ws_queue_bytes = 1u << 20;
  std::size_t ws_read_limit = 4096;                  // clients have nothing big to say
  std::chrono::milliseconds ws_idle_timeout{60000};  // pings at half of it; no answer by then: closed
  std::chrono::milliseconds ws_handshake_timeout{10000};
  // Refused requests (401, 403, 503 busy, malformed) are logged with the peer, method, path and status,
  // at most `reject_log_burst` a `reject_log_window`; the rest of a window is one "N more" line at its end
  // (or at stop()), so that a flood of them cannot fill the log.
  std::size_t reject_log_burst = 20;
  std::chrono::milliseconds reject_log_window{1000};
  // Threads that make deferred responses (started with the first one).
  unsigned worker_threads = 2;
};

struct ServerHandlers {
  std::function<Response(const Request&)> on_request;
  // The first messages of a WebSocket client accepted into `feed`.
  std::function<std::vector<std::string>(const Request&, int feed)> ws_snapshot;
  // A control request (served whatever the other budgets say); none without it.
  std::function<bool(const Request&)> is_control;
  // Whether a request, known by its header (no body yet), may carry up to ServerOptions::large_body_limit
  // bytes of body; none without it.
  std::function<bool(const Request&)> large_body;
  // A text message from WebSocket client `client` (a number unique for the server's life); binary
  // messages are not handed over.
  std::function<void(std::uint64_t client, std::string message)> on_ws_message;
  // WebSocket client `client` is gone (called once, for every client, on_ws_message set or not).
  std::function<void(std::uint64_t client)> on_ws_closed;
};

struct ServerStats {
  std::uint64_t connections = 0;  // accepted in total
  std::uint64_t requests = 0;
  std::uint64_t rejected_busy = 0;    // 503: a reader or viewer budget was full
  std::uint64_t evicted_pending = 0;  // pending connections closed to make room for newer ones
  std::uint64_t bad_requests = 0;     // malformed, too large
  std::uint64_t timeouts = 0;
  std::uint64_t ws_accepted = 0;
  std::uint64_t ws_dropped_slow = 0;
  std::uint64_t ws_messages = 0;  // queued to clients
};

struct ServerState;

class Server {
 public:
  Server(boost::asio::io_context& io, ServerOptions options, ServerHandlers handlers);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and starts accepting. Port 0 takes any free port: the result says which.
  tl::expected<boost::asio::ip::tcp::endpoint, std::string> listen(const std::string& host,
                                                                   std::uint16_t port);
  // Closes the listening socket and every connection.
  void stop();
  // Queues a text message to every WebSocket client of `feed`.
  void broadcast(std::string message, int feed = 0);
  // Queues a text message to one WebSocket client; false if it is gone. The send queue's limit holds.
  bool send_to(std::uint64_t client, std::string message);
  // The feed WebSocket client `client` was accepted into (Response::ws_feed); none if it is gone.
  std::optional<int> feed_of(std::uint64_t client) const;

  std::size_t open_connections() const;
  std::size_t websocket_clients() const;
  std::size_t pending_connections() const;
  const ServerStats& stats() const;

 private:
  std::shared_ptr<ServerState> state_;
};

}  // namespace eboard::http
