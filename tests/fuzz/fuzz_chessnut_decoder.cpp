// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Fuzzes the Chessnut position decoder with arbitrary report bytes: chunked decoding gives what decoding in
// one piece gives, positions hold only piece letters and dots, the buffer stays bounded, and a decoded
// position written back as a frame decodes to itself.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "drivers/chessnut/protocol.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace cn = eboard::drivers::chessnut;

using eboard::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t max_chunk = data[0];
  const std::span<const std::uint8_t> input(data + 1, size - 1);
  cn::Decoder whole;
  const auto expected = whole.feed(input);
  for (const auto& p : expected)
    for (char c : p.squares) require(std::string_view(".qkbpnRPrBNQK").find(c) != std::string_view::npos);
  cn::Decoder chunked;
  std::vector<cn::Position> got;
  eboard::fuzz::feed_in_chunks(input, max_chunk, [&](auto chunk) { chunked.feed(chunk, got); });
  require(got == expected);
  if (!expected.empty()) {
    cn::Decoder again;
    const auto back = again.feed(cn::position_frame(expected.back()));
    require(back.size() == 1 && back[0] == expected.back());
  }
  return 0;
}
