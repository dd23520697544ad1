// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Helpers shared by the DGT driver tests: message builders and access to the real captures in ../shared.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "drivers/base64.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt::test {

using ByteVector = std::vector<std::uint8_t>;

// A board->PC message with the 14-bit length header.
inline ByteVector frame(std::uint8_t id, const ByteVector& payload) {
  const std::size_t size = payload.size() + 3;
  ByteVector out{id, static_cast<std::uint8_t>((size >> 7) & 0x7F), static_cast<std::uint8_t>(size & 0x7F)};
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

inline std::uint8_t bcd(int v) { return static_cast<std::uint8_t>((v / 10) << 4 | (v % 10)); }

// BWTIME with the right clock in p0..p2 and the left in p3..p5.
inline ByteVector bwtime(int rh, int rm, int rs, int lh, int lm, int ls, std::uint8_t status,
                         std::uint8_t right_flags = 0, std::uint8_t left_flags = 0) {
  return frame(message::kBwTime, {static_cast<std::uint8_t>(right_flags | rh), bcd(rm), bcd(rs),
                                  static_cast<std::uint8_t>(left_flags | lh), bcd(lm), bcd(ls), status});
}

// The inverse of the decoder's ACK reconstruction: the top bit of ack0/ack1 goes to bits 4/5 of p3, the top
// bit of ack2/ack3 to bits 4/5 of p0; the 0x0A marker sits in the low nibble of p0 and/or p3.
inline ByteVector ack_bwtime(std::array<std::uint8_t, 4> a, bool marker_in_p0 = true,
                             bool marker_in_p3 = true) {
  const auto hi = [](std::uint8_t v, int bit) {
    return static_cast<std::uint8_t>((v & 0x80) ? (1 << bit) : 0);
  };
  const std::uint8_t p0 = static_cast<std::uint8_t>((marker_in_p0 ? 0x0A : 0x00) | hi(a[2], 4) | hi(a[3], 5));
  const std::uint8_t p3 = static_cast<std::uint8_t>((marker_in_p3 ? 0x0A : 0x00) | hi(a[0], 4) | hi(a[1], 5));
  return frame(message::kBwTime,
               {p0, static_cast<std::uint8_t>(a[0] & 0x7F), static_cast<std::uint8_t>(a[1] & 0x7F), p3,
                static_cast<std::uint8_t>(a[2] & 0x7F), static_cast<std::uint8_t>(a[3] & 0x7F), 0x00});
}

inline ByteVector field_update(std::uint8_t square, std::uint8_t piece) {
  return frame(message::kFieldUpdate, {square, piece});
}

// The start position in DGT piece codes, a8 first.
inline std::array<std::uint8_t, 64> start_squares() {
  std::array<std::uint8_t, 64> b{};
  const std::array<std::uint8_t, 8> black{8, 9, 10, 12, 11, 10, 9, 8};
  const std::array<std::uint8_t, 8> white{2, 3, 4, 6, 5, 4, 3, 2};
  for (std::size_t f = 0; f < 8; ++f) {
    b[f] = black[f];
    b[8 + f] = 7;
    b[48 + f] = 1;
    b[56 + f] = white[f];
  }
  return b;
}

inline ByteVector start_position_dump() {
  const auto b = start_squares();
  return frame(message::kBoardDump, ByteVector(b.begin(), b.end()));
}

inline void append(ByteVector& to, const ByteVector& from) { to.insert(to.end(), from.begin(), from.end()); }

// ---- The real captures (AGPL data, read at run time from ../shared, never copied into the repo). ----

inline std::filesystem::path corpus_dir() {
  return std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "dgt";
}

inline std::optional<std::string> read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// One entry per serial read, as recorded.
inline std::optional<std::vector<ByteVector>> load_inbytes(const std::string& name) {
  const auto text = read_text(corpus_dir() / (name + ".inbytes"));
  if (!text) return std::nullopt;
  std::vector<ByteVector> chunks;
  for (const auto& line : lines_of(*text)) {
    auto bytes = decode_base64(line);
    if (!bytes) return std::nullopt;
    chunks.push_back(std::move(*bytes));
  }
  return chunks;
}

inline ByteVector concat(const std::vector<ByteVector>& chunks) {
  ByteVector all;
  for (const auto& c : chunks) append(all, c);
  return all;
}

inline const std::array<const char*, 2> kCorpora = {"arnsholt-dgtdriver_1", "arnsholt-dgtdriver_johan"};

}  // namespace eboard::drivers::dgt::test
