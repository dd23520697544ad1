// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Start positions the simulator plays from besides the standard one.
#pragma once

#include <string>

namespace eboard::sim {

// The FEN of Chess960 start position `index` (0–959) in the usual numbering (518 is the standard
// position): bishops on opposite colours, the queen, the knights, then rook, king, rook in the squares
// left. Castling is written KQkq, which is unambiguous here (each side's rook is the outermost one).
// Parse it with chess960 = true. Indexes outside 0–959 are taken modulo 960.
std::string chess960_start_fen(int index);

}  // namespace eboard::sim
