// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The event's current round: its name (the PGN Round tag) and when the operator started it. /games.pgn
// holds every game of the round, finished ones included, until the next round starts; the finished round's
// PGN is then archived as state_dir/rounds/<name>.pgn. The round is kept in state_dir/round.json, so a
// restart goes on with it; the finished games come back from the per-game files in state_dir/games.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "rules/pgn.hpp"

namespace eboard::outputs {
class AsyncFileWriter;
}

namespace eboard::eboardd {

struct Round {
  std::string name;             // empty: none named (the Round tag stays the config's or "?")
  std::int64_t started_ms = 0;  // Unix ms
  // Each board's first game of the round (its game number), set when the round starts. A board missing
  // here (added since, or a round.json of an older eboardd) falls back on the second its games began.
  std::map<std::string, int, std::less<>> first_game;
  // The players (PGN tags) the round's pairings file gave each board: a board takes them at its first
  // game of the round, never earlier (a finished game of the round before keeps its players).
  std::map<std::string, rules::PgnTags, std::less<>> players = {};
  // The round before (empty: none named): the Round tag of a board's game that ended in it (a board not
  // set up since), whose file may be written again (a restart) and must not take this round's name.
  std::string previous = {};
};

// Pairings loaded for a round not begun yet: state_dir/pairings/<round>.json, taken by the round's start.
tl::expected<void, std::string> save_waiting_players(
    const std::filesystem::path& state_dir, const std::string& round,
    const std::map<std::string, rules::PgnTags, std::less<>>& p);
// The pairings waiting for `round` (empty if none); the file stays until
// remove_waiting_players.
tl::expected<std::map<std::string, rules::PgnTags, std::less<>>, std::string> load_waiting_players(
    const std::filesystem::path& state_dir, const std::string& round);
void remove_waiting_players(const std::filesystem::path& state_dir, const std::string& round);
// Whether state_dir/rounds holds the archive of round `name` (a round that was played).
bool round_archived(const std::filesystem::path& state_dir, const std::string& name);

// A round name becomes a file name: 1 to 32 letters, digits, '.', '_', '-', not starting with '.'.
bool valid_round_name(std::string_view name);

// state_dir/round.json; nullopt when there is none yet. Fails on a file that cannot be read.
tl::expected<std::optional<Round>, std::string> load_round(const std::filesystem::path& state_dir);
tl::expected<void, std::string> save_round(const std::filesystem::path& state_dir, const Round& r);

// Writes `pgn` as state_dir/rounds/<name>.pgn (atomically); a name already archived gets "-2", "-3" …;
// an unnamed round is "round-<yyyymmddThhmmssZ of its start>". Returns the path written.
tl::expected<std::filesystem::path, std::string> archive_round(const std::filesystem::path& state_dir,
                                                               const Round& r, std::string_view pgn);

// Whether game `number` of `board_id`, begun at `started_ms`, belongs to round `r`.
bool in_round(const Round& r, std::string_view board_id, int number, std::int64_t started_ms);

// The finished games of state_dir/games, as the PGN feeds show them, read once: the folder is listed again
// only when it changed, and a file is read and checked again only when its time or size did. Files are
// named as outputs::game_file_name names them ("<board>-<yyyymmddThhmmssZ>-<n>.pgn").
// With the writer that writes those files, a file's content submitted but not yet on disk counts as
// written: a game ended (by a control action, a new game set up) is in the feeds as soon as the action has
// been answered, not when its background write lands.
class FinishedGames {
 public:
  explicit FinishedGames(std::filesystem::path games_dir, const outputs::AsyncFileWriter* files = nullptr)
      : dir_(std::move(games_dir)), files_(files) {}

  struct Game {
    std::string text;             // the game's PGN, ending in a blank line
    std::int64_t written_ms = 0;  // when its file was last written (Unix ms): the delay hides it until then
  };
  // The board's earlier games of round `r` (numbers below `current_number`) that hold a move or a result,
  // in game order. The pointers stay valid until the next call.
  std::vector<const Game*> of_round(const Round& r, std::string_view board_id, int current_number);

  // Records by number, whatever their round, as their files hold them byte for byte (what their .sig
  // signs), a file not yet on disk as it will be: game `number` of `board_id`, and match `name`'s BPGN
  // (state_dir/games/match-<name>-<number>.bpgn). Nothing: no such file, or it cannot be read.
  std::optional<Game> board_record(std::string_view board_id, int number);
  std::optional<Game> match_record(std::string_view name, int number) const;
  // The numbers that have a file, in order.
  std::vector<int> board_numbers(std::string_view board_id);
  std::vector<int> match_numbers(std::string_view name) const;

 private:
  struct File {
    std::filesystem::path path;
    std::int64_t started_ms = 0;
    std::filesystem::file_time_type time{};
    std::uintmax_t size = 0;
    bool read = false;
    std::optional<Game> game;  // nullopt: unreadable, or no game worth a broadcast
  };
  void relist();
  const std::optional<Game>& game_of(File& f);
  std::optional<Game> record_at(const std::filesystem::path& path) const;
  // The board's files by number: those on disk, and those the writer has yet to put there.
  std::map<int, File>* files_of(std::string_view board_id);

  std::filesystem::path dir_;
  const outputs::AsyncFileWriter* files_ = nullptr;
  std::deque<std::optional<Game>> unwritten_;  // game_of()'s answers for files not yet on disk, this call
  std::optional<std::filesystem::file_time_type> listed_;
  std::map<std::string, std::map<int, File>, std::less<>> boards_;  // board id → game number → file
};

}  // namespace eboard::eboardd
