// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Fuzzes the Millennium ChessLink decoder with arbitrary bytes: decoding in chunks (their lengths taken
// from the data) must give exactly what decoding in one piece gives, every snapshot holds only piece
// letters and dots, bytes without odd parity never reach a frame, and what the encoder makes is read back.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "drivers/millennium/protocol.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace mil = eboard::drivers::millennium;

using eboard::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t max_chunk = data[0];
  const std::span<const std::uint8_t> input(data + 1, size - 1);
  mil::Decoder whole;
  const auto expected = whole.feed(input);
  require(whole.stats().bytes_fed == input.size());
  require(whole.pending_bytes() <= 67);
  for (const auto& r : expected)
    if (const auto* s = std::get_if<mil::Snapshot>(&r))
      for (char c : s->squares)
        require(c == '.' || std::string_view("KQRBNPkqrbnp").find(c) != std::string_view::npos);
  mil::Decoder chunked;
  std::vector<mil::Reply> got;
  eboard::fuzz::feed_in_chunks(input, max_chunk, [&](auto chunk) { chunked.feed(chunk, got); });
  require(got == expected);
  // What the encoder makes, the decoder reads back.
  if (!expected.empty())
    if (const auto* s = std::get_if<mil::Snapshot>(&expected.front())) {
      mil::Decoder again;
      const auto back = again.feed(mil::snapshot_reply(s->squares));
      require(back.size() == 1 && std::get<mil::Snapshot>(back[0]) == *s);
    }
  return 0;
}
