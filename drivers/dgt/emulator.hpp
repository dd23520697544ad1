// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A DGT board and its clock, emulated: what a real board would send for the commands it is sent, the
// pieces set on it and the clock beside it. Sans-I/O: bytes and the time go in (time is a value, in
// milliseconds on any monotonic scale), bytes to send come out of take_output(), and next_deadline() says
// when advance() has something to do (a clock tick to report, an ACK to send). Nothing here reads a clock
// or touches a file descriptor; `eboardctl sim` and the tests put it on a pseudo-terminal.
//
// What it models (reference/hardware.md §1):
//  - Modes IDLE, UPDATE_BOARD, UPDATE and UPDATE_NICE. Field updates go out only in the three update
//    modes; in UPDATE a BWTIME whenever the displayed time changes and at least every `update_period_ms`;
//    in UPDATE_NICE only when what the clock shows changes. The first BWTIME after entering an update mode
//    comes one clock poll later (`clock_poll_ms`): the board reads its clock a few times a second.
//  - Replies to 0x41 (BWTIME), 0x42 (dump), 0x45/0x55 (serial numbers), 0x46 (bus address), 0x47
//    (trademark), 0x4D (version), 0x4C (battery, when configured), 0x49 (a short EEPROM log: power-up,
//    the changes seen since, start-position tags, the time of each clock press). 0x40 goes IDLE.
//  - Clock commands (`2B size 03 sub ... 00`): DISPLAY (XL segments), ASCII text, ICONS, END, BUTTON,
//    VERSION, SETNRUN (sets the times and which side runs; an error ACK unless the clock is in mode 23),
//    BEEP. Each is answered by an ACK packed into a BWTIME `ack_delay_ms` later, and only in UPDATE or
//    UPDATE_NICE mode (a real board drops ACKs otherwise). No clock connected: no effect, no ACK.
//  - Bus mode: 0x4A or any well-formed bus command switches to it, any single-board command back. Ping
//    (to address 0 or ours), CLK, BRD, SEND_CHANGES / REPEAT_CHANGES / SEND_FROM_START / SET_START_GAME,
//    VERSION, SEND_ALL, IGNORE_NEXT_PING, END_BUSMODE are answered as bus replies; others are ignored.
//  - Robustness: any chunking; unknown bytes, 0x4E (firmware loader), bad checksums, frames cut short
//    or left unfinished for `command_timeout_ms` are skipped and counted. Nothing the host sends can make
//    it fail.
//
// Squares are the board's raw numbering (0 = a8 ... 63 = h1 with the connector on White's left). A board
// set up the other way round (Black at the connector) is `rotated`: raw_square() maps a file and rank
// seen from White to the raw square it sends.
//
// Capture replay (`spontaneous = false`): the board's own updates come from a recording, given to
// pass_through(); they go out verbatim and keep the emulated state in step, so a 0x42 in between gets
// the dump of what the recording shows at that moment. Commands that come while a recorded message is
// half sent are taken when it is complete, so the two never interleave.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/dgt/decoder.hpp"
#include "drivers/dgt/encoder.hpp"
#include "drivers/dgt/message_encoder.hpp"
#include "drivers/dgt/messages.hpp"

