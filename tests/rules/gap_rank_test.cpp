// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gap ranking (rules/gap_rank): the static exchange it weighs material with, and the order it gives the
// sequences of real gaps found by the search (a recapture made at once before one put off; the clocks'
// time against the moves per side).
#include <gtest/gtest.h>

#include <algorithm>

#include "rules/gap_features.hpp"
#include "rules/gap_rank.hpp"
#include "rules/gap_search.hpp"
#include "rules/notation.hpp"
#include "tests/rules/uci_moves.hpp"

using namespace eboard::rules;
using eboard::rules::test::gap_to;
using eboard::rules::test::line;
using eboard::rules::test::move;
using eboard::rules::test::moves;
using eboard::rules::test::play;

TEST(GapRank, ExchangeGainCountsTheExchangesThatFollow) {
  // 1.e4 f5: exf5 wins a pawn nothing retakes; 1.e4 d5: exd5 Qxd5, a pawn for a pawn.
  Position p = play(Position::start(), {"e2e4", "f7f5"});
  EXPECT_EQ(exchange_gain(p, move(p, "e4f5")), 1);
  EXPECT_EQ(exchange_gain(p, move(p, "g1f3")), 0);
  Position d = play(Position::start(), {"e2e4", "d7d5"});
  EXPECT_EQ(exchange_gain(d, move(d, "e4d5")), 0);
  // After 3.Bb5 a6: Bxc6 dxc6 is a bishop for a knight, even; Nxe5 Nxe5 a knight for a pawn.
  Position q = play(Position::start(), {"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"});
  EXPECT_EQ(exchange_gain(q, move(q, "b5c6")), 0);
  EXPECT_EQ(exchange_gain(q, move(q, "f3e5")), 1 - 3);
}

TEST(GapRank, ARecaptureMadeAtOnceComesBeforeOnePutOff) {
  // 4.Bxc6 dxc6 5.h3 h6 unseen: three orders reach the board; the one with dxc6 put off comes last.
  const Position from = play(Position::start(), {"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"});
  const GapResult r = gap_to(from, {"b5c6", "d7c6", "h2h3", "h7h6"});
  ASSERT_EQ(r.plies, 4);
  ASSERT_EQ(r.sequences.size(), 3u);
  const std::vector<std::size_t> order = rank_gap_candidates(from, r.sequences);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(line(from, r.sequences[order.back()]), "b5c6 h7h6 h2h3 d7c6");
  for (std::size_t i : {order[0], order[1]}) {
    const std::string l = line(from, r.sequences[i]);
    EXPECT_NE(l.find("b5c6 d7c6"), std::string::npos) << l;
  }
}

TEST(GapRank, TheClocksTellStoriesOfDifferentLengthsApart) {
  // Two moves by White in 1.5 s of his clock is too fast; one is not. Of one length, the clock ties.
  const Position from = Position::start();
  const std::vector<std::vector<Move>> stories{
      {move(from, "g1f3"), move(play(from, {"g1f3"}), "g8f6"), move(play(from, {"g1f3", "g8f6"}), "f3g1")},
      {move(from, "e2e4")}};
  GapEvidence e;
  e.time_used_ms = std::array<std::int64_t, 2>{1'500, 4'000};
  const std::vector<double> costs = gap_sequence_costs(from, stories, e);
  const std::vector<double> unclocked = gap_sequence_costs(from, stories);
  EXPECT_GT(costs[0] - unclocked[0], 0.0) << "two White moves in 1.5 s";
  EXPECT_EQ(costs[1], unclocked[1]) << "one White move in 1.5 s";
}

