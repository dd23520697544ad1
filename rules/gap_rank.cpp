// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/gap_rank.hpp"

#include <algorithm>
#include <numeric>

#include "rules/gap_features.hpp"

namespace eboard::rules {

std::vector<double> gap_sequence_costs(const Position& before,
                                       const std::vector<std::vector<Move>>& candidates,
                                       const GapEvidence& evidence) {
  const std::vector<GapFeatures> features = gap_sequence_features(before, candidates, evidence);
  std::vector<double> costs;
  costs.reserve(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    double cost = 0;
    for (std::size_t k = 0; k < kGapFeatureCount; ++k) cost += kGapFeatureWeights[k] * features[i][k];
    if (i < evidence.outside_cost.size()) cost += evidence.outside_cost[i];
    costs.push_back(cost);
  }
  return costs;
}

std::vector<std::size_t> rank_gap_candidates(const Position& before,
                                             const std::vector<std::vector<Move>>& candidates,
                                             const GapEvidence& evidence) {
  const std::vector<double> costs = gap_sequence_costs(before, candidates, evidence);
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  auto seen = [&](std::size_t i) { return i < evidence.seen.size() ? evidence.seen[i] : 0; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (seen(a) != seen(b)) return seen(a) > seen(b);
    return costs[a] < costs[b];
  });
  return order;
}

}  // namespace eboard::rules
