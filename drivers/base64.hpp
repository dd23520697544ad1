// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace eboard::drivers {

// Standard base64 (RFC 4648 alphabet, '=' padding optional). Whitespace is not allowed inside.
[[nodiscard]] tl::expected<std::vector<std::uint8_t>, std::string> decode_base64(std::string_view text);

}  // namespace eboard::drivers
