// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A simulated player's hand: turns a legal move into the physical actions a person makes on a sensor
// board (lifts, placements, the clock press), with times and the untidy but legal habits real players
// have. Reconstruction must read all of these as the move played, never as an irregularity; the
// quirks exist here so that the tests feed it what real boards see (reference/hardware.md §1.3).
//
// Pure code: time is virtual (milliseconds), randomness comes from a seed, nothing sleeps.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "daemon/sim/rng.hpp"
#include "rules/position.hpp"
#include "rules/types.hpp"

namespace eboard::sim {

// What stands on each square of the wooden board, a1 = 0 … h8 = 63. It can differ from the position:
// in bughouse a promoted pawn stays a pawn (FQE 11).
using PhysicalBoard = std::array<rules::Piece, 64>;

// The board a player sees for `pos`.
PhysicalBoard physical_board(const rules::Position& pos);

// A piece taken off a square (into the hand). Which piece it is follows from the board.
struct Lift {
  rules::Square square;
};
// A piece set down on an empty square: from the hand, from the reserve (drop), or a spare (promotion).
struct Place {
  rules::Square square;
  rules::Piece piece;
};
// The player of `player` presses his clock lever: this completes his move (FIDE 6.2.1).
struct PressClock {
  rules::Color player;
};

struct HandAction {
  std::int64_t t_ms = 0;
  std::variant<Lift, Place, PressClock> what;
};

// Applies one board action; returns false (and leaves the board alone) if it is physically impossible:
// a lift of an empty square or a placement on an occupied one. PressClock is always possible.
bool apply(PhysicalBoard& board, const HandAction& a);

// Checks a timeline: non-decreasing times and every action possible on the board it meets. Returns an
// empty string when it is fine, else a sentence naming the first bad action.
std::string check_actions(const PhysicalBoard& initial, std::span<const HandAction> actions);

// An inclusive range of milliseconds, drawn uniformly.
struct Range {
  std::int64_t min_ms = 0;
  std::int64_t max_ms = 0;
};

// How a player handles the pieces. Every probability is per occasion (per capture, per placement …).
// The defaults are the casual() preset.
struct HandStyle {
  // --- Timing -------------------------------------------------------------------------------------
  // Thinking before the first touch, when the caller gives no time. Skewed towards the short end (most
  // moves are quick, a few are long), as in real games.
  Range think_ms{800, 15000};
  // The least time from the turn start (the opponent's press) to the first touch, whatever the clock
  // data say: a hand cannot premove as a server lets one. 0: none (times from the clock data are kept).
  std::int64_t reaction_ms = 0;
  // A piece in the air on a plain move: lift to placement.
  Range air_ms{250, 700};
  // Between the two touches of a two-piece action (victim and mover, king and rook).
  Range second_touch_ms{150, 500};
  // Last placement to the clock press.
  Range press_delay_ms{150, 800};
  // Per square crossed in a slide: how long the piece stands on it.
  Range slide_square_ms{40, 120};
  // A bounce: the whole set-down, lift a few millimetres, set-down again.
  Range bounce_ms{100, 300};
  // A captured piece resting on a stray square before it leaves the board (≤ 500 ms: reference §1.3).
  Range stray_rest_ms{100, 500};
  // A knocked-over piece: lift to put back.
  Range knock_ms{200, 500};
  // A pawn standing on the last rank before it is exchanged for the new piece.
  Range promo_rest_ms{150, 900};
  // Fetching the promotion piece: pawn off the board to new piece placed.
  Range promo_fetch_ms{300, 1500};

  // --- Habits and quirks (all legal play) --------------------------------------------------------------
  // Captures: the victim removed first, or the mover lifted first. `capture_swap` is the one-motion
  // capture: the mover arrives, knocks the victim off and lands at once (20–80 ms later), so a scanning
  // board often never sees the target square empty. The rest (1 - both) is mover-first.
  double capture_victim_first = 0.3;
  double capture_swap = 0.1;
  // En passant: the captured pawn removed before the capturing pawn moves (else after it lands).
  double ep_victim_first = 0.3;
  // Castling, always king first (Art. 4.4: rook first is an irregularity, so it is never generated).
  // First: is the king held off the board while the rook moves, then placed? (Chess960 guideline II
  // recommends exactly that, hence its own probability.) If not: both lifted (king lifted, rook lifted,
  // king placed, rook placed) with `castle_both_lifted`, else the textbook order (king to its square,
  // then the rook). When the king does not move in Chess960 it is always lifted first and put back last.
  double castle_king_off = 0.1;
  double castle960_king_off = 0.8;
  double castle_both_lifted = 0.2;
  // Promotion: the pawn set down on the last rank for a moment before it is exchanged (else the new
  // piece goes straight to the square while the pawn stays in the hand).
  double promo_on_rank = 0.5;
  // A long-range move (rook, bishop, queen, pawn double step, king in castling) pushed along the board:
  // every square passed reports a placement and a lift.
  double slide = 0.15;
  // A piece set down, lifted a little and set down again on the same square.
  double bounce = 0.05;
  // A captured piece set down for a moment on an empty square near the edge before leaving the board.
  double stray_victim = 0.02;
  // A non-moving piece knocked over while moving and put back on its square before the clock press.
  double knock = 0.01;

