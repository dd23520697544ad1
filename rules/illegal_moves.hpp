// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// FIDE 7.5 on the wood: a piece moved in a way no legal move explains, shown on the board or completed by
// a clock press. This class keeps what the reconstruction remembers of it: the illegal move the board
// shows this turn, its stage named (resting on the board until the release time makes it made, 4.7;
// made, so that a legal move replacing it before the press is a correction told, FQE 21a); the completed
// illegal move whose replacement must be made with the same piece when it can move (7.5.1 with 4.3); the
// completed illegal moves per colour (7.5.5). It words the alerts (the penalty of the profile, the same
// piece required) and tells why a shown move is not legal; the Reconstructor (rules/reconstruct.hpp)
// decides when and emits them. Pure.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "rules/events.hpp"
#include "rules/position.hpp"
#include "rules/profile.hpp"

namespace eboard::rules {

// A piece moved in a way no legal move explains (shown on the board, not necessarily completed). `from`
// is SQ_NONE for a piece set on an empty square from outside the board (a drop no reserve allows).
struct ShownMove {
  Square from, to;
  Piece piece;
};

// "e2-e5", or "N@f3" for a piece from outside the board.
std::string describe(const ShownMove& m);

class IllegalMoves {
 public:
  // The illegal move the board shows this turn (not completed).
  enum class Shown {
    None,     // none
    Resting,  // shown at rest since the board's last change: made if it still rests so at confirm_at()
    Made,     // it rested for the release time (4.7): made, though not completed
  };

  // The one own piece of the side on move of `p` that stands elsewhere on `physical` than on `display`
  // (the committed position as it stands on the wood) where no legal move, and no first part of one
  // (castling's king step, en passant before the taken pawn leaves), puts it; in drop variants, an own
  // piece on a square that was empty with nothing else changed (from SQ_NONE; whether a legal drop or one
  // of a piece the partner is about to hand over explains it is the caller's to check).
  static std::optional<ShownMove> on_board(const Position& p, const std::array<Piece, 64>& display,
                                           const std::array<Piece, 64>& physical);
  // Why the shown move `m` of `presser` is not legal: the reason code (CONTRACTS §3) and a sentence.
  struct Why {
    std::string reason;
    std::string detail;
  };
  // `pos`: the position it was shown from (for a drop, with the reserves `presser` may drop from).
  static Why why_not_legal(const Position& pos, const ShownMove& m, Color presser);

  // --- The illegal move shown this turn -------------------------------------------------------------
  Shown shown_phase() const { return phase_; }
  // The board at rest shows `m`: made once it has rested so until `confirm_ms`. (Not while one is made.)
  void resting(const ShownMove& m, std::int64_t confirm_ms) {
    phase_ = Shown::Resting;
    shown_ = m;
    confirm_at_ = confirm_ms;
  }
  std::optional<std::int64_t> confirm_at() const {
    return phase_ == Shown::Resting ? std::optional<std::int64_t>(confirm_at_) : std::nullopt;
  }
  // The board changed: a move resting is not made.
  void board_changed() {
    if (phase_ == Shown::Resting) phase_ = Shown::None;
  }
  // The confirm time came: the move resting is made when the board still shows an illegal move.
  void confirm_time_came(bool still_shown) { phase_ = still_shown ? Shown::Made : Shown::None; }
  // The move made (Shown::Made).
  std::optional<ShownMove> made() const {
    return phase_ == Shown::Made ? std::optional<ShownMove>(shown_) : std::nullopt;
  }
  // The turn is over (a move completed, an illegal move judged): the move made is forgotten, not one
  // still resting (it is judged from the board when its time comes).
  void turn_over() {
    if (phase_ == Shown::Made) phase_ = Shown::None;
  }
  void forget_shown() { phase_ = Shown::None; }

  // --- 7.5.1: the completed illegal move, its position reinstated -----------------------------------
  // The move replacing it, at ply `ply`, must be made with the same piece when that piece can move.
  struct Replaced {
    ShownMove shown;
    int ply;
  };
  void completed(const ShownMove& m, int ply) { replaced_ = Replaced{m, ply}; }
  const std::optional<Replaced>& replaced() const { return replaced_; }
  // Replaced now (or the turn passed on without a judgement, or it stood).
  void replaced_done() { replaced_.reset(); }

  // --- 7.5.5: completed illegal moves ----------------------------------------------------------------
  int count(Color c) const { return counts_[c]; }
  // Counts a completed illegal move (or clock press without a move) of `side` and words its alert: the
  // penalty of the profile, and, where the opponent's time is raised, the clock for the arbiter to set
  // (`clock`: both times at the press, when known). `pos`: the position before it (who can still mate).
  AlertEvent complete(const Profile& pr, const char* code, Color side, int ply, const Position& pos,
                      const std::string& reason, const std::string& detail, std::optional<ClockTimes> clock);
  // FQE 21a, 7.5.1 with 4.3: the move `played` made after the illegal move `illegal` (its correction, or
  // the replacement of a completed one), from `p`: the same-piece-required alert when another piece was
  // played although that piece could move. `what` says what the player did with the illegal move.
  static std::optional<AlertEvent> same_piece(const ShownMove& illegal, const Position& p, Move played,
                                              int ply, const std::string& what, const char* rule);

  // A new game: no count, nothing to replace.
  void new_game() {
    counts_ = {};
    replaced_.reset();
  }

 private:
  Shown phase_ = Shown::None;
  ShownMove shown_{SQ_NONE, SQ_NONE, NO_PIECE};  // while Resting or Made
  std::int64_t confirm_at_ = 0;                  // while Resting
  std::optional<Replaced> replaced_;
  std::array<int, 2> counts_{};
};

}  // namespace eboard::rules
