// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/gap_hand.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "rules/notation.hpp"
#include "tests/rules/uci_moves.hpp"

using namespace eboard::rules;
using eboard::rules::test::move;
using eboard::rules::test::play;

namespace {

std::vector<std::string> lines(Position from, const std::vector<std::vector<Move>>& sequences) {
  std::vector<std::string> out;
  for (const auto& seq : sequences) {
    Position p = from;
    std::string line;
    for (Move m : seq) {
      line += (line.empty() ? "" : " ") + to_uci(p, m);
      p.do_move(m);
    }
    out.push_back(line);
  }
  return out;
}

// The gap from the start to the board `played` leads to, its side on move known (a clock's).
GapQuery gap_of(const std::vector<std::string>& played) {
  GapQuery q;
  q.from = Position::start();
  const Position after = play(q.from, played);
  q.board = after.board();
  q.side_to_move = after.side_to_move();
  return q;
}

std::array<Piece, 64> lifted(const Position& p, const std::string& square) {
  std::array<Piece, 64> hand = p.board();
  hand[parse_square(square)] = NO_PIECE;
  return hand;
}

}  // namespace

TEST(GapHand, ThePieceInTheAirOrSetDownIsOnTheWayToItsMovesOnly) {
  const Position from = Position::start();
  std::array<Piece, 64> hand = lifted(from, "h2");
  EXPECT_TRUE(hand_on_the_way(from, hand, move(from, "h2h3")));
  EXPECT_FALSE(hand_on_the_way(from, hand, move(from, "e2e4")));
  // The pawn set down on h3 fits h3, not h4; a pawn in the air from e2 and h2 at once fits neither move.
  hand[parse_square("h3")] = W_PAWN;
  EXPECT_TRUE(hand_on_the_way(from, hand, move(from, "h2h3")));
  EXPECT_FALSE(hand_on_the_way(from, hand, move(from, "h2h4")));
  hand[parse_square("e2")] = NO_PIECE;
  EXPECT_FALSE(hand_on_the_way(from, hand, move(from, "h2h3")));
  EXPECT_FALSE(hand_on_the_way(from, hand, move(from, "e2e4")));
  // The opponent's piece lifted to be taken: the capture on its square fits.
  const Position d = play(from, {"e2e4", "d7d5"});
  const std::array<Piece, 64> taking = lifted(d, "d5");
  EXPECT_TRUE(hand_on_the_way(d, taking, move(d, "e4d5")));
  EXPECT_FALSE(hand_on_the_way(d, taking, move(d, "e4e5")));
  // Nothing in the air: no evidence either way.
  EXPECT_FALSE(hand_on_the_way(d, d.board(), move(d, "e4d5")));
}

TEST(GapHand, AKnightInTheAirTellsADetourTheShortestStoriesDoNotBeginWith) {
  // 1.Nf3 a6 2.Ng1 a5 3.e4 played, the knight lifted from g1 as the board went out of sight. The board shows
  // 1.e3 a5 2.e4 as well, three plies, Black on move: that story does not begin with the knight.
  const GapQuery q = gap_of({"g1f3", "a7a6", "f3g1", "a6a5", "e2e4"});
  const GapResult shortest = search_gap(q);
  ASSERT_EQ(shortest.plies, 3);
  const auto began = stories_the_hand_began(q, shortest, lifted(q.from, "g1"));
  ASSERT_TRUE(began);
  EXPECT_EQ(began->plies, 5);
  const std::vector<std::string> told = lines(q.from, began->sequences);
  EXPECT_NE(std::find(told.begin(), told.end(), "g1f3 a7a6 f3g1 a6a5 e2e4"), told.end());
  for (const auto& line : told) EXPECT_TRUE(line.rfind("g1f3", 0) == 0 || line.rfind("g1h3", 0) == 0) << line;
  // Searched without the side on move known, the story a ply longer is tried first (none reaches it here).
  GapQuery unknown = q;
  unknown.side_to_move.reset();
  const auto any_side = stories_the_hand_began(unknown, search_gap(unknown), lifted(q.from, "g1"));
  ASSERT_TRUE(any_side);
  EXPECT_EQ(any_side->plies, 5);
}

