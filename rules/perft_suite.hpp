// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Perft suites as text: python-chess `.perft` blocks (id / epd / perft D N) or EPD lines (`FEN ;D1 N ;D2 N`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace eboard::rules {

struct PerftExpectation {
  int depth;
  std::uint64_t nodes;
};

struct PerftCase {
  std::string id;  // the block's id, or "line N" for EPD lines
  std::string fen;
  int line = 0;  // where the case starts in the file, for error messages
  std::vector<PerftExpectation> expected;
};

// Parses a whole suite; the error names the line that could not be read.
tl::expected<std::vector<PerftCase>, std::string> parse_perft_suite(std::string_view text);

}  // namespace eboard::rules
