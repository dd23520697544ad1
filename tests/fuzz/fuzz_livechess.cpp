// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The LiveChess request parser and a client's session: input split at newlines into messages, each handled
// by one session against a board; every answer must be JSON with a `response`, and never more than the
// answer and one feed message come of one request.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "daemon/livechess/listener.hpp"
#include "daemon/livechess/session.hpp"

using namespace eboard::livechess;

namespace {

class FuzzHost : public Host {
 public:
  std::vector<BoardView> boards() override {
    BoardView v;
    v.serialnr = "1";
    v.board_id = "A";
    v.board = "8/8/8/8/8/8/8/8";
    v.start = "8/8/8/8/8/8/8/8 w - - 0 1";
    v.san = {"e4"};
    v.flipped = flipped;
    return {v};
  }
  tl::expected<void, std::string> setup(const BoardView&, const std::string& fen) override {
    if (fen.empty()) return tl::unexpected(std::string("empty"));
    return {};
  }
  tl::expected<void, std::string> flip(const BoardView&, bool f) override {
    flipped = f;
    return {};
  }
  std::int64_t now_ms() override { return 0; }
  bool flipped = false;
};

void check(const std::string& m) {
  auto j = nlohmann::json::parse(m, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("response")) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzHost host;
  Session session(host);
  std::string_view text(reinterpret_cast<const char*>(data), size);
  while (true) {
    auto nl = text.find('\n');
    std::string_view message = text.substr(0, nl);
    (void)parse_request(message);
    auto out = session.handle(message);
    if (out.empty() || out.size() > 2) std::abort();
    for (const auto& m : out) check(m);
    for (const auto& m : session.changed(host.boards())) check(m);
    // The same bytes as an HTTP path and a Host header: the tournament calls cut paths apart, the door reads
    // Host and Authorization. Every answer is a status with a body, never a throw.
    eboard::http::Request r;
    r.method = "GET";
    r.path = "/api/v1.0/" + std::string(message);
    r.host = std::string(message);
    r.authorization = "Bearer " + std::string(message);
    RoundView round;
    round.tournament_uuid = "t";
    round.round = 2;
    PairingView p;
    p.nr = 1;
    p.game_uuid = "A-1";
    round.pairings = {p};
    for (const std::string& prefix : {"", "round/t/", "game/", "tournament/"}) {
      r.path = "/api/v1.0/" + prefix + std::string(message);
      if (route(r, host.boards(), round).status < 200) std::abort();
    }
    ListenerOptions o;
    o.host_allowed = [](std::string_view h) { return h == "localhost"; };
    o.token_right = [](std::string_view t) { return t == "x" ? TokenRight::control : TokenRight::none; };
    (void)admit(r, o);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return 0;
}
