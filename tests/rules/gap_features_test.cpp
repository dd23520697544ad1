// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gap features (rules/gap_features): what the ranking reads in a sequence, each on a position that shows it
// and one that does not, and the ranking they give a gap whose candidates differ only by it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rules/gap_features.hpp"
#include "rules/gap_rank.hpp"
#include "rules/gap_search.hpp"
#include "rules/notation.hpp"
#include "tests/rules/game_after.hpp"

using namespace eboard::rules;

namespace {

std::vector<Move> sequence(const Position& from, const std::vector<std::string>& uci) {
  std::vector<Move> out;
  Position p = from;
  for (const auto& u : uci) {
    auto m = parse_uci(p, u);
    EXPECT_TRUE(m) << u;
    if (!m) break;
    out.push_back(*m);
    p.do_move(*m);
  }
  return out;
}

GapFeatures features(const Position& from, const std::vector<std::string>& uci) {
  return gap_sequence_features(from, {sequence(from, uci)}).front();
}

}  // namespace

TEST(GapFeatures, APieceSetWhereAPawnOrALesserPieceTakesItIsCounted) {
  // 1.e4 c6: 2.Bb5 stands where the c6 pawn takes it, 2.Bc4 does not.
  const Position p = test::after({"e2e4", "c7c6"});
  EXPECT_EQ(features(p, {"f1b5"})[kSetWhereLesserTakes], 1.0);
  EXPECT_EQ(features(p, {"f1c4"})[kSetWhereLesserTakes], 0.0);
  // 1.e4 Nf6 2.Nc3 Nc6: 3.Qh5 stands where the knight on f6 takes it (a lesser piece); a capture is not
  // counted (what it takes is the material's evidence).
  const Position q = test::after({"e2e4", "g8f6", "b1c3", "b8c6"});
  EXPECT_EQ(features(q, {"d1h5"})[kSetWhereLesserTakes], 1.0);
  EXPECT_EQ(features(q, {"d1f3"})[kSetWhereLesserTakes], 0.0);
}

TEST(GapFeatures, ChecksAreCountedWithThePlyTheyCameAt) {
  // 1.e4 f6 2.d4 g5 3.Qh5+: the check on the third ply (2 counted from 0).
  const GapFeatures f = features(Position::start(), {"e2e4", "f7f6", "d2d4", "g7g5", "d1h5"});
  EXPECT_EQ(f[kChecks], 1.0);
  EXPECT_EQ(f[kCheckPlies], 4.0);
  EXPECT_EQ(features(Position::start(), {"e2e4", "f7f6", "d2d4"})[kChecks], 0.0);
}

TEST(GapFeatures, APieceTakenOutOfAnAttackIsAnEscape) {
  // After 1.e4 Nf6 2.e5 the knight the pawn attacks steps away (an escape); after 1.e4 Nf6 2.d3 the same
  // move is not one.
  const Position p = test::after({"e2e4", "g8f6", "e4e5"});
  EXPECT_EQ(features(p, {"f6d5"})[kEscapes], 1.0);
  const Position q = test::after({"e2e4", "g8f6", "d2d3"});
  EXPECT_EQ(features(q, {"f6d5"})[kEscapes], 0.0);
}

TEST(GapFeatures, AMoveThatAttacksAGreaterPieceIsAThreat) {
  // 1.e4 Nf6 2.e5: the pawn attacks the knight (greater); 2.d3 attacks nothing.
  const Position p = test::after({"e2e4", "g8f6"});
  EXPECT_EQ(features(p, {"e4e5"})[kThreats], 1.0);
  EXPECT_EQ(features(p, {"d2d3"})[kThreats], 0.0);
}

TEST(GapFeatures, KnightsToTheRimAndTheDistancesBetweenMoves) {
  const Position p = Position::start();
  EXPECT_EQ(features(p, {"g1h3"})[kKnightsToTheRim], 1.0);
  EXPECT_EQ(features(p, {"g1f3"})[kKnightsToTheRim], 0.0);
  // 1.e4 e5 2.d4: Black's reply a king's step from e4 (e5), White's next from e4's own neighbour d2, two
  // king steps from e4; from the reply on e5, d4 is one.
  const GapFeatures f = features(p, {"e2e4", "e7e5", "d2d4"});
  EXPECT_EQ(f[kDistanceFromReply], 1.0 + 1.0);
  EXPECT_EQ(f[kDistanceFromOwnLast], 2.0);
}

TEST(GapFeatures, ABishopSetWhereAPawnTakesItCostsMore) {
  // After 1.e4 c6, two candidates that differ by White's move alone: 2.Bb5 a6, the bishop where the c6 pawn
  // takes it, costs more than 2.Bc4 a6.
  const Position from = test::after({"e2e4", "c7c6"});
  const std::vector<std::vector<Move>> candidates = {sequence(from, {"f1b5", "a7a6"}),
                                                     sequence(from, {"f1c4", "a7a6"})};
  const std::vector<GapFeatures> f = gap_sequence_features(from, candidates);
  const std::vector<double> costs = gap_sequence_costs(from, candidates);
  EXPECT_GT(f[0][kSetWhereLesserTakes], f[1][kSetWhereLesserTakes]);
  EXPECT_GT(costs[0], costs[1]);
}

TEST(GapFeatures, EveryFeatureHasANameAndTheCostIsTheirWeightedSum) {
  for (const char* name : kGapFeatureNames) EXPECT_NE(name, nullptr);
  const Position from = test::after({"e2e4", "g8f6"});
  const std::vector<std::vector<Move>> candidates = {sequence(from, {"e4e5", "f6d5", "c2c4"}),
                                                     sequence(from, {"b1c3", "d7d5", "e4d5"})};
  const std::vector<GapFeatures> f = gap_sequence_features(from, candidates);
  const std::vector<double> costs = gap_sequence_costs(from, candidates);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    double sum = 0;
    for (std::size_t k = 0; k < kGapFeatureCount; ++k) sum += kGapFeatureWeights[k] * f[i][k];
    EXPECT_DOUBLE_EQ(costs[i], sum);
  }
}
