// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/game.hpp"

#include <algorithm>
#include <atomic>
#include <utility>

#include "rules/movegen.hpp"
#include "rules/outcome.hpp"

namespace eboard::rules {

std::string result_string(Result r) {
  switch (r) {
    case Result::WhiteWins:
      return "1-0";
    case Result::BlackWins:
      return "0-1";
    case Result::Draw:
      return "1/2-1/2";
    default:
      return "*";
  }
}

Game::Game(Position start) : start_(start), current_(std::move(start)) {
  static std::atomic<std::uint64_t> games{0};
  identity_ = ++games;
}

const PlyRecord& Game::play(Move m, ClockTimes clock, std::int64_t time_ms) {
  current_.do_move(m);
  return record(m, clock, time_ms, false);
}

const PlyRecord& Game::play_illegal(Move shown, Position after, ClockTimes clock, std::int64_t time_ms) {
  current_ = after;
  stood_.push_back({ply_count(), std::move(after)});
  return record(shown, clock, time_ms, true);
}

const PlyRecord& Game::record(Move m, ClockTimes clock, std::int64_t time_ms, bool illegal) {
  PlyRecord r;
  r.move = m;
  r.clock = clock;
  r.time_ms = time_ms;
  r.key = current_.key();
  r.board_key = current_.key_without_pockets();
  r.drop = !illegal && m.is_drop();
  r.illegal = illegal;
  plies_.push_back(r);
  return plies_.back();
}

void Game::adopt(Position after, std::int64_t time_ms) {
  int count = after.side_to_move() == current_.side_to_move() ? 2 : 1;
  for (int i = 0; i < count; ++i) play_jump(after, time_ms);
}

void Game::play_jump(Position after, std::int64_t time_ms) {
  current_ = after;
  stood_.push_back({ply_count(), std::move(after)});
  record(Move::none(), {}, time_ms, false);
  plies_.back().jump = true;
}

int Game::legal_since() const { return stood_.empty() ? 0 : stood_.back().ply + 1; }

int Game::record_since() const {
  int since = legal_since();
  for (int i = ply_count(); i-- > since;)
    if (plies_[std::size_t(i)].missed) return i + 1;
  return since;
}

void Game::mark_last(bool recovered, bool missed) {
  if (plies_.empty()) return;
  plies_.back().recovered = recovered;
  plies_.back().missed = missed;
}

bool Game::replace_plies(int first, const std::vector<Move>& moves, bool still_missed) {
  if (first < 0 || first + int(moves.size()) > ply_count()) return false;
  // Pocket changes are replayed by ply, as position_at does (it has applied those up to `first`).
  Position p = position_at(first);
  std::vector<PlyRecord> plies = plies_;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    PlyRecord& r = plies[std::size_t(first) + i];
    r.move = moves[i];
    r.recovered = !still_missed;
    r.missed = still_missed;
    r.illegal = false;
  }
  // Check every move from `first` on, and rebuild the keys the repetition rules read.
  std::size_t change = 0;
  auto apply_changes = [&](int upto) {
    for (; change < pocket_changes_.size() && pocket_changes_[change].ply <= upto; ++change) {
      const PocketChange& c = pocket_changes_[change];
      p.set_pocket(c.color, c.type, std::clamp(p.pocket(c.color, c.type) + c.n, 0, 255));
    }
  };
  while (change < pocket_changes_.size() && pocket_changes_[change].ply <= first) ++change;
  std::vector<StoodPosition> stood;
  for (const auto& s : stood_)
    if (s.ply < first) stood.push_back(s);
  for (int i = first; i < ply_count(); ++i) {
    apply_changes(i);
    PlyRecord& r = plies[std::size_t(i)];
    if (r.jump) {
      auto kept =
          std::find_if(stood_.begin(), stood_.end(), [&](const StoodPosition& s) { return s.ply == i; });
      if (kept == stood_.end()) return false;
      p = kept->after;
      stood.push_back({i, p});
    } else if (r.illegal) {
      auto after = p.after_illegal_move(r.move.from(), r.move.to());
      if (!after) return false;
      p = *after;
      stood.push_back({i, p});
    } else {
      if (!MoveList(p).contains(r.move)) return false;
      p.do_move(r.move);
    }
    r.key = p.key();
    r.board_key = p.key_without_pockets();
    r.drop = !r.illegal && !r.jump && r.move.is_drop();
  }
  apply_changes(ply_count());
  plies_ = std::move(plies);
  stood_ = std::move(stood);
  current_ = p;
  return true;
}

bool Game::replace_jump(int first, const std::vector<Move>& moves) {
  if (first < 0 || first >= ply_count() || !plies_[std::size_t(first)].jump) return false;
  int end = first;  // the first ply after the jump
  while (end < ply_count() && plies_[std::size_t(end)].jump) ++end;
  return replace_span(first, end, moves);
}

