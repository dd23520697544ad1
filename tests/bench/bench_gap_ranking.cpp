// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gap ranking (issue 30): how often the sequence really played comes first, and among the first three, in
// the list a moves-missed alert shows, over gaps of 1 to 8 plies cut at random points of the corpus games
// (standard blitz with its [%clk] readings, Chess960 with TCEC's `tl=` ones). Two counts, both printed:
// - over every gap (`all`, the measure): a gap the search explains by one sequence alone is the
//   sequence played, recovered, first; a gap whose list does not hold it (a shorter story told, none found,
//   a list cut short) is a miss (`missed`); any other gap counts the rank the sequence played has; on a
//   clock adding 2 s or more a move, the gap's presses are counted, as the daemon counts them, and a gap
//   a shorter story reaches is listed at its length;
// - over the ambiguous gaps only (the ones the arbiter is asked about: several sequences at their true
//   length), beside the search's own order (unranked) as the anchor.
// Each gap is searched as the daemon searches a reconnect: only the stories that end with the side whose
// clock runs on move, with the reconnect's work (search_gap_harder). GAP_NO_SIDE_TO_MOVE=1 and GAP_ONE_WORK=1
// search as this bench did before 2026-12-01 (evening): every story, one search's work. Each corpus also
// prints, over the gaps the clock does not count, how many of those told k plies long were played longer.
// Each corpus then prints how sure the list says it is against how often it is right: the share shown for
// the first sequence, and for the first three together (rules/gap_share.hpp), by range, beside how often the
// sequence played was there (a list lacking it counts as wrong).
// Goal: among the first three in 90 % or more.
// Arguments: gaps per length (200), the seed of the cut points (7919, the README's figures).
// With an engine (GAP_ENGINE, a UCI engine's path, e.g. /usr/games/stockfish; the daemon's [gaps] ranker),
// the same gaps are also ranked by daemon/engine's GapEngineRanker (ENGINE_NODES per position, ENGINE_W its
// weight, ENGINE_TOP candidates reordered) and its figures printed beside the pure ones, with its time per
// gap (median, p99). GAP_HALF=train or held-out takes the even or the odd games of each corpus only (the
// engine's settings were picked on the training half and are reported on the held-out one). GAP_FIT=1
// fits the ranking's weights (rules/gap_features.hpp) again instead, and prints them beside those in use;
// GAP_POLICY_FIT=1 the move policy's (rules/gap_policy.hpp), its square tables written to the file
// GAP_POLICY_SQUARES_OUT names (rules/gap_policy_squares.cpp's form).
// The gaps are ranked with the opening lines the daemon reads by default (pgn-extract's ECO file, when
// installed; rules/gap_openings.hpp), or those of the file GAP_OPENINGS names ("" for none).
// Prints figures; exits non-zero only if the sequence played is missing from a complete candidate list.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "daemon/config/config.hpp"
#include "daemon/engine/gap_engine_ranker.hpp"
#include "rules/gap_features.hpp"
#include "rules/gap_hand.hpp"
#include "rules/gap_openings.hpp"
#include "rules/gap_policy.hpp"
#include "rules/gap_rank.hpp"
#include "rules/gap_search.hpp"
#include "rules/gap_share.hpp"
#include "rules/notation.hpp"
#include "rules/pgn.hpp"
#include "tests/bench/corpus_draws.hpp"

using namespace eboard;
using namespace eboard::rules;
using bench::next_random;
using bench::quantile;
using bench::read_file;

