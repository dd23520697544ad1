// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A chess position for one board: standard chess, Chess960, crazyhouse, or one board of a bughouse match.
// It knows the rules of moving (make/unmake, attacks, check) but not game history beyond what FEN holds.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "rules/bitboard.hpp"
#include "rules/types.hpp"

namespace eboard::rules {

inline constexpr std::string_view START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
inline constexpr std::string_view CRAZYHOUSE_START_FEN =
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";

// What the position forgets when a move is made and must restore when it is unmade.
struct StateInfo {
  Key key = 0;
  Bitboard checkers = 0;
  std::uint8_t castling = NO_CASTLING;
  Square ep = SQ_NONE;
  std::uint16_t rule50 = 0;
  std::uint16_t plies_from_null = 0;
  Piece captured = NO_PIECE;
  bool captured_promoted = false;
  bool moved_promoted = false;  // the moving piece was a promoted one (crazyhouse/bughouse)
};

class Position {
 public:
  // Parses FEN: standard, X-FEN or Shredder-FEN castling; pockets as `[QNp]` after the board or as a ninth
  // rank `/QNp`; `~` after a piece marks it promoted. `chess960` accepts any king and rook start squares.
  static tl::expected<Position, std::string> from_fen(std::string_view fen, Variant v = Variant::Chess,
                                                      bool chess960 = false);
  static Position start(Variant v = Variant::Chess);

  // FEN out; `shredder` writes castling as rook files (always used for 960 positions whose rooks are not
  // on the outermost files, where KQkq would be ambiguous).
  std::string fen(bool shredder = false) const;

  Variant variant() const { return variant_; }
  bool chess960() const { return chess960_; }
  Color side_to_move() const { return side_; }
  Piece piece_on(Square s) const { return board_[s]; }
  bool empty(Square s) const { return board_[s] == NO_PIECE; }
  Bitboard pieces() const { return by_color_[WHITE] | by_color_[BLACK]; }
  Bitboard pieces(Color c) const { return by_color_[c]; }
  Bitboard pieces(PieceType t) const { return by_type_[t]; }
  Bitboard pieces(Color c, PieceType t) const { return by_color_[c] & by_type_[t]; }
  Bitboard pieces(PieceType a, PieceType b) const { return by_type_[a] | by_type_[b]; }
  Bitboard pieces(Color c, PieceType a, PieceType b) const {
    return by_color_[c] & (by_type_[a] | by_type_[b]);
  }
  Square king_square(Color c) const { return lsb(pieces(c, KING)); }
  Bitboard promoted() const { return promoted_; }
  int pocket(Color c, PieceType t) const { return pockets_[c][t]; }
  void set_pocket(Color c, PieceType t, int n);
  int fullmove_number() const { return fullmove_; }
  int game_ply() const { return game_ply_; }

  const StateInfo& state() const { return states_.back(); }
  Key key() const { return state().key; }
  // The key of the board alone, pockets left out (FQE 22 counts repetitions whatever the reserves hold).
  Key key_without_pockets() const;
  Square ep_square() const { return state().ep; }
  int rule50() const { return state().rule50; }
  std::uint8_t castling_rights() const { return state().castling; }
  bool can_castle(std::uint8_t cr) const { return (state().castling & cr) != 0; }
  Square castling_rook(int index) const { return castling_rook_[index]; }
  // Squares that must be empty to castle, and the squares the king crosses (which must not be attacked).
  Bitboard castling_path(int index) const { return castling_path_[index]; }
  Bitboard castling_king_path(int index) const { return castling_king_path_[index]; }
  Bitboard checkers() const { return state().checkers; }
  bool in_check() const { return state().checkers != 0; }

  Bitboard attackers_to(Square s, Bitboard occupied) const;
  Bitboard attackers_to(Square s) const { return attackers_to(s, pieces()); }
  // Pieces of either colour that shield the king of `king_color` from a slider of the other colour.
  Bitboard blockers_for_king(Color king_color) const;

