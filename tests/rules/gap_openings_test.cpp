// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Known opening lines (rules/gap_openings): the positions a PGN book of lines reaches, and the order they
// give the orders of a gap's moves (rules/gap_features.hpp: kKnownLine).
#include "rules/gap_openings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "rules/gap_features.hpp"
#include "rules/gap_rank.hpp"
#include "rules/gap_search.hpp"
#include "rules/notation.hpp"
#include "tests/rules/uci_moves.hpp"

using namespace eboard::rules;
using eboard::rules::test::gap_to;
using eboard::rules::test::line;
using eboard::rules::test::play;

namespace {

constexpr const char* kTwoLines =
    "[ECO \"A46\"]\n[Opening \"Queen's pawn\"]\n\n1. d4 Nf6 2. Nf3 d5 *\n\n"
    "[ECO \"C20\"]\n[Opening \"King's pawn\"]\n\n1. e4 e5 *\n\n"
    "[ECO \"X00\"]\n[Opening \"Not a line\"]\n\n1. e5 *\n";

}  // namespace

TEST(GapOpenings, EveryPrefixOfEveryLineIsKnownAndNothingElse) {
  const auto lines = OpeningLines::from_pgn(kTwoLines);
  ASSERT_TRUE(lines) << lines.error();
  EXPECT_EQ(lines->lines(), 2u);
  EXPECT_EQ(lines->skipped(), 1u);  // 1.e5 is no move
  EXPECT_EQ(lines->positions(), 6u);
  EXPECT_TRUE(lines->contains(play(Position::start(), {"d2d4"})));
  EXPECT_TRUE(lines->contains(play(Position::start(), {"d2d4", "g8f6", "g1f3"})));
  EXPECT_TRUE(lines->contains(play(Position::start(), {"e2e4", "e7e5"})));
  EXPECT_FALSE(lines->contains(play(Position::start(), {"g1f3"})));
  EXPECT_FALSE(lines->contains(Position::start()));  // no line's move reaches it
  // A transposition is the same position: 1.Nf3 Nf6 2.d4 reaches 1.d4 Nf6 2.Nf3's.
  EXPECT_TRUE(lines->contains(play(Position::start(), {"g1f3", "g8f6", "d2d4"})));
}

TEST(GapOpenings, ATextWithoutALineIsAnError) {
  EXPECT_FALSE(OpeningLines::from_pgn(""));
  EXPECT_FALSE(OpeningLines::from_pgn("[Event \"x\"]\n\n*\n"));
  EXPECT_FALSE(OpeningLines::from_pgn("\xff\xfe garbage 1. Zz9 *"));
}

TEST(GapOpenings, TheOrderALinePassesThroughComesFirst) {
  // 1.d4 Nf6 2.Nf3 d5 unseen: four orders reach the board. The line known puts its own order first, and
  // the order through 1.Nf3 Nf6 when that is the line known instead.
  const Position from = Position::start();
  const GapResult r = gap_to(from, {"d2d4", "g8f6", "g1f3", "d7d5"});
  ASSERT_EQ(r.plies, 4);
  ASSERT_GE(r.sequences.size(), 4u);
  const std::pair<const char*, const char*> books[] = {{"1. d4 Nf6 2. Nf3 d5 *", "d2d4 g8f6 g1f3 d7d5"},
                                                       {"1. Nf3 Nf6 2. d4 d5 *", "g1f3 g8f6 d2d4 d7d5"},
                                                       {"1. Nf3 d5 2. d4 Nf6 *", "g1f3 d7d5 d2d4 g8f6"}};
  for (const auto& [text, expected] : books) {
    const auto lines = OpeningLines::from_pgn(text);
    ASSERT_TRUE(lines) << lines.error();
    GapEvidence e;
    e.openings = &*lines;
    const std::vector<std::size_t> order = rank_gap_candidates(from, r.sequences, e);
    EXPECT_EQ(line(from, r.sequences[order[0]]), expected) << text;
    // The feature counts the positions on the line: all four for the line's own order.
    const auto features = gap_sequence_features(from, r.sequences, e);
    EXPECT_EQ(features[order[0]][kKnownLine], 4.0);
  }
  // Without lines, nothing counted.
  for (const auto& f : gap_sequence_features(from, r.sequences)) EXPECT_EQ(f[kKnownLine], 0.0);
}
