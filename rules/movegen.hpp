// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Legal move generation: every legal move of the side to move, drops included in drop variants.
#pragma once

#include <cstddef>

#include "rules/position.hpp"

namespace eboard::rules {

// Enough for any reachable position with drops (5 piece types on up to 64 squares plus board moves).
constexpr int MAX_MOVES = 512;

// Writes the legal moves of `pos` at `out` and returns the end.
Move* generate_legal(const Position& pos, Move* out);
// Only the legal moves of a piece that stands on a square of `from` and goes to one of `to` (a drop: to one
// of `to`), and every legal castling whatever the masks (it moves two pieces). A search that would throw the
// others away spares their making and, for the king's steps, the test of each destination.
Move* generate_legal(const Position& pos, Move* out, Bitboard from, Bitboard to);

class MoveList {
 public:
  explicit MoveList(const Position& pos) : last_(generate_legal(pos, moves_)) {}
  const Move* begin() const { return moves_; }
  const Move* end() const { return last_; }
  std::size_t size() const { return std::size_t(last_ - moves_); }
  bool empty() const { return last_ == moves_; }
  bool contains(Move m) const {
    for (Move x : *this)
      if (x == m) return true;
    return false;
  }

 private:
  Move moves_[MAX_MOVES];
  Move* last_;
};

// Counts leaf nodes of the legal move tree to `depth` (bulk-counted at the last ply).
std::uint64_t perft(Position& pos, int depth);

}  // namespace eboard::rules
