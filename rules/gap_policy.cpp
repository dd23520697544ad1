// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/gap_policy.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "rules/gap_features.hpp"
#include "rules/movegen.hpp"

namespace eboard::rules {

const std::array<const char*, kMoveFeatureCount> kMoveFeatureNames = {
    "gain",        "loss",           "takes last",    "leaves reach",  "defends",    "check",
    "castles",     "pawn",           "knight",        "bishop",        "rook",       "queen",
    "king",        "centre pawn",    "wing pawn",     "develops",      "rim",        "hangs",
    "escapes",     "threatens",      "near reply",    "near own",      "same piece", "back",
    "mobility",    "left to take",   "promotes",      "underpromotes", "recaptures", "new",
    "queen early", "develops early", "castles early", "same early",    "shelter",    "next to reply",
    "pawn takes",  "centralises",    "king endgame",  "open file",     "king zone"};

// Fitted with the square tables (rules/gap_policy_squares.cpp) on the even games of both corpora
// (GAP_POLICY_FIT=1 bench_gap_ranking: 16,345 positions; mean log-likelihood of the move played -2.238
// there, -2.266 on the odd games; without the opening's tables -2.262 and -2.288, without any table -2.347
// and -2.351; a uniform choice -3.24), rounded.
const MoveFeatures kMoveFeatureWeights = {
    1.070f,   // gain
    -0.379f,  // loss
    1.036f,   // takes last
    0.709f,   // leaves reach
    0.618f,   // defends
    1.619f,   // check
    1.024f,   // castles
    0.477f,   // pawn
    0.259f,   // knight
    -0.118f,  // bishop
    -0.475f,  // rook
    -0.176f,  // queen
    -0.214f,  // king
    -0.160f,  // centre pawn
    0.043f,   // wing pawn
    0.302f,   // develops
    -0.370f,  // rim
    -2.378f,  // hangs
    0.905f,   // escapes
    0.807f,   // threatens
    -0.132f,  // near reply
    -0.101f,  // near own
    -0.264f,  // same piece
    -0.095f,  // back
    0.419f,   // mobility
    -0.506f,  // left to take
    -0.742f,  // promotes
    -4.553f,  // underpromotes
    1.138f,   // recaptures
    0.308f,   // new
    -0.184f,  // queen early
    0.065f,   // develops early
    0.779f,   // castles early
    0.123f,   // same early
    -0.371f,  // shelter
    0.028f,   // next to reply
    0.630f,   // pawn takes
    0.208f,   // centralises
    0.570f,   // king endgame
    0.639f,   // open file
    0.190f,   // king zone
};

namespace {

constexpr int kValue[PIECE_TYPE_NB] = {0, 1, 3, 3, 5, 9, 50};
int value(PieceType t) { return t < PIECE_TYPE_NB ? kValue[t] : 0; }

int king_steps(Square a, Square b) {
  return std::max(std::abs(file_of(a) - file_of(b)), std::abs(rank_of(a) - rank_of(b)));
}

Bitboard reach_of(Color c, PieceType t, Square s, Bitboard occupied) {
  return t == PAWN ? pawn_attacks(c, s) : attacks(t, s, occupied);
}

// Where a move set its piece, for what follows (none for castling and drops).
Square landing(Move m) { return m.is_none() || m.is_drop() || m.kind() == Move::CASTLING ? SQ_NONE : m.to(); }

// The most material the side on move can win by one capture (the exchange that follows counted) or a pawn's
// step to promotion, 0 when none wins anything; from the attacks, pins not minded (cheaper than the moves).
int best_capture(const Position& p) {
  const Color mover = p.side_to_move();
  int best = 0;
  for (Bitboard b = p.pieces(~mover) & ~p.pieces(~mover, KING); b; b &= b - 1) {
    const Square s = lsb(b);
    const Bitboard attackers = p.attackers_to(s) & p.pieces(mover);
    if (!attackers) continue;
    PieceType t = PAWN;
    while (!(attackers & p.pieces(t))) t = PieceType(t + 1);
    const Square from = lsb(attackers & p.pieces(t));
    const bool promotes = t == PAWN && relative_rank(mover, s) == 7;
    best = std::max(best, exchange_gain(p, promotes ? Move::promotion(from, s, QUEEN) : Move::make(from, s)));
  }
  const int up = mover == WHITE ? 8 : -8;
  for (Bitboard b = p.pieces(mover, PAWN); b; b &= b - 1) {
    const Square s = lsb(b);
    if (relative_rank(mover, s) == 6 && p.empty(Square(s + up)))
      best = std::max(best, exchange_gain(p, Move::promotion(s, Square(s + up), QUEEN)));
  }
  return best;
}

// What `m` does in `p` whatever came before: every feature but the context's (context_features below).
// `after` is `p` to make the move on and take it back (a copy of p's whole history per move costs more).
MoveFeatures board_features(const Position& p, Move m, int mobility_before, Position& after) {
  MoveFeatures f{};
  const Color us = p.side_to_move();
  if (m.is_drop()) return f;
  if (m.kind() == Move::CASTLING) {
    f[kMfCastles] = 1;
  } else {
    const PieceType t = type_of(p.piece_on(m.from()));
    f[kMfPawn + (t - PAWN)] = 1;
    const int g = exchange_gain(p, m);
    f[kMfGain] = float(std::max(0, g));
    f[kMfLoss] = float(std::max(0, -g));
    const Bitboard occ = (p.pieces() ^ square_bb(m.from())) | square_bb(m.to());
    if (t == PAWN) {
      const int file = file_of(m.to());
      const int steps = relative_rank(us, m.to()) - relative_rank(us, m.from());
      if (file == 3 || file == 4) f[kMfCentrePawn] = float(steps);
      if (file == 2 || file == 5) f[kMfWingPawn] = float(steps);
      const Square k = p.king_square(us);
      if (relative_rank(us, k) == 0 && (file_of(k) <= 2 || file_of(k) >= 6) &&
          std::abs(file_of(m.from()) - file_of(k)) <= 1)
        f[kMfShelter] = 1;
    } else if ((t == KNIGHT || t == BISHOP) && relative_rank(us, m.from()) == 0) {
      f[kMfDevelops] = 1;
    }
    if (t == KNIGHT && (file_of(m.to()) == 0 || file_of(m.to()) == 7)) f[kMfRim] = 1;
    if (t != PAWN && t != KING) {
      if (!p.is_capture(m)) {
        bool hangs = (pawn_attacks(us, m.to()) & p.pieces(~us, PAWN)) != 0;
        const Bitboard pieces = p.attackers_to(m.to(), occ) & p.pieces(~us) & ~p.pieces(~us, PAWN);
        for (Bitboard b = pieces; b && !hangs; b &= b - 1)
          hangs = value(type_of(p.piece_on(lsb(b)))) < value(t);
        f[kMfHangs] = hangs;
      }
      if (const Bitboard attackers = p.attackers_to(m.from()) & p.pieces(~us)) {
        int least = INT_MAX;
        for (Bitboard b = attackers; b; b &= b - 1)
          least = std::min(least, value(type_of(p.piece_on(lsb(b)))));
        f[kMfEscapes] = least < value(t) || !(p.attackers_to(m.from()) & p.pieces(us));
      }
    }
    if (t == PAWN && p.is_capture(m)) f[kMfPawnTakes] = 1;
    if (t == KNIGHT || t == BISHOP || t == QUEEN) {
      const auto centre = [](Square s) {
        return std::max(std::abs(2 * file_of(s) - 7), std::abs(2 * rank_of(s) - 7)) / 2;
      };
      f[kMfCentralises] = float(centre(m.from()) - centre(m.to()));
    }
    if (t == KING && !p.pieces(QUEEN) && popcount(p.pieces(us) & ~p.pieces(us, PAWN, KING)) <= 2 &&
        popcount(p.pieces(~us) & ~p.pieces(~us, PAWN, KING)) <= 2)
      f[kMfKingEndgame] = 1;
    if (t == ROOK && !(file_bb(file_of(m.to())) & p.pieces(us, PAWN))) f[kMfOpenFile] = 1;
    const PieceType set = m.is_promotion() ? m.promotion_type() : t;
    if (m.is_promotion()) f[set == QUEEN ? kMfPromotes : kMfUnderpromotes] = 1;
    if (t != KING && (reach_of(us, set, m.to(), occ) & king_attacks(p.king_square(~us)))) f[kMfKingZone] = 1;
    const Bitboard hits =
        reach_of(us, set, m.to(), occ) & p.pieces(~us) & ~p.pieces(~us, KING) & ~p.pieces(~us, PAWN);
    for (Bitboard b = hits; b; b &= b - 1) {
      const Square s = lsb(b);
      if (value(type_of(p.piece_on(s))) > value(set) || !(p.attackers_to(s, occ) & p.pieces(~us))) {
        f[kMfThreatens] = 1;
        break;
      }
    }
  }
  if (p.gives_check(m)) f[kMfCheck] = 1;
  if (p.fullmove_number() <= 12) {
    f[kMfDevelopsEarly] = f[kMfDevelops];
    f[kMfCastlesEarly] = f[kMfCastles];
  }
  if (p.fullmove_number() <= 10) f[kMfQueenEarly] = f[kMfQueen];
  after.do_move(m);
  f[kMfMobility] = float(side_mobility(after, us) - mobility_before) / 16.0f;
  f[kMfLeftToTake] = float(best_capture(after));
  after.undo_move(m);
  return f;
}

// The features ContextFeatures sets (board_features leaves them 0).
constexpr std::array<std::size_t, 11> kContextFeatures = {
    kMfTakesLast, kMfRecaptures, kMfLeavesReach, kMfDefends, kMfNearReply, kMfNextToReply,
    kMfNearOwn,   kMfSamePiece,  kMfSameEarly,   kMfBack,    kMfNew};

// A move's context as the features read it: MoveContext without its vector (pointed to).
struct Context {
  Move last = Move::none(), own_last = Move::none();
  bool last_captured = false;
  const std::vector<std::uint16_t>* earlier = nullptr;  // null when unknown
};

// The context's part, for one position and context, move after move.
class ContextFeatures {
 public:
  ContextFeatures(const Position& p, const Context& ctx)
      : p_(p), ctx_(ctx), last_to_(landing(ctx.last)), own_to_(landing(ctx.own_last)) {
    if (last_to_ != SQ_NONE) {
      const Piece mover = p.piece_on(last_to_);
      if (mover != NO_PIECE) reach_ = reach_of(color_of(mover), type_of(mover), last_to_, p.pieces());
      threatened_ = reach_ & p.pieces(p.side_to_move()) & ~p.pieces(p.side_to_move(), KING);
    }
  }
  // The context's part of `m`'s score under `w`.
  double score(Move m, const MoveFeatures& w) const {
    MoveFeatures f{};
    of(m, f);
    double v = 0;
    for (std::size_t i : kContextFeatures) v += double(w[i]) * double(f[i]);
    return v;
  }
  // Sets the context's features of `m` in `f`.
  void of(Move m, MoveFeatures& f) const {
    if (m.is_drop()) return;
    if (ctx_.earlier && !std::binary_search(ctx_.earlier->begin(), ctx_.earlier->end(), m.raw()))
      f[kMfNew] = 1;
    if (m.kind() == Move::CASTLING) return;
    if (last_to_ != SQ_NONE) {
      if (m.to() == last_to_) {
        f[kMfTakesLast] = 1;
        if (ctx_.last_captured) f[kMfRecaptures] = 1;
      }
      if (reach_ & square_bb(m.from())) f[kMfLeavesReach] = 1;
      if (const Bitboard threatened = threatened_ & ~square_bb(m.from())) {
        const Piece own = p_.piece_on(m.from());
        const Bitboard occ = (p_.pieces() ^ square_bb(m.from())) | square_bb(m.to());
        if (reach_of(color_of(own), type_of(own), m.to(), occ) & threatened) f[kMfDefends] = 1;
      }
      f[kMfNearReply] = float(king_steps(m.to(), last_to_));
      if (king_steps(m.to(), last_to_) <= 1) f[kMfNextToReply] = 1;
    }
    if (own_to_ != SQ_NONE) {
      f[kMfNearOwn] = float(king_steps(m.from(), own_to_));
      if (m.from() == own_to_) {
        f[kMfSamePiece] = 1;
        if (p_.fullmove_number() <= 12) f[kMfSameEarly] = 1;
        if (m.to() == ctx_.own_last.from()) f[kMfBack] = 1;
      }
    }
  }

