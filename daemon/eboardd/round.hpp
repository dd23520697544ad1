// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The event's current round: its name (the PGN Round tag) and when the operator started it. /games.pgn
// holds every game of the round, finished ones included, until the next round starts; the finished round's
// PGN is then archived as state_dir/rounds/<name>.pgn. The round is kept in state_dir/round.json, so a
// restart goes on with it; the finished games come back from the per-game files in state_dir/games.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace eboard::eboardd {

struct Round {
  std::string name;             // empty: none named (the Round tag stays the config's or "?")
  std::int64_t started_ms = 0;  // Unix ms
};

// A round name becomes a file name: 1 to 32 letters, digits, '.', '_', '-', not starting with '.'.
bool valid_round_name(std::string_view name);

// state_dir/round.json; nullopt when there is none yet. Fails on a file that cannot be read.
tl::expected<std::optional<Round>, std::string> load_round(const std::filesystem::path& state_dir);
tl::expected<void, std::string> save_round(const std::filesystem::path& state_dir, const Round& r);

// Writes `pgn` as state_dir/rounds/<name>.pgn (atomically); a name already archived gets "-2", "-3" …;
// an unnamed round is "round-<yyyymmddThhmmssZ of its start>". Returns the path written.
tl::expected<std::filesystem::path, std::string> archive_round(const std::filesystem::path& state_dir,
                                                               const Round& r, std::string_view pgn);

// The PGN files of `board_id`'s earlier games (number below `current_number`) that began at or after
// `since_ms`, in game order: the round's finished games. Files named as outputs::game_file_name names them.
std::vector<std::filesystem::path> round_game_files(const std::filesystem::path& games_dir,
                                                    std::string_view board_id, std::int64_t since_ms,
                                                    int current_number);

}  // namespace eboard::eboardd
