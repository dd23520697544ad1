// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/reserve_ledger.hpp"

#include <algorithm>

namespace eboard::rules {

bool ReserveLedger::set_partner_shown(std::optional<Piece> piece) {
  if (piece == partner_shown_) return false;
  partner_shown_ = piece;
  return true;
}

bool ReserveLedger::set_partner_blind(bool blind, std::int64_t not_before) {
  if (blind == partner_blind_) return false;
  partner_blind_ = blind;
  if (!blind)
    for (auto& d : early_drops_)
      if (d.while_blind && !d.alerted) d.alert_at = std::max(d.alert_at, not_before);
  return true;
}

void ReserveLedger::extend(Position& pos) const {
  if (partner_shown_) {
    Color c = color_of(*partner_shown_);
    PieceType t = type_of(*partner_shown_);
    pos.set_pocket(c, t, pos.pocket(c, t) + 1);
  }
  if (partner_blind_)
    for (Color c : {WHITE, BLACK})
      for (PieceType t : {PAWN, KNIGHT, BISHOP, ROOK, QUEEN})
        if (pos.pocket(c, t) == 0) pos.set_pocket(c, t, 1);
}

ReserveLedger::Arrivals ReserveLedger::arrived_after(Piece piece, std::int64_t placed_ms) const {
  Arrivals a;
  for (auto it = received_.rbegin(); it != received_.rend() && it->t_ms > placed_ms; ++it)
    if (it->piece == piece) {
      ++a.count;
      a.first = it->t_ms;
    }
  return a;
}

bool ReserveLedger::repay(Color c, PieceType t) {
  if (borrowed_[c][t] <= 0) return false;
  --borrowed_[c][t];
  return true;
}

std::optional<ReserveLedger::EarlyDrop> ReserveLedger::take_early_drop(Piece piece) {
  auto it = std::find_if(early_drops_.begin(), early_drops_.end(),
                         [&](const EarlyDrop& d) { return d.piece == piece; });
  if (it == early_drops_.end()) return std::nullopt;
  EarlyDrop d = *it;
  early_drops_.erase(it);
  return d;
}

ReserveLedger::EarlyDrop* ReserveLedger::early_drop_due_at(std::int64_t t_ms) {
  auto it = std::find_if(early_drops_.begin(), early_drops_.end(),
                         [&](const EarlyDrop& d) { return due(d) && d.alert_at == t_ms; });
  return it == early_drops_.end() ? nullptr : &*it;
}

std::optional<std::int64_t> ReserveLedger::next_alert() const {
  std::optional<std::int64_t> best;
  for (const auto& d : early_drops_)
    if (due(d) && (!best || d.alert_at < *best)) best = d.alert_at;
  return best;
}

bool ReserveLedger::set_promotion_piece(Color c, PieceType t) {
  if (t < KNIGHT || t > QUEEN || promotion_piece_[c] == t) return false;
  promotion_piece_[c] = t;
  return true;
}

void ReserveLedger::see_drop(std::optional<Move> shown, std::int64_t t_ms, std::int64_t scan_ms) {
  if (drop_shown_ && (!shown || drop_shown_->first != *shown)) {
    if (!placed_drop_ && t_ms - drop_shown_->second >= scan_ms) placed_drop_ = drop_shown_->first;
    drop_shown_.reset();
  }
  if (shown && !drop_shown_) drop_shown_ = std::make_pair(*shown, t_ms);
}

void ReserveLedger::see_drop_again(Move m, std::int64_t t_ms) {
  if (!drop_shown_) drop_shown_ = std::make_pair(m, t_ms);
}

std::optional<Move> ReserveLedger::placed_drop(Move played, std::int64_t t_ms, std::int64_t scan_ms) const {
  std::optional<Move> placed = placed_drop_;
  if (!placed && drop_shown_ && drop_shown_->first != played && t_ms - drop_shown_->second >= scan_ms)
    placed = drop_shown_->first;
  return placed;
}

void ReserveLedger::new_turn() {
  drop_shown_.reset();
  placed_drop_.reset();
}

void ReserveLedger::new_game() {
  received_.clear();
  borrowed_ = {};
  early_drops_.clear();
}

}  // namespace eboard::rules
