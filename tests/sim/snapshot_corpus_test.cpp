// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Issue 13: boards that report whole positions and have no clock. Corpus games (../shared/corpora/pgn/
// standard) are played by simulated hands with no clock, in three styles of hands; what the hands do becomes
// Chessnut position frames (one per change of the board, as the board sends them) or the scans of an emulated
// Millennium board, and goes through the protocol's decoder and adapter and a clockless reconstruction in
// virtual time. Every game must come back exactly, with no alert.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon/boards/snapshot_board.hpp"
#include "daemon/sim/timeline.hpp"
#include "drivers/chessnut/protocol.hpp"
#include "drivers/millennium/emulator.hpp"
#include "rules/notation.hpp"
#include "rules/pgn.hpp"
#include "rules/reconstruct.hpp"

using namespace eboard;

namespace {

const std::filesystem::path STANDARD =
    std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "pgn" / "standard";

std::vector<rules::GameRecord> load_corpus() {
  std::vector<rules::GameRecord> out;
  if (!std::filesystem::is_directory(STANDARD)) return out;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(STANDARD)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto games = rules::read_pgn(text.str());
    if (!games) continue;
    for (const auto& g : *games)
      if (auto rec = rules::replay(g); rec && !rec->moves.empty()) out.push_back(*rec);
  }
  return out;
}

struct Styles {
  const char* name;
  sim::HandStyle white, black;
};

// Tidy hands, a casual White against a blitz Black, messy hands (knocks, slides, victims set aside).
std::vector<Styles> style_sets() {
  return {{"tidy", sim::HandStyle::tidy(), sim::HandStyle::tidy()},
          {"casual-blitz", sim::HandStyle::casual(), sim::HandStyle::blitz()},
          {"messy", sim::HandStyle::messy(), sim::HandStyle::messy()}};
}

sim::Timeline clockless_timeline(const rules::GameRecord& g, const Styles& styles, std::uint64_t seed) {
  sim::TimelineSpec spec;
  spec.start = g.start;
  for (const auto& m : g.moves) spec.moves.push_back(m.move);
  spec.clock.reset();  // no clock: the hands' styles set the pace
  spec.white = styles.white;
  spec.black = styles.black;
  spec.seed = seed;
  return sim::build_timeline(spec);
}

struct Outcome {
  std::vector<std::string> moves;
  std::vector<std::string> alerts;
};

std::vector<std::string> want_moves(const rules::GameRecord& g) {
  std::vector<std::string> want;
  rules::Position p = g.start;
  for (const auto& m : g.moves) {
    want.push_back(rules::to_uci(p, m.move));
    p.do_move(m.move);
  }
  return want;
}

rules::Reconstructor clockless_reconstructor(const rules::GameRecord& g) {
  rules::ReconstructConfig cfg;
  cfg.complete_after_ms = 1500;
  return rules::Reconstructor(cfg, rules::Game(g.start));
}

void take(Outcome& o, const std::vector<rules::Event>& events) {
  for (const auto& e : events) {
    if (std::getenv("EBOARD_DEBUG"))
      std::printf("    event %lld %s\n", static_cast<long long>(e.t_ms), rules::event_type(e));
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) o.moves.push_back(m->uci);
    if (const auto* a = std::get_if<rules::AlertEvent>(&e.what))
      o.alerts.push_back(a->code + " at ply " + std::to_string(a->ply) + ": " + a->detail);
  }
}

// The board as the hands leave it after each scan of the simulated board: the events of one time.
template <class Fn>
void for_each_scan(const sim::Timeline& tl, Fn fn) {
  std::array<rules::Piece, 64> board{};
  for (std::size_t i = 0; i < tl.events.size(); ++i) {
    const auto& e = tl.events[i];
    if (const auto* l = std::get_if<rules::PieceLifted>(&e.what)) board[l->square] = rules::NO_PIECE;
    if (const auto* p = std::get_if<rules::PiecePlaced>(&e.what)) board[p->square] = p->piece;
    if (const auto* s = std::get_if<rules::BoardSnapshot>(&e.what)) board = s->squares;
    if (i + 1 == tl.events.size() || tl.events[i + 1].t_ms != e.t_ms) fn(e.t_ms, board);
  }
}

