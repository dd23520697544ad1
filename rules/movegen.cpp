// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/movegen.hpp"

namespace eboard::rules {
namespace {

template <int Shift>
constexpr Bitboard shift(Bitboard b) {
  if constexpr (Shift == 8)
    return b << 8;
  else if constexpr (Shift == -8)
    return b >> 8;
  else if constexpr (Shift == 9)
    return (b & ~file_bb(7)) << 9;  // up-right for White
  else if constexpr (Shift == 7)
    return (b & ~file_bb(0)) << 7;  // up-left for White
  else if constexpr (Shift == -7)
    return (b & ~file_bb(7)) >> 7;  // down-right for Black
  else if constexpr (Shift == -9)
    return (b & ~file_bb(0)) >> 9;  // down-left for Black
}

inline Move* add_promotions(Move* out, Square from, Square to) {
  *out++ = Move::promotion(from, to, QUEEN);
  *out++ = Move::promotion(from, to, ROOK);
  *out++ = Move::promotion(from, to, BISHOP);
  *out++ = Move::promotion(from, to, KNIGHT);
  return out;
}

// Pawn moves of the pawns in `pawns` (none pinned) to squares in `target`; `capture_target` limits
// captures (the checker when in check).
template <Color Us>
Move* pawn_moves(const Position& pos, Bitboard pawns, Bitboard target, Move* out) {
  constexpr Color Them = Us == WHITE ? BLACK : WHITE;
  constexpr int Up = Us == WHITE ? 8 : -8;
  constexpr int UpRight = Us == WHITE ? 9 : -7;
  constexpr int UpLeft = Us == WHITE ? 7 : -9;
  constexpr Bitboard Rank7 = rank_bb(Us == WHITE ? 6 : 1);
  constexpr Bitboard Rank3 = rank_bb(Us == WHITE ? 2 : 5);
  Bitboard empty = ~pos.pieces();
  Bitboard enemies = pos.pieces(Them);
  Bitboard normal = pawns & ~Rank7, promoting = pawns & Rank7;

  Bitboard push1 = shift<Up>(normal) & empty;
  Bitboard push2 = shift<Up>(push1 & Rank3) & empty;
  push1 &= target;
  push2 &= target;
  while (push1) {
    Square to = pop_lsb(push1);
    *out++ = Move::make(Square(to - Up), to);
  }
  while (push2) {
    Square to = pop_lsb(push2);
    *out++ = Move::make(Square(to - 2 * Up), to);
  }
  Bitboard cap_r = shift<UpRight>(normal) & enemies & target;
  Bitboard cap_l = shift<UpLeft>(normal) & enemies & target;
  while (cap_r) {
    Square to = pop_lsb(cap_r);
    *out++ = Move::make(Square(to - UpRight), to);
  }
  while (cap_l) {
    Square to = pop_lsb(cap_l);
    *out++ = Move::make(Square(to - UpLeft), to);
  }
  if (promoting) {
    Bitboard p1 = shift<Up>(promoting) & empty & target;
    Bitboard pr = shift<UpRight>(promoting) & enemies & target;
    Bitboard pl = shift<UpLeft>(promoting) & enemies & target;
    while (p1) {
      Square to = pop_lsb(p1);
      out = add_promotions(out, Square(to - Up), to);
    }
    while (pr) {
      Square to = pop_lsb(pr);
      out = add_promotions(out, Square(to - UpRight), to);
    }
    while (pl) {
      Square to = pop_lsb(pl);
      out = add_promotions(out, Square(to - UpLeft), to);
    }
  }
  return out;
}

// One pawn's moves to squares in `allowed` (a pinned pawn: allowed is its pin line ∩ target).
Move* single_pawn_moves(const Position& pos, Color us, Square from, Bitboard allowed, Move* out) {
  int up = us == WHITE ? 8 : -8;
  Bitboard dests = 0;
  Square one = Square(from + up);
  if (is_ok(one) && pos.empty(one)) {
    dests |= square_bb(one);
    Square two = Square(one + up);
    if (relative_rank(us, from) == 1 && pos.empty(two)) dests |= square_bb(two);
  }
  dests |= pawn_attacks(us, from) & pos.pieces(~us);
  dests &= allowed;
  while (dests) {
    Square to = pop_lsb(dests);
    if (relative_rank(us, to) == 7)
      out = add_promotions(out, from, to);
    else
      *out++ = Move::make(from, to);
  }
  return out;
}

// The legal moves between the masks (generate_legal's). Inlined into both entry points, so that the full
// list's masks are constants the compiler folds away: perft pays nothing for the search's masks.
[[gnu::always_inline]] inline Move* legal_moves(const Position& pos, Move* out, Bitboard from_mask,
                                                Bitboard to_mask) {
  const Color us = pos.side_to_move(), them = ~us;
  const Square ksq = pos.king_square(us);
  const Bitboard occ = pos.pieces(), ours = pos.pieces(us), theirs = pos.pieces(them);
  const Bitboard checkers = pos.checkers();
  // A king is never taken. Legal play never leaves one attacked with the other side to move, but an
  // illegal move that stood (FIDE A.4.2: not claimed in time) can: then the opponent must still move.
  const Bitboard not_ours = ~(ours | pos.pieces(them, KING));

  // King steps: the destination must not be attacked once the king has left its square.
  const Bitboard occ_without_king = occ ^ square_bb(ksq);
  Bitboard kt = (from_mask & square_bb(ksq)) ? king_attacks(ksq) & not_ours & to_mask : 0;
  while (kt) {
    Square to = pop_lsb(kt);
    if (!(pos.attackers_to(to, occ_without_king) & theirs)) *out++ = Move::make(ksq, to);
  }
  if (more_than_one(checkers)) return out;  // double check: only the king can move

  // In check, other pieces must capture the checker or block it; otherwise anything not ours.
  const Bitboard target = (checkers ? between(ksq, lsb(checkers)) : not_ours) & to_mask;
  const Bitboard pinned = pos.blockers_for_king(us) & ours;

  Bitboard pawns = pos.pieces(us, PAWN) & from_mask;
  out = us == WHITE ? pawn_moves<WHITE>(pos, pawns & ~pinned, target, out)
                    : pawn_moves<BLACK>(pos, pawns & ~pinned, target, out);
  for (Bitboard b = pawns & pinned; b;) {
    Square from = pop_lsb(b);
    out = single_pawn_moves(pos, us, from, target & line(ksq, from), out);
  }
  if (Square ep = pos.ep_square(); ep != SQ_NONE && (to_mask & square_bb(ep))) {
    Square capsq = Square(us == WHITE ? ep - 8 : ep + 8);
    for (Bitboard b = pawn_attacks(them, ep) & pawns; b;) {
      Square from = pop_lsb(b);
      // Rare enough to test in full: remove both pawns, add ours on ep, and look at the king.
      Bitboard after = (occ ^ square_bb(from) ^ square_bb(capsq)) | square_bb(ep);
      if (!(pos.attackers_to(ksq, after) & theirs & ~square_bb(capsq)))
        *out++ = Move::make(from, ep, Move::EN_PASSANT);
    }
  }

  for (Bitboard b = pos.pieces(us, KNIGHT) & ~pinned & from_mask; b;) {
    Square from = pop_lsb(b);
    for (Bitboard t = knight_attacks(from) & target; t;) *out++ = Move::make(from, pop_lsb(t));
  }
  for (PieceType pt : {BISHOP, ROOK, QUEEN}) {
    for (Bitboard b = pos.pieces(us, pt) & from_mask; b;) {
      Square from = pop_lsb(b);
      Bitboard t = attacks(pt, from, occ) & target;
      if (pinned & square_bb(from)) t &= line(ksq, from);
      while (t) *out++ = Move::make(from, pop_lsb(t));
    }
  }

  if (!checkers && pos.can_castle(us == WHITE ? WHITE_OO | WHITE_OOO : BLACK_OO | BLACK_OOO)) {
    for (bool king_side : {true, false}) {
      int idx = castling_index(us, king_side);
      if (!pos.can_castle(std::uint8_t(1 << idx)) || (pos.castling_path(idx) & occ)) continue;
      Square rook = pos.castling_rook(idx);
      // Without king and rook on the board: in Chess960 the rook may have shielded the king's path.
      Bitboard bare = occ ^ square_bb(ksq) ^ square_bb(rook);
      bool attacked = false;
      for (Bitboard path = pos.castling_king_path(idx); path && !attacked;)
        attacked = (pos.attackers_to(pop_lsb(path), bare) & theirs) != 0;
      if (!attacked) *out++ = Move::make(ksq, rook, Move::CASTLING);
    }
  }

  if (has_drops(pos.variant())) {
    // A drop can block a check but never capture the checker.
    Bitboard drop_target = (checkers ? (between(ksq, lsb(checkers)) & ~checkers) : ~occ) & to_mask;
    for (PieceType pt : {PAWN, KNIGHT, BISHOP, ROOK, QUEEN}) {
      if (!pos.pocket(us, pt)) continue;
      Bitboard t = drop_target;
      if (pt == PAWN) t &= ~(rank_bb(0) | rank_bb(7));
      while (t) *out++ = Move::drop(pt, pop_lsb(t));
    }
  }
  return out;
}

}  // namespace

Move* generate_legal(const Position& pos, Move* out) {
  return legal_moves(pos, out, ~Bitboard(0), ~Bitboard(0));
}

Move* generate_legal(const Position& pos, Move* out, Bitboard from_mask, Bitboard to_mask) {
  return legal_moves(pos, out, from_mask, to_mask);
}

std::uint64_t perft(Position& pos, int depth) {
  Move moves[MAX_MOVES];
  Move* end = generate_legal(pos, moves);
  if (depth <= 1) return depth == 1 ? std::uint64_t(end - moves) : 1;
  std::uint64_t nodes = 0;
  for (Move* m = moves; m != end; ++m) {
    pos.do_move(*m);
    nodes += perft(pos, depth - 1);
    pos.undo_move(*m);
  }
  return nodes;
}

}  // namespace eboard::rules
