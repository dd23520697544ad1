// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A whole corpus game through BoardSession in virtual time: the protocol row's emulated board (DGT, and
// Millennium without a clock) played by a BoardPlayer and the session on one manual time base
// (io/time_base.hpp), talking over an in-memory wire (a socketpair, io::LinkConfig::open_wire). The test
// runs the loop until nothing is ready, then moves the clock to the next thing due: no real waits, so the
// game (tens of minutes on its clock, an unplug included for a board that can be replugged) takes a
// fraction of a second. Moves must come back exactly, and the wire the session tapped must replay to them.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "daemon/io/time_base.hpp"
#include "daemon/session/board_emulator.hpp"
#include "daemon/session/board_protocol.hpp"
#include "daemon/session/board_session.hpp"
#include "daemon/session/emulated_board.hpp"
#include "daemon/session/replay.hpp"
#include "drivers/capture.hpp"
#include "tests/session/session_test_support.hpp"

namespace eboard::session {
namespace {

constexpr std::int64_t kUnixBase = 1'750'000'000'000;

// The board's side of an in-memory wire: each (re)connect of the session opens a fresh socketpair and
// plugs its other end into the player; unplugged, opens fail as a missing device's would.
class MemoryWire {
 public:
  explicit MemoryWire(BoardPlayer& player) : player_(player) {}

  std::function<tl::expected<io::SerialPort, io::IoError>()> opener() {
    return [this]() -> tl::expected<io::SerialPort, io::IoError> {
      if (!plugged_) return tl::unexpected(io::IoError{io::IoError::Kind::not_found, ENOENT, "unplugged"});
      int fds[2];
      if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        return tl::unexpected(io::IoError{io::IoError::Kind::open_failed, errno, "socketpair"});
      player_.attach(fds[0]);
      io::PortInfo info;
      info.name = "memory";
      info.description = "in-memory wire";
      return io::SerialPort::adopt(fds[1], info);
    };
  }
  void unplug() {
    plugged_ = false;
    player_.detach();  // the session reads the end of the stream
  }
  void plug() { plugged_ = true; }

 private:
  BoardPlayer& player_;
  bool plugged_ = true;
};

struct Case {
  const char* protocol;
  bool clock;  // the board has a clock: presses complete the moves
};

class VirtualTime : public ::testing::TestWithParam<Case> {};

TEST_P(VirtualTime, ACorpusGameComesBackMoveForMoveWithoutRealWaits) {
  const Case c = GetParam();
  const auto game = test::first_corpus_game();
  if (!game) GTEST_SKIP() << "no corpus game under " << test::standard_corpus_dir() << " (../shared absent?)";
  const std::vector<std::string> expected = test::uci_moves(*game);
  ASSERT_GE(expected.size(), 4u);
  const BoardProtocol* protocol = find_protocol(c.protocol);
  ASSERT_NE(protocol, nullptr);
  ASSERT_NE(protocol->emulator, nullptr);

  sim::TimelineSpec spec;
  spec.start = game->start;
  for (const auto& m : game->moves) spec.moves.push_back(m.move);
  spec.seed = 11;
  spec.clock = sim::ClockSettings{.base_ms = 15 * 60 * 1000, .increment_ms = 10 * 1000};
  if (!c.clock) spec.clock.reset();
  const sim::Timeline tl = sim::build_timeline(spec);

  const auto wall_start = std::chrono::steady_clock::now();
  boost::asio::io_context io;
  auto time = io::TimeBase::manual(io, kUnixBase);
  PlayerConfig pc;
  pc.time = time;
  BoardPlayer player(io, protocol->emulator->make(EmulatorSetup{}), script_from_events(tl.events), pc);
  MemoryWire wire(player);

  BoardSessionConfig cfg;
  cfg.board_id = "A";
  cfg.protocol = c.protocol;
  cfg.time = time;
  cfg.link.device = "/nonexistent-eboard-memory-wire/board";
  cfg.link.open_wire = wire.opener();
  cfg.link.backoff.initial = std::chrono::hours(1);  // the test replugs with reconnect_now(), as hotplug
  cfg.link.backoff.max = std::chrono::hours(1);
  if (!c.clock) cfg.rules.complete_after_ms = 1500;
  cfg.game = std::make_shared<rules::Game>(game->start);
  std::vector<std::string> moves;
  std::vector<std::string> alerts;
  std::ostringstream capture_text;
  drivers::CaptureInfo capture_info;
  capture_info.board = "A";
  capture_info.protocol = c.protocol;
  drivers::CaptureWriter capture(capture_text, capture_info);
  BoardSessionHandlers handlers;
  handlers.on_event = [&](const rules::Event& e) {
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) moves.push_back(m->uci);
    if (const auto* a = std::get_if<rules::AlertEvent>(&e.what))
      alerts.push_back(a->code + " at ply " + std::to_string(a->ply) + ": " + a->detail);
  };
  handlers.on_wire = [&](std::int64_t t, drivers::Direction dir, std::span<const std::uint8_t> bytes) {
    ASSERT_TRUE(capture.append(t - kUnixBase, dir, bytes));
  };
  std::string log;
  handlers.on_log = [&](LogLevel, const std::string& line) { log += line + "\n"; };
  BoardSession session(io, cfg, handlers);

  // A board that can be replugged is unplugged for a second of its clock around the middle move's press.
  const std::size_t k = expected.size() / 2;
  const bool replug = protocol->emulator->replugs && c.clock;
  if (replug) {
    const std::int64_t unplug_at = tl.press_ms[k] - 300;
    player.at(unplug_at, [&, unplug_at] {
      wire.unplug();
      player.at(unplug_at + 1000, [&] {
        wire.plug();
        player.power_cycle();
        session.reconnect_now();
      });
    });
  }

  player.start();
  session.start();
  const bool done = test::run_in_virtual_time(
      io, *time, [&] { return moves.size() >= expected.size() && player.script_done(); });
  session.stop();
  player.stop();
  const auto wall_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - wall_start)
          .count();
  std::cout << c.protocol << ": " << expected.size() << " plies, " << tl.end_ms / 1000
            << " s of the game's clock in " << wall_ms << " ms of wall time\n";

  EXPECT_TRUE(done) << moves.size() << " of " << expected.size() << " moves\n" << log;
  EXPECT_EQ(moves, expected);
  EXPECT_TRUE(alerts.empty()) << alerts.front();
  EXPECT_GE(time->now_ms() - kUnixBase, tl.end_ms);  // the whole script was played, on the manual clock
  EXPECT_EQ(session.stats().connects, replug ? 2u : 1u) << log;
  EXPECT_EQ(session.stats().disconnects, replug ? 1u : 0u);

  // The tapped wire replays to the same moves (as `eboardctl replay` would).
  auto parsed = drivers::parse_capture(capture_text.str());
  ASSERT_TRUE(parsed) << parsed.error();
  rules::ReconstructConfig rc;
  rc.complete_after_ms = cfg.rules.complete_after_ms;
  auto replayed = session::replay_capture(*parsed, rc);
  ASSERT_TRUE(replayed) << replayed.error();
  std::vector<std::string> replayed_moves;
  for (const auto& e : replayed->events)
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) replayed_moves.push_back(m->uci);
  EXPECT_EQ(replayed_moves, expected);
}

std::string case_name(const ::testing::TestParamInfo<Case>& param) { return param.param.protocol; }

INSTANTIATE_TEST_SUITE_P(Session, VirtualTime,
                         ::testing::Values(Case{"dgt", true}, Case{"millennium", false}), case_name);

}  // namespace
}  // namespace eboard::session
