// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// An oracle for the gap search (rules/gap_search.hpp), written from what a GapQuery means and not from the
// search's code: every legal move tried at every ply, no bound, no cut, no memory. It lists what the
// search must list (the sequences of the first length that reaches the board), and `disagreement` says
// where an answer of search_gap differs from it. Random gaps to ask it about are made by `random_gap`
// from any source of choices: a seeded generator (tests/rules/gap_search_test.cpp) or a fuzzer's bytes
// (tests/fuzz/fuzz_gap_search.cpp). A cut that loses a sequence is a gap told shorter, a sequence missing
// from the arbiter's list, or a wrong move recovered as the only one: what this is for.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/sim/start_positions.hpp"
#include "rules/gap_search.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/wood.hpp"

namespace eboard::rules::oracle {

// Whether `p` shows the query's board: each square's piece, or a promoted piece standing as its side's
// pawn where the query allows it (FQE 11).
inline bool shows(const Position& p, const GapQuery& q) {
  for (Square s = 0; s < 64; ++s) {
    const Piece have = p.piece_on(s);
    if (have == q.board[s]) continue;
    if (q.pawn_may_stay_on_last_rank && have != NO_PIECE && (p.promoted() & square_bb(s)) != 0 &&
        q.board[s] == make_piece(color_of(have), PAWN))
      continue;
    return false;
  }
  return true;
}

struct Listing {
  int plies = 0;  // the first length any sequence reaches the board at; 0: none up to max_plies
  std::vector<std::vector<Move>> sequences;
  bool complete = true;  // false: the oracle's own budget of positions ran out, no answer
};

namespace detail {
inline void walk(Position& p, const GapQuery& q, int plies, std::vector<Move>& line, Listing& out,
                 std::uint64_t& budget) {
  if (budget == 0) {
    out.complete = false;
    return;
  }
  --budget;
  if (plies == 0) {
    if (shows(p, q)) out.sequences.push_back(line);
    return;
  }
  for (Move m : MoveList(p)) {
    if (m.is_promotion() && !(q.promotion_types & (1u << m.promotion_type()))) continue;
    line.push_back(m);
    p.do_move(m);
    walk(p, q, plies - 1, line, out, budget);
    p.undo_move(m);
    line.pop_back();
    if (!out.complete) return;
  }
}
}  // namespace detail

// Every sequence of legal moves (promotions to the query's kinds only) from q.from of the first length
// within [min_plies, max_plies] that ends on the query's board, with the query's side on move if it names
// one; at most `budget` positions tried.
inline Listing every_sequence(const GapQuery& q, std::uint64_t budget) {
  Listing out;
  for (int d = std::max(1, q.min_plies); d <= q.max_plies; ++d) {
    const Color after = d % 2 == 0 ? q.from.side_to_move() : ~q.from.side_to_move();
    if (q.side_to_move && *q.side_to_move != after) continue;
    Position p = q.from;
    std::vector<Move> line;
    detail::walk(p, q, d, line, out, budget);
    if (!out.complete) return out;
    if (!out.sequences.empty()) {
      out.plies = d;
      return out;
    }
  }
  return out;
}

inline std::string text(const Position& from, const std::vector<Move>& moves) {
  Position p = from;
  std::string s;
  for (Move m : moves) {
    s += (s.empty() ? "" : " ") + to_uci(p, m);
    p.do_move(m);
  }
  return s;
}

// The board a FEN's first field shows (rules/wood.hpp's board_text's inverse; any piece on any square, pawns
// on the last rank included, as a board may show them).
inline std::array<Piece, 64> board_of(std::string_view placement) {
  std::array<Piece, 64> b{};
  int rank = 7, file = 0;
  for (char ch : placement) {
    if (ch == '/') {
      --rank;
      file = 0;
    } else if (ch >= '1' && ch <= '8') {
      file += ch - '0';
    } else if (rank >= 0 && file < 8) {
      const PieceType t = piece_type_from_char(ch);
      if (t != NO_PIECE_TYPE)
        b[std::size_t(rank) * 8 + std::size_t(file)] = make_piece(ch >= 'a' ? BLACK : WHITE, t);
      ++file;
    }
  }
  return b;
}

inline bool before(const std::vector<Move>& a, const std::vector<Move>& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](Move x, Move y) { return x.raw() < y.raw(); });
}

inline std::vector<std::vector<Move>> sorted(std::vector<std::vector<Move>> v) {
  std::sort(v.begin(), v.end(), before);
  return v;
}

