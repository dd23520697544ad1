// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The bughouse matches of `eboardd --demo` (demo.hpp plays them): real matches from a BPGN corpus,
// played by simulated hands and clocks (daemon/sim). A drop waits for the capture on the other board
// that puts its piece in the reserve (the capturer's clock press), so the two boards' timelines are built
// together. The same corpus match, seed and speed always give the same timelines: a restart continues
// a match where its journals stopped.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/journal/records.hpp"
#include "daemon/sim/timeline.hpp"
#include "rules/pgn.hpp"

namespace eboard::eboardd {

class DemoMatchCorpus {
 public:
  // A BPGN file, or a directory whose *.bpgn files are read in name order.
  static tl::expected<std::shared_ptr<const DemoMatchCorpus>, std::string> load(
      const std::filesystem::path& path);
  // ../shared/corpora/bughouse near the executable, or the installed data directory.
  static std::vector<std::filesystem::path> default_locations(const std::filesystem::path& executable);

  std::size_t size() const { return matches_.size(); }
  const rules::BughouseRecord& match(std::size_t i) const { return matches_[i % matches_.size()]; }
  const std::string& source() const { return source_; }

 private:
  std::vector<rules::BughouseRecord> matches_;
  std::string source_;
};

// One input of a demo match: a sensor event of a board, or the piece of an under-promotion named (FQE 11),
// times from the match's start.
struct DemoMatchInput {
  std::int64_t t = 0;
  int board = 0;
  std::optional<rules::SensorEvent> sensor;
  journal::ControlEntry naming;
  int move = -1;  // a naming's promoting move: its index among its board's moves
};

// Both boards of a simulated match record: each board's timeline (times from the match's start), and
// all inputs of both in time order. Deterministic for a seed.
struct DemoMatchPlan {
  std::array<sim::Timeline, 2> boards;
  std::array<std::vector<rules::Move>, 2> moves;
  std::vector<DemoMatchInput> inputs;
};
DemoMatchPlan plan_demo_match(const rules::BughouseRecord& rec, double speed, std::uint64_t seed);

// What the demo's match number `n` (from 1) plays: which corpus match, with which seed, its plan, the
// label that the first board's `EboardDemo` tag records (a restart continues a match of the same label),
// and the tags of both boards.
struct DemoMatchChoice {
  std::size_t index = 0;
  DemoMatchPlan plan;
  std::string label;
  std::array<rules::PgnTags, 2> tags;
  std::string summary;  // for the log
};
DemoMatchChoice choose_demo_match(const DemoMatchCorpus& corpus, int n, double speed);

}  // namespace eboard::eboardd
