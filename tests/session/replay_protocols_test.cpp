// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// `eboardctl replay` learns every protocol of the table: captures of a Millennium ChessLink board and of a
// Chessnut board, their frames written here from the makers' descriptions (../shared/reference/hardware.md
// §2 and §3) and not by the project's emulators, replay to the game played, link records included.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "daemon/core/event_json.hpp"
#include "daemon/session/replay.hpp"
#include "rules/notation.hpp"
#include "rules/position.hpp"

using namespace eboard;

namespace {

const char* const kGame[] = {"e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "e1g1", "e8g8"};

// The squares as FEN letters ('.' empty), a1 = 0.
std::string letters(const rules::Position& p) {
  std::string out(64, '.');
  for (int sq = 0; sq < 64; ++sq)
    if (rules::Piece piece = p.piece_on(rules::Square(sq)); piece != rules::NO_PIECE)
      out[std::size_t(sq)] = rules::piece_char(piece);
  return out;
}

// ChessLink: `s` + 64 characters from a8 to h8, then a7 … h1, then the XOR of all preceding characters as
// two upper-case hex digits; every character 7 bits with the odd parity in bit 7 (a 7O1 line read 8N1).
std::vector<std::uint8_t> millennium_frame(const std::string& squares) {
  std::string text = "s";
  for (int rank = 7; rank >= 0; --rank)
    for (int file = 0; file < 8; ++file) text += squares[std::size_t(rank * 8 + file)];
  unsigned x = 0;
  for (char c : text) x ^= unsigned(c);
  static constexpr char HEX[] = "0123456789ABCDEF";
  text += HEX[(x >> 4) & 15];
  text += HEX[x & 15];
  std::vector<std::uint8_t> out;
  for (char c : text) {
    unsigned v = unsigned(c) & 0x7F, ones = 0;
    for (unsigned b = v; b; b >>= 1) ones += b & 1;
    out.push_back(std::uint8_t(v | ((ones % 2 == 0) ? 0x80 : 0)));  // odd parity over the 8 bits
  }
  return out;
}

// Chessnut: `01 24`, 32 bytes of two squares each (low nibble first) from h8 to a8, then h7 … a1, then the
// undocumented rest; codes 0 empty, 1 q, 2 k, 3 b, 4 p, 5 n, 6 R, 7 P, 8 r, 9 B, 10 N, 11 Q, 12 K. The
// second byte is the length of what follows it (0x24 = 36): the 32 position bytes and 4 more (the
// reference's notes count 2; the length byte says 4).
std::vector<std::uint8_t> chessnut_frame(const std::string& squares) {
  const std::string codes = ".qkbpnRPrBNQK";
  std::vector<std::uint8_t> out{0x01, 0x24};
  std::vector<std::uint8_t> nibbles;
  for (int rank = 7; rank >= 0; --rank)
    for (int file = 7; file >= 0; --file)
      nibbles.push_back(std::uint8_t(codes.find(squares[std::size_t(rank * 8 + file)])));
  for (std::size_t i = 0; i < 64; i += 2) out.push_back(std::uint8_t(nibbles[i] | (nibbles[i + 1] << 4)));
  out.resize(2 + 0x24, 0);
  return out;
}

// The game as a snapshot board reports it: the start, then for each move the from-square emptied (the piece
// in the hand) and the position after it, a few seconds apart. The link drops once, between two moves.
drivers::Capture snapshot_capture(const std::string& protocol,
                                  std::vector<std::uint8_t> (*frame)(const std::string&)) {
  drivers::Capture cap;
  cap.info.protocol = protocol;
  cap.info.board = "A";
  auto add = [&](std::int64_t t, const std::string& squares) {
    cap.records.push_back({t, drivers::Direction::FromBoard, frame(squares), std::nullopt});
  };
  auto link = [&](std::int64_t t, bool up) {
    drivers::CaptureRecord r;
    r.t_ms = t;
    r.link = up;
    cap.records.push_back(r);
  };
  rules::Position p = rules::Position::start();
  std::int64_t t = 0;
  link(t, true);
  add(t += 100, letters(p));
  int ply = 0;
  for (const char* uci : kGame) {
    auto m = rules::parse_uci(p, uci);
    EXPECT_TRUE(m) << uci;
    std::string lifted = letters(p);
    lifted[std::size_t(m->from())] = '.';
    add(t += 3000, lifted);
    p.do_move(*m);
    add(t += 400, letters(p));
    if (++ply == 4) {  // pulled out and back between two moves: the board is read again on return
      link(t += 2500, false);
      link(t += 1000, true);
      add(t += 50, letters(p));
    }
  }
  return cap;
}

std::vector<std::string> moves_of(const session::ReplayResult& r) {
  std::vector<std::string> out;
  for (const auto& e : r.events)
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) out.push_back(m->uci);
  return out;
}

std::vector<std::string> expected_moves() {
  std::vector<std::string> out;
  for (const char* uci : kGame) out.emplace_back(uci);
  return out;
}

}  // namespace

