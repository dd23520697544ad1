// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/livechess/protocol.hpp"

namespace eboard::livechess {

using nlohmann::json;

namespace {

// Client text (an id, a FEN) is echoed: never let a stray byte make dump() throw.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

}  // namespace

json clock_json(const ClockView& c) {
  // Whole seconds, as LiveChess gives them; a running clock is extrapolated by the client from `time`.
  json j{{"white", c.white_ms / 1000}, {"black", c.black_ms / 1000}, {"time", c.time_ms}};
  j["run"] = c.white_runs ? json(*c.white_runs) : json(nullptr);
  return j;
}

json eboard_json(const BoardView& v) {
  return {{"serialnr", v.serialnr},
          {"source", or_null(v.device)},
          {"state", v.online ? "ACTIVE" : "NOTRESPONDING"},
          {"battery", nullptr},
          {"comment", or_null(v.comment)},
          {"board", v.board},
          {"flipped", v.flipped},
          {"clock", v.clock ? clock_json(*v.clock) : json(nullptr)}};
}

json source_json(const BoardView& v) {
  return {{"type", "serial"},   {"device", or_null(v.device)},
          {"name", v.board_id}, {"present", v.online},
          {"active", v.online}, {"status", v.online ? "ACTIVE" : "NOTRESPONDING"}};
}

json feed_param(const BoardView& v, const BoardView* previous) {
  json j{{"serialnr", v.serialnr}, {"flipped", v.flipped}, {"start", v.start}, {"san", v.san}};
  if (!previous || previous->board != v.board) j["board"] = v.board;
  if (v.clock && (!previous || previous->clock != v.clock)) j["clock"] = clock_json(*v.clock);
  j["match"] = v.match;
  return j;
}

PlayerView player_of_pgn_name(std::string_view name) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return std::string(s);
  };
  PlayerView p;
  if (name == "?" || name.empty()) return p;
  if (auto comma = name.find(','); comma != std::string_view::npos) {
    p.lname = trim(name.substr(0, comma));
    p.fname = trim(name.substr(comma + 1));
  } else {
    p.lname = trim(name);
  }
  return p;
}

namespace {

json player_json(const PlayerView& p) {
  return {{"fname", or_null(p.fname)},
          {"mname", nullptr},
          {"lname", or_null(p.lname)},
          {"title", or_null(p.title)},
          {"federation", or_null(p.federation)},
          {"gender", nullptr},
          {"fideid", p.fideid.empty() ? json(nullptr) : json(p.fideid)}};
}

}  // namespace

json result_json(std::string_view r) {
  if (r == "1-0") return "WHITEWIN";
  if (r == "0-1") return "BLACKWIN";
  if (r == "1/2-1/2") return "DRAW";
  return nullptr;
}

json tournaments_json(const RoundView& r) {
  return json::array({{{"uuid", r.tournament_uuid}, {"description", r.name}, {"rounds", r.round}}});
}

json tournament_json(const RoundView& r) {
  return {{"uuid", r.tournament_uuid},   {"name", r.name},     {"description", r.name},
          {"location", or_null(r.site)}, {"country", nullptr}, {"rounds", r.round},
          {"eboards", r.serials}};
}

json round_json(const RoundView& r) {
  json pairings = json::array();
  for (const auto& p : r.pairings)
    pairings.push_back({{"nr", p.nr},
                        {"uuid", p.game_uuid},
                        {"white", player_json(p.white)},
                        {"black", player_json(p.black)},
                        {"live", p.live},
                        {"result", result_json(p.result)}});
  return {{"nr", r.round}, {"date", or_null(r.date)}, {"pairings", pairings}};
}

json game_json(const PairingView& p) {
  json j{{"chess960", p.chess960 ? json(nullptr) : json(518)},
         {"result", result_json(p.result)},
         {"comment", nullptr},
         {"clock", p.clock ? clock_json(*p.clock) : json(nullptr)},
         {"moves", p.san}};
  if (!p.fen.empty()) j["fen"] = p.fen;
  return j;
}

tl::expected<Request, RequestError> parse_request(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return tl::unexpected(RequestError{nullptr, "the message is not JSON"});
  if (!j.is_object())
    return tl::unexpected(RequestError{nullptr, "a request is a JSON object {\"id\", \"call\", \"param\"}"});
  Request r;
  if (auto it = j.find("id"); it != j.end()) {
    if (!it->is_number() && !it->is_string() && !it->is_null())
      return tl::unexpected(RequestError{nullptr, "the request's id must be a number or a string"});
    r.id = *it;
  }
  auto call = j.find("call");
  if (call == j.end() || !call->is_string())
    return tl::unexpected(RequestError{r.id,
                                       "the request has no \"call\" (eboards, sources, subscribe, "
                                       "unsubscribe, call)"});
  r.call = call->get<std::string>();
  if (auto it = j.find("param"); it != j.end()) r.param = *it;
  return r;
}

std::string response(std::string_view kind, const json& id, const json& param, std::int64_t time_ms) {
  return dump(json{{"response", kind}, {"id", id}, {"param", param}, {"time", time_ms}});
}

std::string error_response(const json& id, const std::string& message, std::int64_t time_ms) {
  return response("error", id, json{{"message", message}, {"stacktrace", nullptr}}, time_ms);
}

}  // namespace eboard::livechess
