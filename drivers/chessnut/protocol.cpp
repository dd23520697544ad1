// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/chessnut/protocol.hpp"

#include <string_view>

namespace eboard::drivers::chessnut {

namespace {

constexpr std::string_view CODES = ".qkbpnRPrBNQK";  // index = the board's code
constexpr std::uint8_t POSITION = 0x01;
constexpr std::uint8_t POSITION_LENGTH = 0x24;  // 32 square bytes + 2 more
constexpr std::size_t FRAME_SIZE = 2 + POSITION_LENGTH;

// The board's nibble order: byte 0 holds h8 (low nibble) and g8 (high), byte 3 holds b8 and a8, byte 4
// starts rank 7 at h7 … so nibble n is file 7 - n % 8 of rank 7 - n / 8.
int square_of_nibble(int n) { return (7 - n / 8) * 8 + (7 - n % 8); }

}  // namespace

char piece_letter(std::uint8_t code) { return code < CODES.size() ? CODES[code] : '?'; }

std::vector<Position> Decoder::feed(std::span<const std::uint8_t> bytes) {
  std::vector<Position> out;
  feed(bytes, out);
  return out;
}

void Decoder::feed(std::span<const std::uint8_t> bytes, std::vector<Position>& out) {
  stats_.bytes_fed += bytes.size();
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
  std::size_t at = 0;
  while (buffer_.size() - at >= 2) {
    if (buffer_[at] != POSITION || buffer_[at + 1] != POSITION_LENGTH) {
      // Another frame (battery, version, an acknowledgement) or report padding: a position frame can only
      // start at a 01 24 pair.
      if (buffer_[at] != 0) ++stats_.skipped_bytes;
      ++at;
      continue;
    }
    if (buffer_.size() - at < FRAME_SIZE) break;
    Position p;
    bool ok = true;
    for (int n = 0; n < 64; ++n) {
      const std::uint8_t byte = buffer_[at + 2 + std::size_t(n / 2)];
      const std::uint8_t code = n % 2 == 0 ? byte & 0x0F : byte >> 4;
      const char c = piece_letter(code);
      ok &= c != '?';
      p.squares[std::size_t(square_of_nibble(n))] = c;
    }
    if (ok) {
      ++stats_.positions;
      out.push_back(p);
    } else {
      ++stats_.bad_codes;
    }
    at += FRAME_SIZE;
  }
  buffer_.erase(buffer_.begin(), buffer_.begin() + std::ptrdiff_t(at));
  // Never hold more than a frame: what cannot complete one is not worth keeping.
  if (buffer_.size() > FRAME_SIZE) buffer_.erase(buffer_.begin(), buffer_.end() - std::ptrdiff_t(FRAME_SIZE));
}

std::vector<std::uint8_t> position_frame(const Position& p) {
  std::vector<std::uint8_t> out{POSITION, POSITION_LENGTH};
  out.resize(FRAME_SIZE, 0);
  for (int n = 0; n < 64; ++n) {
    const std::size_t code = CODES.find(p.squares[std::size_t(square_of_nibble(n))]);
    const auto nibble = static_cast<std::uint8_t>(code == std::string_view::npos ? 0 : code);
    out[2 + std::size_t(n / 2)] |= static_cast<std::uint8_t>(n % 2 == 0 ? nibble : nibble << 4);
  }
  return out;
}

namespace command {
std::vector<std::uint8_t> realtime_mode() { return {0x21, 0x01, 0x00}; }
std::vector<std::uint8_t> leds(std::uint64_t lit_squares) {
  std::vector<std::uint8_t> out{0x0A, 0x08};
  for (int rank = 7; rank >= 0; --rank) {
    std::uint8_t byte = 0;
    for (int file = 0; file < 8; ++file)
      if ((lit_squares >> (rank * 8 + file)) & 1) byte |= static_cast<std::uint8_t>(0x80 >> file);
    out.push_back(byte);
  }
  return out;
}
}  // namespace command

}  // namespace eboard::drivers::chessnut
