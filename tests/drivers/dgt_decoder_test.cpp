// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/decoder.hpp"

#include <gtest/gtest.h>

#include <random>

#include "dgt_test_support.hpp"

namespace eboard::drivers::dgt {
namespace {

using test::ByteVector;

// Returns a copy: callers often pass a temporary vector.
template <class T>
T only(const std::vector<Message>& messages) {
  EXPECT_EQ(messages.size(), 1U);
  if (messages.size() != 1 || !std::holds_alternative<T>(messages[0])) {
    ADD_FAILURE() << "expected exactly one message of the requested type";
    return T{};
  }
  return std::get<T>(messages[0]);
}

std::vector<Message> decode(const ByteVector& bytes) {
  Decoder d;
  return d.feed(bytes);
}

TEST(DgtDecoder, FieldUpdate) {
  const auto fu = only<FieldUpdate>(decode({0x8E, 0x00, 0x05, 0x34, 0x00}));
  EXPECT_EQ(fu.square, 52);  // e2
  EXPECT_EQ(fu.piece, piece::kEmpty);
  EXPECT_EQ(only<FieldUpdate>(decode(test::field_update(63, piece::kBlackQueen))),
            (FieldUpdate{.square = 63, .piece = 0x0C}));
}

TEST(DgtDecoder, FieldUpdateOutOfRangeIsGarbled) {
  Decoder d;
  EXPECT_TRUE(d.feed(test::field_update(64, 1)).empty());
  EXPECT_TRUE(d.feed(test::field_update(3, 0x10)).empty());
  EXPECT_EQ(d.stats().garbled_messages, 2U);
  EXPECT_EQ(d.stats().messages, 0U);
}

TEST(DgtDecoder, BoardDump) {
  const auto dump = only<BoardDump>(decode(test::start_position_dump()));
  EXPECT_EQ(dump.pieces[0], piece::kBlackRook);
  EXPECT_EQ(dump.pieces[4], piece::kBlackKing);
  EXPECT_EQ(dump.pieces[59], piece::kWhiteQueen);
  EXPECT_EQ(dump.pieces[32], piece::kEmpty);
}

TEST(DgtDecoder, BoardDumpWithBadPieceIsGarbled) {
  auto bytes = test::start_position_dump();
  bytes[3 + 20] = 0x11;
  Decoder d;
  EXPECT_TRUE(d.feed(bytes).empty());
  EXPECT_EQ(d.stats().garbled_messages, 1U);
}

TEST(DgtDecoder, ClockTimesFromRealMessage) {
  // From a real capture: both clocks 3:02/3:01, Fischer indicator on, running, b3.
  const auto ct = only<ClockTimes>(decode({0x8D, 0x00, 0x0A, 0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x09}));
  EXPECT_EQ(ct.right.time_ms, (3 * 60 + 2) * 1000);
  EXPECT_EQ(ct.left.time_ms, (3 * 60 + 1) * 1000);
  EXPECT_TRUE(ct.right.time_per_move);
  EXPECT_TRUE(ct.left.time_per_move);
  EXPECT_FALSE(ct.left.flag_fallen);
  EXPECT_FALSE(ct.left.flag_shown);
  EXPECT_TRUE(ct.running);
  EXPECT_FALSE(ct.right_lever_high);
  EXPECT_TRUE(ct.turn_b3);
  EXPECT_FALSE(ct.turn_b4);
  EXPECT_FALSE(ct.battery_low);
  EXPECT_TRUE(ct.clock_connected);
  EXPECT_EQ(ct.status, 0x09);
  EXPECT_EQ(ct.running_side(), ClockSide::Left);
}

TEST(DgtDecoder, ClockTimesFlagsAndStatusBits) {
  const auto ct = only<ClockTimes>(
      decode(test::bwtime(1, 59, 58, 9, 0, 0, 0x02 | 0x04 | 0x10 | 0x20, clock_flag::kFlagShown,
                          clock_flag::kFlagFallen | clock_flag::kTimePerMove)));
  EXPECT_EQ(ct.right.time_ms, ((1 * 60 + 59) * 60 + 58) * 1000);
  EXPECT_EQ(ct.left.time_ms, 9 * 3600 * 1000);
  EXPECT_TRUE(ct.right.flag_shown);
  EXPECT_FALSE(ct.right.flag_fallen);
  EXPECT_TRUE(ct.left.flag_fallen);
  EXPECT_TRUE(ct.left.time_per_move);
  EXPECT_FALSE(ct.running);
  EXPECT_TRUE(ct.right_lever_high);
  EXPECT_TRUE(ct.battery_low);
  EXPECT_TRUE(ct.turn_b4);
  EXPECT_FALSE(ct.clock_connected);
  EXPECT_EQ(ct.running_side(), std::nullopt);
  EXPECT_EQ(&ct.face(ClockSide::Left), &ct.left);
}

TEST(DgtDecoder, AllZeroBwTimeIsBlank) {
  Decoder d;
  const auto m = d.feed(test::frame(message::kBwTime, ByteVector(7, 0)));
  ASSERT_EQ(m.size(), 1U);
  EXPECT_TRUE(std::holds_alternative<BlankClockTimes>(m[0]));
}

TEST(DgtDecoder, InvalidBcdIsDroppedAndCounted) {
  Decoder d;
  std::vector<Message> out;
  d.feed(test::frame(message::kBwTime, {0x00, 0x5A, 0x00, 0x00, 0x00, 0x00, 0x01}), out);  // minutes "5A"
  d.feed(test::frame(message::kBwTime, {0x00, 0x00, 0x60, 0x00, 0x00, 0x00, 0x01}), out);  // seconds 60
  d.feed(test::frame(message::kBwTime, {0x0B, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01}), out);  // hours 11
  d.feed(test::frame(message::kBwTime, {0x00, 0x00, 0x00, 0x00, 0x00, 0x0F, 0x01}), out);  // left seconds 0F
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(d.stats().garbled_messages, 4U);
  d.feed(test::bwtime(0, 5, 0, 0, 5, 0, 0x01), out);
  EXPECT_EQ(out.size(), 1U);
}

TEST(DgtDecoder, AckReconstructionByHand) {
  // p0 = 0x1A: marker, bit 4 -> top bit of ack2. p3 = 0x2A: bit 5 -> top bit of ack1.
  const auto ack =
      only<ClockAck>(decode(test::frame(message::kBwTime, {0x1A, 0x10, 0x08, 0x2A, 0x00, 0x31, 0x00})));
  EXPECT_EQ(ack.ack, (std::array<std::uint8_t, 4>{0x10, 0x88, 0x80, 0x31}));
  EXPECT_TRUE(ack.is_automatic());
  EXPECT_TRUE(ack.is_button_press());
  EXPECT_EQ(ack.button(), ClockButton::Back);
  EXPECT_EQ(ack.echoed_command(), std::nullopt);
  EXPECT_EQ(ack.version(), std::nullopt);
}

TEST(DgtDecoder, AckReconstructionRoundTripsEveryBitPattern) {
  std::mt19937 rng(1234);
  auto check = [](std::array<std::uint8_t, 4> a, bool p0, bool p3) {
    const auto m = decode(test::ack_bwtime(a, p0, p3));
    ASSERT_EQ(m.size(), 1U);
    ASSERT_TRUE(std::holds_alternative<ClockAck>(m[0]));
    EXPECT_EQ(std::get<ClockAck>(m[0]).ack, a);
  };
  for (int byte = 0; byte < 4; ++byte) {
    for (int v = 0; v < 256; ++v) {
      std::array<std::uint8_t, 4> a{0x10, 0x0A, 0x00, 0x00};
      a[static_cast<std::size_t>(byte)] = static_cast<std::uint8_t>(v);
      check(a, true, false);
      check(a, false, true);
      check(a, true, true);
    }
  }
  for (int i = 0; i < 5000; ++i) {
    const auto r = rng();
    check({static_cast<std::uint8_t>(r), static_cast<std::uint8_t>(r >> 8),
           static_cast<std::uint8_t>(r >> 16), static_cast<std::uint8_t>(r >> 24)},
          (i & 1) != 0, (i & 2) != 0 || (i & 1) == 0);
  }
}

TEST(DgtDecoder, AckHelpers) {
  const auto version = only<ClockAck>(decode(test::ack_bwtime({0x10, 0x09, 0x21, 0x00})));
  EXPECT_EQ(version.version(), (Version{2, 1}));
  EXPECT_EQ(version.echoed_command(), clock::kVersion);
  EXPECT_TRUE(version.is_ok());
  EXPECT_FALSE(version.is_automatic());

  const auto error = only<ClockAck>(decode(test::ack_bwtime({0x40, clock::kSetAndRun, 0x00, 0x00})));
  EXPECT_TRUE(error.is_error());
  EXPECT_FALSE(error.is_ok());
  EXPECT_EQ(error.echoed_command(), clock::kSetAndRun);

  const std::array<std::pair<std::uint8_t, ClockButton>, 5> buttons{{{0x31, ClockButton::Back},
                                                                     {0x32, ClockButton::Plus},
                                                                     {0x33, ClockButton::Run},
                                                                     {0x34, ClockButton::Minus},
                                                                     {0x35, ClockButton::Ok}}};
  for (const auto& [code, button] : buttons) {
    const auto b = only<ClockAck>(decode(test::ack_bwtime({0x10, 0x88, 0x00, code})));
    EXPECT_TRUE(b.is_button_press());
    EXPECT_EQ(b.button(), button);
  }
  const auto ready = only<ClockAck>(decode(test::ack_bwtime({0x10, 0x81, 0x00, 0x00})));
  EXPECT_TRUE(ready.is_automatic());
  EXPECT_FALSE(ready.is_button_press());
  EXPECT_EQ(ready.button(), std::nullopt);
}

TEST(DgtDecoder, IdentityMessages) {
  EXPECT_EQ(only<SerialNumber>(decode(test::frame(message::kSerialNumber, {'0', '1', '0', '2', '5'}))).text,
            "01025");
  EXPECT_EQ(only<LongSerialNumber>(decode(test::frame(message::kLongSerialNumber,
                                                      {'3', '.', '1', '0', '1', '2', '3', '4', '5', '6'})))
                .text,
            "3.10123456");
  EXPECT_EQ(only<Version>(decode(test::frame(message::kVersion, {3, 1}))), (Version{3, 1}));
  const std::string tm = "Digital Game Technology";
  EXPECT_EQ(only<Trademark>(decode(test::frame(message::kTrademark, ByteVector(tm.begin(), tm.end())))).text,
            tm);
  // Serial "01025" as a 14-bit bus address is 08 01.
  EXPECT_EQ(only<BusAddress>(decode(test::frame(message::kBusAddress, {0x08, 0x01}))).address, 1025);
}

TEST(DgtDecoder, BatteryStatusOfEveryDocumentedLength) {
  const auto full =
      only<BatteryStatus>(decode(test::frame(message::kBatteryStatus, {87, 5, 30, 1, 2, 0, 3, 4, 0x01})));
  EXPECT_EQ(full.percent, 87);
  EXPECT_EQ(full.time_left_minutes, 5 * 60 + 30);
  EXPECT_EQ(full.charging, true);
  EXPECT_EQ(full.discharging, false);
  EXPECT_EQ(full.raw.size(), 9U);

  const auto seven =
      only<BatteryStatus>(decode(test::frame(message::kBatteryStatus, {50, 1, 0, 0, 0, 0, 0})));
  EXPECT_EQ(seven.percent, 50);
  EXPECT_EQ(seven.charging, std::nullopt);

  const auto four = only<BatteryStatus>(decode(test::frame(message::kBatteryStatus, {120, 0, 0, 0})));
  EXPECT_EQ(four.percent, std::nullopt);  // not a percentage
  EXPECT_EQ(four.raw.size(), 4U);
}

TEST(DgtDecoder, EepromDump) {
  const auto dump = only<EepromDump>(
      decode(test::frame(message::kEepromMoves, {0x00, 0x00, 0x00, 0x6A, 0x48, 0x00, 0x6F, 0x40, 0x34, 0x51,
                                                 0x24, 0x73, 0x04, 0x59, 0x6B})));
  EXPECT_TRUE(dump.log.ended_with_eof);
  EXPECT_EQ(dump.log.nop_bytes, 3U);
  ASSERT_EQ(dump.log.records.size(), 6U);
  EXPECT_EQ(std::get<TagRecord>(dump.log.records[0]).tag, EepromTag::PowerUp);
  EXPECT_EQ(std::get<PieceChangeRecord>(dump.log.records[1]), (PieceChangeRecord{0, 8, false}));
  EXPECT_EQ(std::get<PieceChangeRecord>(dump.log.records[3]), (PieceChangeRecord{52, 0, false}));
  EXPECT_EQ(std::get<PieceChangeRecord>(dump.log.records[4]), (PieceChangeRecord{36, 1, true}));
  EXPECT_EQ(std::get<TimeRecord>(dump.log.records[5]),
            (TimeRecord{ClockSide::Left, ((3 * 60 + 4) * 60 + 59) * 1000}));
}

TEST(DgtDecoder, UnknownIdIsPassedOn) {
  Decoder d;
  const auto u = only<Unknown>(d.feed(ByteVector{0x96, 0x00, 0x05, 0x01, 0x02}));
  EXPECT_EQ(u.id, 0x96);
  EXPECT_EQ(u.payload, (ByteVector{1, 2}));
  EXPECT_EQ(d.stats().unknown_messages, 1U);
  EXPECT_EQ(only<Unknown>(d.feed(ByteVector{0xA5, 0x00, 0x03})).payload, ByteVector{});
}

TEST(DgtDecoder, ImpossibleLengthsResync) {
  Decoder d;
  ByteVector bytes{0x8E, 0x00, 0x06, 0x01};       // a field update is always 5 long
  test::append(bytes, {0x86, 0x00, 0x05});        // a board dump is 67 long
  test::append(bytes, {0x96, 0x7F, 0x7F, 0x01});  // absurd for an unknown id
  test::append(bytes, {0x8D, 0x00, 0x02});        // shorter than a header
  test::append(bytes, test::field_update(12, 7));
  const auto m = d.feed(bytes);
  ASSERT_EQ(m.size(), 1U);
  EXPECT_EQ(std::get<FieldUpdate>(m[0]), (FieldUpdate{12, 7}));
  EXPECT_EQ(d.stats().bad_lengths, 4U);
  EXPECT_EQ(d.stats().garbage_bytes, 4U * 3 + 2);
}

TEST(DgtDecoder, MessageStartInsideAFrameResyncsThere) {
  Decoder d;
  ByteVector bytes{0x8D, 0x00, 0x0A, 0x20, 0x03};  // a BWTIME cut short
  test::append(bytes, test::field_update(52, 0));
  const auto m = d.feed(bytes);
  ASSERT_EQ(m.size(), 1U);
  EXPECT_EQ(std::get<FieldUpdate>(m[0]), (FieldUpdate{52, 0}));
  EXPECT_EQ(d.stats().broken_frames, 1U);
  EXPECT_EQ(d.stats().garbage_bytes, 5U);
}

TEST(DgtDecoder, PartialMessageWaitsForMoreBytes) {
  Decoder d;
  const auto bytes = test::bwtime(0, 3, 0, 0, 3, 0, 0x01);
  EXPECT_TRUE(d.feed(std::span(bytes).first(4)).empty());
  EXPECT_EQ(d.pending_bytes(), 4U);
  EXPECT_EQ(d.feed(std::span(bytes).subspan(4)).size(), 1U);
  EXPECT_EQ(d.pending_bytes(), 0U);
  EXPECT_TRUE(d.feed(std::span(bytes).first(4)).empty());
  d.reset();
  EXPECT_TRUE(d.feed(std::span(bytes).subspan(4)).empty());  // the tail alone is garbage
}

ByteVector sample_stream() {
  ByteVector s = test::start_position_dump();
  test::append(s, test::field_update(52, 0));
  test::append(s, test::bwtime(0, 3, 2, 0, 3, 1, 0x09, 0x20, 0x20));
  test::append(s, test::field_update(36, 1));
  test::append(s, test::ack_bwtime({0x10, 0x88, 0x00, 0x33}));
  test::append(s, test::frame(message::kBwTime, ByteVector(7, 0)));
  test::append(s, test::frame(message::kSerialNumber, {'1', '2', '3', '4', '5'}));
  test::append(s, test::frame(message::kVersion, {1, 7}));
  test::append(s, test::frame(message::kBatteryStatus, {90, 1, 2, 3, 4, 5, 6, 7, 2}));
  test::append(s, test::frame(message::kEepromMoves, {0x6A, 0x41, 0x38, 0x6B}));
  test::append(s, test::frame(0x96, {1, 2, 3}));
  return s;
}

TEST(DgtDecoder, ChunkingDoesNotMatter) {
  const auto stream = sample_stream();
  const auto whole = decode(stream);
  ASSERT_EQ(whole.size(), 11U);

  Decoder bytewise;
  std::vector<Message> one_by_one;
  for (const auto& b : stream) bytewise.feed(std::span(&b, 1), one_by_one);
  EXPECT_EQ(one_by_one, whole);

  std::mt19937 rng(42);
  for (int round = 0; round < 50; ++round) {
    Decoder d;
    std::vector<Message> out;
    std::size_t i = 0;
    while (i < stream.size()) {
      const std::size_t n = std::min<std::size_t>(stream.size() - i, rng() % 23);
      d.feed(std::span(stream).subspan(i, n), out);
      i += n;
    }
    EXPECT_EQ(out, whole);
  }
}

// Random bytes between valid messages must never cost a valid message: a message start (bit 7) always
// resyncs.
TEST(DgtDecoder, GarbageNeverHidesAValidMessage) {
  std::mt19937 rng(7);
  std::vector<ByteVector> valid;
  for (int i = 0; i < 300; ++i) {
    switch (rng() % 4) {
      case 0:
        valid.push_back(
            test::field_update(static_cast<std::uint8_t>(rng() % 64), static_cast<std::uint8_t>(rng() % 13)));
        break;
      case 1:
        valid.push_back(test::bwtime(0, static_cast<int>(rng() % 60), static_cast<int>(rng() % 60), 1,
                                     static_cast<int>(rng() % 60), 5, 0x13, 0x20, 0x20));
        break;
      case 2:
        valid.push_back(test::start_position_dump());
        break;
      default:
        valid.push_back(test::ack_bwtime({0x10, 0x0C, 0x00, 0x00}));
        break;
    }
  }
  ByteVector stream;
  for (const auto& v : valid) {
    const std::size_t garbage = rng() % 12;
    for (std::size_t g = 0; g < garbage; ++g) stream.push_back(static_cast<std::uint8_t>(rng()));
    test::append(stream, v);
  }
  Decoder d;
  const auto got = d.feed(stream);
  // Every valid message, in order, as a subsequence (garbage may, rarely, itself form a valid-looking
  // message).
  std::size_t next = 0;
  for (const auto& m : got) {
    if (next < valid.size() && m == decode(valid[next])[0]) ++next;
  }
  EXPECT_EQ(next, valid.size());
  EXPECT_GT(d.stats().garbage_bytes, 0U);
}

}  // namespace
}  // namespace eboard::drivers::dgt
