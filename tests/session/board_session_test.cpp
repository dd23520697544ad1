// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// End to end: a corpus game played by simulated hands on the emulated DGT board, over a real serial path
// (a umockdev mock USB device opened through libserialport, or a bare pty opened through the fallback),
// read by the daemon's BoardSession with real timers on an accelerated clock, and reconstructed move for
// move, with the board unplugged for about a second (the end of a move and its clock press happen while
// it is away) and plugged in again.
//
// Built twice: with EBOARD_SESSION_UMOCKDEV=1 (session_board_test, under libumockdev-preload) for the mock
// USB device, and without (session_pty_test, no preload at all, as a user's daemon meets `eboardctl sim`) for
// bare ptys. The two cannot share a process: the preload takes /dev/pts/N for its own once its testbed has
// used that number. The session's own rules after a connect (the gate, the clock queue, the re-read) are
// tested in the pty build on an in-memory wire in manual time (SessionOnAWire): no real waits.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>
#include <algorithm>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include "daemon/session/replay.hpp"
#if EBOARD_SESSION_UMOCKDEV
#include "daemon/io/testing/mock_serial_device.hpp"
#endif
#include "daemon/session/board_session.hpp"
#include "daemon/session/bus_session.hpp"
#include "daemon/session/emulated_board.hpp"
#include "daemon/session/pty.hpp"
#include "drivers/capture.hpp"
#include "drivers/dgt/decoder.hpp"
#include "drivers/dgt/encoder.hpp"
#include "drivers/dgt/message_encoder.hpp"
#include "drivers/dgt/protocol.hpp"
#include "tests/drivers/dgt_test_support.hpp"
#include "tests/io/io_test_support.hpp"
#include "tests/session/session_test_support.hpp"

namespace eboard::session {
namespace {

using namespace std::chrono_literals;
#if EBOARD_SESSION_UMOCKDEV
using io::testing::MockSerialDevice;
#endif

// What the host sends a DGT board on every connect (DGT's protocol description): UPDATE_NICE (0x4B), then
// SEND_BRD (0x42) for the whole board and SEND_CLK (0x41) for one clock reading.
std::vector<std::uint8_t> dgt_init_commands() { return {0x4B, 0x42, 0x41}; }

constexpr std::int64_t kUnixBase = 1'750'000'000'000;  // the session's clock: this + the script's time
constexpr double kSpeed = 10;                          // the game runs ten times faster than real time

enum class Wire { Umockdev, BarePty };

std::string wire_name(const ::testing::TestParamInfo<Wire>& info) {
  return info.param == Wire::Umockdev ? "UmockdevThroughLibserialport" : "BarePtyThroughTheFallback";
}

// The board's side of the wire, plugged and unplugged as the test says.
class BoardWire {
 public:
  explicit BoardWire(Wire kind) : kind_(kind) {}
  ~BoardWire() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  BoardWire(const BoardWire&) = delete;
  BoardWire& operator=(const BoardWire&) = delete;

  // Where the host finds the board: a stable path across replugs.
  tl::expected<std::string, std::string> prepare() {
#if EBOARD_SESSION_UMOCKDEV
    if (kind_ == Wire::Umockdev) {
      auto dev = MockSerialDevice::create();
      if (!dev) return tl::unexpected(dev.error());
      device_ = std::move(*dev);
      return device_->stable_path();
    }
#endif
    std::string tmpl = (std::filesystem::temp_directory_path() / "eboard-session-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) return tl::unexpected(std::string("mkdtemp failed"));
    dir_ = tmpl;
    link_ = dir_ / "dgt";
    return link_.string();
  }

  void plug(BoardPlayer& player) {
#if EBOARD_SESSION_UMOCKDEV
    if (kind_ == Wire::Umockdev) {
      auto ok = device_->plug();
      ASSERT_TRUE(ok) << ok.error();
      player.attach(::dup(device_->master_fd()));
      return;
    }
#endif
    auto pty = open_pseudo_terminal();
    ASSERT_TRUE(pty) << pty.error();
    ASSERT_TRUE(point_symlink(link_, pty->slave_path));
    player.attach(pty->master_fd);
  }

  void unplug(BoardPlayer& player) {
    player.detach();  // our end first: the pty hangs up only when no master fd is left
#if EBOARD_SESSION_UMOCKDEV
    if (kind_ == Wire::Umockdev) {
      device_->unplug();
      return;
    }
#endif
    std::error_code ec;
    std::filesystem::remove(link_, ec);
  }

 private:
  Wire kind_;
#if EBOARD_SESSION_UMOCKDEV
  std::unique_ptr<MockSerialDevice> device_;
#endif
  std::filesystem::path dir_;
  std::filesystem::path link_;
};

class EndToEnd : public ::testing::TestWithParam<Wire> {};

TEST_P(EndToEnd, ReconstructsACorpusGameMoveForMoveAcrossAnUnplug) {
#if EBOARD_SESSION_UMOCKDEV
  if (GetParam() == Wire::Umockdev && !io::testing::umockdev_preload_loaded()) {
    GTEST_SKIP() << "libumockdev-preload not loadable (Debian package umockdev): no mock USB device";
  }
#endif
  const auto game = test::first_corpus_game();
  if (!game) GTEST_SKIP() << "no corpus game under " << test::standard_corpus_dir() << " (../shared absent?)";
  const std::vector<std::string> expected = test::uci_moves(*game);
  ASSERT_GE(expected.size(), 4u);
  // EBOARD_E2E_SEED and EBOARD_E2E_UNPLUG_OFFSET_MS (relative to move k's press) explore other cases.
  const auto env_int = [](const char* name, std::int64_t fallback) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::strtoll(v, nullptr, 10) : fallback;
  };
  const sim::Timeline tl =
      test::quick_timeline(*game, static_cast<std::uint64_t>(env_int("EBOARD_E2E_SEED", 7)));
  ASSERT_EQ(tl.press_ms.size(), expected.size());

