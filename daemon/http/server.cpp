// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/http/server.hpp"

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <spdlog/spdlog.h>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

namespace eboard::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace websocket = boost::beast::websocket;
using tcp = asio::ip::tcp;

namespace {

std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(char(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> Request::query_value(std::string_view key) const {
  std::string_view q = query;
  while (!q.empty()) {
    auto amp = q.find('&');
    std::string_view pair = q.substr(0, amp);
    auto eq = pair.find('=');
    if (percent_decode(pair.substr(0, eq)) == key)
      return eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1));
    if (amp == std::string_view::npos) break;
    q.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

std::string Request::token() const {
  std::string_view a = authorization;
  if (a.size() > 7 && (a.substr(0, 7) == "Bearer " || a.substr(0, 7) == "bearer ")) {
    a.remove_prefix(7);
    while (!a.empty() && a.front() == ' ') a.remove_prefix(1);
    while (!a.empty() && a.back() == ' ') a.remove_suffix(1);
    return std::string(a);
  }
  return {};
}

Response Response::text(unsigned status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  if (!r.body.empty() && r.body.back() != '\n') r.body += '\n';
  return r;
}

Response Response::json(unsigned status, std::string json_text) {
  Response r;
  r.status = status;
  r.content_type = "application/json";
  r.body = std::move(json_text);
  if (!r.body.empty() && r.body.back() != '\n') r.body += '\n';
  return r;
}

class HttpSession;
class WsSession;

// The client's address without the port: what the per-address budgets count.
std::string address_of(const tcp::socket& socket) {
  beast::error_code ec;
  auto ep = socket.remote_endpoint(ec);
  if (ec) return {};
  auto a = ep.address();
  if (a.is_v6() && a.to_v6().is_v4_mapped()) a = a.to_v6().to_v4();  // one client, one key
  return a.to_string();
}

// What one client address holds; the entry goes when it holds nothing.
struct AddressUse {
  std::size_t pending = 0;
  std::size_t readers = 0;
  std::size_t viewers = 0;
  bool empty() const { return pending == 0 && readers == 0 && viewers == 0; }
};

struct ServerState : std::enable_shared_from_this<ServerState> {
  asio::io_context& io;
  ServerOptions options;
  ServerHandlers handlers;
  std::optional<tcp::acceptor> acceptor;
  asio::steady_timer retry;  // after an accept error (out of file descriptors …): no busy loop
  ServerStats stats;
  std::unordered_set<HttpSession*> http;
  std::unordered_set<WsSession*> ws;
  std::unordered_map<std::uint64_t, WsSession*> ws_by_id;  // for send_to()
  std::uint64_t ws_seq = 0;
  std::size_t open = 0;
  bool stopped = false;

  // The connection budgets (see server.hpp). `pending` is ordered by age: its first entry is the oldest.
  std::map<std::uint64_t, HttpSession*> pending;
  std::uint64_t pending_seq = 0;
  std::size_t readers = 0;
  std::unordered_map<std::string, AddressUse> by_address;

  AddressUse& use_of(const std::string& address) { return by_address[address]; }
  void forget_if_idle(const std::string& address) {
    auto it = by_address.find(address);
    if (it != by_address.end() && it->second.empty()) by_address.erase(it);
  }
  // Before a new connection from `address` becomes pending: the oldest pending one of that address goes if
  // the address is at its cap, and the oldest of all if the total is.
  void make_room_for_pending(const std::string& address);

  // The rejection log's rate limit (ServerOptions::reject_log_burst).
  std::chrono::steady_clock::time_point reject_window{};
  std::size_t rejects_logged = 0;
  std::size_t rejects_suppressed = 0;
  asio::steady_timer reject_flush;

  // Deferred responses (Response::deferred) are made here, off the loop.
  std::unique_ptr<asio::thread_pool> workers;
  asio::thread_pool& worker_pool() {
    if (!workers) workers = std::make_unique<asio::thread_pool>(std::max(1u, options.worker_threads));
    return *workers;
  }

  ServerState(asio::io_context& i, ServerOptions o, ServerHandlers h)
      : io(i), options(o), handlers(std::move(h)), retry(i), reject_flush(i) {}
  void accept();
  // A refused request, for the operator: who was refused what. `path` is without the query string (a
  // ?token= stays out of the log); no header is logged (Authorization neither).
  void log_rejected(const std::string& remote, std::string_view method, std::string_view path,
                    unsigned status);
  void flush_rejected();
};

namespace {

// A client-chosen path on a log line: printable ASCII only (no forged lines, no terminal escapes), short.
std::string loggable(std::string_view s) {
  constexpr std::size_t MAX = 200;
  std::string out;
  for (char c : s.substr(0, MAX)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  if (s.size() > MAX) out += "...";
  return out.empty() ? "-" : out;
}

}  // namespace

void ServerState::log_rejected(const std::string& remote, std::string_view method, std::string_view path,
                               unsigned status) {
  const auto now = std::chrono::steady_clock::now();
  if (now - reject_window >= options.reject_log_window) {
    flush_rejected();
    reject_window = now;
    rejects_logged = 0;
  }
  if (rejects_logged < options.reject_log_burst) {
    ++rejects_logged;
    spdlog::warn("http: refused {} {} from {}: {}", loggable(method), loggable(path),
                 remote.empty() ? "-" : remote, status);
    return;
  }
  if (rejects_suppressed++ > 0) return;
  // The first one over the limit: the count is logged when the window ends, even if no request follows.
  reject_flush.expires_at(reject_window + options.reject_log_window);
  reject_flush.async_wait([weak = weak_from_this()](beast::error_code ec) {
    if (auto self = weak.lock(); self && !ec) self->flush_rejected();
  });
}

void ServerState::flush_rejected() {
  if (rejects_suppressed == 0) return;
  spdlog::warn("http: ... {} more refused request{} not logged (at most {} every {} ms)", rejects_suppressed,
               rejects_suppressed == 1 ? "" : "s", options.reject_log_burst,
               options.reject_log_window.count());
  rejects_suppressed = 0;
}

namespace {

bhttp::response<bhttp::string_body> make_response(const Response& r, unsigned version, bool keep_alive) {
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(r.status), version};
  res.set(bhttp::field::server, "eboardd");
  res.set(bhttp::field::content_type, r.content_type);
  res.set(bhttp::field::cache_control, "no-store");
  for (const auto& [k, v] : r.headers) res.set(k, v);
  res.keep_alive(keep_alive);
  res.body() = r.body;
  res.prepare_payload();
  return res;
}

}  // namespace

class WsSession : public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(beast::tcp_stream&& stream, std::shared_ptr<ServerState> state, std::string address, int feed)
      : ws_(std::move(stream)),
        state_(std::move(state)),
        address_(std::move(address)),
        feed_(feed),
        lifetime_(state_->io),
        id_(++state_->ws_seq) {
    ++state_->open;
    state_->ws.insert(this);
    state_->ws_by_id.emplace(id_, this);
    ++state_->use_of(address_).viewers;
  }
  ~WsSession() {
    --state_->open;
    state_->ws.erase(this);
    state_->ws_by_id.erase(id_);
    --state_->use_of(address_).viewers;
    state_->forget_if_idle(address_);
    if (state_->handlers.on_ws_closed) state_->handlers.on_ws_closed(id_);
  }

  void start(bhttp::request<bhttp::string_body> req, const std::vector<std::string>& snapshot,
             const std::vector<std::pair<std::string, std::string>>& headers) {
    // The WebSocket layer has its own timeouts; the TCP stream's would cut idle but healthy clients.
    beast::get_lowest_layer(ws_).expires_never();
    websocket::stream_base::timeout t{};
    t.handshake_timeout = state_->options.ws_handshake_timeout;
    t.idle_timeout = state_->options.ws_idle_timeout;
    t.keep_alive_pings = true;
    ws_.set_option(t);
    // The owner's headers: a chosen Sec-WebSocket-Protocol must be echoed or browsers drop the connection.
    ws_.set_option(websocket::stream_base::decorator([headers](websocket::response_type& res) {
      res.set(bhttp::field::server, "eboardd");
      for (const auto& [k, v] : headers) res.set(k, v);
    }));
    ws_.read_message_max(state_->options.ws_read_limit);
    ws_.text(true);
    ++state_->stats.ws_accepted;
    // The snapshot may be larger than the limit (many boards, long games): it does not count against it.
    for (const auto& m : snapshot) {
      snapshot_bytes_ += m.size();
      queued_ += m.size();
      queue_.push_back(std::make_shared<const std::string>(m));
    }
    snapshot_messages_ = snapshot.size();
    req_ = std::move(req);
    ws_.async_accept(req_, [self = shared_from_this()](beast::error_code ec) { self->on_accept(ec); });
  }

  void send(std::shared_ptr<const std::string> msg) {
    if (closed_) return;
    if (queued_ - snapshot_bytes_ + msg->size() > state_->options.ws_queue_bytes) {
      ++state_->stats.ws_dropped_slow;
      close();
      return;
    }
    queued_ += msg->size();
    queue_.push_back(std::move(msg));
    ++state_->stats.ws_messages;
    if (accepted_) do_write();
  }

  int feed() const { return feed_; }

  void close() {
    if (closed_) return;
    closed_ = true;
    lifetime_.cancel();
    beast::get_lowest_layer(ws_).close();
  }

 private:
  void on_accept(beast::error_code ec) {
    if (ec) {
      close();
      return;
    }
    accepted_ = true;
    // A viewer does not hold its slot for ever: after the lifetime it is told "going away" and reconnects
    // (through the budgets again, and with its credentials checked again). Zero: no lifetime.
    if (state_->options.ws_max_lifetime.count() <= 0) {
      do_read();
      do_write();
      return;
    }
    lifetime_.expires_after(state_->options.ws_max_lifetime);
    lifetime_.async_wait([weak = weak_from_this()](beast::error_code e) {
      auto self = weak.lock();
      if (!self || e || self->closed_) return;
      self->ws_.async_close(websocket::close_code::going_away, [self](beast::error_code) { self->close(); });
    });
    do_read();
    do_write();
  }

  void do_read() {
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      if (ec) {
        self->close();
        return;
      }
      // Handed to the owner if it listens (a request/response protocol); else the stream is one-way.
      if (self->state_->handlers.on_ws_message && self->ws_.got_text() && !self->closed_)
        self->state_->handlers.on_ws_message(self->id_, beast::buffers_to_string(self->buffer_.data()));
      self->buffer_.consume(n);
      self->do_read();
    });
  }

