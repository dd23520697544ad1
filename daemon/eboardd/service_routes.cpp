// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The service's HTTP side: its route table (every path both listeners answer, with the door each is
// reached through and its handler), the doors' checks, and the handlers.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "daemon/eboardd/arbiter.hpp"
#include "daemon/eboardd/clock_control.hpp"
#include "daemon/eboardd/control.hpp"
#include "daemon/eboardd/routes.hpp"
#include "daemon/eboardd/service.hpp"
#include "daemon/outputs/round_results.hpp"
#include "daemon/outputs/text_encoding.hpp"
#include "daemon/web/assets.hpp"

namespace eboard::eboardd {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

http::Response error_json(unsigned status, const std::string& message) {
  return control_error(status, message);
}

// One of the page's files. It holds no data (that comes from /status and /ws, which check the token), so it
// is served without a token: the page is where the token is typed in. Revalidated at every load (no-cache
// with an ETag), so a daemon upgraded in the hall never runs an old script against a new daemon.
http::Response web_asset(const http::Request& r, const web::Asset& a) {
  http::Response res;
  res.content_type = std::string(a.content_type);
  res.headers.push_back({"Cache-Control", "no-cache"});
  res.headers.push_back({"ETag", std::string(a.etag)});
  res.headers.push_back({"X-Content-Type-Options", "nosniff"});
  res.headers.push_back({"Referrer-Policy", "no-referrer"});
  if (a.content_type.rfind("text/html", 0) == 0) {
    // Nothing but its own files and its own daemon; no framing (clickjacking of the arbiter's buttons).
    res.headers.push_back(
        {"Content-Security-Policy",
         "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
         "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"});
    res.headers.push_back({"X-Frame-Options", "DENY"});
  }
  if (!r.if_none_match.empty() && r.if_none_match.find(a.etag) != std::string::npos) {
    res.status = 304;
    return res;
  }
  res.body = std::string(a.bytes);
  return res;
}

bool is_json(std::string_view content_type) {
  auto semi = content_type.find(';');
  std::string_view t = content_type.substr(0, semi);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  std::string lower(t);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return lower == "application/json";
}

http::Response unauthorized(const std::string& why) {
  auto res = error_json(401, why);
  res.headers.push_back({"WWW-Authenticate", "Bearer realm=\"eboardd\""});
  return res;
}

}  // namespace

Right Service::right_of(const http::Request& r) const {
  if (Right by_header = right_of_token(r.token(), config_.http); by_header != Right::none) return by_header;
  // A relay that can only be given a URL: the read token may ride in it (it cannot control), never the
  // control token (URLs end up in logs, histories and Referer headers).
  if (auto q = r.query_value("token"); q && same_secret(*q, config_.http.read_token)) return Right::read;
  return Right::none;
}

bool Service::is_control(const http::Request& r) const {
  // Every change is a POST or a DELETE; a GET with the control token is the arbiter's too (eboardctl status),
  // and so is a WebSocket with a ticket the control token got (the arbiter's screen).
  if (r.method != "GET" || right_of_token(r.token(), config_.http) == Right::control) return true;
  auto ticket = r.websocket ? offered_ticket(r.ws_protocols) : std::nullopt;
  return ticket && tickets_.peek(*ticket) == Right::control;
}

http::Response Service::issue_ticket(const http::Request& r) {
  const Right right = right_of_token(r.token(), config_.http);
  if (right == Right::none) return unauthorized("a ticket needs a token: Authorization: Bearer <token>");
  if (!is_json(r.content_type))
    return error_json(415, "ticket requests carry Content-Type: application/json");
  const std::string ticket = tickets_.issue(right);
  const auto ttl = std::chrono::duration_cast<std::chrono::seconds>(options_.ticket_ttl).count();
  return http::Response::json(200, json{{"ticket", ticket},
                                        {"protocol", std::string(TICKET_PROTOCOL) + ticket},
                                        {"expires_in_s", ttl},
                                        {"right", right == Right::control ? "control" : "read"}}
                                       .dump());
}

