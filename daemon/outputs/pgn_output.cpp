// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/pgn_output.hpp"

#include <algorithm>
#include <ctime>

#include "daemon/core/replay.hpp"

namespace eboard::outputs {

namespace {

std::tm utc(std::int64_t unix_ms) {
  std::time_t s = std::time_t(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  return tm;
}

void set_tag(rules::PgnTags& tags, const std::string& name, const std::string& value) {
  auto it = std::find_if(tags.begin(), tags.end(), [&](const rules::PgnTag& t) { return t.name == name; });
  if (it != tags.end())
    it->value = value;
  else
    tags.push_back({name, value});
}

}  // namespace

std::string pgn_date(std::int64_t unix_ms) {
  std::tm tm = utc(unix_ms);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y.%m.%d", &tm);
  return buf;
}

rules::GameRecord game_record(const BoardGame& g) {
  rules::GameRecord r = daemon::game_record(*g.game, g.board_id);
  if (g.started_ms > 0) set_tag(r.tags, "Date", pgn_date(g.started_ms));
  for (const auto& t : g.tags)
    if (t.name != "Result") set_tag(r.tags, t.name, t.value);  // the result is the game's, not a tag's
  return r;
}

std::string game_pgn(const BoardGame& g) {
  auto text = rules::write_pgn(game_record(g));
  if (text) return *text + (text->ends_with("\n\n") ? "" : text->ends_with('\n') ? "\n" : "\n\n");
  // Never expected (the game holds legal moves only); still, a relay must get valid PGN.
  return "[Event \"eboardd\"]\n[Board \"" + g.board_id +
         "\"]\n[Result \"*\"]\n\n{ cannot write this game: " + text.error() + " } *\n\n";
}

std::string games_pgn(const std::vector<BoardGame>& games) {
  std::string out;
  for (const auto& g : games) out += game_pgn(g);
  return out;
}

std::string game_file_name(const BoardGame& g) {
  std::tm tm = utc(g.started_ms);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return g.board_id + "-" + buf + "-" + std::to_string(g.number) + ".pgn";
}

}  // namespace eboard::outputs