  boost::asio::io_context io;
  BoardPlayer player(io, drivers::dgt::Emulator{}, script_from_events(tl.events),
                     PlayerConfig{.speed = kSpeed});
  BoardWire wire(GetParam());
  const auto path = wire.prepare();
  ASSERT_TRUE(path) << path.error();

  // The daemon's side.
  BoardSessionConfig cfg;
  cfg.protocol = "dgt";
  cfg.board_id = "A";
  cfg.link.device = *path;
  cfg.link.backoff.initial = 10ms;  // real time: 100 ms on the game's clock
  cfg.link.backoff.max = 40ms;
  cfg.time = io::TimeBase::scaled(io, kSpeed, [&player] { return kUnixBase + player.now_ms(); });
  std::vector<std::string> moves;
  std::vector<std::string> alerts;
  std::vector<std::string> log;
  std::ostringstream capture_text;
  drivers::CaptureInfo capture_info;
  capture_info.board = "A";
  drivers::CaptureWriter capture(capture_text, capture_info);
  BoardSessionHandlers handlers;
  handlers.on_event = [&](const rules::Event& e) {
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) moves.push_back(m->uci);
    if (const auto* a = std::get_if<rules::AlertEvent>(&e.what)) {
      alerts.push_back(a->code + " at ply " + std::to_string(a->ply) + ": " + a->detail);
    }
  };
  handlers.on_wire = [&](std::int64_t t, drivers::Direction dir, std::span<const std::uint8_t> bytes) {
    ASSERT_TRUE(capture.append(t - kUnixBase, dir, bytes));
  };
  handlers.on_log = [&](LogLevel, const std::string& line) { log.push_back(line); };
  BoardSession session(io, cfg, handlers);

  // The unplug: from shortly before move k's clock press until ~1 s later, so that the last placement of
  // the move and the press both happen while the board is away.
  const std::size_t k = expected.size() / 2;
  const std::int64_t unplug_offset = env_int("EBOARD_E2E_UNPLUG_OFFSET_MS", -300);
  const std::int64_t unplug_at = tl.press_ms[k] + unplug_offset;
  constexpr std::int64_t kGap = 1000;
  std::vector<std::vector<std::uint8_t>> host_bursts;
  player.on_host_bytes = [&](std::int64_t, std::span<const std::uint8_t> b) {
    host_bursts.emplace_back(b.begin(), b.end());
  };
  int moves_before_unplug = -1;
  player.at(unplug_at, [&] {
    moves_before_unplug = static_cast<int>(moves.size());
    wire.unplug(player);
    player.at(unplug_at + kGap, [&] {
      wire.plug(player);
      player.power_cycle();
    });
  });

  wire.plug(player);
  player.start();
  session.start();
  const auto real_budget =
      std::chrono::milliseconds(static_cast<std::int64_t>(static_cast<double>(tl.end_ms) / kSpeed)) + 30s;
  const bool done = io::test::run_until(
      io, [&] { return moves.size() >= expected.size(); }, real_budget);
  session.stop();
  player.stop();

