// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A bughouse match on two DGT boards in bus mode on ONE line: two emulated boards (session::BoardPlayer)
// behind a BusHub on a pseudo-terminal, read by eboardd's match feed (the line's session handing both
// boards' sensor events to the match), the opening of a corpus match played on them. The match comes out
// exactly (the record's moves, no alert), both journals replay to exactly what was published, and a
// restart of the service mid-match continues it (the boards play on while no service runs; the game's
// clock is held while the new one starts and reads them, so that the gap it reads does not depend on this
// machine's speed); a board that stops answering for a few seconds mid-match gives its moves when it
// answers again, and the match is still exact. A bus board and a
// serial board in one match, each read its own way, play it as exactly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include <boost/asio/io_context.hpp>

#include "daemon/eboardd/demo_match.hpp"
#include "daemon/eboardd/service.hpp"
#include "daemon/io/time_base.hpp"
#include "daemon/journal/match_recovery.hpp"
#include "daemon/session/board_protocol.hpp"
#include "daemon/session/bus_hub.hpp"
#include "daemon/session/emulated_board.hpp"
#include "daemon/session/pty.hpp"
#include "rules/notation.hpp"
#include "tests/daemon_journal/manual_source.hpp"
#include "tests/daemon_match/match_checks.hpp"
#include "tests/io/io_test_support.hpp"

using namespace eboard;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kUnixBase = 1'750'000'000'000;
// The match's clock runs twice as fast as real time: faster, a loaded machine (a late player, a late
// read) can bunch a move's placement with its press (seen as a press without a move, on serial boards too:
// SerialMatch, at four times, shows it).
constexpr double kSpeed = 2;

// The players' clock, and so the match's: real time at kSpeed, held still while a service starts (hold(),
// release()), so that however long a start takes on this machine, no game time passes in it.
class HeldClock {
 public:
  using Clock = std::chrono::steady_clock;
  [[nodiscard]] std::int64_t ms() const {
    const Clock::time_point now = since_ ? *since_ : Clock::now();
    return std::int64_t(kSpeed * std::chrono::duration<double, std::milli>(now - origin_ - held_).count());
  }
  void hold() { since_ = Clock::now(); }
  void release() {
    if (since_) held_ += Clock::now() - *since_;
    since_.reset();
  }

 private:
  Clock::time_point origin_ = Clock::now();
  Clock::duration held_{};
  std::optional<Clock::time_point> since_;
};

// The corpus match, both boards' scripts cut after their last clock press before `cut` (match ms).
class BusMatch : public ::testing::Test {
 protected:
  void gaps_of_four_plies_or_more(bool hold, std::int64_t stop_after_ms);
  void load(std::int64_t cut) {
    const fs::path bpgn =
        fs::path(EBOARD_SHARED_DIR) / "corpora" / "bughouse" / "chesscom_bughouse_20matches.bpgn";
    if (!fs::exists(bpgn)) GTEST_SKIP() << "../shared is absent";
    auto corpus = eboardd::DemoMatchCorpus::load(bpgn);
    ASSERT_TRUE(corpus) << corpus.error();
    rec_ = (*corpus)->match(0);
    plan_ = eboardd::plan_demo_match(rec_, 20.0, 5);  // fast thinkers: drops early in the match
    for (const auto& in : plan_.inputs) {
      ASSERT_TRUE(in.sensor || in.t > cut) << "this opening names no promotion piece";
      if (in.sensor && in.t <= cut) events_[std::size_t(in.board)].push_back(*in.sensor);
    }
    for (auto& ev : events_) {
      auto last_press = std::find_if(ev.rbegin(), ev.rend(), [](const rules::SensorEvent& e) {
        return std::holds_alternative<rules::ClockReading>(e.what);
      });
      ASSERT_NE(last_press, ev.rend());
      ev.erase(last_press.base(), ev.end());
    }
    std::array<rules::Position, 2> pos = rec_.start;
    for (const auto& mv : rec_.moves) {
      want_[std::size_t(mv.board)].push_back(rules::to_uci(pos[std::size_t(mv.board)], mv.move));
      rules::play_bughouse_move(pos, mv.board, mv.move);
    }
  }

