// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What the fuzz targets share: a check that stops the fuzzer where it fails (also in builds without
// assertions), and the feeding of a decoder in chunks whose lengths come from the data itself.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace eboard::fuzz {

inline void require(bool condition) {
  if (!condition) __builtin_trap();
}

// Calls feed(chunk) over `input` cut into chunks of 1 to max_chunk + 1 bytes.
template <class Feed>
void feed_in_chunks(std::span<const std::uint8_t> input, std::uint8_t max_chunk, Feed&& feed) {
  std::size_t i = 0;
  std::size_t k = 0;
  while (i < input.size()) {
    const std::size_t n =
        std::min<std::size_t>(input.size() - i, 1 + input[k++ % input.size()] % (max_chunk + 1U));
    feed(input.subspan(i, n));
    i += n;
  }
}

}  // namespace eboard::fuzz
