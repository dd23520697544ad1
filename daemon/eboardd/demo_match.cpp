// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/demo_match.hpp"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <tuple>

#include "daemon/eboardd/demo_games.hpp"
#include "daemon/sim/rng.hpp"
#include "daemon/sim/timeline.hpp"

namespace eboard::eboardd {

namespace fs = std::filesystem;
using namespace eboard::rules;

namespace {

std::string tag_of(const PgnTags& tags, const char* name, const char* fallback = "?") {
  auto v = find_tag(tags, name);
  return v ? std::string(*v) : std::string(fallback);
}

// "120" → 120 s; "180+2" → 180 s (the increment is not simulated); anything else → 3 minutes.
std::int64_t base_time_ms(const PgnTags& tags) {
  std::string v = tag_of(tags, "TimeControl", "");
  v = v.substr(0, v.find('+'));
  if (v.empty() || v.size() > 6 ||
      !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 180000;
  return std::stoll(v) * 1000;
}

// The demo's clocks get two minutes more than the record's: simulated hands are slower than the online
// premoves the record's times came from. The TimeControl tag says what the clocks really had.
std::int64_t demo_clock_ms(std::int64_t record_base_ms) { return record_base_ms + 120000; }

using Item = DemoMatchInput;

}  // namespace

// Both boards' timelines: each board's moves timed from the record's clocks; the k-th drop of a piece
// waits for the capture that supplied it (the capturer's press), which in turn moves that board's later
// presses, so the timelines are rebuilt until the waits settle.
DemoMatchPlan plan_demo_match(const BughouseRecord& rec, double speed, std::uint64_t seed) {
  struct Board {
    Position start;
    std::vector<Move> moves;
    std::vector<std::optional<std::int64_t>> clk;
    std::vector<int> supplier;  // per move: for a drop, the other board's move that supplied it (-1: none)
  };
  std::array<Board, 2> boards;
  std::array<Position, 2> pos = rec.start;
  std::map<std::tuple<int, int, int>, std::deque<int>> supply;  // (board, colour, type) → supplying moves
  for (int b = 0; b < 2; ++b) boards[std::size_t(b)].start = rec.start[std::size_t(b)];
  for (const auto& m : rec.moves) {
    Board& bd = boards[std::size_t(m.board)];
    const Position& p = pos[std::size_t(m.board)];
    int supplier = -1;
    if (m.move.is_drop()) {
      auto& q = supply[{m.board, int(p.side_to_move()), int(m.move.drop_type())}];
      if (!q.empty()) {
        supplier = q.front();
        q.pop_front();
      }
    } else if (p.is_capture(m.move)) {
      Square victim = m.move.kind() == Move::EN_PASSANT
                          ? Square(m.move.to() + (p.side_to_move() == WHITE ? -8 : 8))
                          : m.move.to();
      Piece v = p.piece_on(victim);
      supply[{m.board ^ 1, int(color_of(v)), int(p.captured_hand_type(victim))}].push_back(
          int(bd.moves.size()));
    }
    bd.moves.push_back(m.move);
    bd.clk.push_back(m.clock_ms);
    bd.supplier.push_back(supplier);
    play_bughouse_move(pos, m.board, m.move);
  }
  const std::int64_t base = base_time_ms(rec.tags);
  sim::HandStyle style = sim::HandStyle::casual();
  style.reaction_ms = 300;  // no premoves: a scanning board cannot see a reply begun at the press
  style.think_ms.min_ms = std::int64_t(double(style.think_ms.min_ms) / speed);
  style.think_ms.max_ms =
      std::max(style.think_ms.min_ms, std::int64_t(double(style.think_ms.max_ms) / speed));
  std::array<sim::Timeline, 2> tl;
  std::array<std::vector<std::optional<std::int64_t>>, 2> not_before;
  for (int b = 0; b < 2; ++b) not_before[std::size_t(b)].resize(boards[std::size_t(b)].moves.size());
  for (int round = 0; round < 200; ++round) {
    for (int b = 0; b < 2; ++b) {
      const Board& bd = boards[std::size_t(b)];
      sim::TimelineSpec spec;
      spec.start = bd.start;
      spec.moves = bd.moves;
      spec.spent_ms = sim::spent_from_clk(bd.clk, base, 0);
      for (auto& s : spec.spent_ms)
        if (s) *s = std::int64_t(double(*s) / speed);
      spec.not_before_ms = not_before[std::size_t(b)];
      spec.clock = sim::ClockSettings{demo_clock_ms(base), 0};
      spec.white = style;
      spec.black = style;
      spec.seed = sim::derive_seed(seed, std::uint64_t(b) + 1);
      tl[std::size_t(b)] = sim::build_timeline(spec);
    }
    bool changed = false;
    for (int b = 0; b < 2; ++b) {
      const Board& bd = boards[std::size_t(b)];
      for (std::size_t i = 0; i < bd.moves.size(); ++i) {
        if (bd.supplier[i] < 0) continue;
        std::int64_t want = tl[std::size_t(b ^ 1)].press_ms[std::size_t(bd.supplier[i])];
        if (not_before[std::size_t(b)][i] != want) {
          not_before[std::size_t(b)][i] = want;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  DemoMatchPlan out;
  for (int b = 0; b < 2; ++b) {
    for (const auto& e : tl[std::size_t(b)].events) out.inputs.push_back({e.t_ms, b, e, {}});
    // An under-promotion's piece is named at the start of the promoting player's turn.
    const Board& bd = boards[std::size_t(b)];
    for (std::size_t i = 0; i < bd.moves.size(); ++i)
      if (bd.moves[i].is_promotion() && bd.moves[i].promotion_type() != QUEEN) {
        bool white = (bd.start.side_to_move() == WHITE) == (i % 2 == 0);
        std::int64_t t = i == 0 ? 0 : tl[std::size_t(b)].press_ms[i - 1];
        static const char* LETTERS = "??nbrq";
        out.inputs.push_back({t, b, std::nullopt,
                              journal::ControlEntry{0, "promotion", white ? "white" : "black",
                                                    std::string(1, LETTERS[bd.moves[i].promotion_type()])},
                              int(i)});
      }
    out.moves[std::size_t(b)] = bd.moves;
    out.boards[std::size_t(b)] = std::move(tl[std::size_t(b)]);
  }
  // Namings before the sensor events of their time (as the corpus test does).
  std::stable_sort(out.inputs.begin(), out.inputs.end(), [](const Item& x, const Item& y) {
    return std::make_tuple(x.t, x.sensor.has_value(), x.board) <
           std::make_tuple(y.t, y.sensor.has_value(), y.board);
  });
  return out;
}

DemoMatchChoice choose_demo_match(const DemoMatchCorpus& corpus, int n, double speed) {
  n = std::max(1, n);
  DemoMatchChoice c;
  c.index = std::size_t(n - 1) % corpus.size();
  const BughouseRecord& rec = corpus.match(c.index);
  const std::uint64_t seed = std::uint64_t(n) * 1000 + 7;
  c.plan = plan_demo_match(rec, speed, seed);
  char speed_text[32];
  std::snprintf(speed_text, sizeof speed_text, "%g", speed);
  c.label = "corpus match " + std::to_string(c.index + 1) + ", seed " + std::to_string(seed) + ", speed " +
            speed_text;
  for (int b = 0; b < 2; ++b) {
    c.tags[std::size_t(b)] = {{"Event", "eboardd demo"},
                              {"Site", "eboardd --demo"},
                              {"Round", std::to_string(n)},
                              {"White", tag_of(rec.tags, b == 0 ? "WhiteA" : "WhiteB")},
                              {"Black", tag_of(rec.tags, b == 0 ? "BlackA" : "BlackB")},
                              {"TimeControl", std::to_string(demo_clock_ms(base_time_ms(rec.tags)) / 1000)}};
  }
  c.tags[0].push_back({"EboardDemo", c.label});
  c.summary = c.label + ": " + tag_of(rec.tags, "WhiteA") + " & " + tag_of(rec.tags, "BlackB") + " vs " +
              tag_of(rec.tags, "BlackA") + " & " + tag_of(rec.tags, "WhiteB") + ", " +
              std::to_string(rec.moves.size()) + " moves";
  return c;
}

tl::expected<std::shared_ptr<const DemoMatchCorpus>, std::string> DemoMatchCorpus::load(
    const fs::path& path) {
  auto texts = read_demo_corpus(path, ".bpgn");
  if (!texts) return tl::unexpected(texts.error());
  auto corpus = std::make_shared<DemoMatchCorpus>();
  corpus->source_ = path.string();
  for (const std::string& text : *texts) {
    auto games = read_bpgn(text);
    if (!games) continue;
    for (const auto& g : *games) {
      auto rec = replay_bughouse(g);
      if (rec && rec->moves.size() >= 20) corpus->matches_.push_back(std::move(*rec));
    }
  }
  if (corpus->matches_.empty())
    return tl::unexpected("demo corpus " + path.string() +
                          " holds no bughouse match (BPGN) of 20 moves or more");
  return std::shared_ptr<const DemoMatchCorpus>(std::move(corpus));
}

std::vector<fs::path> DemoMatchCorpus::default_locations(const fs::path& executable) {
  return demo_corpus_locations(executable, fs::path("corpora") / "bughouse");
}

}  // namespace eboard::eboardd