  // Both boards on one emulated bus line (addresses 1025 and 1026), the match's configuration; with
  // `b_serial`, board B on a serial line of its own instead. A bus board's events reach the match up to a
  // poll later than a serial board's: with a serial partner, board A is polled every 20 ms, so that its
  // capture is in before the partner's drop of the piece (this script's players drop within a few
  // hundred ms of the capture; people pass the piece over first).
  void wire(bool b_serial = false) {
    dir_ = fs::temp_directory_path() / ("eboard-bus-match-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    auto time = eboard::io::TimeBase::scaled(io_, kSpeed, [this] { return clock_.ms(); });
    hub_ = std::make_unique<session::BusHub>(io_, *session::find_protocol("dgt")->bus_framing,
                                             b_serial ? 1 : 2, 7, 300);
    ASSERT_TRUE(hub_->ok());
    auto pty = session::open_pseudo_terminal();
    ASSERT_TRUE(pty) << pty.error();
    ASSERT_TRUE(session::point_symlink(dir_ / "bus", pty->slave_path));
    hub_->attach_host(pty->master_fd);
    for (std::size_t b = 0; b < 2; ++b) {
      drivers::dgt::EmulatorConfig ec;
      ec.serial = b == 0 ? "01025" : "01026";
      ec.start_in_bus_mode = b == 0 || !b_serial;
      players_[b] = std::make_unique<session::BoardPlayer>(
          io_, drivers::dgt::Emulator(ec), session::script_from_events(events_[b]),
          session::PlayerConfig{.speed = kSpeed, .time = time, .wait_for_host = true});
      if (b == 0 || !b_serial) {
        players_[b]->attach(hub_->take_board_fd(b));
        continue;
      }
      auto own = session::open_pseudo_terminal();
      ASSERT_TRUE(own) << own.error();
      ASSERT_TRUE(session::point_symlink(dir_ / "dgtB", own->slave_path));
      players_[b]->attach(own->master_fd);
    }
    std::string toml = "[http]\nlisten = \"127.0.0.1:0\"\n[[bus]]\nport = \"" + (dir_ / "bus").string() +
                       "\"\npoll_ms = " + (b_serial ? "20" : "100") +
                       "\nboards = [ { address = 1025, id = \"A\" }" +
                       (b_serial ? "" : ", { address = 1026, id = \"B\" }") + " ]\n";
    if (b_serial) toml += "[[board]]\nid = \"B\"\nport = \"" + (dir_ / "dgtB").string() + "\"\n";
    toml += "[[match]]\nboards = [\"A\", \"B\"]\nrules = \"bughouse-fqe\"\n";
    auto cfg = config::parse_config(toml, "bus-match.toml");
    ASSERT_TRUE(cfg) << cfg.error().what();
    cfg->state_dir = (dir_ / "state").string();
    config_ = *cfg;
    session::BoardPlayer& clock_player = *players_[0];
    options_.time = eboard::io::TimeBase::scaled(
        io_, kSpeed, [&clock_player] { return kUnixBase + clock_player.now_ms(); });
  }

  std::unique_ptr<eboardd::Service> start_service() {
    auto s = std::make_unique<eboardd::Service>(io_, config_, options_);
    if (auto ok = s->start(); !ok) {
      ADD_FAILURE() << ok.error();
      return nullptr;
    }
    return s;
  }

  // Runs until both scripts are played (their script clocks past `t`, if given), then the last polls.
  bool play_until(std::int64_t t = -1) {
    const auto done = [&] {
      if (t >= 0) return players_[0]->now_ms() >= t;
      return players_[0]->script_done() && players_[1]->script_done();
    };
    const std::int64_t end = std::max(players_[0]->script_end_ms(), players_[1]->script_end_ms());
    return io::test::run_until(io_, done,
                               std::chrono::milliseconds(std::int64_t(double(end) / kSpeed)) + 30s);
  }

  static nlohmann::json board_status(eboardd::Service& s, const std::string& id) {
    const nlohmann::json st = s.status();
    for (const auto& b : st["boards"])
      if (b["id"] == id) return b;
    return nullptr;
  }

  std::array<std::vector<std::string>, 2> moves_of(eboardd::Service& s) {
    eboardd::MatchRuntime* m = s.match("A-B");
    if (!m) {
      ADD_FAILURE() << "no match A-B";
      return {};
    }
    return {test_support::move_ucis(m->match().board(0).game()),
            test_support::move_ucis(m->match().board(1).game())};
  }

  // The first moment after a clock press on either board after `from`, before `to`, when neither board is
  // touched for 100 ms on either side of it; 0 if none.
  std::int64_t quiet_after_a_press(std::int64_t from, std::int64_t to) const {
    std::int64_t first_press = -1;
    for (const auto& ev : events_)
      for (const auto& e : ev)
        if (e.t_ms > from && std::holds_alternative<rules::ClockReading>(e.what) &&
            (first_press < 0 || e.t_ms < first_press))
          first_press = e.t_ms;
    if (first_press < 0) return 0;
    for (std::int64_t t = first_press + 100; t < to; t += 10) {
      const bool quiet = std::none_of(events_.begin(), events_.end(), [&](const auto& ev) {
        return std::any_of(ev.begin(), ev.end(), [&](const auto& e) { return std::abs(e.t_ms - t) < 100; });
      });
      if (quiet) return t;
    }
    return 0;
  }

  // How many moves board `b`'s script played (its last reading is its last press's).
  std::size_t played(std::size_t b) const {
    return std::size_t(std::count_if(plan_.boards[b].press_ms.begin(), plan_.boards[b].press_ms.end(),
                                     [&](std::int64_t p) { return p <= events_[b].back().t_ms; }));
  }

  // After play_until(): the last polls and settles. At least 1.5 s, and until the match has every move the
  // scripts played (on a starved machine the polls that bring them come late; 15 s at most). More than
  // that shows in expect_exact.
  void settle(eboardd::Service& s) {
    io::test::run_for_then_until(io_, 1500ms, [&] {
      const auto m = moves_of(s);
      return m[0].size() >= played(0) && m[1].size() >= played(1);
    });
  }

  // The record's opening, no alert in either journal, both journals replaying to exactly `moves`.
  void expect_exact(const std::array<std::vector<std::string>, 2>& moves) {
    int drops = 0;
    for (std::size_t b = 0; b < 2; ++b) {
      const auto& g = moves[b];
      EXPECT_GE(g.size(), 8u) << "board " << b;
      ASSERT_LE(g.size(), want_[b].size());
      EXPECT_TRUE(std::equal(g.begin(), g.end(), want_[b].begin())) << "board " << b;
      // Every move its script played.
      EXPECT_EQ(g.size(), played(b)) << "board " << b;
      for (const auto& u : g) drops += u.find('@') != std::string::npos;
    }
    EXPECT_GT(drops, 0);
    std::printf("bus match: board A %zu plies, board B %zu plies, %d drops\n", moves[0].size(),
                moves[1].size(), drops);
    std::array<journal::JournalScan, 2> scans;
    for (std::size_t b = 0; b < 2; ++b) {
      auto scan = journal::scan_journal(dir_ / "state" / "journal" / (b == 0 ? "A.journal" : "B.journal"));
      ASSERT_TRUE(scan) << scan.error();
      for (const auto& r : scan->records)
        EXPECT_FALSE(r.type == 'E' && r.body.find("\"type\":\"alert\"") != std::string::npos) << r.body;
      scans[b] = std::move(*scan);
    }
    // The match's sensor inputs, both boards together in the match's order, never go back in time: a bus
    // board's records are timed after what the match already decided.
    std::vector<std::pair<std::int64_t, std::int64_t>> inputs;  // (seq, t)
    for (const auto& scan : scans)
      for (const auto& r : scan.records)
        if (r.type == 'S') {
          auto j = nlohmann::json::parse(r.body, nullptr, false);
          ASSERT_TRUE(j.is_object() && j.contains("seq") && j.contains("t")) << r.body;
          inputs.emplace_back(j["seq"].get<std::int64_t>(), j["t"].get<std::int64_t>());
        }
    std::sort(inputs.begin(), inputs.end());
    for (std::size_t i = 1; i < inputs.size(); ++i)
      EXPECT_GE(inputs[i].second, inputs[i - 1].second) << "input " << inputs[i].first;
    test_support::expect_match_replays_exactly(scans, moves);
  }

  void TearDown() override {
    for (auto& p : players_)
      if (p) p->stop();
    if (hub_) hub_->stop();
    if (!dir_.empty() && !std::getenv("EBOARD_KEEP_TEST_DIR")) fs::remove_all(dir_);
  }

  boost::asio::io_context io_;
  rules::BughouseRecord rec_;
  eboardd::DemoMatchPlan plan_;
  std::array<std::vector<rules::SensorEvent>, 2> events_;
  std::array<std::vector<std::string>, 2> want_;
  fs::path dir_;
  HeldClock clock_;
  std::unique_ptr<session::BusHub> hub_;
  std::array<std::unique_ptr<session::BoardPlayer>, 2> players_;
  config::Config config_;
  eboardd::ServiceOptions options_;
};

}  // namespace

