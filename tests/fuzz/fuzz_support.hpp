// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What the fuzz targets share: a check that stops the fuzzer where it fails (also in builds without
// assertions), the feeding of a decoder in chunks whose lengths come from the data itself, and the
// reading of a fuzzer's input byte by byte.
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

// The fuzzer's input read one byte at a time; a byte past its end reads as 0.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return at_ >= size_; }
  std::uint8_t next() { return at_ < size_ ? data_[at_++] : 0; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

}  // namespace eboard::fuzz
