// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/gap_features.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <unordered_map>

#include "rules/gap_hand.hpp"
#include "rules/gap_openings.hpp"
#include "rules/gap_policy.hpp"
#include "rules/movegen.hpp"

namespace eboard::rules {

const std::array<const char*, kGapFeatureCount> kGapFeatureNames = {"answers",
                                                                    "defences",
                                                                    "openings",
                                                                    "mirrors",
                                                                    "underpromotions",
                                                                    "gains missed",
                                                                    "gains left",
                                                                    "order put off",
                                                                    "clock short",
                                                                    "hand not fitting",
                                                                    "from the reply",
                                                                    "from own last",
                                                                    "knights to the rim",
                                                                    "set where lesser takes",
                                                                    "checks",
                                                                    "check plies",
                                                                    "mobility gained",
                                                                    "escapes",
                                                                    "threats",
                                                                    "unlikely",
                                                                    "known line"};

// Fitted on the training half (GAP_FIT=1 bench_gap_ranking; 3 draws of cut points, gaps of 3 to 8 plies with
// and without the hand at the loss), rounded. kClockShort is not fitted: the candidates of one gap have one
// length, so it never orders them; it keeps its pawn a second. kUnlikely came last, at a pawn a nat: fitted
// with it, the weights moved the held-out figures by less than half a point (GAP_FIT), so the others were
// kept as they were. kKnownLine, a pawn a position on a known line, with pgn-extract's ECO lines
// (bench_gap_ranking, held-out half, among the first three between two moves, standard): none 88.6 %, a
// third of a pawn 88.8 %, one, two and four 89.1 %, eight 89.0 %; on the training half one pawn moves it
// from 88.5 to 88.7 %.
const GapFeatures kGapFeatureWeights = {
    -0.78,   // kAnswers
    -0.56,   // kDefences
    -0.11,   // kOpenings
    -0.54,   // kMirrors
    5.9,     // kUnderpromotions
    0.39,    // kGainsMissed
    0.36,    // kGainsLeft
    0.0073,  // kOrderPutOff
    1.0,     // kClockShort
    5.76,    // kHandNotFitting
    0.030,   // kDistanceFromReply
    0.044,   // kDistanceFromOwnLast
    0.52,    // kKnightsToTheRim
    1.69,    // kSetWhereLesserTakes
    -2.06,   // kChecks
    0.158,   // kCheckPlies
    -0.060,  // kMobilityGained
    -0.67,   // kEscapes
    -0.36,   // kThreats
    1.0,     // kUnlikely
    -1.0,    // kKnownLine
};

namespace {

constexpr int kValue[PIECE_TYPE_NB] = {0, 1, 3, 3, 5, 9, 50};  // NO_PIECE_TYPE, P, N, B, R, Q, K
int value(PieceType t) { return t < PIECE_TYPE_NB ? kValue[t] : 0; }

// A move takes at least this long to make and press, hands and clock.
constexpr std::int64_t kShortestMoveMs = 1000;
// What a quiet move does for its side's play (Urgency below), in quarter pawns of mobility: castling, a
// central pawn's step per rank (half on the c and f files), a knight or bishop leaving its first rank.
constexpr int kCastle = 24;
constexpr int kCentre = 12;
constexpr int kDevelop = 8;

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
    return v + side_mobility(q, us) - side_mobility(p, us);
  }
  std::unordered_map<std::uint64_t, int> memo_;
};

int king_steps(Square a, Square b) {
  return std::max(std::abs(file_of(a) - file_of(b)), std::abs(rank_of(a) - rank_of(b)));
}

// The attacks of a piece of `c` of type `t` on `s`, with `occupied` in the way.
Bitboard reach_of(Color c, PieceType t, Square s, Bitboard occupied) {
  return t == PAWN ? pawn_attacks(c, s) : attacks(t, s, occupied);
}