// What differs between the search's answers to `q` (the listing, and the probe that asks only whether a
// story exists) and the oracle's; nullopt where they agree, or where either ran out of work (no answer to
// compare: `compared`, if given, is left false then).
inline std::optional<std::string> disagreement(GapQuery q, std::uint64_t oracle_budget,
                                               bool* compared = nullptr) {
  if (compared) *compared = false;
  q.max_nodes = 20'000'000;
  const Listing truth = every_sequence(q, oracle_budget);
  if (!truth.complete) return std::nullopt;
  const GapResult listed = search_gap(q);
  if (listed.exhausted || listed.truncated) return std::nullopt;
  if (compared) *compared = true;
  const std::string where = q.from.fen(true) + " to " + board_text(q.board);
  if (listed.plies != truth.plies)
    return "from " + where + ": the search tells " + std::to_string(listed.plies) + " plies, the oracle " +
           std::to_string(truth.plies) +
           (truth.sequences.empty() ? "" : " (" + text(q.from, truth.sequences[0]) + ")");
  const auto found = sorted(listed.sequences), all = sorted(truth.sequences);
  if (found != all) {
    for (const auto& s : all)
      if (!std::binary_search(found.begin(), found.end(), s, before))
        return "from " + where + ": the search lacks " + text(q.from, s);
    return "from " + where + ": the search lists " + std::to_string(found.size()) +
           " sequences, the oracle " + std::to_string(all.size());
  }
  GapQuery probe = q;
  probe.max_candidates = 1;
  const GapResult exists = search_gap(probe);
  if (exists.exhausted) return std::nullopt;
  if (exists.plies != truth.plies)
    return "from " + where + ": asked whether a story exists, the search tells " +
           std::to_string(exists.plies) + " plies, the oracle " + std::to_string(truth.plies);
  if (exists.plies > 0 &&
      (exists.sequences.size() != 1 || std::find(all.begin(), all.end(), exists.sequences[0]) == all.end()))
    return "from " + where + ": asked whether a story exists, the search's is not the oracle's";
  return std::nullopt;
}

// A random gap: a start (standard, Chess960, crazyhouse or bughouse, or an ending of either drop variant
// where pawns promote), a random game of some plies from it,
// then 1 to 3 random moves the board shows the end of (at times with a piece moved or taken off as well,
// a board nothing may explain; in bughouse at times a promoted piece left standing as its pawn, and
// pieces given by the partner in the reserves). `choose(n)` gives a number in [0, n).
// `kind`, if given, is told the start: 0 standard, 1 Chess960, 2 crazyhouse, 3 bughouse, 4 an ending.
template <class Choose>
GapQuery random_gap(Choose&& choose, int* kind_out = nullptr) {
  // Endings where pawns promote and promoted pieces go on (drops, FQE 11): rare in random games.
  static constexpr const char* kPromotions[] = {
      "r6k/1P1P4/8/8/8/8/4n3/1Q2K3[] w - - 0 1", "7k/1P1P1P2/8/8/2b5/8/8/1Q2K3[] w - - 0 1",
      "2r4k/1P1P4/8/8/8/8/8/1Q2K1N1[] w - - 0 1", "7k/1P3P2/8/8/8/8/6q1/R3K3[n] w - - 0 1",
      "1Q~5k/6P1/2n5/8/8/8/8/1Q2K3[] b - - 0 1"};
  const int kind = int(choose(5));
  if (kind_out) *kind_out = kind;
  Position p = Position::start();
  if (kind == 1)
    p = *Position::from_fen(sim::chess960_start_fen(int(choose(960))), Variant::Chess, true);
  else if (kind == 2)
    p = Position::start(Variant::Crazyhouse);
  else if (kind == 3)
    p = Position::start(Variant::Bughouse);
  else if (kind == 4)
    p = *Position::from_fen(kPromotions[choose(std::size(kPromotions))],
                            choose(2) == 0 ? Variant::Crazyhouse : Variant::Bughouse);
  const int before = int(choose(kind == 4 ? 8 : 70));
  for (int i = 0; i < before; ++i) {
    const MoveList legal(p);
    if (legal.empty()) break;
    p.do_move(*(legal.begin() + choose(legal.size())));
  }
  GapQuery q;
  if (p.variant() == Variant::Bughouse)
    for (Color c : {WHITE, BLACK})
      for (PieceType t : {PAWN, KNIGHT, BISHOP, ROOK, QUEEN})
        if (choose(6) == 0) p.set_pocket(c, t, p.pocket(c, t) + 1);  // the partner's captures
  q.from = p;
  const int played = 1 + int(choose(3));
  for (int i = 0; i < played; ++i) {
    const MoveList legal(p);
    if (legal.empty()) break;
    p.do_move(*(legal.begin() + choose(legal.size())));
  }
  q.board = p.board();
  q.max_plies = 3;
  q.min_plies = choose(4) == 0 ? played : 1;
  if (choose(2) == 0) q.side_to_move = p.side_to_move();
  if (choose(5) == 0) q.promotion_types = 1u << QUEEN;
  if (p.variant() == Variant::Bughouse && choose(2) == 0) {
    q.pawn_may_stay_on_last_rank = true;
    for (Bitboard b = p.promoted(); b; b &= b - 1)
      if (choose(2) == 0) q.board[lsb(b)] = make_piece(color_of(p.piece_on(lsb(b))), PAWN);
  }
  if (choose(5) == 0) {  // a piece moved or taken off besides
    const Square s = Square(choose(64)), to = Square(choose(64));
    if (q.board[s] != NO_PIECE && type_of(q.board[s]) != KING) {
      if (q.board[to] == NO_PIECE && choose(2) == 0) q.board[to] = q.board[s];
      q.board[s] = NO_PIECE;
    }
  }
  return q;
}

}  // namespace eboard::rules::oracle