TEST_F(BusMatch, TwoBoardsOnOneLinePlayABughouseOpeningAcrossARestart) {
  constexpr std::int64_t kCut = 24000;
  load(kCut);
  if (IsSkipped() || HasFatalFailure()) return;
  wire();
  if (HasFatalFailure()) return;
  hub_->start();
  for (auto& p : players_) p->start();
  std::array<std::vector<std::string>, 2> before;
  {
    auto service = start_service();
    ASSERT_TRUE(service);
    ASSERT_TRUE(play_until(kCut / 2));
    before = moves_of(*service);
    nlohmann::json st = service->status();
    for (const auto& b : st["boards"]) {
      EXPECT_EQ(b["link"], "connected") << b.dump(2);
      EXPECT_EQ(b["source"]["bus_online"], true) << b.dump(2);
    }
    service->stop();
  }
  EXPECT_GT(before[0].size() + before[1].size(), 4u);
  // The boards play on unread until a quiet moment after a move was completed, then the new service
  // starts and reads both boards with the game's clock held: what it reads, the gap to recover, is the
  // same however slow this machine is.
  const std::int64_t back = quiet_after_a_press(kCut / 2, kCut);
  ASSERT_GT(back, 0) << "no moment of this match fits";
  ASSERT_TRUE(play_until(back));
  std::array<std::vector<std::string>, 2> moves;
  {
    clock_.hold();
    auto service = start_service();
    ASSERT_TRUE(service);
    const eboardd::MatchRuntime* m = service->match("A-B");
    ASSERT_NE(m, nullptr);
    ASSERT_NE(m->recovery(), nullptr);
    EXPECT_TRUE(m->recovery()->exact());
    // The recovered match continues where the first service left it.
    for (int b = 0; b < 2; ++b)
      EXPECT_EQ(test_support::move_ucis(m->match().board(b).game()), before[std::size_t(b)]);
    // Both boards answering, then a second of polls (nothing moves meanwhile): what is read of the moves
    // made while no service ran is each at its ply.
    ASSERT_TRUE(io::test::run_until(io_, [&] {
      for (const char* id : {"A", "B"})
        if (board_status(*service, id)["source"]["bus_online"] != true) return false;
      return true;
    }));
    io::test::run_for(io_, 1s);
    const auto read = moves_of(*service);
    for (std::size_t b = 0; b < 2; ++b) {
      ASSERT_LE(read[b].size(), want_[b].size());
      EXPECT_TRUE(std::equal(read[b].begin(), read[b].end(), want_[b].begin())) << "board " << b;
    }
    clock_.release();
    ASSERT_TRUE(play_until());
    settle(*service);
    moves = moves_of(*service);
    service->stop();
  }
  expect_exact(moves);
}