// The answers to the opponent's move just made (which set its piece on `last_to`): kAnswers, kDefences.
void weigh_answer(const Position& p, Move m, Square last_to, GapFeatures& f) {
  const Piece mover = p.piece_on(last_to);
  const Bitboard reach =
      mover == NO_PIECE ? 0 : reach_of(color_of(mover), type_of(mover), last_to, p.pieces());
  const bool answered = m.to() == last_to || (reach & square_bb(m.from()));
  if (answered) {
    f[kAnswers] += 1;
    return;
  }
  // A defence: the piece moved reaches, from its new square, a piece of its side (not the king) that the
  // opponent's piece attacks from where it just went.
  const Color us = p.side_to_move();
  const Bitboard threatened = reach & p.pieces(us) & ~p.pieces(us, KING);
  const Piece own = p.piece_on(m.from());
  if (!threatened || own == NO_PIECE) return;
  const Bitboard occ = (p.pieces() ^ square_bb(m.from())) | square_bb(m.to());
  if (reach_of(color_of(own), type_of(own), m.to(), occ) & threatened & ~square_bb(m.from()))
    f[kDefences] += 1;
}

// What a piece's move (not a castling, not a drop) risks and threatens: kSetWhereLesserTakes, kEscapes,
// kThreats, kKnightsToTheRim.
void weigh_piece_move(const Position& p, Move m, GapFeatures& f) {
  const Color us = p.side_to_move();
  const PieceType t = type_of(p.piece_on(m.from()));
  const Bitboard occ = (p.pieces() ^ square_bb(m.from())) | square_bb(m.to());
  if (t == KNIGHT && (file_of(m.to()) == 0 || file_of(m.to()) == 7)) f[kKnightsToTheRim] += 1;
  if (t != PAWN && t != KING) {
    if (!p.is_capture(m)) {
      if (pawn_attacks(us, m.to()) & p.pieces(~us, PAWN)) f[kSetWhereLesserTakes] += 1;
      const Bitboard pieces = p.attackers_to(m.to(), occ) & p.pieces(~us) & ~p.pieces(~us, PAWN);
      for (Bitboard b = pieces; b; b &= b - 1)
        if (value(type_of(p.piece_on(lsb(b)))) < value(t)) {
          f[kSetWhereLesserTakes] += 1;
          break;
        }
    }
    if (const Bitboard attackers = p.attackers_to(m.from()) & p.pieces(~us)) {
      int least = INT_MAX;
      for (Bitboard b = attackers; b; b &= b - 1) least = std::min(least, value(type_of(p.piece_on(lsb(b)))));
      if (least < value(t) || !(p.attackers_to(m.from()) & p.pieces(us))) f[kEscapes] += 1;
    }
  }
  const PieceType set = m.is_promotion() ? m.promotion_type() : t;
  const Bitboard hits =
      reach_of(us, set, m.to(), occ) & p.pieces(~us) & ~p.pieces(~us, KING) & ~p.pieces(~us, PAWN);
  for (Bitboard b = hits; b; b &= b - 1) {
    const Square s = lsb(b);
    if (value(type_of(p.piece_on(s))) > value(set) || !(p.attackers_to(s, occ) & p.pieces(~us))) {
      f[kThreats] += 1;
      break;
    }
  }
}