  bool is_legal(Move m) const;  // full legality of any move (slower than the generator; for input)
  bool gives_check(Move m) const;
  bool is_capture(Move m) const {
    return m.kind() == Move::EN_PASSANT || (m.kind() != Move::CASTLING && !m.is_drop() && !empty(m.to()));
  }
  Piece moved_piece(Move m) const {
    return m.is_drop() ? make_piece(side_, m.drop_type()) : board_[m.from()];
  }
  // Where king and rook end up when castling on the king's side or the queen's, or by the castling move
  // `m` (encoded king square to rook square).
  static Square castle_king_to(Color c, bool king_side) { return relative_square(c, king_side ? 6 : 2); }
  static Square castle_rook_to(Color c, bool king_side) { return relative_square(c, king_side ? 5 : 3); }
  static Square castle_king_to(Color c, Move m) { return castle_king_to(c, m.to() > m.from()); }
  static Square castle_rook_to(Color c, Move m) { return castle_rook_to(c, m.to() > m.from()); }

  void do_move(Move m);
  void undo_move(Move m);
  // The key after `m` (legal here) as do_move makes it, cheaper than making it, when key_after_is_exact(m):
  // the move is neither a castling, nor an en-passant capture, nor a promotion, nor a pawn's double step,
  // and changes no castling right. Any other gets a key near it (good for fetching a table's entry before
  // the move is made, not for comparing).
  Key key_after(Move m) const;
  bool key_after_is_exact(Move m) const {
    if (m.is_drop()) return true;
    if (m.kind() != Move::NORMAL) return false;
    if (type_of(board_[m.from()]) == PAWN && (m.from() ^ m.to()) == 16) return false;
    return (state().castling & (castling_mask_[m.from()] | castling_mask_[m.to()])) == 0;
  }
  // The position after a move no rule allows, which stood (FIDE A.4.2: the opponent did not claim before
  // his own move): the piece on `from` set on `to`, whatever stood there gone, the other side to move.
  // Castling rights stay only where king and rook have never left their squares (as after any move);
  // no en passant. Fails when the board is no position to play on: `from` holds no piece of the side to
  // move, `to` one of its own or a king, or a pawn would stand on the first or last rank (A.4.4).
  tl::expected<Position, std::string> after_illegal_move(Square from, Square to) const;
  void do_null_move();
  void undo_null_move();

  // Material that went to the partner in bughouse (or to the capturer's pocket in crazyhouse):
  // the piece type a capture of the piece on `s` hands over. Promoted pieces go over as pawns.
  PieceType captured_hand_type(Square s) const;
  // The pieces of the position as an array a1..h8, for comparison with a physical board.
  const std::array<Piece, 64>& board() const { return board_; }

  // Checks the position is one the rules can play from: one king each, no pawns on the first or last
  // rank (except promoted ones in bughouse where the pawn stays physically), the side not to move not
  // in check. Returns a sentence saying what is wrong.
  std::string validate() const;

 private:
  void put_piece(Piece p, Square s);
  void remove_piece(Square s);
  void move_piece(Square from, Square to);
  void add_castling_right(Color c, Square rook);
  void do_castling(Color us, Square from, Square& to, Square& rook_from, Square& rook_to, bool undo);
  Key compute_key() const;
  void refresh_checkers();

  std::array<Piece, 64> board_{};
  std::array<Bitboard, 2> by_color_{};
  std::array<Bitboard, PIECE_TYPE_NB> by_type_{};
  Bitboard promoted_ = 0;
  std::array<std::array<std::uint8_t, PIECE_TYPE_NB>, 2> pockets_{};
  std::array<Square, 4> castling_rook_{SQ_NONE, SQ_NONE, SQ_NONE, SQ_NONE};
  std::array<Bitboard, 4> castling_path_{};       // squares that must be empty
  std::array<Bitboard, 4> castling_king_path_{};  // squares the king crosses, incl. both ends
  std::array<std::uint8_t, 64> castling_mask_{};  // rights lost when a piece leaves or lands on a square
  Color side_ = WHITE;
  Variant variant_ = Variant::Chess;
  bool chess960_ = false;
  int fullmove_ = 1;
  int game_ply_ = 0;
  std::vector<StateInfo> states_;
};

namespace zobrist {
Key piece_square(Piece p, Square s);
Key pocket(Piece p, int count);
Key side();
}  // namespace zobrist

}  // namespace eboard::rules
