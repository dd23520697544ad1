// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The record stream of the board's EEPROM log (EE_MOVES payload) and of bus-mode "changes" replies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "drivers/dgt/clock_side.hpp"

namespace eboard::drivers::dgt {

// A piece was set on (piece != 0) or lifted from (piece == 0) a raw square.
struct PieceChangeRecord {
  std::uint8_t square = 0;  // raw DGT square 0..63 (0 = a8)
  std::uint8_t piece = 0;   // piece code 0..15
  bool quick = false;       // less than about 250 ms after the previous record
  bool operator==(const PieceChangeRecord&) const = default;
};

// The time left on one display, written when the lever stopped that clock.
struct TimeRecord {
  ClockSide side = ClockSide::Left;
  std::int64_t time_ms = 0;
  bool operator==(const TimeRecord&) const = default;
};

enum class EepromTag : std::uint8_t {
  PowerUp = 0x6A,
  FourRows = 0x6C,  // four rows / Chess960 setup
  EmptyBoard = 0x6D,
  Downloaded = 0x6E,
  StartPosition = 0x6F,
  StartPositionRotated = 0x7A,
  StartTag = 0x7B,
  WatchdogReset = 0x7C,
};

struct TagRecord {
  EepromTag tag = EepromTag::PowerUp;
  bool operator==(const TagRecord&) const = default;
};

using EepromRecord = std::variant<PieceChangeRecord, TimeRecord, TagRecord>;

struct EepromLog {
  std::vector<EepromRecord> records;
  bool ended_with_eof = false;
  std::size_t nop_bytes = 0;      // 0x00 / 0x7F fillers
  std::size_t invalid_bytes = 0;  // bytes that start no valid record (e.g. a record cut by the ring's wrap)
  std::size_t bytes_after_eof = 0;
  bool operator==(const EepromLog&) const = default;
};

// Parses the stream; never fails: what cannot be understood is counted and skipped one byte at a time.
EepromLog parse_eeprom_records(std::span<const std::uint8_t> bytes);

}  // namespace eboard::drivers::dgt
