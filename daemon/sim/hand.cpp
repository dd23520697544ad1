// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/sim/hand.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "rules/movegen.hpp"

namespace eboard::sim {

using rules::Color;
using rules::Move;
using rules::Piece;
using rules::PieceType;
using rules::Position;
using rules::Square;

PhysicalBoard physical_board(const Position& pos) {
  PhysicalBoard b = pos.board();
  if (pos.variant() == rules::Variant::Bughouse) {
    // FQE 11: a promoted pawn is still a pawn on the wood; only the players know what it stands for.
    for (rules::Bitboard bb = pos.promoted(); bb; bb &= bb - 1) {
      Square s = rules::lsb(bb);
      if (b[s] != rules::NO_PIECE) b[s] = rules::make_piece(rules::color_of(b[s]), rules::PAWN);
    }
  }
  return b;
}

bool apply(PhysicalBoard& board, const HandAction& a) {
  if (const auto* l = std::get_if<Lift>(&a.what)) {
    if (!rules::is_ok(l->square) || board[l->square] == rules::NO_PIECE) return false;
    board[l->square] = rules::NO_PIECE;
  } else if (const auto* p = std::get_if<Place>(&a.what)) {
    if (!rules::is_ok(p->square) || board[p->square] != rules::NO_PIECE || p->piece == rules::NO_PIECE)
      return false;
    board[p->square] = p->piece;
  }
  return true;
}

std::string check_actions(const PhysicalBoard& initial, std::span<const HandAction> actions) {
  PhysicalBoard board = initial;
  std::int64_t last = actions.empty() ? 0 : actions.front().t_ms;
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const HandAction& a = actions[i];
    if (a.t_ms < last) return "action " + std::to_string(i) + " goes back in time";
    last = a.t_ms;
    if (!apply(board, a)) {
      if (const auto* l = std::get_if<Lift>(&a.what))
        return "action " + std::to_string(i) + " lifts from empty " + rules::square_name(l->square);
      const auto& p = std::get<Place>(a.what);
      return "action " + std::to_string(i) + " places on occupied " + rules::square_name(p.square);
    }
  }
  return {};
}

// ---------------------------------------------------------------------------------------------------
// Presets

HandStyle HandStyle::tidy() {
  HandStyle s;
  s.think_ms = {1500, 8000};
  s.air_ms = {400, 700};
  s.second_touch_ms = {300, 500};
  s.press_delay_ms = {300, 600};
  s.capture_victim_first = 0;
  s.capture_swap = 0;
  s.ep_victim_first = 0;
  s.castle_both_lifted = 0;
  s.castle_king_off = 0;
  s.castle960_king_off = 1;  // the recommended order is the tidy one in Chess960
  s.promo_on_rank = 0;
  s.slide = 0;
  s.bounce = 0;
  s.stray_victim = 0;
  s.knock = 0;
  return s;
}

HandStyle HandStyle::casual() { return HandStyle{}; }

HandStyle HandStyle::blitz() {
  HandStyle s;
  // The think floor stays above two scans (~500 ms): see the reconstruction notes in scanner.hpp.
  s.think_ms = {500, 4000};
  s.air_ms = {120, 350};
  s.second_touch_ms = {60, 250};
  s.press_delay_ms = {80, 300};
  s.slide_square_ms = {30, 80};
  s.bounce_ms = {80, 200};
  s.stray_rest_ms = {80, 300};
  s.knock_ms = {150, 400};
  s.promo_rest_ms = {100, 400};
  s.promo_fetch_ms = {200, 800};
  s.capture_victim_first = 0.2;
  s.capture_swap = 0.4;
  s.ep_victim_first = 0.3;
  s.castle_both_lifted = 0.4;
  s.castle_king_off = 0.1;
  s.promo_on_rank = 0.6;
  s.slide = 0.3;
  s.bounce = 0.1;
  s.stray_victim = 0.05;
  s.knock = 0.03;
  return s;
}

