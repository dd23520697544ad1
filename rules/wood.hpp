// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The wood: a position as the pieces stand on a physical board, and the board a move leaves there. The
// pieces of reconstruction (rules/reconstruct.hpp and its parts) compare sensor boards with these. Pure.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "rules/position.hpp"

namespace eboard::rules {

using Board = std::array<Piece, 64>;

// The board after `m` in `pos`, computed on the array alone (cheaper than copying a Position). `shown`
// is the board of `pos` as it stands on the wood (in bughouse a promoted piece is a pawn there). Inline:
// it is called for every legal move at every turn.
inline Board board_after(const Board& shown, const Position& pos, Move m) {
  Board b = shown;
  Color us = pos.side_to_move();
  Square from = m.from(), to = m.to();
  switch (m.kind()) {
    case Move::DROP:
      b[to] = make_piece(us, m.drop_type());
      break;
    case Move::CASTLING: {
      bool king_side = to > from;
      b[from] = NO_PIECE;
      b[to] = NO_PIECE;
      b[Position::castle_king_to(us, king_side)] = make_piece(us, KING);
      b[Position::castle_rook_to(us, king_side)] = make_piece(us, ROOK);
      break;
    }
    case Move::EN_PASSANT:
      b[to] = b[from];
      b[from] = NO_PIECE;
      b[us == WHITE ? to - 8 : to + 8] = NO_PIECE;
      break;
    case Move::PROMOTION:
      b[to] = make_piece(us, m.promotion_type());
      b[from] = NO_PIECE;
      break;
    default:
      b[to] = b[from];
      b[from] = NO_PIECE;
  }
  return b;
}

// The position as it stands on the wood: with `pawn_stays` (FQE 11) a promoted piece is a pawn there.
Board physical_view(const Position& pos, bool pawn_stays);

// The board as a FEN's first field: any piece on any square, as a board may show them.
std::string board_text(const Board& board);

// The square where `now` shows one piece of `side`'s on a square empty on `before`, every other square
// alike (a piece set down from the hand); none otherwise.
std::optional<Square> one_piece_set_down(const Board& before, const Board& now, Color side);

// The square of the piece `m` captures in `pos` (en passant: beside its target), SQ_NONE for no capture.
Square victim_square(const Position& pos, Move m);

// The piece a capture by `m` in `pos` hands over (bughouse, FQE 6, 11): the victim in its own colour, a
// promoted one as a pawn; none when `m` captures nothing.
std::optional<Piece> handed_piece(const Position& pos, Move m);

}  // namespace eboard::rules