namespace {

struct Gap {
  Position from;
  std::array<Piece, 64> board{};
  std::vector<Move> truth;
  GapEvidence evidence;
  std::size_t game = 0;  // the game's index in its corpus (as loaded)
};

// The context of the move after the first `ply` moves of `g` (rules/gap_policy.hpp), as the daemon's game
// gives it at a gap.
MoveContext context_before(const GameRecord& g, int ply) {
  MoveContext ctx;
  if (ply < 1) return ctx;
  std::vector<Position> at{g.start};
  for (int i = 0; i < ply; ++i) {
    at.push_back(at.back());
    at.back().do_move(g.moves[std::size_t(i)].move);
  }
  const Position& one_before = at[std::size_t(ply - 1)];
  ctx.last = g.moves[std::size_t(ply - 1)].move;
  ctx.last_captured = one_before.is_capture(ctx.last);
  ctx.previous = one_before;
  if (ply >= 2) {
    const Position& two_before = at[std::size_t(ply - 2)];
    ctx.own_last = g.moves[std::size_t(ply - 2)].move;
    ctx.earlier_key = two_before.key();
    ctx.earlier = legal_raw(two_before);
    ctx.earlier_known = true;
  }
  return ctx;
}

// "180+2": the base and the increment, in ms.
std::optional<std::pair<std::int64_t, std::int64_t>> time_control(const GameRecord& g) {
  auto tc = find_tag(g.tags, "TimeControl");
  if (!tc) return std::nullopt;
  std::string s(*tc);
  auto plus = s.find('+');
  if (plus == std::string::npos) return std::nullopt;
  return std::pair{std::int64_t(std::atoll(s.substr(0, plus).c_str())) * 1000,
                   std::int64_t(std::atoll(s.substr(plus + 1).c_str())) * 1000};
}

// TCEC's games (the Chess960 corpus) keep each move's clock in its comment, not as `[%clk]`: `tl=` is the
// mover's time left after the move, its increment added, as a clock shows it. Read as the move's reading.
void clocks_from_comments(GameRecord& g) {
  for (RecordedMove& m : g.moves) {
    const auto at = m.comment.find("tl=");
    if (m.clock_ms || at == std::string::npos) continue;
    if (at > 0 && m.comment[at - 1] != ' ' && m.comment[at - 1] != '{' && m.comment[at - 1] != ',') continue;
    char* end = nullptr;
    const long long ms = std::strtoll(m.comment.c_str() + at + 3, &end, 10);
    if (end != m.comment.c_str() + at + 3 && ms >= 0) m.clock_ms = ms;
  }
}

// One gap of `plies` plies per game, at a random point; the clock readings before and after it as the
// board's clock would show them (the mover's reading after his last move before the gap, or the base).
std::vector<Gap> gaps_of(const std::vector<GameRecord>& games, int plies, std::uint64_t seed) {
  std::vector<Gap> gaps;
  for (std::size_t index = 0; index < games.size(); ++index) {
    const GameRecord& g = games[index];
    const int n = int(g.moves.size());
    if (n < plies + 1) continue;
    const int k = int(next_random(seed) % std::uint64_t(n - plies + 1));
    Position pos = g.start;
    const auto tc = time_control(g);
    std::array<std::optional<std::int64_t>, 2> clock{};
    if (tc) clock = {tc->first, tc->first};
    for (int i = 0; i < k; ++i) {
      clock[pos.side_to_move()] = g.moves[std::size_t(i)].clock_ms;
      pos.do_move(g.moves[std::size_t(i)].move);
    }
    Gap gap{pos, {}, {}, {}, index};
    gap.evidence.before_gap = context_before(g, k);
    gap.evidence.openings = opening_lines_in_use();
    std::array<std::optional<std::int64_t>, 2> after = clock;
    for (int i = k; i < k + plies; ++i) {
      after[pos.side_to_move()] = g.moves[std::size_t(i)].clock_ms;
      gap.truth.push_back(g.moves[std::size_t(i)].move);
      pos.do_move(g.moves[std::size_t(i)].move);
    }
    gap.board = pos.board();
    if (tc && clock[WHITE] && clock[BLACK] && after[WHITE] && after[BLACK]) {
      gap.evidence.time_used_ms =
          std::array<std::int64_t, 2>{*clock[WHITE] - *after[WHITE], *clock[BLACK] - *after[BLACK]};
      gap.evidence.increment_ms = tc->second;
    }
    gaps.push_back(std::move(gap));
  }
  return gaps;
}

// The gap cut with its first move under way: its piece in the air as the board went out of sight (a cable
// pulled mid-move: GapEvidence::hand_at_loss).
void cut_mid_move(Gap& g) {
  std::array<Piece, 64> lifted = g.from.board();
  lifted[g.truth.front().from()] = NO_PIECE;
  g.evidence.hand_at_loss = lifted;
}

// How sure the ranking says it is against how often it is right (rules/gap_share.hpp): over the gaps whose
// list holds two sequences or more, by the share shown for the first (and for the first three together), how
// many gaps, the mean share shown, and how often the sequence played was the first (among the first three).
// A list that lacks it (told shorter, cut short) counts as wrong: the arbiter cannot tell those apart.
struct Calibration {
  static constexpr std::array<double, 6> kBounds = {0.0, 0.25, 0.5, 0.75, 0.9, 1.0000001};
  std::array<int, 5> gaps{}, right{};
  std::array<double, 5> shown{};
  void add(double share, bool hit) {
    std::size_t b = 0;
    while (b + 1 < gaps.size() && share >= kBounds[b + 1]) ++b;
    ++gaps[b];
    right[b] += hit;
    shown[b] += share;
  }
  void add(const Calibration& c) {
    for (std::size_t b = 0; b < gaps.size(); ++b) {
      gaps[b] += c.gaps[b];
      right[b] += c.right[b];
      shown[b] += c.shown[b];
    }
  }
};

struct Row {
  int unique = 0, missed = 0, shorter = 0, all_top1 = 0, all_top3 = 0, engine_all_top1 = 0,
      engine_all_top3 = 0;
  int gaps = 0, ambiguous = 0, top1 = 0, top3 = 0, top16 = 0, search_top1 = 0, search_top3 = 0, missing = 0;
  int engine_top1 = 0, engine_top3 = 0, engine_failed = 0;
  std::size_t candidates = 0;
  // Gaps the clock does not count (no increment of 2 s or more), by the length told (1 to 8 plies): how
  // many, and how many of them were played longer (a detour no board shows).
  std::array<int, 9> uncounted_told{}, uncounted_longer{};
  std::vector<double> rank_ms;    // the pure ranking's time per ambiguous gap
  std::vector<double> engine_ms;  // the engine ranker's time per ambiguous gap (the pure ranking's included)
  Calibration first_share, three_share;  // the first's share, the first three's together
  void add(const Row& r) {
    gaps += r.gaps;
    unique += r.unique;
    missed += r.missed;
    shorter += r.shorter;
    all_top1 += r.all_top1;
    all_top3 += r.all_top3;
    engine_all_top1 += r.engine_all_top1;
    engine_all_top3 += r.engine_all_top3;
    ambiguous += r.ambiguous;
    top1 += r.top1;
    top3 += r.top3;
    top16 += r.top16;
    search_top1 += r.search_top1;
    search_top3 += r.search_top3;
    missing += r.missing;
    engine_top1 += r.engine_top1;
    engine_top3 += r.engine_top3;
    engine_failed += r.engine_failed;
    candidates += r.candidates;
    for (std::size_t k = 0; k < uncounted_told.size(); ++k) {
      uncounted_told[k] += r.uncounted_told[k];
      uncounted_longer[k] += r.uncounted_longer[k];
    }
    first_share.add(r.first_share);
    three_share.add(r.three_share);
    rank_ms.insert(rank_ms.end(), r.rank_ms.begin(), r.rank_ms.end());
    engine_ms.insert(engine_ms.end(), r.engine_ms.begin(), r.engine_ms.end());
  }
};

double worst(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }
// GAP_POLICY_FIT=1: the weights of rules/gap_policy.hpp fitted again: the softmax over each position's legal
// moves of the training games (the even games of each corpus) made to give the moves played the greatest
// likelihood (300 Adam steps from 0, each feature scaled to its root mean square, a small L2 pull; the
// square tables' terms unscaled, pulled by GAP_POLICY_PULL, 3e-4, the best held-out likelihood of 1e-4,
// 3e-4 and 1e-3); the mean log-likelihood per move printed for the training and the held-out games, with
// the weights and tables in use and with those fitted.
// The games of each corpus of one parity (0: the even ones, training; 1: the odd ones).
std::vector<const GameRecord*> games_of(const std::vector<GameRecord>& standard,
                                        const std::vector<GameRecord>& chess960, std::size_t parity) {
  std::vector<const GameRecord*> out;
  for (const auto* corpus : {&standard, &chess960})
    for (std::size_t i = parity; i < corpus->size(); i += 2) out.push_back(&(*corpus)[i]);
  return out;
}

double mean_log_likelihood(const std::vector<const GameRecord*>& games, const MoveFeatures& w,
                           const PolicySquares& squares) {
  double ll = 0;
  std::size_t n = 0;
  for (const GameRecord* g : games) {
    if (g->moves.empty()) continue;
    std::vector<std::vector<Move>> whole{{}};
    for (const auto& rm : g->moves) whole[0].push_back(rm.move);
    ll += gap_sequence_log_likelihoods(g->start, whole, {}, w, squares)[0];
    n += g->moves.size();
  }
  return n ? ll / double(n) : 0.0;
}

// Writes the square tables as rules/gap_policy_squares.cpp holds them; false if the file could not be.
bool write_policy_squares(const std::string& path, const PolicySquares& t, std::size_t positions) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f,
               "// SPDX-License-Identifier: GPL-3.0-or-later\n// Copyright (C) 2026 the eboardd authors\n"
               "// The policy's square tables (rules/gap_policy.hpp), written by `GAP_POLICY_FIT=1 "
               "bench_gap_ranking`\n// (fitted on %zu positions of the even games of both corpora).\n"
               "#include \"rules/gap_policy.hpp\"\n\nnamespace eboard::rules {\n\n"
               "// clang-format off\nconst PolicySquares kPolicySquares = {\n",
               positions);
  static const char* const kinds[] = {"pawn", "knight", "bishop", "rook", "queen", "king"};
  for (std::size_t table = 0; table < kSquareTerms / kSquaresPerTable; ++table)
    for (std::size_t kind = 0; kind < 6; ++kind) {
      std::fprintf(f, "    // %s, squares %s%s (a1..h1, then a2.., from the mover's side)\n", kinds[kind],
                   table % 2 ? "reached" : "left", table >= 2 ? " in the opening" : "");
      for (std::size_t rank = 0; rank < 8; ++rank) {
        std::fprintf(f, "   ");
        for (std::size_t file = 0; file < 8; ++file)
          std::fprintf(f, " %6.3ff,", double(t[table * kSquaresPerTable + kind * 64 + rank * 8 + file]));
        std::fprintf(f, "\n");
      }
    }
  std::fprintf(f, "};\n// clang-format on\n\n}  // namespace eboard::rules\n");
  return std::fclose(f) == 0;
}

