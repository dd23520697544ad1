// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// One board's game: the start position, every move played with its clock times, and what the rules
// say about the end (automatic results and claimable draws). Every earlier position can be rebuilt,
// so an arbiter can reinstate the position before an illegal move (FIDE 7.5.1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/position.hpp"

namespace eboard::rules {

// Remaining time on each side's clock in milliseconds; -1 when unknown.
struct ClockTimes {
  std::int64_t white_ms = -1;
  std::int64_t black_ms = -1;
  bool known() const { return white_ms >= 0 && black_ms >= 0; }
  bool operator==(const ClockTimes&) const = default;
};

enum class Result { Ongoing, WhiteWins, BlackWins, Draw };
std::string result_string(Result r);  // "1-0", "0-1", "1/2-1/2", "*"

struct Outcome {
  Result result = Result::Ongoing;
  std::string reason;  // CONTRACTS §3: checkmate, stalemate, dead-position, fivefold, seventy-five-moves …
};

struct PlyRecord {
  Move move;
  ClockTimes clock;          // after the move, when known
  std::int64_t time_ms = 0;  // when the move was completed
  Key key = 0;               // of the position after the move
  Key board_key = 0;         // the same without pockets
  bool drop = false;
  // FIDE A.4.2: an illegal move that stood (the opponent played on without claiming). `move` is the piece's
  // way as the board showed it (from → to, a plain move no rule allows); the position after it is kept by
  // the Game, not computed from the move.
  bool illegal = false;
  // After a gap in what the board told (a cable out, the daemon down): the move was not seen being made but
  // found by the gap search, the only sequence of legal moves to what the board showed (`recovered`), or one
  // of several such sequences, kept so that the game can go on but never presented as fact (`missed`).
  bool recovered = false;
  bool missed = false;
  // The game was taken up from the position the board showed, the moves that led there unknown (adopted
  // after a position nothing explains). Like an illegal move that stood, its position is kept by the Game.
  bool jump = false;
};

class Game {
 public:
  explicit Game(Position start);

  // Which game this is: every constructed Game has its own, its copies (and every change of its record,
  // shorter or longer) keep it. A new game is a new Game; the number means nothing else (not stable across
  // runs, never written).
  std::uint64_t identity() const { return identity_; }
  const Position& start() const { return start_; }
  const Position& position() const { return current_; }
  const std::vector<PlyRecord>& plies() const { return plies_; }
  int ply_count() const { return int(plies_.size()); }
  // The clock times at the start of the game (before any move), when known.
  ClockTimes start_clock() const { return start_clock_; }
  void set_start_clock(ClockTimes c) { start_clock_ = c; }

  // Plays a move the caller knows to be legal.
  const PlyRecord& play(Move m, ClockTimes clock = {}, std::int64_t time_ms = 0);
  // Records an illegal move that stood (FIDE A.4.2) as a ply: `shown` is the piece's way, `after` the
  // position it left (Position::after_illegal_move). Every earlier position stays as it was (7.5.1).
  const PlyRecord& play_illegal(Move shown, Position after, ClockTimes clock = {}, std::int64_t time_ms = 0);
  // The number of plies up to the last illegal move that stood (0: none). From the position after it on,
  // every move is legal: a record written as moves (PGN) can only start there.
  int legal_since() const;
  // Takes the game up from `after` (the position the board shows): one ply, or two when `after` has the
  // same side on move as now, so that ply numbers keep telling who moved. Every earlier position stays.
  void adopt(Position after, std::int64_t time_ms = 0);
  // One ply of such a jump (what adopt records, for a game rebuilt ply by ply).
  void play_jump(Position after, std::int64_t time_ms = 0);
  // The number of plies up to the last one a record written as moves cannot show as fact: an illegal move
  // that stood, or a move of a gap several sequences explain (missed). 0: none.
  int record_since() const;
  // Marks the last ply as found after a gap (see PlyRecord).
  void mark_last(bool recovered, bool missed);
  // Replaces the plies [first, first + moves.size()) (missed ones) by `moves`, recovered (or still missed:
  // another candidate of the gap), and replays the plies after them. Fails, changing nothing, when a move
  // is illegal where it stands.
  bool replace_plies(int first, const std::vector<Move>& moves, bool still_missed = false);
  // Replaces the jump plies from `first` on (one adopt, see above) by `moves`, recovered, of any number (none
  // when the jump came back to the position before it), when they reach the position after the jump (its
  // board and side on move), and replays the plies after them (which move on by the difference). The clock
  // reading and time of the jump go on the last of `moves`.
  // Fails, changing nothing, when a move is illegal where it stands or the moves reach another position.
  // Pieces that arrived in a reserve from outside since (add_to_pocket) keep their place after the plies.
  bool replace_jump(int first, const std::vector<Move>& moves);
  // Replaces the plies [first, end) by `moves`, recovered, of any number, when they reach the position
  // after ply `end` (its board and side on move), and replays the plies after them (which move on by the
  // difference): a gap told shorter than it was (a detour no board shows). The clock reading and time of
  // ply `end` go on the last of `moves`. Fails as replace_jump does.
  bool replace_span(int first, int end, const std::vector<Move>& moves);
  // Takes back the last move (arbiter decision, or a move found to be wrong).
  void undo();
  // Bughouse: a piece arrives in (n > 0) or leaves (n < 0) a reserve from outside this board (the partner's
  // capture, FQE 6). Recorded, so that position_at() replays it at the same point of the game.
  void add_to_pocket(Color c, PieceType t, int n = 1);
  // The position after `ply` moves (0 = the start).
  Position position_at(int ply) const;
  // The clock times after `ply` moves (0 = the start).
  ClockTimes clock_at(int ply) const;

  // How often the current position has occurred, this time included (FIDE 9.2).
  int repetitions() const;
  bool threefold_claimable() const { return repetitions() >= 3; }
  bool fifty_moves_claimable() const { return current_.rule50() >= 100; }
  // FQE 22: the same board four times with no drop in between (reserves may differ).
  bool fourfold_no_drops_claimable() const;

  // Results the rules impose at once: mate, stalemate, dead position, fivefold, 75 moves.
  std::optional<Outcome> automatic_outcome() const;
  // Flag fall of `side` (6.9): a loss, or a draw when the opponent cannot mate by any legal sequence.
  Outcome flag_outcome(Color side) const;

  // The recorded end of the game, once there is one (automatic, flag, resignation, arbiter …).
  const std::optional<Outcome>& outcome() const { return outcome_; }
  void set_outcome(Outcome o) { outcome_ = std::move(o); }
  void clear_outcome() { outcome_.reset(); }

 private:
  // Appends the ply that led to current_ (already set).
  const PlyRecord& record(Move m, ClockTimes clock, std::int64_t time_ms, bool illegal);
  Position start_;
  Position current_;
  std::vector<PlyRecord> plies_;
  struct PocketChange {
    int ply;  // applied after this many moves
    Color color;
    PieceType type;
    int n;
  };
  std::vector<PocketChange> pocket_changes_;
  struct StoodPosition {
    int ply;  // the illegal move's index in plies_
    Position after;
  };
  std::vector<StoodPosition> stood_;  // the positions after the illegal moves that stood, in order
  ClockTimes start_clock_;
  std::optional<Outcome> outcome_;
  std::uint64_t identity_;
};

}  // namespace eboard::rules
