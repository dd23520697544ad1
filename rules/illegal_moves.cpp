// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/illegal_moves.hpp"

#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/outcome.hpp"

namespace eboard::rules {

std::string describe(const ShownMove& m) {
  if (m.from == SQ_NONE) return std::string(1, piece_char(type_of(m.piece))) + "@" + square_name(m.to);
  return square_name(m.from) + "-" + square_name(m.to);
}

std::optional<ShownMove> IllegalMoves::on_board(const Position& p, const std::array<Piece, 64>& display,
                                                const std::array<Piece, 64>& physical) {
  // Exactly one own piece gone from one square and standing on another (empty before, or an enemy's).
  Color us = p.side_to_move();
  Square from = SQ_NONE, to = SQ_NONE;
  for (Square q = 0; q < 64; ++q) {
    if (physical[q] == display[q]) continue;
    if (physical[q] == NO_PIECE && display[q] != NO_PIECE && color_of(display[q]) == us && from == SQ_NONE)
      from = q;
    else if (physical[q] != NO_PIECE && color_of(physical[q]) == us && to == SQ_NONE)
      to = q;
    else
      return std::nullopt;
  }
  // Drop variants: an own piece on a square that was empty, nothing else changed: a piece from nowhere,
  // or from the other board by mistake, unless a legal drop explains it (the caller's to check).
  if (from == SQ_NONE && to != SQ_NONE && has_drops(p.variant()) && display[to] == NO_PIECE)
    return ShownMove{SQ_NONE, to, physical[to]};
  if (from == SQ_NONE || to == SQ_NONE || physical[to] != display[from]) return std::nullopt;
  // The first part of a legal move is not an illegal one: castling's king step before the rook moves,
  // en passant before the taken pawn leaves the board.
  for (Move m : MoveList(p)) {
    if (m.is_drop() || m.from() != from) continue;
    Square dest = m.kind() == Move::CASTLING ? Position::castle_king_to(us, m) : m.to();
    if (dest == to) return std::nullopt;
  }
  for (Move m : MoveList(p)) {  // in Chess960 the rook's step can come first (the king put back unseen)
    if (m.kind() == Move::CASTLING && m.to() == from && Position::castle_rook_to(us, m) == to)
      return std::nullopt;
  }
  return ShownMove{from, to, physical[to]};
}

IllegalMoves::Why IllegalMoves::why_not_legal(const Position& pos, const ShownMove& m, Color presser) {
  const PieceType pt = type_of(m.piece);
  if (m.from == SQ_NONE) {
    // A piece set on an empty square that no legal drop explains (FQE 7, 18).
    std::string who = presser == WHITE ? "White" : "Black";
    std::string reason, why;
    if (pt == KING || !has_drops(pos.variant()) || pos.pocket(presser, pt) == 0) {
      reason = "drop-not-in-reserve";
      why = who + "'s reserve holds no " + piece_name(pt);
    } else if (pt == PAWN && (rank_of(m.to) == 0 || rank_of(m.to) == 7)) {
      reason = "pawn-drop-on-first-or-last-rank";
      why = "a pawn cannot be dropped on the first or last rank (FQE 7b)";
    } else {
      reason = "king-left-in-check";
      why = "it leaves the king in check (FQE 7a)";
    }
    return {reason, describe(m) + " is not a legal move: " + why};
  }
  // A way the piece could go on this board (a pawn's capture or its file): it leaves the king in check;
  // any other is impossible for that piece.
  Bitboard reach = pt == PAWN ? pawn_attacks(presser, m.from) : attacks(pt, m.from, pos.pieces());
  bool geometric = (reach & square_bb(m.to)) || (pt == PAWN && file_of(m.from) == file_of(m.to));
  return {geometric ? "king-left-in-check" : "impossible-move",
          std::string(1, piece_char(pt)) + square_name(m.from) + "-" + square_name(m.to) +
              " is not a legal move"};
}

AlertEvent IllegalMoves::complete(const Profile& pr, const char* code, Color side, int ply,
                                  const Position& pos, const std::string& reason, const std::string& detail,
                                  std::optional<ClockTimes> clock) {
  int count = ++counts_[side];
  std::string penalty;
  switch (pr.illegal_moves) {
    case IllegalMovePolicy::LossIfClaimed:
      penalty = "loss if claimed";
      break;
    case IllegalMovePolicy::LossIfClaimedBeforeNextMove:
      penalty = "loss if claimed before the claimant's next move";
      break;
    case IllegalMovePolicy::StandsUnlessClaimed:
    case IllegalMovePolicy::Reinstate: {
      bool loses = pr.illegal_moves_to_lose > 0 && count >= pr.illegal_moves_to_lose;
      if (loses)
        penalty = can_ever_mate(pos, ~side) ? "loss" : "draw (the opponent cannot mate)";
      else
        penalty = "+" + std::to_string(pr.illegal_move_bonus_ms / 60000) + " min to the opponent";
      if (pr.illegal_moves == IllegalMovePolicy::StandsUnlessClaimed)
        penalty += " if claimed before the opponent moves";
      break;
    }
  }
  AlertEvent a{code, ply, side, detail, {}};
  a.extra.push_back({"reason", reason, false});
  a.extra.push_back({"count", std::to_string(count), true});
  a.extra.push_back({"penalty", penalty, false});
  // 7.5.5 (or the profile's bonus): the clock as the press left it, the opponent's time raised, for the
  // arbiter to apply (POST /control/<board>/clock) once the position is reinstated.
  const bool time_penalty = (pr.illegal_moves == IllegalMovePolicy::Reinstate ||
                             pr.illegal_moves == IllegalMovePolicy::StandsUnlessClaimed) &&
                            pr.illegal_move_bonus_ms > 0 &&
                            !(pr.illegal_moves_to_lose > 0 && count >= pr.illegal_moves_to_lose);
  if (time_penalty && clock) {
    ClockTimes c = *clock;
    (side == WHITE ? c.black_ms : c.white_ms) += pr.illegal_move_bonus_ms;
    // JSON text with its keys in order, as the event's JSON (and a journal read back) writes them.
    a.extra.push_back({"proposed_clock",
                       "{\"add_ms\":" + std::to_string(pr.illegal_move_bonus_ms) + ",\"add_to\":\"" +
                           (side == WHITE ? "black" : "white") + "\",\"black\":" +
                           std::to_string(c.black_ms) + ",\"white\":" + std::to_string(c.white_ms) + "}",
                       true});
  }
  return a;
}

std::optional<AlertEvent> IllegalMoves::same_piece(const ShownMove& illegal, const Position& p, Move played,
                                                   int ply, const std::string& what, const char* rule) {
  Color us = p.side_to_move();
  bool could = false, did = false;
  if (illegal.from == SQ_NONE) {
    PieceType pt = type_of(illegal.piece);
    for (Move m : MoveList(p)) could |= m.is_drop() && m.drop_type() == pt;
    did = played.is_drop() && played.drop_type() == pt;
  } else {
    for (Move m : MoveList(p)) could |= !m.is_drop() && m.from() == illegal.from;
    did = !played.is_drop() && played.from() == illegal.from;
  }
  if (!could || did) return std::nullopt;
  AlertEvent a{"same-piece-required",
               ply,
               us,
               std::string(us == WHITE ? "White" : "Black") + " " + what + " " + describe(illegal) +
                   " and played another piece although the same one could move (" + rule + ")",
               {}};
  a.extra.push_back(
      {"square", illegal.from == SQ_NONE ? std::string("reserve") : square_name(illegal.from), false});
  return a;
}

}  // namespace eboard::rules
