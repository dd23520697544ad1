// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gap shares (rules/gap_share): each listed sequence's likelihood against the others', from the ranking's
// costs, for the arbiter who reads the list.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "rules/gap_rank.hpp"
#include "rules/gap_search.hpp"
#include "rules/gap_share.hpp"
#include "tests/rules/uci_moves.hpp"

using namespace eboard::rules;
using eboard::rules::test::gap_to;
using eboard::rules::test::move;
using eboard::rules::test::play;

TEST(GapShare, SharesSumToOneAndFollowTheCosts) {
  const std::vector<double> s = gap_shares_of_costs({2.0, 0.5, 2.0, 9.0});
  ASSERT_EQ(s.size(), 4u);
  EXPECT_NEAR(std::accumulate(s.begin(), s.end(), 0.0), 1.0, 1e-12);
  EXPECT_GT(s[1], s[0]);
  EXPECT_DOUBLE_EQ(s[0], s[2]);  // equal costs, equal shares
  EXPECT_GT(s[0], s[3]);
  // A cost lower by the temperature is e times as likely.
  EXPECT_NEAR(s[1] / s[0], std::exp(1.5 / kShareTemperature), 1e-9);
  EXPECT_TRUE(gap_shares_of_costs({}).empty());
  EXPECT_DOUBLE_EQ(gap_shares_of_costs({42.0}).front(), 1.0);
}

TEST(GapShare, CostsFarApartNeitherOverflowNorVanish) {
  const std::vector<double> s = gap_shares_of_costs({5000.0, 5001.0, -3000.0});
  for (double x : s) EXPECT_TRUE(std::isfinite(x));
  EXPECT_NEAR(s[2], 1.0, 1e-12);
  EXPECT_GE(s[0], s[1]);  // both vanish against the third (8,000 pawns less)
}

TEST(GapShare, ARealGapsSharesFollowItsRankingOrder) {
  // 4.Bxc6 dxc6 5.h3 h6 unseen: the orders the search finds, their shares as the ranking orders them.
  const Position from = play(Position::start(), {"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"});
  const GapResult r = gap_to(from, {"b5c6", "d7c6", "h2h3", "h7h6"});
  ASSERT_GE(r.sequences.size(), 2u);
  const std::vector<double> shares = gap_sequence_shares(from, r.sequences);
  ASSERT_EQ(shares.size(), r.sequences.size());
  EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1.0, 1e-12);
  const std::vector<std::size_t> order = rank_gap_candidates(from, r.sequences);
  for (std::size_t i = 1; i < order.size(); ++i) EXPECT_GE(shares[order[i - 1]], shares[order[i]]);
}

TEST(GapShare, SequencesOfOtherLengthsHaveNoShares) {
  const Position from = Position::start();
  const std::vector<std::vector<Move>> mixed{{move(from, "e2e4")},
                                             {move(from, "e2e3"), move(play(from, {"e2e3"}), "e7e6")}};
  EXPECT_TRUE(gap_sequence_shares(from, mixed).empty());
  EXPECT_TRUE(gap_sequence_shares(from, {}).empty());
}

TEST(GapShare, ABughouseGapWithDropsHasShares) {
  // A knight from White's reserve dropped on d5 and h3 played, in either order, while Black plays a6 and
  // a5: the ranking's costs weigh the drop as a move, and the shares are theirs.
  auto p = Position::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Nb] w KQkq - 2 3",
                              Variant::Bughouse);
  ASSERT_TRUE(p);
  const GapResult r = gap_to(*p, {"N@d5", "a7a6", "h2h3", "a6a5"});
  ASSERT_GE(r.sequences.size(), 2u);
  const std::vector<double> shares = gap_sequence_shares(*p, r.sequences);
  ASSERT_EQ(shares.size(), r.sequences.size());
  EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1.0, 1e-12);
  for (double x : shares) EXPECT_TRUE(std::isfinite(x) && x >= 0 && x <= 1);
}
