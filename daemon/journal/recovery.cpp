// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/recovery.hpp"

#include <cstdlib>
#include <map>

#include <nlohmann/json.hpp>

#include "daemon/journal/replay_check.hpp"
#include "rules/notation.hpp"

namespace eboard::journal {

using namespace eboard::rules;

namespace {

// Rebuilds the current game from published events: `move` events by ply (ply 1 begins a game again: the
// pieces were set up anew), `result` ends it. A damaged journal can have lost some of them: holes.
class PublishedGame {
 public:
  void start(const Position& p) {
    start_ = p;
    restart();
  }
  void restart() {
    moves_.clear();
    outcome_.reset();
  }
  void on_event(const std::string& line) {
    auto e = read_published(line);
    if (!e) return;
    if (auto* m = std::get_if<PublishedMove>(&*e)) {
      if (m->ply == 1 && !moves_.empty()) restart();
      moves_[m->ply] = std::move(*m);
    } else if (auto* res = std::get_if<PublishedResult>(&*e)) {
      outcome_ = res->outcome;
    }
  }
  int last_ply() const { return moves_.empty() ? 0 : moves_.rbegin()->first; }
  bool has_outcome() const { return outcome_.has_value(); }

  // Whether the replayed game shows every published move (and the result, if one was published).
  bool agrees_with(const Game& replay) const {
    if (replay.ply_count() < last_ply() || (outcome_ && !replay.outcome())) return false;
    for (const auto& [ply, m] : moves_)
      if (to_uci(replay.position_at(ply - 1), replay.plies()[std::size_t(ply - 1)].move) != m.uci)
        return false;
    return true;
  }

