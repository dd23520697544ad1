// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gap policy (rules/gap_policy): a probability over each position's legal moves, and the log-likelihood of a
// gap's sequences walked as a tree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "rules/gap_policy.hpp"
#include "rules/gap_search.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "tests/rules/uci_moves.hpp"

using namespace eboard::rules;
using eboard::rules::test::move;
using eboard::rules::test::moves;
using eboard::rules::test::play;

namespace {

// The context after `uci` from `start` (the policy's view of the last two moves), as the daemon's game gives
// it.
MoveContext context_after(const Position& start, const std::vector<std::string>& uci) {
  MoveContext c;
  Position p = start;
  std::vector<Position> at{p};
  for (const auto& u : uci) {
    p.do_move(move(p, u));
    at.push_back(p);
  }
  const std::size_t n = uci.size();
  if (n >= 1) {
    c.last = move(at[n - 1], uci[n - 1]);
    c.last_captured = at[n - 1].is_capture(c.last);
    c.previous = at[n - 1];
  }
  if (n >= 2) {
    c.own_last = move(at[n - 2], uci[n - 2]);
    c.earlier_key = at[n - 2].key();
    c.earlier = legal_raw(at[n - 2]);
    c.earlier_known = true;
  }
  return c;
}

// Each legal move of `p` as a one-move sequence.
std::vector<std::vector<Move>> every_move(const Position& p) {
  std::vector<std::vector<Move>> out;
  for (Move m : MoveList(p)) out.push_back({m});
  return out;
}

double log_likelihood_of(const Position& p, const MoveContext& c, const std::string& uci) {
  return gap_sequence_log_likelihoods(p, {{move(p, uci)}}, c).front();
}

}  // namespace

TEST(GapPolicy, EachPositionsMovesShareAProbabilityOfOne) {
  for (const auto& line : std::vector<std::vector<std::string>>{
           {}, {"e2e4", "d7d5", "e4d5"}, {"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"}}) {
    const Position p = play(Position::start(), line);
    const MoveContext c = context_after(Position::start(), line);
    double sum = 0;
    for (double ll : gap_sequence_log_likelihoods(p, every_move(p), c)) {
      EXPECT_LE(ll, 0.0);
      sum += std::exp(ll);
    }
    EXPECT_NEAR(sum, 1.0, 1e-9) << line.size() << " plies in";
  }
}

TEST(GapPolicy, APieceTakenIsTakenBackAtOnce) {
  // 1.e4 d5 2.exd5: 2...Qxd5 takes back what was taken; 2...a6 leaves a pawn down.
  const std::vector<std::string> line{"e2e4", "d7d5", "e4d5"};
  const Position p = play(Position::start(), line);
  const MoveContext c = context_after(Position::start(), line);
  EXPECT_GT(log_likelihood_of(p, c, "d8d5"), log_likelihood_of(p, c, "a7a6") + 1.0);
  std::vector<std::pair<Move, MoveFeatures>> f;
  move_features(p, c, f);
  for (const auto& [m, x] : f) {
    EXPECT_EQ(x[kMfRecaptures] != 0, to_uci(p, m) == "d8d5") << to_uci(p, m);
    if (to_uci(p, m) == "d8d5") {
      EXPECT_EQ(x[kMfTakesLast], 1.0f);
    }
  }
}

TEST(GapPolicy, APieceSetWhereAPawnTakesItIsUnlikely) {
  // 1.e4 e5: 2.Nf3 develops, 2.Nh3 goes to the rim, 2.Ba6 sets the bishop where the b-pawn takes it.
  const std::vector<std::string> line{"e2e4", "e7e5"};
  const Position p = play(Position::start(), line);
  const MoveContext c = context_after(Position::start(), line);
  EXPECT_GT(log_likelihood_of(p, c, "g1f3"), log_likelihood_of(p, c, "g1h3"));
  EXPECT_GT(log_likelihood_of(p, c, "f1c4"), log_likelihood_of(p, c, "f1a6"));
}