http::Response Service::once_durable(BoardRuntime& b, http::Response res) {
  LaterAnswer later = later_answer(io_, std::chrono::seconds(30), "the control's journal record");
  b.when_durable([this, id = b.id(), settle = later.settle, res = std::move(res)]() mutable {
    if (hall_) hall_->changed(id);
    settle(std::move(res));
  });
  return later.response();
}

std::optional<http::Response> Service::arbiter_control(BoardRuntime& b, const std::string& action,
                                                       const json& body, const std::string& match,
                                                       const std::string& client) {
  // The hall is told once the change is made (on the loop, after the background worker's part); a match
  // board's result ends the partner's game too.
  MatchRuntime* m = match.empty() ? nullptr : this->match(match);
  ArbiterContext ctx{config_.state_dir, round_, b.files(), client, match, m, {}};
  ctx.done = [this, id = b.id(), match] {
    if (!hall_) return;
    hall_->changed(id);
    if (const MatchRuntime* now =
            match.empty() ? nullptr : this->match(match))  // still there after a reload?
      for (const BoardRuntime* other : now->boards())
        if (other->id() != id) hall_->changed(other->id());
  };
  return arbiter_action(b, action, body, ctx);
}

int Service::number_of_board(std::string_view id) const {
  if (!id.empty() && id.size() <= 4 &&
      std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::stoi(std::string(id));
  for (std::size_t i = 0; i < config_.boards.size(); ++i)
    if (config_.boards[i].id == id) {
      // The position names this board unless another board's id is that number.
      const std::string n = std::to_string(i + 1);
      const bool taken = std::any_of(config_.boards.begin(), config_.boards.end(),
                                     [&](const config::BoardConfig& b) { return b.id == n; });
      return taken ? 0 : int(i + 1);
    }
  return 0;
}

http::Response Service::results_output(const http::Request& r, bool delayed, bool trf) {
  const std::string name = r.query_value("round").value_or(round_.name);
  std::string pgn, source;
  if (name == round_.name) {
    pgn = games_pgn(delayed);
  } else {
    if (!valid_round_name(name)) return error_json(400, "?round= is a round's name");
    const fs::path archive = fs::path(config_.state_dir) / "rounds" / (name + ".pgn");
    std::ifstream in(archive, std::ios::binary);
    if (!in) return error_json(404, "round " + name + " is neither the current round nor archived");
    std::stringstream text;
    text << in.rdbuf();
    pgn = text.str();
  }
  auto results = outputs::round_results(pgn, [this](std::string_view id) { return number_of_board(id); });
  if (!results) return error_json(500, results.error());
  std::string out;
  if (trf) {
    int number = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), number);
    if (ec != std::errc() || end != name.data() + name.size())
      return error_json(409, "TRF-16 numbers its rounds: round '" + name +
                                 "' is not a number (the CSV is not bound to that)");
    std::ifstream in(fs::path(config_.state_dir) / "pairings" / (name + ".trf"), std::ios::binary);
    if (in) {
      std::stringstream text;
      text << in.rdbuf();
      source = text.str();
    }
    auto text = outputs::results_trf(*results, number, source, config_.event.name);
    if (!text) return error_json(500, text.error());
    out = std::move(*text);
  } else {
    out = outputs::results_csv(*results);
  }
  const std::string encoding = r.query_value("encoding").value_or("UTF-8");
  auto encoded = outputs::encode_text(out, encoding);
  if (!encoded) return error_json(400, encoded.error());
  http::Response res = http::Response::text(200, std::move(*encoded));
  res.content_type = std::string(trf ? "text/plain" : "text/csv") + "; charset=" + encoding;
  res.headers.push_back(
      {"Content-Disposition", "attachment; filename=\"round-" + name + (trf ? ".trf" : ".csv") + "\""});
  return res;
}

http::Response Service::numbered_match(const MatchRuntime& m, std::string_view query,
                                       std::optional<std::int64_t> cutoff) {
  const std::optional<int> n = record_number(query);
  if (!n) return http::Response::text(400, "match must be a match number: 1, 2, … (see /status)");
  const int shown = m.shown_number(cutoff);
  if (*n == shown) return pgn_response(m.bpgn(cutoff));
  if (*n < shown)
    if (auto g = finished_games_.match_record(m.name(), *n)) {
      if (cutoff && g->written_ms > *cutoff)
        return http::Response::text(
            404, "match " + std::to_string(*n) + " of " + m.name() + " is not public yet (broadcast delay)");
      return pgn_response(std::move(g->text));
    }
  return http::Response::text(
      404, "no match " + std::to_string(*n) + " of " + m.name() +
               " on record; its matches: " + numbers_text(finished_games_.match_numbers(m.name()), shown));
}

