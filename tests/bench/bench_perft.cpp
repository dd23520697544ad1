// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Perft speed of our move generator, side by side with Stockfish (standard chess) and Fairy-Stockfish
// (crazyhouse) measured in the same run on the same positions, single thread: 5 runs of each, ours and the
// anchor's in turn, so that a shared machine's slow spell falls on both; medians, and the ratio as the median
// of each pair's (what the shared machine perturbs least).
// Goal (issue 2): at least Stockfish's speed on chess, at least 3x Fairy-Stockfish's on crazyhouse.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "rules/movegen.hpp"
#include "tests/bench/uci_engine.hpp"

using namespace eboard;

namespace {

struct Case {
  const char* name;
  rules::Variant variant;
  const char* fen;
  int depth;
};

constexpr Case CASES[] = {
    {"chess start", rules::Variant::Chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6},
    {"kiwipete", rules::Variant::Chess,
     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5},
    {"crazyhouse start", rules::Variant::Crazyhouse,
     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1", 6},
    {"crazyhouse middlegame, full pockets", rules::Variant::Crazyhouse,
     "r2q1rk1/ppp2ppp/2n1b3/3pp3/4P3/2PP1N2/PP3PPP/R1BQ1RK1[NBPnbp] w - - 0 10", 4},
};
constexpr int RUNS = 5;

}  // namespace

int main() {
  bench::UciEngine stockfish({"/usr/games/stockfish", "/usr/bin/stockfish"});
  bench::UciEngine fairy({"/usr/games/fairy-stockfish", "/usr/bin/fairy-stockfish"});
  if (fairy.available()) {
    fairy.send("setoption name UCI_Variant value crazyhouse");
    fairy.sync();
  }
  std::printf("%-38s %5s %12s %10s %10s %8s  %s\n", "position", "depth", "nodes", "ours Mn/s", "anchor Mn/s",
              "ratio", "anchor");
  bool all_match = true;
  for (const Case& c : CASES) {
    auto pos = rules::Position::from_fen(c.fen, c.variant);
    if (!pos) {
      std::printf("%s: %s\n", c.name, pos.error().c_str());
      return 1;
    }
    std::vector<double> ours, theirs, pair_ratios;
    std::uint64_t nodes = 0, anchor_nodes = 0;
    bool chess = c.variant == rules::Variant::Chess;
    bench::UciEngine& anchor = chess ? stockfish : fairy;
    const char* anchor_name = chess ? "Stockfish" : "Fairy-Stockfish";
    for (int r = 0; r < RUNS; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      nodes = rules::perft(*pos, c.depth);
      ours.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (!anchor.available()) continue;
      auto res = anchor.perft(std::string("position fen ") + c.fen, c.depth);
      if (!res) continue;
      anchor_nodes = res->first;
      theirs.push_back(res->second);
      pair_ratios.push_back(res->second / ours.back());  // their time over ours: our speed over theirs
    }
    double ours_mnps = double(nodes) / bench::median(ours) / 1e6;
    if (theirs.empty()) {
      std::printf("%-38s %5d %12llu %10.1f %10s %8s  %s not installed\n", c.name, c.depth,
                  static_cast<unsigned long long>(nodes), ours_mnps, "-", "-", anchor_name);
      continue;
    }
    double theirs_mnps = double(anchor_nodes) / bench::median(theirs) / 1e6;
    if (anchor_nodes != nodes) all_match = false;
    std::printf("%-38s %5d %12llu %10.1f %10.1f %7.2fx  %s%s\n", c.name, c.depth,
                static_cast<unsigned long long>(nodes), ours_mnps, theirs_mnps, bench::median(pair_ratios),
                anchor_name, anchor_nodes == nodes ? "" : " (NODE COUNTS DIFFER)");
  }
  return all_match ? 0 : 1;
}
