// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The basic value types of the rules engine: squares, pieces, moves, variants.
// Everything here is a plain integer underneath so positions copy and hash cheaply.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace eboard::rules {

using Bitboard = std::uint64_t;
using Key = std::uint64_t;

enum Color : std::uint8_t { WHITE, BLACK };
constexpr Color operator~(Color c) { return Color(c ^ 1); }

enum PieceType : std::uint8_t { NO_PIECE_TYPE, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING };
constexpr int PIECE_TYPE_NB = 7;

// A piece is colour * 8 + type: W_PAWN = 1 … W_KING = 6, B_PAWN = 9 … B_KING = 14.
enum Piece : std::uint8_t {
  NO_PIECE,
  W_PAWN = 1,
  W_KNIGHT,
  W_BISHOP,
  W_ROOK,
  W_QUEEN,
  W_KING,
  B_PAWN = 9,
  B_KNIGHT,
  B_BISHOP,
  B_ROOK,
  B_QUEEN,
  B_KING,
};
constexpr int PIECE_NB = 16;
constexpr Piece make_piece(Color c, PieceType t) { return Piece(c * 8 + t); }
constexpr PieceType type_of(Piece p) { return PieceType(p & 7); }
constexpr Color color_of(Piece p) { return Color(p >> 3); }

// Squares count from a1 = 0 to h8 = 63, file-major within a rank.
using Square = std::int8_t;
constexpr Square SQ_NONE = 64;
constexpr Square make_square(int file, int rank) { return Square(rank * 8 + file); }
constexpr int file_of(Square s) { return s & 7; }
constexpr int rank_of(Square s) { return s >> 3; }
constexpr bool is_ok(Square s) { return s >= 0 && s < 64; }
// The square as seen from `c`'s side: rank 1 for White is rank 8 for Black.
constexpr Square relative_square(Color c, Square s) { return Square(s ^ (c * 56)); }
constexpr int relative_rank(Color c, Square s) { return rank_of(s) ^ (c * 7); }
constexpr Bitboard square_bb(Square s) { return Bitboard(1) << s; }

enum class Variant : std::uint8_t { Chess, Crazyhouse, Bughouse };
constexpr bool has_drops(Variant v) { return v != Variant::Chess; }

// Castling rights: one bit per (colour, side).
enum CastlingRights : std::uint8_t {
  NO_CASTLING = 0,
  WHITE_OO = 1,
  WHITE_OOO = 2,
  BLACK_OO = 4,
  BLACK_OOO = 8,
  ANY_CASTLING = 15,
};
constexpr int castling_index(Color c, bool king_side) { return c * 2 + (king_side ? 0 : 1); }

// A move in 16 bits: to (0–5), from (6–11), kind (12–15).
// Castling is encoded king-from → rook-square so that Chess960 needs no special case.
// A drop stores the dropped piece type in the `from` field.
class Move {
 public:
  enum Kind : std::uint8_t { NORMAL, EN_PASSANT, CASTLING, DROP, PROMOTION = 4 };

  constexpr Move() = default;
  constexpr explicit Move(std::uint16_t raw) : raw_(raw) {}
  static constexpr Move make(Square from, Square to, Kind k = NORMAL) {
    return Move(std::uint16_t(to | (from << 6) | (k << 12)));
  }
  static constexpr Move promotion(Square from, Square to, PieceType promo) {
    return Move(std::uint16_t(to | (from << 6) | ((int(PROMOTION) + int(promo) - int(KNIGHT)) << 12)));
  }
  static constexpr Move drop(PieceType t, Square to) {
    return Move(std::uint16_t(to | (t << 6) | (DROP << 12)));
  }
  static constexpr Move none() { return Move(); }

  constexpr Square to() const { return Square(raw_ & 63); }
  constexpr Square from() const { return Square((raw_ >> 6) & 63); }
  constexpr Kind kind() const {
    int k = raw_ >> 12;
    return k >= PROMOTION ? PROMOTION : Kind(k);
  }
  constexpr bool is_promotion() const { return (raw_ >> 12) >= PROMOTION; }
  constexpr PieceType promotion_type() const { return PieceType(KNIGHT + (raw_ >> 12) - PROMOTION); }
  constexpr bool is_drop() const { return (raw_ >> 12) == DROP; }
  constexpr PieceType drop_type() const { return PieceType(from()); }
  constexpr std::uint16_t raw() const { return raw_; }
  constexpr bool is_none() const { return raw_ == 0; }
  constexpr bool operator==(const Move&) const = default;

 private:
  std::uint16_t raw_ = 0;
};

constexpr char piece_char(PieceType t) { return " PNBRQK"[t]; }
constexpr char piece_char(Piece p) {
  return color_of(p) == WHITE ? " PNBRQK"[type_of(p)] : " pnbrqk"[type_of(p)];
}
// Parses one of PNBRQK (either case); returns NO_PIECE_TYPE otherwise.
PieceType piece_type_from_char(char c);
std::string square_name(Square s);
// "e4" → square; SQ_NONE when malformed.
Square parse_square(std::string_view s);

}  // namespace eboard::rules
