// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/bus.hpp"

#include <algorithm>
#include <numeric>

#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {
namespace {

constexpr bool is_message_start(std::uint8_t b) { return (b & kMessageStartBit) != 0; }
constexpr std::size_t kAddressEnd = 5;  // id, len_hi, len_lo, addr_hi, addr_lo
constexpr std::size_t kMaxUnknownReplySize = 256;

std::size_t min_bus_reply_size(std::uint8_t id) {
  switch (id) {
    case bus::kReplyBoardDump:
      return bus::kReplyOverhead + 64;
    case bus::kReplyBwTime:
      return bus::kReplyOverhead + 7;
    case bus::kReplyVersion:
      return bus::kReplyOverhead + 2;
    default:
      return bus::kReplyOverhead;
  }
}

std::uint16_t address_of(std::uint8_t hi, std::uint8_t lo) {
  return static_cast<std::uint16_t>((hi & kSevenBits) << 7 | (lo & kSevenBits));
}

}  // namespace

std::uint8_t bus_checksum(std::span<const std::uint8_t> bytes) {
  const unsigned sum = std::accumulate(bytes.begin(), bytes.end(), 0U);
  return static_cast<std::uint8_t>(sum & kSevenBits);
}

tl::expected<BusCommandBytes, EncodeError> encode_bus_command(std::uint8_t command, std::uint16_t address) {
  if (!is_message_start(command)) return tl::unexpected(EncodeError::NotABusCommand);
  if (address > bus::kMaxAddress) return tl::unexpected(EncodeError::AddressOutOfRange);
  BusCommandBytes out{command, static_cast<std::uint8_t>(address >> 7),
                      static_cast<std::uint8_t>(address & 0x7F), 0};
  out[3] = bus_checksum(std::span(out).first(3));
  return out;
}

std::size_t max_bus_reply_size(std::uint8_t id) {
  switch (id) {
    case bus::kReplyBoardDump:
    case bus::kReplyBwTime:
    case bus::kReplyVersion:
    case bus::kReplyPing:
      return min_bus_reply_size(id);
    case bus::kReplyChanges:
    case bus::kReplyFromStart:
      return bus::kReplyOverhead + eeprom::kRingSize;
    case bus::kReplyBoardDump50B:
    case bus::kReplyStartWritten:
      return bus::kReplyOverhead + 64;
    default:
      return is_message_start(id) ? kMaxUnknownReplySize : 0;
  }
}

std::vector<std::uint8_t> encode_bus_reply(std::uint8_t id, std::uint16_t address,
                                           std::span<const std::uint8_t> data) {
  const std::size_t size = data.size() + bus::kReplyOverhead;
  std::vector<std::uint8_t> out;
  out.reserve(size);
  out.push_back(id);
  out.push_back(static_cast<std::uint8_t>((size >> 7) & kSevenBits));
  out.push_back(static_cast<std::uint8_t>(size & kSevenBits));
  out.push_back(static_cast<std::uint8_t>((address >> 7) & kSevenBits));
  out.push_back(static_cast<std::uint8_t>(address & kSevenBits));
  for (const std::uint8_t b : data) out.push_back(b);
  out.push_back(bus_checksum(out));
  return out;
}

void BusDecoder::reset() noexcept { framer_.reset(); }

void BusDecoder::feed(std::span<const std::uint8_t> bytes, std::vector<BusFrame>& out) {
  framer_.feed(
      bytes, stats_,
      [](std::uint8_t id) {
        return std::pair{min_bus_reply_size(id), max_bus_reply_size(id)};
      },
      [&](std::span<const std::uint8_t> frame) {
        const std::uint8_t id = frame[0];
        const std::uint16_t address = address_of(frame[3], frame[4]);
        const auto body = frame.first(frame.size() - 1);
        if (bus_checksum(body) == frame.back()) {
          ++stats_.replies;
          out.emplace_back(
              BusReply{.id = id,
                       .address = address,
                       .data = std::vector<std::uint8_t>(body.begin() + kAddressEnd, body.end())});
        } else {
          ++stats_.bad_checksums;
          out.emplace_back(BusBadChecksum{.id = id, .address = address});
        }
      });
}

std::vector<BusFrame> BusDecoder::feed(std::span<const std::uint8_t> bytes) {
  std::vector<BusFrame> out;
  feed(bytes, out);
  return out;
}

}  // namespace eboard::drivers::dgt
