// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gap shares: how sure the ranking (rules/gap_rank.hpp) is of each sequence it lists, for the arbiter who
// reads the list. A sequence's share is its likelihood against the others' of the same gap, exp(-cost / T)
// over their sum: the costs as the ranking weighs them (pawns), T (kShareTemperature) fitted so that the
// shares are what they say, measured by `bench_gap_ranking` (the share shown for the first sequence
// against how often it was the one played). A share is among the listed sequences only: a gap whose list
// lacks the sequence played (one longer than its shortest stories, a list cut short) is not in it. Like
// the ranking it decides nothing. Pure code.
#pragma once

#include <vector>

#include "rules/gap_rank.hpp"
#include "rules/position.hpp"

namespace eboard::rules {

// Fitted on the training half of bench_gap_ranking's ambiguous gaps (the mean log share of the sequence
// played greatest: 1.0 to 3.0 tried, 1.75 best there and on the held-out half).
inline constexpr double kShareTemperature = 1.75;

// The shares of sequences whose costs are `costs` (same order), summing to 1; empty for no sequence.
std::vector<double> gap_shares_of_costs(const std::vector<double>& costs);

// The share of each of `candidates` (sequences of legal moves from `before`, in any order), or empty when
// their lengths differ (the costs of sequences of other lengths are not weighed alike) or there are none.
// The scans' fit (GapEvidence::seen), which the ranking compares before the costs, is no part of a share.
std::vector<double> gap_sequence_shares(const Position& before,
                                        const std::vector<std::vector<Move>>& candidates,
                                        const GapEvidence& evidence = {});

}  // namespace eboard::rules