  std::string log_text;
  for (const auto& l : log) log_text += l + "\n";
  EXPECT_TRUE(done) << moves.size() << " of " << expected.size() << " moves\n" << log_text;
  EXPECT_EQ(moves, expected) << log_text;
  EXPECT_TRUE(alerts.empty()) << alerts.front();
  EXPECT_EQ(session.game().ply_count(), static_cast<int>(expected.size()));

  // The unplug really cut the game where we meant: before move k was completed.
  EXPECT_GE(moves_before_unplug, 0);
  if (unplug_offset < 0) {
    EXPECT_LE(moves_before_unplug, static_cast<int>(k));
  }
  EXPECT_EQ(session.stats().connects, 2u) << log_text;
  EXPECT_EQ(session.stats().disconnects, 1u);
  EXPECT_EQ(player.stats().attaches, 2u);
  // The host re-initialised the board after the replug: update-nice, dump, clock, on each connection.
  const auto init = dgt_init_commands();
  int inits = 0;
  for (const auto& b : host_bursts) inits += b == init ? 1 : 0;
  EXPECT_EQ(inits, 2);
  if (GetParam() == Wire::BarePty) {
    EXPECT_NE(log_text.find("opened directly"), std::string::npos) << log_text;
  } else {
    EXPECT_NE(log_text.find("(usb 0403:6001)"), std::string::npos) << log_text;
  }

  // The tap recorded a capture that `eboardctl replay` reads: the same moves come back from it.
  auto parsed = drivers::parse_capture(capture_text.str());
  ASSERT_TRUE(parsed) << parsed.error();
  auto replayed = session::replay_capture(*parsed, rules::ReconstructConfig{});
  ASSERT_TRUE(replayed) << replayed.error();
  std::vector<std::string> replayed_moves;
  for (const auto& e : replayed->events) {
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) replayed_moves.push_back(m->uci);
  }
  EXPECT_EQ(replayed_moves, expected);
}

#if EBOARD_SESSION_UMOCKDEV
INSTANTIATE_TEST_SUITE_P(Session, EndToEnd, ::testing::Values(Wire::Umockdev), wire_name);
#else
INSTANTIATE_TEST_SUITE_P(Session, EndToEnd, ::testing::Values(Wire::BarePty), wire_name);
#endif

#if !EBOARD_SESSION_UMOCKDEV
// Before the dump that follows a (re)connect, the board state is unknown: field updates are dropped and
// clock readings are held back until the dump is in, even when the board sends them first.
// These tests are about the gate, the clock queue and the re-read, not the pty (EndToEnd above keeps
// the pty): the session and the board's end talk over an in-memory wire (a socketpair, LinkConfig::
// open_wire) on a manual time base, so that a wait is the clock moved on, not real time slept.
class SessionOnAWire : public ::testing::Test {
 protected:
  static constexpr std::int64_t kT0 = 1'750'000'000'000;

  void SetUp() override {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    board_fd_ = fds[0];
    host_fd_ = fds[1];
  }
  void TearDown() override {
    if (session_) session_->stop();
    master_.reset();
    if (board_fd_ >= 0) ::close(board_fd_);
    if (host_fd_ >= 0) ::close(host_fd_);
  }
  // A session's config on the wire (opened once) and the manual clock.
  BoardSessionConfig wire_config() {
    BoardSessionConfig cfg;
    cfg.protocol = "dgt";
    cfg.link.device = "/nonexistent-eboard-memory-wire/board";
    cfg.link.open_wire = [this]() -> tl::expected<io::SerialPort, io::IoError> {
      if (host_fd_ < 0) return tl::unexpected(io::IoError{io::IoError::Kind::not_found, ENOENT, "gone"});
      io::PortInfo info;
      info.name = "memory";
      return io::SerialPort::adopt(std::exchange(host_fd_, -1), info);
    };
    cfg.time = time_;
    return cfg;
  }
  void start_master() { master_ = std::make_unique<io::test::MasterEnd>(io_, board_fd_); }
  void start(std::int64_t dump_wait_ms, const std::string& protocol = "dgt") {
    BoardSessionConfig cfg = wire_config();
    cfg.protocol = protocol;
    cfg.dump_wait_ms = dump_wait_ms;
    BoardSessionHandlers h;
    h.on_log = [this](LogLevel level, const std::string& line) {
      if (level == LogLevel::warning) warnings_.push_back(line);
    };
    h.on_sensor = [this](const rules::SensorEvent& e) { sensors_.push_back(e); };
    session_ = std::make_unique<BoardSession>(io_, cfg, h);
    session_->start();
    start_master();
    if (protocol != "dgt") return;
    ASSERT_TRUE(until([&] { return master_->received().size() >= 3; }));
    EXPECT_EQ(master_->received(), dgt_init_commands());
  }

