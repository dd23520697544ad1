// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/gap_share.hpp"

#include <algorithm>
#include <cmath>

namespace eboard::rules {

std::vector<double> gap_shares_of_costs(const std::vector<double>& costs) {
  if (costs.empty()) return {};
  // From the least cost, so that no exponential overflows or every one underflows.
  const double least = *std::min_element(costs.begin(), costs.end());
  std::vector<double> shares;
  shares.reserve(costs.size());
  double sum = 0;
  for (double c : costs) {
    shares.push_back(std::exp(-(c - least) / kShareTemperature));
    sum += shares.back();
  }
  for (double& s : shares) s /= sum;
  return shares;
}

std::vector<double> gap_sequence_shares(const Position& before,
                                        const std::vector<std::vector<Move>>& candidates,
                                        const GapEvidence& evidence) {
  if (candidates.empty()) return {};
  for (const auto& seq : candidates)
    if (seq.size() != candidates.front().size()) return {};
  return gap_shares_of_costs(gap_sequence_costs(before, candidates, evidence));
}

}  // namespace eboard::rules
