// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Millennium ChessLink (Exclusive with its ChessLink module, eONE built in): printable ASCII frames on a
// 38400 7O1 line, each a letter, its data and two upper-case hex digits, the XOR of every character before
// them. Commands are upper case, replies the same letter in lower case. The host opens the line 8N1 and
// carries the parity itself, whatever the tty or bridge would do: bit 7 of every byte it sends makes the
// byte's parity odd, and every byte it reads must have odd parity (a byte that has not is dropped and
// counted) before bit 7 is stripped. Facts from ../shared/reference/hardware.md §2 and the ChessLink
// document (python-mchess `magic-board.md`); the code is ours. Sans-I/O: bytes in, typed replies out.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace eboard::drivers::millennium {

// The board's 64 squares in the order of its `s` report: a8, b8 … h8, a7 … h1. `KQRBNP` white,
// `kqrbnp` black, `.` empty.
using Squares = std::array<char, 64>;

struct Snapshot {  // `s`: what the board senses (a reply to S, or an automatic report)
  Squares squares{};
  bool operator==(const Snapshot&) const = default;
};
struct Version {  // `v`
  std::uint8_t major = 0;
  std::uint8_t minor = 0;
  bool operator==(const Version&) const = default;
};
struct LedsSet {  // `l`
  bool operator==(const LedsSet&) const = default;
};
struct LedsOff {  // `x`
  bool operator==(const LedsOff&) const = default;
};
struct E2rom {  // `w` (written) or `r` (read): an address and its value
  bool written = false;
  std::uint8_t address = 0;
  std::uint8_t value = 0;
  bool operator==(const E2rom&) const = default;
};
using Reply = std::variant<Snapshot, Version, LedsSet, LedsOff, E2rom>;

// E2ROM addresses (W/R) and the values of address 02, as the document numbers them.
namespace e2rom {
constexpr std::uint8_t SERIAL_SETUP = 0x00;    // bit 0 set: the board stops checking the XOR check
constexpr std::uint8_t SCAN_TIME = 0x01;       // units of 2.048 ms; default 20, below 15 the board takes 20
constexpr std::uint8_t REPORTS = 0x02;         // automatic reports: a ReportMode
constexpr std::uint8_t REPORT_PERIOD = 0x03;   // ReportMode::timed: units of 4.096 ms
constexpr std::uint8_t LED_BRIGHTNESS = 0x04;  // 0 dim … >14 full
constexpr std::uint8_t DEFAULT_SCAN_TIME = 20;
constexpr std::uint8_t MIN_SCAN_TIME = 15;
}  // namespace e2rom

// E2ROM 02, bits 2-0.
enum class ReportMode : std::uint8_t {
  every_scan = 0,  // the default: an `s` report at every scan, changed or not
  off = 1,         // none: the host asks with S
  timed = 2,       // every E2ROM 03 × 4.096 ms
  on_change = 3,   // at the scan that sees a change
  debounce_2 = 4,  // a change once it has stood for 2 scans (… 5 = 3 scans, 6 = 4, 7 = 5)
  debounce_3 = 5,
  debounce_4 = 6,
  debounce_5 = 7,
};

// Whether a byte as read off an 8N1 line has the odd parity of a 7O1 character.
constexpr bool odd_parity(std::uint8_t b) { return std::popcount(b) % 2 == 1; }
// A 7-bit character with bit 7 set as its odd parity bit.
constexpr std::uint8_t with_odd_parity(char c) {
  const auto b = static_cast<std::uint8_t>(c & 0x7F);
  return std::popcount(b) % 2 == 0 ? static_cast<std::uint8_t>(b | 0x80) : b;
}

// The board's square index (0 = a8) of a square numbered as the rest of eboardd numbers them (0 = a1,
// 7 = h1, 63 = h8), and back: the same mapping both ways.
constexpr int board_index(int square) { return (7 - square / 8) * 8 + square % 8; }

struct DecoderStats {
  std::uint64_t bytes_fed = 0;
  std::uint64_t replies = 0;
  std::uint64_t parity_errors = 0;  // bytes whose parity was even: dropped before framing
  std::uint64_t garbage_bytes = 0;  // skipped while looking for a reply letter
  std::uint64_t bad_checks = 0;     // a frame whose XOR check is wrong: its letter skipped, resynced after it
  std::uint64_t bad_frames = 0;     // the check holds but the data cannot be (a square that is no piece …)
};

class Decoder {
 public:
  // Appends every reply these bytes complete to `out`; a partial frame waits for the next call.
  void feed(std::span<const std::uint8_t> bytes, std::vector<Reply>& out);
  [[nodiscard]] std::vector<Reply> feed(std::span<const std::uint8_t> bytes);
  [[nodiscard]] const DecoderStats& stats() const noexcept { return stats_; }
  [[nodiscard]] std::size_t pending_bytes() const noexcept { return frame_.size(); }
  void reset() noexcept { frame_.clear(); }

 private:
  void scan(std::vector<Reply>& out);
  std::string frame_;  // from a reply letter on, parity checked and stripped
  DecoderStats stats_;
};

// A frame: `letter`, `data`, the XOR check. With `parity`, bit 7 of every byte makes its parity odd (what a
// host on an 8N1 line sends to a 7O1 board; a board's replies read that way carry it too). Without it, the
// 7-bit characters (for tests that show what a decoder makes of a line that lost its parity bits).
[[nodiscard]] std::vector<std::uint8_t> frame(char letter, std::string_view data, bool parity = true);

namespace command {
[[nodiscard]] std::vector<std::uint8_t> snapshot();  // S: the board's squares now
[[nodiscard]] std::vector<std::uint8_t> version();   // V
[[nodiscard]] std::vector<std::uint8_t> leds_off();  // X
[[nodiscard]] std::vector<std::uint8_t> reset();     // T: no reply, ~3 s start-up
// W: one E2ROM setting (01 scan time, 02 automatic reports, 03 report period, 04 LED brightness).
[[nodiscard]] std::vector<std::uint8_t> write_e2rom(std::uint8_t address, std::uint8_t value);
// R: reads one back; the board answers `r`, the address and its value.
[[nodiscard]] std::vector<std::uint8_t> read_e2rom(std::uint8_t address);
// L: 81 corner LEDs (9×9, LED 0 at the a8 corner running down the a-file first), each an 8-slot on/off
// pattern shown MSB first, `slot_time` × 4.096 ms a slot.
[[nodiscard]] std::vector<std::uint8_t> leds(std::uint8_t slot_time,
                                             const std::array<std::uint8_t, 81>& patterns);
}  // namespace command

// The board's reply to a snapshot request or its automatic report (what an emulated board sends).
[[nodiscard]] std::vector<std::uint8_t> snapshot_reply(const Squares& squares, bool parity = true);

}  // namespace eboard::drivers::millennium