void fit_policy(const std::vector<GameRecord>& standard, const std::vector<GameRecord>& chess960) {
  struct Choice {  // a position's legal moves (features and square terms), and the one played
    std::vector<MoveFeatures> f;
    std::vector<SquareTerms> sq;  // none: kSquareTerms, read at 0
    std::size_t played;
  };
  constexpr std::size_t kNone = kSquareTerms;
  std::vector<Choice> set;
  std::vector<std::pair<Move, MoveFeatures>> feats;
  for (const GameRecord* game : games_of(standard, chess960, 0)) {
    const GameRecord& g = *game;
    Position p = g.start;
    for (std::size_t ply = 0; ply < g.moves.size(); ++ply) {
      const auto& rm = g.moves[ply];
      move_features(p, context_before(g, int(ply)), feats);
      Choice x;
      x.played = feats.size();
      for (std::size_t i = 0; i < feats.size(); ++i) {
        x.f.push_back(feats[i].second);
        const auto at = square_terms(p, feats[i].first);
        x.sq.push_back(at ? *at : SquareTerms{{kNone, kNone, kNone, kNone}, 0.0f});
        if (feats[i].first == rm.move) x.played = i;
      }
      if (x.played < feats.size() && feats.size() > 1) set.push_back(std::move(x));
      p.do_move(rm.move);
    }
  }
  // The dense features scaled to their root mean square; the square terms (0 or 1) as they are, pulled
  // harder towards 0 (most squares see few moves).
  const double pull_squares =
      std::getenv("GAP_POLICY_PULL") ? std::atof(std::getenv("GAP_POLICY_PULL")) : 3e-4;
  constexpr std::size_t kAll = kMoveFeatureCount + kSquareTerms;
  std::vector<double> scale(kAll, 1.0), u(kAll, 0.0), m(kAll, 0.0), v(kAll, 0.0);
  double n = 0;
  std::fill(scale.begin(), scale.begin() + kMoveFeatureCount, 0.0);
  for (const auto& x : set)
    for (const auto& f : x.f) {
      for (std::size_t k = 0; k < kMoveFeatureCount; ++k) scale[k] += double(f[k]) * f[k];
      n += 1;
    }
  for (std::size_t k = 0; k < kMoveFeatureCount; ++k) scale[k] = std::sqrt(scale[k] / n) + 1e-9;
  for (int it = 1; it <= 300; ++it) {
    std::vector<double> grad(kAll, 0.0);
    double ll = 0;
    std::vector<double> sc;
    auto square = [&](std::size_t at) { return at != kNone ? u[kMoveFeatureCount + at] : 0.0; };
    for (const auto& x : set) {
      sc.assign(x.f.size(), 0);
      for (std::size_t i = 0; i < x.f.size(); ++i) {
        for (std::size_t k = 0; k < kMoveFeatureCount; ++k) sc[i] += u[k] * x.f[i][k] / scale[k];
        for (std::size_t j = 0; j < x.sq[i].at.size(); ++j) sc[i] += x.sq[i].share(j) * square(x.sq[i].at[j]);
      }
      const double most = *std::max_element(sc.begin(), sc.end());
      double z = 0;
      for (double e : sc) z += std::exp(e - most);
      ll += sc[x.played] - most - std::log(z);
      auto add = [&](std::size_t i, double w) {
        for (std::size_t k = 0; k < kMoveFeatureCount; ++k) grad[k] += w * x.f[i][k] / scale[k];
        for (std::size_t j = 0; j < x.sq[i].at.size(); ++j)
          if (x.sq[i].at[j] != kNone) grad[kMoveFeatureCount + x.sq[i].at[j]] += w * x.sq[i].share(j);
      };
      for (std::size_t i = 0; i < x.f.size(); ++i) add(i, std::exp(sc[i] - most) / z);
      add(x.played, -1.0);
    }
    for (std::size_t k = 0; k < kAll; ++k) {
      const double gk = grad[k] / double(set.size()) + (k < kMoveFeatureCount ? 1e-4 : pull_squares) * u[k];
      m[k] = 0.9 * m[k] + 0.1 * gk;
      v[k] = 0.999 * v[k] + 0.001 * gk * gk;
      u[k] -= 0.05 * (m[k] / (1 - std::pow(0.9, it))) / (std::sqrt(v[k] / (1 - std::pow(0.999, it))) + 1e-8);
    }
    if (it % 100 == 0)
      std::printf("step %d: mean log-likelihood %.4f over %zu positions\n", it, ll / double(set.size()),
                  set.size());
  }
  MoveFeatures fitted{};
  for (std::size_t k = 0; k < kMoveFeatureCount; ++k) fitted[k] = float(u[k] / scale[k]);
  PolicySquares fitted_squares{};
  for (std::size_t k = 0; k < kSquareTerms; ++k) fitted_squares[k] = float(u[kMoveFeatureCount + k]);
  std::printf("policy weights fitted on %zu positions, beside those in use:\n", set.size());
  for (std::size_t k = 0; k < kMoveFeatureCount; ++k)
    std::printf("  %-16s %9.4f %9.4f\n", kMoveFeatureNames[k], double(fitted[k]),
                double(kMoveFeatureWeights[k]));
  if (const char* out = std::getenv("GAP_POLICY_SQUARES_OUT")) {
    if (write_policy_squares(out, fitted_squares, set.size()))
      std::printf("square tables written to %s\n", out);
    else
      std::fprintf(stderr, "cannot write %s\n", out);
  }
  for (std::size_t parity : {0, 1}) {
    const auto games = games_of(standard, chess960, parity);
    std::printf("%-9s mean log-likelihood a move: in use %.4f, fitted %.4f\n",
                parity ? "held-out" : "training",
                mean_log_likelihood(games, kMoveFeatureWeights, kPolicySquares),
                mean_log_likelihood(games, fitted, fitted_squares));
  }
}

