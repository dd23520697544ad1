// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/livechess/listener.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "daemon/livechess/session.hpp"

namespace eboard::livechess {

using nlohmann::json;

namespace {

constexpr std::string_view API = "/api/v1.0";
constexpr std::chrono::seconds REFRESH{1};

json error_body(const std::string& message) { return json{{"error", message}}; }

}  // namespace

http::Response route(const http::Request& r, const std::vector<BoardView>& boards) {
  std::string path = r.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (r.websocket) {
    if (path != API) return http::Response::text(404, "the LiveChess WebSocket is at /api/v1.0");
    http::Response ok;
    ok.status = 101;
    return ok;
  }
  if (r.method != "GET") {
    auto res = http::Response::json(405, error_body("only GET here").dump());
    res.headers.push_back({"Allow", "GET"});
    return res;
  }
  if (path == std::string(API) + "/eboards") {
    json list = json::array();
    for (const auto& b : boards) list.push_back(eboard_json(b));
    return http::Response::json(200, list.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  // eboardd organises no LiveChess tournament: there are none to list, and none to look into.
  if (path == std::string(API) + "/tournaments") return http::Response::json(200, "[]");
  if (path.rfind(std::string(API) + "/tournament/", 0) == 0 ||
      path.rfind(std::string(API) + "/round/", 0) == 0 || path.rfind(std::string(API) + "/game/", 0) == 0)
    return http::Response::json(
        404, error_body("eboardd runs no LiveChess tournament; see /api/v1.0/eboards").dump());
  if (path == API)
    return http::Response::text(426, "/api/v1.0 is LiveChess' WebSocket: connect with a WebSocket client");
  return http::Response::json(
      404, error_body("not found (LiveChess API: /api/v1.0/eboards, WebSocket /api/v1.0)").dump());
}

bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed) {
  if (origin.empty()) return true;
  std::string o(origin);
  for (char& ch : o) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return std::any_of(allowed.begin(), allowed.end(),
                     [&](const std::string& a) { return a == "*" || a == o; });
}

// What the server's handlers reach: it outlives the Listener while connections close.
struct ListenerCore : Host, std::enable_shared_from_this<ListenerCore> {
  boost::asio::io_context& io;
  ListenerOptions options;
  Backend backend;
  std::unique_ptr<http::Server> server;
  std::map<std::uint64_t, Session> sessions;  // by the server's client number
  std::map<std::string, bool> flipped;        // by serial number: what clients said
  bool flush_posted = false;
  bool stopped = false;
  // Not every change is an event the owner sees (a new game begun by a control, by the demo or by the
  // pieces set up again publishes none): the feeds are also compared once a second.
  boost::asio::steady_timer refresh;

  ListenerCore(boost::asio::io_context& i, ListenerOptions o, Backend b)
      : io(i), options(std::move(o)), backend(std::move(b)), refresh(i) {}

  void schedule_refresh() {
    refresh.expires_after(REFRESH);
    refresh.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
      auto self = weak.lock();
      if (!self || ec || self->stopped) return;
      self->flush();
      self->schedule_refresh();
    });
  }

  std::vector<BoardView> boards() override {
    std::vector<BoardView> out = backend.boards ? backend.boards() : std::vector<BoardView>{};
    for (auto& b : out)
      if (auto it = flipped.find(b.serialnr); it != flipped.end()) b.flipped = it->second;
    return out;
  }
  tl::expected<void, std::string> setup(const BoardView& board, const std::string& fen) override {
    if (!options.control)
      return tl::unexpected(std::string("setup is refused here ([livechess] control = false)"));
    if (!backend.setup) return tl::unexpected(std::string("setup is not available"));
    auto ok = backend.setup(board, fen);
    if (ok) changed();
    return ok;
  }
  tl::expected<void, std::string> flip(const BoardView& board, bool f) override {
    if (!options.control)
      return tl::unexpected(std::string("flip is refused here ([livechess] control = false)"));
    flipped[board.serialnr] = f;
    changed();
    return {};
  }
  std::int64_t now_ms() override { return backend.now_ms ? backend.now_ms() : 0; }

  void on_message(std::uint64_t client, const std::string& text) {
    auto it = sessions.try_emplace(client, *this).first;
    for (auto& m : it->second.handle(text)) server->send_to(client, std::move(m));
  }

  void changed() {
    if (flush_posted || stopped) return;
    flush_posted = true;
    boost::asio::post(io, [weak = weak_from_this()] {
      if (auto self = weak.lock()) self->flush();
    });
  }

  void flush() {
    flush_posted = false;
    if (stopped || sessions.empty()) return;
    const std::vector<BoardView> now = boards();
    for (auto& [client, s] : sessions)
      for (auto& m : s.changed(now)) server->send_to(client, std::move(m));
  }
};

Listener::Listener(boost::asio::io_context& io, ListenerOptions options, Backend backend)
    : core_(std::make_shared<ListenerCore>(io, std::move(options), std::move(backend))) {
  http::ServerHandlers h;
  std::weak_ptr<ListenerCore> weak = core_;
  h.on_request = [weak](const http::Request& r) {
    auto self = weak.lock();
    if (!self) return http::Response::text(503, "stopping");
    // Any page in the hall computer's browser could reach a local port: only the listed sites' may.
    if (!origin_allowed(r.origin, self->options.allowed_origins))
      return http::Response::json(
          403, error_body("this web page's origin may not use the LiveChess API: add it to "
                          "[livechess] allowed_origins")
                   .dump(-1, ' ', false, json::error_handler_t::replace));
    return route(r, r.websocket ? std::vector<BoardView>{} : self->boards());
  };
  h.on_ws_message = [weak](std::uint64_t client, std::string text) {
    if (auto self = weak.lock()) self->on_message(client, text);
  };
  h.on_ws_closed = [weak](std::uint64_t client) {
    if (auto self = weak.lock()) self->sessions.erase(client);
  };
  core_->server = std::make_unique<http::Server>(io, core_->options.http, std::move(h));
}

Listener::~Listener() { stop(); }

tl::expected<boost::asio::ip::tcp::endpoint, std::string> Listener::listen(const std::string& host,
                                                                           std::uint16_t port) {
  core_->stopped = false;
  auto ep = core_->server->listen(host, port);
  if (ep) core_->schedule_refresh();
  return ep;
}

void Listener::stop() {
  core_->stopped = true;
  core_->refresh.cancel();
  core_->server->stop();
}

void Listener::boards_changed() { core_->changed(); }

std::size_t Listener::clients() const { return core_->sessions.size(); }

}  // namespace eboard::livechess
