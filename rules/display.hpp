// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Short texts for a clock's display: the DGT 3000 shows eight characters, which is where a bughouse
// player's reserve is shown when the opponent asks to see it (FQE 18).
#pragma once

#include <cstddef>
#include <string>

#include "rules/position.hpp"

namespace eboard::rules {

// The reserve of `c` in at most `width` characters, strongest piece first, a count after a letter only when
// above one: "Q R2 P3", "QR2B2NP3" when spaces do not fit, "EMPTY" for none. Letters are English (the
// PGN letters), upper case for both colours: the display has no case to spare. When even that does not fit
// (every kind twice or more), the kinds held and the number of pieces: "QRBNP14".
std::string reserve_display(const Position& pos, Color c, std::size_t width = 8);

}  // namespace eboard::rules
