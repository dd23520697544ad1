// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Fuzzes the gap search (rules/gap_search.hpp) against an oracle that tries every legal move at every ply
// (tests/rules/gap_oracle.hpp): the fuzzer's bytes choose the variant, a random game, the gap of 1 to 3
// plies after it, the board shown (at times with a piece moved or taken off besides) and the query's
// options. The search must list exactly the oracle's sequences at the oracle's length, its probe agree, and
// nothing crash. A byte past the input's end reads as 0.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "tests/fuzz/fuzz_support.hpp"
#include "tests/rules/gap_oracle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::size_t at = 0;
  auto choose = [&](std::size_t n) {
    std::size_t v = 0;
    for (int i = 0; i < 2; ++i) v = v * 256 + (at < size ? data[at++] : 0);
    return v % n;
  };
  const eboard::rules::GapQuery q = eboard::rules::oracle::random_gap(choose);
  const auto differs = eboard::rules::oracle::disagreement(q, 200'000);
  if (differs) std::fprintf(stderr, "%s\n", differs->c_str());
  eboard::fuzz::require(!differs);
  return 0;
}
