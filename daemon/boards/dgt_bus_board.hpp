// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A DGT board on a bus as a source of sensor events: its bus replies in (change records, board dumps,
// clock readings), rules::SensorEvent out, the same vocabulary a board on a line of its own gives.
// Dumps, readings and piece changes are handed to a DgtBoard as the single-board messages they stand
// for, so that orientation, piece codes and clock decoding are the single board's code. What bus mode
// adds: a clock is read only on request, and between requests a lever press shows as the time record the
// board writes when the lever stops a clock; that record, with the other side's time as last known,
// becomes a reading with the lever moved over.
//
// Times: a changes reply holds what the board recorded since the previous one, without times. Each
// record gets one, counted back from the reply's arrival: a record flagged quick (less than about 250 ms
// after the one before) kQuickGapMs after its predecessor, other piece records kSlowGapMs, a time record
// kPressGapMs (the clock is read right after the scan that showed the move); squeezed in proportion to
// fit after the previous reply. Reconstruction then sees a scan's burst together and a hand's pause as
// a pause, as it does on a single board's wire; a reply that holds many moves still gives them in order.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "daemon/boards/dgt_board.hpp"
#include "drivers/dgt/eeprom.hpp"
#include "rules/sensor.hpp"

namespace eboard::daemon {

class DgtBusBoard {
 public:
  // The records of a changes reply. Piece records that change nothing (a repeated reply, or a change the
  // last dump already showed) are skipped; tags say nothing about the pieces and are skipped too.
  // `since_ms`: the previous reply's time (no record is older); `t_ms`: this one's.
  std::vector<rules::SensorEvent> changes(std::int64_t since_ms, std::int64_t t_ms,
                                          const drivers::dgt::EepromLog& log);

  static constexpr std::int64_t kQuickGapMs = 20;
  static constexpr std::int64_t kSlowGapMs = 300;
  static constexpr std::int64_t kPressGapMs = 60;
  // A BRD reply's data (64 piece codes): a snapshot.
  std::vector<rules::SensorEvent> board_dump(std::int64_t t_ms, std::span<const std::uint8_t> data);
  // A CLK reply's data (the BWTIME fields without the header): a reading.
  std::vector<rules::SensorEvent> clock(std::int64_t t_ms, std::span<const std::uint8_t> data);

  // The last reading (read, or made from a time record); none before the first.
  const std::optional<rules::ClockReading>& last_reading() const { return reading_; }
  const DgtBoard& board() const { return board_; }
  bool dumped() const { return dumped_; }

 private:
  std::vector<rules::SensorEvent> feed(std::int64_t t_ms, std::span<const std::uint8_t> message);

  DgtBoard board_;
  std::array<std::uint8_t, 64> raw_{};  // piece codes by raw square, as reported
  bool dumped_ = false;
  std::optional<rules::ClockReading> reading_;
};

}  // namespace eboard::daemon