// The engine ranker, when GAP_ENGINE names one.
engine::GapEngineRanker* ranker = nullptr;

void count(Row& row, const Gap& g, int plies) {
  ++row.gaps;
  GapQuery q;
  q.from = g.from;
  q.board = g.board;
  q.max_plies = plies;
  // The side on move after the gap is the side whose clock runs at the reconnect: the daemon searches only
  // stories that end with it on move (Reconstructor::search_gap_to). GAP_NO_SIDE_TO_MOVE=1 searches every
  // story, as measured before 2026-12-01 (evening).
  if (!std::getenv("GAP_NO_SIDE_TO_MOVE"))
    q.side_to_move = plies % 2 ? ~g.from.side_to_move() : g.from.side_to_move();
  // With the daemon's work: its reconnect's search is allowed kGapRetryWork times the query's bound.
  GapResult r = std::getenv("GAP_ONE_WORK") ? search_gap(q) : search_gap_harder(q);
  // A clock adding 2 s or more a move counts the gap's presses (rules/press_count.hpp): where a shorter story
  // reaches the board, the daemon lists the stories of the counted length instead.
  const bool counts = g.evidence.time_used_ms && g.evidence.increment_ms >= 2000;
  if (r.plies > 0 && r.plies < plies && counts) {
    q.min_plies = plies;
    if (GapResult counted = search_gap(q); counted.plies == plies && !counted.exhausted)
      r = std::move(counted);
  }
  // Not counted, and the board out of sight with the first move under way (cut_mid_move): where no shortest
  // story of the side the clock puts on move begins with the hand's move, the daemon lists the shortest that
  // do (rules/gap_hand.hpp).
  if (r.plies > 0 && r.plies < plies && !counts && g.evidence.hand_at_loss) {
    GapQuery by_clock = q;
    by_clock.side_to_move = plies % 2 ? ~g.from.side_to_move() : g.from.side_to_move();
    if (auto began = stories_the_hand_began(by_clock, search_gap(by_clock), *g.evidence.hand_at_loss))
      r = std::move(*began);
  }
  if (!counts && r.plies >= 1 && r.plies <= 8 && !r.exhausted) {
    ++row.uncounted_told[std::size_t(r.plies)];
    row.uncounted_longer[std::size_t(r.plies)] += r.plies < plies;
  }
  const auto truth =
      r.plies == plies ? std::find(r.sequences.begin(), r.sequences.end(), g.truth) : r.sequences.end();
  // The list as the arbiter reads it (ranked once, timed: the ranking's time per gap below) and its shares.
  std::vector<std::size_t> order;
  double rank_ms = 0;
  if (r.sequences.size() >= 2) {
    const auto t0 = std::chrono::steady_clock::now();
    order = rank_gap_candidates(g.from, r.sequences, g.evidence);
    rank_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const std::vector<double> shares = gap_sequence_shares(g.from, r.sequences, g.evidence);
    const std::size_t at =
        truth == r.sequences.end() ? order.size() : std::size_t(truth - r.sequences.begin());
    const std::size_t place = std::size_t(std::find(order.begin(), order.end(), at) - order.begin());
    row.first_share.add(shares[order[0]], place == 0);
    row.three_share.add(shares[order[0]] + shares[order[1]] + (order.size() > 2 ? shares[order[2]] : 0.0),
                        place < 3);
  }
  if (truth == r.sequences.end()) ++row.missed;  // told shorter, none found, or the list cut short
  if (r.plies != plies) ++row.shorter;           // told shorter, or none found
  if (r.plies == plies && r.sequences.size() == 1 && truth != r.sequences.end()) {
    ++row.unique;  // recovered: first, whatever the ranking
    ++row.all_top1;
    ++row.all_top3;
    ++row.engine_all_top1;
    ++row.engine_all_top3;
  }
  if (r.plies != plies || r.sequences.size() < 2) return;
  ++row.ambiguous;
  row.candidates += r.sequences.size();
  if (truth == r.sequences.end()) {
    if (!r.truncated && !r.exhausted) ++row.missing;
    return;
  }
  const std::size_t in_search = std::size_t(truth - r.sequences.begin());
  row.search_top1 += in_search == 0;
  row.search_top3 += in_search < 3;
  const GapEvidence& ev = g.evidence;
  row.rank_ms.push_back(rank_ms);
  const std::size_t rank = std::size_t(std::find(order.begin(), order.end(), in_search) - order.begin());
  if (ranker) {
    const auto t1 = std::chrono::steady_clock::now();
    const auto judged = ranker->rank(g.from, r.sequences, ev);
    row.engine_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count());
    // A failure counts as the pure order (what the daemon then shows).
    const std::vector<std::size_t>& o = judged ? *judged : order;
    row.engine_failed += !judged;
    const std::size_t at = std::size_t(std::find(o.begin(), o.end(), in_search) - o.begin());
    row.engine_top1 += at == 0;
    row.engine_top3 += at < 3;
    row.engine_all_top1 += at == 0;
    row.engine_all_top3 += at < 3;
  }
  if (std::getenv("GAP_DEBUG") && rank >= 3 && plies <= 8) {
    auto line = [&](const std::vector<Move>& seq) {
      std::string out;
      Position p = g.from;
      for (Move m : seq) {
        out += to_uci(p, m) + " ";
        p.do_move(m);
      }
      return out;
    };
    const auto costs = gap_sequence_costs(g.from, r.sequences, g.evidence);
    std::printf("rank %zu of %zu: truth %s(%.1f) | first %s(%.1f) | %s\n", rank + 1, order.size(),
                line(g.truth).c_str(), costs[in_search], line(r.sequences[order[0]]).c_str(), costs[order[0]],
                g.from.fen().c_str());
  }
  row.top1 += rank == 0;
  row.top3 += rank < 3;
  row.all_top1 += rank == 0;
  row.all_top3 += rank < 3;
  row.top16 += rank < 16;
}

