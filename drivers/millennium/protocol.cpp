// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/millennium/protocol.hpp"

#include <algorithm>

namespace eboard::drivers::millennium {

namespace {

constexpr char HEX[] = "0123456789ABCDEF";

// Data characters of each reply, by letter; -1: not a reply letter.
int data_size(char letter) {
  switch (letter) {
    case 's':
      return 64;
    case 'v':
    case 'w':
    case 'r':
      return 4;
    case 'l':
    case 'x':
      return 0;
    default:
      return -1;
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;  // the documentation says upper case; be lenient
  return -1;
}

int hex_byte(std::string_view two) {
  const int hi = hex_value(two[0]);
  const int lo = hex_value(two[1]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

bool is_square(char c) {
  return c == '.' || std::string_view("KQRBNPkqrbnp").find(c) != std::string_view::npos;
}

}  // namespace

std::vector<Reply> Decoder::feed(std::span<const std::uint8_t> bytes) {
  std::vector<Reply> out;
  feed(bytes, out);
  return out;
}

void Decoder::feed(std::span<const std::uint8_t> bytes, std::vector<Reply>& out) {
  stats_.bytes_fed += bytes.size();
  for (std::uint8_t b : bytes) {
    if (!odd_parity(b)) {
      ++stats_.parity_errors;
      continue;
    }
    const char c = static_cast<char>(b & 0x7F);
    if (frame_.empty() && data_size(c) < 0) {
      ++stats_.garbage_bytes;
      continue;
    }
    frame_.push_back(c);
    scan(out);
  }
}

void Decoder::scan(std::vector<Reply>& out) {
  while (!frame_.empty()) {
    const int n = data_size(frame_[0]);
    if (n < 0) {  // after a resync: look for the next letter
      frame_.erase(0, 1);
      ++stats_.garbage_bytes;
      continue;
    }
    const std::size_t total = 1 + std::size_t(n) + 2;
    if (frame_.size() < total) return;
    unsigned x = 0;
    for (std::size_t i = 0; i < total - 2; ++i) x ^= static_cast<unsigned char>(frame_[i]);
    const int check = hex_byte(std::string_view(frame_).substr(total - 2, 2));
    if (check < 0 || unsigned(check) != x) {
      // A lost or garbled byte: the letter may have been data; a real frame can start inside this one.
      ++stats_.bad_checks;
      frame_.erase(0, 1);
      continue;
    }
    const std::string_view data = std::string_view(frame_).substr(1, std::size_t(n));
    bool ok = true;
    switch (frame_[0]) {
      case 's': {
        Snapshot s;
        ok = std::all_of(data.begin(), data.end(), is_square);
        std::copy(data.begin(), data.end(), s.squares.begin());
        if (ok) out.emplace_back(s);
        break;
      }
      case 'v': {
        const int major = hex_byte(data.substr(0, 2));
        const int minor = hex_byte(data.substr(2, 2));
        ok = major >= 0 && minor >= 0;
        if (ok) out.emplace_back(Version{std::uint8_t(major), std::uint8_t(minor)});
        break;
      }
      case 'w':
      case 'r': {
        const int address = hex_byte(data.substr(0, 2));
        const int value = hex_byte(data.substr(2, 2));
        ok = address >= 0 && value >= 0;
        if (ok) out.emplace_back(E2rom{frame_[0] == 'w', std::uint8_t(address), std::uint8_t(value)});
        break;
      }
      case 'l':
        out.emplace_back(LedsSet{});
        break;
      default:
        out.emplace_back(LedsOff{});
        break;
    }
    if (ok)
      ++stats_.replies;
    else
      ++stats_.bad_frames;
    frame_.erase(0, total);
  }
}

std::vector<std::uint8_t> frame(char letter, std::string_view data, bool parity) {
  std::string text(1, letter);
  text += data;
  unsigned x = 0;
  for (char c : text) x ^= static_cast<unsigned char>(c & 0x7F);
  text.push_back(HEX[(x >> 4) & 15]);
  text.push_back(HEX[x & 15]);
  std::vector<std::uint8_t> out;
  out.reserve(text.size());
  for (char c : text) out.push_back(parity ? with_odd_parity(c) : static_cast<std::uint8_t>(c & 0x7F));
  return out;
}

namespace {
std::string hex2(std::uint8_t v) { return {HEX[v >> 4], HEX[v & 15]}; }
}  // namespace

namespace command {
std::vector<std::uint8_t> snapshot() { return frame('S', ""); }
std::vector<std::uint8_t> version() { return frame('V', ""); }
std::vector<std::uint8_t> leds_off() { return frame('X', ""); }
std::vector<std::uint8_t> reset() { return frame('T', ""); }
std::vector<std::uint8_t> write_e2rom(std::uint8_t address, std::uint8_t value) {
  return frame('W', hex2(address) + hex2(value));
}
std::vector<std::uint8_t> read_e2rom(std::uint8_t address) { return frame('R', hex2(address)); }
std::vector<std::uint8_t> leds(std::uint8_t slot_time, const std::array<std::uint8_t, 81>& patterns) {
  std::string data = hex2(slot_time);
  for (std::uint8_t p : patterns) data += hex2(p);
  return frame('L', data);
}
}  // namespace command

std::vector<std::uint8_t> snapshot_reply(const Squares& squares, bool parity) {
  return frame('s', std::string_view(squares.data(), squares.size()), parity);
}

}  // namespace eboard::drivers::millennium
