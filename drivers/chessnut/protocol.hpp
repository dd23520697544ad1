// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Chessnut Air / Air+ / Pro / Go over USB HID (vendor 0x2D80): in realtime mode the board sends its whole
// position whenever it changes, a frame `01 24` + 32 bytes (two squares a byte, low nibble first, h8 → a8,
// then h7 … a1) + 2 bytes nobody has documented. No clock, no square events: a snapshot protocol. Facts
// from ../shared/reference/hardware.md §3; the code is ours. Sans-I/O: report bytes in, positions out.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace eboard::drivers::chessnut {

inline constexpr std::uint16_t VENDOR_ID = 0x2D80;
// Product ids 0x80xx … 0x86xx (the high byte names the model).
constexpr bool is_board_product(std::uint16_t product_id) {
  return (product_id >> 8) >= 0x80 && (product_id >> 8) <= 0x86;
}

// Square contents as the board codes them: 0 empty, 1 q, 2 k, 3 b, 4 p, 5 n, 6 R, 7 P, 8 r, 9 B, 10 N,
// 11 Q, 12 K. As a letter (FEN's), '.' for empty, '?' for a code the board should never send.
char piece_letter(std::uint8_t code);

// Squares numbered as eboardd numbers them: 0 = a1, 7 = h1, 63 = h8.
struct Position {
  std::array<char, 64> squares{};  // piece letters, '.' empty
  bool operator==(const Position&) const = default;
};

struct DecoderStats {
  std::uint64_t bytes_fed = 0;
  std::uint64_t positions = 0;
  std::uint64_t skipped_bytes = 0;  // of other frames (battery, version …): not zero padding
  std::uint64_t bad_codes = 0;     // a position frame with a nibble above 12: dropped
};

class Decoder {
 public:
  // A HID report (or any piece of the stream): every position frame it completes is appended to `out`.
  void feed(std::span<const std::uint8_t> bytes, std::vector<Position>& out);
  [[nodiscard]] std::vector<Position> feed(std::span<const std::uint8_t> bytes);
  [[nodiscard]] const DecoderStats& stats() const noexcept { return stats_; }
  void reset() noexcept { buffer_.clear(); }

 private:
  std::vector<std::uint8_t> buffer_;
  DecoderStats stats_;
};

// The frame a board sends for `p` (an emulated board, tests).
[[nodiscard]] std::vector<std::uint8_t> position_frame(const Position& p);

namespace command {
[[nodiscard]] std::vector<std::uint8_t> realtime_mode();  // 21 01 00: positions as they change
// 0A 08 + one byte per rank from rank 8 down, bit 7 = a-file: the squares lit (the bit order within a
// byte is our reading of the vendor's example, not confirmed on a board).
[[nodiscard]] std::vector<std::uint8_t> leds(std::uint64_t lit_squares);
}  // namespace command

}  // namespace eboard::drivers::chessnut
