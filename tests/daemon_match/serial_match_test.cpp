// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A bughouse match on two serial boards: two emulated DGT boards (session::BoardPlayer) on
// pseudo-terminals, read by eboardd's serial match feed (two sensor-only BoardSessions), the opening of a
// corpus match played on them. The match is reconstructed with no alert, its BPGN reads back to the same
// moves, and both journals replay to exactly what was published. At the end a press without a move on
// board A asks to see a reserve (FQE 18): one hidden-reserve alert, and board A's clock shows the reserve.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/asio/io_context.hpp>

#include "daemon/eboardd/demo_match.hpp"
#include "daemon/eboardd/service.hpp"
#include "daemon/io/time_base.hpp"
#include "daemon/journal/match_recovery.hpp"
#include "daemon/session/emulated_board.hpp"
#include "daemon/session/pty.hpp"
#include "rules/display.hpp"
#include "rules/notation.hpp"
#include "tests/daemon_journal/manual_source.hpp"
#include "tests/daemon_match/match_checks.hpp"
#include "tests/io/io_test_support.hpp"

using namespace eboard;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kUnixBase = 1'750'000'000'000;
constexpr double kSpeed = 4;          // the match's clock runs four times faster than real time
constexpr std::int64_t kCut = 24000;  // the opening played: this much of the match's time

}  // namespace

