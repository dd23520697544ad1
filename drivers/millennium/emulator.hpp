// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A Millennium ChessLink board, emulated: it answers the host's commands and reports its squares as a hand
// changes them. Sans-I/O like the DGT emulator: bytes and the time go in (milliseconds on any monotonic
// scale), bytes to send come out of take_output(), next_deadline() says when advance() has a scan to make.
// `eboardctl sim --protocol millennium` and the tests put it on a pseudo-terminal.
//
// What it models (reference/hardware.md §2): frames of a letter, data and the XOR check in two upper-case
// hex digits, bit 7 the odd parity of each character (a 7O1 board read on an 8N1 line), parity masked off
// what it reads. S → `s` + the 64 squares; V → `v` + version; X → `x`; L (slot time + 81 LED patterns) → `l`;
// W → `w` + echo, R → `r` + address and value (a small E2ROM); T resets (no reply). Automatic reports: at
// each scan (every `scan_ms`) a `s` report when the squares changed since the last one (E2ROM 02 "on
// change"), or at every scan (`every_scan`, the board's default), or none. Bad checks, unknown letters and
// frames left unfinished are skipped and counted; nothing the host sends can make it fail.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "drivers/millennium/protocol.hpp"

namespace eboard::drivers::millennium {

enum class AutoReports : std::uint8_t { off, on_change, every_scan };

struct EmulatorConfig {
  Version version{1, 4};
  std::int64_t scan_ms = 41;  // E2ROM 01's default 20 × 2.048 ms: about 24 scans a second
  AutoReports reports = AutoReports::on_change;
};

struct EmulatorStats {
  std::uint64_t commands = 0;
  std::uint64_t bad_checks = 0;
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

 private:
  void command(char letter, const std::string& data);
  void reply(char letter, const std::string& data);
  Squares squares_{};
  Squares reported_{};
  bool dirty_ = true;  // report at the next scan whatever the squares (none was sent yet, or a reset)
  std::int64_t next_scan_ = 0;
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
