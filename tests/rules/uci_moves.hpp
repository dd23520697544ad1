// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Moves typed as UCI in the ranking's tests: one move of a position, the moves and the position after
// several (each one that is not legal there a test failure), a sequence written back as UCI, and the gap
// search's sequences to where several lead.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rules/gap_search.hpp"
#include "rules/notation.hpp"
#include "rules/position.hpp"

namespace eboard::rules::test {

inline Move move(const Position& p, const std::string& uci) {
  auto m = parse_uci(p, uci);
  EXPECT_TRUE(m) << uci;
  return m ? *m : Move::none();
}

inline Position play(Position p, const std::vector<std::string>& uci) {
  for (const auto& u : uci) {
    auto m = parse_uci(p, u);
    EXPECT_TRUE(m) << u;
    if (!m) break;
    p.do_move(*m);
  }
  return p;
}

// The moves `uci` makes from `p`, in order (a sequence as the gap search gives it).
inline std::vector<Move> moves(Position p, const std::vector<std::string>& uci) {
  std::vector<Move> out;
  for (const auto& u : uci) {
    out.push_back(move(p, u));
    if (out.back().is_none()) break;
    p.do_move(out.back());
  }
  return out;
}

// A sequence of moves from `p` as UCI, separated by spaces.
inline std::string line(Position p, const std::vector<Move>& moves) {
  std::string out;
  for (Move m : moves) {
    out += (out.empty() ? "" : " ") + to_uci(p, m);
    p.do_move(m);
  }
  return out;
}

// The gap search's sequences from `from` to the board `played` (UCI) leads to, as long as it.
inline GapResult gap_to(const Position& from, const std::vector<std::string>& played) {
  GapQuery q;
  q.from = from;
  q.board = play(from, played).board();
  q.max_plies = int(played.size());
  return search_gap(q);
}

}  // namespace eboard::rules::test
