// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/match_moves.hpp"

#include <algorithm>
#include <ctime>
#include <vector>

#include "daemon/outputs/arbiter_result.hpp"
#include "daemon/outputs/text_encoding.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/pgn.hpp"

namespace eboard::outputs {

namespace {

using rules::Color;
using rules::Move;
using rules::Position;

const char* side_word(Color c) { return c == rules::WHITE ? "White" : "Black"; }

// "12." or "12..." for the move played in `pos`.
std::string number_label(const Position& pos) {
  return std::to_string(pos.fullmove_number()) + (pos.side_to_move() == rules::WHITE ? "." : "...");
}

// Whether `m` (a move of the record, or a null move) can be played in `pos`.
bool playable(const Position& pos, Move m) {
  return m.is_none() ? !pos.in_check() : rules::MoveList(pos).contains(m);
}

// Why a move of the record no longer stands in `pos`.
std::string why_not(const Position& pos, Move m) {
  const Color side = pos.side_to_move();
  if (m.is_none()) return "a null move, and " + std::string(side_word(side)) + " is in check there";
  if (m.is_drop()) {
    if (pos.pocket(side, m.drop_type()) == 0)
      return std::string("no ") + rules::piece_name(m.drop_type()) + " in " + side_word(side) +
             "'s reserve any more (the capture that gave it is gone)";
    return "the drop is not legal there any more";
  }
  return "no longer legal in the position there";
}

std::string san_of(const Position& pos, Move m) { return m.is_none() ? "--" : rules::to_san(pos, m); }

std::string with_blank_line(std::string text) {
  if (!text.ends_with("\n\n")) text += text.ends_with('\n') ? "\n" : "\n\n";
  return text;
}

// One ply of the match as replayed: its board, its move and SAN there, and what the BPGN had for it.
struct Played {
  int board = 0;
  Move move = Move::none();
  std::string san;
  rules::BughouseMove recorded;  // clock, comment, NAGs of the BPGN (cleared for a corrected ply)
};

// A board's record as read, checked to hold the same plies as the BPGN (their SAN as written).
struct BoardRecord {
  rules::PgnGame game;
};

tl::expected<BoardRecord, std::string> read_record(const std::string& text,
                                                   const std::vector<std::string>& bpgn_sans) {
  auto games = rules::read_pgn(text);
  if (!games) return tl::unexpected("its record cannot be read: " + games.error());
  if (games->size() != 1) return tl::unexpected(std::string("its record is not one game"));
  BoardRecord r{std::move(games->front())};
  if (r.game.tag("FEN") && !r.game.intro_comment.empty())
    return tl::unexpected(std::string(
        "its record starts after moves it could not write as moves (an illegal move that stood): correct "
        "it by hand"));
  if (r.game.moves.size() != bpgn_sans.size())
    return tl::unexpected("its record has " + std::to_string(r.game.moves.size()) +
                          " plies and the match's BPGN " + std::to_string(bpgn_sans.size()));
  auto bare = [](std::string s) {
    while (!s.empty() && (s.back() == '+' || s.back() == '#')) s.pop_back();
    return s;
  };
  for (std::size_t i = 0; i < bpgn_sans.size(); ++i)
    if (bare(r.game.moves[i].san) != bare(bpgn_sans[i]))
      return tl::unexpected("its record and the match's BPGN differ at ply " + std::to_string(i + 1) + " (" +
                            utf8_or_replaced(r.game.moves[i].san) + " and " + bpgn_sans[i] + ")");
  return r;
}

// Board `b`'s record written again from `played` (the match replayed): the tags, intro comment and result
// of `r`, each ply's clock, comment and NAGs from `r`'s ply of the same number up to `keep_from` (1-based;
// beyond: only the clock of the ply it replaces, if there was one).
tl::expected<std::string, std::string> board_text(const BoardRecord& r, const Position& start,
                                                  const std::vector<Played>& played, int b, int keep_from,
                                                  const rules::PgnTags& tags) {
  rules::GameRecord rec;
  rec.tags = tags;
  rec.intro_comment = r.game.intro_comment;
  rec.start = start;
  rec.result = r.game.result;
  int ply = 0;
  for (const Played& p : played) {
    if (p.board != b) continue;
    ++ply;
    rules::RecordedMove m;
    m.move = p.move;
    m.san = p.san;
    if (std::size_t(ply) <= r.game.moves.size()) {
      const rules::PgnMove& old = r.game.moves[std::size_t(ply - 1)];
      m.clock_ms = old.clock_ms;
      if (ply < keep_from) {
        m.emt_ms = old.emt_ms;
        m.comment = old.comment;
        m.nags = old.nags;
      }
    }
    rec.moves.push_back(std::move(m));
  }
  auto text = rules::write_pgn(rec);
  if (!text) return tl::unexpected(text.error());
  return with_blank_line(std::move(*text));
}

}  // namespace

std::string refusal_text(const MatchMovesRefusal& r, const std::array<std::string, 2>& ids) {
  std::string out = "board " + ids[std::size_t(r.board & 1)];
  if (r.ply > 0) out += ", ply " + std::to_string(r.ply) + " (" + r.move + ")";
  return out + ": " + r.why;
}

tl::expected<MatchMovesCorrected, MatchMovesRefusal> replace_match_moves(
    std::string_view bpgn, const std::array<std::string, 2>& records, int board, int from_ply,
    std::string_view moves, const ArbiterVerdict& v, const std::array<std::string, 2>& ids) {
  board &= 1;
  auto refuse = [](int b, int ply, std::string move, std::string why) {
    return tl::unexpected(MatchMovesRefusal{b, ply, std::move(move), std::move(why)});
  };
  auto games = rules::read_bpgn(bpgn);
  if (!games || games->size() != 1)
    return refuse(board, 0, "",
                  "the match's BPGN cannot be read" + (games ? std::string() : ": " + games.error()));
  auto match = rules::replay_bughouse(games->front());
  if (!match) return refuse(board, 0, "", "the match's BPGN cannot be replayed: " + match.error());
  const rules::BughouseRecord& rec = *match;

  // The plies of each board as the BPGN has them (SAN), and the old moves replaced.
  std::array<std::vector<std::string>, 2> sans;
  std::string was;
  {
    std::array<Position, 2> pos = rec.start;
    for (const rules::BughouseMove& m : rec.moves) {
      const int b = m.board & 1;
      sans[std::size_t(b)].push_back(san_of(pos[std::size_t(b)], m.move));
      if (b == board && int(sans[std::size_t(b)].size()) >= from_ply)
        was += (was.empty() ? "" : " ") + sans[std::size_t(b)].back();
      rules::play_bughouse_move(pos, b, m.move);
    }
  }
  const int plies = int(sans[std::size_t(board)].size());
  if (from_ply < 1 || from_ply > plies + 1)
    return refuse(board, 0, "",
                  "\"from_ply\" must be 1 to " + std::to_string(plies + 1) + " (the board has " +
                      std::to_string(plies) + " plies in the match)");
  std::array<std::optional<BoardRecord>, 2> read;
  for (int b = 0; b < 2; ++b) {
    auto r = read_record(records[std::size_t(b)], sans[std::size_t(b)]);
    if (!r) return refuse(b, 0, "", r.error());
    read[std::size_t(b)] = std::move(*r);
  }

  // The order: the board's new plies in the places of those they replace, the rest after the last.
  const std::vector<std::string> typed = typed_move_tokens(moves);
  struct Slot {
    const rules::BughouseMove* old = nullptr;  // a ply of the BPGN kept or replaced
    int typed = -1;                            // the arbiter's move, by index
  };
  std::vector<Slot> order;
  std::size_t next_typed = 0;
  {
    int ply = 0;
    for (const rules::BughouseMove& m : rec.moves) {
      if ((m.board & 1) != board || ++ply < from_ply) {
        order.push_back({&m, -1});
      } else if (next_typed < typed.size()) {
        order.push_back({&m, int(next_typed++)});
      }
    }
    for (; next_typed < typed.size(); ++next_typed) order.push_back({nullptr, int(next_typed)});
  }

  // The whole match replayed in that order.
  std::vector<Played> played;
  std::array<Position, 2> pos = rec.start;
  std::array<int, 2> ply_of{};
  for (const Slot& s : order) {
    const int b = s.typed >= 0 ? board : (s.old->board & 1);
    Position& p = pos[std::size_t(b)];
    const int ply = ++ply_of[std::size_t(b)];
    Played out;
    out.board = b;
    if (s.typed >= 0) {
      const std::string& token = typed[std::size_t(s.typed)];
      auto m = parse_typed_move(p, token);
      if (!m)
        return refuse(b, ply, number_label(p) + " " + utf8_or_replaced(std::string_view(token).substr(0, 16)),
                      "no legal move there (" + m.error() + ")");
      out.move = *m;
      if (s.old) out.recorded.clock_ms = s.old->clock_ms;  // the time of the ply it replaces
    } else {
      out.move = s.old->move;
      if (!playable(p, out.move))
        return refuse(b, ply, number_label(p) + " " + sans[std::size_t(b)][std::size_t(ply - 1)],
                      why_not(p, out.move));
      out.recorded = *s.old;
    }
    out.recorded.board = b;
    out.recorded.move = out.move;
    out.san = san_of(p, out.move);
    played.push_back(out);
    rules::play_bughouse_move(pos, b, out.move);
  }

  MatchMovesCorrected done;
  done.was = was.empty() ? "-" : was;
  if (done.was.size() > 180) done.was = std::string(utf8_columns(done.was, 0, 180)) + " …";
  rules::BughouseRecord next = rec;
  next.moves.clear();
  for (const Played& p : played) next.moves.push_back(p.recorded);
  set_correction_tags(
      next.tags,
      "board " + ids[std::size_t(board)] + ", from ply " + std::to_string(from_ply) + "; was: " + done.was,
      v);
  auto text = rules::write_bpgn(next);
  if (!text) return refuse(board, 0, "", "the corrected BPGN cannot be written: " + text.error());
  done.bpgn = std::move(*text);

  // The boards' records: the corrected one, and the other if its text changes.
  for (int b = 0; b < 2; ++b) {
    const BoardRecord& r = *read[std::size_t(b)];
    auto start = rules::start_position(r.game.tags);
    if (!start) return refuse(b, 0, "", "its record's start: " + start.error());
    rules::PgnTags tags = r.game.tags;
    if (b == board) {
      set_correction_tags(tags, "from ply " + std::to_string(from_ply) + "; was: " + done.was, v);
      auto t = board_text(r, *start, played, b, from_ply, tags);
      if (!t) return refuse(b, 0, "", "the corrected record cannot be written: " + t.error());
      done.records[std::size_t(b)] = std::move(*t);
      continue;
    }
    // The other board: its plies are the same; what they are called may not be.
    std::vector<Played> before;
    {
      std::array<Position, 2> p = rec.start;
      for (const rules::BughouseMove& m : rec.moves) {
        before.push_back({m.board & 1, m.move, san_of(p[std::size_t(m.board & 1)], m.move), m});
        rules::play_bughouse_move(p, m.board & 1, m.move);
      }
    }
    const int all = int(r.game.moves.size()) + 1;
    auto old_text = board_text(r, *start, before, b, all, tags);
    auto new_text = board_text(r, *start, played, b, all, tags);
    if (!old_text || !new_text)
      return refuse(b, 0, "",
                    "its record cannot be written again: " + (old_text ? new_text : old_text).error());
    if (*old_text != *new_text) done.records[std::size_t(b)] = std::move(*new_text);
  }
  return done;
}

}  // namespace eboard::outputs
