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

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Feeds of the server, as the rights of its clients: bit 0 control, bit 1 live.
constexpr int CONTROL_BIT = 1;
constexpr int LIVE_BIT = 2;

}  // namespace

http::ServerOptions ListenerOptions::default_server_options() {
  http::ServerOptions o;
  // A LiveChess client (lichess' DGT page) keeps one connection for the whole game, and takes the first
  // feed of a new one for new moves: it is never told to go.
  o.ws_max_lifetime = std::chrono::milliseconds(0);
  // Programs of the hall's computer, a few at a time: the budgets of a crowd of viewers are not theirs.
  o.max_ws_clients = 64;
  o.max_ws_per_address = 64;
  return o;
}

http::Response route(const http::Request& r, const std::vector<BoardView>& boards, const RoundView& round) {
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
  auto json_ok = [](const json& j) {
    return http::Response::json(200, j.dump(-1, ' ', false, json::error_handler_t::replace));
  };
  auto not_found = [](const std::string& what) {
    return http::Response::json(404, error_body(what).dump(-1, ' ', false, json::error_handler_t::replace));
  };
  const std::string api(API);
  if (path == api + "/eboards") {
    json list = json::array();
    for (const auto& b : boards) list.push_back(eboard_json(b));
    return json_ok(list);
  }
  // eboardd's event is the one tournament; its current round the one round with pairings.
  if (path == api + "/tournaments") return json_ok(tournaments_json(round));
  if (starts_with(path, api + "/tournament/")) {
    const std::string uuid = path.substr(api.size() + 12);
    if (uuid != round.tournament_uuid)
      return not_found("no tournament " + uuid + " (see /api/v1.0/tournaments)");
    return json_ok(tournament_json(round));
  }
  if (starts_with(path, api + "/round/")) {
    const std::string rest = path.substr(api.size() + 7);
    const auto slash = rest.find('/');
    const std::string uuid = rest.substr(0, slash);
    if (uuid != round.tournament_uuid)
      return not_found("no tournament " + uuid + " (see /api/v1.0/tournaments)");
    if (slash == std::string::npos || rest.substr(slash + 1) != std::to_string(round.round))
      return not_found("eboardd knows round " + std::to_string(round.round) + " of " + uuid +
                       " only (the current one)");
    return json_ok(round_json(round));
  }
  if (starts_with(path, api + "/game/")) {
    const std::string uuid = path.substr(api.size() + 6);
    for (const auto& p : round.pairings)
      if (p.game_uuid == uuid) return json_ok(game_json(p));
    return not_found("no game " + uuid + " in the current round (see /api/v1.0/round/...)");
  }
  if (path == API)
    return http::Response::text(426, "/api/v1.0 is LiveChess' WebSocket: connect with a WebSocket client");
  return not_found(
      "not found (LiveChess API: /api/v1.0/eboards, tournaments, tournament/{uuid}, round/{uuid}/{n}, "
      "game/{uuid}; WebSocket /api/v1.0)");
}

Admission admit(const http::Request& r, const ListenerOptions& o) {
  Admission a;
  // A DNS-rebinding page names its own site in Host: the position on every board stays out of its reach.
  if (o.host_allowed && !o.host_allowed(r.host)) {
    a.refused = http::Response::json(
        421, error_body("the Host header '" + r.host +
                        "' does not name this computer: use its address, localhost, or a name in "
                        "[http] server_names")
                 .dump(-1, ' ', false, json::error_handler_t::replace));
    return a;
  }
  // Any page in the hall computer's browser could reach a local port: only the listed sites' may.
  if (!origin_allowed(r.origin, o.allowed_origins)) {
    a.refused = http::Response::json(
        403, error_body("this web page's origin may not use the LiveChess API: add it to "
                        "[livechess] allowed_origins")
                 .dump(-1, ' ', false, json::error_handler_t::replace));
    return a;
  }
  const std::string token = r.token();
  const TokenRight right = token.empty() || !o.token_right ? TokenRight::none : o.token_right(token);
  if (!token.empty() && right == TokenRight::none) {
    a.refused =
        http::Response::json(401, error_body("that token is neither [http] token nor read_token").dump());
    return a;
  }
  a.control = o.control || right == TokenRight::control;
  a.live = !o.delayed || right != TokenRight::none;
  return a;
}

std::vector<BoardView> chosen_boards(std::vector<BoardView> boards, const std::vector<std::string>& ids) {
  if (ids.empty()) return boards;
  std::vector<BoardView> out;
  for (const auto& id : ids)
    for (auto& b : boards)
      if (b.board_id == id) {
        out.push_back(std::move(b));
        break;
      }
  return out;
}

bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed) {
  if (origin.empty()) return true;
  std::string o(origin);
  for (char& ch : o) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return std::any_of(allowed.begin(), allowed.end(),
                     [&](const std::string& a) { return a == "*" || a == o; });
}

// One kind of client: what it sees (live or behind the delay) and whether setup and flip are obeyed.
struct ListenerCore;
struct View : Host {
  ListenerCore* core = nullptr;
  bool live = true;
  bool control = false;
  std::vector<BoardView> boards() override;
  tl::expected<void, std::string> setup(const BoardView& board, const std::string& fen) override;
  tl::expected<void, std::string> flip(const BoardView& board, bool flipped) override;
  std::int64_t now_ms() override;
};

