// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A game's start for the Reconstructor's gap tests: the position or game after some UCI moves, and a clock
// reading with White on the left.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rules/game.hpp"
#include "rules/notation.hpp"
#include "rules/position.hpp"
#include "rules/sensor.hpp"

namespace eboard::rules::test {

inline constexpr std::int64_t MIN = 60'000;

inline Position after(const std::vector<std::string>& uci, Variant v = Variant::Chess) {
  Position p = Position::start(v);
  for (const auto& m : uci) p.do_move(*parse_uci(p, m));
  return p;
}

// A standard game with `uci` played, as the Reconstructor takes it at start.
inline Game game_after(const std::vector<std::string>& uci) {
  Game game(Position::start(Variant::Chess));
  for (const auto& m : uci) game.play(*parse_uci(game.position(), m));
  return game;
}

// White sits on the left: the left lever up means White's clock runs.
inline ClockReading clock(ClockSide running, std::int64_t white_ms = 5 * MIN,
                          std::int64_t black_ms = 5 * MIN) {
  return ClockReading{white_ms, black_ms, true, running};
}

}  // namespace eboard::rules::test