// The match goes on while B is silent: B's reconstruction is told that its board is out of sight (a
// DeviceLink input), so what B last showed (half a move, as likely as not) is no position-mismatch.
TEST_F(BusMatch, ABoardSilentForAFewSecondsGivesItsMovesWhenItAnswersAgain) {
  constexpr std::int64_t kCut = 40000;
  load(kCut);
  if (IsSkipped() || HasFatalFailure()) return;
  // Board B is silent for kSilent (match ms) from a time board A drops nothing from a little before until
  // well after: a drop of a piece B captured while silent (or just before, its reply not read yet) would
  // come before the capture that gave it (the match learns of the capture only when B answers again, up
  // to the line's retry interval after it is back: 2 s, kRetry on the match's clock), which no transport
  // can put right.
  constexpr std::int64_t kSilent = 8000;  // 4 s of real time
  constexpr std::int64_t kRetry = std::int64_t(2000 * kSpeed);
  // 1.5 s of real time: on a starved machine (a fresh clone's CI, two builds beside six tests) B's capture
  // pressed a second before the silence was polled after A's drop of its piece (drop-before-partner-clock).
  constexpr std::int64_t kBefore = 3000;
  constexpr std::int64_t kMargin = kRetry + 1000;
  std::int64_t silent_from = -1;
  for (std::int64_t t0 = kBefore + 6000; t0 + kSilent + kMargin < kCut && silent_from < 0; t0 += 500) {
    bool a_drops = false;
    int b_moves = 0;
    for (std::size_t i = 0; i < plan_.moves[0].size(); ++i) {
      const std::int64_t p = plan_.boards[0].press_ms[i];
      a_drops |= plan_.moves[0][i].is_drop() && p >= t0 - kBefore && p <= t0 + kSilent + kMargin;
    }
    for (std::int64_t p : plan_.boards[1].press_ms) b_moves += p > t0 + 1000 && p < t0 + kSilent - 1000;
    if (!a_drops && b_moves >= 2) silent_from = t0;
  }
  ASSERT_GE(silent_from, 0) << "no stretch of this match fits";
  wire();
  if (HasFatalFailure()) return;
  hub_->start();
  for (auto& p : players_) p->start();
  auto service = start_service();
  ASSERT_TRUE(service);
  ASSERT_TRUE(play_until(silent_from));
  hub_->mute(1, true);
  ASSERT_TRUE(io::test::run_until(io_, [&] { return board_status(*service, "B")["link"] != "connected"; }))
      << "board B still counts as answering";
  // Counted once the link is seen down: B's replies already on the line when it was muted may still give
  // a move until then.
  const std::size_t b_before = moves_of(*service)[1].size();
  ASSERT_TRUE(play_until(silent_from + kSilent));
  EXPECT_EQ(moves_of(*service)[1].size(), b_before);  // nothing of B while it does not answer
  hub_->mute(1, false);
  ASSERT_TRUE(play_until());
  settle(*service);
  const auto moves = moves_of(*service);
  EXPECT_GT(moves[1].size(), b_before + 1);
  const nlohmann::json b = board_status(*service, "B");
  EXPECT_EQ(b["source"]["bus_stats"]["lost"], 1) << b.dump(2);
  EXPECT_EQ(b["link"], "connected");
  service->stop();
  service.reset();
  expect_exact(moves);
}

