// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#pragma once

#include <cstdint>

namespace eboard::drivers::dgt {

// The two halves of a DGT clock as the protocol names them. Which colour sits where is for the caller
// to work out (from the lever and from which time is falling); the driver never guesses colours.
enum class ClockSide : std::uint8_t { Left, Right };

}  // namespace eboard::drivers::dgt