  // Runs what is ready on the loop (the wire's bytes included: a socketpair has them at once).
  void settle() {
    for (;;) {
      if (io_.stopped()) io_.restart();
      if (io_.poll() == 0) return;
    }
  }
  // Runs what is ready, then moves the clock to the next thing due, until `done`; false if nothing is
  // due any more, or `budget_ms` of the clock passed first.
  template <class Pred>
  bool until(Pred done, std::int64_t budget_ms = 60'000) {
    const std::int64_t end = time_->now_ms() + budget_ms;
    for (;;) {
      settle();
      if (done()) return true;
      const auto next = time_->next_due();
      if (!next || *next > end) return false;
      time_->advance_to(*next);
    }
  }
  // Lets `ms` of the clock pass, everything due meanwhile at its time, with what is ready run between.
  void pass(std::int64_t ms) {
    const std::int64_t end = time_->now_ms() + ms;
    for (;;) {
      settle();
      const auto next = time_->next_due();
      if (!next || *next > end) break;
      time_->advance_to(*next);
    }
    time_->advance_to(end);
    settle();
  }
  template <class Pred>
  bool pass_then_until(std::int64_t ms, Pred done) {
    pass(ms);
    return until(done);
  }

  boost::asio::io_context io_;
  std::shared_ptr<io::TimeBase> time_ = io::TimeBase::manual(io_, kT0);
  int board_fd_ = -1;
  int host_fd_ = -1;
  std::unique_ptr<BoardSession> session_;
  std::unique_ptr<io::test::MasterEnd> master_;
  std::vector<std::string> warnings_;
  std::vector<rules::SensorEvent> sensors_;
};

std::vector<std::uint8_t> start_dump_bytes() {
  return *drivers::dgt::board_message::board_dump(drivers::dgt::test::start_squares());
}

std::vector<std::uint8_t> reading_bytes(bool right_runs) {
  drivers::dgt::ClockTimes t;
  t.left.time_ms = 300000;
  t.right.time_ms = 300000;
  t.running = true;
  t.right_lever_high = right_runs;
  t.clock_connected = true;
  return *drivers::dgt::board_message::clock_times(t);
}

TEST_F(SessionOnAWire, FieldUpdatesBeforeTheDumpAreDroppedAndReadingsWaitForIt) {
  start(3000);
  std::vector<std::uint8_t> burst = *drivers::dgt::board_message::field_update(52, 0);
  const auto clock = reading_bytes(false);
  const auto dump = start_dump_bytes();
  burst.insert(burst.end(), clock.begin(), clock.end());
  burst.insert(burst.end(), dump.begin(), dump.end());
  master_->write(burst);
  ASSERT_TRUE(until([&] { return session_->stats().sensor_events >= 3; }));
  EXPECT_EQ(session_->stats().field_updates_before_dump, 1u);
  EXPECT_EQ(session_->stats().readings_held, 1u);
  EXPECT_EQ(session_->stats().dump_timeouts, 0u);
  EXPECT_TRUE(session_->reconstructor().board_matches_game());  // the dump, not the dropped lift
  EXPECT_TRUE(warnings_.empty());
  // Reconstruction saw: the link come up, the dump, then the reading that had been waiting for it.
  ASSERT_EQ(sensors_.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<rules::DeviceLink>(sensors_[0].what));
  EXPECT_TRUE(std::holds_alternative<rules::BoardSnapshot>(sensors_[1].what));
  EXPECT_TRUE(std::holds_alternative<rules::ClockReading>(sensors_[2].what));
  EXPECT_GE(sensors_[2].t_ms, sensors_[1].t_ms);
}

TEST_F(SessionOnAWire, WithoutADumpTheHeldReadingsGoOnAfterTheWait) {
  start(200);
  master_->write(reading_bytes(true));
  ASSERT_TRUE(until([&] { return session_->stats().dump_timeouts == 1; }));
  EXPECT_EQ(session_->stats().readings_held, 1u);
  EXPECT_EQ(session_->stats().sensor_events, 2u);  // link up, then the reading once the wait was over
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("no board dump"), std::string::npos);
  // After that, readings go straight through.
  master_->write(reading_bytes(false));
  ASSERT_TRUE(until([&] { return session_->stats().sensor_events == 3; }));
}

