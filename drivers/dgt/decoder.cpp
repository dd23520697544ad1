// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/decoder.hpp"

#include <algorithm>
#include <optional>

#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {
namespace {

constexpr bool is_message_start(std::uint8_t b) { return (b & kMessageStartBit) != 0; }

// Smallest total length we accept for an id (the fixed ones must match exactly).
std::size_t min_message_size(std::uint8_t id) {
  switch (id) {
    case message::kBoardDump:
      return message::kBoardDumpSize;
    case message::kBwTime:
      return message::kBwTimeSize;
    case message::kFieldUpdate:
      return message::kFieldUpdateSize;
    case message::kBusAddress:
      return message::kBusAddressSize;
    case message::kSerialNumber:
      return message::kSerialNumberSize;
    case message::kVersion:
      return message::kVersionSize;
    case message::kLongSerialNumber:
      return message::kLongSerialNumberSize;
    case message::kBatteryStatus:
      return message::kHeaderSize + 1;
    default:
      return message::kHeaderSize;
  }
}

constexpr std::size_t kMaxTrademarkSize = 512;
constexpr std::size_t kMaxBatteryStatusSize = message::kHeaderSize + 16;
constexpr std::size_t kMaxUnknownSize = 512;

// BCD byte below 60 ("59" = 0x59).
std::optional<int> bcd_below_60(std::uint8_t b) {
  const int tens = b >> 4;
  const int units = b & 0x0F;
  if (tens > 5 || units > 9) return std::nullopt;
  return tens * 10 + units;
}

// p0..p2 or p3..p5 of a BWTIME: flags|hours, minutes BCD, seconds BCD.
std::optional<ClockFace> clock_face(std::uint8_t flags_hours, std::uint8_t minutes_bcd,
                                    std::uint8_t seconds_bcd) {
  const int hours = flags_hours & 0x0F;
  const auto minutes = bcd_below_60(minutes_bcd);
  const auto seconds = bcd_below_60(seconds_bcd);
  if (hours > 9 || !minutes || !seconds) return std::nullopt;
  return ClockFace{.time_ms = ((static_cast<std::int64_t>(hours) * 60 + *minutes) * 60 + *seconds) * 1000,
                   .flag_fallen = (flags_hours & clock_flag::kFlagFallen) != 0,
                   .time_per_move = (flags_hours & clock_flag::kTimePerMove) != 0,
                   .flag_shown = (flags_hours & clock_flag::kFlagShown) != 0};
}

// An ACK hides the top bit of each ack byte in the flag bits of p0 and p3, because every payload byte must
// keep bit 7 clear.
ClockAck rebuild_ack(std::span<const std::uint8_t> p) {
  const auto byte = [](int v) { return static_cast<std::uint8_t>(v); };
  return ClockAck{{byte((p[1] & 0x7F) | ((p[3] << 3) & 0x80)), byte((p[2] & 0x7F) | ((p[3] << 2) & 0x80)),
                   byte((p[4] & 0x7F) | ((p[0] << 3) & 0x80)), byte((p[5] & 0x7F) | ((p[0] << 2) & 0x80))}};
}

tl::expected<Message, DecodeError> decode_bwtime(std::span<const std::uint8_t> p) {
  if (std::all_of(p.begin(), p.end(), [](std::uint8_t b) { return b == 0; })) return BlankClockTimes{};
  if ((p[0] & 0x0F) == clock::kAckMarker || (p[3] & 0x0F) == clock::kAckMarker) return rebuild_ack(p);
  const auto right = clock_face(p[0], p[1], p[2]);
  const auto left = clock_face(p[3], p[4], p[5]);
  if (!right || !left) return tl::unexpected(DecodeError::BadBcd);
  const std::uint8_t s = p[6];
  return ClockTimes{.left = *left,
                    .right = *right,
                    .status = s,
                    .running = (s & clock_status::kRunning) != 0,
                    .right_lever_high = (s & clock_status::kRightLeverHigh) != 0,
                    .battery_low = (s & clock_status::kBatteryLow) != 0,
                    .turn_b3 = (s & clock_status::kTurnB3) != 0,
                    .turn_b4 = (s & clock_status::kTurnB4) != 0,
                    .clock_connected = (s & clock_status::kNoClock) == 0};
}

BatteryStatus decode_battery(std::span<const std::uint8_t> p) {
  BatteryStatus b;
  b.raw.assign(p.begin(), p.end());
  if (!p.empty() && p[0] <= 100) b.percent = p[0];
  if (p.size() >= 3) b.time_left_minutes = static_cast<std::int64_t>(p[1]) * 60 + p[2];
  if (p.size() >= 9) {
    b.charging = (p[8] & 0x01) != 0;
    b.discharging = (p[8] & 0x02) != 0;
  }
  return b;
}

std::string text_of(std::span<const std::uint8_t> p) { return std::string(p.begin(), p.end()); }

}  // namespace

