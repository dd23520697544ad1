// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The framing DGT's single-board messages and its bus replies share: a frame begins with the only byte of it
// whose bit 7 is set (its id), the next two bytes hold its total length in 7 bits each, high first. Sans-I/O:
// any chunking; a partial frame waits for the next call. What a whole frame means is the caller's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {

// What framing alone counts; each decoder's statistics extend these.
struct FramerStats {
  std::uint64_t bytes_fed = 0;
  std::uint64_t garbage_bytes = 0;  // bytes skipped while looking for a frame start, or dropped with a frame
  std::uint64_t bad_lengths = 0;    // headers whose length cannot be right for their id: resynced
  std::uint64_t broken_frames = 0;  // frames cut short by a new frame start: resynced at that byte
};

class Framer {
 public:
  static constexpr std::size_t kHeaderSize = 3;  // id, length high 7 bits, length low 7 bits

  [[nodiscard]] static constexpr bool is_frame_start(std::uint8_t b) noexcept {
    return (b & kMessageStartBit) != 0;
  }

  // Counts into `stats`; `bounds(id)` gives the least and the largest total size a frame with that id may
  // have (a header outside them is dropped and the stream resynced); `complete(frame)` gets each whole
  // frame (header included) and must not keep the span.
  template <class Bounds, class Complete>
  void feed(std::span<const std::uint8_t> bytes, FramerStats& stats, Bounds&& bounds, Complete&& complete) {
    stats.bytes_fed += bytes.size();
    std::size_t i = 0;
    const std::size_t n = bytes.size();
    while (i < n) {
      if (frame_.empty()) {
        // Only a byte with bit 7 set can begin a frame: skip to the next one.
        const auto* start = std::find_if(bytes.data() + i, bytes.data() + n, is_frame_start);
        const auto skipped = static_cast<std::size_t>(start - (bytes.data() + i));
        stats.garbage_bytes += skipped;
        i += skipped;
        if (i == n) break;
        frame_.push_back(bytes[i++]);
        continue;
      }
      const std::uint8_t b = bytes[i];
      if (is_frame_start(b)) {
        // No frame carries a bit-7 byte in its body, so the one held is broken and this byte may begin a
        // good one: resync here without consuming it.
        ++stats.broken_frames;
        drop(stats);
        continue;
      }
      frame_.push_back(b);
      ++i;
      if (frame_.size() == kHeaderSize) {
        const std::size_t size = static_cast<std::size_t>(frame_[1]) << 7 | frame_[2];
        const auto [least, most] = bounds(frame_[0]);
        if (size < least || size > most) {
          ++stats.bad_lengths;
          drop(stats);
          continue;
        }
        expected_size_ = size;
      }
      if (frame_.size() == expected_size_) {
        complete(std::span<const std::uint8_t>(frame_));
        reset();
      }
    }
  }

  [[nodiscard]] std::size_t pending_bytes() const noexcept { return frame_.size(); }
  // The total size the frame being read announced; 0 before its length bytes are in.
  [[nodiscard]] std::size_t expected_size() const noexcept { return frame_.empty() ? 0 : expected_size_; }
  // Forgets a partial frame (e.g. after reopening the port).
  void reset() noexcept {
    frame_.clear();
    expected_size_ = 0;
  }

 private:
  void drop(FramerStats& stats) noexcept {
    stats.garbage_bytes += frame_.size();
    reset();
  }

  std::vector<std::uint8_t> frame_;  // the frame being assembled; frame_[0] has bit 7 set
  std::size_t expected_size_ = 0;    // its total length from the header, once known
};

}  // namespace eboard::drivers::dgt
