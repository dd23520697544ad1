// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Messages board -> PC, as bytes ready to send: the inverse of dgt::Decoder. Used by the board emulator
// (and so by `eboardctl sim` and the tests) to speak exactly the bytes a real DGT board sends.
//
// Every function refuses what the decoder could not read back as the same value (a square above 63, a
// byte with bit 7 set in a payload, a time above 9:59:59 ...), so decode(encode(x)) == x for every x it
// accepts, with two documented exceptions: clock times are floored to whole seconds (the wire carries
// h:mm:ss), and an EEPROM log's counters of invalid or trailing bytes are not reproduced.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

#include "drivers/dgt/encoder.hpp"
#include "drivers/dgt/messages.hpp"

namespace eboard::drivers::dgt {

// A message without its 3-byte header: what bus-mode replies carry too.
struct MessagePayload {
  std::uint8_t id = 0;
  Bytes payload;
  bool operator==(const MessagePayload&) const = default;
};

namespace board_message {

// `[id][len_hi][len_lo]` + payload, where the 14-bit length counts the header too.
[[nodiscard]] tl::expected<Bytes, EncodeError> frame(std::uint8_t id, std::span<const std::uint8_t> payload);

// FIELD_UPDATE: square 0..63, piece code 0..15 (0: the square was emptied).
[[nodiscard]] tl::expected<Bytes, EncodeError> field_update(std::uint8_t square, std::uint8_t piece);
// BOARD_DUMP: 64 piece codes by raw square.
[[nodiscard]] tl::expected<Bytes, EncodeError> board_dump(const std::array<std::uint8_t, 64>& pieces);

// BWTIME with a clock reading. Times are floored to whole seconds and must lie in 0 .. 9:59:59. The
// status byte is built from the booleans (running, right_lever_high, battery_low, turn_b3, turn_b4,
// clock_connected); of `status` itself only bit 6, which has no name, is carried over.
// Beware: a connected, stopped clock at 0:00:00 / 0:00:00 with no flag encodes as all zeros, which every
// reader takes for a blank BWTIME.
[[nodiscard]] tl::expected<Bytes, EncodeError> clock_times(const ClockTimes& times);
// The p6 status byte `clock_times` writes for these values.
[[nodiscard]] std::uint8_t clock_status_byte(const ClockTimes& times);
// The all-zero BWTIME that may follow a clock command.
[[nodiscard]] Bytes blank_clock_times();
// A clock ACK packed into a BWTIME: the top bit of each ack byte travels in the flag bits of p0 and p3,
// whose hours nibbles hold the ACK marker 0x0A.
[[nodiscard]] Bytes clock_ack(const ClockAck& ack);

// SERIALNR: exactly 5 ASCII characters (digits on real boards).
[[nodiscard]] tl::expected<Bytes, EncodeError> serial_number(std::string_view text);
// LONG_SERIALNR: exactly 10 ASCII characters.
[[nodiscard]] tl::expected<Bytes, EncodeError> long_serial_number(std::string_view text);
// TRADEMARK: ASCII text (LiveChess looks for "Digital Game Technology" in it).
[[nodiscard]] tl::expected<Bytes, EncodeError> trademark(std::string_view text);
// VERSION: major and minor, binary, below 128.
[[nodiscard]] tl::expected<Bytes, EncodeError> version(Version v);
// BUSADRES: the 14-bit address as two 7-bit bytes.
[[nodiscard]] tl::expected<Bytes, EncodeError> bus_address(std::uint16_t address);
// The bus address a board derives from its serial number: the decimal digits as a binary number ("01025"
// gives 1025), kept to 14 bits. Non-digits are skipped.
[[nodiscard]] std::uint16_t bus_address_from_serial(std::string_view serial);

// BATTERY_STATUS with the 9 data bytes picochess reads: percent, time left h/m, time on h/m, standby
// d/h/m, status (b0 charging, b1 discharging).
struct BatteryFields {
  std::uint8_t percent = 100;
  std::int64_t time_left_minutes = 0;
  std::int64_t time_on_minutes = 0;
  std::int64_t standby_minutes = 0;
  bool charging = false;
  bool discharging = false;
};
[[nodiscard]] tl::expected<Bytes, EncodeError> battery_status(const BatteryFields& fields);
// The raw payload as given (1..16 bytes, each below 128).
[[nodiscard]] tl::expected<Bytes, EncodeError> battery_status(const BatteryStatus& status);

// EE_MOVES: the records in order (NOP fillers first, as many as `nop_bytes`), then EOF if the log ended
// with one. At most 0x1F00 bytes of records.
[[nodiscard]] tl::expected<Bytes, EncodeError> eeprom_moves(const EepromLog& log);
// The bytes of one EEPROM record (2 for a piece change, 3 for a time, 1 for a tag).
[[nodiscard]] tl::expected<Bytes, EncodeError> eeprom_record(const EepromRecord& record);

// Any decoded message: id and payload (for bus replies), or the whole frame.
[[nodiscard]] tl::expected<MessagePayload, EncodeError> payload(const Message& message);
[[nodiscard]] tl::expected<Bytes, EncodeError> encode(const Message& message);

}  // namespace board_message
}  // namespace eboard::drivers::dgt
