// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A Chessnut board through the daemon's own path: BoardSession with protocol "chessnut" opens it through
// UsbHidLink, whose libusb seam is a fake board (tests/io/fake_hid_backend.hpp). Corpus games played by
// simulated hands become the position frames the board would send, cut into 64-byte HID reports; the
// session's decoder, snapshot adapter and clockless reconstruction must give every game back exactly.
// Time is the session's injected clock, set to each frame's time before the frame goes in.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "daemon/boards/snapshot_board.hpp"
#include "daemon/session/board_session.hpp"
#include "daemon/sim/timeline.hpp"
#include "drivers/chessnut/protocol.hpp"
#include "tests/io/fake_hid_backend.hpp"
#include "tests/session/session_test_support.hpp"

namespace eboard::session {
namespace {

using namespace std::chrono_literals;
using io::test::FakeBackend;
using io::test::FakeBus;

constexpr std::int64_t kUnixBase = 1'800'000'000'000;

template <class Pred>
bool run_until(boost::asio::io_context& io, Pred done) {
  const auto limit = std::chrono::steady_clock::now() + 30s;  // a hang fails instead of blocking ctest
  while (!done() && std::chrono::steady_clock::now() < limit) {
    io.restart();
    io.run_for(2ms);
  }
  return done();
}

std::vector<rules::GameRecord> corpus_games(std::size_t count) {
  std::vector<rules::GameRecord> out;
  const auto file = test::first_corpus_file();
  if (!file) return out;
  std::ifstream in(*file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  rules::PgnReader reader(content);
  while (out.size() < count) {
    auto game = reader.next();
    if (!game || !*game) break;
    if (auto rec = rules::replay(**game); rec && !rec->moves.empty()) out.push_back(*rec);
  }
  return out;
}

struct Played {
  std::vector<std::string> moves;
  std::vector<std::string> alerts;
  std::vector<std::vector<std::uint8_t>> written;
  bool leds_accepted = false;
};

Played play_over_fake_usb(const rules::GameRecord& g, sim::HandStyle style, std::uint64_t seed) {
  sim::TimelineSpec spec;
  spec.start = g.start;
  for (const auto& m : g.moves) spec.moves.push_back(m.move);
  spec.clock.reset();  // a Chessnut has none
  spec.white = style;
  spec.black = style;
  spec.seed = seed;
  const sim::Timeline tl = sim::build_timeline(spec);

  auto bus = std::make_shared<FakeBus>();
  boost::asio::io_context io;
  // Manual time: the test moves the clock, and the session's deadlines run as it does.
  auto time = io::TimeBase::manual(io, kUnixBase);
  BoardSessionConfig cfg;
  cfg.protocol = "chessnut";
  cfg.usb_backend = std::make_shared<FakeBackend>(bus);
  cfg.rules.complete_after_ms = 1500;
  cfg.game = std::make_shared<rules::Game>(g.start);
  cfg.time = time;
  Played out;
  BoardSessionHandlers h;
  h.on_event = [&](const rules::Event& e) {
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) out.moves.push_back(m->uci);
    if (const auto* a = std::get_if<rules::AlertEvent>(&e.what))
      out.alerts.push_back(a->code + " at ply " + std::to_string(a->ply) + ": " + a->detail);
  };
  BoardSession session(io, cfg, h);
  session.start();
  EXPECT_TRUE(run_until(io, [&] { return session.connected(); }));

  std::uint64_t fed = 0;
  auto send_board = [&](std::int64_t t, const std::array<rules::Piece, 64>& squares) {
    time->advance_to(kUnixBase + t);
    const auto frame = drivers::chessnut::position_frame(daemon::ChessnutBoard::to_position(squares));
    for (std::size_t at = 0; at < frame.size(); at += 64) {
      const auto end = frame.begin() + static_cast<std::ptrdiff_t>(std::min(frame.size(), at + 64));
      io::test::board_sends(*bus,
                            std::vector<std::uint8_t>(frame.begin() + static_cast<std::ptrdiff_t>(at), end));
    }
    fed += frame.size();
    EXPECT_TRUE(run_until(io, [&] { return session.link_stats().bytes_in == fed; }));
  };

  std::array<rules::Piece, 64> board = g.start.board();
  std::optional<std::array<rules::Piece, 64>> sent;
  send_board(0, board);  // the board's first frame in realtime mode: the snapshot the session waits for
  sent = board;
  for (std::size_t i = 0; i < tl.events.size(); ++i) {
    const auto& e = tl.events[i];
    if (const auto* l = std::get_if<rules::PieceLifted>(&e.what)) board[l->square] = rules::NO_PIECE;
    if (const auto* p = std::get_if<rules::PiecePlaced>(&e.what)) board[p->square] = p->piece;
    if (const auto* s = std::get_if<rules::BoardSnapshot>(&e.what)) board = s->squares;
    const bool last_of_time = i + 1 == tl.events.size() || tl.events[i + 1].t_ms != e.t_ms;
    if (!last_of_time || sent == board) continue;  // the board sends a frame when its position changes
    send_board(e.t_ms, board);
    sent = board;
  }
  time->advance_to(kUnixBase + tl.end_ms + 10000);
  const std::size_t want = g.moves.size();
  run_until(io, [&] { return out.moves.size() >= want; });

  out.leds_accepted = session.leds(1ULL << 12);  // e2
  run_until(io, [&] {
    std::lock_guard lock(bus->mutex);
    return bus->written.size() >= 2;
  });
  session.stop();
  std::lock_guard lock(bus->mutex);
  for (const auto& [when, bytes] : bus->written) out.written.push_back(bytes);
  return out;
}

TEST(ChessnutSession, CorpusGamesComeBackExactlyThroughTheUsbPath) {
  const auto games = corpus_games(4);
  if (games.empty()) GTEST_SKIP() << "the corpus (../shared) is absent";
  const std::array<std::pair<const char*, sim::HandStyle>, 2> styles{
      {{"tidy", sim::HandStyle::tidy()}, {"messy", sim::HandStyle::messy()}}};
  int plies = 0;
  for (const auto& [name, style] : styles) {
    for (std::size_t i = 0; i < games.size(); ++i) {
      const Played p = play_over_fake_usb(games[i], style, i + 1);
      EXPECT_EQ(p.moves, test::uci_moves(games[i])) << name << " hands, game " << i + 1;
      EXPECT_TRUE(p.alerts.empty()) << name << " hands, game " << i + 1 << ": " << p.alerts.front();
      // On connect the session puts the board in realtime mode; the LEDs went out as a Chessnut LED report.
      ASSERT_GE(p.written.size(), 2U);
      EXPECT_EQ(p.written.front(), drivers::chessnut::command::realtime_mode());
      EXPECT_TRUE(p.leds_accepted);
      EXPECT_EQ(p.written.back(), drivers::chessnut::command::leds(1ULL << 12));
      plies += static_cast<int>(games[i].moves.size());
    }
  }
  std::printf("chessnut over the USB path: %zu games x %zu hand styles, %d plies\n", games.size(),
              styles.size(), plies);
}

}  // namespace
}  // namespace eboard::session
