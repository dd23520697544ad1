// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/replay_loop.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

#include "rules/notation.hpp"

namespace eboard::journal {

using namespace eboard::rules;

void PublishedGame::restart() {
  moves_.clear();
  outcome_.reset();
  match_result_.reset();
}

void PublishedGame::on_event(const std::string& line) {
  auto e = read_published(line);
  if (!e) return;
  if (auto* m = std::get_if<PublishedMove>(&*e)) {
    if (m->ply == 1 && !moves_.empty()) restart();
    moves_[m->ply] = std::move(*m);
  } else if (auto* res = std::get_if<PublishedResult>(&*e)) {
    outcome_ = res->outcome;
  } else {
    match_result_ = std::get<PublishedMatchResult>(*e).result;
  }
}

bool PublishedGame::agrees_with(const Game& replay) const {
  if (replay.ply_count() < last_ply() || (outcome_ && !replay.outcome())) return false;
  for (const auto& [ply, m] : moves_)
    if (to_uci(replay.position_at(ply - 1), replay.plies()[std::size_t(ply - 1)].move) != m.uci) return false;
  return true;
}

Game PublishedGame::merged(const Game& replay) const {
  Game g(start_);
  bool replay_agrees = replay.start().fen() == start_.fen();
  for (int ply = 1; ply <= last_ply(); ++ply) {
    auto next = next_published(moves_, replay, ply, replay_agrees);
    if (!next) break;
    const PublishedMove& m = next->move;
    if (const PlyRecord* rp = next->replayed) {
      // The replay's record keeps what the published line does not say (a jump, an illegal move, a gap).
      if (rp->jump)
        g.play_jump(replay.position_at(ply), m.t);
      else if (rp->illegal)
        g.play_illegal(rp->move, replay.position_at(ply), m.clock, m.t);
      else
        g.play(rp->move, m.clock, m.t);
      g.mark_last(rp->recovered, rp->missed);
      continue;
    }
    auto mv = parse_uci(g.position(), m.uci);
    if (!mv) break;
    g.play(*mv, m.clock, m.t);
  }
  if (outcome_) g.set_outcome(*outcome_);
  return g;
}

ReplayLoop::ReplayLoop(ReplayTarget& target, std::vector<std::string> labels, std::size_t max_problems)
    : target_(target) {
  boards_.reserve(labels.size());
  for (std::string& label : labels)
    boards_.push_back(
        {std::move(label), Ledger{}, ReplayCheck(max_problems), PublishedGame{}, {}, {}, {}, 0, {}});
}

void ReplayLoop::bad_record(int board, const std::string& what) {
  if (bad_records_.size() >= 10) return;
  const std::string& label = boards_[std::size_t(board)].label;
  bad_records_.push_back(label.empty() ? what : label + ": " + what);
}

void ReplayLoop::take(std::vector<Event>&& events) {
  for (Event& e : events) {
    Board& b = boards_[std::size_t(target_.board_of(e))];
    b.ledger.on_event(e);
    b.check.derived(std::move(e));
  }
  for (std::size_t k = 0; k < boards_.size(); ++k) {
    const Game* g = target_.game(int(k));
    // Reconstruction set the pieces up again by itself: a new game begins in what was published too.
    if (g && boards_[k].ledger.observe(*g, last_t_)) {
      boards_[k].published.start(g->start());
      restart_notes(boards_[k]);
    }
  }
}

void ReplayLoop::restart_notes(Board& b) {
  b.published_notes.clear();
  b.published_alerts = 0;
  b.acks.clear();
}

void ReplayLoop::journaled(int board, const std::string& json) {
  Board& b = boards_[std::size_t(board)];
  b.published.on_event(json);
  if (auto note = b.check.journaled(json)) {
    b.published_alerts += std::holds_alternative<AlertEvent>(note->what);
    b.published_notes.push_back(std::move(*note));
  }
}

void ReplayLoop::published_restart(int board) {
  Board& b = boards_[std::size_t(board)];
  b.published.restart();
  b.published_notes.clear();
  b.published_alerts = 0;
}

void ReplayLoop::input(int board, const FileRecord& rec, std::int64_t seq) {
  auto entry = decode_entry(rec.type, rec.body);
  if (!entry) {
    bad_record(board, "record at byte " + std::to_string(rec.offset) + ": " + entry.error());
    return;
  }
  Board& b = boards_[std::size_t(board)];
  std::visit(
      [&](auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, HeaderEntry>) {
          b.header = v;
          last_t_ = std::max(last_t_, v.created_ms);
          // A rotated file goes on from the games kept before it.
          if (v.previous_game > 0) b.ledger.continue_after(v.previous_game, v.tags);
        } else if constexpr (std::is_same_v<T, NewGameEntry>) {
          last_t_ = std::max(last_t_, v.t_ms);
          auto began = target_.new_game(board, v, seq);
          if (!began) {
            bad_record(board, "new game at byte " + std::to_string(rec.offset) + ": " + began.error());
            return;
          }
          if (!*began) return;
          for (std::size_t k = 0; k < boards_.size(); ++k)
            if (const Game* g = target_.game(int(k))) {
              boards_[k].ledger.on_new_game(v.t_ms, *g);
              boards_[k].published.start(g->start());
              restart_notes(boards_[k]);
            }
        } else if constexpr (std::is_same_v<T, SensorEvent>) {
          ++sensor_records_;
          last_t_ = std::max(last_t_, v.t_ms);
          take(target_.sensor(board, v));
        } else if constexpr (std::is_same_v<T, AdvanceEntry>) {
          last_t_ = std::max(last_t_, v.t_ms);
          take(target_.advance(v.t_ms));
        } else if constexpr (std::is_same_v<T, TagsEntry>) {
          b.ledger.set_tags(v);
        } else if constexpr (std::is_same_v<T, RawEntry>) {
          ++raw_records_;
        } else if constexpr (std::is_same_v<T, ControlEntry>) {
          last_t_ = std::max(last_t_, v.t_ms);
          if (v.action == "ack") {
            (void)b.ledger.acknowledge(std::atoi(v.value.c_str()));
            b.acks.push_back(std::atoi(v.value.c_str()));  // of a published alert: applied again in finish()
          }
          if (auto evs = target_.control(board, v)) {
            if (const Game* g = target_.game(board)) b.ledger.after_control(v, *g);
            take(std::move(*evs));
          }
        }
        // Published events (EventEntry) are not inputs: they come through journaled(); nor is the order a
        // waiting gap is shown in (GapOrderEntry, Recovery::published_gap).
      },
      *entry);
}

