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
  // LiveChess links a board to a game of its tournament here; eboardd has no tournament.
  j["match"] = nullptr;
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
