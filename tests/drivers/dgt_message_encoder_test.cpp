// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// board_message: every board -> PC message encoded and read back by our own Decoder gives the same value.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "drivers/dgt/decoder.hpp"
#include "drivers/dgt/message_encoder.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {
namespace {

using Bytes = std::vector<std::uint8_t>;

Message decode_one(const Bytes& bytes) {
  Decoder d;
  auto out = d.feed(bytes);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(d.pending_bytes(), 0u);
  EXPECT_EQ(d.stats().garbled_messages, 0u);
  return out.empty() ? Message{Unknown{}} : out.front();
}

template <typename T>
T round_trip(const tl::expected<Bytes, EncodeError>& bytes) {
  EXPECT_TRUE(bytes.has_value());
  if (!bytes) return T{};
  const Message m = decode_one(*bytes);
  EXPECT_TRUE(std::holds_alternative<T>(m)) << "variant index " << m.index();
  return std::holds_alternative<T>(m) ? std::get<T>(m) : T{};
}

TEST(MessageEncoder, FieldUpdateMatchesTheContractExampleBytes) {
  EXPECT_EQ(*board_message::field_update(0x34, 0x00), (Bytes{0x8e, 0x00, 0x05, 0x34, 0x00}));
  EXPECT_EQ(*board_message::field_update(0x24, 0x01), (Bytes{0x8e, 0x00, 0x05, 0x24, 0x01}));
}

TEST(MessageEncoder, EveryFieldUpdateRoundTrips) {
  for (std::uint8_t sq = 0; sq < 64; ++sq) {
    for (std::uint8_t piece = 0; piece <= 15; ++piece) {
      EXPECT_EQ(round_trip<FieldUpdate>(board_message::field_update(sq, piece)), (FieldUpdate{sq, piece}));
    }
  }
  EXPECT_EQ(board_message::field_update(64, 1).error(), EncodeError::SquareOutOfRange);
  EXPECT_EQ(board_message::field_update(3, 16).error(), EncodeError::ValueOutOfRange);
}

TEST(MessageEncoder, BoardDumpRoundTrips) {
  std::mt19937 rng(5);
  for (int i = 0; i < 50; ++i) {
    BoardDump d;
    for (auto& c : d.pieces) c = static_cast<std::uint8_t>(rng() % 16);
    const auto bytes = board_message::board_dump(d.pieces);
    ASSERT_TRUE(bytes);
    EXPECT_EQ(bytes->size(), message::kBoardDumpSize);
    EXPECT_EQ(round_trip<BoardDump>(bytes), d);
  }
  std::array<std::uint8_t, 64> bad{};
  bad[17] = 0x10;
  EXPECT_FALSE(board_message::board_dump(bad));
}

ClockTimes make_times(std::int64_t left, std::int64_t right, unsigned bits) {
  ClockTimes t;
  t.left = ClockFace{left, (bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
  t.right = ClockFace{right, (bits & 8) != 0, (bits & 2) != 0, (bits & 16) != 0};
  t.running = (bits & 32) != 0;
  t.right_lever_high = (bits & 64) != 0;
  t.battery_low = (bits & 128) != 0;
  t.turn_b3 = (bits & 256) != 0;
  t.turn_b4 = (bits & 512) != 0;
  t.clock_connected = (bits & 1024) == 0;
  t.status = board_message::clock_status_byte(t);
  return t;
}

TEST(MessageEncoder, ClockTimesRoundTripWithEveryFlagAndStatusBit) {
  const std::vector<std::pair<std::int64_t, std::int64_t>> times = {
      {0, 1000}, {59000, 60000}, {3599000, 3600000}, {9 * 3600000 + 59 * 60000 + 59000, 754000}, {5000, 0}};
  for (const auto& [left, right] : times) {
    for (unsigned bits = 0; bits < 2048; ++bits) {
      const ClockTimes t = make_times(left, right, bits);
      const auto bytes = board_message::clock_times(t);
      ASSERT_TRUE(bytes);
      EXPECT_EQ(round_trip<ClockTimes>(bytes), t) << left << " " << right << " bits " << bits;
    }
  }
}

TEST(MessageEncoder, ClockStatusFollowsTheRealCapturesNotTheHeader) {
  // Real data: 0x09 (running, left lever high, b3) while the left time falls; 0x13 (running, right lever
  // high, b4) while the right one does. No clock: b5.
  ClockTimes left_runs = make_times(60000, 60000, 32 | 256);
  EXPECT_EQ(board_message::clock_status_byte(left_runs), 0x09);
  ClockTimes right_runs = make_times(60000, 60000, 32 | 64 | 512);
  EXPECT_EQ(board_message::clock_status_byte(right_runs), 0x13);
  ClockTimes none = make_times(0, 0, 1024);
  EXPECT_EQ(board_message::clock_status_byte(none), 0x20);
}

TEST(MessageEncoder, ClockTimesAreFlooredToSecondsAndBounded) {
  ClockTimes t = make_times(61999, 1, 0);
  const ClockTimes back = round_trip<ClockTimes>(board_message::clock_times(t));
  EXPECT_EQ(back.left.time_ms, 61000);
  EXPECT_EQ(back.right.time_ms, 0);
  EXPECT_EQ(board_message::clock_times(make_times(-1, 0, 0)).error(), EncodeError::TimeOutOfRange);
  EXPECT_EQ(board_message::clock_times(make_times(0, 10 * 3600000, 0)).error(), EncodeError::TimeOutOfRange);
  // BCD on the wire: 1:23:45 is 01 23 45.
  const auto bytes = board_message::clock_times(make_times(0, (3600 + 23 * 60 + 45) * 1000, 0));
  EXPECT_EQ((*bytes)[3], 0x01);
  EXPECT_EQ((*bytes)[4], 0x23);
  EXPECT_EQ((*bytes)[5], 0x45);
}

TEST(MessageEncoder, BlankClockTimesDecodeAsBlank) {
  EXPECT_TRUE(std::holds_alternative<BlankClockTimes>(decode_one(board_message::blank_clock_times())));
}

TEST(MessageEncoder, EveryClockAckRoundTrips) {
  std::mt19937 rng(11);
  std::vector<std::array<std::uint8_t, 4>> acks = {{0x10, 0x0A, 0, 0},       {0x40, 0x0A, 0, 0},
                                                   {0x10, 0x88, 0, 0x31},    {0x10, 0x09, 0x22, 0},
                                                   {0xFF, 0xFF, 0xFF, 0xFF}, {0, 0, 0, 0}};
  for (int i = 0; i < 2000; ++i) {
    acks.push_back({static_cast<std::uint8_t>(rng()), static_cast<std::uint8_t>(rng()),
                    static_cast<std::uint8_t>(rng()), static_cast<std::uint8_t>(rng())});
  }
  for (const auto& a : acks) {
    const ClockAck ack{a};
    const Message m = decode_one(board_message::clock_ack(ack));
    ASSERT_TRUE(std::holds_alternative<ClockAck>(m));
    EXPECT_EQ(std::get<ClockAck>(m), ack);
  }
  const ClockAck version =
      std::get<ClockAck>(decode_one(board_message::clock_ack(ClockAck{{0x10, 0x09, 0x22, 0}})));
  ASSERT_TRUE(version.version());
  EXPECT_EQ(*version.version(), (Version{2, 2}));
}

TEST(MessageEncoder, IdentityMessagesRoundTrip) {
  EXPECT_EQ(round_trip<SerialNumber>(board_message::serial_number("01025")).text, "01025");
  EXPECT_EQ(round_trip<LongSerialNumber>(board_message::long_serial_number("3.1A012345")).text, "3.1A012345");
  EXPECT_EQ(round_trip<Trademark>(board_message::trademark("Digital Game Technology")).text,
            "Digital Game Technology");
  EXPECT_EQ(round_trip<Trademark>(board_message::trademark("")).text, "");
  EXPECT_EQ(round_trip<Version>(board_message::version({3, 1})), (Version{3, 1}));
  EXPECT_EQ(round_trip<BusAddress>(board_message::bus_address(0x3FFF)).address, 0x3FFF);

  EXPECT_FALSE(board_message::serial_number("1234"));
  EXPECT_FALSE(board_message::serial_number("123456"));
  EXPECT_FALSE(board_message::long_serial_number("short"));
  EXPECT_FALSE(board_message::trademark("caf\xc3\xa9"));
  EXPECT_FALSE(board_message::trademark(std::string(600, 'x')));
  EXPECT_FALSE(board_message::version({0x80, 0}));
  EXPECT_EQ(board_message::bus_address(0x4000).error(), EncodeError::AddressOutOfRange);
}

TEST(MessageEncoder, BusAddressIsTheSerialNumberAsBinary) {
  EXPECT_EQ(board_message::bus_address_from_serial("01025"), 1025);
  EXPECT_EQ(*board_message::bus_address(1025), (Bytes{0x90, 0x00, 0x05, 0x08, 0x01}));
  EXPECT_EQ(board_message::bus_address_from_serial("00000"), 0);
}

TEST(MessageEncoder, BatteryStatusRoundTripsWithItsFields) {
  board_message::BatteryFields f;
  f.percent = 64;
  f.time_left_minutes = 7 * 60 + 5;
  f.time_on_minutes = 30;
  f.standby_minutes = 2 * 1440 + 3 * 60 + 4;
  f.charging = true;
  const BatteryStatus b = round_trip<BatteryStatus>(board_message::battery_status(f));
  EXPECT_EQ(b.raw.size(), 9u);
  EXPECT_EQ(b.percent, 64);
  EXPECT_EQ(b.time_left_minutes, 7 * 60 + 5);
  EXPECT_EQ(b.charging, true);
  EXPECT_EQ(b.discharging, false);
  EXPECT_EQ(round_trip<BatteryStatus>(board_message::battery_status(b)), b);
  f.percent = 101;
  EXPECT_FALSE(board_message::battery_status(f));
}

TEST(MessageEncoder, EepromLogRoundTrips) {
  EepromLog log;
  log.nop_bytes = 3;
  log.records = {TagRecord{EepromTag::PowerUp},
                 PieceChangeRecord{.square = 0, .piece = 8, .quick = false},
                 PieceChangeRecord{.square = 63, .piece = 2, .quick = true},
                 TagRecord{EepromTag::StartPosition},
                 TimeRecord{.side = ClockSide::Left, .time_ms = (3600 + 59 * 60 + 7) * 1000},
                 TimeRecord{.side = ClockSide::Right, .time_ms = 0},
                 PieceChangeRecord{.square = 36, .piece = 0, .quick = false},
                 TagRecord{EepromTag::StartPositionRotated}};
  log.ended_with_eof = true;
  EXPECT_EQ(round_trip<EepromDump>(board_message::eeprom_moves(log)).log, log);
  EXPECT_EQ(*board_message::eeprom_record(TimeRecord{.side = ClockSide::Left, .time_ms = 83000}),
            (Bytes{0x70, 0x01, 0x23}));
}

TEST(MessageEncoder, AStreamOfEveryMessageDecodesBackInAnyChunking) {
  std::vector<Message> messages = {
      FieldUpdate{12, 7},
      BoardDump{},
      make_times(754000, 3000, 32 | 64 | 512),
      BlankClockTimes{},
      ClockAck{{0x10, 0x0B, 0, 0}},
      SerialNumber{"98765"},
      LongSerialNumber{"0123456789"},
      Version{1, 7},
      Trademark{"Digital Game Technology - test"},
      BusAddress{77},
      Unknown{0x96, {1, 2, 3}},
  };
  Bytes stream;
  for (const auto& m : messages) {
    const auto bytes = board_message::encode(m);
    ASSERT_TRUE(bytes) << m.index();
    stream.insert(stream.end(), bytes->begin(), bytes->end());
    const auto p = board_message::payload(m);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->id, (*bytes)[0]);
    EXPECT_EQ(p->payload.size() + 3, bytes->size());
  }
  for (std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{7}, stream.size()}) {
    Decoder d;
    std::vector<Message> out;
    for (std::size_t i = 0; i < stream.size(); i += chunk) {
      d.feed(std::span(stream).subspan(i, std::min(chunk, stream.size() - i)), out);
    }
    EXPECT_EQ(out, messages) << "chunk " << chunk;
  }
}

TEST(MessageEncoder, FrameRefusesWhatCannotTravel) {
  EXPECT_FALSE(board_message::frame(0x12, Bytes{}));      // an id must have bit 7 set
  EXPECT_FALSE(board_message::frame(0x86, Bytes{0x80}));  // a payload byte must not
  EXPECT_EQ(*board_message::frame(0x93, Bytes{1, 2}), (Bytes{0x93, 0x00, 0x05, 1, 2}));
  const auto big = board_message::frame(0x8F, Bytes(300, 0x6A));
  ASSERT_TRUE(big);
  EXPECT_EQ((*big)[1], 303 >> 7);
  EXPECT_EQ((*big)[2], 303 & 0x7F);
}

}  // namespace
}  // namespace eboard::drivers::dgt