TEST(GapHand, AHandTheShortestStoriesFitOrNoMoversPieceInTheAirTellsNothing) {
  const GapQuery q = gap_of({"g1f3", "a7a6", "f3g1", "a6a5", "e2e4"});
  const GapResult shortest = search_gap(q);
  // The pawn from e2 in the air: the shortest story begins with it.
  EXPECT_FALSE(stories_the_hand_began(q, shortest, lifted(q.from, "e2")));
  // Black's pawn lifted alone (White on move): not White's touch.
  EXPECT_FALSE(stories_the_hand_began(q, shortest, lifted(q.from, "a7")));
  // Nothing in the air.
  EXPECT_FALSE(stories_the_hand_began(q, shortest, q.from.board()));
}

// A list the search left short (truncated: the work ran out after it found some), none of whose stories the
// hand began: the stories of that length the hand began, where any (a search with more work would have
// listed them), else the shortest longer ones.
TEST(GapHand, AListLeftShortIsSearchedFromTheHandsMovesFromItsLength) {
  const GapQuery q = gap_of({"g1f3", "a7a6", "f3g1", "a6a5", "e2e4"});
  GapResult cut = search_gap(q);
  ASSERT_EQ(cut.plies, 3);
  cut.truncated = true;
  const auto knight = stories_the_hand_began(q, cut, lifted(q.from, "g1"));
  ASSERT_TRUE(knight);
  EXPECT_EQ(knight->plies, 5);
  // A list cut at max_candidates (the work did not run out) is not searched again.
  GapQuery capped = q;
  capped.max_candidates = cut.sequences.size();
  EXPECT_FALSE(stories_the_hand_began(capped, cut, lifted(q.from, "g1")));
  // Five plies, listed short of the knight's stories: those are the stories of that length.
  GapQuery five = q;
  five.min_plies = five.max_plies = 5;
  const GapResult all_five = search_gap(five);
  ASSERT_EQ(all_five.plies, 5);
  GapResult short_of_them;
  short_of_them.plies = 5;
  short_of_them.truncated = true;
  for (const auto& seq : all_five.sequences)
    if (lines(q.from, {seq}).front().rfind("g1", 0) != 0) short_of_them.sequences.push_back(seq);
  ASSERT_FALSE(short_of_them.sequences.empty());
  ASSERT_LT(short_of_them.sequences.size(), all_five.sequences.size());
  const auto began = stories_the_hand_began(q, short_of_them, lifted(q.from, "g1"));
  ASSERT_TRUE(began);
  EXPECT_EQ(began->plies, 5);
  const std::vector<std::string> told = lines(q.from, began->sequences);
  EXPECT_NE(std::find(told.begin(), told.end(), "g1f3 a7a6 f3g1 a6a5 e2e4"), told.end());
  for (const auto& line : told) EXPECT_EQ(line.rfind("g1", 0), 0u) << line;
}

TEST(GapHand, ASearchThatRanOutOfWorkIsSearchedFromTheHandsMoves) {
  // The search cut short before it found any story: those the hand began are searched from the shortest.
  const GapQuery q = gap_of({"g1f3", "a7a6", "f3g1", "a6a5", "e2e4"});
  GapResult cut;
  cut.exhausted = true;
  const auto pawn = stories_the_hand_began(q, cut, lifted(q.from, "e2"));
  ASSERT_TRUE(pawn);
  EXPECT_EQ(pawn->plies, 3);
  for (const auto& line : lines(q.from, pawn->sequences)) EXPECT_EQ(line.rfind("e2e3", 0), 0u) << line;
  const auto knight = stories_the_hand_began(q, cut, lifted(q.from, "g1"));
  ASSERT_TRUE(knight);
  EXPECT_EQ(knight->plies, 5);
  // Cut short again from the hand's moves: nothing told.
  GapQuery tight = q;
  tight.max_nodes = 4;
  EXPECT_FALSE(stories_the_hand_began(tight, cut, lifted(q.from, "g1")));
}
