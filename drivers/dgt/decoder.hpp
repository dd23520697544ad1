// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Byte stream -> typed DGT messages. Sans-I/O: feed it whatever the serial port delivered, in any chunking.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "drivers/dgt/framer.hpp"
#include "drivers/dgt/messages.hpp"

namespace eboard::drivers::dgt {

struct DecoderStats : FramerStats {
  std::uint64_t messages = 0;          // messages handed out (Unknown included)
  std::uint64_t unknown_messages = 0;  // well-framed, unknown id
  std::uint64_t garbled_messages = 0;  // well-framed but unreadable (bad BCD, square > 63, ...): dropped
};

class Decoder {
 public:
  // Appends every message these bytes complete to `out`. A partial message is kept for the next call.
  void feed(std::span<const std::uint8_t> bytes, std::vector<Message>& out);
  [[nodiscard]] std::vector<Message> feed(std::span<const std::uint8_t> bytes);

  [[nodiscard]] const DecoderStats& stats() const noexcept { return stats_; }
  // Bytes of an unfinished message held back (e.g. to decide that a link went quiet mid-message).
  [[nodiscard]] std::size_t pending_bytes() const noexcept { return framer_.pending_bytes(); }
  // Forgets a partial message (e.g. after reopening the port). Counters are kept.
  void reset() noexcept;

 private:
  Framer framer_;
  DecoderStats stats_;
};

enum class DecodeError : std::uint8_t { BadLength, BadSquare, BadPieceCode, BadBcd };
[[nodiscard]] std::string_view to_string(DecodeError error);

// The largest total length (header included) a message with this id may have, or 0 for never valid.
// Unknown ids get a modest limit so that a garbage header cannot make us swallow kilobytes.
[[nodiscard]] std::size_t max_message_size(std::uint8_t id);

// Decodes the payload (the bytes after the 3-byte header) of a message with this id. Bus replies carry the
// same payloads, so the bus code reuses this.
[[nodiscard]] tl::expected<Message, DecodeError> decode_payload(std::uint8_t id,
                                                                std::span<const std::uint8_t> payload);

}  // namespace eboard::drivers::dgt