double pct(int a, int b) { return b ? 100.0 * a / b : 0.0; }

// GAP_FIT=1: the weights of rules/gap_features.hpp fitted again. The ambiguous gaps of 3 to 8 plies (400 per
// length, three draws of cut points, with and without the hand at the loss) whose list holds the sequence
// played; the even games of each corpus train, the odd ones of the first draw measure. The fit is a
// conditional logit: each gap's sequences weighed by exp(-cost), the likelihood of the one played made
// greatest (Adam steps from the weights in use, a small L2 pull towards 0; kClockShort left as it is: the
// sequences of one gap tie on it).
struct FitGap {
  bool train = false;
  int variant = 0;  // 0 standard, 1 Chess960
  std::size_t truth = 0;
  std::vector<GapFeatures> features;
};

// Where the played sequence ranks under `w` (ties keep the search's order, as the ranking's stable sort).
std::size_t rank_under(const FitGap& g, const GapFeatures& w) {
  auto cost = [&](const GapFeatures& f) {
    double c = 0;
    for (std::size_t k = 0; k < kGapFeatureCount; ++k) c += w[k] * f[k];
    return c;
  };
  const double played = cost(g.features[g.truth]);
  std::size_t rank = 0;
  for (std::size_t i = 0; i < g.features.size(); ++i) {
    const double c = cost(g.features[i]);
    rank += c < played || (c == played && i < g.truth);
  }
  return rank;
}

