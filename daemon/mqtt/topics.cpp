// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/mqtt/topics.hpp"

#include <vector>

namespace eboard::mqtt {

using nlohmann::json;

namespace {

std::vector<std::string_view> levels(std::string_view topic) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    auto slash = topic.find('/', start);
    out.push_back(
        topic.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return out;
    start = slash + 1;
  }
}

json parse_object(std::string_view payload) {
  json j = json::parse(payload, nullptr, false);
  return j.is_object() ? j : json();
}

bool string_field(const json& j, const char* key, std::string& to) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return false;
  to = it->get<std::string>();
  return true;
}

}  // namespace

std::optional<TopicParts> parse_topic(std::string_view hall, std::string_view topic) {
  auto l = levels(topic);
  if (l.size() < 4 || l[0] != "eboard" || l[1] != hall || l[2].empty()) return std::nullopt;
  TopicParts p;
  p.host = std::string(l[2]);
  if (l.size() == 4 && l[3] == "status") {
    p.kind = TopicParts::Kind::Status;
    return p;
  }
  if (l.size() == 5 && (l[3] == "command" || l[3] == "answer" || l[3] == "match") && !l[4].empty()) {
    p.kind = l[3] == "command"  ? TopicParts::Kind::Command
             : l[3] == "answer" ? TopicParts::Kind::Answer
                                : TopicParts::Kind::Match;
    p.name = std::string(l[4]);
    return p;
  }
  if (l.size() == 6 && l[3] == "board" && !l[4].empty() && (l[5] == "event" || l[5] == "state")) {
    p.kind = l[5] == "event" ? TopicParts::Kind::Event : TopicParts::Kind::State;
    p.name = std::string(l[4]);
    return p;
  }
  return std::nullopt;
}

std::string encode_envelope(const Envelope& e) {
  json j{{"host", e.host},          {"board", e.board}, {"game", e.game},
         {"journal", e.id.journal}, {"seq", e.id.seq},  {"event", e.event}};
  if (e.resend) j["resend"] = e.resend;
  if (e.after) j["after"] = {{"journal", e.after->journal}, {"seq", e.after->seq}};
  return j.dump();
}

tl::expected<Envelope, std::string> decode_envelope(std::string_view payload) {
  json j = parse_object(payload);
  if (j.is_null()) return tl::unexpected(std::string("not a JSON object"));
  Envelope e;
  if (!string_field(j, "host", e.host) || !string_field(j, "board", e.board))
    return tl::unexpected(std::string("no host or board"));
  auto game = j.find("game");
  auto journal = j.find("journal");
  auto seq = j.find("seq");
  if (game == j.end() || !game->is_number_integer() || journal == j.end() || !journal->is_number_integer() ||
      seq == j.end() || !seq->is_number_unsigned())
    return tl::unexpected(std::string("no game, journal or seq"));
  e.game = game->get<int>();
  e.id.journal = journal->get<std::int64_t>();
  e.id.seq = seq->get<std::uint64_t>();
  auto ev = j.find("event");
  if (ev == j.end() || !ev->is_object() || !ev->contains("type") || !(*ev)["type"].is_string())
    return tl::unexpected(std::string("no event"));
  e.event = std::move(*ev);
  if (auto r = j.find("resend"); r != j.end() && r->is_number_integer()) {
    const std::int64_t resend = r->get<std::int64_t>();
    if (resend == 1 || resend == 2) e.resend = int(resend);
  }
  // A malformed "after" is as none: the envelope is still taken, without that check.
  if (auto a = j.find("after"); a != j.end() && a->is_object()) {
    auto aj = a->find("journal");
    auto as = a->find("seq");
    if (aj != a->end() && aj->is_number_integer() && as != a->end() && as->is_number_unsigned())
      e.after = EventId{aj->get<std::int64_t>(), as->get<std::uint64_t>()};
  }
  return e;
}

std::string encode_command(const Command& c) {
  json j{{"id", c.id}, {"board", c.board}, {"action", c.action}, {"body", c.body}};
  if (c.deadline_ms > 0) j["deadline_ms"] = c.deadline_ms;
  return j.dump();
}

tl::expected<Command, std::string> decode_command(std::string_view payload) {
  json j = parse_object(payload);
  if (j.is_null()) return tl::unexpected(std::string("not a JSON object"));
  Command c;
  if (!string_field(j, "id", c.id) || !string_field(j, "board", c.board) ||
      !string_field(j, "action", c.action))
    return tl::unexpected(std::string("a command needs id, board and action"));
  if (j.contains("body")) {
    if (!j["body"].is_object()) return tl::unexpected(std::string("body must be an object"));
    c.body = j["body"];
  }
  if (j.contains("deadline_ms")) {
    if (!j["deadline_ms"].is_number_integer() || j["deadline_ms"].get<std::int64_t>() <= 0)
      return tl::unexpected(std::string("deadline_ms must be a positive integer (Unix ms)"));
    c.deadline_ms = j["deadline_ms"].get<std::int64_t>();
  }
  return c;
}

std::string encode_answer(const Answer& a) {
  return json{{"id", a.id}, {"board", a.board}, {"status", a.status}, {"body", a.body}}.dump();
}

tl::expected<Answer, std::string> decode_answer(std::string_view payload) {
  json j = parse_object(payload);
  if (j.is_null()) return tl::unexpected(std::string("not a JSON object"));
  Answer a;
  if (!string_field(j, "id", a.id) || !j.contains("status") || !j["status"].is_number_integer())
    return tl::unexpected(std::string("an answer needs id and status"));
  string_field(j, "board", a.board);
  a.status = j["status"].get<int>();
  a.body = j.value("body", json());
  return a;
}

}  // namespace eboard::mqtt