namespace eboard::drivers::dgt {

enum class BoardMode : std::uint8_t { Idle, UpdateBoard, Update, UpdateNice };
[[nodiscard]] std::string_view to_string(BoardMode mode);

// The clock as players see it: a left and a right half and a lever. The half whose lever is up runs.
struct EmulatedClock {
  bool connected = true;
  std::int64_t left_ms = 0;  // remaining time, exact
  std::int64_t right_ms = 0;
  bool running = false;
  bool right_lever_high = false;  // false: the left lever is up (the left time runs)
  bool left_flag = false;         // that side's flag has fallen (its time is blocked at zero)
  bool right_flag = false;
  bool time_per_move = false;  // Fischer / Bronstein indicator on both faces
  bool battery_low = false;
  bool operator==(const EmulatedClock&) const = default;
};

struct EmulatorConfig {
  std::string serial = "01025";            // 5 ASCII digits; the bus address is their value (1025)
  std::string long_serial = "EBSIM01025";  // 10 ASCII characters
  Version version{1, 7};
  std::string trademark = "Digital Game Technology - eboardd board emulator";
  // A Bluetooth board answers 0x4C; a USB board does not (nullopt).
  std::optional<board_message::BatteryFields> battery =
      board_message::BatteryFields{.percent = 87,
                                   .time_left_minutes = 14 * 60,
                                   .time_on_minutes = 95,
                                   .standby_minutes = 0,
                                   .charging = false,
                                   .discharging = true};
  Version clock_version{2, 2};     // DGT 3000 answers 2.x, DGT XL 1.x
  bool clock_mode_23 = true;       // SETNRUN is honoured only in clock mode 23; otherwise an error ACK
  bool rotated = false;            // Black sits at the connector side (see raw_square)
  bool spontaneous = true;         // false: updates come only from pass_through() (capture replay)
  bool start_in_bus_mode = false;  // real boards power up in bus mode; the first single-board command ends it
  std::int64_t update_period_ms = 1000;    // UPDATE mode: a BWTIME at least this often
  std::int64_t clock_poll_ms = 300;        // first BWTIME after entering an update mode
  std::int64_t ack_delay_ms = 100;         // a clock ACK comes this long after the command
  std::int64_t command_timeout_ms = 1000;  // a multi-byte command left unfinished this long is dropped
};

struct EmulatorStats {
  std::uint64_t bytes_in = 0;
  std::uint64_t commands = 0;        // single-board commands executed
  std::uint64_t clock_commands = 0;  // well-formed clock frames
  std::uint64_t bus_commands = 0;    // bus frames with a good checksum
  std::uint64_t ignored_bytes = 0;   // unknown command bytes, 0x4E, stray data bytes
  std::uint64_t bad_frames = 0;      // clock/LED/bus frames malformed, with a bad checksum or timed out
  std::uint64_t acks_sent = 0;
  std::uint64_t acks_dropped = 0;  // the board was not in UPDATE / UPDATE_NICE mode when it was due
  std::uint64_t bytes_out = 0;
};

class Emulator {
 public:
  explicit Emulator(EmulatorConfig config = {});

  // --- The host's side of the wire ---------------------------------------------------------------
  // Bytes the host wrote, in any chunking.
  void receive(std::int64_t now_ms, std::span<const std::uint8_t> bytes);

  // --- The physical board and clock -------------------------------------------------------------------
  // A piece set on (code 1..15) or taken off (0) a raw square. Out of range values are ignored.
  void set_piece(std::int64_t now_ms, std::uint8_t raw_square, std::uint8_t code);
  // The same on the square at `file` (0 = a) and `rank` (0 = the 1st rank), seen from White.
  void set_piece_at(std::int64_t now_ms, int file, int rank, std::uint8_t code);
  // The whole board (raw squares): every square that differs is a change, reported in raw order.
  void set_board(std::int64_t now_ms, const std::array<std::uint8_t, 64>& pieces);
  // The clock as it stands now (e.g. a reading of a clock model). It runs on by itself from there.
  void set_clock(std::int64_t now_ms, const EmulatedClock& clock);
  // A button on the clock pressed: an automatic ACK (0x88) with the button's code.
  void press_clock_button(std::int64_t now_ms, ClockButton button);

  // --- Capture replay --------------------------------------------------------------------------------
  // Bytes a recorded board sent: out verbatim, and read to keep pieces and clock in step.
  void pass_through(std::int64_t now_ms, std::span<const std::uint8_t> bytes);

  // --- Time and output -------------------------------------------------------------------------------
  // Runs everything due up to `now_ms` (every other call does this first, too).
  void advance(std::int64_t now_ms);
  // When advance() next has something to do; nullopt: nothing until the next input.
  [[nodiscard]] std::optional<std::int64_t> next_deadline() const;
  // The bytes to send, oldest first; empties the buffer.
  [[nodiscard]] Bytes take_output();
  [[nodiscard]] bool has_output() const { return !output_.empty(); }

  // The board lost power (USB unplugged) and got it back: the mode and any half-received command or
  // unsent output are gone; the pieces stay where they are and the clock (own batteries) runs on.
  void power_cycle(std::int64_t now_ms);

  // --- Inspection --------------------------------------------------------------------------------
  [[nodiscard]] BoardMode mode() const { return mode_; }
  [[nodiscard]] bool bus_mode() const { return bus_mode_; }
  [[nodiscard]] const std::array<std::uint8_t, 64>& pieces() const { return pieces_; }
  [[nodiscard]] EmulatedClock clock_at(std::int64_t now_ms) const;
  // What the clock shows as a BWTIME reading (times rounded up to whole seconds, as a clock displays).
  [[nodiscard]] ClockTimes clock_reading(std::int64_t now_ms) const;
  [[nodiscard]] const std::string& clock_display() const { return display_; }  // empty: the times
  [[nodiscard]] int beeps() const { return beeps_; }
  [[nodiscard]] const std::vector<EepromRecord>& eeprom_records() const { return eeprom_; }
  [[nodiscard]] const EmulatorStats& stats() const { return stats_; }
  [[nodiscard]] const EmulatorConfig& config() const { return config_; }
  [[nodiscard]] std::uint16_t bus_address() const { return bus_address_; }

