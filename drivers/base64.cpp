// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/base64.hpp"

#include <array>

namespace eboard::drivers {
namespace {

constexpr std::uint8_t kInvalid = 0xFF;

constexpr std::array<std::uint8_t, 256> make_table() {
  std::array<std::uint8_t, 256> t{};
  t.fill(kInvalid);
  constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t i = 0; i < alphabet.size(); ++i)
    t[static_cast<unsigned char>(alphabet[i])] = static_cast<std::uint8_t>(i);
  return t;
}

constexpr auto kTable = make_table();

}  // namespace

tl::expected<std::vector<std::uint8_t>, std::string> decode_base64(std::string_view text) {
  std::size_t end = text.size();
  std::size_t padding = 0;
  while (end > 0 && text[end - 1] == '=' && padding < 2) {
    --end;
    ++padding;
  }
  if (padding > 0 && text.size() % 4 != 0) return tl::unexpected(std::string("bad base64 padding"));
  if (end % 4 == 1) return tl::unexpected(std::string("bad base64 length"));
  std::vector<std::uint8_t> out;
  out.reserve(end / 4 * 3 + 2);
  std::uint32_t bits = 0;
  int count = 0;
  for (std::size_t i = 0; i < end; ++i) {
    const std::uint8_t v = kTable[static_cast<unsigned char>(text[i])];
    if (v == kInvalid) {
      return tl::unexpected("bad base64 character at column " + std::to_string(i + 1));
    }
    bits = bits << 6 | v;
    if (++count == 4) {
      out.push_back(static_cast<std::uint8_t>(bits >> 16));
      out.push_back(static_cast<std::uint8_t>(bits >> 8));
      out.push_back(static_cast<std::uint8_t>(bits));
      bits = 0;
      count = 0;
    }
  }
  // 2 or 3 leftover characters carry 1 or 2 bytes.
  if (count == 2) {
    out.push_back(static_cast<std::uint8_t>(bits >> 4));
  } else if (count == 3) {
    out.push_back(static_cast<std::uint8_t>(bits >> 10));
    out.push_back(static_cast<std::uint8_t>(bits >> 2));
  }
  return out;
}

}  // namespace eboard::drivers