  // The published game, its holes filled from the replay as long as the replay agrees with what was
  // published; it stops at a hole nothing fills or a move that cannot be played.
  Game merged(const Game& replay) const {
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

 private:
  Position start_ = Position::start();
  std::map<int, PublishedMove> moves_;
  std::optional<Outcome> outcome_;
};

}  // namespace

Result parse_result(std::string_view text) {
  return text == "1-0"       ? Result::WhiteWins
         : text == "0-1"     ? Result::BlackWins
         : text == "1/2-1/2" ? Result::Draw
                             : Result::Ongoing;
}

ClockTimes event_clock(const nlohmann::json& event) {
  ClockTimes c;
  if (event.contains("clock") && event["clock"].is_object())
    c = {event["clock"].value("white", std::int64_t{-1}), event["clock"].value("black", std::int64_t{-1})};
  return c;
}

bool is_daemon_note(std::string_view event_json) {
  if (event_json.find("\"journal-") == std::string_view::npos) return false;
  auto j = nlohmann::json::parse(event_json, nullptr, false);
  return j.is_object() && j.value("type", "") == "alert" && j.value("code", "").rfind("journal-", 0) == 0;
}

Recovery recover(const JournalScan& scan, const std::string& board_id) {
  Recovery r(board_id);
  r.torn = scan.problem;
  ReplayCheck check(5);
  PublishedGame published;
  auto take = [&](std::vector<Event>&& evs) {
    for (auto& e : evs) {
      r.ledger.on_event(e);
      check.derived(std::move(e));
    }
    if (r.machine.has_game() && r.ledger.observe(r.machine.game(), r.machine.last_t()))
      published.start(r.machine.game().start());
  };
  // For each record, the time of the next sensor record (a fallback for journals without advances).
  std::vector<std::optional<std::int64_t>> next_sensor_t(scan.records.size() + 1);
  for (std::size_t i = scan.records.size(); i-- > 0;) {
    next_sensor_t[i] = next_sensor_t[i + 1];
    if (scan.records[i].type == 'S')
      if (auto e = decode_entry('S', scan.records[i].body); e)
        next_sensor_t[i] = std::get<SensorEvent>(*e).t_ms;
  }
  for (std::size_t index = 0; index < scan.records.size(); ++index) {
    const FileRecord& rec = scan.records[index];
    auto entry = decode_entry(rec.type, rec.body);
    if (!entry) {
      if (r.bad_records.size() < 10)
        r.bad_records.push_back("record at byte " + std::to_string(rec.offset) + ": " + entry.error());
      continue;
    }
    std::visit(
        [&](auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, HeaderEntry>) {
            r.header = v;
            r.last_t = std::max(r.last_t, v.created_ms);
            if (v.previous_game > 0) r.ledger.continue_after(v.previous_game, v.tags);
          } else if constexpr (std::is_same_v<T, NewGameEntry>) {
            r.last_t = std::max(r.last_t, v.t_ms);
            if (auto ok = r.machine.new_game(v); !ok) {
              r.bad_records.push_back("new game at byte " + std::to_string(rec.offset) + ": " + ok.error());
              return;
            }
            r.ledger.on_new_game(v.t_ms, r.machine.game());
            published.start(r.machine.game().start());
          } else if constexpr (std::is_same_v<T, SensorEvent>) {
            ++r.sensor_records;
            r.last_t = std::max(r.last_t, v.t_ms);
            take(r.machine.on_sensor(v));
          } else if constexpr (std::is_same_v<T, EventEntry>) {
            if (is_daemon_note(v.json)) return;  // published by the daemon, not derived from the board
            published.on_event(v.json);
            // An event from a timer whose advance was not journaled: it fired before the next sensor
            // event, and advancing to that event's time fires what it would have fired first anyway.
            if (!check.has_pending() && next_sensor_t[index]) take(r.machine.advance(*next_sensor_t[index]));
            check.journaled(v.json);
          } else if constexpr (std::is_same_v<T, AdvanceEntry>) {
            r.last_t = std::max(r.last_t, v.t_ms);
            take(r.machine.advance(v.t_ms));
          } else if constexpr (std::is_same_v<T, TagsEntry>) {
            r.ledger.set_tags(v);
          } else if constexpr (std::is_same_v<T, RawEntry>) {
            ++r.raw_records;
          } else if constexpr (std::is_same_v<T, ControlEntry>) {
            r.last_t = std::max(r.last_t, v.t_ms);
            if (v.action == "ack") (void)r.ledger.acknowledge(std::atoi(v.value.c_str()));
            if (auto evs = r.machine.control(v)) take(std::move(*evs));
          }
        },
        *entry);
  }
  r.damaged = !scan.damaged.empty();
  r.journaled_events = check.journaled_events();
  r.matched_events = check.matched_events();
  r.mismatched_events = check.mismatched_events();
  r.mismatches = check.problems();
  r.unjournaled = check.unjournaled(r.exact() && !r.damaged);
  if (r.machine.has_game() && !published.agrees_with(r.machine.game())) {
    // What the world saw wins over a replay that disagrees with it or lacks some of it.
    r.machine.resume(published.merged(r.machine.game()));
    r.continue_from_published = true;
  }
  return r;
}

drivers::Capture export_capture(const JournalScan& scan, const std::string& board_id) {
  drivers::Capture cap;
  cap.info.protocol = "dgt";
  cap.info.board = board_id;
  std::optional<std::int64_t> origin;
  std::int64_t last = 0;
  for (const FileRecord& rec : scan.records) {
    if (rec.type == 'H') {
      if (auto h = decode_entry(rec.type, rec.body); h && std::get_if<HeaderEntry>(&*h))
        cap.info.board = std::get<HeaderEntry>(*h).board;
      continue;
    }
    if (rec.type != 'R') continue;
    auto e = decode_entry(rec.type, rec.body);
    if (!e) continue;
    auto& raw = std::get<RawEntry>(*e);
    if (raw.bytes.empty()) continue;
    if (!origin) {
      origin = raw.t_ms;
      cap.info.notes.push_back("exported by eboardd from its journal; t = 0 is Unix time " +
                               std::to_string(raw.t_ms) + " ms");
    }
    // Times in a capture never decrease, even if the system clock stepped back.
    last = std::max(last, raw.t_ms - *origin);
    cap.records.push_back({last, raw.direction, std::move(raw.bytes)});
  }
  return cap;
}

}  // namespace eboard::journal