  // Never any noise: canonical order (mover lifted first, king before rook, queen straight to the
  // promotion square), generous timing.
  static HandStyle tidy();
  // The defaults: a club player at a classical game.
  static HandStyle casual();
  // Fast and sloppy: short thinks, quick presses, one-motion captures, slides and bounces.
  static HandStyle blitz();
  // Every quirk, often. For robustness tests.
  static HandStyle messy();
};

// How often each habit was used: tests count them to show the quirks really occur.
struct HandStats {
  int moves = 0;
  int drops = 0;
  int captures_victim_first = 0;
  int captures_mover_first = 0;
  int captures_swap = 0;
  int ep_victim_first = 0;
  int ep_victim_after = 0;
  int castles_king_then_rook = 0;
  int castles_both_lifted = 0;
  int castles_king_off = 0;
  int castles_king_still = 0;  // Chess960: the king does not move (lifted, rook moved, put back)
  int castles_rook_still = 0;  // Chess960: the rook does not move (only the king is carried)
  int promotions_on_rank = 0;
  int promotions_direct = 0;
  int slides = 0;         // moves of a piece pushed across squares
  int slide_squares = 0;  // squares passed in those slides
  int bounces = 0;
  int strays = 0;
  int knocks = 0;
};

// Options of one move.
struct MoveTiming {
  // Thinking time before the first touch; the style draws one when neither this nor `spent_ms` is set.
  std::optional<std::int64_t> think_ms;
  // The time the move takes on the clock, turn start to press (what [%clk] differences give): the think
  // time is what remains after the handling; a move whose handling alone is longer takes that long.
  std::optional<std::int64_t> spent_ms;
  // Absolute time before which the hand does not touch the board (bughouse: a drop waits until the
  // partner's capture has handed the piece over). The think time grows to reach it.
  std::optional<std::int64_t> not_before_ms;
  bool press_clock = true;
};

class Hand {
 public:
  Hand(HandStyle style, std::uint64_t seed) : style_(style), rng_(seed) {}

  // The actions of playing legal move `m` in `before`, the turn starting at `start_ms` (when the
  // opponent pressed the clock): think, touch, move, and press the clock (unless timing says not to).
  // The first lift comes after the think time; times are non-decreasing; every action is possible on
  // the physical board of `before`. Throws std::invalid_argument if the move does not fit that board.
  std::vector<HandAction> play_move(const rules::Position& before, rules::Move m, std::int64_t start_ms,
                                    const MoveTiming& timing = {});

  // A whole game played by this hand for both sides: each move starts when the previous one's clock
  // press happened (the first at `start_ms`). `spent_ms[i]`, when given, is move i's time on the clock
  // (see MoveTiming). Throws std::invalid_argument on an illegal move.
  std::vector<HandAction> play_game(const rules::Position& start, std::span<const rules::Move> moves,
                                    std::int64_t start_ms,
                                    std::span<const std::optional<std::int64_t>> spent_ms = {});

  const HandStyle& style() const { return style_; }
  const HandStats& stats() const { return stats_; }

 private:
  class Builder;
  void carry(Builder& b, rules::Square from, rules::Square to, rules::Piece p, Range air);
  void put(Builder& b, rules::Square s, rules::Piece p);
  void stray(Builder& b, rules::Piece victim, const std::vector<rules::Square>& involved);
  void knock(Builder& b, const std::vector<rules::Square>& involved, rules::Square near1,
             rules::Square near2);
  void castle(Builder& b, const rules::Position& before, rules::Move m);

  std::int64_t draw(Range r) { return rng_.range(r.min_ms, r.max_ms); }

  HandStyle style_;
  Rng rng_;
  HandStats stats_;
};

// The same as Hand::play_game with a hand per colour (each keeps its own style and statistics).
// `not_before_ms[i]`, when given, is MoveTiming::not_before_ms of move i. In bughouse a drop of a piece
// the position's reserve lacks is taken as handed over by the partner just in time (the caller orders
// the two boards, see not_before_ms).
std::vector<HandAction> play_game(Hand& white, Hand& black, const rules::Position& start,
                                  std::span<const rules::Move> moves, std::int64_t start_ms,
                                  std::span<const std::optional<std::int64_t>> spent_ms = {},
                                  std::span<const std::optional<std::int64_t>> not_before_ms = {});

}  // namespace eboard::sim
