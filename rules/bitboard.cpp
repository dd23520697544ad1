// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/bitboard.hpp"

#include <array>
#include <cstddef>

#include "rules/magics.hpp"

namespace eboard::rules {
namespace detail {

namespace {

// ROOK_ATTACKS and BISHOP_ATTACKS, generated at build time by rules/gen_attack_tables.cpp: read-only data
// the process maps, not work it does at start-up.
#include "rules/attack_tables.inc"

constexpr std::array<Magic, 64> make_magics(const int (&dirs)[4][2], const Bitboard (&numbers)[64],
                                            const Bitboard* table) {
  std::array<Magic, 64> out{};
  for (Square s = 0; s < 64; ++s) {
    const Bitboard m = magics::mask(s, dirs);
    out[s] = Magic{m, numbers[s], table, unsigned(64 - magics::bit_count(m))};
    table += std::size_t{1} << magics::bit_count(m);
  }
  return out;
}

}  // namespace

constinit const std::array<Magic, 64> rook_magics =
    make_magics(magics::ROOK_DIRS, magics::ROOK_NUMBERS, ROOK_ATTACKS);
constinit const std::array<Magic, 64> bishop_magics =
    make_magics(magics::BISHOP_DIRS, magics::BISHOP_NUMBERS, BISHOP_ATTACKS);

namespace {

using Table64 = std::array<Bitboard, 64>;

constexpr Bitboard step_attacks(Square s, const int (*steps)[2], int n) {
  Bitboard result = 0;
  for (int i = 0; i < n; ++i) {
    int f = file_of(s) + steps[i][0], r = rank_of(s) + steps[i][1];
    if (f >= 0 && f <= 7 && r >= 0 && r <= 7) result |= square_bb(make_square(f, r));
  }
  return result;
}

constexpr std::array<Table64, 2> make_pawn_attacks() {
  constexpr int WPAWN[2][2] = {{-1, 1}, {1, 1}};
  constexpr int BPAWN[2][2] = {{-1, -1}, {1, -1}};
  std::array<Table64, 2> t{};
  for (Square s = 0; s < 64; ++s) {
    t[WHITE][s] = step_attacks(s, WPAWN, 2);
    t[BLACK][s] = step_attacks(s, BPAWN, 2);
  }
  return t;
}

constexpr std::array<Table64, PIECE_TYPE_NB> make_pseudo_attacks() {
  constexpr int KNIGHT_STEPS[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
  constexpr int KING_STEPS[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
  std::array<Table64, PIECE_TYPE_NB> t{};
  for (Square s = 0; s < 64; ++s) {
    t[KNIGHT][s] = step_attacks(s, KNIGHT_STEPS, 8);
    t[KING][s] = step_attacks(s, KING_STEPS, 8);
    t[BISHOP][s] = magics::slide(s, magics::BISHOP_DIRS, 0);
    t[ROOK][s] = magics::slide(s, magics::ROOK_DIRS, 0);
    t[QUEEN][s] = t[BISHOP][s] | t[ROOK][s];
  }
  return t;
}

// between: the squares strictly between a and b on a line, plus b; line: the whole line through them.
// Built by walking the eight rays of each square once (cheap enough for any compiler's constexpr limits).
constexpr std::array<Table64, 64> make_line_table(bool whole_line) {
  constexpr int DIRS[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  auto ray = [](Square s, int df, int dr) {
    Bitboard r = 0;
    for (int f = file_of(s) + df, k = rank_of(s) + dr; f >= 0 && f <= 7 && k >= 0 && k <= 7; f += df, k += dr)
      r |= square_bb(make_square(f, k));
    return r;
  };
  std::array<Table64, 64> t{};
  for (Square a = 0; a < 64; ++a) {
    if (!whole_line)
      for (Square b = 0; b < 64; ++b) t[a][b] = square_bb(b);
    for (const auto& d : DIRS) {
      const Bitboard full = ray(a, d[0], d[1]) | ray(a, -d[0], -d[1]) | square_bb(a);
      Bitboard inside = 0;
      for (int f = file_of(a) + d[0], k = rank_of(a) + d[1]; f >= 0 && f <= 7 && k >= 0 && k <= 7;
           f += d[0], k += d[1]) {
        const Square b = make_square(f, k);
        t[a][b] = whole_line ? full : inside | square_bb(b);
        inside |= square_bb(b);
      }
    }
  }
  return t;
}

}  // namespace

// Every table is constant data, computed by the compiler: a process does no work for them at start-up.
constinit const std::array<Table64, 2> pawn_attacks = make_pawn_attacks();
constinit const std::array<Table64, PIECE_TYPE_NB> pseudo_attacks = make_pseudo_attacks();
constinit const std::array<Table64, 64> between_bb = make_line_table(false);
constinit const std::array<Table64, 64> line_bb = make_line_table(true);

}  // namespace detail

PieceType piece_type_from_char(char c) {
  switch (c) {
    case 'P':
    case 'p':
      return PAWN;
    case 'N':
    case 'n':
      return KNIGHT;
    case 'B':
    case 'b':
      return BISHOP;
    case 'R':
    case 'r':
      return ROOK;
    case 'Q':
    case 'q':
      return QUEEN;
    case 'K':
    case 'k':
      return KING;
    default:
      return NO_PIECE_TYPE;
  }
}

std::string square_name(Square s) {
  if (!is_ok(s)) return "-";
  return {char('a' + file_of(s)), char('1' + rank_of(s))};
}

Square parse_square(std::string_view s) {
  if (s.size() != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') return SQ_NONE;
  return make_square(s[0] - 'a', s[1] - '1');
}

}  // namespace eboard::rules
