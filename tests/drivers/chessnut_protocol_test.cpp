// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Chessnut position frames (drivers/chessnut/protocol.hpp): the start position as the board codes it (the
// first byte is h8 = black rook in its low nibble, g8 = black knight in its high one), frames split across
// HID reports or padded with zeros, other frames skipped, impossible codes refused.
#include <gtest/gtest.h>

#include <string>

#include "drivers/chessnut/protocol.hpp"

namespace cn = eboard::drivers::chessnut;

namespace {

cn::Position from_ranks(const std::string& rank8_to_1) {  // 64 letters, a8 … h8, a7 … h1
  cn::Position p;
  for (int i = 0; i < 64; ++i) p.squares[std::size_t((7 - i / 8) * 8 + i % 8)] = rank8_to_1[std::size_t(i)];
  return p;
}

const std::string START = "rnbqkbnrpppppppp" + std::string(32, '.') + "PPPPPPPPRNBQKBNR";

}  // namespace

TEST(ChessnutProtocol, TheStartPositionAsTheBoardCodesIt) {
  const auto frame = cn::position_frame(from_ranks(START));
  ASSERT_EQ(frame.size(), 38u);
  EXPECT_EQ(frame[0], 0x01);
  EXPECT_EQ(frame[1], 0x24);
  // h8 black rook (8) low, g8 black knight (5) high; f8 bishop (3), e8 king (2); d8 queen (1), c8 bishop.
  EXPECT_EQ(frame[2], 0x58);
  EXPECT_EQ(frame[3], 0x23);
  EXPECT_EQ(frame[4], 0x31);
  // Rank 1 ends the squares: b1 knight (10) low, a1 rook (6) high.
  EXPECT_EQ(frame[33], 0x6A);
  cn::Decoder d;
  const auto got = d.feed(frame);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], from_ranks(START));
  EXPECT_EQ(got[0].squares[4], 'K');   // e1
  EXPECT_EQ(got[0].squares[59], 'q');  // d8
}

TEST(ChessnutProtocol, FramesAcrossReportsPaddingAndOtherFrames) {
  std::string moved = START;
  moved[52] = '.';                                           // e2 (index 48 + 4)
  moved[36] = 'P';                                           // e4
  std::vector<std::uint8_t> stream{0x2A, 0x02, 0x64, 0x00};  // a battery answer
  for (const auto& p : {from_ranks(START), from_ranks(moved)}) {
    const auto f = cn::position_frame(p);
    stream.insert(stream.end(), f.begin(), f.end());
    stream.insert(stream.end(), 10, 0x00);  // report padding
  }
  cn::Decoder d;
  std::vector<cn::Position> got;
  for (std::size_t i = 0; i < stream.size(); i += 7)  // reports cut anywhere
    d.feed(std::span(stream).subspan(i, std::min<std::size_t>(7, stream.size() - i)), got);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1], from_ranks(moved));
  EXPECT_EQ(got[1].squares[28], 'P');  // e4
  EXPECT_EQ(d.stats().skipped_bytes, 3u);  // 2A 02 64: the padding is not counted
}

TEST(ChessnutProtocol, ACodeNoPieceHasIsRefused) {
  auto frame = cn::position_frame(from_ranks(START));
  frame[20] = 0xFD;  // 13 and 15: no piece
  cn::Decoder d;
  EXPECT_TRUE(d.feed(frame).empty());
  EXPECT_EQ(d.stats().bad_codes, 1u);
  EXPECT_EQ(d.feed(cn::position_frame(from_ranks(START))).size(), 1u);
}

TEST(ChessnutProtocol, CommandsAndIds) {
  EXPECT_EQ(cn::command::realtime_mode(), (std::vector<std::uint8_t>{0x21, 0x01, 0x00}));
  const auto leds = cn::command::leds((1ULL << 0) | (1ULL << 63));  // a1 and h8
  ASSERT_EQ(leds.size(), 10u);
  EXPECT_EQ(leds[2], 0x01);  // rank 8: h8 is the last bit
  EXPECT_EQ(leds[9], 0x80);  // rank 1: a1 is the first
  EXPECT_TRUE(cn::is_board_product(0x8002));
  EXPECT_FALSE(cn::is_board_product(0x1234));
}
