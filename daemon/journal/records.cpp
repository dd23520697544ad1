// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/records.hpp"

#include <nlohmann/json.hpp>

#include "rules/wood.hpp"

namespace eboard::journal {

using nlohmann::json;
using namespace eboard::rules;

namespace {

json sensor_json(const SensorEvent& e) {
  json j{{"t", e.t_ms}};
  std::visit(
      [&j](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, PieceLifted>) {
          j["lift"] = square_name(v.square);
        } else if constexpr (std::is_same_v<T, PiecePlaced>) {
          j["place"] = square_name(v.square);
          j["piece"] = std::string(1, piece_char(v.piece));
        } else if constexpr (std::is_same_v<T, BoardSnapshot>) {
          j["board"] = placement(v.squares);
        } else if constexpr (std::is_same_v<T, ClockReading>) {
          j["clock"] =
              json{{"left", v.left_ms},        {"right", v.right_ms},
                   {"running", v.running},     {"up", v.lever_up == ClockSide::Left ? "left" : "right"},
                   {"left_flag", v.left_flag}, {"right_flag", v.right_flag},
                   {"present", v.present}};
        } else if constexpr (std::is_same_v<T, DeviceLink>) {
          j["link"] = v.connected;
        }
      },
      e.what);
  return j;
}

Piece piece_from_letter(char c) {
  PieceType t = piece_type_from_char(c);
  if (t == NO_PIECE_TYPE) return NO_PIECE;
  return make_piece(c >= 'a' ? BLACK : WHITE, t);
}

tl::expected<SensorEvent, std::string> sensor_from_json(const json& j) {
  SensorEvent e;
  e.t_ms = j.at("t").get<std::int64_t>();
  auto square = [](const json& v) -> tl::expected<Square, std::string> {
    Square s = parse_square(v.get<std::string>());
    if (s == SQ_NONE) return tl::unexpected("bad square " + v.dump());
    return s;
  };
  if (j.contains("lift")) {
    auto s = square(j["lift"]);
    if (!s) return tl::unexpected(s.error());
    e.what = PieceLifted{*s};
  } else if (j.contains("place")) {
    auto s = square(j["place"]);
    if (!s) return tl::unexpected(s.error());
    std::string p = j.at("piece").get<std::string>();
    Piece piece = p.size() == 1 ? piece_from_letter(p[0]) : NO_PIECE;
    if (piece == NO_PIECE) return tl::unexpected("bad piece '" + p + "'");
    e.what = PiecePlaced{*s, piece};
  } else if (j.contains("board")) {
    auto b = parse_placement(j["board"].get<std::string>());
    if (!b) return tl::unexpected(b.error());
    e.what = BoardSnapshot{*b};
  } else if (j.contains("clock")) {
    const json& c = j["clock"];
    ClockReading r;
    r.left_ms = c.at("left").get<std::int64_t>();
    r.right_ms = c.at("right").get<std::int64_t>();
    r.running = c.at("running").get<bool>();
    r.lever_up = c.at("up").get<std::string>() == "left" ? ClockSide::Left : ClockSide::Right;
    r.left_flag = c.at("left_flag").get<bool>();
    r.right_flag = c.at("right_flag").get<bool>();
    r.present = c.at("present").get<bool>();
    e.what = r;
  } else if (j.contains("link")) {
    e.what = DeviceLink{j["link"].get<bool>()};
  } else {
    return tl::unexpected(std::string("sensor record of no known kind"));
  }
  return e;
}

// A clock reading's body, byte for byte what sensor_json(e).dump() gives (keys in nlohmann's sorted
// order): each board's clock sends one a second, and building the JSON tree for it cost a dozen
// allocations.
std::string clock_body(std::int64_t t_ms, const ClockReading& v) {
  const auto flag = [](bool b) { return b ? "true" : "false"; };
  std::string out;
  out.reserve(160);
  out += "{\"clock\":{\"left\":";
  out += std::to_string(v.left_ms);
  out += ",\"left_flag\":";
  out += flag(v.left_flag);
  out += ",\"present\":";
  out += flag(v.present);
  out += ",\"right\":";
  out += std::to_string(v.right_ms);
  out += ",\"right_flag\":";
  out += flag(v.right_flag);
  out += ",\"running\":";
  out += flag(v.running);
  out += ",\"up\":";
  out += v.lever_up == ClockSide::Left ? "\"left\"" : "\"right\"";
  out += "},\"t\":";
  out += std::to_string(t_ms);
  out += '}';
  return out;
}

void put_i64(std::string& out, std::int64_t v) {
  auto u = static_cast<std::uint64_t>(v);
  for (int i = 0; i < 8; ++i) out.push_back(char((u >> (8 * i)) & 0xFFu));
}

std::int64_t get_i64(std::string_view s) {
  std::uint64_t u = 0;
  for (int i = 0; i < 8; ++i) u |= std::uint64_t(static_cast<unsigned char>(s[std::size_t(i)])) << (8 * i);
  return static_cast<std::int64_t>(u);
}

}  // namespace

std::string placement(const std::array<Piece, 64>& board) { return rules::board_text(board); }

tl::expected<std::array<Piece, 64>, std::string> parse_placement(std::string_view text) {
  std::array<Piece, 64> b{};
  int rank = 7, file = 0;
  for (char c : text) {
    if (c == '/') {
      if (file != 8 || rank == 0) return tl::unexpected("bad placement '" + std::string(text) + "'");
      --rank, file = 0;
    } else if (c >= '1' && c <= '8') {
      file += c - '0';
    } else {
      Piece p = piece_from_letter(c);
      if (p == NO_PIECE || file > 7) return tl::unexpected("bad placement '" + std::string(text) + "'");
      b[std::size_t(rank) * 8 + std::size_t(file)] = p;
      ++file;
    }
    if (file > 8) return tl::unexpected("bad placement '" + std::string(text) + "'");
  }
  if (rank != 0 || file != 8) return tl::unexpected("bad placement '" + std::string(text) + "'");
  return b;
}

