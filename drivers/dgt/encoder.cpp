// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/encoder.hpp"

#include <algorithm>

#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {
namespace {

bool fits_seven_bits(std::uint8_t b) { return (b & kMessageStartBit) == 0; }

// `2B <size> 03 <sub> <data...> 00`, size counting from 03 to the final 00.
ClockCommand wrap_clock(std::uint8_t sub, std::initializer_list<std::uint8_t> data) {
  ClockCommand cmd{.sub = sub, .bytes = {}};
  cmd.bytes.reserve(data.size() + 5);
  cmd.bytes.push_back(command::kClockMessage);
  cmd.bytes.push_back(static_cast<std::uint8_t>(data.size() + 3));
  cmd.bytes.push_back(clock::kFrameStart);
  cmd.bytes.push_back(sub);
  cmd.bytes.insert(cmd.bytes.end(), data.begin(), data.end());
  cmd.bytes.push_back(clock::kFrameEnd);
  return cmd;
}

struct Hms {
  std::uint8_t h, m, s;
};

tl::expected<Hms, EncodeError> to_hms(std::int64_t ms) {
  constexpr std::int64_t kMaxSeconds = 9 * 3600 + 59 * 60 + 59;  // one hour digit on the display
  if (ms < 0) return tl::unexpected(EncodeError::TimeOutOfRange);
  const std::int64_t total = ms / 1000;
  if (total > kMaxSeconds) return tl::unexpected(EncodeError::TimeOutOfRange);
  return Hms{static_cast<std::uint8_t>(total / 3600), static_cast<std::uint8_t>(total / 60 % 60),
             static_cast<std::uint8_t>(total % 60)};
}

}  // namespace

std::string_view to_string(EncodeError error) {
  switch (error) {
    case EncodeError::SquareOutOfRange:
      return "square out of range (0..63)";
    case EncodeError::TimeOutOfRange:
      return "clock time out of range (0..9:59:59)";
    case EncodeError::TextTooLong:
      return "clock text longer than 8 characters";
    case EncodeError::TextNotPrintable:
      return "clock text is not printable ASCII";
    case EncodeError::ValueOutOfRange:
      return "value out of range";
    case EncodeError::AddressOutOfRange:
      return "bus address out of range (0..16383)";
    case EncodeError::NotABusCommand:
      return "not a bus command (bit 7 clear)";
  }
  return "unknown encode error";
}

namespace encode {

Bytes reset() { return {command::kReset}; }
Bytes send_clock() { return {command::kSendClock}; }
Bytes send_board() { return {command::kSendBoard}; }
Bytes update() { return {command::kUpdate}; }
Bytes update_board() { return {command::kUpdateBoard}; }
Bytes update_nice() { return {command::kUpdateNice}; }
Bytes serial_number() { return {command::kSerialNumber}; }
Bytes long_serial_number() { return {command::kLongSerialNumber}; }
Bytes bus_address() { return {command::kBusAddress}; }
Bytes trademark() { return {command::kTrademark}; }
Bytes eeprom_moves() { return {command::kEepromMoves}; }
Bytes battery_status() { return {command::kBatteryStatus}; }
Bytes version() { return {command::kVersion}; }
Bytes to_bus_mode() { return {command::kToBusMode}; }

tl::expected<Bytes, EncodeError> set_leds(LedMode mode, std::uint8_t from_square, std::uint8_t to_square) {
  if (from_square >= kSquareCount || to_square >= kSquareCount) {
    return tl::unexpected(EncodeError::SquareOutOfRange);
  }
  return Bytes{command::kSetLeds, led::kLength, static_cast<std::uint8_t>(mode),
               from_square,       to_square,    0x00};
}

Bytes clear_leds() {
  return Bytes{command::kSetLeds, led::kLength, led::kModeOff, led::kAllSquares, led::kAllSquares, 0x00};
}

tl::expected<ClockCommand, EncodeError> clock_display_text(std::string_view text, std::uint8_t beep) {
  constexpr std::size_t kWidth = 8;
  if (text.size() > kWidth) return tl::unexpected(EncodeError::TextTooLong);
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c <= 0x7E; })) {
    return tl::unexpected(EncodeError::TextNotPrintable);
  }
  if (beep > 15) return tl::unexpected(EncodeError::ValueOutOfRange);
  std::array<std::uint8_t, kWidth> chars;
  chars.fill(' ');
  std::copy(text.begin(), text.end(), chars.begin());
  return wrap_clock(clock::kDisplayText,
                    {chars[0], chars[1], chars[2], chars[3], chars[4], chars[5], chars[6], chars[7], beep});
}

tl::expected<ClockCommand, EncodeError> clock_display_segments(const std::array<std::uint8_t, 6>& d,
                                                               std::uint8_t icons, bool beep) {
  if (!std::all_of(d.begin(), d.end(), fits_seven_bits) || !fits_seven_bits(icons)) {
    return tl::unexpected(EncodeError::ValueOutOfRange);
  }
  return wrap_clock(clock::kDisplaySegments, {d[0], d[1], d[2], d[3], d[4], d[5], icons,
                                              beep ? clock::kSegmentsBeep : clock::kSegmentsSilent});
}

tl::expected<ClockCommand, EncodeError> clock_set_and_run(const SetAndRun& s) {
  const auto left = to_hms(s.left_ms);
  const auto right = to_hms(s.right_ms);
  if (!left || !right) return tl::unexpected(EncodeError::TimeOutOfRange);
  std::uint8_t flags = 0;
  if (s.run_left) flags |= clock::kRunLeft;
  if (s.run_right) flags |= clock::kRunRight;
  if (s.pause) flags |= clock::kPause;
  if (s.toggle_on_lever) flags |= clock::kToggleOnLever;
  return wrap_clock(clock::kSetAndRun, {left->h, left->m, left->s, right->h, right->m, right->s, flags});
}

tl::expected<ClockCommand, EncodeError> clock_beep(std::uint8_t duration_64ms) {
  if (duration_64ms == 0 || !fits_seven_bits(duration_64ms))
    return tl::unexpected(EncodeError::ValueOutOfRange);
  return wrap_clock(clock::kBeep, {duration_64ms});
}

ClockCommand clock_end() { return wrap_clock(clock::kEnd, {}); }
ClockCommand clock_button_query() { return wrap_clock(clock::kButton, {}); }
ClockCommand clock_version_query() { return wrap_clock(clock::kVersion, {}); }

tl::expected<ClockCommand, EncodeError> clock_icons(const std::array<std::uint8_t, 4>& icons,
                                                    std::uint8_t special) {
  if (!std::all_of(icons.begin(), icons.end(), fits_seven_bits) || !fits_seven_bits(special)) {
    return tl::unexpected(EncodeError::ValueOutOfRange);
  }
  return wrap_clock(clock::kIcons, {icons[0], icons[1], icons[2], icons[3], special, 0x00, 0x00, 0x00});
}

}  // namespace encode
}  // namespace eboard::drivers::dgt
