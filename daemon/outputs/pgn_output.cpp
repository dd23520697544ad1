// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/pgn_output.hpp"

#include <algorithm>
#include <ctime>
#include <optional>

#include "daemon/core/game_record.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"

namespace eboard::outputs {

namespace {

std::tm utc(std::int64_t unix_ms) {
  std::time_t s = std::time_t(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  return tm;
}

// The first move of `r` this board alone cannot replay: a drop whose piece is not in the pocket the
// board's own start gave (on a bughouse board captures never fill the capturer's pocket).
std::optional<std::size_t> first_partner_drop(const rules::GameRecord& r) {
  rules::Position alone = r.start;
  for (std::size_t i = 0; i < r.moves.size(); ++i) {
    rules::Move m = r.moves[i].move;
    if (m.is_none()) {
      alone.do_null_move();
      continue;
    }
    if (!rules::MoveList(alone).contains(m)) return i;
    alone.do_move(m);
  }
  return std::nullopt;
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
  if (g.started_ms > 0) set_pgn_tag(r.tags, "Date", pgn_date(g.started_ms));
  for (const auto* list : {&g.defaults, &g.tags})
    for (const auto& t : *list)
      if (t.name != "Result" && !t.value.empty())
        set_pgn_tag(r.tags, t.name, t.value);  // the result is the game's, not a tag's
  if (!g.match.empty()) {
    set_pgn_tag(r.tags, "Match", g.match);
    set_pgn_tag(r.tags, "PartnerBoard", g.partner);
    if (auto i = first_partner_drop(r)) {
      std::string& c = r.moves[*i].comment;
      c = "From here this board alone cannot be replayed: the piece dropped came from the partner board " +
          g.partner + ". The whole match: /matches/" + g.match + ".bpgn" + (c.empty() ? "" : " " + c);
    }
  }
  return r;
}

std::string record_pgn(const BoardGame& g, const rules::GameRecord& r) {
  auto text = rules::write_pgn(r);
  if (text) return *text + (text->ends_with("\n\n") ? "" : text->ends_with('\n') ? "\n" : "\n\n");
  // Never expected (the game holds legal moves only); still, a relay must get valid PGN, and every move.
  rules::GameRecord bare;
  bare.tags = r.tags;
  bare.result = r.result;
  bare.start = r.start;
  std::string moves;
  rules::Position pos = r.start;
  for (const auto& m : r.moves) {
    if (!moves.empty()) moves += ' ';
    moves += m.san.empty() ? rules::to_uci(pos, m.move) : m.san;
    if (m.move.is_none())
      pos.do_null_move();
    else if (rules::MoveList(pos).contains(m.move))
      pos.do_move(m.move);
  }
  bare.intro_comment = r.intro_comment + (r.intro_comment.empty() ? "" : " ") +
                       "The moves cannot be written as movetext (" + text.error() + "): " + moves;
  if (g.match.size()) bare.intro_comment += " (the whole match: /matches/" + g.match + ".bpgn)";
  auto fallback = rules::write_pgn(bare);
  return fallback ? *fallback + "\n" : "[Event \"?\"]\n\n{ " + moves + " } *\n\n";
}

std::string game_pgn(const BoardGame& g) { return record_pgn(g, game_record(g)); }

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

void set_pgn_tag(rules::PgnTags& tags, const std::string& name, const std::string& value) {
  auto it = std::find_if(tags.begin(), tags.end(), [&](const rules::PgnTag& t) { return t.name == name; });
  if (it != tags.end())
    it->value = value;
  else
    tags.push_back({name, value});
}

}  // namespace eboard::outputs
