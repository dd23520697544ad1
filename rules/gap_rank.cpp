// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/gap_rank.hpp"

#include <algorithm>
#include <climits>
#include <numeric>
#include <unordered_map>

#include "rules/movegen.hpp"

namespace eboard::rules {

namespace {

constexpr int kValue[PIECE_TYPE_NB] = {0, 1, 3, 3, 5, 9, 50};  // NO_PIECE_TYPE, P, N, B, R, Q, K
int value(PieceType t) { return t < PIECE_TYPE_NB ? kValue[t] : 0; }

// A move takes at least this long to make and press, hands and clock.
constexpr std::int64_t kShortestMoveMs = 1000;
// What a move answering the one before counts for, in pawns.
constexpr double kAnswer = 1.0;
constexpr double kMirror = 0.5;
constexpr double kOpened = 0.5;
constexpr double kDefend = 0.5;
constexpr double kUnderpromotion = 3.0;
// A first move that does not fit the hand seen at work before the gap (a piece touched is moved: 4.3).
constexpr double kHandNotFitting = 5.0;
// What a quiet move does for its side's play (Urgency below), in quarter pawns of mobility: castling, a
// central pawn's step per rank (half on the c and f files), a knight or bishop leaving its first rank.
constexpr int kCastle = 24;
constexpr int kCentre = 12;
constexpr int kDevelop = 8;
// What a quiet move put off costs per quarter pawn the move made before it did less: a small weight, below
// the material evidence, that tells apart orders nothing else does.
constexpr double kOrder = 0.01;

// The best material gain the side on move has by a capture or a promotion (0 when none wins anything),
// remembered per position: the sequences of one gap pass through many positions in common.
class Opportunities {
 public:
  int best(const Position& p) {
    const Key k = p.key();
    if (auto it = memo_.find(k); it != memo_.end()) return it->second;
    int best = 0;
    for (Move m : MoveList(p)) best = std::max(best, exchange_gain(p, m));
    memo_.emplace(k, best);
    return best;
  }

 private:
  std::unordered_map<Key, int> memo_;
};

// Whether `m` (in `p`) mirrors `before`, the opponent's move just made: the same kind of piece to the
// square across the board's middle, or castling on the same wing.
bool mirrors(const Position& p, Move before, Move m) {
  if (before.is_drop() || m.is_drop()) return false;
  if (m.kind() == Move::CASTLING || before.kind() == Move::CASTLING)
    return m.kind() == before.kind() &&
           (file_of(m.to()) < file_of(m.from())) == (file_of(before.to()) < file_of(before.from()));
  const Piece moved = p.piece_on(m.from()), answered = p.piece_on(before.to());
  if (moved == NO_PIECE || answered == NO_PIECE || type_of(moved) != type_of(answered)) return false;
  return file_of(m.to()) == file_of(before.to()) && rank_of(m.to()) == 7 - rank_of(before.to());
}

// How much a quiet move does for its side's play: the mobility it gives the side's pieces (knights and
// bishops whole, rooks half, the queen a quarter: four to a square of a minor piece), a central pawn's step,
// a knight or bishop leaving its first rank, castling. People make the moves that do most first, so a
// sequence that puts off a move that was already legal and did more than the one made is less likely.
// Remembered per position and move: the sequences of one gap are mostly orders of the same moves.
class Urgency {
 public:
  // INT_MIN when `m` is not a legal quiet move in `p`.
  int of(const Position& p, Move m) {
    const std::uint64_t k = p.key() ^ (std::uint64_t(m.raw()) * 0x9E3779B97F4A7C15ull);
    if (auto it = memo_.find(k); it != memo_.end()) return it->second;
    const int v = p.is_capture(m) || !p.is_legal(m) ? INT_MIN : compute(p, m);
    memo_.emplace(k, v);
    return v;
  }