TEST(SerialMatch, TwoSerialBoardsPlayABughouseOpening) {
  const fs::path bpgn =
      fs::path(EBOARD_SHARED_DIR) / "corpora" / "bughouse" / "chesscom_bughouse_20matches.bpgn";
  if (!fs::exists(bpgn)) GTEST_SKIP() << "../shared is absent";
  auto corpus = eboardd::DemoMatchCorpus::load(bpgn);
  ASSERT_TRUE(corpus) << corpus.error();
  const rules::BughouseRecord& rec = (*corpus)->match(0);
  // Fast thinkers (speed 20), so that the opening has drops within kCut.
  const auto inputs = eboardd::plan_demo_match(rec, 20.0, 5).inputs;
  std::array<std::vector<rules::SensorEvent>, 2> events;
  for (const auto& in : inputs) {
    ASSERT_TRUE(in.sensor || in.t > kCut) << "this opening names no promotion piece";
    if (in.sensor && in.t <= kCut) events[std::size_t(in.board)].push_back(*in.sensor);
  }
  // Board A ends on a completed move (cut after its last clock press); then the player on move presses
  // without moving: a request to see the opponent's reserve (FQE 18), which the clock must show.
  std::vector<rules::SensorEvent>& a = events[0];
  auto last_press = std::find_if(a.rbegin(), a.rend(), [](const rules::SensorEvent& e) {
    return std::holds_alternative<rules::ClockReading>(e.what);
  });
  ASSERT_NE(last_press, a.rend());
  a.erase(last_press.base(), a.end());
  rules::SensorEvent claim = a.back();
  auto& reading = std::get<rules::ClockReading>(claim.what);
  claim.t_ms += 3000;
  (reading.lever_up == rules::ClockSide::Left ? reading.left_ms : reading.right_ms) -= 3000;
  reading.lever_up =
      reading.lever_up == rules::ClockSide::Left ? rules::ClockSide::Right : rules::ClockSide::Left;
  a.push_back(claim);

  const fs::path dir = fs::temp_directory_path() / ("eboard-serial-match-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  boost::asio::io_context io;
  std::array<std::unique_ptr<session::BoardPlayer>, 2> players;
  std::string toml = "[http]\nlisten = \"127.0.0.1:0\"\n";
  for (int b = 0; b < 2; ++b) {
    const std::string id = b == 0 ? "A" : "B";
    players[std::size_t(b)] = std::make_unique<session::BoardPlayer>(
        io, drivers::dgt::Emulator{}, session::script_from_events(events[std::size_t(b)]),
        session::PlayerConfig{.speed = kSpeed});
    auto pty = session::open_pseudo_terminal();
    ASSERT_TRUE(pty) << pty.error();
    ASSERT_TRUE(session::point_symlink(dir / ("dgt" + id), pty->slave_path));
    players[std::size_t(b)]->attach(pty->master_fd);
    toml += "[[board]]\nid = \"" + id + "\"\nport = \"" + (dir / ("dgt" + id)).string() + "\"\n";
  }
  toml += "[[match]]\nboards = [\"A\", \"B\"]\nrules = \"bughouse-fqe\"\n";
  auto cfg = config::parse_config(toml, "serial-match.toml");
  ASSERT_TRUE(cfg) << cfg.error().what();
  cfg->state_dir = (dir / "state").string();
  eboardd::ServiceOptions o;
  session::BoardPlayer& clock_player = *players[0];
  o.time =
      eboard::io::TimeBase::scaled(io, kSpeed, [&clock_player] { return kUnixBase + clock_player.now_ms(); });
  std::array<std::vector<std::string>, 2> moves;
  std::string served;
  {
    eboardd::Service service(io, *cfg, o);
    ASSERT_TRUE(service.start());
    for (auto& p : players) p->start();
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(std::int64_t(double(kCut) / kSpeed)) + 30s;
    while (std::chrono::steady_clock::now() < deadline &&
           !(players[0]->script_done() && players[1]->script_done()))
      io.run_for(50ms);
    // The last settle: at least 500 ms, and until the daemon has read every byte the boards wrote (on a
    // starved machine it reads them seconds after the scripts are done; 15 s at most).
    const auto all_read = [&] {
      const nlohmann::json st = service.status();
      for (const auto& b : st["boards"]) {
        const std::size_t i = b["id"] == "A" ? 0 : 1;
        if (b["source"]["link_stats"]["bytes_in"] != players[i]->stats().board_bytes) return false;
      }
      return true;
    };
    io::test::run_for_then_until(io, 500ms, all_read);
    eboardd::MatchRuntime* m = service.match("A-B");
    ASSERT_NE(m, nullptr);
    for (int b = 0; b < 2; ++b) moves[std::size_t(b)] = test_support::move_ucis(m->match().board(b).game());
    http::Request r;
    r.method = "GET";
    r.target = r.path = "/matches/A-B.bpgn";
    http::Response res = service.handle(r);
    EXPECT_EQ(res.status, 200u);
    served = res.body;
    nlohmann::json st = service.status();
    EXPECT_EQ(st["boards"][0]["link"], "connected") << st.dump(2);
    // Both match boards report their link (the feed's sessions), online since they came up with the daemon:
    // never missing, so no link event, in the snapshot or elsewhere.
    for (const auto& b : st["boards"]) {
      EXPECT_EQ(b["link_state"]["state"], "online") << b.dump(2);
      EXPECT_EQ(b["link_state"]["reason"].get<std::string>().rfind("connected on ", 0), 0u) << b.dump(2);
    }
    for (const auto& line : service.snapshot())
      EXPECT_EQ(line.find("\"type\":\"link\""), std::string::npos) << line;
    // The official reserve of the player who did not press, on board A's DGT 3000.
    const rules::Position& pa = m->match().board(0).game().position();
    const std::string shown =
        rules::reserve_display(pa, pa.side_to_move() == rules::WHITE ? rules::BLACK : rules::WHITE);
    const drivers::dgt::Emulator& dgt3000 = players[0]->board_as<session::EmulatedDgt>().emulator();
    const auto shows = [&] { return dgt3000.clock_display() == shown; };
    for (auto until = std::chrono::steady_clock::now() + 15s;
         !shows() && std::chrono::steady_clock::now() < until;)
      io.run_for(20ms);
    EXPECT_TRUE(shows()) << "the clock shows '" << dgt3000.clock_display() << "', not '" << shown << "'";
    service.stop();
  }
  for (auto& p : players) p->stop();

  // The record's opening, drops included.
  std::array<std::vector<std::string>, 2> want;
  {
    std::array<rules::Position, 2> pos = rec.start;
    for (const auto& mv : rec.moves) {
      want[std::size_t(mv.board)].push_back(rules::to_uci(pos[std::size_t(mv.board)], mv.move));
      rules::play_bughouse_move(pos, mv.board, mv.move);
    }
  }
  int drops = 0;
  for (int b = 0; b < 2; ++b) {
    const auto& g = moves[std::size_t(b)];
    EXPECT_GE(g.size(), 8u) << "board " << b;
    ASSERT_LE(g.size(), want[std::size_t(b)].size());
    EXPECT_TRUE(std::equal(g.begin(), g.end(), want[std::size_t(b)].begin())) << "board " << b;
    for (const auto& u : g) drops += u.find('@') != std::string::npos;
  }
  EXPECT_GT(drops, 0);
  std::printf("serial match: board A %zu plies, board B %zu plies, %d drops\n", moves[0].size(),
              moves[1].size(), drops);

  // Both journals: no alert published but the reserve request, and the match replays to exactly what was
  // published.
  std::array<journal::JournalScan, 2> scans;
  int requests = 0;
  for (int b = 0; b < 2; ++b) {
    auto scan = journal::scan_journal(dir / "state" / "journal" / (b == 0 ? "A.journal" : "B.journal"));
    ASSERT_TRUE(scan) << scan.error();
    for (const auto& r : scan->records) {
      if (r.type != 'E' || r.body.find("\"type\":\"alert\"") == std::string::npos) continue;
      const bool request = b == 0 && r.body.find("\"hidden-reserve\"") != std::string::npos;
      requests += request;
      EXPECT_TRUE(request) << r.body;
    }
    scans[std::size_t(b)] = std::move(*scan);
  }
  EXPECT_EQ(requests, 1);
  test_support::expect_match_replays_exactly(scans, moves);

  // The served BPGN reads back to the same moves.
  auto games = rules::read_bpgn(served);
  ASSERT_TRUE(games && games->size() == 1u) << served;
  auto back = rules::replay_bughouse(games->front());
  ASSERT_TRUE(back) << back.error();
  std::array<std::vector<std::string>, 2> read;
  std::array<rules::Position, 2> pos = back->start;
  for (const auto& mv : back->moves) {
    read[std::size_t(mv.board)].push_back(rules::to_uci(pos[std::size_t(mv.board)], mv.move));
    rules::play_bughouse_move(pos, mv.board, mv.move);
  }
  EXPECT_EQ(read, moves);
  fs::remove_all(dir);
}
