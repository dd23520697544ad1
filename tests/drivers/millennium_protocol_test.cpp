// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The Millennium ChessLink frames (drivers/millennium/protocol.hpp): commands with their parity and XOR
// check as the reference gives them, replies decoded in any chunking, bytes without odd parity dropped,
// and a damaged frame skipped without losing the good one after it.
#include <gtest/gtest.h>

#include <string>

#include "drivers/millennium/protocol.hpp"

namespace mil = eboard::drivers::millennium;

namespace {

mil::Squares start_squares() {
  const std::string s =
      "rnbqkbnr"
      "pppppppp"
      "........"
      "........"
      "........"
      "........"
      "PPPPPPPP"
      "RNBQKBNR";
  mil::Squares q{};
  std::copy(s.begin(), s.end(), q.begin());
  return q;
}

std::vector<std::uint8_t> bytes(std::string_view s) { return {s.begin(), s.end()}; }

}  // namespace

TEST(MillenniumProtocol, CommandsCarryOddParityAndTheXorCheck) {
  // "S" then the XOR of "S" (0x53) in hex: "S53", each byte with bit 7 making its parity odd.
  EXPECT_EQ(mil::command::snapshot(), (std::vector<std::uint8_t>{0xD3, 0xB5, 0xB3}));
  EXPECT_EQ(mil::frame('S', "", false), bytes("S53"));
  // W 02 03: 'W' ^ '0' ^ '2' ^ '0' ^ '3' = 0x57 ^ 0x30 ^ 0x32 ^ 0x30 ^ 0x33 = 0x56.
  EXPECT_EQ(mil::frame('W', "0203", false), bytes("W020356"));
  EXPECT_EQ(mil::command::write_e2rom(2, 3).size(), 7u);
}

TEST(MillenniumProtocol, ASnapshotInAnyChunking) {
  const mil::Squares start = start_squares();
  const auto wire = mil::snapshot_reply(start);
  ASSERT_EQ(wire.size(), 67u);
  for (std::size_t chunk : {std::size_t(1), std::size_t(5), wire.size()}) {
    mil::Decoder d;
    std::vector<mil::Reply> got;
    for (std::size_t i = 0; i < wire.size(); i += chunk)
      d.feed(std::span(wire).subspan(i, std::min(chunk, wire.size() - i)), got);
    ASSERT_EQ(got.size(), 1u) << "chunk " << chunk;
    EXPECT_EQ(std::get<mil::Snapshot>(got[0]).squares, start);
    EXPECT_EQ(d.pending_bytes(), 0u);
    EXPECT_EQ(d.stats().parity_errors, 0u);
  }
}

TEST(MillenniumProtocol, BytesWithoutOddParityAreDroppedAndCounted) {
  // A line whose parity bits were lost (a tty stripping them, a 7-bit bridge): every character with an
  // even number of ones now has even parity, and is refused; nothing decodes from the rest.
  const auto bare = mil::snapshot_reply(start_squares(), false);
  std::size_t even = 0;
  for (std::uint8_t b : bare) even += !mil::odd_parity(b);
  ASSERT_GT(even, 0u);
  mil::Decoder d;
  EXPECT_TRUE(d.feed(bare).empty());
  EXPECT_EQ(d.stats().parity_errors, even);

  // One byte whose parity bit flipped in a good frame: that frame is lost, the next one is read.
  auto damaged = mil::frame('v', "0107");
  damaged[2] ^= 0x80;
  const auto good = mil::frame('v', "0108");
  damaged.insert(damaged.end(), good.begin(), good.end());
  mil::Decoder e;
  const auto got = e.feed(damaged);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(std::get<mil::Version>(got[0]), (mil::Version{1, 8}));
  EXPECT_EQ(e.stats().parity_errors, 1u);
}

TEST(MillenniumProtocol, GarbageAndABadCheckAreSkippedTheNextFrameIsRead) {
  mil::Squares moved = start_squares();
  moved[std::size_t(mil::board_index(12))] = '.';  // e2 (square 12) emptied
  moved[std::size_t(mil::board_index(28))] = 'P';  // e4
  EXPECT_EQ(mil::board_index(12), 52);
  EXPECT_EQ(mil::board_index(mil::board_index(28)), 28);
  auto damaged = mil::snapshot_reply(start_squares());
  damaged[30] ^= 0x01;  // one square flipped on the wire
  std::vector<std::uint8_t> wire = bytes("\r\n??");
  wire.insert(wire.end(), damaged.begin(), damaged.end());
  const auto good = mil::snapshot_reply(moved);
  wire.insert(wire.end(), good.begin(), good.end());
  const auto version = mil::frame('v', "0107");
  wire.insert(wire.end(), version.begin(), version.end());
  mil::Decoder d;
  const auto got = d.feed(wire);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(std::get<mil::Snapshot>(got[0]).squares, moved);
  EXPECT_EQ(std::get<mil::Version>(got[1]), (mil::Version{1, 7}));
  EXPECT_GE(d.stats().bad_checks, 1u);
  EXPECT_EQ(d.stats().replies, 2u);
}

TEST(MillenniumProtocol, SmallRepliesAndFramesThatCannotBe) {
  std::vector<std::uint8_t> wire;
  for (const auto& f : {mil::frame('w', "0203"), mil::frame('r', "04FF"), mil::frame('l', ""),
                        mil::frame('x', ""), mil::frame('s', std::string(64, 'Z')), mil::frame('v', "0G07")})
    wire.insert(wire.end(), f.begin(), f.end());
  mil::Decoder d;
  const auto got = d.feed(wire);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(std::get<mil::E2rom>(got[0]), (mil::E2rom{true, 2, 3}));
  EXPECT_EQ(std::get<mil::E2rom>(got[1]), (mil::E2rom{false, 4, 255}));
  EXPECT_TRUE(std::holds_alternative<mil::LedsSet>(got[2]));
  EXPECT_TRUE(std::holds_alternative<mil::LedsOff>(got[3]));
  EXPECT_EQ(d.stats().bad_frames, 2u);  // 'Z' is no piece; 'G' no hex digit
}

TEST(MillenniumProtocol, LedsCommandHoldsEveryCorner) {
  std::array<std::uint8_t, 81> patterns{};
  patterns[0] = 0xFF;   // the a8 corner, always on
  patterns[80] = 0x0F;  // the h1 corner, half the time
  const auto cmd = mil::command::leds(0x20, patterns);
  ASSERT_EQ(cmd.size(), 1u + 2 + 81 * 2 + 2);
  std::string text;
  for (std::uint8_t b : cmd) text.push_back(char(b & 0x7F));
  EXPECT_EQ(text.substr(0, 5), "L20FF");
  EXPECT_EQ(text.substr(text.size() - 4, 2), "0F");
}
