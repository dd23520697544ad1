// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// DGT bus mode framing (several boards on one serial line): 4-byte addressed commands out, checksummed
// replies in. Sans-I/O, like the single-board decoder.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include <tl/expected.hpp>

#include "drivers/dgt/encoder.hpp"
#include "drivers/dgt/framer.hpp"

namespace eboard::drivers::dgt {

using BusCommandBytes = std::array<std::uint8_t, 4>;

// Sum of the bytes, kept to 7 bits so that it never looks like a message start.
[[nodiscard]] std::uint8_t bus_checksum(std::span<const std::uint8_t> bytes);

// `[cmd][addr_hi 7 bits][addr_lo 7 bits][checksum]`; e.g. a ping to address 0 is `87 00 00 07`.
[[nodiscard]] tl::expected<BusCommandBytes, EncodeError> encode_bus_command(std::uint8_t command,
                                                                            std::uint16_t address);

// The address a command is for (its two 7-bit address bytes).
[[nodiscard]] constexpr std::uint16_t bus_command_address(const BusCommandBytes& command) noexcept {
  return static_cast<std::uint16_t>(((command[1] & 0x7Fu) << 7) | (command[2] & 0x7Fu));
}

// A reply with a good checksum.
struct BusReply {
  std::uint8_t id = 0;
  std::uint16_t address = 0;
  std::vector<std::uint8_t> data;  // between the address and the checksum
  bool operator==(const BusReply&) const = default;
};

// A well-framed reply whose checksum is wrong (e.g. two boards answered a ping at once). Its fields may be
// garbled too; they are given for logging.
struct BusBadChecksum {
  std::uint8_t id = 0;
  std::uint16_t address = 0;
  bool operator==(const BusBadChecksum&) const = default;
};

using BusFrame = std::variant<BusReply, BusBadChecksum>;

struct BusDecoderStats : FramerStats {
  std::uint64_t replies = 0;
  std::uint64_t bad_checksums = 0;
};

// The largest total length a reply with this id may have (header and checksum included).
[[nodiscard]] std::size_t max_bus_reply_size(std::uint8_t id);

class BusDecoder {
 public:
  void feed(std::span<const std::uint8_t> bytes, std::vector<BusFrame>& out);
  [[nodiscard]] std::vector<BusFrame> feed(std::span<const std::uint8_t> bytes);
  [[nodiscard]] const BusDecoderStats& stats() const noexcept { return stats_; }
  [[nodiscard]] std::size_t pending_bytes() const noexcept { return framer_.pending_bytes(); }
  // The total size the frame being read announced; 0 before its length bytes are in.
  [[nodiscard]] std::size_t expected_size() const noexcept { return framer_.expected_size(); }
  void reset() noexcept;

 private:
  Framer framer_;
  BusDecoderStats stats_;
};

// Builds a reply frame as a board would send it (for tests, simulators and the bus emulator).
[[nodiscard]] std::vector<std::uint8_t> encode_bus_reply(std::uint8_t id, std::uint16_t address,
                                                         std::span<const std::uint8_t> data);

}  // namespace eboard::drivers::dgt