  void do_write() {
    if (writing_ || closed_ || queue_.empty()) return;
    writing_ = true;
    ws_.async_write(asio::buffer(*queue_.front()),
                    [self = shared_from_this()](beast::error_code ec, std::size_t) {
                      self->writing_ = false;
                      if (ec) {
                        self->close();
                        return;
                      }
                      const std::size_t n = self->queue_.front()->size();
                      self->queued_ -= n;
                      if (self->snapshot_messages_ > 0) {
                        --self->snapshot_messages_;
                        self->snapshot_bytes_ -= n;
                      }
                      self->queue_.pop_front();
                      self->do_write();
                    });
  }

  websocket::stream<beast::tcp_stream> ws_;
  std::shared_ptr<ServerState> state_;
  std::string address_;
  int feed_;
  asio::steady_timer lifetime_;
  bhttp::request<bhttp::string_body> req_;
  beast::flat_buffer buffer_;
  std::deque<std::shared_ptr<const std::string>> queue_;
  std::size_t queued_ = 0;
  std::size_t snapshot_messages_ = 0;  // the first messages of the queue are the snapshot
  std::size_t snapshot_bytes_ = 0;
  std::uint64_t id_;
  bool accepted_ = false;
  bool writing_ = false;
  bool closed_ = false;
};

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket&& socket, std::shared_ptr<ServerState> state)
      : stream_(std::move(socket)), state_(std::move(state)) {
    ++state_->open;
    state_->http.insert(this);
    beast::error_code ec;
    auto ep = beast::get_lowest_layer(stream_).socket().remote_endpoint(ec);
    if (!ec) remote_ = ep.address().to_string() + ":" + std::to_string(ep.port());
    address_ = address_of(stream_.socket());
  }
  ~HttpSession() {
    leave_pending();
    release_reader();
    --state_->open;
    state_->http.erase(this);
    state_->forget_if_idle(address_);
  }

  void start() { do_read(); }
  void close() {
    beast::error_code ec;
    stream_.socket().close(ec);
  }
  const std::string& address() const { return address_; }
  // Bytes arrived and not read yet: its request is on the way in (its read's completion still queued
  // behind the accepts of a flood), not held back by a slow client.
  bool has_unread_bytes() const {
    beast::error_code ec;
    const std::size_t n = stream_.socket().available(ec);
    return !ec && n > 0;
  }

  // How long it has waited for a whole request (since enter_pending).
  std::chrono::steady_clock::duration pending_for() const {
    return std::chrono::steady_clock::now() - pending_since_;
  }
  // Waiting for a whole request: evictable, oldest first.
  void enter_pending() {
    leave_pending();
    pending_seq_ = ++state_->pending_seq;
    pending_since_ = std::chrono::steady_clock::now();
    state_->pending.emplace(pending_seq_, this);
    ++state_->use_of(address_).pending;
  }
  void leave_pending() {
    if (pending_seq_ == 0) return;
    state_->pending.erase(pending_seq_);
    --state_->use_of(address_).pending;
    pending_seq_ = 0;
  }

 private:
  void release_reader() {
    if (!reader_) return;
    reader_ = false;
    --state_->readers;
    --state_->use_of(address_).readers;
  }
  bool reader_budget_full() {
    return state_->readers >= state_->options.max_clients ||
           state_->use_of(address_).readers >= state_->options.max_clients_per_address;
  }
  bool viewer_budget_full() {
    return state_->ws.size() >= state_->options.max_ws_clients ||
           state_->use_of(address_).viewers >= state_->options.max_ws_per_address;
  }
  void busy(const Request& r, unsigned version) {
    ++state_->stats.rejected_busy;
    state_->log_rejected(remote_, r.method, r.path, 503);
    Response res = Response::text(503, "too many clients");
    res.headers.emplace_back("Retry-After", "5");
    write(make_response(res, version, false));
  }

  void do_read() {
    enter_pending();
    parser_.emplace();
    parser_->header_limit(std::uint32_t(state_->options.header_limit));
    stream_.expires_after(state_->options.request_timeout);
    if (!large_bodies()) {
      parser_->body_limit(state_->options.body_limit);
      bhttp::async_read(
          stream_, buffer_, *parser_,
          [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
      return;
    }
    // The header first, under the larger limit (Beast checks a Content-Length against the limit as the
    // header ends); the request's own limit is then decided from its header and applied to the body.
    parser_->body_limit(state_->options.large_body_limit);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             [self = shared_from_this()](beast::error_code ec, std::size_t) {
                               if (ec) return self->on_read(ec);
                               self->on_header();
                             });
  }

  bool large_bodies() const {
    return state_->handlers.large_body && state_->options.large_body_limit > state_->options.body_limit;
  }

  void on_header() {
    const auto& h = parser_->get();
    Request r;
    r.method = std::string(h.method_string());
    r.target = std::string(h.target());
    r.path = r.target.substr(0, r.target.find('?'));
    r.content_type = std::string(h[bhttp::field::content_type]);
    r.authorization = std::string(h[bhttp::field::authorization]);
    r.host = std::string(h[bhttp::field::host]);
    r.remote = remote_;
    const std::size_t limit =
        state_->handlers.large_body(r) ? state_->options.large_body_limit : state_->options.body_limit;
    if (auto length = parser_->content_length(); length && *length > limit) {
      leave_pending();
      return fail(413, "request body too large");
    }
    parser_->body_limit(limit);
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    leave_pending();
    if (ec == bhttp::error::end_of_stream || ec == asio::error::operation_aborted) return close();
    if (ec == beast::error::timeout) {
      ++state_->stats.timeouts;
      return close();
    }
    if (ec == bhttp::error::header_limit) return fail(431, "request headers too large");
    if (ec == bhttp::error::body_limit) return fail(413, "request body too large");
    if (ec && ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category())
      return fail(400, "malformed request: " + ec.message());
    if (ec) return close();  // reset, broken pipe …: nobody to answer

    ++state_->stats.requests;
    bhttp::request<bhttp::string_body> req = parser_->release();
    Request r;
    r.method = std::string(req.method_string());
    r.target = std::string(req.target());
    auto q = r.target.find('?');
    r.path = r.target.substr(0, q);
    if (q != std::string::npos) r.query = r.target.substr(q + 1);
    r.body = req.body();
    r.content_type = std::string(req[bhttp::field::content_type]);
    r.authorization = std::string(req[bhttp::field::authorization]);
    r.host = std::string(req[bhttp::field::host]);
    r.origin = std::string(req[bhttp::field::origin]);
    r.ws_protocols = std::string(req[bhttp::field::sec_websocket_protocol]);
    r.if_none_match = std::string(req[bhttp::field::if_none_match]);
    r.remote = remote_;
    r.websocket = websocket::is_upgrade(req);

    const bool control = state_->handlers.is_control && state_->handlers.is_control(r);
    if (!control && !r.websocket) {
      if (reader_budget_full()) return busy(r, req.version());
      reader_ = true;
      ++state_->readers;
      ++state_->use_of(address_).readers;
    }
    Response res;
    try {
      res = state_->handlers.on_request ? state_->handlers.on_request(r) : Response::text(404, "not found");
    } catch (const std::exception& e) {
      // A handler's bug (a JSON serializer given text that is not UTF-8 …) costs one answer, not the daemon.
      spdlog::error("http: {} {}: {}", r.method, r.path.substr(0, 200), e.what());
      res = Response::text(500, std::string("cannot make the response: ") + e.what());
    }
    if (r.websocket && res.status == 101) {
      // The arbiter's own viewers (control) are never turned away; the crowd shares its budget.
      if (!control && viewer_budget_full()) return busy(r, req.version());
      // Taken over by a WebSocket session: joins the broadcast set now, with its snapshot queued first,
      // so no event falls between the snapshot and the live stream.
      std::vector<std::string> snapshot;
      if (state_->handlers.ws_snapshot) snapshot = state_->handlers.ws_snapshot(r, res.ws_feed);
      auto ws = std::make_shared<WsSession>(std::move(stream_), state_, address_, res.ws_feed);
      ws->start(std::move(req), snapshot, res.headers);
      return;
    }
    if (res.status == 101) res = Response::text(400, "not a WebSocket upgrade request");
    if (res.deferred) return defer(std::move(res.deferred), req.version(), req.keep_alive());
    if (res.status == 401 || res.status == 403 || res.status == 415 || res.status == 421)
      state_->log_rejected(remote_, r.method, r.path, res.status);
    write(make_response(res, req.version(), req.keep_alive() && res.status < 400));
  }

  // The response made on a worker thread, written from the loop.
  void defer(std::function<Response()> work, unsigned version, bool keep_alive) {
    auto loop = stream_.get_executor();
    asio::post(state_->worker_pool(), [self = shared_from_this(), loop, work = std::move(work), version,
                                       keep_alive]() mutable {
      Response res;
      try {
        res = work();
      } catch (const std::exception& e) {
        res = Response::text(500, std::string("cannot make the response: ") + e.what());
      }
      // The session goes to the loop with its response: it is never released on a worker thread.
      asio::post(loop, [self = std::move(self), res = std::move(res), version, keep_alive]() mutable {
        if (self->state_->stopped) return self->close();
        if (res.stream) return self->write_streamed(std::move(res), version);
        self->write(make_response(res, version, keep_alive && res.status < 400));
      });
    });
  }

  // A streamed response: its head, then each piece made on a worker thread and written from the loop, one
  // at a time; the connection is closed after the last.
  void write_streamed(Response res, unsigned version) {
    auto head =
        std::make_shared<bhttp::response<bhttp::empty_body>>(static_cast<bhttp::status>(res.status), version);
    head->set(bhttp::field::server, "eboardd");
    head->set(bhttp::field::content_type, res.content_type);
    head->set(bhttp::field::cache_control, "no-store");
    for (const auto& [k, v] : res.headers) head->set(k, v);
    head->keep_alive(false);
    head->chunked(true);
    auto serializer = std::make_shared<bhttp::response_serializer<bhttp::empty_body>>(*head);
    stream_.expires_after(state_->options.write_timeout);
    bhttp::async_write_header(stream_, *serializer,
                              [self = shared_from_this(), head, serializer, pieces = std::move(res.stream)](
                                  beast::error_code ec, std::size_t) mutable {
                                if (ec) return self->end_stream();
                                self->next_piece(std::move(pieces));
                              });
  }

  void next_piece(std::function<std::string()> pieces) {
    auto loop = stream_.get_executor();
    asio::post(
        state_->worker_pool(), [self = shared_from_this(), loop, pieces = std::move(pieces)]() mutable {
          std::optional<std::string> piece;
          try {
            piece = pieces();
          } catch (const std::exception& e) {
            spdlog::warn("http: a streamed response to {} ends early: {}", self->remote_, e.what());
          }
          // The session goes to the loop: it is never released on a worker thread.
          asio::post(
              loop, [self = std::move(self), pieces = std::move(pieces), piece = std::move(piece)]() mutable {
                if (self->state_->stopped || !piece) return self->end_stream();
                self->stream_.expires_after(self->state_->options.write_timeout);
                if (piece->empty()) {
                  asio::async_write(self->stream_, bhttp::make_chunk_last(),
                                    [self](beast::error_code, std::size_t) { self->end_stream(); });
                  return;
                }
                auto data = std::make_shared<std::string>(std::move(*piece));
                asio::async_write(
                    self->stream_, bhttp::make_chunk(asio::buffer(*data)),
                    [self, data, pieces = std::move(pieces)](beast::error_code ec, std::size_t) mutable {
                      if (ec) return self->end_stream();
                      self->next_piece(std::move(pieces));
                    });
              });
        });
  }

  void end_stream() {
    release_reader();
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    close();
  }

  void fail(unsigned status, const std::string& why) {
    ++state_->stats.bad_requests;
    state_->log_rejected(remote_, "-", "-", status);  // the request is not whole: nothing of it to trust
    write(make_response(Response::text(status, why), 11, false));
  }

  void write(bhttp::response<bhttp::string_body>&& res) {
    res_ = std::move(res);
    stream_.expires_after(state_->options.write_timeout);
    bhttp::async_write(stream_, res_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->release_reader();
      if (ec || !self->res_.keep_alive()) {
        beast::error_code ignored;
        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        return self->close();
      }
      self->do_read();
    });
  }

  beast::tcp_stream stream_;
  std::shared_ptr<ServerState> state_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  bhttp::response<bhttp::string_body> res_;
  std::string remote_;
  std::string address_;
  std::uint64_t pending_seq_ = 0;  // 0: not pending
  std::chrono::steady_clock::time_point pending_since_;
  bool reader_ = false;  // holds a reader slot
};

