// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A reconnect's reading on the event loop (issue 30): the longest single call into the Reconstructor while a
// board comes back after a gap, read with the next mover's piece in the air, then the piece set down and
// pressed. The reading is judged once it is at rest: the board searched as it stands, then each square the
// piece in the hand may have come from (or a victim lifted first) tried with a story probe. Past the
// search's bound (more than 10 plies) every try is in vain, and each holds the event loop, and so every
// other board the daemon follows, while it runs. Gaps of 8, 11 and 14 plies cut at random points of the
// blitz corpus; per length, the median, p99 and worst of each reconnect's longest call, in CPU time of the
// thread (wall time beside it: a loaded machine). Anchor: the daemon's path for one search up to 10 plies,
// p99 under 100 ms (bench_gap_recovery, `+retry p99`); the reading runs a few such searches at most.
// Argument: gaps per length (100). Prints figures, asserts nothing about time.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rules/pgn.hpp"
#include "rules/reconstruct.hpp"
#include "tests/bench/corpus_draws.hpp"

using namespace eboard;
using namespace eboard::rules;
using bench::next_random;
using bench::quantile;
using bench::read_file;

namespace {

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

ClockSide running(Color c) { return c == WHITE ? ClockSide::Left : ClockSide::Right; }

struct Longest {
  double cpu_ms = 0, wall_ms = 0;
};

// One reconnect: the game followed to ply `k`, unplugged, `plies` made unseen, plugged in again with the
// next move's piece lifted; that piece set down three seconds on and pressed; the board's time run on.
Longest reconnect(const GameRecord& g, int k, int plies) {
  Game game(g.start);
  Position p = g.start;
  for (int i = 0; i < k; ++i) {
    game.play(g.moves[std::size_t(i)].move);
    p.do_move(g.moves[std::size_t(i)].move);
  }
  const Board before = p.board();
  const Color first = p.side_to_move();
  for (int i = k; i < k + plies; ++i) p.do_move(g.moves[std::size_t(i)].move);
  const Move next = g.moves[std::size_t(k + plies)].move;
  const Piece held = p.piece_on(next.from());
  Board back = p.board();
  back[next.from()] = NO_PIECE;
  Reconstructor r(ReconstructConfig{}, game);
  Longest longest;
  const auto timed = [&](auto&& call) {
    const double cpu = thread_cpu_ms();
    const auto wall = std::chrono::steady_clock::now();
    call();
    longest.cpu_ms = std::max(longest.cpu_ms, thread_cpu_ms() - cpu);
    longest.wall_ms =
        std::max(longest.wall_ms,
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall).count());
  };
  const std::vector<SensorEvent> events{
      {0, BoardSnapshot{before}},
      {10, ClockReading{300'000, 300'000, true, running(first)}},
      {2'000, DeviceLink{false}},
      {30'000, DeviceLink{true}},
      {30'000, BoardSnapshot{back}},
      {30'010, ClockReading{280'000, 280'000, true, running(p.side_to_move())}}};
  for (const SensorEvent& e : events) timed([&] { r.on_sensor(e); });
  for (std::int64_t t = 30'100; t < 33'000; t += 100) timed([&] { r.advance(t); });
  timed([&] { r.on_sensor({33'000, PiecePlaced{next.to(), held}}); });
  timed([&] { r.on_sensor({33'500, ClockReading{279'000, 280'000, true, running(~p.side_to_move())}}); });
  for (std::int64_t t = 33'600; t < 40'000; t += 100) timed([&] { r.advance(t); });
  return longest;
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 100;
  const auto file = std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "pgn" / "standard" /
                    "shakmaty_lichess_db_2025-05_blitz_438games_clk.pgn";
  if (!std::filesystem::exists(file)) {
    std::printf("skipped: ../shared is absent\n");
    return 0;
  }
  std::vector<GameRecord> games;
  if (auto parsed = read_pgn(read_file(file)))
    for (const auto& g : *parsed)
      if (auto r = replay(g)) games.push_back(*r);
  std::printf("a reconnect's reading, the next mover's piece in the air: the longest call into the\n");
  std::printf("Reconstructor per reconnect (event loop held), %d gaps per length\n", samples);
  std::printf(
      "anchor: one search on the daemon's path up to 10 plies, p99 under 100 ms (bench_gap_recovery)\n\n");
  std::printf("%6s %6s %12s %12s %12s %14s %13s\n", "plies", "gaps", "cpu med ms", "cpu p99 ms", "cpu max ms",
              "wall p99 ms", "wall max ms");
  for (const int plies : {8, 11, 14}) {
    std::vector<double> cpu, wall;
    std::uint64_t seed = 88172645463325252ull + std::uint64_t(plies);
    for (const GameRecord& g : games) {
      if (int(cpu.size()) >= samples) break;
      const int n = int(g.moves.size());
      if (n < plies + 12) continue;
      const int k = 6 + int(next_random(seed) % std::uint64_t(n - plies - 8));
      const Longest l = reconnect(g, k, plies);
      cpu.push_back(l.cpu_ms);
      wall.push_back(l.wall_ms);
    }
    std::printf("%6d %6zu %12.1f %12.1f %12.1f %14.1f %13.1f\n", plies, cpu.size(), quantile(cpu, 0.5),
                quantile(cpu, 0.99), quantile(cpu, 1.0), quantile(wall, 0.99), quantile(wall, 1.0));
    std::fflush(stdout);
  }
  return 0;
}
