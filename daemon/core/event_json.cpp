// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/core/event_json.hpp"

#include "rules/arbiter_action.hpp"

namespace eboard::daemon {

using nlohmann::json;
using namespace eboard::rules;

namespace {
json clock_json(const ClockTimes& c) { return json{{"white", c.white_ms}, {"black", c.black_ms}}; }
const char* side_name(Color c) { return c == WHITE ? "white" : "black"; }
}  // namespace

json to_json(const Event& e) {
  json j{{"t", e.t_ms}, {"board", e.board}, {"type", event_type(e)}};
  std::visit(
      [&j](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, MoveEvent>) {
          j["ply"] = v.ply;
          j["uci"] = v.uci;
          j["san"] = v.san;
          if (v.clock.known()) j["clock"] = clock_json(v.clock);
          if (v.illegal) j["illegal"] = true;  // only then: every other move event stays as it was
          if (v.recovered) j["recovered"] = true;
        } else if constexpr (std::is_same_v<T, ProvisionalMoveEvent>) {
          j["ply"] = v.ply;
          j["uci"] = v.uci;
          j["san"] = v.san;
        } else if constexpr (std::is_same_v<T, AlertEvent>) {
          j["code"] = v.code;
          j["ply"] = v.ply;
          j["side"] = side_name(v.side);
          j["detail"] = v.detail;
          for (const auto& f : v.extra) {
            if (f.is_number)
              j[f.name] = json::parse(f.value, nullptr, false);
            else
              j[f.name] = f.value;
          }
          // What the arbiter usually does (rules/arbiter_action.cpp), beside the alert.
          if (auto action = arbiter_action(v.code); !action.empty()) j["action"] = std::string(action);
        } else if constexpr (std::is_same_v<T, ClaimableEvent>) {
          j["rule"] = v.rule;
          j["ply"] = v.ply;
        } else if constexpr (std::is_same_v<T, ResultEvent> || std::is_same_v<T, MatchResultEvent>) {
          j["result"] = result_string(v.result);
          j["reason"] = v.reason;
        } else if constexpr (std::is_same_v<T, MatchPauseEvent>) {
          j["reason"] = v.reason;
        }
      },
      e.what);
  return j;
}

std::string to_json_line(const Event& e) { return to_json(e).dump(); }

json to_json(const LinkEvent& e) {
  return json{{"t", e.t_ms},
              {"board", e.board},
              {"type", "link"},
              {"state", e.online ? "online" : "offline"},
              {"reason", e.reason}};
}

std::string to_json_line(const LinkEvent& e) { return to_json(e).dump(); }

}  // namespace eboard::daemon