void ServerState::make_room_for_pending(const std::string& address) {
  auto evict = [this](HttpSession* s) {
    ++stats.evicted_pending;
    s->leave_pending();
    s->close();  // its read ends with operation_aborted and the session goes
  };
  // The oldest of `address` (any address when empty) whose bytes have all been read and that has had a
  // moment to send its request: a connection with bytes waiting sent its request and is about to be heard
  // (a control request accepted amid a churn of slow clients from the same address, its read not yet run),
  // and one just accepted may not have sent it yet (the same request, between its connect and its send:
  // http_flood_test's control request closed unanswered). Failing one, the oldest.
  auto oldest = [this](const std::string& of) -> HttpSession* {
    constexpr auto moment = std::chrono::milliseconds(500);
    HttpSession* first = nullptr;
    for (auto [seq, s] : pending) {
      if (!of.empty() && s->address() != of) continue;
      if (!first) first = s;
      if (!s->has_unread_bytes() && s->pending_for() >= moment) return s;
    }
    return first;
  };
  if (use_of(address).pending >= options.max_pending_per_address)
    if (HttpSession* s = oldest(address)) evict(s);
  if (!pending.empty() && pending.size() >= options.max_pending)
    if (HttpSession* s = oldest({})) evict(s);
}

void ServerState::accept() {
  if (stopped || !acceptor) return;
  acceptor->async_accept([self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || self->stopped) return;
    if (ec) {
      self->retry.expires_after(std::chrono::milliseconds(100));
      self->retry.async_wait([self](beast::error_code e) {
        if (!e) self->accept();
      });
      return;
    }
    ++self->stats.connections;
    // Every connection is taken: room is made among the pending ones, oldest first, so a client that
    // sends its request at once is always heard.
    self->make_room_for_pending(address_of(socket));
    std::make_shared<HttpSession>(std::move(socket), self)->start();
    self->accept();
  });
}