bool Game::replace_span(int first, int end, const std::vector<Move>& moves) {
  if (first < 0 || end <= first || end > ply_count()) return false;
  const Position target = position_at(end);
  const PlyRecord last = plies_[std::size_t(end - 1)];
  // The plies after the span, with the positions the ones the Game keeps (illegal moves, jumps) left.
  std::vector<std::pair<PlyRecord, Position>> later;
  for (int i = end; i < ply_count(); ++i) later.emplace_back(plies_[std::size_t(i)], position_at(i + 1));
  Game g = *this;
  while (g.ply_count() > first) g.undo();
  for (std::size_t i = 0; i < moves.size(); ++i) {
    if (!MoveList(g.current_).contains(moves[i])) return false;
    const bool at_end = i + 1 == moves.size();
    g.play(moves[i], at_end ? last.clock : ClockTimes{}, last.time_ms);
    g.mark_last(true, false);
  }
  if (g.current_.board() != target.board() || g.current_.side_to_move() != target.side_to_move())
    return false;
  for (const auto& [r, after] : later) {
    if (r.jump) {
      g.play_jump(after, r.time_ms);
    } else if (r.illegal) {
      g.play_illegal(r.move, after, r.clock, r.time_ms);
    } else {
      if (!MoveList(g.current_).contains(r.move)) return false;
      g.play(r.move, r.clock, r.time_ms);
    }
    g.mark_last(r.recovered, r.missed);
  }
  // Pieces that arrived from outside (drops) keep their place among the plies: before the span, within it
  // (at its first ply: the span's moves may have dropped them), or after it, moved on by the difference.
  // (The replay above had them all from `first` on: the moves after the span are legal either way.)
  const int shift = int(moves.size()) - (end - first);
  g.pocket_changes_ = pocket_changes_;
  bool moved = false;
  for (PocketChange& c : g.pocket_changes_) {
    moved |= c.ply > first;
    c.ply = c.ply <= first ? c.ply : c.ply < end ? first : c.ply + shift;
  }
  if (moved) g.current_ = g.position_at(g.ply_count());  // (a later jump's position lacked those after it)
  g.outcome_ = outcome_;  // (its end was told, not made by the plies replaced: the position is the same)
  *this = std::move(g);
  return true;
}

void Game::undo() {
  if (plies_.empty()) return;
  const bool given = plies_.back().illegal || plies_.back().jump;
  if (!given) current_.undo_move(plies_.back().move);
  plies_.pop_back();
  // Pieces that arrived after the move taken back are still there: they now arrive after the last move.
  for (auto& c : pocket_changes_) c.ply = std::min(c.ply, ply_count());
  if (given) {
    // Its position was given, not made by a move: rebuild the one before it (with those pieces).
    stood_.pop_back();
    current_ = position_at(ply_count());
  }
  outcome_.reset();
}

void Game::add_to_pocket(Color c, PieceType t, int n) {
  int now = current_.pocket(c, t);
  int next = std::clamp(now + n, 0, 255);
  if (next == now) return;
  current_.set_pocket(c, t, next);
  pocket_changes_.push_back({ply_count(), c, t, next - now});
}

Position Game::position_at(int ply) const {
  Position p = start_;
  std::size_t change = 0;
  auto apply_changes = [&](int upto) {
    for (; change < pocket_changes_.size() && pocket_changes_[change].ply <= upto; ++change) {
      const PocketChange& c = pocket_changes_[change];
      p.set_pocket(c.color, c.type, std::clamp(p.pocket(c.color, c.type) + c.n, 0, 255));
    }
  };
  std::size_t stood = 0;
  for (int i = 0; i < ply && i < ply_count(); ++i) {
    apply_changes(i);
    if ((plies_[i].illegal || plies_[i].jump) && stood < stood_.size())
      p = stood_[stood++].after;
    else
      p.do_move(plies_[i].move);
  }
  apply_changes(std::min(ply, ply_count()));
  return p;
}

ClockTimes Game::clock_at(int ply) const {
  if (ply <= 0 || plies_.empty()) return start_clock_;
  return plies_[std::min(ply, ply_count()) - 1].clock;
}

int Game::repetitions() const {
  // Only positions since the last irreversible move can repeat, and only with the same side to move.
  Key now = current_.key();
  int count = 1;
  int reversible = current_.rule50();
  for (int i = ply_count() - 3; i >= 0 && ply_count() - 1 - i <= reversible; i -= 2)
    if (plies_[i].key == now) ++count;
  if (ply_count() - 1 - (-1) <= reversible && ply_count() % 2 == 0 && start_.key() == now) ++count;
  return count;
}

bool Game::fourfold_no_drops_claimable() const {
  Key now = current_.key_without_pockets();
  int count = 1;
  for (int i = ply_count() - 1; i >= 0; --i) {
    if (i <= ply_count() - 3 && (ply_count() - 1 - i) % 2 == 0 && plies_[i].board_key == now) ++count;
    if (plies_[i].drop) break;  // nothing before a drop counts (FQE 22); the position after it does
  }
  bool reached_start = true;
  for (const auto& p : plies_) reached_start &= !p.drop;
  if (reached_start && ply_count() % 2 == 0 && ply_count() > 0 && start_.key_without_pockets() == now)
    ++count;
  return count >= 4;
}

std::optional<Outcome> Game::automatic_outcome() const {
  const Position& p = current_;
  Color mover = ~p.side_to_move();
  if (is_checkmate(p)) return Outcome{mover == WHITE ? Result::WhiteWins : Result::BlackWins, "checkmate"};
  if (is_stalemate(p)) return Outcome{Result::Draw, "stalemate"};
  if (is_dead_position(p)) return Outcome{Result::Draw, "dead-position"};
  if (p.variant() != Variant::Bughouse && repetitions() >= 5) return Outcome{Result::Draw, "fivefold"};
  if (p.variant() != Variant::Bughouse && p.rule50() >= 150)
    return Outcome{Result::Draw, "seventy-five-moves"};
  return std::nullopt;
}

Outcome Game::flag_outcome(Color side) const {
  if (!can_ever_mate(current_, ~side)) return {Result::Draw, "flag"};
  return {side == WHITE ? Result::BlackWins : Result::WhiteWins, "flag"};
}

}  // namespace eboard::rules
