// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/config/config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <toml++/toml.h>
#include <boost/asio/ip/address.hpp>

#include "daemon/session/board_protocol.hpp"
#include "rules/profile.hpp"

namespace eboard::config {

namespace {

// The protocol rows with (or without) a clock reaching the host, for messages: "millennium, chessnut".
std::string names_with_clock(bool has_clock) {
  std::string out;
  for (const auto& p : session::board_protocols())
    if (p.has_clock == has_clock) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

const char* type_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

// Publishing beyond this machine is a decision: a listen address that is not loopback needs http.token
// (reading then needs it too) or an explicit http.open_read = true. The file's [http] listen and --listen
// share this rule and its message; empty when `h` obeys it.
std::string exposure_problem(const HttpConfig& h, std::string_view what) {
  if (h.loopback || !h.token.empty() || !h.read_token.empty() || h.open_read_set.value_or(false)) return {};
  return std::string(what) + " " + h.listen +
         " is not a loopback address: set http.token (reading then needs it) or "
         "http.open_read = true to publish the games to everyone who can connect";
}

// Without an explicit http.open_read, reading is open on loopback, and beyond it only without a token
// (which exposure_problem allows only with open_read = true).
void derive_open_read(HttpConfig& h) {
  h.open_read = h.open_read_set.value_or(h.loopback || (h.token.empty() && h.read_token.empty()));
}

// Throws inside this file only; parse_config turns it into a ConfigError.
struct Failure {
  int line = 0, column = 0;
  std::string message;
};

[[noreturn]] void fail(const toml::source_region& at, std::string message) {
  throw Failure{int(at.begin.line), int(at.begin.column), std::move(message)};
}

std::string suggestion(std::string_view key, std::initializer_list<std::string_view> known) {
  std::string best;
  std::size_t best_d = std::string::npos;
  for (std::string_view k : known) {
    std::size_t d = edit_distance(key, k);
    if (d < best_d) best_d = d, best = k;
  }
  // A typo is a few letters off; anything further is a different word.
  if (best_d <= std::max<std::size_t>(2, key.size() / 3)) return "; did you mean '" + best + "'?";
  std::string list;
  for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
  return " (known keys: " + list + ")";
}

void check_keys(const toml::table& t, std::string_view where, std::initializer_list<std::string_view> known) {
  for (auto&& [k, v] : t) {
    if (std::find(known.begin(), known.end(), k.str()) != known.end()) continue;
    std::string name = where.empty() ? std::string(k.str()) : std::string(where) + "." + std::string(k.str());
    fail(k.source(), "unknown key '" + name + "'" + suggestion(k.str(), known));
  }
}

std::optional<std::string> get_string(const toml::table& t, std::string_view key, std::string_view where) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (!n->is_string())
    fail(n->source(),
         std::string(where) + std::string(key) + " must be a string, not " + type_name(n->type()));
  return std::string(n->as_string()->get());
}

std::optional<bool> get_bool(const toml::table& t, std::string_view key, std::string_view where) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (!n->is_boolean())
    fail(n->source(),
         std::string(where) + std::string(key) + " must be true or false, not " + type_name(n->type()));
  return n->as_boolean()->get();
}

std::optional<std::int64_t> get_int(const toml::table& t, std::string_view key, std::string_view where,
                                    std::int64_t min, std::int64_t max) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (!n->is_integer())
    fail(n->source(),
         std::string(where) + std::string(key) + " must be an integer, not " + type_name(n->type()));
  std::int64_t v = n->as_integer()->get();
  if (v < min || v > max)
    fail(n->source(), std::string(where) + std::string(key) + " must be between " + std::to_string(min) +
                          " and " + std::to_string(max) + ", not " + std::to_string(v));
  return v;
}

const toml::source_region& where_of(const toml::table& t, std::string_view key) {
  const toml::node* n = t.get(key);
  return n ? n->source() : t.source();
}

std::vector<std::pair<std::string, const toml::node*>> get_strings(const toml::table& t, std::string_view key,
                                                                   std::string_view where) {
  std::vector<std::pair<std::string, const toml::node*>> out;
  const toml::node* n = t.get(key);
  if (!n) return out;
  const toml::array* arr = n->as_array();
  if (!arr)
    fail(n->source(),
         std::string(where) + std::string(key) + " must be a list of strings, not " + type_name(n->type()));
  for (const toml::node& e : *arr) {
    if (!e.is_string())
      fail(e.source(), std::string(where) + std::string(key) + " must be a list of strings");
    out.emplace_back(std::string(e.as_string()->get()), &e);
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  return s;
}

// A DNS name: labels of letters, digits and '-', joined by dots.
bool valid_host_name(std::string_view n) {
  if (n.empty() || n.size() > 253 || n.front() == '.' || n.back() == '.' || n.find("..") != n.npos)
    return false;
  return std::all_of(n.begin(), n.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.';
  });
}

