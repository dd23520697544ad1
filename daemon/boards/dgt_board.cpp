// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/boards/dgt_board.hpp"

#include "drivers/dgt/protocol.hpp"

namespace eboard::daemon {

using namespace eboard::rules;
namespace dgt = eboard::drivers::dgt;

Piece DgtBoard::piece_from_code(std::uint8_t code) {
  // DGT codes: 1 P, 2 R, 3 N, 4 B, 5 K, 6 Q for White, 7..12 the same for Black; 13–15 are the special
  // "result" pieces, which stand for no chess piece.
  static constexpr PieceType TYPES[6] = {PAWN, ROOK, KNIGHT, BISHOP, KING, QUEEN};
  if (code >= 1 && code <= 6) return make_piece(WHITE, TYPES[code - 1]);
  if (code >= 7 && code <= 12) return make_piece(BLACK, TYPES[code - 7]);
  return NO_PIECE;
}

std::uint8_t DgtBoard::code_from_piece(Piece p) {
  if (p == NO_PIECE) return 0;
  static constexpr std::uint8_t CODES[7] = {0, 1, 3, 4, 2, 6, 5};  // by PieceType: P N B R Q K
  return std::uint8_t(CODES[type_of(p)] + (color_of(p) == BLACK ? 6 : 0));
}

Square DgtBoard::square_from_raw(std::uint8_t raw, bool rotated) {
  int r = (rotated ? raw ^ 63 : raw) & 63;
  return make_square(r % 8, 7 - r / 8);
}

std::uint8_t DgtBoard::raw_from_square(Square s, bool rotated) {
  int r = (7 - rank_of(s)) * 8 + file_of(s);
  return std::uint8_t(rotated ? r ^ 63 : r);
}

BoardSnapshot DgtBoard::snapshot() const {
  BoardSnapshot s;
  for (std::uint8_t raw = 0; raw < 64; ++raw)
    s.squares[square_from_raw(raw, rotated_)] = piece_from_code(raw_[raw]);
  return s;
}

void DgtBoard::check_orientation(std::int64_t t, std::vector<SensorEvent>& out) {
  // A start position (standard or Chess960) with White's pawns on the raw rank next to square 0 means the
  // board is rotated; with them on the far side, it is not. Only a full start position decides.
  auto rank_is = [&](int raw_rank, std::uint8_t code) {
    for (int f = 0; f < 8; ++f)
      if (raw_[raw_rank * 8 + f] != code) return false;
    return true;
  };
  auto empty_middle = [&] {
    for (int i = 16; i < 48; ++i)
      if (raw_[i]) return false;
    return true;
  };
  if (!empty_middle()) return;
  bool normal = rank_is(1, 7) && rank_is(6, 1);   // black pawns on raw rank 1 (a7..h7)
  bool rotated = rank_is(1, 1) && rank_is(6, 7);  // white pawns there: the board is turned round
  if ((normal && rotated_) || (rotated && !rotated_)) {
    rotated_ = rotated;
    out.push_back(SensorEvent{t, snapshot()});  // everything seen so far, re-read in the new orientation
  }
}

std::vector<SensorEvent> DgtBoard::feed(std::int64_t t, std::span<const std::uint8_t> bytes) {
  std::vector<SensorEvent> out;
  messages_.clear();
  decoder_.feed(bytes, messages_);
  for (const dgt::Message& m : messages_) {
    if (const auto* f = std::get_if<dgt::FieldUpdate>(&m)) {
      raw_[f->square & 63] = f->piece;
      Square s = square_from_raw(f->square, rotated_);
      Piece p = piece_from_code(f->piece);
      if (p == NO_PIECE)
        out.push_back(SensorEvent{t, PieceLifted{s}});
      else
        out.push_back(SensorEvent{t, PiecePlaced{s, p}});
      check_orientation(t, out);
    } else if (const auto* d = std::get_if<dgt::BoardDump>(&m)) {
      raw_ = d->pieces;
      std::vector<SensorEvent> unused;  // the dump is reported whole just below, in the orientation it shows
      check_orientation(t, unused);
      out.push_back(SensorEvent{t, snapshot()});
    } else if (const auto* c = std::get_if<dgt::ClockTimes>(&m)) {
      ClockReading r;
      r.left_ms = c->left.time_ms;
      r.right_ms = c->right.time_ms;
      r.running = c->running;
      r.lever_up = c->right_lever_high ? ClockSide::Right : ClockSide::Left;
      r.left_flag = c->left.flag_fallen;
      r.right_flag = c->right.flag_fallen;
      r.present = c->clock_connected;
      out.push_back(SensorEvent{t, r});
    }
    if (on_message) on_message(m);
  }
  return out;
}

}  // namespace eboard::daemon
