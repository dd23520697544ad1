// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The single games of `eboardd --demo --demo-corpus X.pgn` (demo.hpp plays them): real games from a PGN
// corpus, played by simulated hands on simulated scanning boards with a clock (daemon/sim). The timeline
// of a game is the same for the same corpus game, seed and speed, so a restart continues the game where
// its journal stopped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/sim/timeline.hpp"
#include "rules/pgn.hpp"

namespace eboard::eboardd {

// The texts of a demo corpus: the file `path`, or the files of the directory `path` whose names end in
// `extension` (".pgn"), in name order.
tl::expected<std::vector<std::string>, std::string> read_demo_corpus(const std::filesystem::path& path,
                                                                     const std::string& extension);
// Where a corpus of ../shared is by default: `corpus` (e.g. corpora/bughouse) under a `shared` folder beside
// the executable's directory or one above it (the source tree layout, build/<preset>/daemon/eboardd/eboardd),
// then the installed data directory.
std::vector<std::filesystem::path> demo_corpus_locations(const std::filesystem::path& executable,
                                                         const std::filesystem::path& corpus);

// The games the demo plays: raw PGN games read once, resolved when chosen.
class DemoCorpus {
 public:
  // A PGN file, or a directory whose *.pgn files are read in name order.
  static tl::expected<std::shared_ptr<const DemoCorpus>, std::string> load(const std::filesystem::path& path);
  // Where the corpus is by default: ../shared/corpora/pgn/standard near the executable (the source tree
  // layout, build/<preset>/daemon/eboardd/eboardd), or the installed data directory.
  static std::vector<std::filesystem::path> default_locations(const std::filesystem::path& executable);

  std::size_t size() const { return games_.size(); }
  // Game `i` (modulo the size), resolved; games that do not resolve or are short are skipped.
  const rules::GameRecord& game(std::size_t i, std::size_t* index = nullptr) const;
  const std::string& source() const { return source_; }

 private:
  std::vector<rules::GameRecord> games_;
  std::string source_;
};

// What board `board_index` of the demo plays as its game number `n` (from 1): the corpus game, its
// timeline (hands, scanning board and clock, with the game's own thinking times divided by `speed`),
// the label its `EboardDemo` tag records (a restart continues a game of the same label) and its tags.
struct DemoGameChoice {
  std::size_t index = 0;
  std::vector<rules::Move> moves;
  sim::Timeline timeline;
  std::string label;
  rules::PgnTags tags;
  std::string summary;  // for the log
};
// Throws what sim::build_timeline throws.
DemoGameChoice choose_demo_game(const DemoCorpus& corpus, int n, std::size_t board_index, double speed);

}  // namespace eboard::eboardd
