// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Known opening lines: the positions a book of opening lines reaches (each line's every prefix), read from
// PGN (an ECO classification such as Debian's pgn-extract ships, /usr/share/pgn-extract/eco.pgn). The gap
// ranking (rules/gap_features.hpp: kKnownLine) puts first, among the orders of a gap's moves, those that
// pass through positions people reach by a named line: 1.d4 Nf6 2.Nf3 d5 rather than 1.Nf3 Nf6 2.d4 d5
// when only the first is theory's order of those moves. Pure code: the caller reads the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>

#include <tl/expected.hpp>

#include "rules/position.hpp"

namespace eboard::rules {

class OpeningLines {
 public:
  // The lines of a PGN text: every game that replays from its start (standard or a SetUp position; a game
  // that does not read or replay, or has no move, is skipped and counted). An error only for a text without
  // any line.
  static tl::expected<OpeningLines, std::string> from_pgn(std::string_view text);

  bool contains(const Position& p) const { return keys_.count(p.key()) != 0; }
  std::size_t positions() const { return keys_.size(); }
  std::size_t lines() const { return lines_; }
  std::size_t skipped() const { return skipped_; }

 private:
  std::unordered_set<std::uint64_t> keys_;
  std::size_t lines_ = 0;
  std::size_t skipped_ = 0;
};

// The lines the daemon's reconstructors rank with (Reconstructor's GapEvidence::openings; games without
// drops only), none until set: at start-up, before any board replays its journal ([gaps] openings). Any
// thread may read it; a book set stays valid to the process's end (a test process starts several daemons).
void use_opening_lines(std::shared_ptr<const OpeningLines> lines);
const OpeningLines* opening_lines_in_use();

}  // namespace eboard::rules