// Clock commands (a DGT 3000 text) wait for the board dump after a connect, go one at a time, each after
// the previous one's ACK (the resend and give-up rules are drivers::dgt::ClockQueue's, tested there).
TEST_F(SessionOnAWire, ClockCommandsWaitForTheDumpAndGoOneAckAtATime) {
  namespace encode = drivers::dgt::encode;
  start(3000);
  const auto first = *encode::clock_display_text("Q R2 P3");
  const auto second = *encode::clock_display_text("EMPTY");
  session_->clock_command(ClockText{"Q R2 P3"});
  session_->clock_command(ClockText{"EMPTY"});
  const std::size_t init = dgt_init_commands().size();
  pass(50);
  EXPECT_EQ(master_->received().size(), init);  // the board is not re-read yet: nothing for the clock
  master_->write(start_dump_bytes());
  ASSERT_TRUE(until([&] { return master_->received().size() >= init + first.bytes.size(); }));
  pass(50);
  std::vector<std::uint8_t> expected = dgt_init_commands();
  expected.insert(expected.end(), first.bytes.begin(), first.bytes.end());
  EXPECT_EQ(master_->received(), expected);  // the second waits for the first one's ACK
  drivers::dgt::ClockAck ack;
  ack.ack = {0x10, first.sub, 0, 0};
  master_->write(drivers::dgt::board_message::clock_ack(ack));
  ASSERT_TRUE(until([&] { return master_->received().size() >= expected.size() + second.bytes.size(); }));
  expected.insert(expected.end(), second.bytes.begin(), second.bytes.end());
  EXPECT_EQ(master_->received(), expected);
  EXPECT_EQ(session_->stats().clock_commands, 2u);
  EXPECT_EQ(session_->stats().clock_commands_failed, 0u);
  EXPECT_TRUE(warnings_.empty());
}

// A clock command whose sender waits for its answer (the arbiter's clock control): told the clock's refusal
// (an error ACK echoing it) and its acknowledgement, each once, on the loop.
TEST_F(SessionOnAWire, AClockCommandsSenderIsToldTheClocksAnswer) {
  namespace encode = drivers::dgt::encode;
  start(3000);
  ASSERT_TRUE(until([&] { return session_->connected(); }));
  master_->write(start_dump_bytes());
  ASSERT_TRUE(until([&] { return session_->stats().sensor_events >= 2; }));
  const ClockTimes times{5400000, 2710000, std::nullopt};  // 1:30:00 and 0:45:10, the clock standing
  encode::SetAndRun set;
  set.left_ms = 5400000;
  set.right_ms = 2710000;
  set.pause = true;
  set.toggle_on_lever = true;  // the players' presses go on switching the clock
  const auto command = *encode::clock_set_and_run(set);
  std::vector<ClockResult> answers;
  ASSERT_TRUE(session_->clock_command(times, [&](const auto& r) { answers.push_back(r); }));
  ASSERT_TRUE(until([&] {
    const auto& got = master_->received();
    return std::search(got.begin(), got.end(), command.bytes.begin(), command.bytes.end()) != got.end();
  }));
  drivers::dgt::ClockAck refused;
  refused.ack = {0x40, command.sub, 0, 0};
  master_->write(drivers::dgt::board_message::clock_ack(refused));
  ASSERT_TRUE(until([&] { return answers.size() == 1; }));
  EXPECT_EQ(answers[0].status, ClockAnswer::Rejected);
  char sub[8];
  std::snprintf(sub, sizeof sub, "0x%02x", unsigned(command.sub));
  EXPECT_EQ(answers[0].command, sub);

  ASSERT_TRUE(session_->clock_command(times, [&](const auto& r) { answers.push_back(r); }));
  pass(1100);  // past the window in which the same ACK again is taken as a repeat
  drivers::dgt::ClockAck ok;
  ok.ack = {0x10, command.sub, 0, 0};
  master_->write(drivers::dgt::board_message::clock_ack(ok));
  ASSERT_TRUE(until([&] { return answers.size() == 2; }));
  EXPECT_EQ(answers[1].status, ClockAnswer::Acknowledged);
  pass(50);
  EXPECT_EQ(answers.size(), 2u);  // each told once
}

