// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Move notation: SAN (FIDE Annex C, English or French piece letters) and UCI, out and in.
// Writing is strict and canonical; reading SAN is tolerant of what people and programs really write.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "rules/position.hpp"

namespace eboard::rules {

// Piece letters: English K Q R B N (P for pawn drops), French R D T F C (Roi Dame Tour Fou Cavalier, P for
// Pion).
enum class Language : std::uint8_t { English, French };

struct SanOptions {
  Language language = Language::English;
  // Write '#' for a check with no legal reply. Off: every check is '+' (the caller decides mate itself).
  bool mate_suffix = true;
  // Decides mate in the position after a checking move, instead of "no legal reply". Bughouse uses this:
  // there a check that a partner's piece could block is not mate (FQE 9a), which one board cannot know.
  std::function<bool(const Position& after)> is_mate;
};

// UCI long algebraic: `e2e4`, promotions `e7e8q`, drops `N@f3` (pawn `P@f3`). Castling is king-from →
// king-destination (`e1g1`) in standard positions and king-from → rook-square (`e1h1`) in Chess960 ones.
// The null move is `0000`.
std::string to_uci(const Position& pos, Move m);
// Accepts both castling styles and either case of the promotion and drop letters; the move must be legal.
tl::expected<Move, std::string> parse_uci(const Position& pos, std::string_view text);

// Typed move text as an error message quotes it: one line (a control character as `?`), its first 32
// characters and `...` after them.
std::string shown_text(std::string_view text);

// SAN of a legal move of `pos`: `Nbd7`, `exd5`, `e8=Q+`, `O-O-O`, `N@f3`, `P@e4`, `Qh4#`; the null move `--`.
std::string to_san(const Position& pos, Move m, const SanOptions& options = {});
// An illegal move that stood (FIDE A.4.2), which SAN cannot name (SAN names legal moves, and `Re3` could
// be read as a legal move of another rook): long algebraic notation (Annex C.13) of the piece's way in
// `before`, `Re1-e3`, `Bc1xf7`, `e2-e5`, with `+` when it leaves the opponent in check.
std::string to_long_algebraic(const Position& before, Move m, Language language = Language::English);

// Reads SAN as found in real files: ignores `+ # ! ?` and `e.p.`, takes `0-0`, `e8Q`, `e8(Q)`, `e8/Q`,
// `exd5` or `ed5`, a missing or extra `x`, over-disambiguation (`Ng1f3`, `Ng1-f3`), drops with or without
// the pawn letter (`@f3`), a lowercase piece letter when no pawn move fits (`bxc3` is a pawn capture when
// one exists, else a bishop move), and king-takes-rook castling (`Kxh1`) as in Chess960 input.
// The error is one line: "illegal SAN 'Nf6': …" or "ambiguous SAN 'Nd2': Nb1d2, Nf3d2".
tl::expected<Move, std::string> parse_san(const Position& pos, std::string_view text,
                                          Language language = Language::English);

// The letter for a piece type in a language (pawn: 'P').
char piece_letter(PieceType t, Language language = Language::English);
// The piece's English name in lower case ("pawn" ... "king"; "" for no piece), as alerts and answers word it.
const char* piece_name(PieceType t);

}  // namespace eboard::rules
