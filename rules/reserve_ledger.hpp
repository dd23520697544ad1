// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The reserves of one bughouse board as they are known from outside (FQE 6, 11, 19, 21b): what the partner's
// board shows captured and whether it is blind, the pieces handed over to the partner and given back, the
// pieces received, borrowed (dropped before they arrived) and the early drops waiting to be told, the piece
// a pawn left on the last rank stands for, and the drop the board shows this turn. Bookkeeping only: the
// Reconstructor (rules/reconstruct.hpp) decides what a change means and tells it. Pure.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "rules/position.hpp"

namespace eboard::rules {

// A piece a completed capture hands over (bughouse: to the partner's board, FQE 6): the captured piece in
// its own colour, a promoted piece as a pawn (FQE 11).
struct Handover {
  Piece piece = NO_PIECE;
  std::int64_t t_ms = 0;  // when the capture was completed (the capturer's press)
  int ply = 0;            // the capture's ply on its board
};

class ReserveLedger {
 public:
  // A drop completed before its piece was received: reported if the piece does not arrive in time.
  struct EarlyDrop {
    Piece piece;
    std::int64_t placed_ms;
    std::int64_t alert_at;
    int ply;
    bool alerted;
    bool while_blind = false;  // dropped while the partner's board was blind: its capture time is unknown
  };

  // --- The partner's board ---------------------------------------------------------------------------
  const std::optional<Piece>& partner_shown() const { return partner_shown_; }
  // False (and nothing changes) when `piece` is already the one shown.
  bool set_partner_shown(std::optional<Piece> piece);
  bool partner_blind() const { return partner_blind_; }
  // False (and nothing changes) when it already was. When the partner is followed again, a drop made while
  // it was blind and still borrowed is told no sooner than `not_before`.
  bool set_partner_blind(bool blind, std::int64_t not_before);
  // Whether the reserves drops are matched against differ from the official ones (extend).
  bool extends() const { return partner_shown_ || partner_blind_; }
  // `pos` with the partner's shown capture added to its reserves, and while the partner is blind one of
  // every piece a reserve lacks (a drop may be of a piece handed over unseen).
  void extend(Position& pos) const;

  // --- Pieces handed over and given back ---------------------------------------------------------------
  void hand_over(const Handover& h) { handovers_.push_back(h); }
  void give_back(const Handover& h) { withdrawn_.push_back(h); }
  std::vector<Handover> take_handovers() { return std::exchange(handovers_, {}); }
  std::vector<Handover> take_withdrawn() { return std::exchange(withdrawn_, {}); }

  // --- Pieces received, borrowed, dropped early ---------------------------------------------------------
  void received(Piece piece, std::int64_t t_ms) { received_.push_back({t_ms, piece}); }
  // How many of `piece` were received after `placed_ms`, and the first of them.
  struct Arrivals {
    int count = 0;
    std::optional<std::int64_t> first;
  };
  Arrivals arrived_after(Piece piece, std::int64_t placed_ms) const;
  int borrowed(Color c, PieceType t) const { return borrowed_[c][t]; }
  void borrow(Color c, PieceType t) { ++borrowed_[c][t]; }
  // Makes good one borrowed piece of `t`; false when none is borrowed.
  bool repay(Color c, PieceType t);
  void add_early_drop(const EarlyDrop& d) { early_drops_.push_back(d); }
  // The first early drop of `piece`, taken off the list (its piece arrived).
  std::optional<EarlyDrop> take_early_drop(Piece piece);
  // The early drop whose alert is due at `t_ms`, if any.
  EarlyDrop* early_drop_due_at(std::int64_t t_ms);
  // When the next early drop's alert is due.
  std::optional<std::int64_t> next_alert() const;

  // --- FQE 11: the piece a pawn left on the last rank stands for (queen unless named)
  // -----------------------
  PieceType promotion_piece(Color c) const { return promotion_piece_[c]; }
  // False when `t` cannot be named or already is.
  bool set_promotion_piece(Color c, PieceType t);
  void promotion_played(Color c) { promotion_piece_[c] = QUEEN; }  // a named piece serves one promotion

  // --- FQE 19: the drop the board shows, and a drop placed this turn -------------------------------------
  // After a board change: `shown` is the drop the board shows now, if any. A drop that stood on its square
  // for `scan_ms` or longer was placed there (a shorter sight is a scan catching a piece's new square
  // before its old one emptied).
  void see_drop(std::optional<Move> shown, std::int64_t t_ms, std::int64_t scan_ms);
  // The reserves changed and the board shows drop `m`: shown from now unless already seen.
  void see_drop_again(Move m, std::int64_t t_ms);
  // At the completion of `played`: the drop placed this turn (or shown long enough) that was not it.
  std::optional<Move> placed_drop(Move played, std::int64_t t_ms, std::int64_t scan_ms) const;

  // A new turn: the drop shown is forgotten. A new game: so are the pieces received, borrowed and dropped.
  void new_turn();
  void new_game();

 private:
  // An early drop's alert is due at its time, except one dropped while the partner is still blind.
  bool due(const EarlyDrop& d) const { return !d.alerted && !(d.while_blind && partner_blind_); }

  std::optional<Piece> partner_shown_;
  bool partner_blind_ = false;
  std::vector<Handover> handovers_;
  std::vector<Handover> withdrawn_;
  struct Received {
    std::int64_t t_ms;
    Piece piece;
  };
  std::vector<Received> received_;  // pieces that arrived in a reserve of this board, in order
  std::array<std::array<int, PIECE_TYPE_NB>, 2> borrowed_{};
  std::vector<EarlyDrop> early_drops_;
  std::array<PieceType, 2> promotion_piece_{QUEEN, QUEEN};
  std::optional<std::pair<Move, std::int64_t>> drop_shown_;  // the drop shown now, and since when
  std::optional<Move> placed_drop_;
};

}  // namespace eboard::rules
