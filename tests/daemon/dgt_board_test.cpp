// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The DGT adapter: wire squares, piece codes and a board set up rotated by 180 degrees.
#include <gtest/gtest.h>

#include "daemon/boards/dgt_board.hpp"
#include "rules/position.hpp"

using namespace eboard;
using rules::Piece;

namespace {

// A BOARD_DUMP message of the start position, as a board with White at the connector side sends it
// (rotated = false), or with Black there (rotated = true).
std::vector<std::uint8_t> start_dump(bool rotated) {
  std::vector<std::uint8_t> msg = {0x86, 0x00, 0x43};
  const auto board = rules::Position::start().board();
  std::vector<std::uint8_t> raw(64);
  for (rules::Square s = 0; s < 64; ++s)
    raw[daemon::DgtBoard::raw_from_square(s, rotated)] = daemon::DgtBoard::code_from_piece(board[s]);
  msg.insert(msg.end(), raw.begin(), raw.end());
  return msg;
}

std::vector<std::uint8_t> field_update(std::uint8_t raw_square, std::uint8_t code) {
  return {0x8E, 0x00, 0x05, raw_square, code};
}

}  // namespace

TEST(DgtBoard, PieceCodesRoundTrip) {
  for (int code = 1; code <= 12; ++code)
    EXPECT_EQ(daemon::DgtBoard::code_from_piece(daemon::DgtBoard::piece_from_code(std::uint8_t(code))), code);
  EXPECT_EQ(daemon::DgtBoard::piece_from_code(0), rules::NO_PIECE);
  EXPECT_EQ(daemon::DgtBoard::piece_from_code(0x0E), rules::NO_PIECE);  // a "result" piece is no chess piece
}

TEST(DgtBoard, SquareZeroIsA8WhenWhiteSitsAtTheConnector) {
  EXPECT_EQ(daemon::DgtBoard::square_from_raw(0, false), rules::parse_square("a8"));
  EXPECT_EQ(daemon::DgtBoard::square_from_raw(63, false), rules::parse_square("h1"));
  EXPECT_EQ(daemon::DgtBoard::square_from_raw(0, true), rules::parse_square("h1"));
}

TEST(DgtBoard, RotatedStartPositionIsDetectedAndMapped) {
  for (bool rotated : {false, true}) {
    daemon::DgtBoard board;
    auto events = board.feed(0, start_dump(rotated));
    EXPECT_EQ(board.rotated(), rotated);
    ASSERT_FALSE(events.empty());
    auto* snap = std::get_if<rules::BoardSnapshot>(&events.back().what);
    ASSERT_NE(snap, nullptr);
    EXPECT_EQ(snap->squares, rules::Position::start().board()) << "rotated=" << rotated;
    // e2-e4 on the wire, in the board's own numbering.
    auto lift = board.feed(
        10, field_update(daemon::DgtBoard::raw_from_square(rules::parse_square("e2"), rotated), 0));
    auto place = board.feed(
        20, field_update(daemon::DgtBoard::raw_from_square(rules::parse_square("e4"), rotated), 1));
    ASSERT_EQ(lift.size(), 1u);
    ASSERT_EQ(place.size(), 1u);
    EXPECT_EQ(std::get<rules::PieceLifted>(lift[0].what).square, rules::parse_square("e2"));
    EXPECT_EQ(std::get<rules::PiecePlaced>(place[0].what).square, rules::parse_square("e4"));
    EXPECT_EQ(std::get<rules::PiecePlaced>(place[0].what).piece, rules::W_PAWN);
  }
}

TEST(DgtBoard, OrientationLearnedFromFieldUpdatesReReadsTheBoard) {
  // A board set up piece by piece with Black at the connector: once the whole start position stands,
  // the adapter turns its view round and reports the board again in game orientation.
  daemon::DgtBoard board;
  std::vector<rules::SensorEvent> all;
  const auto start = rules::Position::start().board();
  for (rules::Square s = 0; s < 64; ++s) {
    if (start[s] == rules::NO_PIECE) continue;
    auto ev = board.feed(s, field_update(daemon::DgtBoard::raw_from_square(s, true),
                                         daemon::DgtBoard::code_from_piece(start[s])));
    all.insert(all.end(), ev.begin(), ev.end());
  }
  // The pawn ranks decide the orientation (before the back ranks are complete): the board is re-read once.
  EXPECT_TRUE(board.rotated());
  int snapshots = 0;
  for (const auto& e : all) snapshots += std::holds_alternative<rules::BoardSnapshot>(e.what);
  EXPECT_EQ(snapshots, 1);
  EXPECT_EQ(board.snapshot().squares, start);
}
