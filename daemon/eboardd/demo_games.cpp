// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/demo_games.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace eboard::eboardd {

namespace fs = std::filesystem;
using namespace eboard::rules;

namespace {

// "180+2" → {180000, 2000}; anything else: a classical default.
std::pair<std::int64_t, std::int64_t> time_control(const GameRecord& g) {
  for (const auto& t : g.tags)
    if (t.name == "TimeControl") {
      const std::string& v = t.value;
      auto plus = v.find('+');
      std::string base = v.substr(0, plus), inc = plus == std::string::npos ? "0" : v.substr(plus + 1);
      auto digits = [](const std::string& s) {
        return !s.empty() && s.size() < 7 &&
               std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
      };
      if (digits(base) && digits(inc)) return {std::stoll(base) * 1000, std::stoll(inc) * 1000};
    }
  return {5400000, 30000};
}

std::string tag_or(const GameRecord& g, const char* name, const char* fallback) {
  for (const auto& t : g.tags)
    if (t.name == name) return t.value;
  return fallback;
}

}  // namespace

tl::expected<std::vector<std::string>, std::string> read_demo_corpus(const fs::path& path,
                                                                     const std::string& extension) {
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.path().extension() == extension) files.push_back(e.path());
    std::sort(files.begin(), files.end());
  } else if (fs::exists(path, ec)) {
    files.push_back(path);
  } else {
    return tl::unexpected("demo corpus " + path.string() + " does not exist");
  }
  std::vector<std::string> texts;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    texts.push_back(text.str());
  }
  return texts;
}

std::vector<fs::path> demo_corpus_locations(const fs::path& executable, const fs::path& corpus) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::path exe = fs::weakly_canonical(executable, ec);
  if (ec) exe = executable;
  for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    out.push_back(dir / "shared" / corpus);
    if (dir == dir.parent_path()) break;
  }
  out.push_back(exe.parent_path().parent_path() / "share" / "eboardd" / "demo");
  return out;
}

tl::expected<std::shared_ptr<const DemoCorpus>, std::string> DemoCorpus::load(const fs::path& path) {
  auto texts = read_demo_corpus(path, ".pgn");
  if (!texts) return tl::unexpected(texts.error());
  auto corpus = std::make_shared<DemoCorpus>();
  corpus->source_ = path.string();
  for (const std::string& content : *texts) {  // the reader keeps a view of it
    PgnReader reader(content);
    while (auto g = reader.next()) {
      if (!*g) continue;
      auto rec = replay(**g);
      // Standard chess from the usual start, long enough to watch.
      if (!rec || rec->start.fen() != Position::start().fen() || rec->moves.size() < 20) continue;
      corpus->games_.push_back(std::move(*rec));
    }
  }
  if (corpus->games_.empty())
    return tl::unexpected("demo corpus " + path.string() + " holds no standard game of 20 plies or more");
  return std::shared_ptr<const DemoCorpus>(std::move(corpus));
}

std::vector<fs::path> DemoCorpus::default_locations(const fs::path& executable) {
  return demo_corpus_locations(executable, fs::path("corpora") / "pgn" / "standard");
}

const GameRecord& DemoCorpus::game(std::size_t i, std::size_t* index) const {
  std::size_t k = i % games_.size();
  if (index) *index = k;
  return games_[k];
}

DemoGameChoice choose_demo_game(const DemoCorpus& corpus, int n, std::size_t board_index, double speed) {
  n = std::max(1, n);
  if (!(speed > 0)) speed = 1.0;
  DemoGameChoice c;
  // The demo's boards play different games: board i takes every other one.
  const GameRecord& g = corpus.game(std::size_t(n - 1) * 2 + board_index, &c.index);
  const std::uint64_t seed = std::uint64_t(n) * 1000 + board_index + 1;

  sim::TimelineSpec spec;
  spec.start = g.start;
  auto [base, inc] = time_control(g);
  std::vector<std::optional<std::int64_t>> clk;
  for (const auto& m : g.moves) {
    spec.moves.push_back(m.move);
    clk.push_back(m.clock_ms);
  }
  spec.spent_ms = sim::spent_from_clk(clk, base, inc);
  for (auto& s : spec.spent_ms)
    if (s) *s = std::int64_t(double(*s) / speed);
  // Hands need longer than a lichess premove: give the clock spare time so no flag falls for that.
  spec.clock = sim::ClockSettings{base + 300000, inc};
  // Thinking for moves without a [%clk] time comes from the style: faster too at a higher speed.
  sim::HandStyle style = sim::HandStyle::tidy();
  style.think_ms.min_ms = std::int64_t(double(style.think_ms.min_ms) / speed);
  style.think_ms.max_ms = std::int64_t(double(style.think_ms.max_ms) / speed);
  spec.white = style;
  spec.black = style;
  spec.seed = seed;
  spec.start_ms = 0;
  c.moves = spec.moves;
  c.timeline = sim::build_timeline(spec);
  char speed_text[32];
  std::snprintf(speed_text, sizeof speed_text, "%g", speed);
  c.label = "corpus game " + std::to_string(c.index + 1) + ", seed " + std::to_string(seed) + ", speed " +
            speed_text;
  c.tags = {{"Event", "eboardd demo"},
            {"Site", "eboardd --demo"},
            {"Round", std::to_string(n)},
            {"White", tag_or(g, "White", "?")},
            {"Black", tag_or(g, "Black", "?")},
            {"TimeControl", tag_or(g, "TimeControl", "-")},
            {"EboardDemo", c.label}};
  c.summary = c.label + ": " + tag_or(g, "White", "?") + " - " + tag_or(g, "Black", "?") + ", " +
              std::to_string(spec.moves.size()) + " plies";
  return c;
}

}  // namespace eboard::eboardd
