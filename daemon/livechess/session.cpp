// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/livechess/session.hpp"

namespace eboard::livechess {

using nlohmann::json;

namespace {

// The key of a feed id: 1 and "1" are different ids, as JSON has them.
std::string key_of(const json& id) { return id.dump(-1, ' ', false, json::error_handler_t::replace); }

bool usable_id(const json& id) { return id.is_number() || id.is_string(); }

}  // namespace

std::optional<BoardView> Session::find(const std::string& serialnr) {
  for (auto& b : host_.boards())
    if (b.serialnr == serialnr) return b;
  return std::nullopt;
}

std::string Session::feed_message(Feed& f, const BoardView& v) {
  std::string m = response("feed", f.id, feed_param(v, f.last ? &*f.last : nullptr), host_.now_ms());
  f.last = v;
  return m;
}

std::vector<std::string> Session::handle(std::string_view text) {
  auto r = parse_request(text);
  if (!r) return {error_response(r.error().id, r.error().message, host_.now_ms())};
  const std::int64_t now = host_.now_ms();
  if (r->call == "eboards") {
    json list = json::array();
    for (const auto& b : host_.boards()) list.push_back(eboard_json(b));
    return {response("call", r->id, list, now)};
  }
  if (r->call == "sources") {
    json list = json::array();
    for (const auto& b : host_.boards()) list.push_back(source_json(b));
    return {response("call", r->id, list, now)};
  }
  if (r->call == "subscribe") return subscribe(*r);
  if (r->call == "unsubscribe") {
    // {id: feedId}; an unknown feed is no error: the client's aim (no such feed) holds.
    const json* feed = r->param.is_object() && r->param.contains("id") ? &r->param["id"] : nullptr;
    if (!feed || !usable_id(*feed))
      return {error_response(r->id, "unsubscribe needs param {\"id\": feed id}", now)};
    feeds_.erase(key_of(*feed));
    return {response("call", r->id, nullptr, now)};
  }
  if (r->call == "call") return call(*r);
  return {error_response(
      r->id, "unknown call '" + r->call + "' (eboards, sources, subscribe, unsubscribe, call)", now)};
}

std::vector<std::string> Session::subscribe(const Request& r) {
  const std::int64_t now = host_.now_ms();
  const json& p = r.param;
  if (!p.is_object() || !p.contains("feed") || !p["feed"].is_string())
    return {
        error_response(r.id, "subscribe needs param {\"feed\": \"eboardevent\", \"id\", \"param\"}", now)};
  if (p["feed"] != "eboardevent")
    return {error_response(r.id, "unknown feed '" + p["feed"].get<std::string>() + "' (eboardevent)", now)};
  if (!p.contains("id") || !usable_id(p["id"]))
    return {error_response(r.id, "subscribe needs a feed id (a number or a string)", now)};
  const json* inner = p.contains("param") && p["param"].is_object() ? &p["param"] : nullptr;
  if (!inner || !inner->contains("serialnr") || !(*inner)["serialnr"].is_string())
    return {error_response(r.id, "subscribe to eboardevent needs param {\"serialnr\": \"...\"}", now)};
  const std::string serialnr = (*inner)["serialnr"].get<std::string>();
  auto board = find(serialnr);
  if (!board) return {error_response(r.id, "no e-board with serial number '" + serialnr + "'", now)};
  const std::string key = key_of(p["id"]);
  if (!feeds_.count(key) && feeds_.size() >= MAX_FEEDS)
    return {error_response(r.id, "too many feeds on one connection", now)};
  // The same feed id again replaces the subscription (and starts it afresh: everything is sent).
  Feed& f = feeds_[key];
  f = Feed{p["id"], serialnr, std::nullopt};
  return {response("call", r.id, nullptr, now), feed_message(f, *board)};
}

std::vector<std::string> Session::call(const Request& r) {
  const std::int64_t now = host_.now_ms();
  const json& p = r.param;
  if (!p.is_object() || !p.contains("id") || !usable_id(p["id"]) || !p.contains("method") ||
      !p["method"].is_string())
    return {error_response(r.id, "call needs param {\"id\": feed id, \"method\", \"param\"}", now)};
  auto it = feeds_.find(key_of(p["id"]));
  if (it == feeds_.end())
    return {error_response(r.id, "no feed " + key_of(p["id"]) + " on this connection", now)};
  auto board = find(it->second.serialnr);
  if (!board) return {error_response(r.id, "the e-board " + it->second.serialnr + " is gone", now)};
  const std::string method = p["method"].get<std::string>();
  const json inner = p.contains("param") ? p["param"] : json(nullptr);
  tl::expected<void, std::string> done;
  if (method == "setup") {
    if (!inner.is_object() || !inner.contains("fen") || !inner["fen"].is_string())
      return {error_response(r.id, "setup needs param {\"fen\": \"...\"}", now)};
    done = host_.setup(*board, inner["fen"].get<std::string>());
  } else if (method == "flip") {
    if (!inner.is_object() || !inner.contains("flip") || !inner["flip"].is_boolean())
      return {error_response(r.id, "flip needs param {\"flip\": true or false}", now)};
    done = host_.flip(*board, inner["flip"].get<bool>());
  } else {
    return {error_response(r.id, "unknown method '" + method + "' (setup, flip)", now)};
  }
  if (!done) return {error_response(r.id, done.error(), now)};
  return {response("call", r.id, nullptr, now)};
}

std::vector<std::string> Session::changed(const std::vector<BoardView>& boards) {
  std::vector<std::string> out;
  for (auto& [key, f] : feeds_)
    for (const auto& v : boards)
      if (v.serialnr == f.serialnr && (!f.last || *f.last != v)) out.push_back(feed_message(f, v));
  return out;
}

}  // namespace eboard::livechess