// A make without a clock port (a Millennium board: no clock comes through it) refuses clock commands at
// once, saying why, with the board online; nothing for a clock goes on its line.
TEST_F(SessionOnAWire, AMakeWithoutAClockPortRefusesClockCommands) {
  start(3000, "millennium");
  ASSERT_TRUE(until([&] { return session_->connected(); }));
  EXPECT_FALSE(session_->has_clock_port());
  pass(50);
  const std::size_t before = master_->received().size();
  bool told = false;
  const auto refused = session_->clock_command(ClockTimes{60000, 60000, rules::ClockSide::Left},
                                               [&](const auto&) { told = true; });
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(),
            "board A is a millennium board: no clock comes through it, so the daemon cannot set one");
  session_->clock_command(ClockText{"HELLO"});  // the same, unanswered: counted as failed
  pass(50);
  EXPECT_FALSE(told);
  EXPECT_EQ(session_->stats().clock_commands, 1u);
  EXPECT_EQ(session_->stats().clock_commands_failed, 1u);
  // Whatever the Millennium adapter polls after connecting, no clock command (DGT's 0x2B) is among it.
  const auto& got = master_->received();
  EXPECT_EQ(std::count(got.begin() + std::ptrdiff_t(before), got.end(), std::uint8_t{0x2B}), 0);
}

// A request the clock cannot show is refused with the clock's reason, and nothing is queued.
TEST_F(SessionOnAWire, ARequestTheClockCannotTakeIsRefused) {
  start(3000);
  ASSERT_TRUE(until([&] { return session_->connected(); }));
  EXPECT_TRUE(session_->has_clock_port());
  const auto refused = session_->clock_command(ClockText{"NINE CHRS"}, [](const auto&) {});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("board A's clock cannot take this"), std::string::npos) << refused.error();
  EXPECT_EQ(session_->stats().clock_commands, 0u);
}

// A field update lost on the wire (Black's pawn set down on e5): the press finds e7 lifted and nothing
// set. The session asks the board for a dump (0x42) once the board is at rest, and the dump completes the
// move: no alert. (Reconstruction's side is tested in rules; this is the request on the wire.)
TEST_F(SessionOnAWire, APressWithNoMoveOnTheBoardAsksForADumpThatCompletesIt) {
  std::vector<rules::Event> events;
  {
    BoardSessionConfig cfg = wire_config();
    cfg.rules.reread_board = true;
    BoardSessionHandlers h;
    h.on_event = [&](const rules::Event& e) { events.push_back(e); };
    session_ = std::make_unique<BoardSession>(io_, cfg, h);
    session_->start();
    start_master();
    ASSERT_TRUE(until([&] { return master_->received().size() >= 3; }));
  }
  namespace message = drivers::dgt::board_message;
  auto moves = [&] {
    std::vector<std::string> m;
    for (const auto& e : events)
      if (const auto* mv = std::get_if<rules::MoveEvent>(&e.what)) m.push_back(mv->uci);
    return m;
  };
  // Each pause ends once the session has seen what was written (a loaded machine can sleep through it).
  const auto seen = [&](std::uint64_t n) {
    return [this, n] { return session_->stats().sensor_events >= n; };
  };
  std::uint64_t sensed = session_->stats().sensor_events;
  master_->write(start_dump_bytes());
  master_->write(reading_bytes(false));
  ASSERT_TRUE(pass_then_until(100, seen(sensed += 2)));
  master_->write(*message::field_update(52, 0));  // e2 lifted
  master_->write(*message::field_update(36, 1));  // a white pawn on e4
  ASSERT_TRUE(pass_then_until(300, seen(sensed += 2)));
  master_->write(reading_bytes(true));  // White presses
  ASSERT_TRUE(until([&] { return moves().size() == 1; }));
  const std::size_t sent_before = master_->received().size();
  sensed = session_->stats().sensor_events;
  master_->write(*message::field_update(12, 0));  // e7 lifted; its placement on e5 is lost
  ASSERT_TRUE(pass_then_until(300, seen(sensed + 1)));
  master_->write(reading_bytes(false));  // Black presses
  ASSERT_TRUE(until([&] { return master_->received().size() > sent_before; }));
  ASSERT_EQ(master_->received().size(), sent_before + 1);
  EXPECT_EQ(master_->received().back(), drivers::dgt::command::kSendBoard);
  EXPECT_EQ(session_->stats().board_rereads, 1u);
  EXPECT_TRUE(moves().size() == 1);  // not completed without the board
  std::array<std::uint8_t, 64> b = drivers::dgt::test::start_squares();
  b[52] = 0;  // e2
  b[36] = 1;  // e4
  b[12] = 0;  // e7
  b[28] = 7;  // e5
  master_->write(*message::board_dump(b));
  ASSERT_TRUE(until([&] { return moves().size() == 2; }));
  EXPECT_EQ(moves(), (std::vector<std::string>{"e2e4", "e7e5"}));
  for (const auto& e : events) EXPECT_FALSE(std::holds_alternative<rules::AlertEvent>(e.what));
  pass(400);
  EXPECT_EQ(session_->stats().board_rereads, 1u);  // once per press
}

