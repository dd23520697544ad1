// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Typed messages from a DGT board (single-board mode), as produced by dgt::Decoder.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "drivers/dgt/clock_side.hpp"
#include "drivers/dgt/eeprom.hpp"

namespace eboard::drivers::dgt {

// FIELD_UPDATE: one square changed. piece 0 means the square was emptied.
struct FieldUpdate {
  std::uint8_t square = 0;  // raw DGT square 0..63 (0 = a8 with the connector on White's left)
  std::uint8_t piece = 0;   // piece code 0..15
  bool operator==(const FieldUpdate&) const = default;
};

// BOARD_DUMP: the piece code of every raw square.
struct BoardDump {
  std::array<std::uint8_t, 64> pieces{};
  bool operator==(const BoardDump&) const = default;
};

// One half of a clock reading.
struct ClockFace {
  std::int64_t time_ms = 0;    // the displayed h:mm:ss as milliseconds
  bool flag_fallen = false;    // flag fallen and clock blocked at zero
  bool time_per_move = false;  // Fischer / Bronstein indicator
  bool flag_shown = false;     // flag shown, the clock may still run
  bool operator==(const ClockFace&) const = default;
};

// BWTIME carrying a clock reading.
struct ClockTimes {
  ClockFace left;           // p3..p5
  ClockFace right;          // p0..p2
  std::uint8_t status = 0;  // raw p6
  bool running = false;
  bool right_lever_high = false;  // false: the left lever is high
  bool battery_low = false;
  // Raw turn bits. The 2015 header says b3 = right, b4 = left, but in every real capture we have b3 is set
  // while the LEFT (p3..p5) time falls and b4 while the RIGHT (p0..p2) time falls. Prefer the lever and the
  // falling time; use these only as a cross-check.
  bool turn_b3 = false;
  bool turn_b4 = false;
  bool clock_connected = false;

  // The side whose clock runs, from the lever: a high lever means that side's clock runs (the player who
  // pressed pushed their own side down). Empty when the clock is stopped.
  [[nodiscard]] std::optional<ClockSide> running_side() const;
  [[nodiscard]] const ClockFace& face(ClockSide side) const { return side == ClockSide::Left ? left : right; }
  bool operator==(const ClockTimes&) const = default;
};

// An all-zero BWTIME. It may follow a clock command and says nothing about the time: ignore it.
struct BlankClockTimes {
  bool operator==(const BlankClockTimes&) const = default;
};

enum class ClockButton : std::uint8_t { Back, Plus, Run, Minus, Ok };

struct Version {
  std::uint8_t major = 0;
  std::uint8_t minor = 0;
  bool operator==(const Version&) const = default;
};

// A clock ACK that arrived inside a BWTIME, rebuilt into its four bytes.
struct ClockAck {
  std::array<std::uint8_t, 4> ack{};

  // ack1 >= 0x80: sent by the clock on its own (ready, button, mode), not an answer to a command.
  [[nodiscard]] bool is_automatic() const;
  // The clock sub-command this ACK answers (ack1 when below 0x80).
  [[nodiscard]] std::optional<std::uint8_t> echoed_command() const;
  [[nodiscard]] bool is_button_press() const;
  [[nodiscard]] std::optional<ClockButton> button() const;  // for button presses with a known ack3
  // The clock's firmware version when this answers the version query (DGT 3000: 2.x, DGT XL: 1.x).
  [[nodiscard]] std::optional<Version> version() const;
  [[nodiscard]] bool is_ok() const;     // ack0 == 0x10
  [[nodiscard]] bool is_error() const;  // anything else: 0x40 (e.g. SetNRun outside mode 23), 0x20 seen too
  bool operator==(const ClockAck&) const = default;
};

struct SerialNumber {
  std::string text;  // 5 ASCII digits
  bool operator==(const SerialNumber&) const = default;
};

struct LongSerialNumber {
  std::string text;  // 10 ASCII characters
  bool operator==(const LongSerialNumber&) const = default;
};

struct Trademark {
  std::string text;
  bool operator==(const Trademark&) const = default;
};

struct BusAddress {
  std::uint16_t address = 0;  // 14 bits: the decimal serial number as binary
  bool operator==(const BusAddress&) const = default;
};

// Sources disagree on this message's length (7 or 9 data bytes); every field is read only when present.
struct BatteryStatus {
  std::vector<std::uint8_t> raw;                  // payload as received
  std::optional<std::uint8_t> percent;            // byte 0 when 0..100
  std::optional<std::int64_t> time_left_minutes;  // bytes 1..2 (h, m)
  std::optional<bool> charging;                   // byte 8 bit 0
  std::optional<bool> discharging;                // byte 8 bit 1
  bool operator==(const BatteryStatus&) const = default;
};

struct EepromDump {
  EepromLog log;
  bool operator==(const EepromDump&) const = default;
};

// A well-framed message with an id we do not know (e.g. Pegasus extras).
struct Unknown {
  std::uint8_t id = 0;                // the first byte, bit 7 set
  std::vector<std::uint8_t> payload;  // the bytes after the 3-byte header
  bool operator==(const Unknown&) const = default;
};

using Message =
    std::variant<FieldUpdate, BoardDump, ClockTimes, BlankClockTimes, ClockAck, SerialNumber,
                 LongSerialNumber, Version, Trademark, BusAddress, BatteryStatus, EepromDump, Unknown>;

}  // namespace eboard::drivers::dgt
