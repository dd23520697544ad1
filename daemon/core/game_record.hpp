// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A reconstructed game as a PGN record.
#pragma once

#include <string>

#include "rules/game.hpp"
#include "rules/pgn.hpp"

namespace eboard::daemon {

// The game as a PGN record: moves with their clock times, result and termination.
rules::GameRecord game_record(const rules::Game& game, const std::string& board_id);

}  // namespace eboard::daemon
