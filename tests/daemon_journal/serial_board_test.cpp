// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A serial board end to end: an emulated DGT board (session::BoardPlayer) on a pseudo-terminal, opened by
// eboardd's SerialSource through BoardSession, unplugged and plugged back in the middle of the game. The
// journal's sensor events (the session's tap) replay to exactly the events that were published, and the
// journaled wire bytes export as a capture that `eboardctl replay`'s code reads back to the same moves.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include <boost/asio/io_context.hpp>

#include "daemon/core/replay.hpp"
#include "daemon/eboardd/service.hpp"
#include "daemon/journal/recovery.hpp"
#include "daemon/session/emulated_board.hpp"
#include "daemon/session/pty.hpp"
#include "manual_source.hpp"

using namespace eboard;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kUnixBase = 1'750'000'000'000;
constexpr double kSpeed = 10;  // the game's clock runs ten times faster than real time

}  // namespace

TEST(SerialBoard, JournalReplaysExactlyAcrossAnUnplug) {
  const fs::path dir = fs::temp_directory_path() / ("eboard-serial-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path link = dir / "dgt";

  const sim::Timeline tl = test_support::short_game(0, 21);
  boost::asio::io_context io;
  session::BoardPlayer player(io, drivers::dgt::Emulator{}, session::script_from_events(tl.events),
                              session::PlayerConfig{.speed = kSpeed});
  auto plug = [&] {
    auto pty = session::open_pseudo_terminal();
    ASSERT_TRUE(pty) << pty.error();
    ASSERT_TRUE(session::point_symlink(link, pty->slave_path));
    player.attach(pty->master_fd);
  };
  plug();
  // Unplugged for a second of the game's time, around the 6th clock press.
  const std::int64_t unplug_at = tl.press_ms[5] - 300;
  player.at(unplug_at, [&] {
    player.detach();
    fs::remove(link);
    player.at(unplug_at + 1000, [&] {
      plug();
      player.power_cycle();
    });
  });

  auto cfg = config::parse_config(
      "[http]\nlisten = \"127.0.0.1:0\"\n[[board]]\nid = \"A\"\nport = \"" + link.string() + "\"\n",
      "serial.toml");
  ASSERT_TRUE(cfg) << cfg.error().what();
  cfg->state_dir = dir.string();
  eboardd::ServiceOptions o;
  o.clock = [&player] { return kUnixBase + player.now_ms(); };
  o.clock_rate = kSpeed;
  std::vector<std::string> published;
  std::vector<std::string> moves;
  {
    eboardd::Service service(io, *cfg, o);
    ASSERT_TRUE(service.start());
    player.start();
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(std::int64_t(double(tl.end_ms) / kSpeed)) + 20s;
    while (std::chrono::steady_clock::now() < deadline &&
           !(player.script_done() && service.board("A")->game().ply_count() >= 12))
      io.run_for(50ms);
    io.run_for(300ms);  // the last settle
    moves = test_support::move_ucis(service.board("A")->game());
    EXPECT_EQ(moves.size(), 12u);
    nlohmann::json st = service.status();
    EXPECT_EQ(st["boards"][0]["source"]["link_stats"]["connects"], 2) << st.dump(2);
    service.stop();
  }
  player.stop();

  auto scan = journal::scan_journal(dir / "journal" / "A.journal");
  ASSERT_TRUE(scan) << scan.error();
  journal::Recovery r = journal::recover(*scan, "A");
  EXPECT_TRUE(r.exact()) << (r.mismatches.empty() ? "" : r.mismatches[0]);
  EXPECT_GT(r.journaled_events, 12u);
  EXPECT_EQ(r.matched_events, r.journaled_events);
  EXPECT_TRUE(r.unjournaled.empty());
  EXPECT_EQ(test_support::move_ucis(r.machine.game()), moves);
  EXPECT_GT(r.raw_records, 10u);

  // The raw bytes, exported as a capture, replay to the same moves.
  drivers::Capture cap = journal::export_capture(*scan, "A");
  auto replayed = daemon::replay_capture(cap, rules::ReconstructConfig{});
  ASSERT_TRUE(replayed) << replayed.error();
  std::vector<std::string> replayed_moves;
  for (const auto& e : replayed->events)
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) replayed_moves.push_back(m->uci);
  EXPECT_EQ(replayed_moves, moves);
  fs::remove_all(dir);
}