TEST(ReplayProtocols, AMillenniumCaptureReplaysToItsGame) {
  auto r =
      session::replay_capture(snapshot_capture("millennium", millennium_frame), rules::ReconstructConfig{});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(moves_of(*r), expected_moves());
  for (const auto& e : r->events) EXPECT_FALSE(std::holds_alternative<rules::AlertEvent>(e.what));
}

TEST(ReplayProtocols, AChessnutCaptureReplaysToItsGame) {
  auto r = session::replay_capture(snapshot_capture("chessnut", chessnut_frame), rules::ReconstructConfig{});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(moves_of(*r), expected_moves());
  for (const auto& e : r->events) EXPECT_FALSE(std::holds_alternative<rules::AlertEvent>(e.what));
}

TEST(ReplayProtocols, AProtocolWithoutADecoderIsAClearError) {
  drivers::Capture cap;
  cap.info.protocol = "certabo";
  auto r = session::replay_capture(cap, rules::ReconstructConfig{});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("certabo"), std::string::npos) << r.error();
}

// A board of a DGT bus line: the golden capture (a daemon's export, tests/data/captures) replays through the
// bus board's feed; its frames are its address's only, and its return is its first answer, not `! online`.
namespace {

drivers::Capture bus_capture() {
  auto cap = drivers::read_capture_file(std::string(EBOARD_TEST_DATA) + "/captures/dgt_bus_silence.cap");
  EXPECT_TRUE(cap) << cap.error();
  return cap ? *cap : drivers::Capture{};
}

void set_bus_address(drivers::Capture& cap, const std::string& value) {
  for (auto& h : cap.info.other_headers)
    if (h.key == drivers::kBusAddressHeader) h.value = value;
}

}  // namespace

TEST(ReplayProtocols, ABusCaptureReplaysItsAddressOnly) {
  drivers::Capture cap = bus_capture();
  ASSERT_EQ(cap.info.protocol, "dgt-bus");
  auto r = session::replay_capture(cap, rules::ReconstructConfig{});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(moves_of(*r).size(), 10u);
  EXPECT_EQ(r->game.ply_count(), 10);
  // The same frames read as another board's: none of them is its.
  set_bus_address(cap, "1025");
  auto other = session::replay_capture(cap, rules::ReconstructConfig{});
  ASSERT_TRUE(other) << other.error();
  EXPECT_TRUE(moves_of(*other).empty());
}

TEST(ReplayProtocols, ABusBoardReturnsWithItsFirstAnswer) {
  drivers::Capture cap = bus_capture();
  auto with_links = session::replay_capture(cap, rules::ReconstructConfig{});
  ASSERT_TRUE(with_links) << with_links.error();
  const auto online = [](const drivers::CaptureRecord& r) { return r.link == true; };
  ASSERT_EQ(std::count_if(cap.records.begin(), cap.records.end(), online), 1);
  std::erase_if(cap.records, online);
  auto without = session::replay_capture(cap, rules::ReconstructConfig{});
  ASSERT_TRUE(without) << without.error();
  const auto lines = [](const session::ReplayResult& x) {
    std::vector<std::string> out;
    for (const auto& e : x.events) out.push_back(daemon::to_json_line(e));
    return out;
  };
  EXPECT_FALSE(lines(*with_links).empty());
  EXPECT_EQ(lines(*without), lines(*with_links));
}

TEST(ReplayProtocols, ABusCaptureWithoutItsAddressIsAClearError) {
  drivers::Capture cap = bus_capture();
  set_bus_address(cap, "0");
  auto zero = session::replay_capture(cap, rules::ReconstructConfig{});
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().find("bus-address"), std::string::npos) << zero.error();
  cap.info.other_headers.clear();
  auto none = session::replay_capture(cap, rules::ReconstructConfig{});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("bus-address"), std::string::npos) << none.error();
}
