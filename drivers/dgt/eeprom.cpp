// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/eeprom.hpp"

#include <optional>

#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {
namespace {

// `0MMMmmmm`: tens in bits 4..6, units in bits 0..3, the value below 60.
std::optional<int> sexagesimal_bcd(std::uint8_t b) {
  const int tens = (b >> 4) & 0x07;
  const int units = b & 0x0F;
  if ((b & 0x80) != 0 || units > 9 || tens > 5) return std::nullopt;
  return tens * 10 + units;
}

std::optional<EepromTag> tag_of(std::uint8_t b) {
  switch (b) {
    case eeprom::kPowerUp:
      return EepromTag::PowerUp;
    case eeprom::kFourRows:
      return EepromTag::FourRows;
    case eeprom::kEmptyBoard:
      return EepromTag::EmptyBoard;
    case eeprom::kDownloaded:
      return EepromTag::Downloaded;
    case eeprom::kStartPosition:
      return EepromTag::StartPosition;
    case eeprom::kStartRotated:
      return EepromTag::StartPositionRotated;
    case eeprom::kStartTag:
      return EepromTag::StartTag;
    case eeprom::kWatchdogReset:
      return EepromTag::WatchdogReset;
    default:
      return std::nullopt;
  }
}

bool is_time_record_start(std::uint8_t b) {
  const std::uint8_t hours = b & 0x0F;
  return hours <= 9 && ((b & 0xF0) == eeprom::kTimeRightFirst || (b & 0xF0) == eeprom::kTimeLeftFirst);
}

}  // namespace

EepromLog parse_eeprom_records(std::span<const std::uint8_t> bytes) {
  EepromLog log;
  std::size_t i = 0;
  const std::size_t n = bytes.size();
  while (i < n) {
    const std::uint8_t b = bytes[i];
    if (b == eeprom::kEof) {
      log.ended_with_eof = true;
      log.bytes_after_eof = n - i - 1;
      break;
    }
    if (b == eeprom::kNop0 || b == eeprom::kNop7F) {
      ++log.nop_bytes;
      ++i;
      continue;
    }
    if (b >= eeprom::kPieceChangeFirst && b <= eeprom::kPieceChangeLast) {
      if (i + 1 < n && bytes[i + 1] < kSquareCount) {
        log.records.emplace_back(PieceChangeRecord{.square = bytes[i + 1],
                                                   .piece = static_cast<std::uint8_t>(b & 0x0F),
                                                   .quick = (b & eeprom::kPieceChangeQuick) != 0});
        i += 2;
        continue;
      }
    } else if (is_time_record_start(b)) {
      if (i + 2 < n) {
        const auto minutes = sexagesimal_bcd(bytes[i + 1]);
        const auto seconds = sexagesimal_bcd(bytes[i + 2]);
        if (minutes && seconds) {
          const std::int64_t hours = b & 0x0F;
          log.records.emplace_back(
              TimeRecord{.side = (b & eeprom::kTimeLeftBit) != 0 ? ClockSide::Left : ClockSide::Right,
                         .time_ms = ((hours * 60 + *minutes) * 60 + *seconds) * 1000});
          i += 3;
          continue;
        }
      }
    } else if (const auto tag = tag_of(b)) {
      log.records.emplace_back(TagRecord{*tag});
      ++i;
      continue;
    }
    ++log.invalid_bytes;
    ++i;
  }
  return log;
}

}  // namespace eboard::drivers::dgt