TEST(GapRank, TheMoveThatDoesMoreFirstIsReadAsTheQuietOrder) {
  // 1.e4 a6 2.h3 and 1.h3 a6 2.e4 reach the same board, nothing taken or threatened on the way: the order
  // that puts off the move doing more (e4 frees a bishop and the queen and takes the centre; h3 frees
  // nothing) is read as such and costs that much more. (The move policy, fitted on games, weighs the orders
  // too, and about evenly here: after 1.e4 a6 White has better moves than 2.h3, after 1.h3 a6 2.e4 is
  // common; the list's order between these two is the data's.)
  const Position from = Position::start();
  const GapResult r = gap_to(from, {"e2e4", "a7a6", "h2h3"});
  ASSERT_EQ(r.plies, 3);
  ASSERT_EQ(r.sequences.size(), 2u);
  const std::size_t e4_first = line(from, r.sequences[0]) == "e2e4 a7a6 h2h3" ? 0 : 1;
  ASSERT_EQ(line(from, r.sequences[e4_first]), "e2e4 a7a6 h2h3");
  const std::vector<GapFeatures> f = gap_sequence_features(from, r.sequences);
  EXPECT_EQ(f[e4_first][kOrderPutOff], 0.0);
  EXPECT_GT(f[1 - e4_first][kOrderPutOff], 0.0);
  EXPECT_EQ(f[e4_first][kMobilityGained], f[1 - e4_first][kMobilityGained]);
  const std::vector<double> costs = gap_sequence_costs(from, r.sequences);
  const double put_off = kGapFeatureWeights[kOrderPutOff] * f[1 - e4_first][kOrderPutOff];
  const double unlikely =
      kGapFeatureWeights[kUnlikely] * (f[1 - e4_first][kUnlikely] - f[e4_first][kUnlikely]);
  EXPECT_NEAR(costs[1 - e4_first] - costs[e4_first], put_off + unlikely, 1e-9);
}

TEST(GapRank, AReplyDefendingThePieceJustAttackedCostsLess) {
  // 1.e4 d5 attacks the pawn on e4: 2.Nc3 defends it, 2.Nf3 (as good for White's play, nothing to take
  // either way) does not. Sequences given as such: the cost alone is compared.
  const Position from = Position::start();
  auto sequence = [&](const std::vector<std::string>& uci) { return moves(from, uci); };
  const std::vector<std::vector<Move>> candidates = {sequence({"e2e4", "d7d5", "g1f3"}),
                                                     sequence({"e2e4", "d7d5", "b1c3"})};
  const std::vector<double> costs = gap_sequence_costs(from, candidates);
  EXPECT_LT(costs[1], costs[0]);
  EXPECT_EQ(rank_gap_candidates(from, candidates).front(), 1u);
  const std::vector<GapFeatures> read = gap_sequence_features(from, candidates);
  EXPECT_EQ(read[0][kDefences], 0.0);
  EXPECT_EQ(read[1][kDefences], 1.0);
  // Not a defence when the move before attacked nothing: 1.e4 h6 2.Nc3 (or 2.Nf3).
  const std::vector<std::vector<Move>> quiet = {sequence({"e2e4", "h7h6", "g1f3"}),
                                                sequence({"e2e4", "h7h6", "b1c3"})};
  for (const GapFeatures& f : gap_sequence_features(from, quiet)) EXPECT_EQ(f[kDefences], 0.0);
}

TEST(GapRank, TheHandAtTheLossPutsThePieceTouchedFirst) {
  // 1.h3 a6 2.e4 or 1.e4 a6 2.h3: whichever pawn was in the air as the board went out of sight was the first
  // moved (4.3), whatever the order the other evidence prefers.
  const Position from = Position::start();
  const GapResult r = gap_to(from, {"h2h3", "a7a6", "e2e4"});
  ASSERT_EQ(r.sequences.size(), 2u);
  GapEvidence e;
  e.hand_at_loss = from.board();
  (*e.hand_at_loss)[parse_square("h2")] = NO_PIECE;
  EXPECT_EQ(line(from, r.sequences[rank_gap_candidates(from, r.sequences, e)[0]]), "h2h3 a7a6 e2e4");
  (*e.hand_at_loss)[parse_square("h2")] = W_PAWN;
  (*e.hand_at_loss)[parse_square("e2")] = NO_PIECE;
  EXPECT_EQ(line(from, r.sequences[rank_gap_candidates(from, r.sequences, e)[0]]), "e2e4 a7a6 h2h3");
  (*e.hand_at_loss)[parse_square("e2")] = W_PAWN;
  (*e.hand_at_loss)[parse_square("h2")] = NO_PIECE;
}