HandStyle HandStyle::messy() {
  HandStyle s;
  s.think_ms = {600, 6000};
  s.capture_victim_first = 0.35;
  s.capture_swap = 0.3;
  s.ep_victim_first = 0.5;
  s.castle_both_lifted = 0.4;
  s.castle_king_off = 0.3;
  s.castle960_king_off = 0.6;
  s.promo_on_rank = 0.7;
  s.slide = 0.5;
  s.bounce = 0.3;
  s.stray_victim = 0.3;
  s.knock = 0.2;
  return s;
}

// ---------------------------------------------------------------------------------------------------
// Building one move's actions on a private copy of the board, so that every action is checked against
// what physically stands there at that moment.

class Hand::Builder {
 public:
  explicit Builder(const PhysicalBoard& board) : board_(board) {}

  void wait(std::int64_t ms) { t_ += std::max<std::int64_t>(ms, 0); }
  std::int64_t now() const { return t_; }
  const PhysicalBoard& board() const { return board_; }
  std::vector<HandAction>& actions() { return out_; }

  Piece lift(Square s) {
    if (!rules::is_ok(s) || board_[s] == rules::NO_PIECE)
      throw std::invalid_argument("hand: nothing to lift on " + rules::square_name(s));
    Piece p = board_[s];
    board_[s] = rules::NO_PIECE;
    out_.push_back({t_, Lift{s}});
    return p;
  }
  void place(Square s, Piece p) {
    if (!rules::is_ok(s) || board_[s] != rules::NO_PIECE)
      throw std::invalid_argument("hand: cannot place on occupied " + rules::square_name(s));
    board_[s] = p;
    out_.push_back({t_, Place{s, p}});
  }
  void press(Color c) { out_.push_back({t_, PressClock{c}}); }

 private:
  PhysicalBoard board_;
  std::int64_t t_ = 0;
  std::vector<HandAction> out_;
};

