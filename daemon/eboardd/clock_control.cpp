// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/clock_control.hpp"

#include <cstdio>
#include <memory>

#include <spdlog/spdlog.h>

#include "daemon/eboardd/control.hpp"
#include "rules/arbiter_action.hpp"

namespace eboard::eboardd {

using nlohmann::json;

namespace {

constexpr std::int64_t kMaxClockMs = (9 * 3600 + 59 * 60 + 59) * 1000LL;  // what the DGT 3000 shows

std::string hms(std::int64_t ms) {
  const std::int64_t s = ms / 1000;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  return buf;
}

// A time as given: milliseconds, or "h:mm:ss" / "m:ss".
std::optional<std::int64_t> time_value(const json& v) {
  if (v.is_number_integer()) {
    const auto ms = v.get<long long>();
    if (ms < 0 || ms > kMaxClockMs) return std::nullopt;
    return ms;
  }
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  long long parts[3] = {0, 0, 0};
  int n = 0;
  std::string cur;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == ':') {
      if (cur.empty() || cur.size() > 2 || n == 3) return std::nullopt;
      parts[n++] = std::stoll(cur);
      cur.clear();
    } else if (s[i] >= '0' && s[i] <= '9') {
      cur += s[i];
    } else {
      return std::nullopt;
    }
  }
  if (n < 2) return std::nullopt;
  const long long h = n == 3 ? parts[0] : 0, m = n == 3 ? parts[1] : parts[0],
                  sec = n == 3 ? parts[2] : parts[1];
  if (m > 59 || sec > 59) return std::nullopt;
  const std::int64_t ms = ((h * 60 + m) * 60 + sec) * 1000;
  if (ms > kMaxClockMs) return std::nullopt;
  return ms;
}

std::optional<rules::Color> white_side_color(const BoardRuntime& b) {
  const rules::Reconstructor* rec = b.reconstructor();
  return rec ? rec->left_player() : std::nullopt;
}

// What the clock's answer means to the arbiter, and the HTTP status saying it.
http::Response answer_of(const std::string& board, const json& sent, const session::ClockResult& r) {
  json answer{{"board", board}, {"action", "clock"}, {"sent", sent}, {"attempts", r.attempts}};
  if (r.status == session::ClockAnswer::Acknowledged) {
    answer["clock"] = "acknowledged";
    answer["message"] = "the clock confirmed the times";
    return http::Response::json(200, answer.dump());
  }
  if (r.status == session::ClockAnswer::Rejected) {
    answer["clock"] = "rejected";
    answer["error"] =
        "the clock refused the times (it takes them only in mode 23): set them by hand, or put the DGT 3000 "
        "in mode 23 and try again";
    return http::Response::json(502, answer.dump());
  }
  answer["clock"] = "not-confirmed";
  answer["error"] = r.attempts == 0 ? "the board's link was reset before the clock answered: check the clock "
                                      "and set the times again"
                                    : "the clock did not confirm the times (no answer after " +
                                          std::to_string(r.attempts) +
                                          " sends): check the clock and the cable to the board";
  return http::Response::json(504, answer.dump());
}

}  // namespace

json clock_status(const BoardRuntime& b) {
  json c{{"settable", false}};
  BoardSource* src = b.source();
  if (!src) {
    c["why"] = "the board is not running";
  } else if (auto ok = src->clock_settable(); !ok) {
    c["why"] = ok.error();
  } else {
    c["settable"] = true;
  }
  const rules::Reconstructor* rec = b.reconstructor();
  const auto white = white_side_color(b);
  c["white_side"] = white ? json(*white == rules::WHITE ? "left" : "right") : json(nullptr);
  if (rec && rec->last_clock_reading() && rec->last_clock_reading()->present) {
    const auto& r = *rec->last_clock_reading();
    c["left_ms"] = r.left_ms;
    c["right_ms"] = r.right_ms;
    c["running"] = r.running ? json(r.lever_up == rules::ClockSide::Left ? "left" : "right") : json(nullptr);
  }
  return c;
}