TEST(GapPolicy, AMoveTheLastTwoMadePossibleIsReadAsNew) {
  // 1.e4 e5 2.Nf3: the context knows Black's position before 1...e5, where ...Bc5 was not legal (the bishop
  // shut in by the e-pawn) and ...Nc6 was.
  const std::vector<std::string> line{"e2e4", "e7e5", "g1f3"};
  const Position p = play(Position::start(), line);
  const MoveContext c = context_after(Position::start(), line);
  std::vector<std::pair<Move, MoveFeatures>> f;
  move_features(p, c, f);
  int seen = 0;
  for (const auto& [m, x] : f) {
    const std::string u = to_uci(p, m);
    if (u == "f8c5" || u == "b8c6") {
      EXPECT_EQ(x[kMfNew], u == "f8c5" ? 1.0f : 0.0f) << u;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2);
  // Unknown before a game's second move: nothing is new.
  move_features(Position::start(), {}, f);
  for (const auto& [m, x] : f) EXPECT_EQ(x[kMfNew], 0.0f);
}

TEST(GapPolicy, ASequencesLikelihoodIsItsMovesOneByOneInAnyOrderOfTheList) {
  // A real gap's list (transposed orders sharing prefixes), walked as a tree: each sequence's value is the
  // sum of its moves' as computed alone with its own context, whatever the order of the list.
  const std::vector<std::string> before{"e2e4", "e7e5"};
  const Position from = play(Position::start(), before);
  GapQuery q;
  q.from = from;
  q.board = play(from, {"g1f3", "b8c6", "f1c4", "g8f6", "b1c3", "f8c5"}).board();
  q.max_plies = 6;
  const GapResult r = search_gap(q);
  ASSERT_EQ(r.plies, 6);
  ASSERT_GT(r.sequences.size(), 4u);
  const MoveContext c = context_after(Position::start(), before);
  const std::vector<double> all = gap_sequence_log_likelihoods(from, r.sequences, c);
  std::vector<std::vector<Move>> shuffled = r.sequences;
  std::mt19937 g(7);
  std::shuffle(shuffled.begin(), shuffled.end(), g);
  const std::vector<double> again = gap_sequence_log_likelihoods(from, shuffled, c);
  for (std::size_t i = 0; i < r.sequences.size(); ++i) {
    const auto at = std::find(shuffled.begin(), shuffled.end(), r.sequences[i]) - shuffled.begin();
    EXPECT_NEAR(all[i], again[std::size_t(at)], 1e-9);
    // Move by move, each with the context the game up to it gives.
    std::vector<std::string> line = before;
    Position p = from;
    double sum = 0;
    for (Move m : r.sequences[i]) {
      sum += log_likelihood_of(p, context_after(Position::start(), line), to_uci(p, m));
      line.push_back(to_uci(p, m));
      p.do_move(m);
    }
    EXPECT_NEAR(all[i], sum, 1e-9) << i;
  }
}

TEST(GapPolicy, TheSquareTablesSeeTheBoardFromTheMoversSide) {
  // 1.e4 and 1.e4 e5's reply ...e5 read the same terms: the same pawn, the same squares seen from its side.
  const Position start = Position::start();
  const Position after_e4 = play(start, {"e2e4"});
  const auto white = square_terms(start, move(start, "e2e4"));
  const auto black = square_terms(after_e4, move(after_e4, "e7e5"));
  ASSERT_TRUE(white && black);
  EXPECT_EQ(white->at, black->at);
  EXPECT_LT(white->at[0], kSquaresPerTable);  // the square left
  EXPECT_GE(white->at[1], kSquaresPerTable);  // the square reached
  EXPECT_LT(white->at[1], 2 * kSquaresPerTable);
  EXPECT_EQ(white->at[2], 2 * kSquaresPerTable + white->at[0]);  // the opening's tables
  EXPECT_EQ(white->at[3], 2 * kSquaresPerTable + white->at[1]);
  EXPECT_NE(white->at, square_terms(start, move(start, "d2d4"))->at);
  // The opening's tables read in full at move 1, less each move, not after move 10 nor from a Chess960
  // start.
  EXPECT_FLOAT_EQ(white->opening, 1.0f);
  const Position later = play(start, {"e2e4", "e7e5", "g1f3", "b8c6"});
  EXPECT_FLOAT_EQ(square_terms(later, move(later, "f1c4"))->opening, 0.8f);
  const Position ruy =
      play(start, {"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7",
                   "f1e1", "b7b5", "a4b3", "d7d6", "c2c3", "e8g8", "h2h3", "c6b8", "d2d4", "b8d7"});
  EXPECT_EQ(ruy.fullmove_number(), 11);
  EXPECT_FLOAT_EQ(square_terms(ruy, move(ruy, "b1d2"))->opening, 0.0f);
  const Position c960 =
      *Position::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
  ASSERT_TRUE(c960.chess960());
  EXPECT_FLOAT_EQ(square_terms(c960, move(c960, "e2e4"))->opening, 0.0f);
  // Castling has a feature of its own, not the tables.
  const Position castle = play(start, {"e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"});
  EXPECT_FALSE(square_terms(castle, move(castle, "e1g1")));
}

TEST(GapPolicy, PeopleOpenWithTheirCentrePawnsAndKnights) {
  // What the tables add: at the start the centre pawns and the knights' usual squares come before the
  // rooks' pawns and the rim, for both sides alike.
  const Position start = Position::start();
  for (const char* central : {"e2e4", "d2d4", "g1f3"})
    for (const char* rim : {"a2a4", "h2h4", "g1h3"})
      EXPECT_GT(log_likelihood_of(start, {}, central), log_likelihood_of(start, {}, rim) + 1.0)
          << central << " against " << rim;
  const Position e4 = play(start, {"e2e4"});
  const MoveContext c = context_after(start, {"e2e4"});
  EXPECT_GT(log_likelihood_of(e4, c, "c7c5"), log_likelihood_of(e4, c, "a7a5") + 1.0);
  // A main line is likelier with the tables than with the features alone.
  const std::vector<std::string> ruy{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1"};
  const std::vector<std::vector<Move>> line{moves(start, ruy)};
  EXPECT_GT(
      gap_sequence_log_likelihoods(start, line).front(),
      gap_sequence_log_likelihoods(start, line, {}, kMoveFeatureWeights, PolicySquares{}).front() + 1.0);
}

TEST(GapPolicy, TheOpeningsTablesTellWhichOrderOfAGapsMovesCameFirst) {
  // The orders of one gap make the same moves: the tables of where add the same to each, the opening's
  // tables (how much earlier than later people make each move) do not. Each pair: the order people play
  // first, then a transposition of it; the opening's tables must move the likelihood towards the first.
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> pairs{
      {{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5"}, {"g1f3", "b8c6", "e2e4", "e7e5", "f1b5"}},
      {{"d2d4", "g8f6", "c2c4", "e7e6", "b1c3"}, {"c2c4", "e7e6", "b1c3", "g8f6", "d2d4"}},
      {{"e2e4", "c7c5", "g1f3", "d7d6", "d2d4"}, {"g1f3", "d7d6", "d2d4", "c7c5", "e2e4"}},
  };
  PolicySquares without_opening = kPolicySquares;
  std::fill(without_opening.begin() + 2 * kSquaresPerTable, without_opening.end(), 0.0f);
  const Position start = Position::start();
  for (const auto& [usual, other] : pairs) {
    const std::vector<std::vector<Move>> both{moves(start, usual), moves(start, other)};
    ASSERT_EQ(play(start, other).key(), play(start, usual).key());  // one gap: the same position reached
    const auto with = gap_sequence_log_likelihoods(start, both);
    const auto alone = gap_sequence_log_likelihoods(start, both, {}, kMoveFeatureWeights, without_opening);
    EXPECT_GT(with[0] - with[1], alone[0] - alone[1]) << usual[0] << " " << usual[1] << " ...";
    EXPECT_GT(with[0], with[1]) << usual[0] << " " << usual[1] << " ...";
  }
}
