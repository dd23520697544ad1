// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// `eboardctl perft`: node counts of the legal move tree, for one position or a whole suite (CONTRACTS §2).
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>

#include "daemon/tools/checks.hpp"
#include "daemon/tools/commands.hpp"
#include "rules/movegen.hpp"
#include "rules/perft_suite.hpp"

namespace eboard::tools {
namespace {

struct VariantChoice {
  rules::Variant variant;
  bool chess960;
};

const std::map<std::string, VariantChoice> VARIANTS = {
    {"chess", {rules::Variant::Chess, false}},
    {"chess960", {rules::Variant::Chess, true}},
    {"crazyhouse", {rules::Variant::Crazyhouse, false}},
    {"bughouse", {rules::Variant::Bughouse, false}},
};

constexpr unsigned MAX_THREADS = 256;

struct Options {
  std::string variant = "chess";
  std::string fen;
  int depth = 1;
  std::string suite;
  std::uint64_t max_nodes = std::uint64_t(-1);
  unsigned threads = 0;
  bool divide = false;
};

int run_single(const Options& o, VariantChoice v) {
  auto pos = rules::Position::from_fen(o.fen, v.variant, v.chess960);
  if (!pos) {
    std::fprintf(stderr, "eboardctl perft: %s\n", pos.error().c_str());
    return 2;
  }
  if (o.divide && o.depth >= 1) {
    std::uint64_t total = 0;
    for (rules::Move m : rules::MoveList(*pos)) {
      pos->do_move(m);
      std::uint64_t n = rules::perft(*pos, o.depth - 1);
      pos->undo_move(m);
      total += n;
      std::printf("%04x %llu\n", m.raw(), static_cast<unsigned long long>(n));
    }
    std::printf("%llu\n", static_cast<unsigned long long>(total));
    return 0;
  }
  std::printf("%llu\n", static_cast<unsigned long long>(rules::perft(*pos, o.depth)));
  return 0;
}

int run_suite(const Options& o, VariantChoice v) {
  // A directory opens as a stream that reads nothing: it parsed as an empty suite and "passed".
  auto text = read_input_file(o.suite);
  if (!text) {
    std::fprintf(stderr, "eboardctl perft: %s\n", text.error().c_str());
    return 2;
  }
  auto suite = rules::parse_perft_suite(*text);
  if (!suite) {
    std::fprintf(stderr, "eboardctl perft: %s: %s\n", o.suite.c_str(), suite.error().c_str());
    return 2;
  }
  // Cases run in parallel, one position per worker at a time; output lines are whole and in case order.
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> passed{0}, failed{0}, nodes_done{0};
  std::vector<std::string> mismatches(suite->size());
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < suite->size();) {
      const rules::PerftCase& c = (*suite)[i];
      auto pos = rules::Position::from_fen(c.fen, v.variant, v.chess960);
      for (const auto& e : c.expected) {
        if (e.nodes > o.max_nodes) continue;
        if (!pos) {
          mismatches[i] += c.id + " (line " + std::to_string(c.line) + "): " + pos.error() + "\n";
          ++failed;
          continue;
        }
        std::uint64_t got = rules::perft(*pos, e.depth);
        nodes_done += got;
        if (got == e.nodes) {
          ++passed;
        } else {
          ++failed;
          mismatches[i] += c.id + " (line " + std::to_string(c.line) + ") depth " + std::to_string(e.depth) +
                           ": expected " + std::to_string(e.nodes) + ", got " + std::to_string(got) + "\n";
        }
      }
    }
  };
  unsigned n = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  try {
    for (unsigned t = 0; t < n; ++t) pool.emplace_back(worker);
  } catch (const std::system_error& e) {
    // Within the allowed range the system may still refuse a thread (ulimit -u, memory): the threads
    // started take the work, as they do when a suite has fewer positions than threads.
    if (pool.empty()) {
      std::fprintf(stderr, "eboardctl perft: cannot start a worker thread: %s\n", e.what());
      return 2;
    }
    std::fprintf(stderr, "eboardctl perft: %zu of %u threads started (%s)\n", pool.size(), n, e.what());
    n = static_cast<unsigned>(pool.size());
  }
  // Progress on stderr while the suite runs, so a long run shows it is alive.
  bool tty = isatty(STDERR_FILENO);
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(tty ? 500 : 100));
    std::size_t started = std::min(next.load(), suite->size());
    bool done = started == suite->size();
    if (tty)
      std::fprintf(stderr, "\r%zu/%zu positions, %llu Mnodes", started, suite->size(),
                   static_cast<unsigned long long>(nodes_done.load() / 1000000));
    if (done) break;
  }
  for (auto& t : pool) t.join();
  if (tty) std::fprintf(stderr, "\n");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& m : mismatches) std::fputs(m.c_str(), stdout);
  std::fprintf(stderr, "%llu nodes in %.1f s (%.0f Mnps, %u threads)\n",
               static_cast<unsigned long long>(nodes_done.load()), secs,
               double(nodes_done.load()) / secs / 1e6, n);
  std::printf("%llu passed, %llu failed\n", static_cast<unsigned long long>(passed.load()),
              static_cast<unsigned long long>(failed.load()));
  return failed ? 1 : 0;
}

}  // namespace

void add_perft_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("perft", "Count the leaf nodes of the legal move tree");
  cmd->add_option("--variant", opts->variant, "chess, chess960, crazyhouse or bughouse")
      ->check(CLI::IsMember({"chess", "chess960", "crazyhouse", "bughouse"}))
      ->capture_default_str();
  auto fen =
      cmd->add_option("--fen", opts->fen, "position (FEN; X-FEN/Shredder castling; pockets [..] or /..)");
  cmd->add_option("--depth", opts->depth, "depth in plies (with --fen)")->check(CLI::Range(0, 20));
  auto suite = cmd->add_option("--suite", opts->suite, "check every expectation in a .perft or EPD file");
  cmd->add_option("--max-nodes", opts->max_nodes, "with --suite: skip expectations above this many nodes");
  // Each thread costs a stack; far more than the cores only slows the suite, and 100000 made the system
  // refuse one (an uncaught exception).
  cmd->add_option("--threads", opts->threads, "with --suite: worker threads, 1 to 256 (default: all cores)")
      ->check(CLI::Range(1u, MAX_THREADS));
  cmd->add_flag("--divide", opts->divide, "with --fen: print the count below each root move");
  fen->excludes(suite);
  cmd->callback([opts, &exit_code, fen, suite] {
    if (fen->empty() == suite->empty()) {
      std::fprintf(stderr, "eboardctl perft: give either --fen with --depth, or --suite\n");
      exit_code = 2;
      return;
    }
    VariantChoice v = VARIANTS.at(opts->variant);
    exit_code = opts->suite.empty() ? run_single(*opts, v) : run_suite(*opts, v);
  });
}

}  // namespace eboard::tools