void fit_weights(const std::vector<GameRecord>& standard, const std::vector<GameRecord>& chess960) {
  std::vector<FitGap> gaps;
  const std::uint64_t draws[] = {7919, 104729, 15485863};
  for (std::uint64_t draw : draws)
    for (int variant = 0; variant < 2; ++variant)
      for (bool hand : {false, true})
        for (int plies = 3; plies <= 8; ++plies) {
          int drawn = 0;
          for (std::uint64_t seed = 1; drawn < 400 && seed < 64; ++seed) {
            auto cut = gaps_of(variant == 0 ? standard : chess960, plies, seed * draw + std::uint64_t(plies));
            if (cut.empty()) break;
            for (auto& g : cut) {
              if (drawn++ >= 400) break;
              const bool train = g.game % 2 == 0;
              if (!train && draw != draws[0]) continue;
              if (hand) cut_mid_move(g);
              GapQuery q;
              q.from = g.from;
              q.board = g.board;
              q.max_plies = plies;
              const GapResult r = search_gap(q);
              const auto t = std::find(r.sequences.begin(), r.sequences.end(), g.truth);
              if (r.plies != plies || r.sequences.size() < 2 || t == r.sequences.end()) continue;
              gaps.push_back({train, variant, std::size_t(t - r.sequences.begin()),
                              gap_sequence_features(g.from, r.sequences, g.evidence)});
            }
          }
        }
  // Each feature scaled to its root mean square over the candidates, so that one step size fits all.
  GapFeatures scale{};
  double n = 0;
  for (const auto& g : gaps)
    for (const auto& f : g.features) {
      for (std::size_t k = 0; k < kGapFeatureCount; ++k) scale[k] += f[k] * f[k];
      n += 1;
    }
  for (double& x : scale) x = std::sqrt(x / std::max(1.0, n)) + 1e-9;
  GapFeatures u{}, m{}, v{};
  for (std::size_t k = 0; k < kGapFeatureCount; ++k) u[k] = kGapFeatureWeights[k] * scale[k];
  constexpr double kStep = 0.05, kPull = 1e-3;
  for (int it = 1; it <= 400; ++it) {
    GapFeatures grad{};
    int count = 0;
    for (const auto& g : gaps) {
      if (!g.train) continue;
      ++count;
      std::vector<double> c(g.features.size());
      for (std::size_t i = 0; i < c.size(); ++i)
        for (std::size_t k = 0; k < kGapFeatureCount; ++k) c[i] += u[k] * g.features[i][k] / scale[k];
      const double least = *std::min_element(c.begin(), c.end());
      double z = 0;
      for (double x : c) z += std::exp(least - x);
      for (std::size_t i = 0; i < c.size(); ++i) {
        const double p = std::exp(least - c[i]) / z;
        for (std::size_t k = 0; k < kGapFeatureCount; ++k) grad[k] -= p * g.features[i][k] / scale[k];
      }
      for (std::size_t k = 0; k < kGapFeatureCount; ++k) grad[k] += g.features[g.truth][k] / scale[k];
    }
    for (std::size_t k = 0; k < kGapFeatureCount; ++k) {
      if (k == kClockShort) continue;
      const double gk = grad[k] / std::max(1, count) + kPull * u[k];
      m[k] = 0.9 * m[k] + 0.1 * gk;
      v[k] = 0.999 * v[k] + 0.001 * gk * gk;
      const double mh = m[k] / (1 - std::pow(0.9, it)), vh = v[k] / (1 - std::pow(0.999, it));
      u[k] -= kStep * mh / (std::sqrt(vh) + 1e-8);
    }
  }
  GapFeatures fitted{};
  for (std::size_t k = 0; k < kGapFeatureCount; ++k) fitted[k] = u[k] / scale[k];
  std::printf("weights fitted on %zu training gaps (of %zu), beside those in use:\n",
              std::size_t(std::count_if(gaps.begin(), gaps.end(), [](const FitGap& g) { return g.train; })),
              gaps.size());
  for (std::size_t k = 0; k < kGapFeatureCount; ++k)
    std::printf("  %-24s %9.4f %9.4f\n", kGapFeatureNames[k], fitted[k], kGapFeatureWeights[k]);
  for (bool train : {true, false})
    for (int variant = 0; variant < 2; ++variant) {
      int count = 0, used1 = 0, used3 = 0, fit1 = 0, fit3 = 0;
      for (const auto& g : gaps) {
        if (g.train != train || g.variant != variant) continue;
        ++count;
        const std::size_t a = rank_under(g, kGapFeatureWeights), b = rank_under(g, fitted);
        used1 += a == 0;
        used3 += a < 3;
        fit1 += b == 0;
        fit3 += b < 3;
      }
      std::printf(
          "%-9s %-9s %5d ambiguous gaps: in use first %5.1f %%, first three %5.1f %%; fitted %5.1f %%, %5.1f "
          "%%\n",
          variant == 0 ? "standard" : "chess960", train ? "training" : "held-out", count, pct(used1, count),
          pct(used3, count), pct(fit1, count), pct(fit3, count));
    }
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 200;  // gaps per variant and length
  if (samples < 1 || argc > 3) {
    std::fprintf(stderr,
                 "usage: bench_gap_ranking [gaps per length (200)] [seed of the cut points (7919)]\n");
    return 2;
  }
  // Where the gaps are cut: 7919 is the fixed seed of the figures in the README; another one draws other gaps
  // of the same games (the check that the ranking was not fitted to one draw).
  std::uint64_t base_seed = 7919;
  if (argc > 2) {
    char* end = nullptr;
    base_seed = std::strtoull(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || base_seed == 0) {
      std::fprintf(stderr, "the seed must be a positive number, not %s\n", argv[2]);
      return 2;
    }
  }
  const auto shared = std::filesystem::path(EBOARD_SHARED_DIR) / "corpora";
  if (!std::filesystem::exists(shared)) {
    std::printf("skipped: ../shared is absent\n");
    return 0;
  }
  const std::string half = std::getenv("GAP_HALF") ? std::getenv("GAP_HALF") : "all";
  if (half != "all" && half != "train" && half != "held-out") {
    std::fprintf(stderr, "GAP_HALF must be all, train or held-out, not %s\n", half.c_str());
    return 2;
  }
  // GAP_NO_COMMENT_CLOCKS=1: the Chess960 games without their clocks (clocks_from_comments), as measured
  // before 2026-12-01.
  const bool clocks = !std::getenv("GAP_NO_COMMENT_CLOCKS");
  auto load = [&](const std::filesystem::path& file) {
    std::vector<GameRecord> out;
    std::size_t index = 0;
    if (auto parsed = read_pgn(read_file(file)))
      for (const auto& g : *parsed) {
        const bool even = index++ % 2 == 0;
        if ((half == "train" && !even) || (half == "held-out" && even)) continue;
        if (auto r = replay(g)) {
          if (clocks) clocks_from_comments(*r);
          out.push_back(*r);
        }
      }
    return out;
  };
  // The opening lines, as the daemon's [gaps] openings: before any gap is cut (Gap::evidence holds them).
  const char* openings_env = std::getenv("GAP_OPENINGS");
  const std::string openings = openings_env ? openings_env : config::kDefaultOpenings;
  std::string openings_note = "none";
  if (!openings.empty() && (openings_env || std::filesystem::exists(openings))) {
    auto lines = OpeningLines::from_pgn(read_file(openings));
    if (!lines) {
      std::fprintf(stderr, "GAP_OPENINGS: %s: %s\n", openings.c_str(), lines.error().c_str());
      return 2;
    }
    openings_note = std::to_string(lines->lines()) + " lines from " + openings;
    use_opening_lines(std::make_shared<const OpeningLines>(std::move(*lines)));
  }
  const auto standard =
      load(shared / "pgn" / "standard" / "shakmaty_lichess_db_2025-05_blitz_438games_clk.pgn");
  const auto chess960 = load(shared / "pgn" / "chess960" / "tcec_s20_frc3_final_50games.pgn");
  if (std::getenv("GAP_POLICY_FIT")) {
    if (half != "all") {
      std::fprintf(stderr,
                   "GAP_POLICY_FIT takes both halves (its training and held-out games): unset GAP_HALF\n");
      return 2;
    }
    fit_policy(standard, chess960);
    return 0;
  }
  if (std::getenv("GAP_FIT")) {
    if (half != "all") {
      std::fprintf(stderr, "GAP_FIT takes both halves (its training and held-out gaps): unset GAP_HALF\n");
      return 2;
    }
    fit_weights(standard, chess960);
    return 0;
  }

  std::printf(
      "gap ranking: where the sequence played stands in the moves-missed list (the alert shows 16)\n");
  std::printf("anchor: goal among the first three in 90 %% or more; `search order` is the list unranked\n\n");
  std::printf("games: %s\n", half.c_str());
  std::printf("opening lines: %s\n", openings_note.c_str());
  std::unique_ptr<engine::GapEngineRanker> uci;
  if (const char* e = std::getenv("GAP_ENGINE"); e && *e) {
    engine::GapEngineSettings settings;
    settings.path = e;
    if (const char* n = std::getenv("ENGINE_NODES")) settings.nodes = std::atoi(n);
    if (const char* w = std::getenv("ENGINE_W")) settings.weight = std::atof(w);
    if (const char* t = std::getenv("ENGINE_TOP")) settings.top = std::size_t(std::atoi(t));
    settings.timeout_ms = 60'000;  // measured, not bounded: a slow gap shows in the p99
    uci = std::make_unique<engine::GapEngineRanker>(settings);
    ranker = uci.get();
    std::printf("engine: %s, %d nodes per position, weight %.2f, the first %zu reordered\n", e,
                settings.nodes, settings.weight, settings.top);
  }
  std::printf(
      "columns `all`: over every gap (a unique gap recovered counts first, a gap whose list lacks the\n"
      "sequence played, `missed`, counts as not found; `shorter`: of those, the gaps told shorter or not\n"
      "explained); the others: over the ambiguous gaps only\n");
  std::printf("%-9s %5s %5s %6s %6s %7s %7s %7s | %9s %10s %7s %7s %7s %14s %14s %8s %12s", "variant",
              "plies", "gaps", "unique", "missed", "shorter", "all t-1", "all t-3", "ambiguous", "cands/gap",
              "top-1", "top-3", "top-16", "search top-1", "search top-3", "missing", "rank max ms");
  if (ranker)
    std::printf(" %9s %9s %11s %11s %10s %10s %6s", "eng top-1", "eng top-3", "eng all t-1", "eng all t-3",
                "eng med ms", "eng p99 ms", "failed");
  std::printf("\n");
  int missing = 0;
  auto line = [&](const char* name, const char* plies, const Row& row) {
    std::printf(
        "%-9s %5s %5d %6d %6d %7d %6.1f%% %6.1f%% | %9d %10.1f %6.1f%% %6.1f%% %6.1f%% %13.1f%% %13.1f%% %8d "
        "%12.1f",
        name, plies, row.gaps, row.unique, row.missed, row.shorter, pct(row.all_top1, row.gaps),
        pct(row.all_top3, row.gaps), row.ambiguous,
        row.ambiguous ? double(row.candidates) / row.ambiguous : 0.0, pct(row.top1, row.ambiguous),
        pct(row.top3, row.ambiguous), pct(row.top16, row.ambiguous), pct(row.search_top1, row.ambiguous),
        pct(row.search_top3, row.ambiguous), row.missing, worst(row.rank_ms));
    if (ranker)
      std::printf(" %8.1f%% %8.1f%% %10.1f%% %10.1f%% %10.1f %10.1f %6d", pct(row.engine_top1, row.ambiguous),
                  pct(row.engine_top3, row.ambiguous), pct(row.engine_all_top1, row.gaps),
                  pct(row.engine_all_top3, row.gaps), quantile(row.engine_ms, 0.5),
                  quantile(row.engine_ms, 0.99), row.engine_failed);
    std::printf("\n");
  };
  // `hand`: each gap cut mid-move (cut_mid_move).
  auto report = [&](const char* name, const std::vector<GameRecord>& games, Row& total, bool hand) {
    for (int plies = 1; plies <= 8; ++plies) {
      Row row;
      for (std::uint64_t seed = 1; row.gaps < samples && seed < 64; ++seed) {
        auto gaps = gaps_of(games, plies, seed * base_seed + std::uint64_t(plies));
        if (gaps.empty()) break;
        for (auto& g : gaps) {
          if (hand) cut_mid_move(g);
          if (row.gaps < samples) count(row, g, plies);
        }
      }
      line(name, std::to_string(plies).c_str(), row);
      std::fflush(stdout);
      missing += row.missing;
      total.add(row);
    }
    line(name, "1-8", total);
    // The gaps of 1 to 8 plies drawn alike: of those told k plies long, the share played longer, for the
    // length from which [gaps] hold_uncounted holds a gap (Reconstructor::kOpenLengthPlies).
    std::printf("%-9s clock not counting: told k plies, played longer:", name);
    for (std::size_t k = 1; k <= 8; ++k)
      std::printf(" %zu: %d/%d", k, total.uncounted_longer[k], total.uncounted_told[k]);
    std::printf("\n");
    // The shares shown (rules/gap_share.hpp) against how often they were right: calibrated where the two
    // agree.
    std::printf("%-9s share shown (gaps listing 2 or more): %-11s %6s %7s %7s | %-11s %6s %7s %7s\n", name,
                "first", "gaps", "shown", "right", "first three", "gaps", "shown", "right");
    for (std::size_t b = 0; b < total.first_share.gaps.size(); ++b) {
      const Calibration& f = total.first_share;
      const Calibration& t = total.three_share;
      char range[16];
      std::snprintf(range, sizeof range, "%.2f-%.2f", Calibration::kBounds[b],
                    std::min(1.0, Calibration::kBounds[b + 1]));
      std::printf("%-9s %37s %-11s %6d %6.1f%% %6.1f%% | %-11s %6d %6.1f%% %6.1f%%\n", name, "", range,
                  f.gaps[b], f.gaps[b] ? 100.0 * f.shown[b] / f.gaps[b] : 0.0, pct(f.right[b], f.gaps[b]),
                  range, t.gaps[b], t.gaps[b] ? 100.0 * t.shown[b] / t.gaps[b] : 0.0,
                  pct(t.right[b], t.gaps[b]));
    }
    std::printf("\n");
  };
  Row std_total, c960_total, std_hand, c960_hand;
  report("standard", standard, std_total, false);
  report("chess960", chess960, c960_total, false);
  std::printf(
      "the same gaps, each cut with its first move under way (its piece in the air as the board went\n"
      "out of sight: a cable pulled mid-move)\n");
  report("standard", standard, std_hand, true);
  report("chess960", chess960, c960_hand, true);
  return missing == 0 ? 0 : 1;
}