// A loaded host: the board sent the rest of a move (the pawn slid on from e3 to e4) before the deadline at
// which the pawn's rest on e3 would count as a release (4.7), but the bytes still wait in the kernel when the
// deadline is judged. They are read first and count as come before it: no piece was released on e3, and the
// press completes e2-e4 with no alert (not released-piece-moved). (A hall's 6x run on a loaded machine saw
// Bc1-d2-f4-g5 read with the bishop released on d2.)
TEST_F(SessionOnAWire, BytesWaitingWhenADeadlineIsJudgedCountAsComeBeforeIt) {
  std::vector<rules::Event> events;
  {
    BoardSessionConfig cfg = wire_config();
    BoardSessionHandlers h;
    h.on_event = [&](const rules::Event& e) { events.push_back(e); };
    session_ = std::make_unique<BoardSession>(io_, cfg, h);
    session_->start();
    start_master();
    ASSERT_TRUE(until([&] { return master_->received().size() >= 3; }));
  }
  namespace message = drivers::dgt::board_message;
  const auto seen = [&](std::uint64_t n) {
    return [this, n] { return session_->stats().sensor_events >= n; };
  };
  std::uint64_t sensed = session_->stats().sensor_events;
  master_->write(start_dump_bytes());
  master_->write(reading_bytes(false));
  ASSERT_TRUE(pass_then_until(100, seen(sensed += 2)));
  master_->write(*message::field_update(52, 0));  // e2 lifted
  master_->write(*message::field_update(44, 1));  // the pawn set down on e3 on its way
  ASSERT_TRUE(pass_then_until(100, seen(sensed += 2)));
  pass(800);  // the pawn rests on e3, short of a release
  // The rest of the move, in the kernel before the next deadline is judged.
  std::vector<std::uint8_t> rest = *message::field_update(44, 0);
  const auto on_e4 = *message::field_update(36, 1);
  rest.insert(rest.end(), on_e4.begin(), on_e4.end());
  ASSERT_EQ(::write(board_fd_, rest.data(), rest.size()), static_cast<ssize_t>(rest.size()));
  const auto due = time_->next_due();
  ASSERT_TRUE(due);
  time_->advance_to(*due);
  ASSERT_TRUE(pass_then_until(400, seen(sensed += 2)));
  master_->write(reading_bytes(true));  // White presses
  std::vector<std::string> moves, alerts;
  ASSERT_TRUE(until([&] {
    moves.clear();
    alerts.clear();
    for (const auto& e : events) {
      if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) moves.push_back(m->uci);
      if (const auto* a = std::get_if<rules::AlertEvent>(&e.what))
        alerts.push_back(a->code + ": " + a->detail);
    }
    return !moves.empty();
  }));
  pass(2000);
  EXPECT_EQ(moves, std::vector<std::string>{"e2e4"});
  EXPECT_TRUE(alerts.empty()) << alerts.front();
}

// A bughouse board's session reconstructs nothing itself (sensor_only): the match does, and tells through
// read_wanted when a press found the board at rest with no move. The session sends the dump request once
// per value the match gives, as it does for its own reconstruction.
TEST_F(SessionOnAWire, ASensorOnlySessionAsksForADumpWhenTheMatchWantsOne) {
  std::optional<std::int64_t> wanted;
  {
    BoardSessionConfig cfg = wire_config();
    cfg.sensor_only = true;
    cfg.read_wanted = [&] { return wanted; };
    session_ = std::make_unique<BoardSession>(io_, cfg, BoardSessionHandlers{});
    session_->start();
    start_master();
    ASSERT_TRUE(until([&] { return master_->received().size() >= 3; }));
  }
  // Each pause ends once the session has seen what was written (a loaded machine can sleep through it), so
  // that "nothing asked" is about a press the session did see.
  const auto seen = [&](std::uint64_t n) {
    return [this, n] { return session_->stats().sensor_events >= n; };
  };
  std::uint64_t sensed = session_->stats().sensor_events;
  master_->write(start_dump_bytes());
  master_->write(reading_bytes(false));
  ASSERT_TRUE(pass_then_until(200, seen(sensed += 2)));
  std::size_t sent = master_->received().size();
  master_->write(reading_bytes(true));
  ASSERT_TRUE(pass_then_until(200, seen(++sensed)));
  EXPECT_EQ(master_->received().size(), sent) << "nothing wanted, nothing asked";
  wanted = 1000;
  master_->write(reading_bytes(false));
  ASSERT_TRUE(until([&] { return master_->received().size() > sent; }));
  EXPECT_EQ(master_->received().back(), drivers::dgt::command::kSendBoard);
  sent = master_->received().size();
  sensed = session_->stats().sensor_events;
  master_->write(reading_bytes(true));
  ASSERT_TRUE(pass_then_until(300, seen(sensed + 1)));
  EXPECT_EQ(master_->received().size(), sent) << "asked twice for the same press";
  wanted = 2000;
  master_->write(reading_bytes(false));
  ASSERT_TRUE(until([&] { return master_->received().size() > sent; }));
  EXPECT_EQ(master_->received().back(), drivers::dgt::command::kSendBoard);
  EXPECT_EQ(session_->stats().board_rereads, 2u);
}

