// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as zlib and PNG use it): the checksum of every
// journal record, so a record torn by a power cut or damaged on disk is recognised and not replayed.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace eboard::journal {

// `crc` continues an earlier computation (pass the previous result); 0 starts a new one.
std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0);
inline std::uint32_t crc32(std::string_view text, std::uint32_t crc = 0) {
  return crc32(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), crc);
}

}  // namespace eboard::journal
