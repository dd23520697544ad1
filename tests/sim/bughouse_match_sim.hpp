// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Two simulated boards for a bughouse match record (shared by the bughouse corpus test and benchmark).
//
// Each board is a sim::build_timeline of its own moves, timed from the BPGN clocks (the time each player
// spent on each move). A drop needs its piece to be captured on the other board first (FQE 21b): the k-th
// drop of a piece type and colour on a board is supplied by the k-th capture that hands such a piece over
// (or the start reserve), so its first touch is held back until that capture's clock press
// (TimelineSpec::not_before_ms; the hand's reserve is fed by sim::play_game). The hand then needs its
// reach (half an air time, 60 ms or more) to set the piece down: the tightest timing the rules allow,
// which makes the drop's placement often reach the reconstruction before the capture is completed. As
// held-back drops shift their board's later presses, the two timelines are built again until the hold-backs
// no longer change.
#pragma once

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "daemon/sim/rng.hpp"
#include "daemon/sim/timeline.hpp"
#include "rules/pgn.hpp"

namespace eboard::sim::test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "120" → 120 s; "180+2" → 180 s + 2 s; "40/300" → 300 s; anything else → 5 minutes.
inline std::pair<std::int64_t, std::int64_t> time_control(const rules::PgnTags& tags) {
  auto tc = rules::find_tag(tags, "TimeControl");
  if (!tc) return {300000, 0};
  std::string v(*tc);
  if (auto slash = v.find('/'); slash != std::string::npos) v = v.substr(slash + 1);
  auto plus = v.find('+');
  try {
    return {std::stoll(v.substr(0, plus)) * 1000,
            plus == std::string::npos ? 0 : std::stoll(v.substr(plus + 1)) * 1000};
  } catch (...) {
    return {300000, 0};
  }
}

// One board of a match as the record gives it.
struct BoardPlan {
  rules::Position start;
  std::vector<rules::Move> moves;
  std::vector<std::optional<std::int64_t>> clk;  // mover's time left after each move
  std::vector<int>
      supplier;  // per move: for a drop, the other board's move index that supplied it (-1: start)
};

struct MatchPlan {
  std::array<BoardPlan, 2> boards;
  std::int64_t base_ms = 0;
  std::string result;
  int drops = 0;
};

inline MatchPlan plan(const rules::BughouseRecord& rec) {
  MatchPlan mp;
  mp.base_ms = time_control(rec.tags).first;
  mp.result = rec.result;
  std::array<rules::Position, 2> pos = rec.start;
  // Pieces on their way to each board's reserves, oldest first: the supplying move (-1: the start).
  std::map<std::tuple<int, int, int>, std::deque<int>> supply;
  for (int b = 0; b < 2; ++b) {
    mp.boards[std::size_t(b)].start = rec.start[std::size_t(b)];
    for (rules::Color c : {rules::WHITE, rules::BLACK})
      for (int t = rules::PAWN; t <= rules::QUEEN; ++t)
        for (int n = 0; n < pos[std::size_t(b)].pocket(c, rules::PieceType(t)); ++n)
          supply[{b, int(c), t}].push_back(-1);
  }
  for (const auto& m : rec.moves) {
    int b = m.board;
    BoardPlan& bp = mp.boards[std::size_t(b)];
    const rules::Position& p = pos[std::size_t(b)];
    int index = int(bp.moves.size());
    int supplier = -1;
    if (m.move.is_drop()) {
      ++mp.drops;
      auto& q = supply[{b, int(p.side_to_move()), int(m.move.drop_type())}];
      if (!q.empty()) {
        supplier = q.front();
        q.pop_front();
      }
    } else if (p.is_capture(m.move)) {
      rules::Square victim = m.move.kind() == rules::Move::EN_PASSANT
                                 ? rules::Square(m.move.to() + (p.side_to_move() == rules::WHITE ? -8 : 8))
                                 : m.move.to();
      rules::Piece v = p.piece_on(victim);
      supply[{b ^ 1, int(rules::color_of(v)), int(p.captured_hand_type(victim))}].push_back(index);
    }
    bp.moves.push_back(m.move);
    bp.clk.push_back(m.clock_ms);
    bp.supplier.push_back(supplier);
    rules::play_bughouse_move(pos, b, m.move);
  }
  return mp;
}

// Time from a capture's press to the partner's first touch of the piece (see above).
constexpr std::int64_t HANDOVER_MS = 0;

struct Built {
  std::array<sim::Timeline, 2> tl;
  int rounds = 0;
};

inline Built build(const MatchPlan& mp, const sim::HandStyle& style, std::uint64_t seed) {
  Built out;
  std::array<std::vector<std::optional<std::int64_t>>, 2> not_before;
  for (int b = 0; b < 2; ++b) not_before[std::size_t(b)].resize(mp.boards[std::size_t(b)].moves.size());
  for (int round = 0; round < 500; ++round) {
    out.rounds = round + 1;
    for (int b = 0; b < 2; ++b) {
      const BoardPlan& bp = mp.boards[std::size_t(b)];
      sim::TimelineSpec spec;
      spec.start = bp.start;
      spec.moves = bp.moves;
      spec.spent_ms = sim::spent_from_clk(bp.clk, mp.base_ms, 0);
      spec.not_before_ms = not_before[std::size_t(b)];
      // Hands cannot premove as on chess.com: generous clocks, so that no flag falls in the simulation.
      spec.clock = sim::ClockSettings{mp.base_ms + 3600000, 0};
      spec.white = style;
      spec.black = style;
      spec.seed = sim::derive_seed(seed, std::uint64_t(b + 1));
      out.tl[std::size_t(b)] = sim::build_timeline(spec);
    }
    bool changed = false;
    for (int b = 0; b < 2; ++b) {
      const BoardPlan& bp = mp.boards[std::size_t(b)];
      for (std::size_t i = 0; i < bp.moves.size(); ++i) {
        int s = bp.supplier[i];
        if (s < 0) continue;
        std::int64_t want = out.tl[std::size_t(b ^ 1)].press_ms[std::size_t(s)] + HANDOVER_MS;
        if (not_before[std::size_t(b)][i] != want) {
          not_before[std::size_t(b)][i] = want;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return out;
}

// A promotion piece a player names (FQE 11: the pawn may stay on the last rank), told at the start of his
// turn: the time, the board, the player and the piece.
struct Naming {
  std::int64_t t;
  int board;
  rules::Color color;
  rules::PieceType type;
};

// The namings a simulated match needs (every promotion to other than a queen), in time order.
inline std::vector<Naming> promotion_namings(const MatchPlan& mp, const Built& built) {
  std::vector<Naming> namings;
  for (int b = 0; b < 2; ++b) {
    const BoardPlan& bp = mp.boards[std::size_t(b)];
    for (std::size_t i = 0; i < bp.moves.size(); ++i)
      if (bp.moves[i].is_promotion() && bp.moves[i].promotion_type() != rules::QUEEN) {
        rules::Color c =
            (bp.start.side_to_move() == rules::WHITE) == (i % 2 == 0) ? rules::WHITE : rules::BLACK;
        std::int64_t t = i == 0 ? 0 : built.tl[std::size_t(b)].press_ms[i - 1];
        namings.push_back({t, b, c, bp.moves[i].promotion_type()});
      }
  }
  std::stable_sort(namings.begin(), namings.end(),
                   [](const Naming& x, const Naming& y) { return x.t < y.t; });
  return namings;
}

}  // namespace eboard::sim::test
