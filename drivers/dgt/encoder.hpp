// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Commands PC -> DGT board (single-board mode) and clock commands, as bytes ready to write.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace eboard::drivers::dgt {

using Bytes = std::vector<std::uint8_t>;

enum class EncodeError : std::uint8_t {
  SquareOutOfRange,
  TimeOutOfRange,     // a clock time below 0 or above 9:59:59
  TextTooLong,        // DGT 3000 text: 8 characters at most
  TextNotPrintable,   // DGT 3000 text: printable ASCII only
  ValueOutOfRange,    // a byte that must keep bit 7 clear, a beep too long, ...
  AddressOutOfRange,  // bus addresses are 14 bits
  NotABusCommand,
};
[[nodiscard]] std::string_view to_string(EncodeError error);

// A clock command wrapped for the board (`2B size 03 sub ... 00`), plus its sub id, which the clock echoes in
// its ACK (ack1) so that the ClockQueue can match answers to commands.
struct ClockCommand {
  std::uint8_t sub = 0;
  Bytes bytes;
  bool operator==(const ClockCommand&) const = default;
};

namespace encode {

// One-byte board commands. There is deliberately no way to produce 0x4E (firmware loader).
[[nodiscard]] Bytes reset();
[[nodiscard]] Bytes send_clock();
[[nodiscard]] Bytes send_board();
[[nodiscard]] Bytes update();
[[nodiscard]] Bytes update_board();
[[nodiscard]] Bytes update_nice();
[[nodiscard]] Bytes serial_number();
[[nodiscard]] Bytes long_serial_number();
[[nodiscard]] Bytes bus_address();
[[nodiscard]] Bytes trademark();
[[nodiscard]] Bytes eeprom_moves();
[[nodiscard]] Bytes battery_status();
[[nodiscard]] Bytes version();
[[nodiscard]] Bytes to_bus_mode();

// Revelation II / Pegasus LEDs: `60 04 mode from to 00`.
enum class LedMode : std::uint8_t { Off = 0, On = 1, Config = 2 };
[[nodiscard]] tl::expected<Bytes, EncodeError> set_leds(LedMode mode, std::uint8_t from_square,
                                                        std::uint8_t to_square);
[[nodiscard]] Bytes clear_leds();

// Clock commands.
// DGT 3000 text: up to 8 printable ASCII characters (padded with spaces) and a beep 0..15 (0 = none,
// otherwise 62.5 ms + beep/16 s).
[[nodiscard]] tl::expected<ClockCommand, EncodeError> clock_display_text(std::string_view text,
                                                                         std::uint8_t beep = 0);
// DGT XL 7-segment display: six digit masks in wire order C, B, A, F, E, D (bit 0 top, 1 upper right,
// 2 lower right, 3 bottom, 4 lower left, 5 upper left, 6 middle), an icon byte, beep or silent.
[[nodiscard]] tl::expected<ClockCommand, EncodeError> clock_display_segments(
    const std::array<std::uint8_t, 6>& digits_cbafed, std::uint8_t icons, bool beep);

struct SetAndRun {
  std::int64_t left_ms = 0;  // floored to whole seconds; 0 .. 9:59:59
  std::int64_t right_ms = 0;
  bool run_left = false;
  bool run_right = false;
  bool pause = false;
  bool toggle_on_lever = false;
};
// Sets both times (binary h/m/s, not BCD) and the run flags. Only honoured in clock mode 23.
[[nodiscard]] tl::expected<ClockCommand, EncodeError> clock_set_and_run(const SetAndRun& settings);
// Beep for `duration_64ms` × 64 ms (1..127).
[[nodiscard]] tl::expected<ClockCommand, EncodeError> clock_beep(std::uint8_t duration_64ms);
// Back to the normal time display.
[[nodiscard]] ClockCommand clock_end();
[[nodiscard]] ClockCommand clock_button_query();
[[nodiscard]] ClockCommand clock_version_query();
// Four icon bytes (mode symbols, periods, flag; left and right) and the special byte (bit 0 clears all).
[[nodiscard]] tl::expected<ClockCommand, EncodeError> clock_icons(const std::array<std::uint8_t, 4>& icons,
                                                                  std::uint8_t special);

}  // namespace encode
}  // namespace eboard::drivers::dgt
