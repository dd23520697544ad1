// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What reconstruction and the game rules tell arbiters and broadcasters (CONTRACTS §3), as values.
// The daemon turns them into JSON lines; nothing here knows about JSON or I/O.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "rules/game.hpp"

namespace eboard::rules {

// A move completed by the clock press (or by ending the game).
struct MoveEvent {
  int ply = 0;
  std::string uci;
  std::string san;
  ClockTimes clock;  // after the move, when known
  // FIDE A.4.2: an illegal move that stood, the opponent having played on without claiming. `uci` is the
  // piece's way (`e1e3`), `san` long algebraic (`Re1-e3`); the game goes on from the position it left.
  bool illegal = false;
  // Found after a gap (a cable out, the daemon down), not seen being made: the only sequence of legal moves
  // to what the board showed. `clock` only where a reading belongs to it (the last ply of the gap).
  bool recovered = false;
};

// A move that the board shows but that is not completed yet (no clock press): it may still change.
struct ProvisionalMoveEvent {
  int ply = 0;
  std::string uci;
  std::string san;
};

// An irregularity for the arbiter. `extra` holds further fields (e.g. reason, count, penalty, candidates):
// JSON text (a number, a list) with is_number set, or a plain string.
struct AlertEvent {
  std::string code;  // CONTRACTS §3: illegal-move, touch-move, clock-without-move …
  int ply = 0;
  Color side = WHITE;
  std::string detail;  // a sentence for the arbiter
  struct Field {
    std::string name;
    std::string value;
    bool is_number = false;
  };
  std::vector<Field> extra;
};

struct ClaimableEvent {
  std::string rule;  // threefold, fifty-moves, fourfold-no-drops
  int ply = 0;
};

struct ResultEvent {
  Result result = Result::Ongoing;
  std::string reason;
};

struct MatchResultEvent {
  Result result = Result::Ongoing;  // from the point of view of team White A + Black B
  std::string reason;
};

// FQE 23: a team stopped both clocks of a bughouse match to call the arbiter (`paused`), or a clock runs
// again (not `paused`). Nothing is lost while paused: no flag falls. Type match-paused / match-resumed.
struct MatchPauseEvent {
  bool paused = true;
  std::string reason;  // both-clocks-stopped, clock-running
};

struct Event {
  std::int64_t t_ms = 0;
  std::string board;
  std::variant<MoveEvent, ProvisionalMoveEvent, AlertEvent, ClaimableEvent, ResultEvent, MatchResultEvent,
               MatchPauseEvent>
      what;
};

// The `type` field of an event: move, provisional-move, alert, claimable, result, match-result,
// match-paused, match-resumed.
const char* event_type(const Event& e);

}  // namespace eboard::rules
