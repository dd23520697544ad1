// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Helpers shared by the simulator tests: random legal games, replaying sensor events on a board, and a
// classifier that recognises the hand's habits from the bare action stream (so the quirks are shown to
// be really there, not only counted by the hand that claims to make them).
#pragma once

#include <gtest/gtest.h>

#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "daemon/sim/hand.hpp"
#include "daemon/sim/rng.hpp"
#include "daemon/sim/start_positions.hpp"
#include "rules/movegen.hpp"
#include "rules/position.hpp"
#include "rules/sensor.hpp"

namespace eboard::sim::test {

using rules::Move;
using rules::Piece;
using rules::Position;
using rules::Square;

inline Position fen(std::string_view f, rules::Variant v = rules::Variant::Chess, bool chess960 = false) {
  auto p = Position::from_fen(f, v, chess960);
  if (!p) throw std::runtime_error("bad test FEN " + std::string(f) + ": " + p.error());
  return *p;
}

inline Square sq(std::string_view name) { return rules::parse_square(name); }

struct RandomGame {
  Position start;
  std::vector<Move> moves;
  std::vector<Position> positions;  // positions[i] = after i moves
};

// Up to `plies` random legal moves from `start` (fewer if the game ends).
inline RandomGame random_game(const Position& start, int plies, std::uint64_t seed) {
  RandomGame g{start, {}, {start}};
  Rng rng(seed);
  Position pos = start;
  for (int i = 0; i < plies; ++i) {
    rules::MoveList list(pos);
    if (list.empty()) break;
    Move m = *(list.begin() + rng.index(list.size()));
    g.moves.push_back(m);
    pos.do_move(m);
    g.positions.push_back(pos);
  }
  return g;
}

enum class StartKind { Standard, Chess960, Crazyhouse };

inline const char* name(StartKind k) {
  switch (k) {
    case StartKind::Standard:
      return "standard";
    case StartKind::Chess960:
      return "chess960";
    case StartKind::Crazyhouse:
      return "crazyhouse";
  }
  return "?";
}

inline Position start_position(StartKind k, int game) {
  switch (k) {
    case StartKind::Standard:
      return Position::start();
    case StartKind::Chess960:
      return fen(chess960_start_fen(game * 97 + 13), rules::Variant::Chess, true);
    case StartKind::Crazyhouse:
      return Position::start(rules::Variant::Crazyhouse);
  }
  return Position::start();
}

struct NamedStyle {
  const char* name;
  HandStyle style;
};
inline std::vector<NamedStyle> all_styles() {
  return {{"tidy", HandStyle::tidy()},
          {"casual", HandStyle::casual()},
          {"blitz", HandStyle::blitz()},
          {"messy", HandStyle::messy()}};
}

inline std::string describe(const rules::SensorEvent& e) {
  std::ostringstream o;
  o << e.t_ms << ' ';
  if (const auto* l = std::get_if<rules::PieceLifted>(&e.what)) {
    o << "lift " << rules::square_name(l->square);
  } else if (const auto* p = std::get_if<rules::PiecePlaced>(&e.what)) {
    o << "place " << rules::square_name(p->square) << ' ' << rules::piece_char(p->piece);
  } else if (const auto* b = std::get_if<rules::BoardSnapshot>(&e.what)) {
    o << "snapshot ";
    for (Piece pc : b->squares) o << (pc == rules::NO_PIECE ? '.' : rules::piece_char(pc));
  } else if (const auto* c = std::get_if<rules::ClockReading>(&e.what)) {
    o << "clock " << c->left_ms << ' ' << c->right_ms << ' ' << c->running << ' ' << int(c->lever_up) << ' '
      << c->left_flag << c->right_flag << c->present;
  } else {
    o << "link";
  }
  return o.str();
}

inline std::string describe(const HandAction& a) {
  std::ostringstream o;
  o << a.t_ms << ' ';
  if (const auto* l = std::get_if<Lift>(&a.what)) o << "lift " << rules::square_name(l->square);
  if (const auto* p = std::get_if<Place>(&a.what))
    o << "place " << rules::square_name(p->square) << ' ' << rules::piece_char(p->piece);
  if (const auto* c = std::get_if<PressClock>(&a.what))
    o << "press " << (c->player == rules::WHITE ? 'w' : 'b');
  return o.str();
}

inline std::string board_string(const PhysicalBoard& b) {
  std::string s;
  for (int r = 7; r >= 0; --r) {
    for (int f = 0; f < 8; ++f) {
      Piece p = b[rules::make_square(f, r)];
      s += p == rules::NO_PIECE ? '.' : rules::piece_char(p);
    }
    s += '\n';
  }
  return s;
}

// Applies one sensor event to a board; fails the test (returns false) if a field update is not a change.
inline bool apply_event(PhysicalBoard& board, const rules::SensorEvent& e, std::string* error) {
  if (const auto* l = std::get_if<rules::PieceLifted>(&e.what)) {
    if (board[l->square] == rules::NO_PIECE) {
      *error = "reported lift of empty " + rules::square_name(l->square) + " at " + std::to_string(e.t_ms);
      return false;
    }
    board[l->square] = rules::NO_PIECE;
  } else if (const auto* p = std::get_if<rules::PiecePlaced>(&e.what)) {
    if (board[p->square] == p->piece || p->piece == rules::NO_PIECE) {
      *error = "reported placement that changes nothing on " + rules::square_name(p->square);
      return false;
    }
    board[p->square] = p->piece;
  } else if (const auto* b = std::get_if<rules::BoardSnapshot>(&e.what)) {
    board = b->squares;
  }
  return true;
}

// What the hand did in one move, recognised from its actions alone.
struct Observed {
  HandStats s;
  bool king_first = true;  // castling: the first lift was the king's square
  bool drop_without_lift = false;
  int quick_replacements = 0;  // victim lifted and mover placed on its square within 80 ms
};

inline void add(HandStats& a, const HandStats& b) {
  a.moves += b.moves;
  a.drops += b.drops;
  a.captures_victim_first += b.captures_victim_first;
  a.captures_mover_first += b.captures_mover_first;
  a.captures_swap += b.captures_swap;
  a.ep_victim_first += b.ep_victim_first;
  a.ep_victim_after += b.ep_victim_after;
  a.castles_king_then_rook += b.castles_king_then_rook;
  a.castles_both_lifted += b.castles_both_lifted;
  a.castles_king_off += b.castles_king_off;
  a.castles_king_still += b.castles_king_still;
  a.castles_rook_still += b.castles_rook_still;
  a.promotions_on_rank += b.promotions_on_rank;
  a.promotions_direct += b.promotions_direct;
  a.slides += b.slides;
  a.slide_squares += b.slide_squares;
  a.bounces += b.bounces;
  a.strays += b.strays;
  a.knocks += b.knocks;
}

// Classifies the actions of one move (`acts`, its press included) played in `before`.
inline Observed classify(const Position& before, Move m, std::span<const HandAction> acts) {
  Observed o;
  const rules::Color us = before.side_to_move();
  PhysicalBoard board = physical_board(before);
  std::vector<Square> main;
  Square kf = rules::SQ_NONE, rf = rules::SQ_NONE, kt = rules::SQ_NONE, rt = rules::SQ_NONE;
  if (m.is_drop()) {
    main = {m.to()};
  } else if (m.kind() == Move::CASTLING) {
    kf = m.from();
    rf = m.to();
    const bool ks = rules::file_of(rf) > rules::file_of(kf);
    kt = Position::castle_king_to(us, ks);
    rt = Position::castle_rook_to(us, ks);
    main = {kf, rf, kt, rt};
  } else {
    main = {m.from(), m.to()};
    if (m.kind() == Move::EN_PASSANT)
      main.push_back(rules::make_square(rules::file_of(m.to()), rules::rank_of(m.from())));
  }
  auto is_main = [&](Square s) { return std::find(main.begin(), main.end(), s) != main.end(); };

  // Board actions only, with their indexes.
  std::vector<HandAction> b;
  for (const HandAction& a : acts)
    if (!std::holds_alternative<PressClock>(a.what)) b.push_back(a);
  auto lift_sq = [&](std::size_t i) -> Square {
    const auto* l = std::get_if<Lift>(&b[i].what);
    return l ? l->square : rules::SQ_NONE;
  };
  auto place_of = [&](std::size_t i) -> const Place* { return std::get_if<Place>(&b[i].what); };
  // Whether square s gets lifted again after index i.
  auto lifted_later = [&](std::size_t i, Square s) {
    for (std::size_t j = i + 1; j < b.size(); ++j)
      if (lift_sq(j) == s) return true;
    return false;
  };

  bool in_slide = false;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (const Place* p = place_of(i)) {
      const bool bounce = i + 2 < b.size() && lift_sq(i + 1) == p->square && place_of(i + 2) &&
                          place_of(i + 2)->square == p->square && place_of(i + 2)->piece == p->piece;
      if (bounce) {
        ++o.s.bounces;
        in_slide = false;
        i += 2;
        board[p->square] = p->piece;
        continue;
      }
      if (lifted_later(i, p->square) && board[p->square] == rules::NO_PIECE) {
        if (rules::color_of(p->piece) != us) {
          ++o.s.strays;
          in_slide = false;
        } else if (m.is_promotion() && p->square == m.to() && rules::type_of(p->piece) == rules::PAWN) {
          ++o.s.promotions_on_rank;
          in_slide = false;
        } else if (!is_main(p->square) || m.kind() == Move::CASTLING) {
          if (!in_slide) ++o.s.slides;
          ++o.s.slide_squares;
          in_slide = true;
          board[p->square] = p->piece;
          ++i;  // its lift
          board[p->square] = rules::NO_PIECE;
          continue;
        }
      } else {
        in_slide = false;
      }
      board[p->square] = p->piece;
    } else {
      const Square s = lift_sq(i);
      if (!is_main(s) && board[s] != rules::NO_PIECE && board[s] == physical_board(before)[s]) {
        // A non-moving piece lifted: a knock if it comes straight back.
        if (i + 1 < b.size() && place_of(i + 1) && place_of(i + 1)->square == s) ++o.s.knocks;
      }
      in_slide = false;
      board[s] = rules::NO_PIECE;
    }
  }