// What the server's handlers reach: it outlives the Listener while connections close.
struct ListenerCore : std::enable_shared_from_this<ListenerCore> {
  boost::asio::io_context& io;
  ListenerOptions options;
  Backend backend;
  std::unique_ptr<http::Server> server;
  View views[4];                              // by feed: CONTROL_BIT | LIVE_BIT
  std::map<std::uint64_t, Session> sessions;  // by the server's client number
  std::map<std::uint64_t, int> feed_of;       // the same clients' feed (their rights)
  std::map<std::string, bool> flipped;        // by serial number: what clients said
  bool flush_posted = false;
  bool stopped = false;
  // Not every change is an event the owner sees (a new game begun by a control, by the demo or by the
  // pieces set up again publishes none): the feeds are also compared once a second.
  boost::asio::steady_timer refresh;

  ListenerCore(boost::asio::io_context& i, ListenerOptions o, Backend b)
      : io(i), options(std::move(o)), backend(std::move(b)), refresh(i) {
    for (int f = 0; f < 4; ++f) {
      views[f].core = this;
      views[f].live = (f & LIVE_BIT) != 0;
      views[f].control = (f & CONTROL_BIT) != 0;
    }
  }

  void schedule_refresh() {
    refresh.expires_after(REFRESH);
    refresh.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
      auto self = weak.lock();
      if (!self || ec || self->stopped) return;
      self->flush();
      self->schedule_refresh();
    });
  }

  std::vector<BoardView> boards(bool live) {
    std::vector<BoardView> out =
        chosen_boards(backend.boards ? backend.boards(live) : std::vector<BoardView>{}, options.boards);
    for (auto& b : out)
      if (auto it = flipped.find(b.serialnr); it != flipped.end()) b.flipped = it->second;
    return out;
  }
  RoundView round(bool live) {
    RoundView r = backend.round ? backend.round(live) : RoundView{};
    if (options.boards.empty()) return r;
    // The round's boards as the list has them: numbered in its order.
    const std::vector<BoardView> listed = boards(live);
    std::vector<PairingView> kept;
    r.serials.clear();
    for (const auto& b : listed) {
      r.serials.push_back(b.serialnr);
      for (const auto& p : r.pairings)
        if (p.game_uuid.rfind(b.board_id + "-", 0) == 0 &&
            p.game_uuid.find_first_not_of("0123456789", b.board_id.size() + 1) == std::string::npos) {
          kept.push_back(p);
          kept.back().nr = int(kept.size());
        }
    }
    r.pairings = std::move(kept);
    return r;
  }
  tl::expected<void, std::string> setup(const View& v, const BoardView& board, const std::string& fen) {
    if (!v.control)
      return tl::unexpected(
          std::string("setup needs the control token (Authorization: Bearer on the WebSocket upgrade), or "
                      "[livechess] control = true"));
    if (!backend.setup) return tl::unexpected(std::string("setup is not available"));
    auto ok = backend.setup(board, fen);
    if (ok) changed();
    return ok;
  }
  tl::expected<void, std::string> flip(const View& v, const BoardView& board, bool f) {
    if (!v.control)
      return tl::unexpected(
          std::string("flip needs the control token (Authorization: Bearer on the WebSocket upgrade), or "
                      "[livechess] control = true"));
    flipped[board.serialnr] = f;
    changed();
    return {};
  }
  std::int64_t now_ms() { return backend.now_ms ? backend.now_ms() : 0; }

  void on_message(std::uint64_t client, const std::string& text) {
    auto it = sessions.find(client);
    if (it == sessions.end()) {
      const int feed = server->feed_of(client).value_or(0) & (CONTROL_BIT | LIVE_BIT);
      it = sessions.try_emplace(client, views[feed]).first;
      feed_of[client] = feed;
    }
    for (auto& m : it->second.handle(text)) server->send_to(client, std::move(m));
  }

  void closed(std::uint64_t client) {
    sessions.erase(client);
    feed_of.erase(client);
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
    std::optional<std::vector<BoardView>> live, delayed;
    for (auto& [client, s] : sessions) {
      const bool is_live = (feed_of[client] & LIVE_BIT) != 0;
      auto& now = is_live ? live : delayed;
      if (!now) now = boards(is_live);
      for (auto& m : s.changed(*now)) server->send_to(client, std::move(m));
    }
  }
};

std::vector<BoardView> View::boards() { return core->boards(live); }
tl::expected<void, std::string> View::setup(const BoardView& board, const std::string& fen) {
  return core->setup(*this, board, fen);
}
tl::expected<void, std::string> View::flip(const BoardView& board, bool f) {
  return core->flip(*this, board, f);
}
std::int64_t View::now_ms() { return core->now_ms(); }

Listener::Listener(boost::asio::io_context& io, ListenerOptions options, Backend backend)
    : core_(std::make_shared<ListenerCore>(io, std::move(options), std::move(backend))) {
  http::ServerHandlers h;
  std::weak_ptr<ListenerCore> weak = core_;
  h.on_request = [weak](const http::Request& r) {
    auto self = weak.lock();
    if (!self) return http::Response::text(503, "stopping");
    Admission a = admit(r, self->options);
    if (a.refused) return std::move(*a.refused);
    if (r.websocket) {
      http::Response res = route(r, {});
      res.ws_feed = (a.control ? CONTROL_BIT : 0) | (a.live ? LIVE_BIT : 0);
      return res;
    }
    return route(r, self->boards(a.live), self->round(a.live));
  };
  h.on_ws_message = [weak](std::uint64_t client, std::string text) {
    if (auto self = weak.lock()) self->on_message(client, text);
  };
  h.on_ws_closed = [weak](std::uint64_t client) {
    if (auto self = weak.lock()) self->closed(client);
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
