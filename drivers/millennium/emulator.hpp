// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A Millennium ChessLink board, emulated: it answers the host's commands and reports its squares as a hand
// changes them. Sans-I/O like the DGT emulator: bytes and the time go in (milliseconds on any monotonic
// scale), bytes to send come out of take_output(), next_deadline() says when advance() has a scan to make.
// `eboardctl sim --protocol millennium` and the tests put it on a pseudo-terminal.
//
// What it models (reference/hardware.md §2, the ChessLink document): frames of a letter, data and the XOR
// check in two upper-case hex digits, bit 7 the odd parity of each character (a 7O1 board read on an 8N1
// line). What the host sends must have odd parity too: a byte that has not is ignored (counted), as the
// board's UART would refuse it, so a host that leaves the parity to a tty that does not apply it (a pty, some
// bridges) is not answered. S → `s` + the 64 squares; V → `v` + version; X → `x`; L (slot time + 81 LED
// patterns) → `l`; W → `w` + echo, R → `r` + address and value; T resets (no reply; the E2ROM survives it).
// The E2ROM is the board's: 01 sets the scan time (2.048 ms units, below 15 taken as 20), 02 the automatic
// reports (every scan, off, timed by 03, on change, on change debounced over 2-5 scans), 00 bit 0 turns the
// XOR check off. The configuration gives its contents at power-up (another program may have left reports
// off). Bad checks, unknown letters and frames left unfinished are skipped and counted; nothing the host
// sends can make it fail.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "drivers/millennium/protocol.hpp"

namespace eboard::drivers::millennium {

using AutoReports = ReportMode;

struct EmulatorConfig {
  Version version{1, 4};
  // E2ROM at power-up: 01 (scan time, 2.048 ms units), 02 (automatic reports), 03 (report period).
  std::uint8_t scan_time = e2rom::DEFAULT_SCAN_TIME;
  // On change, as eboardd sets it (the board leaves the factory with every_scan; `eboardctl sim` says which).
  AutoReports reports = AutoReports::on_change;
  std::uint8_t report_period = 0x30;  // 4.096 ms units (timed reports only)
  bool check_parity = true;           // false: any bit 7 taken (a 7-bit terminal's view)
};

struct EmulatorStats {
  std::uint64_t commands = 0;
  std::uint64_t bad_checks = 0;
  std::uint64_t parity_errors = 0;  // host bytes with even parity: ignored
  std::uint64_t unknown_bytes = 0;
  std::uint64_t reports = 0;  // automatic `s` reports sent
};

class Emulator {
 public:
  explicit Emulator(EmulatorConfig config = {});

  // The hand: a square (0 = a1 … 63 = h8) now holds `piece` ('.' empty, FEN letters). Reported at the next
  // scan.
  void set_square(int square, char piece);
  void set_board(const Squares& squares);  // in the board's order (a8 … h1)
  [[nodiscard]] const Squares& squares() const { return squares_; }
  // The LED patterns the host set last (81, LED 0 at the a8 corner), and their slot time.
  [[nodiscard]] const std::array<std::uint8_t, 81>& leds() const { return leds_; }

  void host_bytes(std::int64_t now_ms, std::span<const std::uint8_t> bytes);
  void advance(std::int64_t now_ms);
  [[nodiscard]] std::optional<std::int64_t> next_deadline() const;
  [[nodiscard]] std::vector<std::uint8_t> take_output();
  [[nodiscard]] const EmulatorStats& stats() const { return stats_; }
  [[nodiscard]] std::uint8_t e2rom(std::uint8_t address) const { return e2rom_[address]; }
  // Another program (or the board's own set-up) changes a setting behind the host's back: no reply.
  void set_e2rom(std::uint8_t address, std::uint8_t value) { e2rom_[address] = value; }
  [[nodiscard]] ReportMode reports() const { return static_cast<ReportMode>(e2rom_[e2rom::REPORTS] & 7); }
  // One scan, in ms (E2ROM 01 × 2.048, rounded).
  [[nodiscard]] std::int64_t scan_ms() const;

 private:
  void command(char letter, const std::string& data);
  void reply(char letter, const std::string& data);
  [[nodiscard]] bool report_due(std::int64_t scan_at);
  Squares squares_{};
  Squares reported_{};
  Squares last_scan_{};   // what the previous scan saw (debounce)
  int stable_scans_ = 0;  // scans the squares have stood as they are
  bool dirty_ = true;     // report at the next scan whatever the squares (none was sent yet, or a reset)
  std::int64_t next_scan_ = 0;
  std::int64_t next_timed_ = 0;  // timed reports
  bool scanning_ = false;
  EmulatorConfig config_;
  std::array<std::uint8_t, 81> leds_{};
  std::array<std::uint8_t, 256> e2rom_{};
  std::string frame_;  // a command being received, parity masked
  std::int64_t frame_started_ = 0;
  std::vector<std::uint8_t> out_;
  EmulatorStats stats_;
};

}  // namespace eboard::drivers::millennium
