// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/outcome.hpp"

#include "rules/movegen.hpp"

namespace eboard::rules {

namespace {
// The full material of one side at the start of a game, which bounds what can come from the partner.
constexpr int START_COUNT[PIECE_TYPE_NB] = {0, 8, 2, 2, 2, 1, 1};
}  // namespace

unsigned potentially_available_types(const Position& pos, Color side) {
  unsigned mask = 0;
  Bitboard mine = pos.pieces(side);
  for (PieceType t : {PAWN, KNIGHT, BISHOP, ROOK, QUEEN}) {
    // Promoted pieces were pawns: they count as pawns, not as their new type.
    Bitboard on_board = pos.pieces(side, t) & ~pos.promoted();
    int count = popcount(on_board) + pos.pocket(side, t);
    if (t == PAWN) count += popcount(mine & pos.promoted());
    if (count < START_COUNT[t]) mask |= 1u << t;
  }
  return mask;
}

bool bughouse_could_block(const Position& pos) {
  Bitboard checkers = pos.checkers();
  if (!checkers || more_than_one(checkers)) return false;  // double check: no single drop blocks both
  Square ksq = pos.king_square(pos.side_to_move());
  Square checker = lsb(checkers);
  Bitboard gap = between(ksq, checker) & ~square_bb(checker);  // empty for contact and knight checks
  if (!gap) return false;
  unsigned types = potentially_available_types(pos, pos.side_to_move());
  if (types & ~(1u << PAWN)) return true;  // any piece but a pawn may be dropped on any empty square
  if (types & (1u << PAWN)) return (gap & ~(rank_bb(0) | rank_bb(7))) != 0;
  return false;
}

bool is_checkmate(const Position& pos) {
  if (!pos.in_check() || !MoveList(pos).empty()) return false;
  if (pos.variant() == Variant::Bughouse) return !bughouse_could_block(pos);
  return true;
}

bool is_stalemate(const Position& pos) {
  return pos.variant() != Variant::Bughouse && !pos.in_check() && MoveList(pos).empty();
}

bool must_wait(const Position& pos) {
  return pos.variant() == Variant::Bughouse && MoveList(pos).empty() && !is_checkmate(pos);
}

bool can_ever_mate(const Position& pos, Color side) {
  if (has_drops(pos.variant())) return true;
  Bitboard mine = pos.pieces(side), theirs = pos.pieces(~side);
  if (pos.pieces(side, PAWN) | pos.pieces(side, ROOK) | pos.pieces(side, QUEEN)) return true;
  if (pos.pieces(side, KNIGHT)) {
    // A lone knight mates only with help: an enemy piece other than a queen can block the king's flight.
    if (popcount(mine) > 2) return true;
    return (theirs & ~pos.pieces(KING) & ~pos.pieces(QUEEN)) != 0;
  }
  if (pos.pieces(side, BISHOP)) {
    // Bishops all on one colour cannot mate unless the opponent has pawns or knights to self-block,
    // or the opponent has a bishop of the other colour.
    Bitboard bishops = pos.pieces(BISHOP);
    bool one_colour = !(bishops & DARK_SQUARES) || !(bishops & ~DARK_SQUARES);
    return !one_colour || (pos.pieces(PAWN) | pos.pieces(KNIGHT)) != 0;
  }
  return false;  // a bare king
}

namespace {

// Pawns only, every pawn blocked by an enemy pawn and no capture available now or ever: the kings
// alone decide. If neither king can reach a square from which it attacks an enemy pawn (the pawn
// chain walls them off), nothing can ever change: dead position. A flood fill through the squares a
// king may walk (not occupied by pawns, not attacked by enemy pawns) decides reachability.
bool locked_pawn_position(const Position& pos) {
  if (pos.pieces() != (pos.pieces(PAWN) | pos.pieces(KING))) return false;
  Bitboard wp = pos.pieces(WHITE, PAWN), bp = pos.pieces(BLACK, PAWN);
  if (!wp || !bp) return false;
  // Every pawn must be blocked head-on by an enemy pawn.
  if ((wp << 8) & ~bp) return false;
  if ((bp >> 8) & ~wp) return false;
  // No pawn can capture now; since pawns never move again, only kings could change that, and a king
  // never steps onto a square an enemy pawn attacks.
  Bitboard w_attacks = ((wp & ~file_bb(0)) << 7) | ((wp & ~file_bb(7)) << 9);
  Bitboard b_attacks = ((bp & ~file_bb(0)) >> 9) | ((bp & ~file_bb(7)) >> 7);
  if ((w_attacks & bp) || (b_attacks & wp)) return false;
  for (Color c : {WHITE, BLACK}) {
    Bitboard enemy_pawns = pos.pieces(~c, PAWN);
    Bitboard enemy_attacks = c == WHITE ? b_attacks : w_attacks;
    Bitboard walkable = ~pos.pieces(PAWN) & ~enemy_attacks;
    Bitboard reached = pos.pieces(c, KING), frontier = reached;
    while (frontier) {
      Bitboard next = 0;
      for (Bitboard f = frontier; f;) next |= king_attacks(pop_lsb(f));
      // An enemy pawn no other pawn defends is within the king's reach: the structure can change.
      if (next & enemy_pawns & ~enemy_attacks) return false;
      next &= walkable & ~reached;
      reached |= next;
      frontier = next;
    }
  }
  return true;
}

}  // namespace

bool is_dead_position(const Position& pos) {
  if (has_drops(pos.variant())) return false;  // FQE 10: no dead-position draws with drops
  if (!can_ever_mate(pos, WHITE) && !can_ever_mate(pos, BLACK)) return true;
  return locked_pawn_position(pos);
}

}  // namespace eboard::rules