namespace {

// The alerts add_control_status listed (numbered as the ledger numbers them), given what the event said
// beyond the detail: the arbiter's usual action, the penalty, the 7.5.5 proposal.
void add_alert_advice(json& alerts, const BoardRuntime& b) {
  if (!alerts.is_array()) return;
  const journal::Ledger& l = b.ledger();
  int number = l.alert_count();
  const auto& notes = l.notes();
  for (auto it = notes.rbegin(); it != notes.rend() && number > 0; ++it) {
    const auto* a = std::get_if<rules::AlertEvent>(&it->what);
    if (!a) continue;
    for (json& shown : alerts) {
      if (!shown.is_object() || shown.value("number", 0) != number) continue;
      if (auto action = rules::arbiter_action(a->code); !action.empty())
        shown["action"] = std::string(action);
      for (const auto& f : a->extra) {
        if (f.name == "penalty") shown["penalty"] = f.value;
        if (f.name == "proposed_clock") {
          json p = json::parse(f.value, nullptr, false);
          if (p.is_object()) shown["proposed_clock"] = p;
        }
      }
    }
    --number;
  }
}

}  // namespace

void add_clock_status(json& status, const std::vector<std::unique_ptr<BoardRuntime>>& boards) {
  if (!status.contains("boards") || !status["boards"].is_array()) return;
  json& out = status["boards"];
  for (std::size_t i = 0; i < boards.size() && i < out.size(); ++i) {
    json& control = out[i]["control"];
    control["clock"] = clock_status(*boards[i]);
    if (control.contains("alerts")) add_alert_advice(control["alerts"], *boards[i]);
  }
}

std::optional<http::Response> clock_control(BoardRuntime& b, const std::string& action, const json& body,
                                            std::chrono::milliseconds answer_within) {
  if (action != "clock") return std::nullopt;
  // The clock answers on the loop (acknowledged, refused, or not confirmed by the clock port's own
  // deadline); the HTTP answer waits for it on a worker thread, bounded by `answer_within` as well. Pending
  // at a stop (the board's, or the daemon's), it is 503 at once.
  LaterAnswer later =
      later_answer(b.io(), answer_within, "the clock's answer", "check the clock and the cable to the board");
  clock_control_then(b, body, later.settle);
  return later.response();
}

