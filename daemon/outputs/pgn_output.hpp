// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Game records for broadcasters and archives: one board's current game as PGN (with [%clk] times and the
// tags an arbiter set), every board's game as one multi-game PGN (GET /games.pgn), and the file names of
// the per-game PGN files kept in the state directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rules/game.hpp"
#include "rules/pgn.hpp"

namespace eboard::outputs {

struct BoardGame {
  std::string board_id;
  const rules::Game* game = nullptr;
  rules::PgnTags tags;          // set by the arbiter (control API), override the defaults
  std::int64_t started_ms = 0;  // Unix ms: gives the Date tag unless one is set
  int number = 0;               // the board's game number (1 = its first game)
  // Below `tags`: the event's defaults (config [event]) and the current round.
  rules::PgnTags defaults;
  // A bughouse board: its match ("A-B", as in /matches/A-B.bpgn) and the partner board's id.
  std::string match;
  std::string partner;
};

// The record of one board's game: Seven Tag Roster (Event "eboardd", Date of the start, Result), Board,
// Termination when over, the defaults, then the tags set for the game. A bughouse board adds Match and
// PartnerBoard, and at its first drop of a piece the partner sent (which this board alone cannot replay) a
// comment naming the match's BPGN.
rules::GameRecord game_record(const BoardGame& g);
// PGN of one game (ends with a blank line). Should the writer refuse the record, the moves are still
// all there, as long algebraic text in a comment that says why they are not movetext.
std::string game_pgn(const BoardGame& g);
// The same for a record made already (game_record's, or one to test the fallback with).
std::string record_pgn(const BoardGame& g, const rules::GameRecord& record);
// Every board's game, one after another.
std::string games_pgn(const std::vector<BoardGame>& games);

// "<board>-<yyyymmdd>T<hhmmss>Z-<n>.pgn": unique per board and game, sorted by time.
std::string game_file_name(const BoardGame& g);

// "yyyy.mm.dd" (UTC) of a Unix time in milliseconds.
std::string pgn_date(std::int64_t unix_ms);

// Sets tag `name` to `value`, in its place if the record has it, else last.
void set_pgn_tag(rules::PgnTags& tags, const std::string& name, const std::string& value);

}  // namespace eboard::outputs
