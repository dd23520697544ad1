// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A gap's length by the players' pace (rules/gap_pace.hpp).
#include "rules/gap_pace.hpp"

#include <gtest/gtest.h>

#include "rules/notation.hpp"

using namespace eboard::rules;

namespace {

const SidePace kTenSeconds{{9'000, 11'000, 10'000, 10'500, 9'500}};

TEST(GapPace, TwiceTheTimeOfAMoveFitsOneMoveMore) {
  EXPECT_GT(one_more_move_log_ratio(kTenSeconds, 20'000, 1), kOneMoreMoveHoldLogRatio);
  EXPECT_GT(one_more_move_log_ratio(kTenSeconds, 40'000, 3), 0);
}

TEST(GapPace, TheTimeOfTheMovesToldDoesNot) {
  EXPECT_LT(one_more_move_log_ratio(kTenSeconds, 10'000, 1), 0);
  EXPECT_LT(one_more_move_log_ratio(kTenSeconds, 31'000, 3), 0);
  // A part of a move (the side whose clock runs at the reading): 1.5 moves' time is no move more.
  EXPECT_LT(one_more_move_log_ratio(kTenSeconds, 15'000, 1.5), 0);
}

TEST(GapPace, NoMoveToldAndTheClockRanIsAMoveMore) {
  EXPECT_GT(one_more_move_log_ratio(kTenSeconds, 10'000, 0), kOneMoreMoveHoldLogRatio);
  EXPECT_LT(one_more_move_log_ratio(kTenSeconds, 0, 0), 0);
}

TEST(GapPace, FewerThanThreeMovesTellNothing) {
  EXPECT_EQ(one_more_move_log_ratio(SidePace{{10'000, 10'000}}, 60'000, 1), 0);
}

TEST(GapPace, EachSidesTimesComeFromTheClockAfterEachOfItsMoves) {
  Game game(Position::start(Variant::Chess));
  game.set_start_clock(ClockTimes{300'000, 300'000});
  const char* moves[] = {"e2e4", "e7e5", "g1f3", "b8c6", "f1c4"};
  std::int64_t white = 300'000, black = 300'000;
  int i = 0;
  for (const char* uci : moves) {
    (i % 2 == 0 ? white : black) -= 1'000 * (i + 1);  // 1, 2, 3, 4, 5 s
    game.play(*parse_uci(game.position(), uci), ClockTimes{white, black}, (i + 1) * 10'000);
    ++i;
  }
  const auto paces = side_paces(game);
  EXPECT_EQ(paces[WHITE].per_move_ms, (std::vector<std::int64_t>{1'000, 3'000, 5'000}));
  EXPECT_EQ(paces[BLACK].per_move_ms, (std::vector<std::int64_t>{2'000, 4'000}));
  EXPECT_EQ(side_paces(game, 2)[WHITE].per_move_ms, (std::vector<std::int64_t>{3'000, 5'000}));
}

}  // namespace