// "http://host[:port]" or "https://…", as browsers send it in Origin: no path, no trailing slash.
bool valid_origin(std::string_view o) {
  std::string_view rest;
  if (o.rfind("http://", 0) == 0)
    rest = o.substr(7);
  else if (o.rfind("https://", 0) == 0)
    rest = o.substr(8);
  else
    return false;
  if (rest.empty() || rest.find('/') != rest.npos) return false;
  if (rest.front() == '[') return rest.find(']') != rest.npos;  // an IPv6 literal
  auto colon = rest.find(':');
  std::string_view host = rest.substr(0, colon);
  if (!valid_host_name(host)) return false;
  if (colon == rest.npos) return true;
  std::string_view port = rest.substr(colon + 1);
  return !port.empty() && port.size() <= 5 &&
         std::all_of(port.begin(), port.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

bool valid_board_id(std::string_view id) {
  if (id.empty() || id.size() > 32) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

const std::initializer_list<std::string_view> PROFILES = {"fide-standard", "fide-rapid", "fide-blitz",
                                                          "bughouse-fqe", "bughouse-clock-move"};

std::string check_profile(std::string_view name) {
  if (rules::profile_by_name(name)) return {};
  return "unknown rules profile '" + std::string(name) + "'" + suggestion(name, PROFILES);
}

const std::initializer_list<std::string_view> LOG_LEVELS = {"trace", "debug", "info", "warn", "error", "off"};

// Tables given as arrays of tables: [[board]]; a plain [board] is a common slip, so say so.
const toml::array* array_of_tables(const toml::table& root, std::string_view key) {
  const toml::node* n = root.get(key);
  if (!n) return nullptr;
  if (n->is_table())
    fail(n->source(), "'" + std::string(key) + "' must be written [[" + std::string(key) + "]] (one per " +
                          std::string(key) + "), not [" + std::string(key) + "]");
  if (!n->is_array_of_tables())
    fail(n->source(), "'" + std::string(key) + "' must be a list of tables [[" + std::string(key) + "]]");
  return n->as_array();
}

Config build(const toml::table& root, const std::string& source) {
  Config c;
  c.source = source;
  check_keys(root, "",
             {"state_dir", "log_level", "http", "journal", "discovery", "event", "broadcast", "push",
              "livechess", "mqtt", "gaps", "board", "bus", "match"});
  if (auto s = get_string(root, "state_dir", "")) {
    if (s->empty() || (*s)[0] != '/')
      fail(where_of(root, "state_dir"), "state_dir must be an absolute path, not '" + *s + "'");
    c.state_dir = *s;
  }
  if (auto s = get_string(root, "log_level", "")) {
    if (std::find(LOG_LEVELS.begin(), LOG_LEVELS.end(), *s) == LOG_LEVELS.end())
      fail(where_of(root, "log_level"), "unknown log_level '" + *s + "'" + suggestion(*s, LOG_LEVELS));
    c.log_level = *s;
  }

  if (const toml::node* n = root.get("http")) {
    if (!n->is_table()) fail(n->source(), "http must be a table [http]");
    const toml::table& h = *n->as_table();
    check_keys(h, "http",
               {"listen", "token", "read_token", "open_read", "server_names", "allowed_origins",
                "max_clients", "max_ws_clients", "ws_max_lifetime_s", "ws_queue_bytes"});
    if (auto s = get_string(h, "listen", "http.")) {
      auto addr = parse_listen(*s);
      if (!addr) fail(where_of(h, "listen"), "http.listen: " + addr.error());
      c.http.listen = *s;
      c.http.host = addr->host;
      c.http.port = addr->port;
      c.http.loopback = addr->loopback;
    }
    if (auto s = get_string(h, "token", "http.")) {
      if (s->size() < 8) fail(where_of(h, "token"), "http.token is too short (at least 8 characters)");
      c.http.token = *s;
    }
    if (auto s = get_string(h, "read_token", "http.")) {
      if (s->size() < 8)
        fail(where_of(h, "read_token"), "http.read_token is too short (at least 8 characters)");
      if (*s == c.http.token)
        fail(where_of(h, "read_token"), "http.read_token must differ from http.token (which controls)");
      c.http.read_token = *s;
    }
    for (auto& [name, node] : get_strings(h, "server_names", "http.")) {
      if (!valid_host_name(lower(name)))
        fail(node->source(), "http.server_names: '" + name + "' is not a host name (such as hall-pc.local)");
      c.http.server_names.push_back(lower(name));
    }
    for (auto& [origin, node] : get_strings(h, "allowed_origins", "http.")) {
      std::string o = lower(origin);
      while (!o.empty() && o.back() == '/') o.pop_back();
      if (!valid_origin(o))
        fail(node->source(), "http.allowed_origins: '" + origin +
                                 "' is not a web origin such as \"http://hall-pc.local:8080\"");
      c.http.allowed_origins.push_back(o);
    }
    c.http.open_read_set = get_bool(h, "open_read", "http.");
    if (auto v = get_int(h, "max_clients", "http.", 1, 10000)) c.http.max_clients = std::size_t(*v);
    if (auto v = get_int(h, "max_ws_clients", "http.", 1, 10000)) c.http.max_ws_clients = std::size_t(*v);
    if (auto v = get_int(h, "ws_max_lifetime_s", "http.", 60, 7 * 24 * 3600))
      c.http.ws_max_lifetime_s = int(*v);
    if (auto v = get_int(h, "ws_queue_bytes", "http.", 4096, std::int64_t{1} << 30))
      c.http.ws_queue_bytes = std::size_t(*v);
    if (auto e = exposure_problem(c.http, "http.listen"); !e.empty()) fail(n->source(), e);
  }
  derive_open_read(c.http);

  if (const toml::node* n = root.get("journal")) {
    if (!n->is_table()) fail(n->source(), "journal must be a table [journal]");
    const toml::table& j = *n->as_table();
    check_keys(j, "journal", {"sync_ms"});
    if (auto v = get_int(j, "sync_ms", "journal.", 0, 10000)) c.journal.sync_ms = int(*v);
  }

  if (const toml::node* n = root.get("gaps")) {
    if (!n->is_table()) fail(n->source(), "gaps must be a table [gaps]");
    const toml::table& g = *n->as_table();
    check_keys(g, "gaps",
               {"ranker", "engine", "engine_nodes", "engine_timeout_ms", "hold_uncounted", "openings"});
    if (auto s = get_string(g, "ranker", "gaps.")) {
      if (*s != "rules" && *s != "stockfish")
        fail(where_of(g, "ranker"), "unknown gaps.ranker '" + *s + "' (\"rules\" or \"stockfish\")" +
                                        suggestion(*s, {"rules", "stockfish"}));
      c.gaps.ranker = *s;
    }
    if (auto s = get_string(g, "engine", "gaps.")) {
      if (s->empty() || (*s)[0] != '/')
        fail(where_of(g, "engine"), "gaps.engine must be an absolute path, not '" + *s + "'");
      c.gaps.engine = *s;
    }
    if (auto v = get_int(g, "engine_nodes", "gaps.", 1, 10'000'000)) c.gaps.engine_nodes = int(*v);
    if (auto v = get_int(g, "engine_timeout_ms", "gaps.", 100, 600'000)) c.gaps.engine_timeout_ms = int(*v);
    if (auto v = get_bool(g, "hold_uncounted", "gaps.")) c.gaps.hold_uncounted = *v;
    if (auto s = get_string(g, "openings", "gaps.")) {
      if (!s->empty() && (*s)[0] != '/')
        fail(where_of(g, "openings"),
             "gaps.openings must be an absolute path, or \"\" for none, not '" + *s + "'");
      c.gaps.openings = *s;
    }
  }

  if (const toml::node* n = root.get("discovery")) {
    if (!n->is_table()) fail(n->source(), "discovery must be a table [discovery]");
    const toml::table& d = *n->as_table();
    check_keys(d, "discovery", {"usb", "generic_bridges"});
    if (auto v = get_bool(d, "usb", "discovery.")) c.discovery.usb = *v;
    if (auto v = get_bool(d, "generic_bridges", "discovery.")) c.discovery.generic_bridges = *v;
  }

  if (const toml::node* n = root.get("event")) {
    if (!n->is_table()) fail(n->source(), "event must be a table [event]");
    const toml::table& e = *n->as_table();
    check_keys(e, "event", {"name", "site", "date", "round", "time_control"});
    for (auto [key, to] : {std::pair{"name", &c.event.name}, std::pair{"site", &c.event.site},
                           std::pair{"date", &c.event.date}, std::pair{"round", &c.event.round},
                           std::pair{"time_control", &c.event.time_control}}) {
      auto v = get_string(e, key, "event.");
      if (!v) continue;
      if (v->size() > 256 ||
          std::any_of(v->begin(), v->end(), [](char ch) { return (unsigned char)ch < 0x20; }))
        fail(where_of(e, key),
             std::string("event.") + key + ": at most 256 characters, no control characters");
      *to = *v;
    }
  }

  if (const toml::node* n = root.get("livechess")) {
    if (!n->is_table()) fail(n->source(), "livechess must be a table [livechess]");
    const toml::table& l = *n->as_table();
    check_keys(l, "livechess", {"listen", "control", "allowed_origins", "boards"});
    c.livechess.enabled = true;
    if (auto s = get_string(l, "listen", "livechess.")) {
      auto addr = parse_listen(*s);
      if (!addr) fail(where_of(l, "listen"), "livechess.listen: " + addr.error());
      c.livechess.listen = *s;
      c.livechess.host = addr->host;
      c.livechess.port = addr->port;
      c.livechess.loopback = addr->loopback;
    }
    if (auto control = get_bool(l, "control", "livechess.")) c.livechess.control = *control;
    if (l.get("boards")) {
      for (auto& [id, node] : get_strings(l, "boards", "livechess.")) {
        if (id.empty() || id.size() > 128)
          fail(node->source(), "livechess.boards: '" + id + "' is not a board id");
        if (std::find(c.livechess.boards.begin(), c.livechess.boards.end(), id) != c.livechess.boards.end())
          fail(node->source(), "livechess.boards: '" + id + "' is listed twice");
        c.livechess.boards.push_back(id);
      }
    }
    if (l.get("allowed_origins")) {
      c.livechess.allowed_origins.clear();
      for (auto& [origin, node] : get_strings(l, "allowed_origins", "livechess.")) {
        std::string o = lower(origin);
        while (!o.empty() && o.back() == '/') o.pop_back();
        if (o != "*" && !valid_origin(o))
          fail(node->source(), "livechess.allowed_origins: '" + origin +
                                   "' is not a web origin such as \"https://lichess.org\" (or \"*\": any)");
        c.livechess.allowed_origins.push_back(o);
      }
    }
  }

  if (const toml::node* n = root.get("mqtt")) {
    if (!n->is_table()) fail(n->source(), "mqtt must be a table [mqtt]");
    const toml::table& m = *n->as_table();
    check_keys(m, "mqtt",
               {"broker", "hall", "host", "aggregate", "publish", "username", "password_file", "ca_file",
                "cert_file", "key_file", "trusted", "keepalive_s", "client_id", "max_message"});
    c.mqtt.enabled = true;
    if (auto s = get_string(m, "broker", "mqtt.")) {
      auto b = parse_broker_url(*s);
      if (!b) fail(where_of(m, "broker"), "mqtt.broker: " + b.error());
      c.mqtt.broker = *s;
      c.mqtt.tls = b->tls;
      c.mqtt.broker_host = b->host;
      c.mqtt.broker_port = b->port;
    }
    // Names become topic levels: no wildcard, no level separator, nothing a broker would refuse.
    auto topic_name = [&](const char* key, std::string& to) {
      if (auto s = get_string(m, key, "mqtt.")) {
        if (!valid_topic_name(*s))
          fail(where_of(m, key), std::string("mqtt.") + key + " '" + *s +
                                     "': 1 to 64 letters, digits, '.', '_' or '-' (it is a topic level)");
        to = *s;
      }
    };
    topic_name("hall", c.mqtt.hall);
    topic_name("host", c.mqtt.host);
    if (auto v = get_bool(m, "aggregate", "mqtt.")) c.mqtt.aggregate = *v;
    if (auto v = get_bool(m, "publish", "mqtt.")) c.mqtt.publish = *v;
    if (auto s = get_string(m, "username", "mqtt.")) c.mqtt.username = *s;
    for (auto [key, to] :
         {std::pair{"password_file", &c.mqtt.password_file}, std::pair{"ca_file", &c.mqtt.ca_file},
          std::pair{"cert_file", &c.mqtt.cert_file}, std::pair{"key_file", &c.mqtt.key_file}})
      if (auto s = get_string(m, key, "mqtt.")) {
        if (s->empty() || (*s)[0] != '/')
          fail(where_of(m, key), std::string("mqtt.") + key + " must be an absolute path, not '" + *s + "'");
        *to = *s;
      }
    if (!c.mqtt.password_file.empty() && c.mqtt.username.empty())
      fail(where_of(m, "password_file"), "mqtt.password_file needs mqtt.username");
    if (c.mqtt.cert_file.empty() != c.mqtt.key_file.empty())
      fail(m.source(), "mqtt.cert_file and mqtt.key_file go together (a client certificate and its key)");
    if ((!c.mqtt.ca_file.empty() || !c.mqtt.cert_file.empty()) && !c.mqtt.tls)
      fail(m.source(), "mqtt.ca_file, cert_file and key_file are for TLS: the broker must be mqtts://");
    if (m.get("trusted"))
      for (auto& [name, node] : get_strings(m, "trusted", "mqtt.")) {
        if (!valid_topic_name(name))
          fail(node->source(),
               "mqtt.trusted: '" + name + "' is not a broker username this topic tree can carry");
        c.mqtt.trusted.push_back(name);
      }
    if (auto v = get_int(m, "keepalive_s", "mqtt.", 5, 3600)) c.mqtt.keepalive_s = int(*v);
    if (auto s = get_string(m, "client_id", "mqtt.")) {
      // MQTT 3.1.1 guarantees 1 to 23 bytes of [0-9a-zA-Z]; Mosquitto takes up to 65535 of any UTF-8.
      if (s->empty() || s->size() > 128 ||
          std::any_of(s->begin(), s->end(), [](char ch) { return (unsigned char)ch <= 0x20; }))
        fail(where_of(m, "client_id"), "mqtt.client_id '" + *s + "': 1 to 128 characters, no space");
      c.mqtt.client_id = *s;
    }
    if (auto v = get_int(m, "max_message", "mqtt.", 4096, std::int64_t{256} << 20))
      c.mqtt.max_message = std::size_t(*v);
  }

  if (const toml::node* n = root.get("broadcast")) {
    if (!n->is_table()) fail(n->source(), "broadcast must be a table [broadcast]");
    const toml::table& b = *n->as_table();
    check_keys(b, "broadcast", {"delay_s", "listen"});
    if (auto v = get_int(b, "delay_s", "broadcast.", 0, 24 * 3600)) c.broadcast.delay_s = int(*v);
    if (auto s = get_string(b, "listen", "broadcast.")) {
      auto addr = parse_listen(*s);
      if (!addr) fail(where_of(b, "listen"), "broadcast.listen: " + addr.error());
      if (addr->port != 0 && addr->port == c.http.port && addr->host == c.http.host)
        fail(where_of(b, "listen"), "broadcast.listen must differ from http.listen (the arbiter's)");
      c.broadcast.listen = *s;
      c.broadcast.host = addr->host;
      c.broadcast.port = addr->port;
    }
  }

  if (const toml::node* n = root.get("push")) {
    if (!n->is_table()) fail(n->source(), "push must be a table ([push.lichess])");
    const toml::table& p = *n->as_table();
    check_keys(p, "push", {"lichess"});
    if (const toml::node* l = p.get("lichess")) {
      if (!l->is_table()) fail(l->source(), "push.lichess must be a table [push.lichess]");
      const toml::table& t = *l->as_table();
      check_keys(t, "push.lichess", {"round", "rounds", "token_file", "url", "interval_s", "timeout_s"});
      // A round id, or a list of them (a round of more than 64 games split across lichess rounds).
      auto ids = [&](const toml::node& node, const std::string& what) {
        std::vector<std::string> out;
        auto check = [&](const toml::node& e) {
          if (!e.is_string()) fail(e.source(), what + " must be a round id or a list of them");
          const std::string id(e.as_string()->get());
          if (id.size() != 8 ||
              id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") !=
                  std::string::npos)
            fail(e.source(),
                 what + " '" + id +
                     "' is not a round id (8 letters and digits, the last part of the round's URL)");
          if (std::find(out.begin(), out.end(), id) != out.end())
            fail(e.source(), what + ": " + id + " twice");
          out.push_back(id);
        };
        if (const toml::array* a = node.as_array()) {
          if (a->empty()) fail(node.source(), what + " is an empty list");
          for (const toml::node& e : *a) check(e);
        } else {
          check(node);
        }
        return out;
      };
      if (const toml::node* r = t.get("round")) c.push_lichess.round = ids(*r, "push.lichess.round");
      if (const toml::node* r = t.get("rounds")) {
        const toml::table* rt = r->as_table();
        if (!rt)
          fail(r->source(),
               "push.lichess.rounds is a table of eboardd rounds: { \"1\" = \"abCD1234\", \"2\" = "
               "[\"efGH5678\", \"ijKL9012\"] }");
        for (auto&& [name, ids_node] : *rt)
          c.push_lichess.rounds[std::string(name.str())] =
              ids(ids_node, "push.lichess.rounds." + std::string(name.str()));
      }
      if (!c.push_lichess.enabled())
        fail(t.source(),
             "[push.lichess] needs the broadcast round's id: round = \"abcd1234\" (or rounds = { … })");
      auto token = get_string(t, "token_file", "push.lichess.");
      if (!token || token->empty() || (*token)[0] != '/')
        fail(token ? where_of(t, "token_file") : t.source(),
             "[push.lichess] needs token_file = \"/absolute/path\" (a file holding a lichess token with the "
             "study:write scope)");
      c.push_lichess.token_file = *token;
      if (auto u = get_string(t, "url", "push.lichess.")) {
        std::string url = *u;
        while (!url.empty() && url.back() == '/') url.pop_back();
        if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0)
          fail(where_of(t, "url"), "push.lichess.url must be http:// or https://, not '" + *u + "'");
        c.push_lichess.url = url;
      }
      if (auto v = get_int(t, "interval_s", "push.lichess.", 1, 3600)) c.push_lichess.interval_s = int(*v);
      if (auto v = get_int(t, "timeout_s", "push.lichess.", 1, 300)) c.push_lichess.timeout_s = int(*v);
    }
  }

  if (const toml::array* boards = array_of_tables(root, "board")) {
    for (const toml::node& bn : *boards) {
      const toml::table& b = *bn.as_table();
      check_keys(b, "board",
                 {"id", "port", "serial", "protocol", "rules", "chess960", "raw_log", "settle_ms"});
      BoardConfig bc;
      bc.line = int(b.source().begin.line);
      auto id = get_string(b, "id", "board.");
      if (!id) fail(b.source(), "[[board]] needs an id (e.g. id = \"A\")");
      if (!valid_board_id(*id))
        fail(where_of(b, "id"),
             "board id '" + *id + "' must be 1 to 32 letters, digits, '_' or '-' (it names files and URLs)");
      for (const auto& other : c.boards)
        if (other.id == *id)
          fail(where_of(b, "id"),
               "duplicate board id '" + *id + "' (first defined on line " + std::to_string(other.line) + ")");
      bc.id = *id;
      std::string ctx = "board " + bc.id + ": ";
      if (auto s = get_string(b, "port", "board.")) {
        if (s->empty() || (*s)[0] != '/')
          fail(where_of(b, "port"),
               ctx + "port must be a device path such as /dev/ttyUSB0, not '" + *s + "'");
        bc.port = *s;
      }
      if (auto s = get_string(b, "serial", "board.")) {
        if (s->empty() || s->find('/') != std::string::npos)
          fail(where_of(b, "serial"), ctx + "serial must be a USB serial number, not '" + *s + "'");
        bc.serial = *s;
      }
      if (auto s = get_string(b, "protocol", "board.")) {
        if (!session::find_protocol(*s) && *s != NO_DEVICE)
          fail(where_of(b, "protocol"),
               ctx + "protocol '" + *s + "' is not supported by the daemon yet (supported: " +
                   session::protocol_names() + "; \"none\" for a board without a device)");
        bc.protocol = *s;
      }
      // A board without wood is declared so, never by a port left out: a forgotten port stays a mistake.
      if (bc.woodless()) {
        for (const char* key : {"port", "serial", "settle_ms", "raw_log"})
          if (b.contains(key))
            fail(where_of(b, key), ctx + "protocol = \"none\" is a board without a device: it has no " + key +
                                       " (its moves are typed, its result entered)");
        bc.raw_log = false;  // no wire
      } else {
        if (bc.port.empty() && bc.serial.empty())
          fail(b.source(), ctx +
                               "needs port = \"/dev/...\" or serial = \"<USB serial number>\" (or protocol = "
                               "\"none\" for a board without a device, whose moves are typed)");
        if (!bc.port.empty() && !bc.serial.empty())
          fail(where_of(b, "serial"), ctx + "give port or serial, not both");
      }
      if (auto s = get_string(b, "rules", "board.")) {
        if (auto e = check_profile(*s); !e.empty()) fail(where_of(b, "rules"), ctx + e);
        bc.rules = *s;
      }
      if (auto v = get_bool(b, "chess960", "board.")) bc.chess960 = *v;
      if (auto v = get_bool(b, "raw_log", "board.")) bc.raw_log = *v;
      if (auto v = get_int(b, "settle_ms", "board.", 200, 60000)) {
        if (const auto* p = session::find_protocol(bc.protocol); p && p->has_clock)
          fail(where_of(b, "settle_ms"), ctx + "settle_ms is for boards without a clock (" +
                                             names_with_clock(false) + "): a " + bc.protocol +
                                             " board's moves are completed by its clock");
        bc.settle_ms = int(*v);
      }
      c.boards.push_back(std::move(bc));
    }
  }

  if (const toml::array* buses = array_of_tables(root, "bus")) {
    for (const toml::node& busn : *buses) {
      const toml::table& t = *busn.as_table();
      check_keys(t, "bus", {"port", "boards", "poll_ms", "rules"});
      BusConfig bus;
      bus.line = int(t.source().begin.line);
      auto port = get_string(t, "port", "bus.");
      if (!port) fail(t.source(), "[[bus]] needs port = \"/dev/...\" (the serial line the boards are on)");
      if (port->empty() || (*port)[0] != '/')
        fail(where_of(t, "port"), "bus port must be a device path such as /dev/ttyUSB0, not '" + *port + "'");
      bus.port = *port;
      for (const auto& other : c.buses)
        if (other.port == bus.port)
          fail(where_of(t, "port"),
               "bus port " + bus.port + " is already the bus of line " + std::to_string(other.line));
      for (const auto& b : c.boards)
        if (b.bus_address == 0 && b.device() == bus.port)
          fail(where_of(t, "port"), "bus port " + bus.port + " is the port of board " + b.id + " (line " +
                                        std::to_string(b.line) + "): a line is a bus or one board");
      if (auto v = get_int(t, "poll_ms", "bus.", 20, 60000)) bus.poll_ms = int(*v);
      if (auto s = get_string(t, "rules", "bus.")) {
        if (auto e = check_profile(*s); !e.empty()) fail(where_of(t, "rules"), e);
        bus.rules = *s;
      }
      if (const toml::node* bn = t.get("boards")) {
        const toml::array* arr = bn->as_array();
        if (!arr || arr->empty())
          fail(bn->source(),
               "bus boards must be a list such as [ { address = 1025, id = \"12\" } ] "
               "(leave it out to find the boards by ping)");
        for (const toml::node& en : *arr) {
          const toml::table* e = en.as_table();
          if (!e) fail(en.source(), "each bus board is { address = 1025, id = \"12\" }");
          check_keys(*e, "bus board", {"address", "id", "rules", "chess960", "raw_log"});
          BoardConfig bc;
          bc.line = int(e->source().begin.line);
          auto address = get_int(*e, "address", "bus board ", 1, 16383);
          if (!address)
            fail(e->source(),
                 "a bus board needs its address (the value of its 5-digit serial number, e.g. 1025)");
          auto id = get_string(*e, "id", "bus board ");
          if (!id) fail(e->source(), "a bus board needs an id (e.g. id = \"12\")");
          if (!valid_board_id(*id))
            fail(where_of(*e, "id"),
                 "board id '" + *id +
                     "' must be 1 to 32 letters, digits, '_' or '-' (it names files and URLs)");
          for (const auto& other : c.boards)
            if (other.id == *id)
              fail(where_of(*e, "id"), "duplicate board id '" + *id + "' (first defined on line " +
                                           std::to_string(other.line) + ")");
          bc.id = *id;
          bc.bus_address = std::uint16_t(*address);
          for (std::uint16_t a : bus.addresses)
            if (a == bc.bus_address)
              fail(where_of(*e, "address"), "address " + std::to_string(a) + " is twice on bus " + bus.port);
          bc.port = bus.port;
          bc.rules = bus.rules;
          if (auto s = get_string(*e, "rules", "bus board ")) {
            if (auto err = check_profile(*s); !err.empty())
              fail(where_of(*e, "rules"), "board " + bc.id + ": " + err);
            bc.rules = *s;
          }
          if (auto v = get_bool(*e, "chess960", "bus board ")) bc.chess960 = *v;
          if (auto v = get_bool(*e, "raw_log", "bus board ")) bc.raw_log = *v;
          bus.addresses.push_back(bc.bus_address);
          c.boards.push_back(std::move(bc));
        }
      }
      c.buses.push_back(std::move(bus));
    }
  }

  if (const toml::array* matches = array_of_tables(root, "match")) {
    for (const toml::node& mn : *matches) {
      const toml::table& m = *mn.as_table();
      check_keys(m, "match", {"boards", "rules"});
      MatchConfig mc;
      mc.line = int(m.source().begin.line);
      const toml::node* bn = m.get("boards");
      if (!bn) fail(m.source(), "[[match]] needs boards = [\"A\", \"B\"]");
      const toml::array* arr = bn->as_array();
      if (!arr || arr->size() != 2 || !(*arr)[0].is_string() || !(*arr)[1].is_string())
        fail(bn->source(), "match boards must be two board ids, e.g. boards = [\"A\", \"B\"]");
      for (std::size_t i = 0; i < 2; ++i) {
        mc.boards[i] = std::string((*arr)[i].as_string()->get());
        const BoardConfig* known = c.board(mc.boards[i]);
        if (!known) {
          std::string ids;
          for (const auto& b : c.boards) ids += (ids.empty() ? "" : ", ") + b.id;
          // A board a bus's discovery finds is not known before it answers: a match cannot wait for it.
          const bool found_by_discovery = std::any_of(
              c.buses.begin(), c.buses.end(),
              [&](const BusConfig& bus) { return bus.discovery() && mc.boards[i].rfind("bus", 0) == 0; });
          fail((*arr)[i].source(), "match refers to unknown board '" + mc.boards[i] +
                                       "' (boards defined: " + (ids.empty() ? "none" : ids) + ")" +
                                       (found_by_discovery ? "; a bus board found by discovery cannot play "
                                                             "in a match: list it in its [[bus]] boards"
                                                           : ""));
        }
        // A match is played on the clocks: its boards' presses complete the moves and hand pieces over.
        if (known->woodless())
          fail((*arr)[i].source(), "match board '" + mc.boards[i] +
                                       "' is a board without a device: a bughouse match needs DGT boards");
        if (const auto* p = session::find_protocol(known->protocol); !p || !p->has_clock)
          fail((*arr)[i].source(),
               "match board '" + mc.boards[i] + "' is a " + known->protocol +
                   " board, which has no clock: a bughouse match needs boards with a clock (" +
                   names_with_clock(true) + ")");
      }
      if (mc.boards[0] == mc.boards[1]) fail(bn->source(), "a match needs two different boards");
      for (const auto& other : c.matches)
        for (const auto& id : mc.boards)
          if (other.boards[0] == id || other.boards[1] == id)
            fail(bn->source(),
                 "board '" + id + "' is already in the match on line " + std::to_string(other.line));
      if (auto s = get_string(m, "rules", "match.")) {
        if (auto e = check_profile(*s); !e.empty()) fail(where_of(m, "rules"), e);
        if (s->rfind("bughouse", 0) != 0)
          fail(
              where_of(m, "rules"),
              "match rules must be a bughouse profile (bughouse-fqe, bughouse-clock-move), not '" + *s + "'");
        mc.rules = *s;
      }
      for (const auto& id : mc.boards) {
        const BoardConfig* bc = c.board(id);
        if (bc->rules != "fide-standard" && bc->rules != mc.rules)
          fail(bn->source(), "board '" + id + "' has rules = \"" + bc->rules + "\" (line " +
                                 std::to_string(bc->line) + ") but its match plays " + mc.rules);
      }
      c.matches.push_back(std::move(mc));
    }
  }
  return c;
}

}  // namespace

std::string BoardConfig::device() const {
  if (!port.empty()) return port;
  if (woodless()) return {};
  return "/dev/eboard/" + protocol + "-" + serial;
}

bool BoardConfig::same_settings(const BoardConfig& o) const {
  return id == o.id && port == o.port && serial == o.serial && protocol == o.protocol && rules == o.rules &&
         chess960 == o.chess960 && raw_log == o.raw_log && bus_address == o.bus_address &&
         settle_ms == o.settle_ms;
}

std::string discovered_bus_board_id(std::uint16_t address) { return "bus" + std::to_string(address); }

const BoardConfig* Config::board(std::string_view id) const {
  for (const auto& b : boards)
    if (b.id == id) return &b;
  return nullptr;
}

std::string Config::profile_of(std::string_view board_id) const {
  for (const auto& m : matches)
    if (m.boards[0] == board_id || m.boards[1] == board_id) return m.rules;
  const BoardConfig* b = board(board_id);
  return b ? b->rules : "fide-standard";
}

std::string ConfigError::what() const {
  std::string s = file;
  if (line > 0) s += ":" + std::to_string(line) + ":" + std::to_string(column);
  return s + ": " + message;
}

tl::expected<ListenAddress, std::string> parse_listen(std::string_view text) {
  const std::string usage =
      "'" + std::string(text) + "' is not HOST:PORT (e.g. 127.0.0.1:7780 or [::1]:7780)";
  std::string host;
  std::string_view port_text;
  if (!text.empty() && text[0] == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return tl::unexpected(usage);
    host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return tl::unexpected(usage);
    host = std::string(text.substr(0, colon));
    if (host.find(':') != std::string::npos)
      return tl::unexpected(usage + "; write an IPv6 address in brackets");
    port_text = text.substr(colon + 1);
  }
  if (port_text.empty() || port_text.size() > 5 ||
      !std::all_of(port_text.begin(), port_text.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    return tl::unexpected(usage + ": the port must be a number");
  unsigned long port = std::stoul(std::string(port_text));
  if (port > 65535) return tl::unexpected(usage + ": the port must be at most 65535");
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code ec;
  auto addr = boost::asio::ip::make_address(host, ec);
  if (ec || host.empty())
    return tl::unexpected(usage + ": '" + host +
                          "' is not an IP address (names other than localhost are not looked up)");
  return ListenAddress{addr.to_string(), std::uint16_t(port), addr.is_loopback()};
}

tl::expected<void, std::string> override_listen(HttpConfig& http, std::string_view listen,
                                                std::string_view what) {
  auto addr = parse_listen(listen);
  if (!addr) return tl::unexpected(std::string(what) + ": " + addr.error());
  HttpConfig h = http;
  h.listen = std::string(listen);
  h.host = addr->host;
  h.port = addr->port;
  h.loopback = addr->loopback;
  if (auto e = exposure_problem(h, what); !e.empty()) return tl::unexpected(e);
  derive_open_read(h);
  http = std::move(h);
  return {};
}

tl::expected<Config, ConfigError> parse_config(std::string_view text, const std::string& source_name) {
  try {
    toml::table root = toml::parse(text, source_name);
    return build(root, source_name);
  } catch (const toml::parse_error& e) {
    return tl::unexpected(ConfigError{source_name, int(e.source().begin.line), int(e.source().begin.column),
                                      "TOML syntax: " + std::string(e.description())});
  } catch (const Failure& f) {
    return tl::unexpected(ConfigError{source_name, f.line, f.column, f.message});
  }
}

tl::expected<Config, ConfigError> load_config(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return tl::unexpected(ConfigError{path.string(), 0, 0, "cannot open the file"});
  std::stringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path.string());
}

ConfigDiff diff(const Config& before, const Config& after) {
  ConfigDiff d;
  for (const auto& b : after.boards) {
    const BoardConfig* old = before.board(b.id);
    if (!old)
      d.added.push_back(b.id);
    else if (!old->same_settings(b) || before.profile_of(b.id) != after.profile_of(b.id))
      d.changed.push_back(b.id);
    else
      d.unchanged.push_back(b.id);
  }
  for (const auto& b : before.boards)
    if (!after.board(b.id)) d.removed.push_back(b.id);
  // The token and open_read are looked at per request; the rest is the listening socket and its limits.
  HttpConfig a = after.http;
  a.token = before.http.token;
  a.read_token = before.http.read_token;
  a.open_read = before.http.open_read;
  a.open_read_set = before.http.open_read_set;
  a.server_names = before.http.server_names;
  a.allowed_origins = before.http.allowed_origins;
  d.http_changed = !(before.http == a);
  d.http_access_changed = before.http.token != after.http.token ||
                          before.http.read_token != after.http.read_token ||
                          before.http.open_read != after.http.open_read ||
                          before.http.open_read_set != after.http.open_read_set ||
                          before.http.server_names != after.http.server_names ||
                          before.http.allowed_origins != after.http.allowed_origins;
  d.state_dir_changed = before.state_dir != after.state_dir;
  d.matches_changed = before.matches != after.matches;
  d.log_level_changed = before.log_level != after.log_level;
  d.journal_changed = !(before.journal == after.journal);
  d.discovery_changed = !(before.discovery == after.discovery);
  d.event_changed = !(before.event == after.event);
  d.broadcast_changed =
      !(before.broadcast == after.broadcast) || !(before.push_lichess == after.push_lichess);
  d.livechess_changed = !(before.livechess == after.livechess);
  d.buses_changed = before.buses != after.buses;
  d.mqtt_changed = !(before.mqtt == after.mqtt);
  return d;
}

std::string ConfigDiff::summary() const {
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
    return s.empty() ? std::string("-") : s;
  };
  std::string s = "added " + list(added) + ", removed " + list(removed) + ", changed " + list(changed) +
                  ", unchanged " + list(unchanged);
  if (matches_changed) s += ", matches changed";
  if (log_level_changed) s += ", log level changed";
  if (journal_changed) s += ", journal settings changed";
  if (discovery_changed) s += ", discovery changed";
  if (event_changed) s += ", event tags changed";
  if (broadcast_changed) s += ", broadcast or push changed (needs a restart)";
  if (livechess_changed) s += ", livechess changed (needs a restart)";
  if (buses_changed) s += ", [[bus]] lines changed (needs a restart)";
  if (mqtt_changed) s += ", mqtt changed (needs a restart)";
  if (http_access_changed) s += ", http access (tokens, open_read, server names, origins) changed";
  if (http_changed) s += ", http listen or limits changed (needs a restart)";
  if (state_dir_changed) s += ", state_dir changed (needs a restart)";
  return s;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Damerau-Levenshtein (optimal string alignment): a swap of two neighbours is one slip, not two.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    before = prev;
    prev = cur;
  }
  return prev[b.size()];
}

tl::expected<BrokerAddress, std::string> parse_broker_url(std::string_view url) {
  BrokerAddress b;
  std::string_view rest;
  if (url.starts_with("mqtt://")) {
    rest = url.substr(7);
  } else if (url.starts_with("mqtts://")) {
    rest = url.substr(8);
    b.tls = true;
    b.port = 8883;
  } else {
    return tl::unexpected("'" + std::string(url) + "' is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]");
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('@') != std::string_view::npos)
    return tl::unexpected("'" + std::string(url) +
                          "': credentials go in mqtt.username and mqtt.password_file, not in the URL");
  std::string_view host = rest;
  if (!rest.empty() && rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return tl::unexpected("'" + std::string(url) + "': unclosed [");
    host = rest.substr(1, close - 1);
    rest = rest.substr(close + 1);
    if (!rest.empty() && rest.front() != ':')
      return tl::unexpected("'" + std::string(url) + "': junk after ]");
  } else if (auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    rest = rest.substr(colon);
  } else {
    rest = {};
  }
  if (host.empty() || host.find_first_of("/@ ") != std::string_view::npos)
    return tl::unexpected("'" + std::string(url) +
                          "' names no broker host (credentials go in their own keys)");
  b.host = std::string(host);
  if (!rest.empty()) {
    rest.remove_prefix(1);
    unsigned port = 0;
    auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), port);
    if (ec != std::errc() || p != rest.data() + rest.size() || port == 0 || port > 65535)
      return tl::unexpected("'" + std::string(url) + "': the port must be 1 to 65535");
    b.port = std::uint16_t(port);
  }
  return b;
}

bool valid_topic_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

}  // namespace eboard::config
