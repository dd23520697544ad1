// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Conformance set for the Millennium ChessLink protocol row (daemon/session/board_protocol.cpp), written from
// the ChessLink document (python-mchess `magic-board.md`, ../shared/reference/hardware.md §2), not from our
// encoder: every expected byte below was worked out by hand from the document's rules. A frame is its letter,
// its data and the XOR of all those characters in two upper-case hex digits; the line is 7O1, so read 8N1
// each byte carries bit 7 set when its 7 bits hold an even number of ones. Squares run A8 … H8, A7 … H1;
// `KQRBNP` white, `kqrbnp` black, `.` empty. LED 1 is the A8 corner, 9 the A1 corner, 73 H8, 81 H1.
//
// What the host must send: the line settings, the connect conversation (W 02 03: reports on change; W 01 14:
// scan time 20; R 02; R 01; then S), each sent after the previous one's reply, the board request and LEDs.
// What the board's bytes must give: one snapshot event per position, none for a frame with a byte of wrong
// parity or a wrong check, automatic reports between a command and its reply taken as squares.
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "daemon/session/board_protocol.hpp"
#include "rules/position.hpp"

using namespace eboard;

namespace {

std::vector<std::uint8_t> hex(std::string_view text) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoi(std::string(text.substr(i, 2)), nullptr, 16)));
  return out;
}

// The start position as the board reports it: s, then rnbqkbnr pppppppp, 32 dots, PPPPPPPP RNBQKBNR,
// check 73.
const std::string START_REPORT =
    "73F26E62F16B626EF27070707070707070"
    "AEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAE"
    "D0D0D0D0D0D0D0D052CEC251CBC2CE52"
    "37B3";
// After 1. e4 (the pawn on e4, e2 empty): the same characters moved, so the same check 73.
const std::string E4_REPORT =
    "73F26E62F16B626EF27070707070707070"
    "AEAEAEAEAEAEAEAEAEAEAEAEAEAEAEAE"
    "AEAEAEAED0AEAEAEAEAEAEAEAEAEAEAE"
    "D0D0D0D0AED0D0D052CEC251CBC2CE52"
    "37B3";

const session::BoardProtocol& row() {
  const session::BoardProtocol* p = session::find_protocol("millennium");
  EXPECT_NE(p, nullptr);
  return *p;
}

}  // namespace

TEST(MillenniumConformance, TheLineIsOpened8N1At38400AndCarriesTheParityInBit7) {
  const auto& line = row().line;
  EXPECT_EQ(line.baud, 38400);
  EXPECT_EQ(line.data_bits, 8);
  EXPECT_EQ(line.parity, io::Parity::none);
  EXPECT_EQ(line.stop_bits, 1);
  EXPECT_EQ(line.flow, io::FlowControl::none);
}

TEST(MillenniumConformance, AtConnectSettingsAreWrittenAndReadBackThenTheSquaresAsked) {
  auto board = row().make_decoder();
  board->reset_link();
  board->connected(0);
  // W 02 03 → "W020356"
  EXPECT_EQ(board->take_commands(), hex("57B032B0B3B5B6"));
  EXPECT_TRUE(board->feed(1, hex(START_REPORT)).size() == 1);  // an automatic report first: squares, no ack
  EXPECT_TRUE(board->take_commands().empty());
  board->feed(2, hex("F7B032B0B337B6"));                     // w020376
  EXPECT_EQ(board->take_commands(), hex("57B0313134B5B3"));  // W 01 14 → "W011453"
  board->feed(3, hex("F7B0313134"
                     "37B3"));                           // w011473
  EXPECT_EQ(board->take_commands(), hex("52B032B5B0"));  // R 02 → "R0250"
  board->feed(4, hex("F2B032B0B337B3"));                 // r020373
  EXPECT_EQ(board->take_commands(), hex("52B031B5B3"));  // R 01 → "R0153"
  board->feed(5, hex("F2B0313134"
                     "37B6"));                       // r011476
  EXPECT_EQ(board->take_commands(), hex("D3B5B3"));  // S → "S53"
}

TEST(MillenniumConformance, AReportModeReadBackOffIsWrittenAgain) {
  auto board = row().make_decoder();
  board->reset_link();
  board->connected(0);
  (void)board->take_commands();
  board->feed(1, hex("F7B032B0B337B6"));  // w020376
  (void)board->take_commands();
  board->feed(2, hex("F7B031313437B3"));  // w011473
  (void)board->take_commands();
  board->feed(3, hex("F2B032B0313731"));                     // r020171: reports still off
  EXPECT_EQ(board->take_commands(), hex("57B032B0B3B5B6"));  // W020356 again
}

TEST(MillenniumConformance, TheBoardRequestAndTheLeds) {
  EXPECT_EQ(row().board_request(), hex("D3B5B3"));  // S53
  // e4 lit: its four corners, LEDs 41, 42, 50 and 51 (1-based; the e-file's left edge is the fifth column
  // of nine, rank 4's top edge the fifth row), each pattern FF, slot time 00; check 43.
  std::string text = "L00";
  for (int led = 1; led <= 81; ++led)
    text += (led == 41 || led == 42 || led == 50 || led == 51) ? "FF" : "00";
  unsigned x = 0;
  for (char c : text) x ^= static_cast<unsigned char>(c);
  EXPECT_EQ(x, 0x4Cu ^ 0x30u ^ 0x30u);  // the FFs cancel in pairs, the zeros too: L ^ '0' ^ '0'
  EXPECT_EQ(row().leds(std::uint64_t{1} << rules::parse_square("e4")).size(), 3u + 162u + 2u);
  const auto sent = row().leds(std::uint64_t{1} << rules::parse_square("e4"));
  std::string got;
  for (std::uint8_t b : sent) {
    EXPECT_EQ(std::popcount(b) % 2, 1) << "byte " << int(b);
    got.push_back(char(b & 0x7F));
  }
  EXPECT_EQ(got, text + "4C");
}

TEST(MillenniumConformance, ReportsGiveOneSnapshotPerPositionAndNoneForADamagedFrame) {
  auto board = row().make_decoder();
  board->reset_link();
  auto first = board->feed(0, hex(START_REPORT));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(std::get<rules::BoardSnapshot>(first[0].what).squares, rules::Position::start().board());
  EXPECT_TRUE(board->feed(40, hex(START_REPORT)).empty());  // the same squares: no news

  auto damaged = hex(E4_REPORT);
  damaged[30] ^= 0x80;  // one parity bit lost on the wire
  EXPECT_TRUE(board->feed(80, damaged).empty());
  auto bad_check = hex(E4_REPORT);
  bad_check[66] = 0x34;  // the check's last digit '4' (odd already: no bit 7): 74 is not the XOR
  EXPECT_TRUE(board->feed(120, bad_check).empty());

  // Then a good report, cut anywhere.
  const auto good = hex(E4_REPORT);
  std::vector<rules::SensorEvent> got;
  for (std::size_t i = 0; i < good.size(); i += 10) {
    auto part = board->feed(160, std::span(good).subspan(i, std::min<std::size_t>(10, good.size() - i)));
    got.insert(got.end(), part.begin(), part.end());
  }
  ASSERT_EQ(got.size(), 1u);
  const auto& squares = std::get<rules::BoardSnapshot>(got[0].what).squares;
  EXPECT_EQ(squares[std::size_t(rules::parse_square("e4"))], rules::make_piece(rules::WHITE, rules::PAWN));
  EXPECT_EQ(squares[std::size_t(rules::parse_square("e2"))], rules::NO_PIECE);
  EXPECT_EQ(board->snapshot().squares, squares);
}
