// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Recovery of a bughouse match (the two boards' journals): the inputs of both boards, journaled with the
// match's sequence numbers, are fed to one rules::Match in that order, as the live match got them, and the
// events each board derives are checked against the events its journal says were published.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/machine.hpp"
#include "rules/match.hpp"

namespace eboard::journal {

struct MatchRecovery {
  std::optional<rules::Match> match;  // none: the journals hold no match yet
  std::array<Ledger, 2> ledgers;
  // Per board: derived on replay but not journaled (the process died in between).
  std::array<std::vector<rules::Event>, 2> unjournaled;
  std::int64_t next_seq = 0;
  std::int64_t last_t = 0;
  std::int64_t started_ms = 0;         // of the current match
  std::size_t inputs_since_start = 0;  // its sensor events and promotion namings
  std::size_t inputs = 0;
  std::size_t journaled_events = 0;
  std::size_t matched_events = 0;
  std::size_t mismatched_events = 0;
  std::vector<std::string> problems;  // the first few mismatches and bad records, described
  bool damaged = false;               // a journal had damaged records (skipped)
  // The replay disagreed with what was published, or a journal was damaged: the match continues as the
  // journals say it was published (rebuilt from the boards' move events).
  bool continue_from_published = false;
  bool exact() const { return mismatched_events == 0; }
};

// The sequence number of a journaled input (-1 if it has none).
std::int64_t record_seq(const FileRecord& r);

// `a`, `b`: the journals of boards cfg.board_ids[0] and [1] (null when absent).
MatchRecovery recover_match(const JournalScan* a, const JournalScan* b, const rules::MatchConfig& cfg);

// Applies arbiter input of board `b` to a match (resign, draw, result, promotion, adopt, recover).
tl::expected<std::vector<rules::Event>, std::string> apply_match_control(rules::Match& m, int b,
                                                                         const ControlEntry& c);

}  // namespace eboard::journal