TEST_F(BusMatch, OneBusBoardAndOneSerialBoardPlayABughouseOpening) {
  constexpr std::int64_t kCut = 24000;
  load(kCut);
  if (IsSkipped() || HasFatalFailure()) return;
  wire(true);
  if (HasFatalFailure()) return;
  hub_->start();
  for (auto& p : players_) p->start();
  auto service = start_service();
  ASSERT_TRUE(service);
  ASSERT_TRUE(play_until());
  settle(*service);
  const auto moves = moves_of(*service);
  const nlohmann::json st = service->status();
  for (const auto& b : st["boards"]) {
    EXPECT_EQ(b["link"], "connected") << b.dump(2);
    EXPECT_EQ(b["source"].contains("bus_address"), b["id"] == "A") << b.dump(2);
  }
  service->stop();
  service.reset();
  expect_exact(moves);
}

// No service runs while both boards play 4 plies or more each, on a clock without increment: each board's
// gap is held with its length open ([gaps] hold_uncounted, the default: length_unknown) or, without the
// hold, told as a moves-missed that says a longer story may be the one (length_uncertain); either way its
// captures are handed to the partner as its shortest story says (one gap drops a piece the other's
// captured). The arbiter's moves settle each, every ply at its place and both reserves as played.
void BusMatch::gaps_of_four_plies_or_more(bool hold, std::int64_t stop_after_ms) {
  constexpr std::int64_t kCut = 40000;
  load(kCut);
  if (IsSkipped() || HasFatalFailure()) return;
  // The boards after each of their plies (0: the start).
  std::array<std::vector<std::array<rules::Piece, 64>>, 2> boards{
      std::vector<std::array<rules::Piece, 64>>{rec_.start[0].board()},
      std::vector<std::array<rules::Piece, 64>>{rec_.start[1].board()}};
  {
    std::array<rules::Position, 2> pos = rec_.start;
    for (const auto& mv : rec_.moves) {
      rules::play_bughouse_move(pos, mv.board, mv.move);
      boards[std::size_t(mv.board)].push_back(pos[std::size_t(mv.board)].board());
    }
  }
  const auto pressed_by = [&](std::size_t b, std::int64_t t) {
    return std::count_if(plan_.boards[b].press_ms.begin(), plan_.boards[b].press_ms.end(),
                         [&](std::int64_t p) { return p <= t; });
  };
  // Stopped at the first quiet moment after `stop_after_ms`, back at the first quiet moment after each board
  // pressed 4 times more. (From 6 s: A's 7.P@b5 drops the pawn of B's 8...dxe4, in B's gap: A's board is
  // searched again once B's gap hands the pawn over, Reconstructor::receive.)
  const std::int64_t stop = quiet_after_a_press(stop_after_ms, kCut);
  ASSERT_GT(stop, 0);
  std::int64_t t = stop;
  while (t < kCut &&
         (pressed_by(0, t) < pressed_by(0, stop) + 4 || pressed_by(1, t) < pressed_by(1, stop) + 4))
    t += 100;
  const std::int64_t back = quiet_after_a_press(t, kCut);
  ASSERT_GT(back, 0) << "no moment of this match fits";
  wire();
  if (HasFatalFailure()) return;
  config_.http.token = "arbiter";  // (/status shows each board's control part to a token holder)
  config_.gaps.hold_uncounted = hold;
  hub_->start();
  for (auto& p : players_) p->start();
  {
    auto service = start_service();
    ASSERT_TRUE(service);
    ASSERT_TRUE(play_until(stop));
    service->stop();
  }
  ASSERT_TRUE(play_until(back));
  clock_.hold();
  auto service = start_service();
  ASSERT_TRUE(service);
  eboardd::MatchRuntime* m = service->match("A-B");
  ASSERT_NE(m, nullptr);
  const auto told = [&] {
    return m->match().board(0).missed_gap().has_value() && m->match().board(1).missed_gap().has_value();
  };
  // Read with the clock held (the same boards however slow this machine is), told once it runs again (the
  // boards' settling is timed on the match's clock). Held 3 s: on a loaded machine (the suite six tests at
  // a time beside the sanitized build) a second did not always see both boards' readings searched, and a
  // player's next move came into one.
  io::test::run_for(io_, 3s);
  clock_.release();
  ASSERT_TRUE(io::test::run_until(io_, told))
      << "stop " << stop << " back " << back << ", plies pressed " << pressed_by(0, stop) << "/"
      << pressed_by(1, stop) << " then " << pressed_by(0, back) << "/" << pressed_by(1, back)
      << "\nA: " << testing::PrintToString(moves_of(*service)[0])
      << "\nB: " << testing::PrintToString(moves_of(*service)[1]) << "\nA's alerts: " << [&] {
           std::string out;
           auto scan = journal::scan_journal(dir_ / "state" / "journal" / "A.journal");
           if (scan)
             for (const auto& r : scan->records)
               if (r.type == 'E' && r.body.find("alert") != std::string::npos)
                 out += r.body.substr(0, 300) + "\n";
           return out;
         }();
  std::string settled;
  if (hold) {
    // Held, the BPGN shows each gap's shortest story in its place, as not witnessed.
    const std::string text = m->bpgn();
    EXPECT_EQ(text.find("cannot write BPGN"), std::string::npos) << text;
    EXPECT_NE(text.find("a longer one may be the one"), std::string::npos) << text;
  }
  for (int b = 0; b < 2; ++b) {
    const rules::Reconstructor::MissedGap gap = *m->match().board(b).missed_gap();
    EXPECT_EQ(gap.length_uncertain, !hold) << "board " << b;
    EXPECT_EQ(gap.holds_moves(), hold) << "board " << b;
    EXPECT_GE(gap.shortest_plies(), 4u) << "board " << b;
    // As the arbiter's /status shows it.
    http::Request r;
    r.method = "GET";
    r.target = r.path = "/status";
    r.authorization = "Bearer arbiter";
    const http::Response res = service->handle(r);
    const nlohmann::json st = nlohmann::json::parse(res.body, nullptr, false);
    ASSERT_TRUE(st.is_object() && st.contains("boards")) << res.body.substr(0, 300);
    for (const auto& j : st["boards"]) {
      if (j["id"] == (b ? "B" : "A")) {
        EXPECT_EQ(j["control"]["missed_gap"].value(hold ? "length_unknown" : "length_uncertain", false), true)
            << j["control"].dump();
      }
    }
    // The arbiter's moves: those played from the gap's first ply to the position it was told to.
    const rules::Game& game = m->match().board(b).game();
    // (Held: the game stands after the gap's jump.)
    const int told_to =
        hold ? m->match().board(b).held_gap_end() : gap.first_ply - 1 + int(gap.shortest_plies());
    const auto told_board = game.position_at(told_to).board();
    const auto& played = boards[std::size_t(b)];
    std::size_t last = std::size_t(gap.first_ply);
    while (last < played.size() && played[last] != told_board) ++last;
    ASSERT_LT(last, played.size()) << "board " << b << ": the told position is none of the game's";
    std::string text;
    for (std::size_t i = std::size_t(gap.first_ply); i <= last; ++i)
      text += want_[std::size_t(b)][i - 1] + " ";
    journal::ControlEntry c;
    c.action = "recover";
    c.value = text;
    auto done = m->control(b, c);
    ASSERT_TRUE(done) << "board " << b << ": " << text << ": " << done.error();
    EXPECT_FALSE(m->match().board(b).missed_gap().has_value());
    settled += std::string(b ? "; B " : "A ") + std::to_string(gap.first_ply) + ".." +
               std::to_string(gap.first_ply - 1 + int(gap.shortest_plies())) + " told, " + text;
  }
  ASSERT_TRUE(play_until());
  settle(*service);
  const auto moves = moves_of(*service);
  service->stop();
  service.reset();
  for (std::size_t b = 0; b < 2; ++b) {
    EXPECT_EQ(moves[b].size(), played(b)) << "board " << b;
    ASSERT_LE(moves[b].size(), want_[b].size());
    EXPECT_TRUE(std::equal(moves[b].begin(), moves[b].end(), want_[b].begin())) << "board " << b;
  }
  // No alert but the two gaps'.
  int alerts = 0;
  for (const char* name : {"A.journal", "B.journal"}) {
    auto scan = journal::scan_journal(dir_ / "state" / "journal" / name);
    ASSERT_TRUE(scan) << scan.error();
    for (const auto& r : scan->records)
      if (r.type == 'E' && r.body.find("\"type\":\"alert\"") != std::string::npos) {
        ++alerts;
        EXPECT_NE(r.body.find("\"moves-missed\""), std::string::npos) << r.body;
      }
  }
  EXPECT_EQ(alerts, 2);
  std::printf("no service from %lld to %lld (match ms): %s\n", static_cast<long long>(stop),
              static_cast<long long>(back), settled.c_str());
}