Server::Server(asio::io_context& io, ServerOptions options, ServerHandlers handlers)
    : state_(std::make_shared<ServerState>(io, options, std::move(handlers))) {}

Server::~Server() {
  stop();
  // Responses being made finish; what they post is dropped with the io_context.
  if (state_->workers) state_->workers->join();
}

tl::expected<tcp::endpoint, std::string> Server::listen(const std::string& host, std::uint16_t port) {
  beast::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (ec) return tl::unexpected("bad listen address '" + host + "': " + ec.message());
  tcp::endpoint ep{addr, port};
  std::string where = (addr.is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(port);
  tcp::acceptor acc(state_->io);
  acc.open(ep.protocol(), ec);
  if (!ec) acc.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acc.bind(ep, ec);
  if (ec) return tl::unexpected("cannot listen on " + where + ": " + ec.message());
  acc.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return tl::unexpected("cannot listen on " + where + ": " + ec.message());
  tcp::endpoint bound = acc.local_endpoint(ec);
  state_->acceptor.emplace(std::move(acc));
  state_->stopped = false;
  state_->accept();
  return bound;
}

void Server::stop() {
  if (!state_ || state_->stopped) return;
  state_->stopped = true;
  state_->retry.cancel();
  state_->reject_flush.cancel();
  state_->flush_rejected();
  if (state_->acceptor) {
    beast::error_code ec;
    state_->acceptor->close(ec);
  }
  // Copies: closing may end a session (and erase it from the set) only later, from its handler.
  for (HttpSession* s : std::vector<HttpSession*>(state_->http.begin(), state_->http.end())) s->close();
  for (WsSession* s : std::vector<WsSession*>(state_->ws.begin(), state_->ws.end())) s->close();
}

void Server::broadcast(std::string message, int feed) {
  if (state_->ws.empty()) return;
  auto msg = std::make_shared<const std::string>(std::move(message));
  for (WsSession* s : std::vector<WsSession*>(state_->ws.begin(), state_->ws.end()))
    if (s->feed() == feed) s->send(msg);
}

bool Server::send_to(std::uint64_t client, std::string message) {
  auto it = state_->ws_by_id.find(client);
  if (it == state_->ws_by_id.end()) return false;
  it->second->send(std::make_shared<const std::string>(std::move(message)));
  return true;
}

std::optional<int> Server::feed_of(std::uint64_t client) const {
  auto it = state_->ws_by_id.find(client);
  if (it == state_->ws_by_id.end()) return std::nullopt;
  return it->second->feed();
}

std::size_t Server::open_connections() const { return state_->open; }
std::size_t Server::websocket_clients() const { return state_->ws.size(); }
std::size_t Server::pending_connections() const { return state_->pending.size(); }
const ServerStats& Server::stats() const { return state_->stats; }

}  // namespace eboard::http
