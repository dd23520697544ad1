// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Every result an arbiter gives (POST /control/<board>/result): a decision (1-0, 0-1, 1/2-1/2), a
// forfeit (+/-, -/+, -/-), a flag the arbiter saw, each with its FIDE article and the arbiter's words, on
// the board's current game or on any earlier game, of this round or an archived one (`game`: its number); on
// a game over already it is a correction. The vocabulary and how a record carries it:
// outputs/arbiter_result.hpp.
//
//  - The current game, not over: ended through reconstruction (a journaled `result` control, replayed on
//    recovery), its §3 `result` event published with reason forfeit, arbiter or flag; the Arbiter* tags
//    go to the game's tags (journaled).
//  - The current game, over: the same control corrects its result (a new `result` event); the record as it
//    was is kept first (below).
//  - An earlier game of the round: its file in state_dir/games is rewritten (apply_verdict), the record
//    as it was kept first, and signed again; a `result` event with "game", "corrected", "previous" is
//    published on /ws (not journaled: the board's journal is the current game's).
//  - A game of an archived round (state_dir/rounds/<round>.pgn): as an earlier game (or as the current
//    one, over and not set up again), and the round's archive is rewritten too, kept first: the record's
//    text as written is replaced there by the new one. An archive that does not hold it once: 409.
//  - A board of a bughouse match: the result is the match's (rules::Match::arbiter_result, through the
//    same journaled control): it decides the match, or corrects its result; the match's BPGN archive is
//    kept first as the board's record is, written again with the board's Arbiter* tags (ArbiterBoard,
//    the result as team 1 sees it) and signed again. An earlier game of the board: that match's archive
//    is rewritten with the board's record (apply_verdict with the team's code).
//  - A double forfeit (-/-) has no PGN or §3 result: only on an earlier game (the board set up for the next
//    game), PGN Result "*" with ArbiterResult "-/-", no event.
// Keeping: `<file>.v<k>` (and `<file>.v<k>.sig` when it was signed), k = 1, 2 … beside the file, so
// `eboardctl verify <file>.v<k>` checks the earlier version as it was signed. Re-signing: the new text
// with the journals the earlier signature sealed (none: the game's kept journal, else the board's current
// one). Every entry is appended to state_dir/arbiter.log (JSON lines, synced): who (the token holder's
// client address, and the name the arbiter gave), when, why, what was there before, where it is kept.
// The files are read, kept, written and signed, and the log synced, on the loop, before the answer: a 200
// means the record is on disk and the `result` event published.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/eboardd/round.hpp"
#include "daemon/http/server.hpp"

namespace eboard::outputs {
class AsyncFileWriter;
}

namespace eboard::eboardd {

class MatchRuntime;

struct ArbiterContext {
  std::filesystem::path state_dir;
  const Round& round;
  outputs::AsyncFileWriter* files = nullptr;  // the daemon's background writer (its pending writes first)
  std::string client;                         // the client's address
  std::string match;                          // the bughouse match the board plays in, empty if none
  MatchRuntime* match_runtime = nullptr;      // that match (its BPGN), null if none
  std::function<void()> done;                 // called on the loop once a change is made, before its answer
};

// POST /control/<board>/moves {"game", "from_ply", "moves", "reason", optional "arbiter"}: the moves of an
// earlier game of the round corrected in its record (outputs::replace_moves), kept, signed again and logged
// as above; no event (§3 has none for it). Refused on the current game (its moves are the board's). On a
// bughouse match board, `game` is the board's game of an earlier match (the running match's: refused): the
// whole match is replayed from its BPGN with the board's plies replaced (outputs::replace_match_moves); a
// ply of either board that no longer stands (a drop whose piece a corrected capture took away) is a 409
// naming it (board, ply, move, why) and nothing is written; else the board's record, the BPGN and the
// partner's record if its text changes are kept, rewritten, signed again and logged. A "moves" body with
// none of game, from_ply, reason is not this: moves typed on a board without wood.
// Answers POST /control/<board>/result: {"result", "reason", optional "kind" (decision, forfeit, flag),
// "rule", "game" (the board's game number; default the current game), "arbiter" (a name for the record)}.
// Nothing for any other action than these two.
std::optional<http::Response> arbiter_action(BoardRuntime& b, const std::string& action,
                                             const nlohmann::json& body, const ArbiterContext& ctx);

}  // namespace eboard::eboardd