void clock_control_then(BoardRuntime& b, const json& body, std::function<void(http::Response)> answered) {
  auto refuse = [&answered](unsigned status, const std::string& why) {
    answered(control_error(status, why));
  };
  for (const auto& [k, v] : body.items())
    if (k != "white" && k != "black" && k != "left" && k != "right" && k != "add_ms" && k != "side" &&
        k != "run")
      return refuse(400, "unknown field \"" + k + "\" (white, black, left, right, add_ms, side, run)");
  BoardSource* src = b.source();
  if (!src) return refuse(409, "board " + b.id() + " is not running");
  if (auto ok = src->clock_settable(); !ok) return refuse(409, ok.error());

  const rules::Reconstructor* rec = b.reconstructor();
  const auto white = white_side_color(b);
  const auto& reading = rec ? rec->last_clock_reading() : std::optional<rules::ClockReading>{};
  const bool has_reading = reading && reading->present;
  auto colour_side = [&](const std::string& colour) -> std::optional<std::string> {
    if (colour == "left" || colour == "right") return colour;
    if (!white) return std::nullopt;
    return (colour == "white") == (*white == rules::WHITE) ? "left" : "right";
  };
  const std::string unknown_sides =
      "which side of the clock is White's is not known yet (no move completed, the clock not started): give "
      "\"left\" and \"right\" (as seen from the clock's front)";

  std::int64_t left = 0, right = 0;
  const bool by_colour = body.contains("white") || body.contains("black");
  const bool by_side = body.contains("left") || body.contains("right");
  const bool add = body.contains("add_ms");
  if (int(by_colour) + int(by_side) + int(add) != 1)
    return refuse(400,
                  "give both times ({\"white\": ms or \"h:mm:ss\", \"black\": ...} or {\"left\", "
                  "\"right\"}), or time to add to one side ({\"add_ms\": 120000, \"side\": \"black\"})");
  if (add) {
    const json& a = body["add_ms"];
    if (!a.is_number_integer() || a.get<long long>() <= 0 || a.get<long long>() > kMaxClockMs)
      return refuse(400, "\"add_ms\" must be a positive number of milliseconds (two minutes: 120000)");
    const json& sv = body.contains("side") ? body["side"] : json();
    const std::string side_name = sv.is_string() ? sv.get<std::string>() : "";
    if (side_name != "white" && side_name != "black" && side_name != "left" && side_name != "right")
      return refuse(400, "\"side\" must be \"white\", \"black\", \"left\" or \"right\"");
    auto side = colour_side(side_name);
    if (!side) return refuse(409, unknown_sides);
    if (!has_reading)
      return refuse(409, "board " + b.id() + " has not reported the clock's times yet: set both times");
    left = reading->left_ms;
    right = reading->right_ms;
    (*side == "left" ? left : right) += a.get<long long>();
    if (left > kMaxClockMs || right > kMaxClockMs) return refuse(400, "the clock shows at most 9:59:59");
  } else {
    const char* first = by_colour ? "white" : "left";
    const char* second = by_colour ? "black" : "right";
    if (!body.contains(first) || !body.contains(second))
      return refuse(400, std::string("give both \"") + first + "\" and \"" + second + "\"");
    auto t1 = time_value(body[first]), t2 = time_value(body[second]);
    if (!t1 || !t2) return refuse(400, "a time is milliseconds or \"h:mm:ss\" / \"m:ss\", from 0 to 9:59:59");
    if (by_colour) {
      if (!white) return refuse(409, unknown_sides);
      left = *white == rules::WHITE ? *t1 : *t2;
      right = *white == rules::WHITE ? *t2 : *t1;
    } else {
      left = *t1;
      right = *t2;
    }
  }

  session::ClockTimes set;  // the players' presses go on switching the clock
  set.left_ms = left;
  set.right_ms = right;
  std::string run = "as-it-was";
  if (body.contains("run")) {
    const json& rv = body["run"];
    run = rv.is_string() ? rv.get<std::string>() : "";
    if (run != "none" && run != "white" && run != "black" && run != "left" && run != "right")
      return refuse(400, "\"run\" must be \"white\", \"black\", \"left\", \"right\" or \"none\"");
  }
  std::optional<std::string> runs;  // the side left running, none: paused
  if (run == "as-it-was") {
    if (has_reading && reading->running)
      runs = reading->lever_up == rules::ClockSide::Left ? "left" : "right";
  } else if (run != "none") {
    runs = colour_side(run);
    if (!runs) return refuse(409, unknown_sides);
  }
  if (runs) set.runs = *runs == "left" ? rules::ClockSide::Left : rules::ClockSide::Right;

  json sent{{"left_ms", left},
            {"right_ms", right},
            {"left", hms(left)},
            {"right", hms(right)},
            {"running", runs ? json(*runs) : json(nullptr)}};
  if (white) {
    sent["white_ms"] = *white == rules::WHITE ? left : right;
    sent["black_ms"] = *white == rules::WHITE ? right : left;
  }
  const std::string& id = b.id();  // copied into the answer's handler
  // Shared: the source may drop its handler unused (the board stopped), and `answered` with it.
  auto done = std::make_shared<std::function<void(http::Response)>>(std::move(answered));
  auto sent_ok = src->clock_command(set, [done, id, sent](const session::ClockResult& r) {
    spdlog::info("board {}: clock set to {} / {}: {}", id, sent["left"].get<std::string>(),
                 sent["right"].get<std::string>(),
                 r.status == session::ClockAnswer::Acknowledged ? "acknowledged" : "not confirmed");
    (*done)(answer_of(id, sent, r));
  });
  if (!sent_ok) (*done)(control_error(409, sent_ok.error()));
}

}  // namespace eboard::eboardd
