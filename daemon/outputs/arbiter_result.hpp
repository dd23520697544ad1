// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The results an arbiter gives, and how a game record carries them. Pure: no files, no clock.
//
// Vocabulary (the `result` an arbiter enters):
//   1-0, 0-1, 1/2-1/2   a decision (kind "decision", §3 reason "arbiter"; default rule: FIDE Laws 12.2),
//                       or a flag the arbiter saw (kind "flag", §3 reason "flag"; rule 6.9)
//   +/-, -/+            a forfeit (kind "forfeit", §3 reason "forfeit"; rule 6.7.1): PGN Result 1-0 / 0-1
//   -/-                 a double forfeit: PGN has no result for it, so the PGN Result is "*" and the tag
//                       ArbiterResult "-/-" says it; no §3 `result` event (its result is one of three)
// Every arbiter result writes these tags (PGN allows any tag; readers ignore those they do not know):
//   Termination "forfeit" | "arbiter" | "flag", ArbiterResult (the code as entered), ArbiterRule (the FIDE
//   article), ArbiterReason (the arbiter's text), ArbiterTime (UTC), ArbiterBy (who entered it), and for a
//   correction ArbiterPrevious (the result the record held before, with its Termination). A bughouse
//   match's BPGN also has ArbiterBoard (the board the result was given on), and its ArbiterResult and
//   ArbiterPrevious are team 1's, as its Result is.
// TRF-16 (FIDE's Tournament Report File) codes from a player's side: 1 0 = for played games, + - for
// forfeits (a double forfeit is - for both).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

#include "rules/pgn.hpp"
#include "rules/position.hpp"

namespace eboard::outputs {

struct ArbiterVerdict {
  std::string code;    // as entered: 1-0, 0-1, 1/2-1/2, +/-, -/+, -/-
  std::string kind;    // decision, forfeit, flag
  std::string rule;    // the FIDE article, e.g. "6.7.1"
  std::string reason;  // the arbiter's words
  std::string by;      // who entered it (the token holder and client address)
  std::int64_t at_ms = 0;
  std::string board;  // in a bughouse match's BPGN: the board it was given on (tag ArbiterBoard); else empty
};

// Checks an arbiter's entry. `code`: one of the vocabulary; `kind`: empty (decided by the code:
// forfeit codes are forfeits, the others decisions), "decision", "forfeit" or "flag" (a flag needs 1-0,
// 0-1 or 1/2-1/2: the side whose flag fell loses, or a draw when the other cannot mate, 6.9); `rule`:
// empty (the kind's default) or up to 32 characters; `reason`: 1 to 200 characters, no control
// characters. The error is a sentence for a 400 answer.
tl::expected<ArbiterVerdict, std::string> make_verdict(std::string_view code, std::string_view kind,
                                                       std::string_view rule, std::string_view reason);

// The PGN Result of a code: 1-0, 0-1, 1/2-1/2, or "*" for -/-.
std::string pgn_result(std::string_view code);
// The §3 reason of a kind: forfeit, arbiter, flag.
std::string event_reason(std::string_view kind);
// TRF-16 result codes (White's, Black's) of an arbiter code, or of a PGN result when `code` is one.
// Nothing for anything else ("*").
std::optional<std::pair<char, char>> trf_codes(std::string_view code);
// A bughouse match board's code as team 1 (White on board A, Black on board B: the BPGN's Result) sees it:
// `board` 0 (A) keeps it, 1 (B) swaps the sides (1-0 and 0-1, +/- and -/+).
std::string team1_code(int board, std::string_view code);
// Whether `code` is one of the vocabulary.
bool valid_arbiter_code(std::string_view code);

// One game's PGN (one game, as eboardd writes it: tags, a blank line, movetext ending in the result) with
// the verdict applied: the Result tag and the movetext's result token replaced, the tags above set
// (ArbiterPrevious from the text's own Result and Termination when `correction`). Everything else is kept
// byte for byte. Fails on a text that is not one such game.
tl::expected<std::string, std::string> apply_verdict(std::string_view pgn, const ArbiterVerdict& v,
                                                     bool correction);

// A bughouse partner board's record (its game stopped by the match's end: Termination "partner-board") given
// the match's corrected result as that board sees it, `result` (1-0, 0-1 or 1/2-1/2): the Result tag and the
// movetext's result replaced, Termination kept "partner-board", ArbiterPrevious the result it had, and
// ArbiterBoard (v.board: the board the arbiter's result was given on), ArbiterReason, ArbiterBy and
// ArbiterTime from `v`; no ArbiterResult or ArbiterRule (the arbiter gave no result on this board). Fails
// on a text that is not one such game.
tl::expected<std::string, std::string> apply_partner_result(std::string_view pgn, std::string_view result,
                                                            const ArbiterVerdict& v);

// A correction of the moves of a finished game's record (one game, as eboardd writes it): its moves from
// ply `from_ply` (1 = White's first) replaced by `moves` (SAN or UCI separated by spaces; move numbers are
// skipped; empty: the record ends before that ply), each checked against the rules; the moves before keep
// their clocks, the tags and the result stay. The tags MovesCorrected ("from ply P; was: <the SAN moves
// replaced>", cut to 200 characters), ArbiterReason, ArbiterBy and ArbiterTime are set from `v` (its code
// and kind are not used). The error says which move is not legal.
tl::expected<std::string, std::string> replace_moves(std::string_view pgn, int from_ply,
                                                     std::string_view moves, const ArbiterVerdict& v);

// An arbiter's typed moves, one token each, move numbers ("12.", "12...", "7A.") left out.
std::vector<std::string> typed_move_tokens(std::string_view moves);
// One typed move in `pos`: SAN, else UCI (a check or mate sign after it is allowed); the error is SAN's.
tl::expected<rules::Move, std::string> parse_typed_move(const rules::Position& pos, std::string_view token);
// The tags a correction of moves sets: MovesCorrected (`corrected`), ArbiterReason, ArbiterBy, ArbiterTime.
void set_correction_tags(rules::PgnTags& tags, const std::string& corrected, const ArbiterVerdict& v);

// The value of tag `name` in a PGN's tag section, if present.
std::optional<std::string> pgn_tag(std::string_view pgn, std::string_view name);

}  // namespace eboard::outputs
