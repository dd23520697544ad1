// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/message_encoder.hpp"

#include <algorithm>
#include <type_traits>

#include "drivers/dgt/decoder.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt::board_message {
namespace {

using Result = tl::expected<MessagePayload, EncodeError>;

bool seven_bit(std::uint8_t b) { return (b & kMessageStartBit) == 0; }
bool all_seven_bit(std::span<const std::uint8_t> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), seven_bit);
}

std::uint8_t bcd(int value) { return static_cast<std::uint8_t>((value / 10) << 4 | (value % 10)); }

constexpr std::int64_t kMaxClockSeconds = 9 * 3600 + 59 * 60 + 59;

struct Hms {
  int h = 0, m = 0, s = 0;
};

tl::expected<Hms, EncodeError> hms(std::int64_t ms) {
  if (ms < 0 || ms / 1000 > kMaxClockSeconds) return tl::unexpected(EncodeError::TimeOutOfRange);
  const auto total = static_cast<int>(ms / 1000);
  return Hms{total / 3600, total / 60 % 60, total % 60};
}

// p0..p2 or p3..p5: flags | hours, minutes BCD, seconds BCD.
tl::expected<std::array<std::uint8_t, 3>, EncodeError> face_bytes(const ClockFace& face) {
  const auto t = hms(face.time_ms);
  if (!t) return tl::unexpected(t.error());
  auto flags_hours = static_cast<std::uint8_t>(t->h);
  if (face.flag_fallen) flags_hours |= clock_flag::kFlagFallen;
  if (face.time_per_move) flags_hours |= clock_flag::kTimePerMove;
  if (face.flag_shown) flags_hours |= clock_flag::kFlagShown;
  return std::array<std::uint8_t, 3>{flags_hours, bcd(t->m), bcd(t->s)};
}

Result text_payload(std::uint8_t id, std::string_view text, std::size_t exact_size) {
  if (exact_size != 0 && text.size() != exact_size) return tl::unexpected(EncodeError::ValueOutOfRange);
  Bytes p(text.begin(), text.end());
  if (!all_seven_bit(p)) return tl::unexpected(EncodeError::TextNotPrintable);
  if (p.size() + message::kHeaderSize > max_message_size(id)) return tl::unexpected(EncodeError::TextTooLong);
  return MessagePayload{id, std::move(p)};
}

Bytes ack_payload(const ClockAck& ack) {
  const auto& a = ack.ack;
  const auto top = [](std::uint8_t b, int shift) { return static_cast<std::uint8_t>((b & 0x80) >> shift); };
  // The decoder rebuilds ack0's bit 7 from p3 bit 4, ack1's from p3 bit 5, ack2's from p0 bit 4 and
  // ack3's from p0 bit 5.
  const auto p0 = static_cast<std::uint8_t>(clock::kAckMarker | top(a[2], 3) | top(a[3], 2));
  const auto p3 = static_cast<std::uint8_t>(clock::kAckMarker | top(a[0], 3) | top(a[1], 2));
  return Bytes{
      p0,  static_cast<std::uint8_t>(a[0] & kSevenBits), static_cast<std::uint8_t>(a[1] & kSevenBits),
      p3,  static_cast<std::uint8_t>(a[2] & kSevenBits), static_cast<std::uint8_t>(a[3] & kSevenBits),
      0x00};
}

Result clock_times_payload(const ClockTimes& t) {
  const auto right = face_bytes(t.right);
  const auto left = face_bytes(t.left);
  if (!right || !left) return tl::unexpected(EncodeError::TimeOutOfRange);
  return MessagePayload{
      message::kBwTime,
      {(*right)[0], (*right)[1], (*right)[2], (*left)[0], (*left)[1], (*left)[2], clock_status_byte(t)}};
}

Result battery_payload(const BatteryFields& f) {
  const auto split = [](std::int64_t minutes, std::int64_t max_hours) -> std::optional<std::pair<int, int>> {
    if (minutes < 0 || minutes / 60 > max_hours) return std::nullopt;
    return std::pair<int, int>{static_cast<int>(minutes / 60), static_cast<int>(minutes % 60)};
  };
  const auto left = split(f.time_left_minutes, 127);
  const auto on = split(f.time_on_minutes, 127);
  if (f.percent > 100 || !left || !on || f.standby_minutes < 0 || f.standby_minutes / 1440 > 127) {
    return tl::unexpected(EncodeError::ValueOutOfRange);
  }
  const auto days = static_cast<std::uint8_t>(f.standby_minutes / 1440);
  const auto hours = static_cast<std::uint8_t>(f.standby_minutes / 60 % 24);
  const auto minutes = static_cast<std::uint8_t>(f.standby_minutes % 60);
  std::uint8_t status = 0;
  if (f.charging) status |= 0x01;
  if (f.discharging) status |= 0x02;
  return MessagePayload{message::kBatteryStatus,
                        {f.percent, static_cast<std::uint8_t>(left->first),
                         static_cast<std::uint8_t>(left->second), static_cast<std::uint8_t>(on->first),
                         static_cast<std::uint8_t>(on->second), days, hours, minutes, status}};
}