  // Raw square of `file` (0 = a) and `rank` (0 = 1st) on a board set up normally or rotated.
  [[nodiscard]] static std::uint8_t raw_square(int file, int rank, bool rotated);

 private:
  enum class Pending : std::uint8_t { None, ClockSize, ClockBody, LedSize, LedBody, Bus };
  struct PendingAck {
    std::int64_t due_ms;
    ClockAck ack;
  };

  void run_due(std::int64_t now_ms);
  void feed_byte(std::int64_t now_ms, std::uint8_t b);
  void start_command(std::int64_t now_ms, std::uint8_t b);
  void single_command(std::int64_t now_ms, std::uint8_t b);
  void clock_command(std::int64_t now_ms, std::span<const std::uint8_t> body);
  void bus_command(std::int64_t now_ms, std::span<const std::uint8_t> frame);
  void queue_ack(std::int64_t now_ms, ClockAck ack);
  void enter_mode(std::int64_t now_ms, BoardMode mode);
  void change_piece(std::int64_t now_ms, std::uint8_t raw, std::uint8_t code, bool report);
  void log_record(std::int64_t now_ms, EepromRecord record);
  void check_start_position(std::int64_t now_ms);
  void sync_from_recording(std::int64_t now_ms, const Message& m);
  [[nodiscard]] bool holding() const;
  void release_held(std::int64_t now_ms);
  void settle_clock(std::int64_t now_ms);
  void apply_clock(std::int64_t now_ms, const EmulatedClock& clock);
  void send_clock_times(std::int64_t now_ms);
  void emit(const Bytes& bytes);
  void emit_reply(const Bytes& bytes);
  [[nodiscard]] Bytes clock_times_bytes(std::int64_t now_ms) const;
  [[nodiscard]] bool update_mode() const;
  [[nodiscard]] bool clock_updates() const;
  [[nodiscard]] std::optional<std::int64_t> next_display_change(std::int64_t now_ms) const;
  // The records [from_record, to_record) (to the end at most), as a reply's data.
  [[nodiscard]] Bytes eeprom_payload(std::size_t from_record, std::size_t to_record) const;

  EmulatorConfig config_;
  std::uint16_t bus_address_ = 0;
  std::array<std::uint8_t, 64> pieces_{};
  BoardMode mode_ = BoardMode::Idle;
  bool bus_mode_ = false;
  bool ignore_next_ping_ = false;

  // The clock as of clock_as_of_ms_; clock_at() runs it on.
  EmulatedClock clock_{};
  std::int64_t clock_as_of_ms_ = 0;
  bool toggle_on_lever_ = false;
  std::string display_;
  int beeps_ = 0;
  std::optional<ClockButton> last_button_;

  // Input parsing.
  Pending pending_ = Pending::None;
  std::vector<std::uint8_t> frame_;
  std::size_t frame_size_ = 0;
  std::int64_t frame_started_ms_ = 0;

  // Clock reports.
  std::optional<std::int64_t> clock_poll_at_ms_;  // no BWTIME before this after entering an update mode
  Bytes last_clock_bytes_;
  std::optional<std::int64_t> last_clock_sent_ms_;
  std::vector<PendingAck> acks_;

  // EEPROM log.
  std::vector<EepromRecord> eeprom_;
  std::optional<std::int64_t> last_record_ms_;  // of the last piece record
  std::size_t bus_changes_from_ = 0;            // first record not yet sent by SEND_CHANGES
  std::size_t bus_changes_last_ = 0;            // where the last SEND_CHANGES began (for REPEAT_CHANGES)
  std::size_t bus_game_start_ = 0;              // SET_START_GAME

  // Capture replay.
  Decoder pass_decoder_;
  Bytes held_;        // replies waiting for the recorded stream to reach a message boundary
  Bytes held_input_;  // host bytes that came meanwhile, executed at that boundary
  std::int64_t held_since_ms_ = 0;

  std::int64_t last_now_ms_ = 0;
  Bytes output_;
  EmulatorStats stats_;
};

}  // namespace eboard::drivers::dgt
