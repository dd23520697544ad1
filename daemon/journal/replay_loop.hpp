// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The one replay both recoveries run, a single board's (recovery.hpp) and a bughouse match's
// (match_recovery.hpp): journal records, in the order the live daemon took them, are decoded and fed to
// what they drive (a board's reconstruction, or a match of two), and per board the events that gives are
// kept in the board's ledger as the live board keeps them and checked, in order, against the events its
// journal says were published. What differs between the two is only the target and the order of the
// records (one journal's own order; two journals merged by the match's sequence numbers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/machine.hpp"
#include "daemon/journal/replay_check.hpp"
#include "rules/events.hpp"
#include "rules/game.hpp"
#include "rules/sensor.hpp"

namespace eboard::journal {

// What the replay drives: the same code the live board or match runs.
class ReplayTarget {
 public:
  virtual ~ReplayTarget() = default;
  // A new-game record of `board`, with its sequence number (-1: none). True: a game began; false: the
  // record begins nothing new (the other board's record of the same match).
  virtual tl::expected<bool, std::string> new_game(int board, const NewGameEntry& g, std::int64_t seq) = 0;
  virtual std::vector<rules::Event> sensor(int board, const rules::SensorEvent& e) = 0;
  virtual std::vector<rules::Event> advance(std::int64_t now_ms) = 0;
  virtual tl::expected<std::vector<rules::Event>, std::string> control(int board, const ControlEntry& c) = 0;
  // The game `board` plays now; null before the first.
  virtual const rules::Game* game(int board) const = 0;
  // The board an event the target derived belongs to.
  virtual int board_of(const rules::Event& e) const = 0;
};

// What a board's journal says was published of its current game: moves by ply (ply 1 begins a game again:
// the pieces were set up anew), its result, and a match's result. A damaged journal can have lost some of
// them: holes.
class PublishedGame {
 public:
  void start(const rules::Position& p) {
    start_ = p;
    restart();
  }
  void restart();
  void on_event(const std::string& line);

  const std::map<int, PublishedMove>& moves() const { return moves_; }
  const std::optional<rules::Outcome>& outcome() const { return outcome_; }
  const std::optional<rules::MatchResultEvent>& match_result() const { return match_result_; }
  int last_ply() const { return moves_.empty() ? 0 : moves_.rbegin()->first; }

  // Whether the replayed game shows every published move (and the result, if one was published).
  bool agrees_with(const rules::Game& replay) const;
  // The published game, its holes filled from the replay as long as the replay agrees with what was
  // published; it stops at a hole nothing fills or a move that cannot be played.
  rules::Game merged(const rules::Game& replay) const;

 private:
  rules::Position start_ = rules::Position::start();
  std::map<int, PublishedMove> moves_;
  std::optional<rules::Outcome> outcome_;
  std::optional<rules::MatchResultEvent> match_result_;
};

class ReplayLoop {
 public:
  // `labels`: one per board, put before its problems ("" for none); `max_problems` per board.
  ReplayLoop(ReplayTarget& target, std::vector<std::string> labels, std::size_t max_problems);

  // Feeds an input record of `board` (header, new game, sensor event, timer advance, arbiter input, tags,
  // raw bytes), `seq` its match sequence number (-1: none). Published events go to journaled().
  void input(int board, const FileRecord& rec, std::int64_t seq = -1);
  // An event the journal of `board` says was published: compared with the next one the replay derived
  // for that board, and read back into the board's published game.
  void journaled(int board, const std::string& json);
  // The published events of `board` begin again (its journal's next game, read after the inputs).
  void published_restart(int board);
  // Whether the replay derived an event for `board` that no journaled event was compared with yet.
  bool has_pending(int board) const { return boards_[std::size_t(board)].check.has_pending(); }
  // The target's events: each to its board's ledger and check.
  void take(std::vector<rules::Event>&& events);

  // Ends the replay: sums the checks, and `trusted` (no mismatch, no bad record, no damage) decides
  // whether what was derived after the last journaled event is published late (see ReplayCheck).
  struct Summary {
    std::size_t journaled_events = 0, matched_events = 0, mismatched_events = 0;
    std::vector<std::string> problems;  // the first few mismatches of every board
    bool trusted = false;
  };
  Summary finish(bool damaged);

  Ledger& ledger(int board) { return boards_[std::size_t(board)].ledger; }
  PublishedGame& published(int board) { return boards_[std::size_t(board)].published; }
  // Per board: derived on replay but not journaled (after finish()).
  std::vector<rules::Event>& unjournaled(int board) { return boards_[std::size_t(board)].unjournaled; }
  const std::optional<HeaderEntry>& header(int board) const { return boards_[std::size_t(board)].header; }
  std::int64_t last_t() const { return last_t_; }
  std::size_t sensor_records() const { return sensor_records_; }
  std::size_t raw_records() const { return raw_records_; }
  // Records that could not be decoded or applied (skipped), described; the first ten.
  const std::vector<std::string>& bad_records() const { return bad_records_; }

 private:
  struct Board {
    std::string label;
    Ledger ledger;
    ReplayCheck check;
    PublishedGame published;
    std::optional<HeaderEntry> header;
    std::vector<rules::Event> unjournaled;
    // The notes (alerts, claims, results) the journal says were published in the current game, and its
    // alerts in all: what the ledger keeps after finish(), whatever the replay derived.
    std::vector<rules::Event> published_notes;
    int published_alerts = 0;
    std::vector<int> acks;  // alerts acknowledged in the current game, by number
  };
  void restart_notes(Board& b);
  void bad_record(int board, const std::string& what);

  ReplayTarget& target_;
  std::vector<Board> boards_;
  std::int64_t last_t_ = 0;
  std::size_t sensor_records_ = 0, raw_records_ = 0;
  std::vector<std::string> bad_records_;
};

}  // namespace eboard::journal