 private:
  const Position& p_;
  const Context& ctx_;
  Square last_to_, own_to_;
  Bitboard reach_ = 0, threatened_ = 0;
};

Context context_of(const MoveContext& c) {
  return {c.last, c.own_last, c.last_captured, c.earlier_known ? &c.earlier : nullptr};
}

double dot(const MoveFeatures& w, const MoveFeatures& f) {
  double v = 0;
  for (std::size_t i = 0; i < kMoveFeatureCount; ++i) v += double(w[i]) * double(f[i]);
  return v;
}

}  // namespace

std::optional<SquareTerms> square_terms(const Position& p, Move m) {
  if (m.is_drop() || m.kind() == Move::CASTLING) return std::nullopt;
  const Color us = p.side_to_move();
  const std::size_t kind = std::size_t(type_of(p.piece_on(m.from())) - PAWN) * 64;
  const auto seen = [us](Square s) { return std::size_t(us == WHITE ? int(s) : int(s) ^ 56); };
  const std::size_t left = kind + seen(m.from()), reached = kSquaresPerTable + kind + seen(m.to());
  SquareTerms t{{left, reached, 2 * kSquaresPerTable + left, 2 * kSquaresPerTable + reached}, 0.0f};
  if (!p.chess960() && p.fullmove_number() <= kOpeningMoves)
    t.opening = float(kOpeningMoves + 1 - p.fullmove_number()) / float(kOpeningMoves);
  return t;
}

std::vector<std::uint16_t> legal_raw(const Position& p) {
  std::vector<std::uint16_t> out;
  for (Move m : MoveList(p)) out.push_back(m.raw());
  std::sort(out.begin(), out.end());
  return out;
}

void move_features(const Position& p, const MoveContext& ctx,
                   std::vector<std::pair<Move, MoveFeatures>>& out) {
  out.clear();
  const int before = side_mobility(p, p.side_to_move());
  const Context c = context_of(ctx);
  const ContextFeatures context(p, c);
  Position after = p;
  for (Move m : MoveList(p)) {
    out.emplace_back(m, board_features(p, m, before, after));
    context.of(m, out.back().second);
  }
}

std::vector<double> gap_sequence_log_likelihoods(const Position& before,
                                                 const std::vector<std::vector<Move>>& candidates,
                                                 const MoveContext& first, const MoveFeatures& weights,
                                                 const PolicySquares& squares) {
  // Per position: each legal move's score but the context's part (the sequences of one gap pass through
  // the same positions in other orders, so from other contexts); per position and context: the log of the
  // scores' sum of exponentials.
  struct Board {
    std::vector<std::pair<Move, double>> scores;
    std::vector<std::uint16_t> legal;  // raw, sorted (MoveContext::earlier)
  };
  std::unordered_map<Key, Board> boards;
  auto board_of = [&](const Position& p) -> const Board& {
    auto it = boards.find(p.key());
    if (it != boards.end()) return it->second;
    Board b;
    const int mobility_before = side_mobility(p, p.side_to_move());
    Position after = p;
    for (Move m : MoveList(p)) {
      double score = dot(weights, board_features(p, m, mobility_before, after));
      if (const auto at = square_terms(p, m)) score += at->score(squares);
      b.scores.emplace_back(m, score);
    }
    for (const auto& e : b.scores) b.legal.push_back(e.first.raw());
    std::sort(b.legal.begin(), b.legal.end());
    return boards.emplace(p.key(), std::move(b)).first->second;
  };
  std::unordered_map<std::uint64_t, double> log_z;  // by position and context
  // The sequences walked as a tree: what each ply of the current path knew before its move.
  struct Step {
    double ll = 0;  // the path's log-likelihood up to this ply
    Context ctx;
    Key earlier_key = 0;
    const Board* previous = nullptr;  // the position one ply before, when known
    Key previous_key = 0;
  };
  std::vector<Step> steps{{0.0, context_of(first), first.earlier_known ? first.earlier_key : 0,
                           first.previous ? &board_of(*first.previous) : nullptr,
                           first.previous ? first.previous->key() : 0}};
  std::vector<Move> path;
  Position p = before;
  std::vector<double> out;
  out.reserve(candidates.size());
  for (const auto& sequence : candidates) {
    std::size_t common = 0;
    while (common < path.size() && common < sequence.size() && path[common] == sequence[common]) ++common;
    while (path.size() > common) {
      p.undo_move(path.back());
      path.pop_back();
      steps.pop_back();
    }
    for (std::size_t i = common; i < sequence.size(); ++i) {
      const Move m = sequence[i];
      const Step& st = steps.back();
      const Board& b = board_of(p);
      const ContextFeatures context(p, st.ctx);
      auto with_context = [&](Move mv, double score) { return score + context.score(mv, weights); };
      const std::uint64_t k = p.key() ^ (std::uint64_t(st.ctx.last.raw()) * 0x9E3779B97F4A7C15ull) ^
                              (std::uint64_t(st.ctx.own_last.raw()) * 0xC2B2AE3D27D4EB4Full) ^
                              (st.ctx.last_captured ? 0x165667B19E3779F9ull : 0) ^
                              (st.ctx.earlier ? st.earlier_key * 0xD6E8FEB86659FD93ull : 0);
      auto z = log_z.find(k);
      if (z == log_z.end()) {
        double most = -1e300;
        std::vector<double> scores;
        scores.reserve(b.scores.size());
        for (const auto& [mv, score] : b.scores) {
          scores.push_back(with_context(mv, score));
          most = std::max(most, scores.back());
        }
        double sum = 0;
        for (double v : scores) sum += std::exp(v - most);
        z = log_z.emplace(k, most + std::log(sum)).first;
      }
      double ll = st.ll;
      for (const auto& [mv, score] : b.scores)
        if (mv == m) {
          ll += with_context(mv, score) - z->second;
          break;
        }
      Step next{ll,
                {m, st.ctx.last, p.is_capture(m), st.previous ? &st.previous->legal : nullptr},
                st.previous_key,
                &b,
                p.key()};
      p.do_move(m);
      path.push_back(m);
      steps.push_back(next);
    }
    out.push_back(steps.back().ll);
  }
  return out;
}

}  // namespace eboard::rules
