// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The simulator's own pseudo-random numbers. Simulated games must replay bit for bit from a seed on every
// machine and library version, so no std::*_distribution (their output is implementation-defined): a
// splitmix64 generator and plain integer arithmetic only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace eboard::sim {

// splitmix64 (Steele, Lea, Flood 2014): one 64-bit add and a mixing function per draw; every seed,
// zero included, gives a full-period stream.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [lo, hi], both included; `lo` when the range is empty or inverted. The modulo bias is
  // below 2^-40 for the spans used here (milliseconds, square counts).
  std::int64_t range(std::int64_t lo, std::int64_t hi) {
    std::uint64_t r = next();
    if (hi <= lo) return lo;
    std::uint64_t span = std::uint64_t(hi - lo) + 1;
    return lo + std::int64_t(r % span);
  }

  // Uniform in [0, n); 0 when n is 0.
  std::size_t index(std::size_t n) {
    std::uint64_t r = next();
    return n == 0 ? 0 : std::size_t(r % n);
  }

  // Uniform in [0, 1) from the top 53 bits, exact in a double.
  double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }

  // True with probability p. Always draws, so a style with a probability of 0 consumes the same numbers
  // as one with a small probability: changing one quirk's probability does not reshuffle the others.
  bool chance(double p) { return unit() < p; }

 private:
  std::uint64_t state_;
};

// An independent seed for sub-stream `stream` of `seed` (one per hand, scanner …), so adding a consumer
// does not shift the numbers another consumer sees.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  Rng r(seed ^ (stream * 0xD1B54A32D192ED03ULL));
  r.next();
  return r.next();
}

}  // namespace eboard::sim
