// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Checks the match tests share: both journals of a match replay to exactly the moves it published.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "daemon/journal/match_recovery.hpp"
#include "tests/daemon_journal/manual_source.hpp"

namespace eboard::test_support {

// The two journals, replayed together in the match's order, give `moves` on each board: every event
// journaled matched, nothing derived that the journals lack.
inline void expect_match_replays_exactly(const std::array<journal::JournalScan, 2>& scans,
                                         const std::array<std::vector<std::string>, 2>& moves) {
  journal::MatchRecovery r = journal::recover_match(&scans[0], &scans[1], rules::MatchConfig{});
  EXPECT_TRUE(r.exact()) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_GT(r.journaled_events, 16u);
  EXPECT_EQ(r.matched_events, r.journaled_events);
  EXPECT_TRUE(r.unjournaled[0].empty() && r.unjournaled[1].empty());
  ASSERT_TRUE(r.match);
  for (int b = 0; b < 2; ++b)
    EXPECT_EQ(move_ucis(r.match->board(b).game()), moves[std::size_t(b)]) << "board " << b;
}

}  // namespace eboard::test_support
