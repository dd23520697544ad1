// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/eeprom.hpp"

#include <gtest/gtest.h>

namespace eboard::drivers::dgt {
namespace {

using ByteVector = std::vector<std::uint8_t>;

EepromLog parse(const ByteVector& bytes) { return parse_eeprom_records(bytes); }

TEST(EepromLog, PowerUpSequence) {
  // Power-up: 3 NOPs, the power-up tag, one record per piece present.
  const auto log = parse({0x00, 0x00, 0x7F, 0x6A, 0x48, 0x00, 0x47, 0x08, 0x6B});
  EXPECT_TRUE(log.ended_with_eof);
  EXPECT_EQ(log.nop_bytes, 3U);
  EXPECT_EQ(log.invalid_bytes, 0U);
  ASSERT_EQ(log.records.size(), 3U);
  EXPECT_EQ(std::get<TagRecord>(log.records[0]).tag, EepromTag::PowerUp);
  EXPECT_EQ(std::get<PieceChangeRecord>(log.records[1]), (PieceChangeRecord{0, 8, false}));
  EXPECT_EQ(std::get<PieceChangeRecord>(log.records[2]), (PieceChangeRecord{8, 7, false}));
}

TEST(EepromLog, PieceChangesAndQuickBit) {
  const auto log = parse({0x40, 0x34, 0x51, 0x24, 0x5F, 0x3F});
  ASSERT_EQ(log.records.size(), 3U);
  EXPECT_EQ(std::get<PieceChangeRecord>(log.records[0]), (PieceChangeRecord{52, 0, false}));
  EXPECT_EQ(std::get<PieceChangeRecord>(log.records[1]), (PieceChangeRecord{36, 1, true}));
  EXPECT_EQ(std::get<PieceChangeRecord>(log.records[2]), (PieceChangeRecord{63, 15, true}));
  EXPECT_FALSE(log.ended_with_eof);
}

TEST(EepromLog, TimeRecords) {
  const auto log = parse({0x61, 0x25, 0x09, 0x70, 0x00, 0x59});
  ASSERT_EQ(log.records.size(), 2U);
  EXPECT_EQ(std::get<TimeRecord>(log.records[0]),
            (TimeRecord{ClockSide::Right, ((1 * 60 + 25) * 60 + 9) * 1000}));
  EXPECT_EQ(std::get<TimeRecord>(log.records[1]), (TimeRecord{ClockSide::Left, 59 * 1000}));
}

TEST(EepromLog, AllTags) {
  const auto log = parse({0x6A, 0x6C, 0x6D, 0x6E, 0x6F, 0x7A, 0x7B, 0x7C});
  std::vector<EepromTag> tags;
  for (const auto& r : log.records) tags.push_back(std::get<TagRecord>(r).tag);
  EXPECT_EQ(tags, (std::vector<EepromTag>{EepromTag::PowerUp, EepromTag::FourRows, EepromTag::EmptyBoard,
                                          EepromTag::Downloaded, EepromTag::StartPosition,
                                          EepromTag::StartPositionRotated, EepromTag::StartTag,
                                          EepromTag::WatchdogReset}));
}

TEST(EepromLog, InvalidAndTruncatedBytesAreSkipped) {
  // A square byte left over from a record cut by the ring wrap, reserved tags, a bad square, a bad BCD time,
  // then a good record, then a truncated one.
  const auto log = parse({0x12, 0x7D, 0x7E, 0x40, 0x50, 0x62, 0x6A, 0x00, 0x42, 0x10, 0x44});
  // 0x12, 0x7D, 0x7E, 0x40 (its square 0x50 is > 63), 0x50 (its "square" 0x62 too), 0x62 (minutes "6A"),
  // then the power-up tag, a NOP, a good change, and the lone 0x44 at the end.
  EXPECT_EQ(log.invalid_bytes, 7U);
  EXPECT_EQ(log.nop_bytes, 1U);
  ASSERT_EQ(log.records.size(), 2U);
  EXPECT_EQ(std::get<TagRecord>(log.records[0]).tag, EepromTag::PowerUp);
  EXPECT_EQ(std::get<PieceChangeRecord>(log.records[1]), (PieceChangeRecord{16, 2, false}));
}

TEST(EepromLog, StopsAtEof) {
  const auto log = parse({0x6F, 0x6B, 0x40, 0x00, 0x00});
  EXPECT_TRUE(log.ended_with_eof);
  EXPECT_EQ(log.records.size(), 1U);
  EXPECT_EQ(log.bytes_after_eof, 3U);
}

TEST(EepromLog, EmptyInput) {
  const auto log = parse({});
  EXPECT_TRUE(log.records.empty());
  EXPECT_FALSE(log.ended_with_eof);
}

}  // namespace
}  // namespace eboard::drivers::dgt