namespace {

// The squares strictly between two squares on a line (rank, file or diagonal); empty otherwise.
std::vector<Square> between(Square from, Square to) {
  const int df = rules::file_of(to) - rules::file_of(from);
  const int dr = rules::rank_of(to) - rules::rank_of(from);
  std::vector<Square> out;
  if (!(df == 0 || dr == 0 || df == dr || df == -dr)) return out;
  const int step = (df > 0) - (df < 0) + 8 * ((dr > 0) - (dr < 0));
  for (int s = from + step; s != to; s += step) out.push_back(Square(s));
  return out;
}

// Whether a person would push this piece along the board rather than lift it: sliders, a pawn's double
// step, and a king crossing squares in castling. Knights jump, and a one-square step has nothing between.
bool slidable(PieceType t, Square from, Square to) {
  switch (t) {
    case rules::ROOK:
    case rules::BISHOP:
    case rules::QUEEN:
      return true;
    case rules::PAWN:
      return rules::file_of(from) == rules::file_of(to);
    case rules::KING:
      return rules::rank_of(from) == rules::rank_of(to);
    default:
      return false;
  }
}

int distance(Square a, Square b) {
  return std::max(std::abs(rules::file_of(a) - rules::file_of(b)),
                  std::abs(rules::rank_of(a) - rules::rank_of(b)));
}

bool contains(const std::vector<Square>& v, Square s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

// Moves the lifted piece `p` from `from` to just short of `to`: pushed across the squares between (each
// reports a placement and a lift) when the style says so and they are all empty, else carried in the air.
void Hand::carry(Builder& b, Square from, Square to, Piece p, Range air) {
  std::vector<Square> path;
  if (slidable(rules::type_of(p), from, to)) path = between(from, to);
  bool clear = !path.empty();
  for (Square s : path) clear = clear && b.board()[s] == rules::NO_PIECE;
  if (clear && rng_.chance(style_.slide)) {
    ++stats_.slides;
    for (Square s : path) {
      b.wait(rng_.range(5, 15));
      b.place(s, p);
      b.wait(draw(style_.slide_square_ms));
      b.lift(s);
      ++stats_.slide_squares;
    }
    b.wait(rng_.range(5, 15));
    return;
  }
  b.wait(draw(air));
}

// Sets `p` down on `s` for good, sometimes with a bounce.
void Hand::put(Builder& b, Square s, Piece p) {
  b.place(s, p);
  if (rng_.chance(style_.bounce)) {
    ++stats_.bounces;
    const std::int64_t total = std::max<std::int64_t>(draw(style_.bounce_ms), 20);
    const std::int64_t up = rng_.range(total * 3 / 10, total * 6 / 10);
    b.wait(up);
    b.lift(s);
    b.wait(total - up);
    b.place(s, p);
  }
}

// The captured piece, in the hand, set down for a moment on an empty square near the edge.
void Hand::stray(Builder& b, Piece victim, const std::vector<Square>& involved) {
  if (!rng_.chance(style_.stray_victim)) return;
  std::vector<Square> edge, any;
  for (Square s = 0; s < 64; ++s) {
    if (b.board()[s] != rules::NO_PIECE || contains(involved, s)) continue;
    any.push_back(s);
    const int f = rules::file_of(s), r = rules::rank_of(s);
    if (f == 0 || f == 7 || r == 0 || r == 7) edge.push_back(s);
  }
  const std::vector<Square>& pool = edge.empty() ? any : edge;
  if (pool.empty()) return;
  const Square e = pool[rng_.index(pool.size())];
  ++stats_.strays;
  b.wait(rng_.range(50, 200));
  b.place(e, victim);
  b.wait(draw(style_.stray_rest_ms));
  b.lift(e);
}

// A piece next to the action knocked over and put back on its own square.
void Hand::knock(Builder& b, const std::vector<Square>& involved, Square near1, Square near2) {
  std::vector<Square> pool;
  for (int reach = 1; reach <= 2 && pool.empty(); ++reach)
    for (Square s = 0; s < 64; ++s)
      if (b.board()[s] != rules::NO_PIECE && !contains(involved, s) &&
          (distance(s, near1) <= reach || distance(s, near2) <= reach))
        pool.push_back(s);
  if (pool.empty()) return;
  const Square k = pool[rng_.index(pool.size())];
  ++stats_.knocks;
  b.wait(rng_.range(30, 150));
  const Piece p = b.lift(k);
  b.wait(draw(style_.knock_ms));
  b.place(k, p);
}

void Hand::castle(Builder& b, const Position& before, Move m) {
  const Color us = before.side_to_move();
  const Square kf = m.from(), rf = m.to();
  const bool king_side = rules::file_of(rf) > rules::file_of(kf);
  const Square kt = Position::castle_king_to(us, king_side), rt = Position::castle_rook_to(us, king_side);
  const Piece king = b.board()[kf], rook = b.board()[rf];
  if (king == rules::NO_PIECE || rook == rules::NO_PIECE)
    throw std::invalid_argument("hand: castling without king and rook on the board");

  if (rf == rt) {
    // Chess960 with the rook already on its square: the king alone is carried.
    ++stats_.castles_rook_still;
    b.lift(kf);
    carry(b, kf, kt, king, style_.air_ms);
    put(b, kt, king);
    return;
  }
  if (kf == kt) {
    // Chess960 with the king already on its square: only lifting the king first tells castling from a
    // rook move (guideline II), so the king goes up, the rook moves, the king comes back.
    ++stats_.castles_king_still;
    b.lift(kf);
    b.wait(draw(style_.second_touch_ms));
    b.lift(rf);
    carry(b, rf, rt, rook, style_.air_ms);
    put(b, rt, rook);
    b.wait(rng_.range(150, 400));
    put(b, kf, king);
    return;
  }

  const double p_off = before.chess960() ? style_.castle960_king_off : style_.castle_king_off;
  const bool king_off = rng_.chance(p_off);
  const bool both = rng_.chance(style_.castle_both_lifted);
  // The textbook order needs the king's square free while the rook still stands (not so in some 960
  // positions, where the king goes to the rook's square).
  const bool textbook_possible = b.board()[kt] == rules::NO_PIECE;
  if (king_off) {
    ++stats_.castles_king_off;
    b.lift(kf);
    b.wait(draw(style_.second_touch_ms));
    b.lift(rf);
    carry(b, rf, rt, rook, style_.air_ms);
    put(b, rt, rook);
    b.wait(rng_.range(150, 400));
    put(b, kt, king);
  } else if (both || !textbook_possible) {
    ++stats_.castles_both_lifted;
    b.lift(kf);
    b.wait(draw(style_.second_touch_ms));
    b.lift(rf);
    b.wait(draw(style_.air_ms));
    put(b, kt, king);
    b.wait(rng_.range(100, 300));
    put(b, rt, rook);
  } else {
    ++stats_.castles_king_then_rook;
    b.lift(kf);
    carry(b, kf, kt, king, style_.air_ms);
    put(b, kt, king);
    b.wait(draw(style_.second_touch_ms));
    b.lift(rf);
    carry(b, rf, rt, rook, style_.air_ms);
    put(b, rt, rook);
  }
}

std::vector<HandAction> Hand::play_move(const Position& before, Move m, std::int64_t start_ms,
                                        const MoveTiming& timing) {
  // The think time is drawn first so that the rest of the move's numbers do not depend on it.
  std::int64_t think = 0;
  if (timing.think_ms) {
    think = std::max<std::int64_t>(*timing.think_ms, 0);
  } else if (!timing.spent_ms) {
    // Skewed towards the short end (min + span·u² with u uniform in [0, 1)), in integers so that every
    // platform computes the same milliseconds.
    const std::uint64_t u = std::uint64_t(rng_.range(0, 0xFFFF));
    const std::int64_t span = std::max<std::int64_t>(style_.think_ms.max_ms - style_.think_ms.min_ms, 0);
    think = style_.think_ms.min_ms + std::int64_t((std::uint64_t(span) * u * u) >> 32);
  }

  const Color us = before.side_to_move();
  const bool bughouse = before.variant() == rules::Variant::Bughouse;
  Builder b(physical_board(before));
  ++stats_.moves;

  bool knock_pending = rng_.chance(style_.knock);
  const bool knock_in_flight = rng_.chance(0.5);
  std::vector<Square> involved;
  const Square near1 = m.to(), near2 = m.is_drop() ? m.to() : m.from();
  auto knock_now = [&] {
    if (knock_pending) knock(b, involved, near1, near2);
    knock_pending = false;
  };

  if (m.is_drop()) {
    ++stats_.drops;
    involved = {m.to()};
    b.wait(draw(style_.air_ms) / 2);  // reaching for the reserve: nothing on the board sees it
    put(b, m.to(), rules::make_piece(us, m.drop_type()));
  } else if (m.kind() == Move::CASTLING) {
    const bool king_side = rules::file_of(m.to()) > rules::file_of(m.from());
    involved = {m.from(), m.to(), Position::castle_king_to(us, king_side),
                Position::castle_rook_to(us, king_side)};
    castle(b, before, m);
  } else {
    const Square from = m.from(), to = m.to();
    const Piece mover = b.board()[from];
    if (mover == rules::NO_PIECE)
      throw std::invalid_argument("hand: no piece on " + rules::square_name(from));
    const bool ep = m.kind() == Move::EN_PASSANT;
    const Square victim = ep ? rules::make_square(rules::file_of(to), rules::rank_of(from))
                             : (b.board()[to] != rules::NO_PIECE ? to : rules::SQ_NONE);
    involved = {from, to};
    if (ep) involved.push_back(victim);

    auto lift_mover = [&] {
      b.lift(from);
      if (knock_in_flight) knock_now();
    };
    // The piece arrives on `to`: a promotion exchanges the pawn for the new piece.
    auto land = [&] {
      if (!m.is_promotion() || bughouse) {
        put(b, to, mover);  // in bughouse the pawn stays a pawn (FQE 11)
        return;
      }
      const Piece promo = rules::make_piece(us, m.promotion_type());
      if (rng_.chance(style_.promo_on_rank)) {
        ++stats_.promotions_on_rank;
        b.place(to, mover);
        b.wait(draw(style_.promo_rest_ms));
        b.lift(to);
        b.wait(draw(style_.promo_fetch_ms));
      } else {
        ++stats_.promotions_direct;
        b.wait(draw(style_.promo_fetch_ms));  // the pawn stays in the hand while the queen is fetched
      }
      put(b, to, promo);
    };

    if (victim == rules::SQ_NONE) {
      lift_mover();
      carry(b, from, to, mover, style_.air_ms);
      land();
    } else if (ep) {
      if (rng_.chance(style_.ep_victim_first)) {
        ++stats_.ep_victim_first;
        const Piece v = b.lift(victim);
        stray(b, v, involved);
        b.wait(draw(style_.second_touch_ms));
        lift_mover();
        carry(b, from, to, mover, style_.air_ms);
        land();
      } else {
        ++stats_.ep_victim_after;
        lift_mover();
        carry(b, from, to, mover, style_.air_ms);
        land();
        b.wait(draw(style_.second_touch_ms));
        const Piece v = b.lift(victim);
        stray(b, v, involved);
      }
    } else {
      const double r = rng_.unit();
      if (r < style_.capture_victim_first) {
        ++stats_.captures_victim_first;
        const Piece v = b.lift(to);
        stray(b, v, involved);
        b.wait(draw(style_.second_touch_ms));
        lift_mover();
        carry(b, from, to, mover, style_.air_ms);
        land();
      } else if (r < style_.capture_victim_first + style_.capture_swap) {
        // One motion: the mover pushes the victim off and lands in the same instant.
        ++stats_.captures_swap;
        lift_mover();
        carry(b, from, to, mover, style_.air_ms);
        const Piece v = b.lift(to);
        b.wait(rng_.range(20, 80));
        land();
        stray(b, v, involved);
      } else {
        ++stats_.captures_mover_first;
        lift_mover();
        b.wait(draw(style_.second_touch_ms));
        const Piece v = b.lift(to);
        stray(b, v, involved);
        b.wait(rng_.range(50, 300));
        land();
      }
    }
  }
  knock_now();
  if (timing.press_clock) {
    b.wait(draw(style_.press_delay_ms));
    b.press(us);
  }

  std::vector<HandAction>& out = b.actions();
  if (!timing.think_ms && timing.spent_ms)
    think = std::max<std::int64_t>(*timing.spent_ms - (out.empty() ? 0 : out.back().t_ms), 0);
  if (timing.not_before_ms && !out.empty())
    think = std::max(think, *timing.not_before_ms - start_ms - out.front().t_ms);
  if (!out.empty()) think = std::max(think, style_.reaction_ms - out.front().t_ms);
  for (HandAction& a : out) a.t_ms += start_ms + think;
  return std::move(out);
}

std::vector<HandAction> play_game(Hand& white, Hand& black, const Position& start,
                                  std::span<const Move> moves, std::int64_t start_ms,
                                  std::span<const std::optional<std::int64_t>> spent_ms,
                                  std::span<const std::optional<std::int64_t>> not_before_ms) {
  Position pos = start;
  std::vector<HandAction> out;
  std::int64_t t = start_ms;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const Move m = moves[i];
    if (pos.variant() == rules::Variant::Bughouse && m.is_drop() &&
        pos.pocket(pos.side_to_move(), m.drop_type()) == 0)
      pos.set_pocket(pos.side_to_move(), m.drop_type(), 1);  // the partner's capture brought it
    if (!rules::MoveList(pos).contains(moves[i]))
      throw std::invalid_argument("hand: move " + std::to_string(i + 1) + " is not legal in " + pos.fen());
    Hand& h = pos.side_to_move() == rules::WHITE ? white : black;
    MoveTiming timing;
    if (i < spent_ms.size()) timing.spent_ms = spent_ms[i];
    if (i < not_before_ms.size()) timing.not_before_ms = not_before_ms[i];
    std::vector<HandAction> acts = h.play_move(pos, moves[i], t, timing);
    if (!acts.empty()) t = acts.back().t_ms;  // the opponent's turn starts with this press
    out.insert(out.end(), acts.begin(), acts.end());
    pos.do_move(moves[i]);
  }
  return out;
}

std::vector<HandAction> Hand::play_game(const Position& start, std::span<const Move> moves,
                                        std::int64_t start_ms,
                                        std::span<const std::optional<std::int64_t>> spent_ms) {
  return sim::play_game(*this, *this, start, moves, start_ms, spent_ms);
}

}  // namespace eboard::sim