std::string_view to_string(DecodeError error) {
  switch (error) {
    case DecodeError::BadLength:
      return "bad length";
    case DecodeError::BadSquare:
      return "square out of range";
    case DecodeError::BadPieceCode:
      return "piece code out of range";
    case DecodeError::BadBcd:
      return "invalid BCD clock time";
  }
  return "unknown decode error";
}

std::size_t max_message_size(std::uint8_t id) {
  switch (id) {
    case message::kBoardDump:
    case message::kBwTime:
    case message::kFieldUpdate:
    case message::kBusAddress:
    case message::kSerialNumber:
    case message::kVersion:
    case message::kLongSerialNumber:
      return min_message_size(id);
    case message::kEepromMoves:
      return message::kEepromMovesMaxSize;
    case message::kTrademark:
      return kMaxTrademarkSize;
    case message::kBatteryStatus:
      return kMaxBatteryStatusSize;
    default:
      return is_message_start(id) ? kMaxUnknownSize : 0;
  }
}

tl::expected<Message, DecodeError> decode_payload(std::uint8_t id, std::span<const std::uint8_t> payload) {
  const std::size_t size = payload.size() + message::kHeaderSize;
  if (size < min_message_size(id) || size > max_message_size(id))
    return tl::unexpected(DecodeError::BadLength);
  const auto& p = payload;
  switch (id) {
    case message::kFieldUpdate:
      if (p[0] >= kSquareCount) return tl::unexpected(DecodeError::BadSquare);
      if (p[1] > piece::kMaxCode) return tl::unexpected(DecodeError::BadPieceCode);
      return FieldUpdate{.square = p[0], .piece = p[1]};
    case message::kBoardDump: {
      BoardDump dump;
      for (std::size_t i = 0; i < dump.pieces.size(); ++i) {
        if (p[i] > piece::kMaxCode) return tl::unexpected(DecodeError::BadPieceCode);
        dump.pieces[i] = p[i];
      }
      return dump;
    }
    case message::kBwTime:
      return decode_bwtime(p);
    case message::kSerialNumber:
      return SerialNumber{text_of(p)};
    case message::kLongSerialNumber:
      return LongSerialNumber{text_of(p)};
    case message::kTrademark:
      return Trademark{text_of(p)};
    case message::kVersion:
      return Version{.major = p[0], .minor = p[1]};
    case message::kBusAddress:
      return BusAddress{static_cast<std::uint16_t>((p[0] & kSevenBits) << 7 | (p[1] & kSevenBits))};
    case message::kBatteryStatus:
      return decode_battery(p);
    case message::kEepromMoves:
      return EepromDump{parse_eeprom_records(p)};
    default:
      return Unknown{.id = id, .payload = std::vector<std::uint8_t>(p.begin(), p.end())};
  }
}

void Decoder::reset() noexcept { framer_.reset(); }

void Decoder::feed(std::span<const std::uint8_t> bytes, std::vector<Message>& out) {
  framer_.feed(
      bytes, stats_,
      [](std::uint8_t id) {
        return std::pair{min_message_size(id), max_message_size(id)};
      },
      [&](std::span<const std::uint8_t> frame) {
        auto decoded = decode_payload(frame[0], frame.subspan(message::kHeaderSize));
        if (decoded) {
          ++stats_.messages;
          if (std::holds_alternative<Unknown>(*decoded)) ++stats_.unknown_messages;
          out.push_back(std::move(*decoded));
        } else {
          ++stats_.garbled_messages;
        }
      });
}

std::vector<Message> Decoder::feed(std::span<const std::uint8_t> bytes) {
  std::vector<Message> out;
  feed(bytes, out);
  return out;
}

}  // namespace eboard::drivers::dgt
