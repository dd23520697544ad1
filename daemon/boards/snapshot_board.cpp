// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/boards/snapshot_board.hpp"

#include <string_view>

namespace eboard::daemon {

using namespace eboard::rules;
namespace millennium = eboard::drivers::millennium;
namespace chessnut = eboard::drivers::chessnut;

namespace {

constexpr std::string_view LETTERS = "PNBRQKpnbrqk";  // White then Black, each in PieceType order from PAWN

bool same(const BoardSnapshot& a, const BoardSnapshot& b) { return a.squares == b.squares; }

// Appends `s` unless it is the position given out last.
bool give_out(std::optional<BoardSnapshot>& last, std::int64_t t, const BoardSnapshot& s,
              std::vector<SensorEvent>& out) {
  if (last && same(*last, s)) return false;
  last = s;
  out.push_back(SensorEvent{t, s});
  return true;
}

}  // namespace

Piece piece_from_letter(char c) {
  const auto at = LETTERS.find(c);
  if (at == std::string_view::npos) return NO_PIECE;
  return make_piece(at < 6 ? WHITE : BLACK, static_cast<PieceType>(at % 6 + 1));
}

char letter_from_piece(Piece p) {
  if (p == NO_PIECE) return '.';
  return LETTERS[std::size_t(type_of(p)) - 1 + (color_of(p) == BLACK ? 6 : 0)];
}

BoardSnapshot MillenniumBoard::from_squares(const millennium::Squares& squares) {
  BoardSnapshot s;
  for (int sq = 0; sq < 64; ++sq)
    s.squares[std::size_t(sq)] = piece_from_letter(squares[std::size_t(millennium::board_index(sq))]);
  return s;
}

millennium::Squares MillenniumBoard::to_squares(const std::array<Piece, 64>& board) {
  millennium::Squares out{};
  for (int sq = 0; sq < 64; ++sq)
    out[std::size_t(millennium::board_index(sq))] = letter_from_piece(board[std::size_t(sq)]);
  return out;
}

std::vector<SensorEvent> MillenniumBoard::feed(std::int64_t t, std::span<const std::uint8_t> bytes) {
  std::vector<SensorEvent> out;
  replies_.clear();
  decoder_.feed(bytes, replies_);
  for (const auto& r : replies_) {
    host_.reply(t, r);
    if (const auto* s = std::get_if<millennium::Snapshot>(&r))
      if (!give_out(last_, t, from_squares(s->squares), out)) ++repeated_;
  }
  return out;
}

void MillenniumBoard::reset_link() {
  decoder_.reset();
  host_.disconnected();
  last_.reset();
}

void MillenniumBoard::connected(std::int64_t t) { host_.connected(t); }

BoardSnapshot ChessnutBoard::from_position(const chessnut::Position& p) {
  BoardSnapshot s;
  for (std::size_t sq = 0; sq < 64; ++sq) s.squares[sq] = piece_from_letter(p.squares[sq]);
  return s;
}

chessnut::Position ChessnutBoard::to_position(const std::array<Piece, 64>& board) {
  chessnut::Position p;
  for (std::size_t sq = 0; sq < 64; ++sq) p.squares[sq] = letter_from_piece(board[sq]);
  return p;
}

std::vector<SensorEvent> ChessnutBoard::feed(std::int64_t t, std::span<const std::uint8_t> bytes) {
  std::vector<SensorEvent> out;
  positions_.clear();
  decoder_.feed(bytes, positions_);
  for (const auto& p : positions_) give_out(last_, t, from_position(p), out);
  return out;
}

void ChessnutBoard::reset_link() {
  decoder_.reset();
  last_.reset();
}

}  // namespace eboard::daemon