namespace {

bool plain(const http::Request& r) { return !r.websocket; }
bool page_not_text(const http::Request& r) { return r.query_value("format") != "text"; }
bool below_boards(const http::Request& r) { return r.path.starts_with("/boards/"); }

// The stem of a path segment "<stem><ext>" that its route's pattern matched.
std::string stem(const std::string& segment, std::string_view ext) {
  return segment.substr(0, segment.size() - ext.size());
}

constexpr std::string_view INDEX_HEADING =
    "eboardd: electronic chess boards for arbiters and broadcasters\n\n";

}  // namespace

// Every path the daemon's listener answers, by door; /index.txt lists those with a summary, in this order.
// Within a door, the first route whose method and pattern match takes the request.
std::span<const Route> Service::routes() {
  using C = const RouteCall&;
  static const Route table[] = {
      {Door::page,
       "GET",
       "/",
       "the operator's page (HTML; GET /index.txt: this list)",
       [](Service&, C c) { return web_asset(c.request, *web::find_asset("index.html")); },
       {},
       page_not_text},
      {Door::read,
       "GET",
       "/games.pgn",
       "every game of the current round, board after board, the finished\n"
       "ones too, until the next round starts (PGN with [%clk])",
       [](Service& s, C c) { return s.games_output(c.delayed); },
       {},
       plain},
      {Door::read,
       "GET",
       "/round/results.trf",
       "the round's results as TRF-16 (?round=N: an archived round; ?encoding=WINDOWS-1252 …)",
       [](Service& s, C c) { return s.results_output(c.request, c.delayed, true); },
       {},
       plain},
      {Door::read,
       "GET",
       "/round/results.csv",
       "the same as CSV board,white,black,white_elo,black_elo,result,termination",
       [](Service& s, C c) { return s.results_output(c.request, c.delayed, false); },
       {},
       plain},
      {Door::read, "GET", "/matches/<match>.bpgn",
       "a bughouse match: the current one (BPGN; ?match=N: match N, a\n"
       "finished one as its archive state_dir/games/match-<A>-<B>-N.bpgn)",
       [](Service& s, C c) { return s.match_output(stem(c.parts[1], ".bpgn"), c.request, c.delayed); },
       "/matches/<A>-<B>.bpgn", plain},
      {Door::read,
       "GET",
       "/status",
       "boards, links, games, journal, USB boards (JSON)",
       [](Service& s, C) { return s.status_output(); },
       {},
       plain},
      {Door::read,
       "GET",
       "/boards/<id>.pgn",
       "one board's current game (?game=N: game N, a finished one as its\n"
       "archive in state_dir/games holds it)",
       [](Service& s, C c) { return s.board_output(stem(c.parts[1], ".pgn"), c.request, c.delayed); },
       {},
       plain},
      {Door::read,
       "GET",
       "/boards/<id>/capture.cap",
       "the board's raw wire bytes in its current game, as a capture file\n"
       "(?game=N: a finished game whose journal is kept)",
       [](Service& s, C c) { return s.capture_output(c.parts[1], c.request, c.delayed); },
       {},
       plain},
      {Door::read, "GET", "/ws",
       "WebSocket: the current state, then live events (JSON)\n"
       "([broadcast] delay_s: without a token, the PGN, BPGN and /ws views\n"
       "run that far behind; /status stays live)",
       [](Service&, C c) { return websocket_output(c); }},
      {Door::ticket, "POST", "/auth/ticket",
       "a single-use WebSocket ticket for a browser page (Authorization: Bearer <token>)",
       [](Service& s, C c) { return s.issue_ticket(c.request); }},
      {Door::control, "POST", "/control/<id>/new-game",
       R"({"fen": "..."} optional        (Authorization: Bearer <token>))",
       [](Service& s, C c) { return s.board_control(c, &Service::new_game_control); }},
      {Door::control, "POST", "/control/<id>/tags",
       R"({"White": "...", ...}           (Authorization: Bearer <token>))",
       [](Service& s, C c) { return s.board_control(c, &Service::tags_control); }},
      {Door::control, "POST", "/control/round",
       R"({"round": "3"}  archive the round's PGN (state_dir/rounds), start round 3)",
       [](Service& s, C c) { return s.round_control(c, &Service::start_round); }},
      {Door::control, "POST", "/control/pairings",
       R"({"text": "<CSV or TRF-16, UTF-8>", "round": "3"}  players of every board; a round to come waits for its start)",
       [](Service& s, C c) { return s.round_control(c, &Service::load_pairings); }},
      {Door::control, "POST", "/control/<id>/promotion",
       R"({"side": "white", "piece": "n"}  the piece of the next promotion)",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control, "POST", "/control/<id>/ack",
       R"({"alert": N}                    acknowledge alert N (/status))",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control, "POST", "/control/<id>/draw", "draw by agreement",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control, "POST", "/control/<id>/resign", R"({"side": "black"})",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control, "POST", "/control/<id>/result",
       R"({"result": "+/-", "reason": "…"} optional kind, rule, game N, arbiter  the arbiter's result or correction)",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control, "POST", "/control/<id>/moves",
       R"({"game": N, "from_ply": P, "moves": "e4 e5", "reason": "…"}  an earlier game's moves corrected)",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control, "POST", "/control/<id>/adjourn",
       R"({"side": "white", "sealed": "Nf3"}  the player on move seals)",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control, "POST", "/control/<id>/resume", "the sealed move is played, the game goes on",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control, "POST", "/control/<id>/recover",
       R"({"candidate": N} or {"moves": "g7g6 f2f3"}  settle a missed gap (/status: control.missed_gap), or correct a recovered one (control.recovered_gap))",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control, "POST", "/control/<id>/clock",
       R"({"white": "1:30:00", "black": 5400000} or {"add_ms": 120000, "side": "black"}  set the DGT 3000's times (its ACK checked))",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control, "POST", "/control/<id>/adopt",
       R"({"side": "white"} optional  follow the game from the board's position)",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      // The same path as the correction above: the action tells a typed move from a correction by its body.
      {Door::control, "POST", "/control/<id>/moves",
       R"({"moves": ["e4", "e7e5"]} or {"move": "Nf3", "clock": {"white": ms, "black": ms}}  moves typed on a board without a device (all or none))",
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control, "POST", "/boards",
       R"({"id", "port", "protocol"}   a board without udev (until a reload); {"id", "protocol": "none"} a board without a device)",
       [](Service& s, C c) { return s.add_board_control(c.request); }},
      {Door::control,
       "DELETE",
       "/boards/<id>",
       "stop and forget a board (until a reload)",
       [](Service& s, C c) { return s.remove_board_control(c.parts[1]); },
       {},
       below_boards},

      // Not listed: the rest of what each door answers.
      {Door::page,
       "GET",
       "/index.html",
       {},
       [](Service&, C c) { return web_asset(c.request, *web::find_asset("index.html")); }},
      {Door::page,
       "GET",
       "/web/*",
       {},
       [](Service&, C c) {
         const web::Asset* a = web::find_asset(std::string_view(c.request.path).substr(5));
         return a ? web_asset(c.request, *a) : http::Response::text(404, "no such file of the web page");
       }},
      {Door::read,
       "GET",
       "/",
       {},
       [](Service&, C) { return http::Response::text(200, index_text()); },
       {},
       plain},
      {Door::read,
       "GET",
       "/index.txt",
       {},
       [](Service&, C) { return http::Response::text(200, index_text()); },
       {},
       plain},
      // Another action, or another host's board (an aggregator: any action goes to its host).
      {Door::control,
       "POST",
       "/control/<id>/<action>",
       {},
       [](Service& s, C c) { return s.board_control(c, &Service::board_action); }},
      {Door::control,
       "POST",
       "/control/*",
       {},
       [](Service&, C) { return error_json(404, "use /control/<board>/<action>"); }},
      {Door::control,
       "DELETE",
       "/boards/*",
       {},
       [](Service&, C) { return error_json(404, "use DELETE /boards/<id>"); },
       {},
       below_boards},
  };
  return table;
}

// The public listener ([broadcast] listen): reading only, behind the delay, for any page of any site.
std::span<const Route> Service::public_routes() {
  using C = const RouteCall&;
  static const Route table[] = {
      {Door::read,
       "GET",
       "/games.pgn",
       "every game of the current round (PGN with [%clk])",
       [](Service& s, C c) { return for_any_origin(s.games_output(c.delayed)); },
       {},
       plain},
      {Door::read, "GET", "/matches/<match>.bpgn", "a bughouse match (BPGN; ?match=N: match N)",
       [](Service& s, C c) {
         return for_any_origin(s.match_output(stem(c.parts[1], ".bpgn"), c.request, c.delayed));
       },
       "/matches/<A>-<B>.bpgn", plain},
      {Door::read,
       "GET",
       "/boards/<id>.pgn",
       "one board's game (?game=N: game N)",
       [](Service& s, C c) {
         return for_any_origin(s.board_output(stem(c.parts[1], ".pgn"), c.request, c.delayed));
       },
       {},
       plain},
      {Door::read, "GET", "/ws", "WebSocket: the state, then the events (JSON)",
       [](Service&, C c) { return websocket_output(c); }},
      {Door::read,
       "GET",
       "/",
       {},
       [](Service& s, C) { return http::Response::text(200, s.public_index_text()); },
       {},
       plain},
      {Door::read,
       "GET",
       "/index.txt",
       {},
       [](Service& s, C) { return http::Response::text(200, s.public_index_text()); },
       {},
       plain},
  };
  return table;
}

std::string Service::index_text() { return eboardd::index_text(INDEX_HEADING, routes()); }

std::string Service::public_index_text() const {
  const std::string delay =
      delay_ ? std::to_string(delay_->delay_ms() / 1000) + " s behind the games" : "live";
  return eboardd::index_text("eboardd: the public broadcast (" + delay + ")\n\n", public_routes());
}

http::Response Service::for_any_origin(http::Response res) {
  res.headers.push_back({"Access-Control-Allow-Origin", "*"});
  return res;
}

http::Response Service::handle(const http::Request& r) {
  // A name the daemon does not answer to is a page that rebound its own name to this address.
  if (!host_acceptable(r.host, config_.http))
    return error_json(421, "this daemon is not reached by that name: add it to http.server_names");
  // A web page of another origin may neither read the live feed nor fill the slots.
  if (!origin_acceptable(r.origin, r.host, config_.http))
    return error_json(403, "cross-origin request refused: add the page's origin to http.allowed_origins");
  const Door door = door_of(r);
  if (door == Door::control) return control(r);
  if (door == Door::ticket) {
    const Route* route = find_route(routes(), door, r);
    if (!route) {
      auto res = error_json(405, "a ticket is asked for with POST");
      res.headers.push_back({"Allow", "POST"});
      return res;
    }
    return route->handler(*this, RouteCall{r});
  }
  if (door == Door::page) {
    const Route* route = find_route(routes(), door, r);
    return route ? route->handler(*this, RouteCall{r})
                 : http::Response::text(404, "no such file of the web page");
  }
  RouteCall call{r};
  Right right = right_of(r);
  call.ticket = r.websocket ? offered_ticket(r.ws_protocols) : std::nullopt;
  if (call.ticket) {
    right = std::max(right, tickets_.redeem(*call.ticket));
    if (right == Right::none) return unauthorized("the WebSocket ticket is unknown, used or expired");
  }
  if (r.query_value("token") && right == Right::none && !config_.http.open_read)
    return unauthorized("only the read token may be given in the URL: Authorization: Bearer <token>");
  if (!config_.http.open_read && right == Right::none)
    return unauthorized("reading needs a token: Authorization: Bearer <http.read_token or http.token>");
  if (r.method != "GET") {
    auto res = error_json(405, "only GET here");
    res.headers.push_back({"Allow", "GET"});
    return res;
  }
  // Behind the broadcast delay: what a reader without a token sees (CONTRACTS §4).
  call.delayed = delay_ && right == Right::none;
  if (const Route* route = find_route(routes(), door, r)) return route->handler(*this, call);
  if (r.websocket) return http::Response::text(404, "the WebSocket is at /ws");
  return http::Response::text(404, "not found (see / for what is here)");
}

http::Response Service::handle_public(const http::Request& r) {
  // Public data only, for any page of any site (a broadcast viewer's): no Host or Origin check, no token,
  // nothing live. Whatever a request carries, it gets what the delay lets through.
  if (r.method != "GET") {
    auto res = error_json(405, "the public listener only reads (GET)");
    res.headers.push_back({"Allow", "GET"});
    return res;
  }
  RouteCall call{r};
  call.delayed = true;
  if (const Route* route = find_route(public_routes(), Door::read, r)) return route->handler(*this, call);
  if (r.websocket) return http::Response::text(404, "the WebSocket is at /ws");
  return http::Response::text(404, "not found (see / for what is here)");
}

http::Response Service::websocket_output(const RouteCall& c) {
  if (!c.request.websocket)
    return http::Response::text(426, "/ws is a WebSocket: connect with a WebSocket client");
  http::Response ok;
  ok.status = 101;
  ok.ws_feed = c.delayed ? DELAYED_FEED : LIVE_FEED;
  // The browser closes the connection unless the subprotocol it offered is echoed.
  if (c.ticket) ok.headers.push_back({"Sec-WebSocket-Protocol", std::string(TICKET_PROTOCOL) + *c.ticket});
  return ok;
}

http::Response Service::control(const http::Request& r) {
  const Route* route = find_route(routes(), Door::control, r);
  if (!route) {
    auto res = error_json(405, "control actions are POST requests");
    res.headers.push_back({"Allow", "POST"});
    return res;
  }
  if (config_.http.token.empty())
    return error_json(403, "control is disabled: set http.token in the configuration");
  // The token only in the header: a URL is logged and replayed, and a browser sends no header across
  // origins without asking first (which is never granted here).
  if (r.query_value("token"))
    return unauthorized("control takes the token in the Authorization header, never in the URL");
  const Right right = right_of_token(r.token(), config_.http);
  if (right == Right::read) return error_json(403, "the read token cannot control: use http.token");
  if (right != Right::control)
    return unauthorized("control needs the token: Authorization: Bearer <http.token>");
  // A JSON body only: an HTML form or a "simple" cross-origin fetch cannot send one.
  if (r.method == "POST" && !is_json(r.content_type))
    return error_json(415, "control requests carry Content-Type: application/json");
  http::Response res = route->handler(*this, RouteCall{r});
  spdlog::info("http: control {} {} from {}: {}", r.method, r.path.substr(0, 200), r.remote, res.status);
  return res;
}

http::Response Service::control_authorized(const http::Request& r) {
  const Route* route = find_route(routes(), Door::control, r);
  if (!route) return error_json(404, "use /control/<board>/<action>");
  return route->handler(*this, RouteCall{r});
}

// A board added or removed at runtime, where no udev tells (containers, tests). The configuration file
// stays the truth: a reload (SIGHUP) drops boards added here and brings back those removed here.
http::Response Service::remove_board_control(const std::string& id) {
  if (!board(id) && !failed_.count(id)) return error_json(404, "no board '" + id + "'");
  for (const auto& m : config_.matches)
    if (m.boards[0] == id || m.boards[1] == id)
      return error_json(409,
                        "board '" + id + "' plays in the match " + m.name() + ": change the configuration");
  remove_board(id);
  std::erase_if(config_.boards, [&](const config::BoardConfig& b) { return b.id == id; });
  // A discovered board comes back when its device arrives again.
  discovered_.erase(id);
  std::erase_if(usb_served_, [&](const auto& kv) { return kv.second == id; });
  spdlog::info("board {} removed through the control interface", id);
  return http::Response::json(200, json{{"removed", id}}.dump());
}

http::Response Service::add_board_control(const http::Request& r) {
  json spec = json::parse(r.body, nullptr, false);
  if (spec.is_discarded() || !spec.is_object())
    return error_json(400, "the body must be a JSON object {\"id\", \"port\", \"protocol\"}");
  auto bc = board_from_json(spec);
  if (!bc) return error_json(400, bc.error());
  if (config_.board(bc->id) || board(bc->id)) return error_json(409, "board '" + bc->id + "' exists already");
  for (const auto& m : config_.matches)
    if (m.boards[0] == bc->id || m.boards[1] == bc->id)
      return error_json(409, "board '" + bc->id + "' is named by the match " + m.name() + ": configure it");
  config_.boards.push_back(*bc);
  drop_claimed_discovered();  // a discovered board on that port gives it up
  add_board(*bc);
  if (failed_.count(bc->id)) {
    std::string why = failed_[bc->id];
    failed_.erase(bc->id);
    config_.boards.pop_back();
    reassign_usb();  // a discovered board given up for it comes back
    return error_json(500, "board '" + bc->id + "' not started: " + why);
  }
  spdlog::info("board {} added through the control interface ({})", bc->id, bc->port);
  return http::Response::json(201,
                              json{{"added", bc->id}, {"port", bc->port}, {"protocol", bc->protocol}}.dump());
}

http::Response Service::round_control(const RouteCall& c, http::Response (Service::*act)(const json&)) {
  json body = json::parse(c.request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) return error_json(400, "the body must be a JSON object");
  return (this->*act)(body);
}

http::Response Service::board_control(const RouteCall& c, BoardControl act) {
  const std::string& id = c.parts[1];
  const std::string& action = c.parts[2];
  json body = json::object();
  if (!c.request.body.empty()) {
    body = json::parse(c.request.body, nullptr, false);
    if (body.is_discarded() || !body.is_object()) return error_json(400, "the body must be a JSON object");
  }
  const auto b = directory().find(id);
  if (!b) return error_json(404, "no board '" + id + "'");
  // Another host's board (an aggregator): the command goes to its host over the hall's broker.
  if (!b->runtime()) return hall_->send_command(id, action, body);
  return (this->*act)(*b->runtime(), action, body, c.request);
}

http::Response Service::new_game_control(BoardRuntime& b, const std::string&, const json& body,
                                         const http::Request&) {
  std::string fen;
  if (body.contains("fen")) {
    if (!body["fen"].is_string()) return error_json(400, "fen must be a string");
    fen = body["fen"].get<std::string>();
  }
  auto n = b.new_game(fen);
  if (!n) return error_json(400, n.error());
  // Answered once the new game's journal file is begun (on the background worker).
  LaterAnswer later = later_answer(io_, std::chrono::seconds(30), "the new game's journal file");
  b.when_rotated([settle = later.settle, ok = json{{"board", b.id()}, {"game", *n}}.dump()] {
    settle(http::Response::json(200, ok));
  });
  return later.response();
}

http::Response Service::tags_control(BoardRuntime& b, const std::string&, const json& body,
                                     const http::Request&) {
  rules::PgnTags tags;
  for (const auto& [k, v] : body.items()) {
    if (!v.is_string()) return error_json(400, "tag " + k + ": the value must be a string");
    tags.push_back({k, v.get<std::string>()});
  }
  if (tags.empty()) return error_json(400, "no tags given (a JSON object such as {\"White\": \"...\"})");
  if (auto ok = b.update_tags(tags); !ok) return error_json(400, ok.error());
  json now = json::object();
  for (const auto& t : b.ledger().tags()) now[t.name] = t.value;
  return once_durable(b, http::Response::json(200, json{{"board", b.id()}, {"tags", now}}.dump()));
}

http::Response Service::board_action(BoardRuntime& b, const std::string& action, const json& body,
                                     const http::Request& r) {
  std::string match;
  for (const auto& m : config_.matches)
    if (m.boards[0] == b.id() || m.boards[1] == b.id()) match = m.name();
  if (auto res = clock_control(b, action, body)) return *res;
  if (auto res = arbiter_control(b, action, body, match, r.remote)) return *res;
  if (auto res = control_action(b, action, body, match)) {
    // An acknowledged alert publishes no event: the hall's state of the board (its open alerts) is told
    // again, so an aggregator's page shows it closed.
    if (res->status >= 300) return *res;
    return once_durable(b, std::move(*res));
  }
  return error_json(
      404, "unknown control action '" + action +
               "' (new-game, tags, promotion, ack, draw, resign, result, moves, clock, adjourn, resume)");
}

http::Response Service::games_output(bool delayed) const {
  http::Response res = http::Response::text(200, games_pgn(delayed));
  res.content_type = "application/x-chess-pgn; charset=utf-8";
  return res;
}

std::optional<std::int64_t> Service::cutoff_of(bool delayed) const {
  return delayed && delay_ ? std::optional<std::int64_t>(delay_->cutoff()) : std::nullopt;
}

http::Response Service::match_output(const std::string& name, const http::Request& r, bool delayed) {
  const std::optional<std::int64_t> cutoff = cutoff_of(delayed);
  const std::optional<std::string> number = r.query_value("match");
  if (MatchRuntime* m = match(name)) {
    if (number) return numbered_match(*m, *number, cutoff);
    return pgn_response(m->bpgn(cutoff));
  }
  if (hall_)  // another host's match, "<host>:<match>"
    if (auto bpgn = hall_->match_bpgn(name, cutoff)) {
      if (number) return *hall_->numbered_match_bpgn(name, *number, cutoff);
      return pgn_response(*bpgn);
    }
  for (const auto& m : config_.matches)
    if (m.name() == name) return http::Response::text(404, "match " + name + " is not running (see /status)");
  std::string names;
  for (const auto& m : config_.matches) names += (names.empty() ? "" : ", ") + m.name();
  return http::Response::text(
      404, "no match " + name + " (configured matches: " + (names.empty() ? "none" : names) + ")");
}

http::Response Service::board_output(const std::string& id, const http::Request& r, bool delayed) {
  const auto b = directory().find(id);
  if (!b) return http::Response::text(404, "no board " + id);
  if (const std::optional<std::string> number = r.query_value("game"))
    return b->numbered(*number, cutoff_of(delayed));
  return pgn_response(b->pgn(cutoff_of(delayed)));
}

http::Response Service::status_output() const {
  json s = status();
  add_control_status(s, boards_);
  add_clock_status(s, boards_);
  if (livechess_ && livechess_endpoint_)
    s["livechess"] = {{"port", livechess_endpoint_->port()},
                      {"clients", livechess_->clients()},
                      {"control", config_.livechess.control}};
  return http::Response::json(200, s.dump(2));
}

http::Response Service::capture_output(const std::string& id, const http::Request& r, bool delayed) {
  // The wire as it came: live, so not for the public while a delay holds the moves back.
  if (delayed) return unauthorized("the capture is live: it needs a token while a broadcast delay is set");
  BoardRuntime* b = board(id);
  if (!b) return http::Response::text(404, "no board " + id);
  int game = 0;
  if (auto g = r.query_value("game")) {
    const char* end = g->data() + g->size();
    auto [ptr, err] = std::from_chars(g->data(), end, game);
    if (err != std::errc() || ptr != end || game < 1)
      return http::Response::text(400, "game must be a game number (see /status)");
  }
  auto file = b->capture_journal(game);
  if (!file) return http::Response::text(404, file.error());
  // Read and formatted on worker threads, and streamed: a long game's journal is tens of megabytes, and
  // an export holds a read block and a piece of the text at a time, whatever its length.
  http::Response res;
  res.deferred = [file = std::move(*file), info = b->capture_info(),
                  name = b->id() + (game ? "-" + std::to_string(game) : std::string()) + ".cap"] {
    auto exporter = journal::CaptureExport::open(file, info.board, info.protocol, info.other_headers);
    if (!exporter) return http::Response::text(500, exporter.error());
    http::Response ok = http::Response::text(200, "");
    ok.headers.push_back({"Content-Disposition", "attachment; filename=\"" + name + "\""});
    auto shared = std::make_shared<journal::CaptureExport>(std::move(*exporter));
    ok.stream = [shared] { return shared->next(); };
    return ok;
  };
  return res;
}

}  // namespace eboard::eboardd