GapFeatures features_of(const Position& before, const std::vector<Move>& sequence,
                        const GapEvidence& evidence, Opportunities& chances, Urgency& urgency) {
  GapFeatures f{};
  std::array<std::int64_t, 2> moves{};
  Position p = before;
  Square last_to = SQ_NONE;  // where the opponent's move just set its piece
  std::array<Square, 2> own_last{SQ_NONE, SQ_NONE};
  for (std::size_t k = 0; k < sequence.size(); ++k) {
    const Move m = sequence[k];
    const Color us = p.side_to_move();
    ++moves[us];
    const bool piece_move = !m.is_drop() && m.kind() != Move::CASTLING;
    if (last_to != SQ_NONE && piece_move) {
      weigh_answer(p, m, last_to, f);
      // Or going through the square the move before left (a line it opened).
      const Move prev = sequence[k - 1];
      if (!prev.is_drop() && prev.kind() != Move::CASTLING &&
          (between(m.from(), m.to()) & square_bb(prev.from())))
        f[kOpenings] += 1;
      f[kDistanceFromReply] += king_steps(m.to(), last_to);
    }
    if (k > 0 && mirrors(p, sequence[k - 1], m)) f[kMirrors] += 1;
    if (m.is_promotion() && m.promotion_type() != QUEEN) f[kUnderpromotions] += 1;
    if (piece_move) {
      if (own_last[us] != SQ_NONE) f[kDistanceFromOwnLast] += king_steps(m.from(), own_last[us]);
      weigh_piece_move(p, m, f);
    }
    if (!m.is_drop() && p.gives_check(m)) {
      f[kChecks] += 1;
      f[kCheckPlies] += double(k);
    }
    if (!p.in_check())
      if (const int u = urgency.of(p, m); u != INT_MIN) f[kMobilityGained] += u / 4.0;
    own_last[us] = m.kind() == Move::CASTLING && !m.is_drop() ? SQ_NONE : m.to();
    last_to = own_last[us];
    // A gain the mover had and did not take (a recapture put off, a piece left en prise not taken).
    const int gained = exchange_gain(p, m);
    f[kGainsMissed] += std::max(0, chances.best(p) - gained);
    p.do_move(m);
    // A gain the move left the opponent, beyond what it won (a piece left hanging while another move is
    // made). The end position is every sequence's: not counted there.
    if (k + 1 < sequence.size()) f[kGainsLeft] += std::max(0, chances.best(p) - std::max(0, gained));
  }
  // The order of each side's quiet moves: a move made later in the sequence that was already legal and did
  // more than the one made.
  Position q = before;
  for (std::size_t k = 0; k < sequence.size(); ++k) {
    const Move m = sequence[k];
    const int here = q.in_check() ? INT_MIN : urgency.of(q, m);
    for (std::size_t j = k + 2; here != INT_MIN && j < sequence.size(); j += 2) {
      const int there = urgency.of(q, sequence[j]);
      if (there != INT_MIN && there > here) f[kOrderPutOff] += there - here;
    }
    q.do_move(m);
  }
  if (evidence.time_used_ms) {
    for (Color c : {WHITE, BLACK}) {
      const std::int64_t used = (*evidence.time_used_ms)[c] + moves[c] * evidence.increment_ms;
      const std::int64_t short_by = moves[c] * kShortestMoveMs - used;
      if (short_by > 0) f[kClockShort] += double(short_by) / double(kShortestMoveMs);
    }
  }
  if (evidence.hand_at_loss && !sequence.empty() &&
      !hand_on_the_way(before, *evidence.hand_at_loss, sequence[0]))
    f[kHandNotFitting] = 1;
  return f;
}

}  // namespace

int side_mobility(const Position& p, Color c) {
  const Bitboard occ = p.pieces(), own = p.pieces(c);
  int a = 0;
  for (Bitboard b = p.pieces(c, KNIGHT); b;) a += 4 * popcount(knight_attacks(pop_lsb(b)) & ~own);
  for (Bitboard b = p.pieces(c, BISHOP); b;) a += 4 * popcount(bishop_attacks(pop_lsb(b), occ) & ~own);
  for (Bitboard b = p.pieces(c, ROOK); b;) a += 2 * popcount(rook_attacks(pop_lsb(b), occ) & ~own);
  for (Bitboard b = p.pieces(c, QUEEN); b;) a += popcount(queen_attacks(pop_lsb(b), occ) & ~own);
  return a;
}

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

std::vector<GapFeatures> gap_sequence_features(const Position& before,
                                               const std::vector<std::vector<Move>>& candidates,
                                               const GapEvidence& evidence) {
  Opportunities chances;
  Urgency urgency;
  std::vector<GapFeatures> out;
  out.reserve(candidates.size());
  for (const auto& sequence : candidates)
    out.push_back(features_of(before, sequence, evidence, chances, urgency));
  const std::vector<double> likelihood =
      gap_sequence_log_likelihoods(before, candidates, evidence.before_gap);
  for (std::size_t i = 0; i < out.size(); ++i) out[i][kUnlikely] = -likelihood[i];
  if (evidence.openings)
    for (std::size_t i = 0; i < out.size(); ++i) {
      Position p = before;
      for (Move m : candidates[i]) {
        p.do_move(m);
        out[i][kKnownLine] += evidence.openings->contains(p) ? 1.0 : 0.0;
      }
    }
  return out;
}

}  // namespace eboard::rules
