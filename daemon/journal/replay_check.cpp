// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/replay_check.hpp"

#include <iterator>

#include <nlohmann/json.hpp>

#include "daemon/core/event_json.hpp"
#include "daemon/journal/recovery.hpp"
#include "rules/notation.hpp"

namespace eboard::journal {

namespace {

bool is_move(const rules::Event& e) {
  return std::holds_alternative<rules::MoveEvent>(e.what) ||
         std::holds_alternative<rules::ProvisionalMoveEvent>(e.what);
}

// A journal written before alerts carried `action` and `proposed_clock` (what the arbiter does, the
// 7.5.5 times): the derived alert is the journaled one with those fields added.
bool same_but_newer_fields(const std::string& derived, const std::string& journaled) {
  auto d = nlohmann::json::parse(derived, nullptr, false);
  auto j = nlohmann::json::parse(journaled, nullptr, false);
  if (!d.is_object() || !j.is_object() || d.value("type", "") != "alert") return false;
  for (const char* added : {"action", "proposed_clock"})
    if (!j.contains(added)) d.erase(added);
  return d == j;
}

}  // namespace

std::optional<rules::Event> ReplayCheck::journaled(const std::string& json) {
  ++journaled_;
  if (pending_.empty()) {
    ++mismatched_;
    if (problems_.size() < max_problems_) problems_.push_back("journaled but not derived: " + json);
    return read_published_note(json);
  }
  rules::Event derived = std::move(pending_.front());
  pending_.pop_front();
  std::string got = daemon::to_json_line(derived);
  if (got == json || same_but_newer_fields(got, json)) {
    ++matched_;
    if (is_move(derived)) return std::nullopt;
    return derived;
  }
  ++mismatched_;
  if (problems_.size() < max_problems_)
    problems_.push_back("journaled " + json + " but replay derived " + got);
  return read_published_note(json);
}

std::optional<rules::Event> read_published_note(std::string_view event_json) {
  auto j = nlohmann::json::parse(event_json, nullptr, false);
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) return std::nullopt;
  const std::string type = j["type"].get<std::string>();
  rules::Event e;
  e.t_ms = j.contains("t") && j["t"].is_number_integer() ? j["t"].get<std::int64_t>() : 0;
  e.board = j.contains("board") && j["board"].is_string() ? j["board"].get<std::string>() : "";
  auto text = [&j](const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  auto number = [&j](const char* key) {
    return j.contains(key) && j[key].is_number_integer() ? j[key].get<int>() : 0;
  };
  if (type == "alert") {
    rules::AlertEvent a;
    a.code = text("code");
    a.ply = number("ply");
    a.side = text("side") == "black" ? rules::BLACK : rules::WHITE;
    a.detail = text("detail");
    for (const auto& [key, value] : j.items()) {
      if (key == "t" || key == "board" || key == "type" || key == "code" || key == "ply" || key == "side" ||
          key == "detail")
        continue;
      if (value.is_string())
        a.extra.push_back({key, value.get<std::string>(), false});
      else
        a.extra.push_back({key, value.dump(), true});
    }
    e.what = std::move(a);
  } else if (type == "claimable") {
    e.what = rules::ClaimableEvent{text("rule"), number("ply")};
  } else if (type == "result") {
    e.what = rules::ResultEvent{parse_result(text("result")), text("reason")};
  } else if (type == "match-result") {
    e.what = rules::MatchResultEvent{parse_result(text("result")), text("reason")};
  } else if (type == "match-paused" || type == "match-resumed") {
    e.what = rules::MatchPauseEvent{type == "match-paused", text("reason")};
  } else {
    return std::nullopt;
  }
  return e;
}

std::vector<rules::Event> ReplayCheck::unjournaled(bool trusted) {
  std::vector<rules::Event> tail;
  if (trusted)
    tail.assign(std::make_move_iterator(pending_.begin()), std::make_move_iterator(pending_.end()));
  pending_.clear();
  return tail;
}

std::optional<PublishedEvent> read_published(std::string_view event_json) {
  auto j = nlohmann::json::parse(event_json, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const std::string type = j.value("type", "");
  if (type == "move") {
    const int ply = j.value("ply", 0);
    if (ply < 1) return std::nullopt;
    return PublishedMove{ply, j.value("uci", ""), event_clock(j), j.value("t", std::int64_t{0})};
  }
  if (type == "result")
    return PublishedResult{rules::Outcome{parse_result(j.value("result", "*")), j.value("reason", "")}};
  if (type == "match-result")
    return PublishedMatchResult{
        rules::MatchResultEvent{parse_result(j.value("result", "*")), j.value("reason", "")}};
  return std::nullopt;
}

std::optional<NextPublished> next_published(const std::map<int, PublishedMove>& published,
                                            const rules::Game& replay, int ply, bool& replay_agrees) {
  auto it = published.find(ply);
  if (replay_agrees && ply >= 1 && ply <= replay.ply_count()) {
    const rules::PlyRecord& rp = replay.plies()[std::size_t(ply - 1)];
    const std::string uci = rules::to_uci(replay.position_at(ply - 1), rp.move);
    if (it == published.end()) return NextPublished{{ply, uci, rp.clock, rp.time_ms}, &rp};
    // What was published wins (its clock and time); the replay only confirms it.
    if (uci == it->second.uci) return NextPublished{it->second, &rp};
    replay_agrees = false;
  }
  if (it == published.end()) return std::nullopt;
  return NextPublished{it->second, nullptr};
}

}  // namespace eboard::journal
