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
// record gets one, counted as DGT's protocol header defines the records:
//  - a piece record's quick bit says it was written less than about 250 ms after the previous piece record
//    (the header's "update tag"; time records and tags between them do not count): it follows that piece
//    record by kQuickGapMs, a piece record without the bit by kSlowGapMs;
//  - a time record (written when the lever stops that clock) follows the record before it by kPressGapMs,
//    but comes before a quick piece record that follows it (inside that record's gap);
//  - a tag is written with the change that caused it: at the time of the record before it.
// The last record is placed kQuietMs before the reply arrived when the records fit after the previous
// reply that way, as late as needed (up to the arrival) when they do not, and squeezed in proportion when
// even the whole interval is too short. The board recorded everything up to the reply, so it is known
// quiet from its last record to the reply: placing the records that quiet span early lets reconstruction
// decide what the reply shows at that poll (a scan's wait, a settle) instead of leaving the decision open
// until the next reply, whose records would then fall inside it. Reconstruction sees a scan's burst
// together and a hand's pause as a pause, as on a single board's wire.
//
// Presses: a time record says which clock stopped, so that that clock ran until then. When the last
// reading does not show a running clock (none yet: the board's CLK answer lost on the line; or a clock
// read before the game began, which the board does not record starting), a reading with that clock
// running is given just before the press, so that the lever change the record stands for is seen; the
// other side's time is then the last known one, or -1 (unknown). Once a running clock was read, a record
// is a reading with the lever moved over and nothing more: records older than the last CLK answer (those
// of the reply after a read) then repeat what that answer showed.
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
  // The records of a changes reply. Piece records that change nothing (a change the last dump already
  // showed) are skipped; tags say nothing about the pieces and are skipped too.
  // `since_ms`: the previous reply's time (no record is older); `t_ms`: this one's.
  // A reply that begins with every record of the last reply given repeats that reply: its first answer
  // was delivered already, and what it repeats gives nothing again; the records after it are the news.
  // That is an answer to REPEAT_CHANGES (the last packet the board sent; this project's emulator appends
  // what the board recorded since), or a late answer taken for the answer to a later command: a reply
  // that came after the master gave its exchange up is delivered then, and the board is asked again.
  // A board's log does not hold a packet twice in a row otherwise (each record changes a square, or
  // stops a clock that ran since its previous record).
  std::vector<rules::SensorEvent> changes(std::int64_t since_ms, std::int64_t t_ms,
                                          const drivers::dgt::EepromLog& reply);

  // After changes were lost on the line: of `from_start` (the answer to SEND_FROM_START, the board's whole
  // record since SET_START_GAME), the records after the last non-empty packet given, which the board
  // recorded but no reply brought; none when that packet is not in it (nothing given yet, or a record
  // begun again), and the board is then only read again.
  std::optional<drivers::dgt::EepromLog> lost_records(const drivers::dgt::EepromLog& from_start) const;

  // The time each record of `log` is given, in order (see above).
  static std::vector<std::int64_t> record_times(std::int64_t since_ms, std::int64_t t_ms,
                                                const drivers::dgt::EepromLog& log);
  // The time from the first record of `log` to its last, as record_times() counts it when there is room.
  static std::int64_t records_span(const drivers::dgt::EepromLog& log);

  static constexpr std::int64_t kQuickGapMs = 20;
  static constexpr std::int64_t kSlowGapMs = 300;
  static constexpr std::int64_t kPressGapMs = 60;
  // More than reconstruction's longest wait for the board (one scan, 260 ms; settling, 250 ms).
  static constexpr std::int64_t kQuietMs = 300;
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
  void press(std::int64_t t_ms, const drivers::dgt::TimeRecord& record, std::vector<rules::SensorEvent>& out);

  DgtBoard board_;
  std::array<std::uint8_t, 64> raw_{};  // piece codes by raw square, as reported
  bool dumped_ = false;
  std::optional<rules::ClockReading> reading_;
  std::optional<drivers::dgt::EepromLog> last_log_;  // the last changes given
  drivers::dgt::EepromLog last_packet_;              // the last changes given that held records
};

}  // namespace eboard::daemon
