// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The check both recoveries (single boards, bughouse matches) make: the events a replay derives for a
// board, compared in order with the events its journal says were published, and what the journal says
// of the published game (its moves and results) when the replay and the journal disagree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rules/events.hpp"
#include "rules/game.hpp"

namespace eboard::journal {

class ReplayCheck {
 public:
  // Keeps at most `max_problems` descriptions of mismatches.
  explicit ReplayCheck(std::size_t max_problems) : max_problems_(max_problems) {}

  void derived(rules::Event e) { pending_.push_back(std::move(e)); }
  // Whether an event was derived that no journaled event was compared with yet.
  bool has_pending() const { return !pending_.empty(); }
  // Compares the next derived event with one the journal says was published (a JSON line). Returns the
  // published event when it is not a move: the derived one when they agree, else read from the line (none
  // when the line cannot be read as one).
  std::optional<rules::Event> journaled(const std::string& json);
  // What was derived after the last journaled event: it was never published. Published late only when
  // the replay told the story the journal tells (`trusted`): after damage or a disagreement it may be an
  // artefact of what is missing (a false illegal-move).
  std::vector<rules::Event> unjournaled(bool trusted);

  std::size_t journaled_events() const { return journaled_; }
  std::size_t matched_events() const { return matched_; }
  std::size_t mismatched_events() const { return mismatched_; }
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::size_t max_problems_;
  std::deque<rules::Event> pending_;
  std::size_t journaled_ = 0, matched_ = 0, mismatched_ = 0;
  std::vector<std::string> problems_;
};

// A published event recovery reads back: a move (its ply, UCI, clock and time), a board's result, a
// match's result. Anything else (and a line that is not JSON) is none.
struct PublishedMove {
  int ply = 0;
  std::string uci;
  rules::ClockTimes clock;
  std::int64_t t = 0;
};
struct PublishedResult {
  rules::Outcome outcome;
};
struct PublishedMatchResult {
  rules::MatchResultEvent result;
};
using PublishedEvent = std::variant<PublishedMove, PublishedResult, PublishedMatchResult>;
std::optional<PublishedEvent> read_published(std::string_view event_json);

// A published event that is not a move (alert, claimable, result, match-result, match-paused, match-resumed),
// read back from its JSON line (CONTRACTS §3); none for a move or a line that is not one of these.
std::optional<rules::Event> read_published_note(std::string_view event_json);

// One step of rebuilding a game as it was published (both recoveries do it when the replay disagrees with
// the journal): ply `ply` as published, or the replay's when the journal lost it, as long as the replay
// agrees with what was published (`replay_agrees` turns false at the first disagreement). `replayed` is the
// replay's record of that ply when the two agree on it. None: a hole nothing fills.
struct NextPublished {
  PublishedMove move;
  const rules::PlyRecord* replayed = nullptr;
};
std::optional<NextPublished> next_published(const std::map<int, PublishedMove>& published,
                                            const rules::Game& replay, int ply, bool& replay_agrees);

}  // namespace eboard::journal
