// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/recovery.hpp"

#include <cstdlib>
#include <deque>

#include <nlohmann/json.hpp>

#include "daemon/core/event_json.hpp"
#include "rules/notation.hpp"

namespace eboard::journal {

using namespace eboard::rules;

namespace {

// Rebuilds the current game from published events: `move` events in ply order (ply 1 begins a game
// again: the pieces were set up anew), `result` ends it.
class PublishedGame {
 public:
  void start(const Position& p) {
    start_ = p;
    moves_.clear();
    outcome_.reset();
  }
  void restart() {
    moves_.clear();
    outcome_.reset();
  }
  void on_event(const std::string& line) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) return;
    std::string type = j.value("type", "");
    if (type == "move") {
      int ply = j.value("ply", 0);
      if (ply == 1 && !moves_.empty()) restart();
      if (ply != int(moves_.size()) + 1) return;
      ClockTimes c;
      if (j.contains("clock"))
        c = {j["clock"].value("white", std::int64_t{-1}), j["clock"].value("black", std::int64_t{-1})};
      moves_.push_back({j.value("uci", ""), c, j.value("t", std::int64_t{0})});
    } else if (type == "result") {
      std::string r = j.value("result", "*");
      Result res = r == "1-0"       ? Result::WhiteWins
                   : r == "0-1"     ? Result::BlackWins
                   : r == "1/2-1/2" ? Result::Draw
                                    : Result::Ongoing;
      outcome_ = Outcome{res, j.value("reason", "")};
    }
  }
  std::optional<Game> game() const {
    Game g(start_);
    for (const auto& m : moves_) {
      auto mv = parse_uci(g.position(), m.uci);
      if (!mv) return std::nullopt;
      g.play(*mv, m.clock, m.t);
    }
    if (outcome_) g.set_outcome(*outcome_);
    return g;
  }

 private:
  struct M {
    std::string uci;
    ClockTimes clock;
    std::int64_t t;
  };
  Position start_ = Position::start();
  std::vector<M> moves_;
  std::optional<Outcome> outcome_;
};

}  // namespace

Recovery recover(const JournalScan& scan, const std::string& board_id) {
  Recovery r(board_id);
  r.torn = scan.problem;
  std::deque<Event> derived;
  PublishedGame published;
  auto take = [&](std::vector<Event>&& evs) {
    for (auto& e : evs) {
      r.ledger.on_event(e);
      derived.push_back(std::move(e));
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
            ++r.journaled_events;
            published.on_event(v.json);
            // An event from a timer whose advance was not journaled: it fired before the next sensor
            // event, and advancing to that event's time fires what it would have fired first anyway.
            if (derived.empty() && next_sensor_t[index]) take(r.machine.advance(*next_sensor_t[index]));
            if (derived.empty()) {
              ++r.mismatched_events;
              if (r.mismatches.size() < 5) r.mismatches.push_back("journaled but not derived: " + v.json);
              return;
            }
            std::string got = daemon::to_json_line(derived.front());
            derived.pop_front();
            if (got == v.json) {
              ++r.matched_events;
            } else {
              ++r.mismatched_events;
              if (r.mismatches.size() < 5)
                r.mismatches.push_back("journaled " + v.json + " but replay derived " + got);
            }
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
  r.unjournaled.assign(std::make_move_iterator(derived.begin()), std::make_move_iterator(derived.end()));
  if (r.machine.has_game()) r.published_game = published.game();
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
