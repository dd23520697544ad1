// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Helpers for the session tests: the corpus game they play, and its timeline.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "daemon/io/time_base.hpp"
#include "daemon/sim/timeline.hpp"
#include "rules/notation.hpp"
#include "rules/pgn.hpp"

namespace eboard::session::test {

// Runs what is ready, then moves the manual clock to the next thing due, until `done` or nothing is left.
template <class Done>
bool run_in_virtual_time(boost::asio::io_context& io, io::TimeBase& time, Done done) {
  for (int steps = 0; steps < 1'000'000; ++steps) {
    for (;;) {
      if (io.stopped()) io.restart();
      if (io.poll() == 0) break;
    }
    if (done()) return true;
    const auto next = time.next_due();
    if (!next) return false;
    time.advance_to(*next);
  }
  return false;
}

inline std::filesystem::path standard_corpus_dir() {
  return std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "pgn" / "standard";
}

// The first .pgn file of the standard corpus (by name), or nullopt when ../shared is absent.
inline std::optional<std::filesystem::path> first_corpus_file() {
  std::error_code ec;
  if (!std::filesystem::is_directory(standard_corpus_dir(), ec)) return std::nullopt;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(standard_corpus_dir(), ec)) {
    if (e.path().extension() == ".pgn") files.push_back(e.path());
  }
  if (files.empty()) return std::nullopt;
  std::sort(files.begin(), files.end());
  return files.front();
}

// The first game of that file, resolved.
inline std::optional<rules::GameRecord> first_corpus_game() {
  const auto file = first_corpus_file();
  if (!file) return std::nullopt;
  std::ifstream in(*file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  rules::PgnReader reader(content);
  auto game = reader.next();
  if (!game || !*game) return std::nullopt;
  auto record = rules::replay(**game);
  if (!record) return std::nullopt;
  return *record;
}

inline std::vector<std::string> uci_moves(const rules::GameRecord& g) {
  std::vector<std::string> out;
  rules::Position pos = g.start;
  for (const auto& m : g.moves) {
    out.push_back(rules::to_uci(pos, m.move));
    pos.do_move(m.move);
  }
  return out;
}

// A quick but human game: short thinks (the corpus test covers the long ones), a casual hand otherwise.
// `start_ms`: when the clock is started and the first move may begin (the board stands set up before).
inline sim::Timeline quick_timeline(const rules::GameRecord& g, std::uint64_t seed,
                                    std::int64_t start_ms = 0) {
  sim::TimelineSpec spec;
  spec.start = g.start;
  spec.start_ms = start_ms;
  for (const auto& m : g.moves) spec.moves.push_back(m.move);
  sim::HandStyle style = sim::HandStyle::casual();
  style.think_ms = {700, 2000};
  spec.white = style;
  spec.black = style;
  spec.seed = seed;
  spec.clock = sim::ClockSettings{.base_ms = 15 * 60 * 1000, .increment_ms = 10 * 1000};
  return sim::build_timeline(spec);
}

}  // namespace eboard::session::test
