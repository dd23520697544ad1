// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/match.hpp"

#include <algorithm>

namespace eboard::rules {

namespace {

ReconstructConfig board_config(const MatchConfig& cfg, int b) {
  ReconstructConfig c = cfg.board;
  c.board_id = cfg.board_ids[std::size_t(b)];
  c.profile.variant = Variant::Bughouse;
  return c;
}

// A board's result seen by team 1 (White on A, Black on B).
Result for_team1(int board, Result r) {
  if (board == 0 || r == Result::Draw || r == Result::Ongoing) return r;
  return r == Result::WhiteWins ? Result::BlackWins : Result::WhiteWins;
}

}  // namespace

Match::Match(MatchConfig cfg)
    : Match(cfg, Game(Position::start(Variant::Bughouse)), Game(Position::start(Variant::Bughouse))) {}

Match::Match(MatchConfig cfg, Game a, Game b)
    : cfg_(std::move(cfg)),
      boards_{Reconstructor(board_config(cfg_, 0), std::move(a)),
              Reconstructor(board_config(cfg_, 1), std::move(b))} {
  for (int i = 0; i < 2; ++i) plies_seen_[std::size_t(i)] = boards_[std::size_t(i)].game().ply_count();
}

Match::Match(MatchConfig cfg, Game a, Game b, const std::vector<int>& completed_by,
             std::optional<MatchResultEvent> result)
    : Match(std::move(cfg), std::move(a), std::move(b)) {
  std::array<int, 2> next{};
  for (int board : completed_by) {
    board &= 1;
    order_.push_back({board, next[std::size_t(board)]++});
  }
  result_ = std::move(result);
}

std::vector<Event> Match::on_sensor(int b, const SensorEvent& e) {
  std::vector<Event> out = advance(e.t_ms);
  b &= 1;
  absorb(b, boards_[std::size_t(b)].on_sensor(e), out);
  sync_shown(e.t_ms, out);
  // After the board judged the reading: a flag that fell as its clock stopped fell before the pause.
  if (const auto* r = std::get_if<ClockReading>(&e.what)) judge_pause(b, *r, e.t_ms, out);
  return out;
}

void Match::judge_pause(int b, const ClockReading& r, std::int64_t t, std::vector<Event>& out) {
  if (!r.present) return;  // a clock not read says nothing about whether it runs
  clocks_[std::size_t(b)] = r;
  clocks_ran_ |= r.running;
  // Before the start both clocks stand still, and once a game has ended they are stopped for good.
  if (!clocks_ran_ || result_ || !ends_.empty()) return;
  const bool stopped = clocks_[0] && clocks_[1] && !clocks_[0]->running && !clocks_[1]->running;
  if (stopped == paused_) return;
  paused_ = stopped;
  for (auto& board : boards_) board.set_clocks_paused(paused_);
  out.push_back(Event{t, cfg_.board_ids[std::size_t(b)],
                      MatchPauseEvent{paused_, paused_ ? "both-clocks-stopped" : "clock-running"}});
}

std::vector<Event> Match::advance(std::int64_t now) {
  std::vector<Event> out;
  // Deadlines of both boards and of the match fire in time order: what one board completes (a capture)
  // changes what the other may drop from then on.
  for (;;) {
    std::optional<std::int64_t> da = boards_[0].next_deadline(), db = boards_[1].next_deadline();
    std::optional<std::int64_t> best = decide_at_;
    int which = -1;
    if (da && (!best || *da < *best)) best = da, which = 0;
    if (db && (!best || *db < *best)) best = db, which = 1;
    if (!best || *best > now) break;
    if (which < 0) {
      decide_at_.reset();
      decide(*best, out);
    } else {
      absorb(which, boards_[std::size_t(which)].advance(*best), out);
    }
    sync_shown(*best, out);
  }
  return out;
}

std::optional<std::int64_t> Match::next_deadline() const {
  std::optional<std::int64_t> best = decide_at_;
  for (const auto& r : boards_)
    if (auto d = r.next_deadline(); d && (!best || *d < *best)) best = d;
  return best;
}

void Match::absorb(int b, std::vector<Event> events, std::vector<Event>& out) {
  Reconstructor& r = boards_[std::size_t(b)];
  std::vector<ResultEvent> ended;
  std::vector<std::int64_t> ended_at;
  for (auto& e : events) {
    if (auto* res = std::get_if<ResultEvent>(&e.what)) {
      ended.push_back(*res);
      ended_at.push_back(e.t_ms);
    }
    out.push_back(std::move(e));
  }
  for (int& seen = plies_seen_[std::size_t(b)]; seen < r.game().ply_count(); ++seen)
    order_.push_back({b, seen});
  for (const Handover& w : r.take_withdrawn())
    absorb(b ^ 1, boards_[std::size_t(b ^ 1)].withdraw(w.piece, w.t_ms), out);
  const std::vector<Handover> handed = r.take_handovers();
  for (const Handover& h : handed) hand_over(b, h, out);
  // The partner's unexplained gap is searched once with all the pieces handed over together (a search
  // between them fails for the one still to come, and counts as failed).
  if (!handed.empty()) absorb(b ^ 1, boards_[std::size_t(b ^ 1)].search_received(handed.back().t_ms), out);
  for (std::size_t i = 0; i < ended.size(); ++i) board_ended(b, ended[i], ended_at[i], out);
}

void Match::hand_over(int from, const Handover& h, std::vector<Event>& out) {
  int to = from ^ 1;
  Reconstructor& partner = boards_[std::size_t(to)];
  Color c = color_of(h.piece);
  PieceType t = type_of(h.piece);
  int borrowed_before = partner.borrowed(c, t);
  std::vector<Event> events = partner.receive(h.piece, h.t_ms);
  if (partner.borrowed(c, t) < borrowed_before) {
    // The piece had been dropped before this capture was completed (FQE 21b, reported by the partner's
    // board): in the record the capture must come before that drop, or the record could not be replayed.
    auto capture = std::find_if(order_.rbegin(), order_.rend(),
                                [&](const Entry& e) { return e.board == from && e.ply == h.ply - 1; });
    if (capture != order_.rend()) {
      std::size_t ci = std::size_t(std::distance(capture, order_.rend()) - 1);
      const Game& g = partner.game();
      for (std::size_t j = ci; j-- > 0;) {
        if (order_[j].board == from) break;  // the capture cannot move before its own board's moves
        const PlyRecord& p = g.plies()[std::size_t(order_[j].ply)];
        Color mover = (g.start().side_to_move() == WHITE) == (order_[j].ply % 2 == 0) ? WHITE : BLACK;
        if (p.move.is_drop() && p.move.drop_type() == t && mover == c) {
          Entry moved = order_[ci];
          order_.erase(order_.begin() + std::ptrdiff_t(ci));
          order_.insert(order_.begin() + std::ptrdiff_t(j), moved);
          break;
        }
      }
    }
  }
  absorb(to, std::move(events), out);
}

void Match::sync_shown(std::int64_t t, std::vector<Event>& out) {
  for (int b = 0; b < 2; ++b) {
    Reconstructor& partner = boards_[std::size_t(b ^ 1)];
    std::vector<Event> events = partner.set_partner_shown(boards_[std::size_t(b)].shown_handover(), t);
    if (!events.empty()) absorb(b ^ 1, std::move(events), out);
    events = partner.set_partner_blind(boards_[std::size_t(b)].blind(), t);
    if (!events.empty()) absorb(b ^ 1, std::move(events), out);
  }
}

void Match::board_ended(int b, const ResultEvent& r, std::int64_t t, std::vector<Event>& out) {
  if (result_) return;  // the match is over: this is the stopped game (partner-board)
  for (const auto& e : ends_)
    if (e.board == b) return;
  ends_.push_back({b, r.result, r.reason, t});
  if (ends_.size() == 2 || cfg_.simultaneous_ms <= 0) {
    decide_at_.reset();
    decide(t, out);
  } else {
    decide_at_ = t + cfg_.simultaneous_ms;
  }
}

void Match::decide(std::int64_t t, std::vector<Event>& out) {
  if (result_ || ends_.empty()) return;
  const End& first = ends_.front();
  Result r = for_team1(first.board, first.result);
  std::string reason = first.reason;
  if (ends_.size() == 2) {
    // FQE 15: both games over: the same team winning both wins, anything else is a draw (FQE 14, 16:
    // both flags for opposite teams, or mates on both boards at once).
    const End& second = ends_[1];
    Result r2 = for_team1(second.board, second.result);
    if (r != r2) {
      r = Result::Draw;
      reason = first.reason == "flag" && second.reason == "flag" ? "flag" : "simultaneous";
    }
  }
  finish(r, reason, first.board, t, out);
}

void Match::finish(Result team1, const std::string& reason, int deciding_board, std::int64_t t,
                   std::vector<Event>& out) {
  result_ = MatchResultEvent{team1, reason};
  out.push_back(Event{t, cfg_.board_ids[std::size_t(deciding_board)], *result_});
  // FQE 4: the game still going is stopped; it takes the match's result.
  for (int b = 0; b < 2; ++b) {
    Result board_result = for_team1(b, team1);  // the mapping is its own inverse
    absorb(b, boards_[std::size_t(b)].end_game(Outcome{board_result, "partner-board"}, t), out);
  }
}

std::vector<Event> Match::resign(int b, Color c, std::int64_t t) {
  std::vector<Event> out = advance(t);
  b &= 1;
  Outcome o{c == WHITE ? Result::BlackWins : Result::WhiteWins, "resignation"};
  absorb(b, boards_[std::size_t(b)].end_game(o, t), out);
  return out;
}

std::vector<Event> Match::agree_draw(std::int64_t t) {
  std::vector<Event> out = advance(t);
  if (result_) return out;
  result_ = MatchResultEvent{Result::Draw, "agreement"};
  out.push_back(Event{t, cfg_.board_ids[0], *result_});
  for (int b = 0; b < 2; ++b)
    absorb(b, boards_[std::size_t(b)].end_game(Outcome{Result::Draw, "agreement"}, t), out);
  return out;
}

std::vector<Event> Match::arbiter_result(int b, const Outcome& o, std::int64_t t) {
  b &= 1;
  std::vector<Event> out = advance(t);
  const bool correction = result_.has_value();
  const Result team1 = for_team1(b, o.result);
  // Decided before the board's result is taken in, so that it waits for no other end (board_ended).
  decide_at_.reset();
  result_ = MatchResultEvent{team1, o.reason};
  absorb(b, boards_[std::size_t(b)].correct(o, t), out);
  out.push_back(Event{t, cfg_.board_ids[std::size_t(b)], *result_});
  Reconstructor& other = boards_[std::size_t(b ^ 1)];
  const Outcome stopped{for_team1(b ^ 1, team1), "partner-board"};
  if (!correction)
    absorb(b ^ 1, other.end_game(stopped, t), out);
  else if (other.game().outcome() && other.game().outcome()->reason == "partner-board" &&
           other.game().outcome()->result != stopped.result)
    absorb(b ^ 1, other.correct(stopped, t), out);
  return out;
}

void Match::set_promotion_piece(int b, Color c, PieceType t) {
  boards_[std::size_t(b & 1)].set_promotion_piece(c, t);
}

tl::expected<std::vector<Event>, std::string> Match::absorb_control(
    int b, std::int64_t t_ms, tl::expected<std::vector<Event>, std::string> events) {
  // The board's action came first (it fails changing nothing); deadlines due by t_ms fire before its
  // events are taken in, as for any input. Settling a gap rewrites plies in place (order_ keeps its entries);
  // adopting adds jump plies, which absorb appends to order_ like any completed ply.
  if (!events) return events;
  std::vector<Event> out = advance(t_ms);
  absorb(b, std::move(*events), out);
  sync_shown(t_ms, out);
  return out;
}

int Match::settled_span_end(int b) const {
  const Reconstructor& r = board(b);
  if (const auto& gap = r.missed_gap())
    return gap->holds_moves() ? r.held_gap_end() : gap->first_ply - 1 + int(gap->shortest_plies());
  if (const auto& u = r.uncertain_recovery()) return u->first_ply - 1 + u->plies;
  return r.game().ply_count();
}

void Match::renumber(int b, int end, int delta) {
  if (delta == 0) return;
  if (delta < 0)
    std::erase_if(order_,
                  [&](const Entry& e) { return e.board == b && e.ply >= end + delta && e.ply < end; });
  // After the last entry of the board's plies before the rewritten ones' end.
  std::size_t at = 0;
  for (std::size_t i = 0; i < order_.size(); ++i)
    if (order_[i].board == b && order_[i].ply < std::min(end, end + delta)) at = i + 1;
  for (Entry& e : order_)
    if (e.board == b && e.ply >= end) e.ply += delta;
  for (int k = 0; k < delta; ++k)
    order_.insert(order_.begin() + std::ptrdiff_t(at + std::size_t(k)), Entry{b, end + k});
  plies_seen_[std::size_t(b)] += delta;
}

tl::expected<std::vector<Event>, std::string> Match::settled(
    int b, std::int64_t t_ms, int span_end, int plies_before,
    tl::expected<std::vector<Event>, std::string> events) {
  // The gap's moves take its place in the order the moves were completed in, the moves since after them.
  if (events) renumber(b, span_end, board(b).game().ply_count() - plies_before);
  return absorb_control(b, t_ms, std::move(events));
}

tl::expected<std::vector<Event>, std::string> Match::settle_gap(int b, std::size_t index, std::int64_t t_ms) {
  b &= 1;
  const int end = settled_span_end(b), plies = board(b).game().ply_count();
  return settled(b, t_ms, end, plies, boards_[std::size_t(b)].settle_gap(index, t_ms));
}

tl::expected<std::vector<Event>, std::string> Match::settle_gap(int b, const std::string& moves,
                                                                std::int64_t t_ms) {
  b &= 1;
  const int end = settled_span_end(b), plies = board(b).game().ply_count();
  return settled(b, t_ms, end, plies, boards_[std::size_t(b)].settle_gap(moves, t_ms));
}

tl::expected<std::vector<Event>, std::string> Match::adopt_board(int b, std::int64_t t_ms,
                                                                 std::optional<Color> side) {
  b &= 1;
  return absorb_control(b, t_ms, boards_[std::size_t(b)].adopt_board(t_ms, side));
}

namespace {

// The moves in the order given, but for a drop of a piece its reserve does not hold yet (dropped early,
// FQE 21b, or a gap's captures told after the partner dropped them): it, and its board's moves after it,
// wait for the capture that hands the piece over. A record that stays unplayable keeps the rest as given.
std::vector<BughouseMove> replayable_order(const std::array<Position, 2>& start,
                                           std::vector<BughouseMove> moves) {
  std::array<Position, 2> pos = start;
  std::vector<BughouseMove> out;
  out.reserve(moves.size());
  std::vector<bool> done(moves.size(), false);
  std::size_t first = 0;  // the earliest not written yet
  while (out.size() < moves.size()) {
    std::array<bool, 2> blocked{false, false};
    std::optional<std::size_t> next;
    for (std::size_t i = first; i < moves.size() && !next && !(blocked[0] && blocked[1]); ++i) {
      if (done[i]) continue;
      const int b = moves[i].board & 1;
      if (blocked[std::size_t(b)]) continue;
      const Move m = moves[i].move;
      const Position& p = pos[std::size_t(b)];
      if (m.is_drop() && p.pocket(p.side_to_move(), m.drop_type()) == 0)
        blocked[std::size_t(b)] = true;
      else
        next = i;
    }
    if (!next) {
      for (std::size_t i = first; i < moves.size(); ++i)
        if (!done[i]) out.push_back(std::move(moves[i]));
      break;
    }
    play_bughouse_move(pos, moves[*next].board & 1, moves[*next].move);
    done[*next] = true;
    out.push_back(std::move(moves[*next]));
    while (first < moves.size() && done[first]) ++first;
  }
  return out;
}

}  // namespace

BughouseRecord Match::record() const {
  BughouseRecord rec;
  rec.tags = cfg_.tags;
  for (int b = 0; b < 2; ++b) rec.start[std::size_t(b)] = boards_[std::size_t(b)].game().start();
  for (const Entry& e : order_) {
    const Game& g = boards_[std::size_t(e.board)].game();
    if (e.ply >= g.ply_count()) continue;
    const PlyRecord& p = g.plies()[std::size_t(e.ply)];
    if (p.jump) {
      // A gap held with its length open (the moves since wait for the arbiter): its shortest story, as
      // not witnessed, in the jump's place (a BPGN cannot start a board afresh).
      const auto& gap = boards_[std::size_t(e.board)].missed_gap();
      if (gap && gap->length == Reconstructor::MissedGap::Length::Uncounted && !gap->candidates.empty()) {
        if (e.ply != gap->first_ply - 1) continue;
        for (Move m : gap->candidates.front()) {
          BughouseMove held;
          held.move = m;
          held.board = e.board;
          held.comment =
              "not witnessed: the shortest of the move sequences that reach the position the board showed; a "
              "longer one may be the one, told when the arbiter gives the moves (moves-missed)";
          rec.moves.push_back(std::move(held));
        }
        continue;
      }
    }
    BughouseMove m;
    m.move = p.move;
    m.board = e.board;
    Color mover = (g.start().side_to_move() == WHITE) == (e.ply % 2 == 0) ? WHITE : BLACK;
    if (p.clock.known()) m.clock_ms = mover == WHITE ? p.clock.white_ms : p.clock.black_ms;
    // A BPGN cannot start a board afresh: the plies of a gap stay moves, told as not witnessed.
    if (p.recovered) m.comment = "recovered after a gap, not witnessed";
    if (p.missed)
      m.comment =
          "not witnessed: one of several move sequences that reach the position the board showed "
          "(moves-missed)";
    rec.moves.push_back(std::move(m));
  }
  rec.moves = replayable_order(rec.start, std::move(rec.moves));
  rec.result = result_ ? result_string(result_->result) : "*";
  return rec;
}

}  // namespace eboard::rules