Outcome play_chessnut(const rules::GameRecord& g, const Styles& styles, std::uint64_t seed) {
  const sim::Timeline tl = clockless_timeline(g, styles, seed);
  rules::Reconstructor rec = clockless_reconstructor(g);
  daemon::ChessnutBoard board;
  Outcome o;
  std::optional<std::array<rules::Piece, 64>> sent;
  const bool debug = std::getenv("EBOARD_DEBUG") != nullptr;
  for_each_scan(tl, [&](std::int64_t t, const std::array<rules::Piece, 64>& now) {
    if (sent == now) return;  // the board sends a frame when its position changes
    if (debug) {
      std::string diff;
      for (int q = 0; q < 64; ++q)
        if (!sent || (*sent)[q] != now[q])
          diff += " " + rules::square_name(rules::Square(q)) +
                  (now[q] == rules::NO_PIECE ? std::string("-") : std::string(1, rules::piece_char(now[q])));
      std::printf("  %lld frame%s (moves so far %zu)\n", static_cast<long long>(t), diff.c_str(),
                  o.moves.size());
    }
    sent = now;
    for (const auto& e :
         board.feed(t, drivers::chessnut::position_frame(daemon::ChessnutBoard::to_position(now))))
      take(o, rec.on_sensor(e));
  });
  take(o, rec.advance(tl.end_ms + 10000));
  if (debug)
    for (std::size_t i = 0; i < o.moves.size(); ++i) std::printf("  ply %zu %s\n", i + 1, o.moves[i].c_str());
  return o;
}

Outcome play_millennium(const rules::GameRecord& g, const Styles& styles, std::uint64_t seed) {
  const sim::Timeline tl = clockless_timeline(g, styles, seed);
  rules::Reconstructor rec = clockless_reconstructor(g);
  drivers::millennium::Emulator emu;
  daemon::MillenniumBoard board;
  Outcome o;
  auto pump = [&](std::int64_t t) {
    emu.advance(t);
    for (const auto& e : board.feed(t, emu.take_output())) take(o, rec.on_sensor(e));
  };
  for_each_scan(tl, [&](std::int64_t t, const std::array<rules::Piece, 64>& now) {
    // The emulator's own scans between the hands' changes, then the change.
    while (auto next = emu.next_deadline()) {
      if (*next > t) break;
      pump(*next);
    }
    pump(t);
    emu.set_board(daemon::MillenniumBoard::to_squares(now));
  });
  while (auto next = emu.next_deadline()) pump(*next);
  take(o, rec.advance(tl.end_ms + 10000));
  return o;
}

// The sanitizer build plays every third game: it looks for memory errors, the ci build for coverage.
constexpr std::size_t STRIDE = EBOARD_SANITIZED ? 3 : 1;

template <class Play>
void play_corpus(Play play, const char* what) {
  const auto games = load_corpus();
  if (games.empty()) GTEST_SKIP() << STANDARD << " is absent";
  for (const Styles& styles : style_sets()) {
    int wrong = 0, moves = 0, played = 0;
    std::string first;
    const char* only = std::getenv("EBOARD_GAME");
    for (std::size_t i = 0; i < games.size(); ++i) {
      if (only ? std::size_t(std::atoi(only)) != i + 1 : i % STRIDE != 0) continue;
      ++played;
      const Outcome o = play(games[i], styles, i + 1);
      const auto want = want_moves(games[i]);
      moves += int(want.size());
      if (o.moves == want && o.alerts.empty()) continue;
      ++wrong;
      if (first.empty()) {
        std::size_t k = 0;
        while (k < o.moves.size() && k < want.size() && o.moves[k] == want[k]) ++k;
        first = "game " + std::to_string(i + 1) + " (" + std::to_string(want.size()) + " plies): ply " +
                std::to_string(k + 1) + " got " + (k < o.moves.size() ? o.moves[k] : "nothing") + ", want " +
                (k < want.size() ? want[k] : "nothing") + (o.alerts.empty() ? "" : "; alert " + o.alerts[0]);
      }
    }
    std::printf("%s, %s hands: %d games, %d plies, %d wrong\n", what, styles.name, played, moves, wrong);
    EXPECT_EQ(wrong, 0) << styles.name << " hands, first: " << first;
  }
}

}  // namespace

TEST(SnapshotCorpus, ChessnutFramesGiveEveryGameExactly) { play_corpus(play_chessnut, "chessnut frames"); }

TEST(SnapshotCorpus, MillenniumScansGiveEveryGameExactly) {
  play_corpus(play_millennium, "millennium scans");
}