Result battery_raw_payload(const BatteryStatus& s) {
  if (s.raw.empty() || s.raw.size() + message::kHeaderSize > max_message_size(message::kBatteryStatus) ||
      !all_seven_bit(s.raw)) {
    return tl::unexpected(EncodeError::ValueOutOfRange);
  }
  return MessagePayload{message::kBatteryStatus, s.raw};
}

Result eeprom_payload(const EepromLog& log) {
  Bytes p(log.nop_bytes, eeprom::kNop0);
  for (const EepromRecord& r : log.records) {
    auto bytes = eeprom_record(r);
    if (!bytes) return tl::unexpected(bytes.error());
    p.insert(p.end(), bytes->begin(), bytes->end());
  }
  if (log.ended_with_eof) p.push_back(eeprom::kEof);
  if (p.size() > eeprom::kRingSize) return tl::unexpected(EncodeError::ValueOutOfRange);
  return MessagePayload{message::kEepromMoves, std::move(p)};
}

Result field_update_payload(std::uint8_t square, std::uint8_t piece) {
  if (square >= kSquareCount) return tl::unexpected(EncodeError::SquareOutOfRange);
  if (piece > piece::kMaxCode) return tl::unexpected(EncodeError::ValueOutOfRange);
  return MessagePayload{message::kFieldUpdate, {square, piece}};
}

Result board_dump_payload(const std::array<std::uint8_t, 64>& pieces) {
  if (!std::all_of(pieces.begin(), pieces.end(), [](std::uint8_t c) { return c <= piece::kMaxCode; })) {
    return tl::unexpected(EncodeError::ValueOutOfRange);
  }
  return MessagePayload{message::kBoardDump, Bytes(pieces.begin(), pieces.end())};
}

Result version_payload(Version v) {
  if (!seven_bit(v.major) || !seven_bit(v.minor)) return tl::unexpected(EncodeError::ValueOutOfRange);
  return MessagePayload{message::kVersion, {v.major, v.minor}};
}

Result bus_address_payload(std::uint16_t address) {
  if (address > bus::kMaxAddress) return tl::unexpected(EncodeError::AddressOutOfRange);
  return MessagePayload{
      message::kBusAddress,
      {static_cast<std::uint8_t>(address >> 7), static_cast<std::uint8_t>(address & kSevenBits)}};
}

Bytes framed(const MessagePayload& m) {
  // Sizes were checked by the callers: every payload here is below 2^14 bytes.
  const std::size_t size = m.payload.size() + message::kHeaderSize;
  Bytes out;
  out.reserve(size);
  out.push_back(m.id);
  out.push_back(static_cast<std::uint8_t>((size >> 7) & kSevenBits));
  out.push_back(static_cast<std::uint8_t>(size & kSevenBits));
  out.insert(out.end(), m.payload.begin(), m.payload.end());
  return out;
}

tl::expected<Bytes, EncodeError> framed(const Result& r) {
  if (!r) return tl::unexpected(r.error());
  return framed(*r);
}

}  // namespace

tl::expected<Bytes, EncodeError> frame(std::uint8_t id, std::span<const std::uint8_t> payload) {
  constexpr std::size_t kMaxSize = (std::size_t{1} << 14) - 1;
  if (seven_bit(id)) return tl::unexpected(EncodeError::ValueOutOfRange);
  if (payload.size() + message::kHeaderSize > kMaxSize || !all_seven_bit(payload)) {
    return tl::unexpected(EncodeError::ValueOutOfRange);
  }
  return framed(MessagePayload{id, Bytes(payload.begin(), payload.end())});
}

tl::expected<Bytes, EncodeError> field_update(std::uint8_t square, std::uint8_t piece) {
  return framed(field_update_payload(square, piece));
}

tl::expected<Bytes, EncodeError> board_dump(const std::array<std::uint8_t, 64>& pieces) {
  return framed(board_dump_payload(pieces));
}

std::uint8_t clock_status_byte(const ClockTimes& t) {
  auto s = static_cast<std::uint8_t>(t.status & 0x40);  // the one bit we have no name for
  if (t.running) s |= clock_status::kRunning;
  if (t.right_lever_high) s |= clock_status::kRightLeverHigh;
  if (t.battery_low) s |= clock_status::kBatteryLow;
  if (t.turn_b3) s |= clock_status::kTurnB3;
  if (t.turn_b4) s |= clock_status::kTurnB4;
  if (!t.clock_connected) s |= clock_status::kNoClock;
  return s;
}

tl::expected<Bytes, EncodeError> clock_times(const ClockTimes& times) {
  return framed(clock_times_payload(times));
}

Bytes blank_clock_times() { return framed(MessagePayload{message::kBwTime, Bytes(7, 0x00)}); }

