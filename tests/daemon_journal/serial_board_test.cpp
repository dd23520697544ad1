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
#include <fstream>
#include <iterator>
#include <string>

#include <boost/asio/io_context.hpp>

#include "daemon/core/event_json.hpp"
#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/eboardd/serial_source.hpp"
#include "daemon/eboardd/service.hpp"
#include "daemon/io/time_base.hpp"
#include "daemon/journal/recovery.hpp"
#include "daemon/session/emulated_board.hpp"
#include "daemon/session/pty.hpp"
#include "daemon/session/replay.hpp"
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
  o.time = eboard::io::TimeBase::scaled(io, kSpeed, [&player] { return kUnixBase + player.now_ms(); });
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
  // Killed right after any event it published (nothing after it in the journal says when its timer ran),
  // the daemon replays to every event it had published.
  const std::string bytes = [&] {
    std::ifstream in(dir / "journal" / "A.journal", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  int cuts = 0;
  for (std::size_t k = 0; k + 1 < scan->records.size(); ++k) {
    if (scan->records[k].type != 'E' || scan->records[k + 1].type == 'E') continue;
    auto cut = journal::scan_journal_bytes(std::string_view(bytes).substr(0, scan->records[k + 1].offset));
    journal::Recovery c = journal::recover(cut, "A");
    ++cuts;
    EXPECT_TRUE(c.exact()) << "cut after record " << k << ": "
                           << (c.mismatches.empty() ? "" : c.mismatches[0]);
    EXPECT_EQ(c.matched_events, c.journaled_events) << "cut after record " << k;
  }
  EXPECT_GT(cuts, 12);

  // The raw bytes, exported as a capture with the link's changes, replay to the same moves, and to every
  // event the daemon published live, exactly (CONTRACTS §1: `! offline` / `! online`).
  drivers::Capture cap = journal::export_capture(*scan, "A");
  int offline = 0, online = 0;
  for (const auto& rec : cap.records)
    if (rec.link) ++(*rec.link ? online : offline);
  EXPECT_EQ(online, 2);   // the first connect, and the one after the unplug
  EXPECT_EQ(offline, 1);  // the unplug
  const std::string text = drivers::format_capture(cap);
  EXPECT_NE(text.find(" ! offline\n"), std::string::npos);
  auto reread = drivers::parse_capture(text);
  ASSERT_TRUE(reread) << reread.error();
  EXPECT_EQ(*reread, cap);
  auto replayed = session::replay_capture(cap, rules::ReconstructConfig{});
  ASSERT_TRUE(replayed) << replayed.error();
  std::vector<std::string> replayed_moves;
  for (const auto& e : replayed->events)
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) replayed_moves.push_back(m->uci);
  EXPECT_EQ(replayed_moves, moves);
  // The capture's times count from its first record, and the note says which Unix time that is: moved
  // back to the daemon's clock, the capture replays to the journal's published events, to the letter.
  std::int64_t origin = -1;
  for (const auto& n : cap.info.notes)
    if (auto at = n.find("Unix time "); at != std::string::npos) origin = std::stoll(n.substr(at + 10));
  ASSERT_GE(origin, 0);
  drivers::Capture on_the_clock = cap;
  for (auto& rec : on_the_clock.records) rec.t_ms += origin;
  auto again = session::replay_capture(on_the_clock, rules::ReconstructConfig{});
  ASSERT_TRUE(again) << again.error();
  std::vector<std::string> live, replayed_lines;
  for (const auto& rec : scan->records)
    if (rec.type == 'E' && !journal::is_daemon_note(rec.body)) live.push_back(rec.body);
  for (const rules::Event& e : again->events) replayed_lines.push_back(daemon::to_json_line(e));
  EXPECT_EQ(replayed_lines, live);
  fs::remove_all(dir);
}

// After a restart each board goes on with the reconstruction the journal's replay made (it knows what the
// game does not: the clock sides, the last lever reading). Its source takes that one over: a daemon of
// 1,000 boards must not keep a second reconstruction (some kilobytes, and its game) per board for its life.
TEST(SerialBoard, ARestartedBoardKeepsNoSecondReconstruction) {
  const fs::path dir = fs::temp_directory_path() / ("eboard-serial-restart-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const sim::Timeline tl = test_support::short_game(kUnixBase, 5);
  std::vector<std::string> moves;
  // A game in the journals of a board on a line of its own ("A") and of a board on a DGT bus ("B").
  for (const char* id : {"A", "B"}) {
    boost::asio::io_context io;
    eboardd::RuntimeOptions ro;
    ro.state_dir = dir;
    ro.sync_in_background = false;
    ro.clock = [&tl] { return tl.end_ms; };
    eboardd::BoardRuntime rt(io, id, ro, [](const rules::Event&, const std::string&) {});
    ASSERT_TRUE(rt.open());
    auto source = std::make_unique<test_support::ManualSource>(rt, std::move(rt.recovery().machine));
    test_support::ManualSource& s = *source;
    rt.attach(std::move(source));
    for (const auto& e : tl.events) s.feed(e);
    s.advance(tl.end_ms + 10000);
    moves = test_support::move_ucis(rt.game());
    ASSERT_EQ(moves.size(), 12u);
    rt.stop();
  }

  // The daemon on them, the boards absent (their links keep trying).
  auto cfg = config::parse_config("[http]\nlisten = \"127.0.0.1:0\"\n[[board]]\nid = \"A\"\nport = \"" +
                                      (dir / "absent").string() + "\"\n[[bus]]\nport = \"" +
                                      (dir / "absent-bus").string() +
                                      "\"\nboards = [ { address = 1025, id = \"B\" } ]\n",
                                  "restart.toml");
  ASSERT_TRUE(cfg) << cfg.error().what();
  cfg->state_dir = dir.string();
  boost::asio::io_context io;
  {
    eboardd::Service service(io, *cfg, eboardd::ServiceOptions{});
    ASSERT_TRUE(service.start());
    for (const char* id : {"A", "B"}) {
      SCOPED_TRACE(id);
      eboardd::BoardRuntime* rt = service.board(id);
      ASSERT_NE(rt, nullptr);
      EXPECT_FALSE(rt->recovery().machine.has_game());  // taken, not copied
      ASSERT_NE(rt->reconstructor(), nullptr);
      EXPECT_EQ(&rt->reconstructor()->game(), &rt->game());
      EXPECT_EQ(test_support::move_ucis(rt->game()), moves);
    }
    service.stop();
  }
  fs::remove_all(dir);
}

// A serial source lives as long as its board and hands its game to its session: it keeps no room for one.
TEST(SerialBoard, TheSourceKeepsNoRoomForTheGameItsSessionHas) {
  EXPECT_LT(sizeof(eboardd::SerialSource), sizeof(rules::Game));
}
