// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/wood.hpp"

namespace eboard::rules {

Board physical_view(const Position& pos, bool pawn_stays) {
  Board b = pos.board();
  if (!pawn_stays) return b;
  for (Bitboard bb = pos.promoted(); bb; bb &= bb - 1) {
    Square s = lsb(bb);
    if (b[s] != NO_PIECE) b[s] = make_piece(color_of(b[s]), PAWN);
  }
  return b;
}

std::string board_text(const Board& board) {
  std::string s;
  for (int r = 7; r >= 0; --r) {
    int empty = 0;
    for (int f = 0; f < 8; ++f) {
      const Piece pc = board[make_square(f, r)];
      if (pc == NO_PIECE) {
        ++empty;
        continue;
      }
      if (empty) s += char('0' + empty);
      empty = 0;
      s += piece_char(pc);
    }
    if (empty) s += char('0' + empty);
    if (r) s += '/';
  }
  return s;
}

std::optional<Square> one_piece_set_down(const Board& before, const Board& now, Color side) {
  std::optional<Square> set;
  for (Square q = 0; q < 64; ++q) {
    if (now[q] == before[q]) continue;
    if (set || before[q] != NO_PIECE || now[q] == NO_PIECE || color_of(now[q]) != side) return std::nullopt;
    set = q;
  }
  return set;
}

Square victim_square(const Position& pos, Move m) {
  if (m.kind() == Move::EN_PASSANT) return Square(pos.side_to_move() == WHITE ? m.to() - 8 : m.to() + 8);
  return pos.is_capture(m) ? m.to() : SQ_NONE;
}

std::optional<Piece> handed_piece(const Position& pos, Move m) {
  Square victim = victim_square(pos, m);
  if (victim == SQ_NONE) return std::nullopt;
  return make_piece(color_of(pos.piece_on(victim)), pos.captured_hand_type(victim));
}

}  // namespace eboard::rules