ReplayLoop::Summary ReplayLoop::finish(bool damaged) {
  Summary s;
  for (Board& b : boards_) {
    s.journaled_events += b.check.journaled_events();
    s.matched_events += b.check.matched_events();
    s.mismatched_events += b.check.mismatched_events();
    for (const std::string& p : b.check.problems())
      if (s.problems.size() < 10) s.problems.push_back(b.label.empty() ? p : b.label + ": " + p);
  }
  s.trusted = s.mismatched_events == 0 && bad_records_.empty() && !damaged;
  for (Board& b : boards_) {
    b.unjournaled = b.check.unjournaled(s.trusted);
    // The ledger keeps what was published, and what is about to be (the trusted tail): an alert the replay
    // derived and nobody was told of is no alert.
    std::vector<Event> notes = std::move(b.published_notes);
    int alerts = b.published_alerts;
    for (const Event& e : b.unjournaled)
      if (!std::holds_alternative<MoveEvent>(e.what) &&
          !std::holds_alternative<ProvisionalMoveEvent>(e.what)) {
        alerts += std::holds_alternative<AlertEvent>(e.what);
        notes.push_back(e);
      }
    b.ledger.replace_notes(std::move(notes), alerts);
    for (int a : b.acks) (void)b.ledger.acknowledge(a);
  }
  return s;
}

}  // namespace eboard::journal