Bytes clock_ack(const ClockAck& ack) { return framed(MessagePayload{message::kBwTime, ack_payload(ack)}); }

tl::expected<Bytes, EncodeError> serial_number(std::string_view text) {
  return framed(
      text_payload(message::kSerialNumber, text, message::kSerialNumberSize - message::kHeaderSize));
}

tl::expected<Bytes, EncodeError> long_serial_number(std::string_view text) {
  return framed(
      text_payload(message::kLongSerialNumber, text, message::kLongSerialNumberSize - message::kHeaderSize));
}

tl::expected<Bytes, EncodeError> trademark(std::string_view text) {
  return framed(text_payload(message::kTrademark, text, 0));
}

tl::expected<Bytes, EncodeError> version(Version v) { return framed(version_payload(v)); }

tl::expected<Bytes, EncodeError> bus_address(std::uint16_t address) {
  return framed(bus_address_payload(address));
}

std::uint16_t bus_address_from_serial(std::string_view serial) {
  std::uint32_t value = 0;
  for (char c : serial) {
    if (c < '0' || c > '9') continue;
    value = (value * 10 + static_cast<std::uint32_t>(c - '0')) & bus::kMaxAddress;
  }
  return static_cast<std::uint16_t>(value);
}

tl::expected<Bytes, EncodeError> battery_status(const BatteryFields& fields) {
  return framed(battery_payload(fields));
}

tl::expected<Bytes, EncodeError> battery_status(const BatteryStatus& status) {
  return framed(battery_raw_payload(status));
}

tl::expected<Bytes, EncodeError> eeprom_moves(const EepromLog& log) { return framed(eeprom_payload(log)); }

tl::expected<Bytes, EncodeError> eeprom_record(const EepromRecord& record) {
  if (const auto* p = std::get_if<PieceChangeRecord>(&record)) {
    if (p->square >= kSquareCount) return tl::unexpected(EncodeError::SquareOutOfRange);
    if (p->piece > piece::kMaxCode) return tl::unexpected(EncodeError::ValueOutOfRange);
    auto first = static_cast<std::uint8_t>(eeprom::kPieceChangeFirst | p->piece);
    if (p->quick) first |= eeprom::kPieceChangeQuick;
    return Bytes{first, p->square};
  }
  if (const auto* t = std::get_if<TimeRecord>(&record)) {
    const auto v = hms(t->time_ms);
    if (!v) return tl::unexpected(v.error());
    const std::uint8_t side = t->side == ClockSide::Left ? eeprom::kTimeLeftFirst : eeprom::kTimeRightFirst;
    return Bytes{static_cast<std::uint8_t>(side | v->h), bcd(v->m), bcd(v->s)};
  }
  return Bytes{static_cast<std::uint8_t>(std::get<TagRecord>(record).tag)};
}

tl::expected<MessagePayload, EncodeError> payload(const Message& message) {
  return std::visit(
      [](const auto& m) -> Result {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, FieldUpdate>) {
          return field_update_payload(m.square, m.piece);
        } else if constexpr (std::is_same_v<T, BoardDump>) {
          return board_dump_payload(m.pieces);
        } else if constexpr (std::is_same_v<T, ClockTimes>) {
          return clock_times_payload(m);
        } else if constexpr (std::is_same_v<T, BlankClockTimes>) {
          return MessagePayload{message::kBwTime, Bytes(7, 0x00)};
        } else if constexpr (std::is_same_v<T, ClockAck>) {
          return MessagePayload{message::kBwTime, ack_payload(m)};
        } else if constexpr (std::is_same_v<T, SerialNumber>) {
          return text_payload(message::kSerialNumber, m.text,
                              message::kSerialNumberSize - message::kHeaderSize);
        } else if constexpr (std::is_same_v<T, LongSerialNumber>) {
          return text_payload(message::kLongSerialNumber, m.text,
                              message::kLongSerialNumberSize - message::kHeaderSize);
        } else if constexpr (std::is_same_v<T, Version>) {
          return version_payload(m);
        } else if constexpr (std::is_same_v<T, Trademark>) {
          return text_payload(message::kTrademark, m.text, 0);
        } else if constexpr (std::is_same_v<T, BusAddress>) {
          return bus_address_payload(m.address);
        } else if constexpr (std::is_same_v<T, BatteryStatus>) {
          return battery_raw_payload(m);
        } else if constexpr (std::is_same_v<T, EepromDump>) {
          return eeprom_payload(m.log);
        } else {
          static_assert(std::is_same_v<T, Unknown>);
          if (seven_bit(m.id) || !all_seven_bit(m.payload) ||
              m.payload.size() + message::kHeaderSize > max_message_size(m.id)) {
            return tl::unexpected(EncodeError::ValueOutOfRange);
          }
          return MessagePayload{m.id, m.payload};
        }
      },
      message);
}

tl::expected<Bytes, EncodeError> encode(const Message& message) { return framed(payload(message)); }

}  // namespace eboard::drivers::dgt::board_message
