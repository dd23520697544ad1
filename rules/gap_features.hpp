// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gap features: what the ranking (rules/gap_rank.hpp) reads in each sequence a gap search found, one number
// per kind of evidence, and the weight each number has in the sequence's cost (in pawns; lower cost is
// likelier). The weights of the evidence of how people play were fitted (a conditional logit: the played
// sequence against the others of its gap) on gaps cut from the even games of the corpora and measured on
// the odd ones; `GAP_FIT=1 bench_gap_ranking` fits them again and prints both. Pure code: no time, no I/O.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "rules/gap_rank.hpp"

namespace eboard::rules {

enum GapFeature : std::size_t {
  kAnswers,              // moves taking the piece the opponent just moved, or leaving its reach
  kDefences,             // else defending a piece of its side that piece now attacks
  kOpenings,             // moves through the square the move before left
  kMirrors,              // replies in kind (e4 e5, castling after castling)
  kUnderpromotions,      // promotions to less than a queen
  kGainsMissed,          // material (pawns) the mover could have won by a capture and did not
  kGainsLeft,            // material a move left the opponent to win, beyond what it won itself
  kOrderPutOff,          // mobility units of quiet moves put off behind ones that did less (Urgency)
  kClockShort,           // seconds a side's clock is short of a second a move (sequences of one length tie)
  kHandNotFitting,       // 1 when the first move does not fit the hand seen at work at the loss (FIDE 4.3)
  kDistanceFromReply,    // king steps from the opponent's last destination to the move's destination
  kDistanceFromOwnLast,  // king steps from the side's own last destination to the move's origin
  kKnightsToTheRim,      // knight moves to the a or h file
  kSetWhereLesserTakes,  // pieces set where an enemy pawn attacks them, and where a lesser piece does
  kChecks,               // checks given
  kCheckPlies,           // the sum of the plies (0 first) at which checks were given
  kMobilityGained,       // mobility units (quarter pawns) the quiet moves gave their side, over 4
  kEscapes,              // pieces moved off a square a lesser enemy piece attacked, or attacked undefended
  kThreats,              // moves whose piece then attacks a greater or undefended enemy piece
  kUnlikely,             // minus the sequence's log-likelihood under the move policy (rules/gap_policy.hpp)
  kKnownLine,            // positions of the sequence a known opening line reaches (GapEvidence::openings)
  kGapFeatureCount
};

using GapFeatures = std::array<double, kGapFeatureCount>;

// The names, for the bench and the logs.
extern const std::array<const char*, kGapFeatureCount> kGapFeatureNames;
// The weight of each feature in a sequence's cost, in pawns.
extern const GapFeatures kGapFeatureWeights;

// Static exchange: the material (in pawns) the side on move wins by the capture `m` and the exchanges on its
// square that follow (each side may stop when going on would lose). 0 for a move that takes nothing.
int exchange_gain(const Position& p, Move m);

// The mobility of `c`'s pieces in `p`, in quarter pawns: the squares each attacks that its side does not
// hold, four for a knight's or a bishop's, two for a rook's, one for the queen's.
int side_mobility(const Position& p, Color c);

// The features of each candidate (sequences of legal moves from `before`).
std::vector<GapFeatures> gap_sequence_features(const Position& before,
                                               const std::vector<std::vector<Move>>& candidates,
                                               const GapEvidence& evidence = {});

}  // namespace eboard::rules
