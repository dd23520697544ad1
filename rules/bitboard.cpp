#include "rules/bitboard.hpp"

#include <cstdlib>

namespace eboard::rules {
namespace detail {

Magic rook_magics[64];
Magic bishop_magics[64];
Bitboard pawn_attacks[2][64];
Bitboard pseudo_attacks[PIECE_TYPE_NB][64];
Bitboard between_bb[64][64];
Bitboard line_bb[64][64];

namespace {

Bitboard rook_table[0x19000];
Bitboard bishop_table[0x1480];

// Squares reached by steps (df, dr) from s on an empty board, stopping at occupied squares.
Bitboard slide(Square s, const int (*dirs)[2], Bitboard occ) {
  Bitboard result = 0;
  for (int d = 0; d < 4; ++d) {
    int f = file_of(s), r = rank_of(s);
    for (;;) {
      f += dirs[d][0];
      r += dirs[d][1];
      if (f < 0 || f > 7 || r < 0 || r > 7) break;
      Bitboard b = square_bb(make_square(f, r));
      result |= b;
      if (occ & b) break;
    }
  }
  return result;
}

constexpr int ROOK_DIRS[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
constexpr int BISHOP_DIRS[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

// A small deterministic generator (xorshift64*): the magics found are the same on every run.
struct Prng {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ULL;
  }
  std::uint64_t sparse() { return next() & next() & next(); }
};

// Finds a magic multiplier for every square by trial, filling the shared attack table ("fancy" magics).
void init_magics(Magic* magics, Bitboard* table, const int (*dirs)[2]) {
  Bitboard occupancy[4096], reference[4096];
  int epoch[4096] = {}, current = 0;
  Prng rng{0x9E3779B97F4A7C15ULL};
  Bitboard* next_table = table;
  for (Square s = 0; s < 64; ++s) {
    Bitboard edges = ((rank_bb(0) | rank_bb(7)) & ~rank_bb(rank_of(s))) |
                     ((file_bb(0) | file_bb(7)) & ~file_bb(file_of(s)));
    Magic& m = magics[s];
    m.mask = slide(s, dirs, 0) & ~edges;
    m.shift = unsigned(64 - popcount(m.mask));
    m.attacks = next_table;
    // Carry-Rippler enumeration of every subset of the mask.
    int size = 0;
    Bitboard b = 0;
    do {
      occupancy[size] = b;
      reference[size] = slide(s, dirs, b);
      ++size;
      b = (b - m.mask) & m.mask;
    } while (b);
    next_table += size;
    for (;;) {
      do m.magic = rng.sparse();
      while (popcount((m.magic * m.mask) >> 56) < 6);
      ++current;
      int i = 0;
      for (; i < size; ++i) {
        unsigned idx = m.index(occupancy[i]);
        if (epoch[idx] < current) {
          epoch[idx] = current;
          m.attacks[idx] = reference[i];
        } else if (m.attacks[idx] != reference[i]) {
          break;
        }
      }
      if (i == size) break;
    }
  }
}

Bitboard step_attacks(Square s, const int (*steps)[2], int n) {
  Bitboard result = 0;
  for (int i = 0; i < n; ++i) {
    int f = file_of(s) + steps[i][0], r = rank_of(s) + steps[i][1];
    if (f >= 0 && f <= 7 && r >= 0 && r <= 7) result |= square_bb(make_square(f, r));
  }
  return result;
}

struct Init {
  Init() {
    constexpr int KNIGHT_STEPS[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                        {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    constexpr int KING_STEPS[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
    constexpr int WPAWN[2][2] = {{-1, 1}, {1, 1}};
    constexpr int BPAWN[2][2] = {{-1, -1}, {1, -1}};
    init_magics(rook_magics, rook_table, ROOK_DIRS);
    init_magics(bishop_magics, bishop_table, BISHOP_DIRS);
    for (Square s = 0; s < 64; ++s) {
      pawn_attacks[WHITE][s] = step_attacks(s, WPAWN, 2);
      pawn_attacks[BLACK][s] = step_attacks(s, BPAWN, 2);
      pseudo_attacks[KNIGHT][s] = step_attacks(s, KNIGHT_STEPS, 8);
      pseudo_attacks[KING][s] = step_attacks(s, KING_STEPS, 8);
      pseudo_attacks[BISHOP][s] = slide(s, BISHOP_DIRS, 0);
      pseudo_attacks[ROOK][s] = slide(s, ROOK_DIRS, 0);
      pseudo_attacks[QUEEN][s] = pseudo_attacks[BISHOP][s] | pseudo_attacks[ROOK][s];
    }
    for (Square a = 0; a < 64; ++a)
      for (Square b = 0; b < 64; ++b) {
        between_bb[a][b] = square_bb(b);
        for (PieceType t : {BISHOP, ROOK}) {
          if (pseudo_attacks[t][a] & square_bb(b)) {
            line_bb[a][b] = (pseudo_attacks[t][a] & pseudo_attacks[t][b]) | square_bb(a) | square_bb(b);
            between_bb[a][b] |= attacks(t, a, square_bb(b)) & attacks(t, b, square_bb(a));
          }
        }
      }
  }
};
const Init init_once;

}  // namespace
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