  auto first = [&](auto pred) -> std::size_t {
    for (std::size_t i = 0; i < b.size(); ++i)
      if (pred(i)) return i;
    return b.size();
  };
  if (m.is_drop()) {
    o.drop_without_lift = !b.empty() && place_of(0) && place_of(0)->square == m.to();
    ++o.s.drops;
  } else if (m.kind() == Move::CASTLING) {
    o.king_first = !b.empty() && lift_sq(0) == kf;
    const Piece king = physical_board(before)[kf], rook = physical_board(before)[rf];
    if (rf == rt) {
      ++o.s.castles_rook_still;
    } else if (kf == kt) {
      ++o.s.castles_king_still;
    } else {
      const std::size_t rook_lift = first([&](std::size_t i) { return lift_sq(i) == rf; });
      const std::size_t king_place = first([&](std::size_t i) {
        return place_of(i) && place_of(i)->square == kt && place_of(i)->piece == king;
      });
      const std::size_t rook_place = first([&](std::size_t i) {
        return place_of(i) && place_of(i)->square == rt && place_of(i)->piece == rook;
      });
      if (king_place < rook_lift)
        ++o.s.castles_king_then_rook;
      else if (rook_place < king_place)
        ++o.s.castles_king_off;
      else
        ++o.s.castles_both_lifted;
    }
  } else if (m.kind() == Move::EN_PASSANT) {
    const Square v = main[2];
    if (first([&](std::size_t i) { return lift_sq(i) == v; }) <
        first([&](std::size_t i) { return lift_sq(i) == m.from(); }))
      ++o.s.ep_victim_first;
    else
      ++o.s.ep_victim_after;
  } else if (before.piece_on(m.to()) != rules::NO_PIECE) {
    const std::size_t victim = first([&](std::size_t i) { return lift_sq(i) == m.to(); });
    const std::size_t mover = first([&](std::size_t i) { return lift_sq(i) == m.from(); });
    if (victim < mover) {
      ++o.s.captures_victim_first;
    } else {
      ++o.s.captures_mover_first;  // swaps included: they differ only in timing
      if (victim + 1 < b.size() && place_of(victim + 1) && place_of(victim + 1)->square == m.to() &&
          b[victim + 1].t_ms - b[victim].t_ms <= 80)
        ++o.quick_replacements;
    }
  }
  if (m.is_promotion() && before.variant() != rules::Variant::Bughouse && o.s.promotions_on_rank == 0)
    ++o.s.promotions_direct;
  ++o.s.moves;
  return o;
}

// Splits a game's actions into moves: each move ends with its clock press.
inline std::vector<std::span<const HandAction>> split_moves(const std::vector<HandAction>& actions) {
  std::vector<std::span<const HandAction>> out;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < actions.size(); ++i)
    if (std::holds_alternative<PressClock>(actions[i].what)) {
      out.emplace_back(actions.data() + begin, i + 1 - begin);
      begin = i + 1;
    }
  return out;
}

}  // namespace eboard::sim::test
