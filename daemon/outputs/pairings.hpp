// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Pairings files: who plays whom, with which colour, on which board of a round, so that every board's PGN
// names its players. Two formats: a CSV written by hand or a spreadsheet (`board,white,black,white_elo,
// black_elo`), and FIDE's Tournament Report File TRF-16 as Swiss-Manager and other pairing programs export
// it. A file that cannot be read is refused whole, with an error naming the line. Every function takes the
// file's bytes and its encoding ("auto", or a name as decode_text takes it): what comes out is UTF-8.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "rules/pgn.hpp"

namespace eboard::outputs {

struct PlayerEntry {
  std::string name;
  std::string elo;      // digits, or empty
  std::string title;    // GM, IM … (TRF only)
  std::string fide_id;  // digits (TRF only)
  int rank = 0;         // the starting rank (TRF only)
};

struct Pairing {
  int board = 0;  // 1-based
  PlayerEntry white, black;
  int line = 0;  // where the pairing is in the file (TRF: White's 001 line)
};

// Files larger than this are refused (a pairings file of 9999 players is well below). The parsers take
// the file's UTF-8 form too (what `eboardctl pairings` sends the daemon), which a single-byte encoding
// makes up to three times as large.
inline constexpr std::size_t MAX_PAIRINGS_BYTES = 4u << 20;
inline constexpr std::size_t MAX_PAIRINGS_TEXT_BYTES = 3 * MAX_PAIRINGS_BYTES;

// CSV with a header line naming the columns `board`, `white`, `black` and optionally `white_elo`,
// `black_elo` (any order, case ignored). Fields may be quoted ("Carlsen, Magnus"; "" is a quote).
// The delimiter is the header's: ',' or, in a header without one, ';' or a tab (a spreadsheet's export).
tl::expected<std::vector<Pairing>, std::string> parse_pairings_csv(std::string_view bytes,
                                                                   std::string_view encoding = "auto");

// TRF-16: the 001 player lines (starting rank in columns 5–8, title 11–13, name 15–47, rating 49–52, FIDE
// number 58–68; columns are characters, whatever bytes the encoding gives them) and, for round `round`, the
// round's columns (opponent's starting rank, colour w/b, result; round r starts at column 92 + 10·(r−1)). The
// file has no board numbers: the pairs are numbered as FIDE orders them for the board list (C.04.2): by the
// score before the round of the pair's higher player, then the sum of both scores, then the higher player's
// starting rank. A pairing program may number the boards otherwise; the CSV gives them explicitly. Byes and
// unpaired players get no board.
tl::expected<std::vector<Pairing>, std::string> parse_trf(std::string_view bytes, int round,
                                                          std::string_view encoding = "auto");

// Picks the format: TRF when a line starts with "001" or "012", else CSV.
tl::expected<std::vector<Pairing>, std::string> parse_pairings(std::string_view bytes, int round,
                                                               std::string_view encoding = "auto");

// Whether the text is a TRF file (a line starts with "001" or "012").
bool is_trf(std::string_view text);

// White, Black, and WhiteElo, BlackElo, WhiteTitle, BlackTitle, WhiteFideId, BlackFideId: an empty value
// for what the file does not give (it removes what an earlier pairing set).
rules::PgnTags pairing_tags(const Pairing& p);

// Points (in halves) a round's result gives, as TRF-16 codes them (1, +, W, F: 2; =, D, H: 1; else 0).
int half_points(char result);

}  // namespace eboard::outputs