char record_type(const Entry& e) {
  static constexpr char TYPES[] = {'H', 'N', 'S', 'A', 'E', 'T', 'R', 'C', 'O'};
  return TYPES[e.index()];
}

std::string encode_body(const Entry& e) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, HeaderEntry>) {
          json j{{"format", v.format}, {"board", v.board}, {"created", v.created_ms}};
          if (v.previous_game > 0) {
            j["previous_game"] = v.previous_game;
            j["previous_file"] = v.previous_file;
            json tags = json::array();  // pairs, in the game's order
            for (const auto& t : v.tags) tags.push_back(json::array({t.name, t.value}));
            j["tags"] = tags;
          }
          return j.dump();
        } else if constexpr (std::is_same_v<T, NewGameEntry>) {
          json j{{"t", v.t_ms}, {"profile", v.profile}, {"chess960", v.chess960}, {"fen", v.fen}};
          if (v.complete_after_ms > 0) j["complete_after_ms"] = v.complete_after_ms;  // absent: a clock
          if (v.hold_uncounted) j["hold_uncounted"] = true;                           // absent: false
          return j.dump();
        } else if constexpr (std::is_same_v<T, SensorEvent>) {
          if (const auto* c = std::get_if<ClockReading>(&v.what)) return clock_body(v.t_ms, *c);
          return sensor_json(v).dump();
        } else if constexpr (std::is_same_v<T, AdvanceEntry>) {
          return json{{"t", v.t_ms}}.dump();
        } else if constexpr (std::is_same_v<T, EventEntry>) {
          return v.json;
        } else if constexpr (std::is_same_v<T, TagsEntry>) {
          json tags = json::object();
          for (const auto& t : v.tags) tags[t.name] = t.value;
          return json{{"t", v.t_ms}, {"tags", tags}}.dump();
        } else if constexpr (std::is_same_v<T, ControlEntry>) {
          json j{{"t", v.t_ms}, {"action", v.action}, {"side", v.side}, {"value", v.value}};
          // Only when given: a journal without them reads as before.
          if (v.white_ms >= 0 && v.black_ms >= 0) {
            j["white_ms"] = v.white_ms;
            j["black_ms"] = v.black_ms;
          }
          return j.dump();
        } else if constexpr (std::is_same_v<T, GapOrderEntry>) {
          return json{{"t", v.t_ms}, {"first_ply", v.first_ply}, {"candidates", v.candidates}}.dump();
        } else {
          std::string out;
          put_i64(out, v.t_ms);
          out.push_back(v.direction == drivers::Direction::FromBoard ? '\0' : '\1');
          out.append(reinterpret_cast<const char*>(v.bytes.data()), v.bytes.size());
          return out;
        }
      },
      e);
}

tl::expected<Entry, std::string> decode_entry(char type, std::string_view body) {
  if (type == 'R') {
    if (body.size() < 9) return tl::unexpected(std::string("raw record too short"));
    RawEntry r;
    r.t_ms = get_i64(body);
    r.direction = body[8] == '\0' ? drivers::Direction::FromBoard : drivers::Direction::ToBoard;
    r.bytes.assign(body.begin() + 9, body.end());
    return r;
  }
  if (type == 'E') return EventEntry{std::string(body)};
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return tl::unexpected(std::string("record '") + type + "' is not a JSON object");
  try {
    switch (type) {
      case 'H': {
        HeaderEntry h{j.at("format").get<int>(), j.at("board").get<std::string>(),
                      j.at("created").get<std::int64_t>()};
        h.previous_game = j.value("previous_game", 0);
        h.previous_file = j.value("previous_file", "");
        if (j.contains("tags"))
          for (const auto& t : j.at("tags"))
            h.tags.push_back({t.at(0).get<std::string>(), t.at(1).get<std::string>()});
        return h;
      }
      case 'N':
        return NewGameEntry{j.at("t").get<std::int64_t>(),
                            j.at("profile").get<std::string>(),
                            j.at("chess960").get<bool>(),
                            j.at("fen").get<std::string>(),
                            j.value("complete_after_ms", std::int64_t{0}),
                            j.value("hold_uncounted", false)};
      case 'A':
        return AdvanceEntry{j.at("t").get<std::int64_t>()};
      case 'S': {
        auto s = sensor_from_json(j);
        if (!s) return tl::unexpected(s.error());
        return *s;
      }
      case 'T': {
        TagsEntry t;
        t.t_ms = j.at("t").get<std::int64_t>();
        for (const auto& [k, v] : j.at("tags").items()) t.tags.push_back({k, v.get<std::string>()});
        return t;
      }
      case 'C':
        return ControlEntry{j.at("t").get<std::int64_t>(),
                            j.at("action").get<std::string>(),
                            j.value("side", ""),
                            j.value("value", ""),
                            j.value("white_ms", std::int64_t(-1)),
                            j.value("black_ms", std::int64_t(-1))};
      case 'O': {
        GapOrderEntry o{j.at("t").get<std::int64_t>(), j.at("first_ply").get<int>(), {}};
        o.candidates = j.at("candidates").get<std::vector<std::vector<std::string>>>();
        return o;
      }
      default:
        return tl::unexpected(std::string("unknown record type '") + type + "'");
    }
  } catch (const json::exception& ex) {
    return tl::unexpected(std::string("record '") + type + "': " + ex.what());
  }
}

}  // namespace eboard::journal
