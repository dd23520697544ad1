// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/press_count.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace eboard::rules {

namespace {

// Readings are whole seconds: each side's time read up to a second short, so a sum of two readings' drops
// is off by up to 2 s, mostly much less.
constexpr std::int64_t kTolerance = 1500;
constexpr std::int64_t kLeastIncrement = 2000;  // counts of one parity lie 2 × increment apart
constexpr std::size_t kSamples = 16;            // the last presses: a clock set again mid-game learns anew
constexpr std::size_t kLeastSamples = 8;        // each is off by up to 2 s: their mean, not one of them

std::int64_t sum(const ClockTimes& c) { return c.white_ms + c.black_ms; }

}  // namespace

bool seen_with_clock(const PlyRecord& p) {
  return p.clock.known() && !p.recovered && !p.missed && !p.jump && !p.illegal;
}

std::optional<std::int64_t> learned_increment(std::span<const PlyRecord> plies) {
  std::vector<std::int64_t> added;  // per press: what the sum gained beyond the time that ran
  for (std::size_t i = plies.size(); i-- > 1 && added.size() < kSamples;) {
    const PlyRecord& a = plies[i - 1];
    const PlyRecord& b = plies[i];
    if (seen_with_clock(a) && seen_with_clock(b) && b.time_ms >= a.time_ms)
      added.push_back(sum(b.clock) - sum(a.clock) + (b.time_ms - a.time_ms));
  }
  if (added.size() < kLeastSamples) return std::nullopt;
  std::vector<std::int64_t> sorted = added;
  std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(sorted.size() / 2), sorted.end());
  const std::int64_t median = sorted[sorted.size() / 2];
  std::int64_t total = 0;
  std::size_t agree = 0;
  for (std::int64_t x : added)
    if (std::llabs(x - median) <= kTolerance) total += x, ++agree;
  if (agree * 4 < added.size() * 3) return std::nullopt;
  const std::int64_t mean = total / std::int64_t(agree);
  const std::int64_t increment = (mean + 500) / 1000 * 1000;
  if (increment < kLeastIncrement) return std::nullopt;
  return increment;
}

std::optional<int> presses_between(const TimedClock& before, const TimedClock& after,
                                   std::int64_t increment_ms, bool odd) {
  if (!before.times.known() || !after.times.known() || after.t_ms < before.t_ms ||
      increment_ms < kLeastIncrement)
    return std::nullopt;
  const std::int64_t added = sum(after.times) - sum(before.times) + (after.t_ms - before.t_ms);
  // The nearest count of the parity: counts of one parity lie 2 × increment apart.
  std::int64_t n = (added + increment_ms / 2) / increment_ms;
  if (n < 0) n = 0;
  if ((n % 2 == 1) != odd) n += (added > n * increment_ms || n == 0) ? 1 : -1;
  // Within 1.5 s, or more where the next count of the parity is far enough that no reading errs so much.
  const std::int64_t tolerance = std::clamp<std::int64_t>(increment_ms - 2500, kTolerance, 2500);
  if (std::llabs(added - n * increment_ms) > tolerance) return std::nullopt;
  return int(n);
}

}  // namespace eboard::rules
