// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A round's results handed back to the pairing program that paired it: every board's result (as the game
// ended on the board, or as the arbiter decided it: resignation, agreement) in the two forms pairing
// programs read, FIDE's TRF-16 (Swiss-Manager, Vega, JaVaFo) and a CSV. Read from the round's PGN, so a
// round archived (state_dir/rounds) exports as well as the current one.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/outputs/pairings.hpp"

namespace eboard::outputs {

struct GameResult {
  int board = 0;         // the pairings' board number
  std::string board_id;  // the PGN's Board tag
  PlayerEntry white, black;
  std::string result;       // "1-0", "0-1", "1/2-1/2", or "*" (not over, or a double forfeit)
  std::string termination;  // the PGN's Termination: checkmate, resignation, agreement, forfeit …
  // The arbiter's result when the record has one (its ArbiterResult tag, arbiter_result.hpp): +/-, -/+
  // and -/- are forfeits, TRF-16 + and -; empty: the game's result stands.
  std::string arbiter = {};
  // The result as a pairing program takes it: the arbiter's code, else the PGN result.
  const std::string& code() const { return arbiter.empty() ? result : arbiter; }
};

// One result per board of the round's PGN: the board's last game with a result, else its last game.
// `board_number` gives a board id's number in the pairings (0: none; the game is left out). Ordered by
// board number.
tl::expected<std::vector<GameResult>, std::string> round_results(
    std::string_view pgn, const std::function<int(std::string_view)>& board_number);

// board,white,black,white_elo,black_elo,result,termination (RFC 4180 quoting; UTF-8); the result of a
// forfeit is +/-, -/+ or -/-. It reads back as a
// pairings file.
std::string results_csv(const std::vector<GameResult>& results);

// TRF-16 with round `round`'s columns filled (opponent's starting rank, colour w/b, result 1 = 0 from the
// player's side, + - for a forfeit (- for both players of a double forfeit), blank for a game not over) and
// the points (columns 81-84) summed over the rounds up to it. `source`: the round's TRF pairings file
// (UTF-8), whose lines are kept and whose starting ranks are the players'; its pairs are matched to results
// by board number as parse_trf numbers them. Empty `source`: a 012 line (`event`) and 001 lines numbered in
// board order (board n: White 2n−1, Black 2n). Columns are characters (encode the text after for a
// single-byte encoding).
tl::expected<std::string, std::string> results_trf(const std::vector<GameResult>& results, int round,
                                                   std::string_view source, std::string_view event);

}  // namespace eboard::outputs
