// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Millennium ChessLink (Exclusive with its ChessLink module, eONE built in): printable ASCII frames on a
// 38400 7O1 line, each a letter, its data and two upper-case hex digits, the XOR of every character before
// them. Commands are upper case, replies the same letter in lower case. The host opens the line 8N1 and
// carries the parity itself: bit 7 of what it sends, masked off what it reads. Facts from
// ../shared/reference/hardware.md §2; the code is ours. Sans-I/O: bytes in, typed replies out.
#pragma once

#include <array>
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

// The board's square index (0 = a8) of a square numbered as the rest of eboardd numbers them (0 = a1,
// 7 = h1, 63 = h8), and back: the same mapping both ways.
constexpr int board_index(int square) { return (7 - square / 8) * 8 + square % 8; }

struct DecoderStats {
  std::uint64_t bytes_fed = 0;
  std::uint64_t replies = 0;
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
  std::string frame_;  // from a reply letter on, parity masked off
  DecoderStats stats_;
};

// A frame: `letter`, `data`, the XOR check. With `parity`, bit 7 of every byte makes its parity odd (what a
// host on an 8N1 line sends to a 7O1 board; a board's replies read that way carry it too).
[[nodiscard]] std::vector<std::uint8_t> frame(char letter, std::string_view data, bool parity = true);

namespace command {
[[nodiscard]] std::vector<std::uint8_t> snapshot();  // S: the board's squares now
[[nodiscard]] std::vector<std::uint8_t> version();   // V
[[nodiscard]] std::vector<std::uint8_t> leds_off();  // X
[[nodiscard]] std::vector<std::uint8_t> reset();     // T: no reply, ~3 s start-up
// W: one E2ROM setting (01 scan time, 02 automatic reports, 03 report period, 04 LED brightness).
[[nodiscard]] std::vector<std::uint8_t> write_e2rom(std::uint8_t address, std::uint8_t value);
// L: 81 corner LEDs (9×9, LED 0 at the a8 corner running down the a-file first), each an 8-slot on/off
// pattern shown MSB first, `slot_time` × 4.096 ms a slot.
[[nodiscard]] std::vector<std::uint8_t> leds(std::uint8_t slot_time,
                                             const std::array<std::uint8_t, 81>& patterns);
}  // namespace command

// The board's reply to a snapshot request or its automatic report (what an emulated board sends).
[[nodiscard]] std::vector<std::uint8_t> snapshot_reply(const Squares& squares, bool parity = true);

}  // namespace eboard::drivers::millennium
