// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Bitboard helpers and precomputed attack tables (magic bitboards for sliders).
#pragma once

#include <array>

#include "rules/types.hpp"

namespace eboard::rules {

constexpr Bitboard FILE_A_BB = 0x0101010101010101ULL;
constexpr Bitboard RANK_1_BB = 0xFFULL;
constexpr Bitboard file_bb(int f) { return FILE_A_BB << f; }
constexpr Bitboard rank_bb(int r) { return RANK_1_BB << (8 * r); }
constexpr Bitboard DARK_SQUARES = 0xAA55AA55AA55AA55ULL;

inline int popcount(Bitboard b) {
#if defined(__POPCNT__)
  return __builtin_popcountll(b);
#else
  // Debian builds for x86-64 without the popcnt instruction, where the builtin is a call into libgcc:
  // counting in the register is faster.
  b -= (b >> 1) & 0x5555555555555555ULL;
  b = (b & 0x3333333333333333ULL) + ((b >> 2) & 0x3333333333333333ULL);
  b = (b + (b >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return int((b * 0x0101010101010101ULL) >> 56);
#endif
}
inline Square lsb(Bitboard b) { return Square(__builtin_ctzll(b)); }
inline Square pop_lsb(Bitboard& b) {
  Square s = lsb(b);
  b &= b - 1;
  return s;
}
constexpr bool more_than_one(Bitboard b) { return (b & (b - 1)) != 0; }

namespace detail {
struct Magic {
  Bitboard mask;
  Bitboard magic;
  const Bitboard* attacks;
  unsigned shift;
  unsigned index(Bitboard occupied) const { return unsigned(((occupied & mask) * magic) >> shift); }
};
extern const std::array<Magic, 64> rook_magics;
extern const std::array<Magic, 64> bishop_magics;
extern const std::array<std::array<Bitboard, 64>, 2> pawn_attacks;
extern const std::array<std::array<Bitboard, 64>, PIECE_TYPE_NB> pseudo_attacks;
extern const std::array<std::array<Bitboard, 64>, 64> between_bb;
extern const std::array<std::array<Bitboard, 64>, 64> line_bb;
}  // namespace detail

inline Bitboard pawn_attacks(Color c, Square s) { return detail::pawn_attacks[c][s]; }
inline Bitboard knight_attacks(Square s) { return detail::pseudo_attacks[KNIGHT][s]; }
inline Bitboard king_attacks(Square s) { return detail::pseudo_attacks[KING][s]; }
inline Bitboard rook_attacks(Square s, Bitboard occ) {
  const auto& m = detail::rook_magics[s];
  return m.attacks[m.index(occ)];
}
inline Bitboard bishop_attacks(Square s, Bitboard occ) {
  const auto& m = detail::bishop_magics[s];
  return m.attacks[m.index(occ)];
}
inline Bitboard queen_attacks(Square s, Bitboard occ) {
  return rook_attacks(s, occ) | bishop_attacks(s, occ);
}
// Attacks of a non-pawn piece type from `s` given the occupancy.
inline Bitboard attacks(PieceType t, Square s, Bitboard occ) {
  switch (t) {
    case BISHOP:
      return bishop_attacks(s, occ);
    case ROOK:
      return rook_attacks(s, occ);
    case QUEEN:
      return queen_attacks(s, occ);
    default:
      return detail::pseudo_attacks[t][s];
  }
}
// Empty-board attacks (for "could this slider ever hit that square").
inline Bitboard pseudo_attacks(PieceType t, Square s) { return detail::pseudo_attacks[t][s]; }
// Squares strictly between a and b on a line (empty if not aligned), plus b itself: the squares a piece
// can move to in order to block a check from b or capture the checker.
inline Bitboard between(Square a, Square b) { return detail::between_bb[a][b]; }
// The whole line through a and b (edge to edge), or 0 when not aligned.
inline Bitboard line(Square a, Square b) { return detail::line_bb[a][b]; }
inline bool aligned(Square a, Square b, Square c) { return (line(a, b) & square_bb(c)) != 0; }

}  // namespace eboard::rules