 private:
  static int activity(const Position& p, Color c) {
    const Bitboard occ = p.pieces(), own = p.pieces(c);
    int a = 0;
    for (Bitboard b = p.pieces(c, KNIGHT); b;) a += 4 * popcount(knight_attacks(pop_lsb(b)) & ~own);
    for (Bitboard b = p.pieces(c, BISHOP); b;) a += 4 * popcount(bishop_attacks(pop_lsb(b), occ) & ~own);
    for (Bitboard b = p.pieces(c, ROOK); b;) a += 2 * popcount(rook_attacks(pop_lsb(b), occ) & ~own);
    for (Bitboard b = p.pieces(c, QUEEN); b;) a += popcount(queen_attacks(pop_lsb(b), occ) & ~own);
    return a;
  }
  static int compute(const Position& p, Move m) {
    if (m.is_drop()) return 0;
    if (m.kind() == Move::CASTLING) return kCastle;
    const Color us = p.side_to_move();
    const PieceType t = type_of(p.piece_on(m.from()));
    int v = 0;
    if (t == PAWN) {
      const int f = file_of(m.to());
      const int steps = relative_rank(us, m.to()) - relative_rank(us, m.from());
      if (f == 3 || f == 4) v += kCentre * steps;
      if (f == 2 || f == 5) v += kCentre / 2 * steps;
    } else if ((t == KNIGHT || t == BISHOP) && relative_rank(us, m.from()) == 0) {
      v += kDevelop;
    }
    Position q = p;
    q.do_move(m);
    return v + activity(q, us) - activity(p, us);
  }
  std::unordered_map<std::uint64_t, int> memo_;
};

}  // namespace

int exchange_gain(const Position& p, Move m) {
  if (m.is_drop() || m.kind() == Move::CASTLING) return 0;
  const Color us = p.side_to_move();
  const Square from = m.from(), to = m.to();
  const int promotion = m.is_promotion() ? value(m.promotion_type()) - value(PAWN) : 0;
  int taken = 0;
  Bitboard occupied = p.pieces() ^ square_bb(from);
  if (m.kind() == Move::EN_PASSANT) {
    taken = value(PAWN);
    occupied ^= square_bb(Square(to + (us == WHITE ? -8 : 8)));
  } else if (!p.empty(to)) {
    taken = value(type_of(p.piece_on(to)));
  } else if (!promotion) {
    return 0;
  }
  // The swap list: gain[d] is what the side making capture d wins if the exchange stops after it.
  std::array<int, 34> gain{};
  int d = 0;
  gain[0] = taken + promotion;
  int on_square = m.is_promotion() ? value(m.promotion_type()) : value(type_of(p.piece_on(from)));
  Color side = ~us;
  for (;;) {
    const Bitboard attackers = p.attackers_to(to, occupied) & occupied & p.pieces(side);
    if (!attackers || d + 1 >= int(gain.size())) break;
    PieceType t = PAWN;
    while (!(attackers & p.pieces(t))) t = PieceType(t + 1);
    ++d;
    gain[std::size_t(d)] = on_square - gain[std::size_t(d - 1)];
    on_square = value(t);
    occupied ^= square_bb(lsb(attackers & p.pieces(t)));
    side = ~side;
  }
  while (d > 0) {
    gain[std::size_t(d - 1)] = -std::max(-gain[std::size_t(d - 1)], gain[std::size_t(d)]);
    --d;
  }
  return gain[0];
}

bool hand_on_the_way(const Position& p, const std::array<Piece, 64>& hand, Move m) {
  Position after = p;
  after.do_move(m);
  bool differs = false;
  for (Square q = 0; q < 64; ++q) {
    if (hand[q] == p.piece_on(q)) continue;
    differs = true;
    if (after.piece_on(q) == p.piece_on(q)) return false;  // a square the move leaves as it was
    if (hand[q] != NO_PIECE && hand[q] != after.piece_on(q)) return false;
  }
  return differs;
}

std::vector<double> gap_sequence_costs(const Position& before,
                                       const std::vector<std::vector<Move>>& candidates,
                                       const GapEvidence& evidence) {
  Opportunities chances;
  Urgency urgency;
  std::vector<double> costs;
  costs.reserve(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::vector<Move>& sequence = candidates[i];
    double cost = 0;
    std::array<std::int64_t, 2> moves{};
    Position p = before;
    Square last_to = SQ_NONE;  // where the opponent's move just set its piece
    for (std::size_t k = 0; k < sequence.size(); ++k) {
      const Move m = sequence[k];
      ++moves[p.side_to_move()];
      // A move answering the one before (taking the piece that just moved, or taking its own piece out of
      // that piece's reach, or else defending a piece in that reach): people answer what was just played
      // more often than they play elsewhere.
      if (last_to != SQ_NONE && !m.is_drop() && m.kind() != Move::CASTLING) {
        const Piece mover = p.piece_on(last_to);
        const Bitboard reach = mover == NO_PIECE        ? 0
                               : type_of(mover) == PAWN ? pawn_attacks(color_of(mover), last_to)
                                                        : attacks(type_of(mover), last_to, p.pieces());
        const bool answered = m.to() == last_to || (reach & square_bb(m.from()));
        if (answered) cost -= kAnswer;
        // A defence: the piece moved reaches, from its new square, a piece of its side (not the king) that
        // the opponent's piece attacks from where it just went.
        const Bitboard threatened = reach & p.pieces(p.side_to_move()) & ~p.pieces(p.side_to_move(), KING);
        if (!answered && threatened && p.piece_on(m.from()) != NO_PIECE) {
          const Piece own = p.piece_on(m.from());
          const Bitboard occ = (p.pieces() ^ square_bb(m.from())) | square_bb(m.to());
          const Bitboard covers =
              type_of(own) == PAWN ? pawn_attacks(color_of(own), m.to()) : attacks(type_of(own), m.to(), occ);
          if (covers & threatened & ~square_bb(m.from())) cost -= kDefend;
        }
        // Or going through the square the move before left (a line it opened).
        const Move prev = sequence[k - 1];
        if (!prev.is_drop() && prev.kind() != Move::CASTLING &&
            (between(m.from(), m.to()) & square_bb(prev.from())))
          cost -= kOpened;
      }
      // A move mirroring the one before (e4 e5, Nf3 Nf6, castling after castling): replies in kind.
      if (k > 0 && mirrors(p, sequence[k - 1], m)) cost -= kMirror;
      // People promote to a queen.
      if (m.is_promotion() && m.promotion_type() != QUEEN) cost += kUnderpromotion;
      last_to = m.is_drop() || m.kind() != Move::CASTLING ? m.to() : SQ_NONE;
      // A gain the mover had and did not take (a recapture put off, a piece left en prise not taken).
      const int gained = exchange_gain(p, m);
      cost += std::max(0, chances.best(p) - gained);
      p.do_move(m);
      // A gain the move left the opponent, beyond what it won (a piece left hanging while another move is
      // made). The end position is every sequence's: not counted there.
      if (k + 1 < sequence.size()) cost += 0.5 * std::max(0, chances.best(p) - std::max(0, gained));
    }
    // The order of each side's quiet moves: a move made later in the sequence that was already legal
    // and did more than the one made.
    Position q = before;
    for (std::size_t k = 0; k < sequence.size(); ++k) {
      const Move m = sequence[k];
      const int here = q.in_check() ? INT_MIN : urgency.of(q, m);
      for (std::size_t j = k + 2; here != INT_MIN && j < sequence.size(); j += 2) {
        const int there = urgency.of(q, sequence[j]);
        if (there != INT_MIN && there > here) cost += kOrder * (there - here);
      }
      q.do_move(m);
    }
    if (evidence.time_used_ms) {
      for (Color c : {WHITE, BLACK}) {
        const std::int64_t used = (*evidence.time_used_ms)[c] + moves[c] * evidence.increment_ms;
        const std::int64_t short_by = moves[c] * kShortestMoveMs - used;
        if (short_by > 0) cost += double(short_by) / double(kShortestMoveMs);
      }
    }
    if (evidence.hand_at_loss && !sequence.empty() &&
        !hand_on_the_way(before, *evidence.hand_at_loss, sequence[0]))
      cost += kHandNotFitting;
    if (i < evidence.outside_cost.size()) cost += evidence.outside_cost[i];
    costs.push_back(cost);
  }
  return costs;
}

std::vector<std::size_t> rank_gap_candidates(const Position& before,
                                             const std::vector<std::vector<Move>>& candidates,
                                             const GapEvidence& evidence) {
  const std::vector<double> costs = gap_sequence_costs(before, candidates, evidence);
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  auto seen = [&](std::size_t i) { return i < evidence.seen.size() ? evidence.seen[i] : 0; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (seen(a) != seen(b)) return seen(a) > seen(b);
    return costs[a] < costs[b];
  });
  return order;
}

}  // namespace eboard::rules