TEST_F(BusMatch, GapsOfFourPliesOrMoreAreHeldAndSettledByTheArbiter) {
  // (From 10 s: A's 9..13 takes a pawn and a knight, B's 8..11 nothing. The window from 6 s, A's gap
  // dropping a pawn B's gap took, is the unheld test's: held, under load A's board can be searched and told
  // a position-mismatch before B's gap hands the pawn over, its reconnect presses read first.)
  gaps_of_four_plies_or_more(true, 10000);
}

TEST_F(BusMatch, GapsOfFourPliesOrMoreAreToldLengthUncertainAndSettledByTheArbiter) {
  gaps_of_four_plies_or_more(false, 6000);
}

// The unheld restart test's journals from a loaded run that failed (2026-12-08: the suite beside a build):
// board A read, its player's next move (8...Kxf7) begun 31 ms later, pressed before B's gap was told; its
// gap (6..11, 7.P@b5 dropping the pawn of B's 8...dxe4) unexplained, and when B's gap handed the pawn over
// the board showed 8 plies past the last move seen, past the search's bound: a position-mismatch.
// Replayed now, the pawn's arrival searches A's board as it was read, and A's moves after it are followed.
TEST_F(BusMatch, ARestartsBoardThatMovedOnIsExplainedWhenItsPartnersGapHandsThePieceOver) {
  load(40000);
  if (IsSkipped() || HasFatalFailure()) return;
  std::array<journal::JournalScan, 2> scans;
  for (std::size_t b = 0; b < 2; ++b) {
    auto scan = journal::scan_journal(fs::path(EBOARD_TEST_DATA) / "journals" /
                                      (b == 0 ? "restart_race_A.journal" : "restart_race_B.journal"));
    ASSERT_TRUE(scan) << scan.error();
    scans[b] = std::move(*scan);
  }
  rules::MatchConfig mc;
  mc.board_ids = {"A", "B"};
  journal::MatchRecovery r = journal::recover_match(&scans[0], &scans[1], mc);
  ASSERT_TRUE(r.match);
  // What the journal says the daemon told then (A's position-mismatch) is not what it tells now: A's gap
  // told at the reading, 6..11 as the passing runs tell it, the moves played among its stories.
  ASSERT_FALSE(r.problems.empty());
  const std::string& now = r.problems[0];
  EXPECT_NE(now.find("journaled {\"action\""), std::string::npos) << now;
  const std::size_t derived = now.find("but replay derived");
  ASSERT_NE(derived, std::string::npos) << now;
  const auto told = nlohmann::json::parse(now.substr(now.find('{', derived)), nullptr, false);
  ASSERT_TRUE(told.is_object()) << now;
  EXPECT_EQ(told.value("code", ""), "moves-missed");
  EXPECT_EQ(told.value("first_ply", 0), 6);
  EXPECT_EQ(told.value("last_ply", 0), 11);
  EXPECT_EQ(told.value("length_uncertain", false), true);
  const std::vector<std::string> truth(want_[0].begin() + 5, want_[0].begin() + 11);
  bool among = false;
  for (const auto& c : told["candidates"]) among |= c.get<std::vector<std::string>>() == truth;
  EXPECT_TRUE(among) << told.dump();
  const rules::Reconstructor& a = r.match->board(0);
  const auto moves = test_support::move_ucis(a.game());
  ASSERT_GT(moves.size(), 20u);
  for (std::size_t i = 11; i < moves.size(); ++i) EXPECT_EQ(moves[i], want_[0][i]) << "ply " << i + 1;
}