// `eboardctl sim --capture`: the recorded bytes go out verbatim at their times (speeded up), and the board
// answers a host's request from the state the recording shows, preset from its first dump.
TEST(BoardPlayer, CaptureIsPlayedVerbatimAndRequestsAreAnsweredFromItsState) {
  auto capture =
      drivers::read_capture_file(std::string(EBOARD_TEST_DATA) + "/captures/dgt_synthetic_e4e5.cap");
  ASSERT_TRUE(capture) << capture.error();
  std::vector<std::uint8_t> recorded;
  for (const auto& r : capture->records)
    if (r.direction == drivers::Direction::FromBoard)
      recorded.insert(recorded.end(), r.bytes.begin(), r.bytes.end());

  boost::asio::io_context io;
  drivers::dgt::EmulatorConfig ecfg;
  ecfg.spontaneous = false;
  drivers::dgt::Emulator emu(ecfg);
  preset_from_capture(emu, *capture);
  auto pty = open_pseudo_terminal();
  ASSERT_TRUE(pty) << pty.error();
  BoardPlayer player(io, std::move(emu), script_from_capture(*capture),
                     PlayerConfig{.speed = 20, .wait_for_host = true});
  player.attach(pty->master_fd);
  player.start();
  EXPECT_FALSE(player.started());

  auto port = io::SerialPort::open(pty->slave_path, io::LineSettings{});
  ASSERT_TRUE(port) << port.error().message;
  boost::asio::posix::stream_descriptor host(io, ::dup(port->native_handle()));
  std::vector<std::uint8_t> received;
  std::array<std::uint8_t, 256> buf{};
  std::function<void()> read_more = [&] {
    host.async_read_some(boost::asio::buffer(buf), [&](const boost::system::error_code& ec, std::size_t n) {
      if (ec) return;
      received.insert(received.end(), buf.begin(), buf.begin() + static_cast<long>(n));
      read_more();
    });
  };
  read_more();
  const std::uint8_t ask = drivers::dgt::command::kSendBoard;
  ASSERT_EQ(::write(port->native_handle(), &ask, 1), 1);
  const auto dump_size = drivers::dgt::message::kBoardDumpSize;
  ASSERT_TRUE(io::test::run_until(
      io, [&] { return player.script_done() && received.size() >= dump_size + recorded.size(); }));
  EXPECT_TRUE(player.started());
  // First our answer (the board the recording's first dump shows), then the recording, byte for byte.
  drivers::dgt::Decoder decoder;
  const auto first = decoder.feed(std::span(received).first(dump_size));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(std::get<drivers::dgt::BoardDump>(first[0]).pieces[4], drivers::dgt::piece::kBlackKing);
  EXPECT_EQ(std::vector<std::uint8_t>(received.begin() + static_cast<long>(dump_size), received.end()),
            recorded);
  boost::system::error_code ignored;
  host.close(ignored);
  player.stop();
}

#endif  // !EBOARD_SESSION_UMOCKDEV

// A session keeps its config for its life, and a daemon has one per board (1,000 in bench_daemon): the
// reconstruction a restart hands over is taken at the start, so the config must not keep room for a
// whole Reconstructor (some kilobytes) once it is gone.
TEST(BoardSessionConfig, HoldsNoRoomForAReconstructorItHasHandedOver) {
  EXPECT_LT(sizeof(BoardSessionConfig), sizeof(rules::Reconstructor));
  EXPECT_LT(sizeof(BusBoardConfig), sizeof(rules::Reconstructor));
}

// Nor for the game it started from (most of a kilobyte), which the reconstruction took.
TEST(BoardSessionConfig, HoldsNoRoomForAGameItHasHandedOver) {
  EXPECT_LT(sizeof(BoardSessionConfig), sizeof(rules::Game));
  EXPECT_LT(sizeof(BusBoardConfig), sizeof(rules::Game));
}

}  // namespace
}  // namespace eboard::session
