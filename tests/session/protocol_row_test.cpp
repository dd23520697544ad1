// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A make is described in its protocol row only (board_protocol.hpp): this walks the rows and checks that
// every place needing a make takes each one from there: the capture format and the daemon's capture
// export (a board alone, and on a bus line where the row has a bus dialect), replay, and the emulators
// `eboardctl sim` plays, and a bus dialect's line, reader and framing on that emulator. The configuration is
// walked through the rows by Config.EveryProtocolRowIsABoardTheConfigurationTakes, `eboardctl sim` itself by
// EboardSim.PlaysEveryRowWithAnEmulator, the udev rules and hotplug by tests/daemon_hotplug.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <variant>

#include "daemon/session/board_emulator.hpp"
#include "daemon/session/board_protocol.hpp"
#include "daemon/session/emulated_board.hpp"
#include "daemon/session/replay.hpp"
#include "drivers/capture.hpp"
#include "rules/position.hpp"

namespace eboard::session {
namespace {

TEST(ProtocolRows, NamesAreUniqueAndEachRowIsFoundByItsName) {
  std::set<std::string> names;
  ASSERT_FALSE(board_protocols().empty());
  for (const auto& p : board_protocols()) {
    EXPECT_TRUE(names.insert(std::string(p.name)).second) << p.name << " twice";
    EXPECT_EQ(p.bus_dialect.empty(), p.replay_bus == nullptr) << p.name << ": a bus dialect and its replay";
    if (!p.bus_dialect.empty()) {
      EXPECT_TRUE(names.insert(std::string(p.bus_dialect)).second) << p.bus_dialect;
    }
    EXPECT_EQ(find_protocol(p.name), &p);
    EXPECT_FALSE(p.description.empty()) << p.name << ": --help describes every make";
    EXPECT_NE(p.make_decoder, nullptr) << p.name << ": a row without an adapter reads nothing";
    EXPECT_NE(protocol_names().find(p.name), std::string::npos) << protocol_names();
    EXPECT_NE(capture_protocol_names().find(p.name), std::string::npos) << capture_protocol_names();
  }
  EXPECT_EQ(find_protocol("certabo"), nullptr);
  EXPECT_FALSE(find_capture_protocol("certabo"));
}

// The capture a board of this row exports (alone, or on a bus line) names it so that the format reads it
// back and replay takes it: an empty game replays to no move.
void expect_capture_replays(const drivers::CaptureInfo& info, std::string_view row) {
  drivers::Capture capture;
  capture.info = info;
  capture.records.push_back({1000, drivers::Direction::FromBoard, {0x00}, std::nullopt});
  const auto parsed = drivers::parse_capture(drivers::format_capture(capture));
  ASSERT_TRUE(parsed) << row << ": " << parsed.error();
  EXPECT_EQ(*parsed, capture);
  const auto kind = find_capture_protocol(parsed->info.protocol);
  ASSERT_TRUE(kind) << parsed->info.protocol;
  EXPECT_EQ(kind->row->name, row);
  rules::ReconstructConfig cfg;
  cfg.board_id = "A";
  const auto replayed = replay_capture(*parsed, cfg);
  ASSERT_TRUE(replayed) << parsed->info.protocol << ": " << replayed.error();
  EXPECT_EQ(replayed->game.ply_count(), 0);
}

TEST(ProtocolRows, EveryRowsCapturesReadAndReplay) {
  for (const auto& p : board_protocols()) {
    drivers::CaptureInfo alone;
    alone.board = "A";
    alone.protocol = capture_protocol_name(p.name, false);
    EXPECT_EQ(alone.protocol, p.name);
    expect_capture_replays(alone, p.name);
    if (p.bus_dialect.empty()) {
      EXPECT_EQ(capture_protocol_name(p.name, true), p.name) << "no bus dialect: its own name";
      continue;
    }
    drivers::CaptureInfo on_bus;
    on_bus.board = "A";
    on_bus.protocol = capture_protocol_name(p.name, true);
    EXPECT_EQ(on_bus.protocol, p.bus_dialect);
    on_bus.other_headers.push_back({drivers::kBusAddressHeader, "1025"});
    expect_capture_replays(on_bus, p.name);
    EXPECT_TRUE(find_capture_protocol(p.bus_dialect)->bus);
  }
  drivers::Capture unknown;
  unknown.info.protocol = "certabo";
  const auto refused = replay_capture(unknown, {});
  ASSERT_FALSE(refused);
  for (const auto& p : board_protocols())
    EXPECT_NE(refused.error().find(p.name), std::string::npos) << refused.error();
}

// What sim may ask of an emulator is the row's to say; a USB HID make cannot sit behind a pty.
TEST(ProtocolRows, EveryEmulatorMakesABoard) {
  for (const auto& p : board_protocols()) {
    if (p.transport != Transport::serial) {
      EXPECT_EQ(p.emulator, nullptr) << p.name << ": sim plays boards on a pty only";
      continue;
    }
    ASSERT_NE(p.emulator, nullptr) << p.name << ": every serial make can be played by `eboardctl sim`";
    ASSERT_NE(p.emulator->make, nullptr) << p.name;
    EXPECT_FALSE(p.emulator->summary.empty()) << p.name;
    EXPECT_FALSE(p.emulator->wire.empty()) << p.name;
    EmulatorSetup setup;
    if (!p.emulator->report_modes.empty()) setup.reports = std::string(p.emulator->report_modes.back());
    EXPECT_NE(p.emulator->make(setup), nullptr) << p.name;
    if (!p.bus_dialect.empty()) {
      setup.bus_address = 1025;
      EXPECT_NE(p.emulator->make(setup), nullptr) << p.name;
    }
  }
}

// A bus dialect is whole (a line, a reader of each board's answers, a framing) or absent, and its parts
// fit, seen through bus_line.hpp only: the line's master polls the row's emulated board on a bus and asks
// it for the whole board, the framing cuts the board's bytes into whole frames, the line hands each back
// as that board's and its answers as events, and the reader reads the board answer as the board was set up.
TEST(ProtocolRows, EveryBusDialectPollsAndReadsItsEmulatedBoard) {
  constexpr std::uint16_t kAddress = 1025;
  int dialects = 0;
  for (const auto& p : board_protocols()) {
    const bool bus = !p.bus_dialect.empty();
    EXPECT_EQ(bus, p.make_bus_line != nullptr) << p.name;
    EXPECT_EQ(bus, p.make_bus_board != nullptr) << p.name;
    EXPECT_EQ(bus, p.bus_framing != nullptr) << p.name;
    if (!bus || !p.emulator || !p.make_bus_line || !p.make_bus_board || !p.bus_framing) continue;
    ++dialects;
    EmulatorSetup setup;
    setup.bus_address = kAddress;
    auto board = p.emulator->make(setup);
    ASSERT_NE(board, nullptr) << p.name;
    const rules::BoardSnapshot set_up{rules::Position::from_fen(rules::START_FEN)->board()};
    board->apply(ScriptItem{0, rules::SensorEvent{0, set_up}});
    auto line = p.make_bus_line(BusLineOptions{});
    auto reader = p.make_bus_board();
    line->add_board(kAddress);
    ASSERT_TRUE(line->ask(kAddress, BusAsk::board)) << p.name;
    std::vector<BusAnswered> answers;
    std::size_t commands = 0;
    const auto has = [&](BusAnswerKind kind) {
      return std::any_of(answers.begin(), answers.end(),
                         [kind](const BusAnswered& a) { return a.answer.kind == kind; });
    };
    for (std::int64_t t = 0; t < 5000 && !(has(BusAnswerKind::board) && has(BusAnswerKind::changes));
         t += 5) {
      for (const BusWire& c : line->poll(t)) {
        EXPECT_EQ(c.address, kAddress) << p.name;
        board->receive(t, c.bytes);
        ++commands;
      }
      board->advance(t);
      const std::vector<std::uint8_t> out = board->take_output();
      std::span<const std::uint8_t> rest(out);
      while (const std::size_t n = p.bus_framing->frame_size(rest)) {
        ASSERT_LE(n, rest.size()) << p.name;
        const auto frame = rest.first(n);
        const std::vector<BusWire> frames = line->on_bytes(frame, t);
        ASSERT_EQ(frames.size(), 1u) << p.name << ": a whole frame, " << n << " bytes";
        EXPECT_EQ(frames[0].address, kAddress) << p.name;
        EXPECT_TRUE(std::equal(frame.begin(), frame.end(), frames[0].bytes.begin(), frames[0].bytes.end()))
            << p.name << ": the frame as the board sent it, for its capture";
        rest = rest.subspan(n);
      }
      EXPECT_TRUE(rest.empty()) << p.name << ": the board's bytes end with a whole frame";
      for (BusLineEvent& ev : line->take_events()) {
        if (auto* a = std::get_if<BusAnswered>(&ev)) {
          EXPECT_EQ(a->address, kAddress) << p.name;
          answers.push_back(std::move(*a));
        }
        EXPECT_FALSE(std::holds_alternative<BusBoardLost>(ev)) << p.name;
        EXPECT_FALSE(std::holds_alternative<BusAskFailed>(ev)) << p.name;
      }
    }
    EXPECT_GE(commands, 2u) << p.name << ": its poll and the ask";
    ASSERT_TRUE(has(BusAnswerKind::changes)) << p.name << ": the polls' answer";
    ASSERT_TRUE(has(BusAnswerKind::board)) << p.name << ": the ask's answer";
    const auto dump = std::find_if(answers.begin(), answers.end(), [](const BusAnswered& a) {
      return a.answer.kind == BusAnswerKind::board;
    });
    const std::vector<rules::SensorEvent> read = reader->board(1000, dump->answer);
    ASSERT_EQ(read.size(), 1u) << p.name;
    const auto* snapshot = std::get_if<rules::BoardSnapshot>(&read[0].what);
    ASSERT_NE(snapshot, nullptr) << p.name;
    EXPECT_EQ(snapshot->squares, set_up.squares) << p.name;
    EXPECT_FALSE(reader->rotated()) << p.name;
  }
  EXPECT_GT(dialects, 0) << "no row with a bus dialect and an emulator";
}

// The clock port is the row's: a make whose clock the host commands makes one for the decoder of the same
// board, and its clock's readings come through that decoder too (has_clock). Where the row also has an
// emulator, a text request goes to the emulated board and its clock's answer settles it, in virtual time.
TEST(ProtocolRows, EveryClockPortTalksToItsMakesClock) {
  int ports = 0;
  for (const auto& p : board_protocols()) {
    auto decoder = p.make_decoder();
    if (!p.make_clock_port) continue;
    ++ports;
    EXPECT_TRUE(p.has_clock) << p.name << ": a clock the host commands is one it reads";
    auto port = p.make_clock_port(*decoder);
    ASSERT_NE(port, nullptr) << p.name;
    bool answered = false;
    port->on_answer = [&] { answered = true; };
    auto ticket = port->enqueue(ClockText{"ROW"});
    ASSERT_TRUE(ticket) << p.name << ": " << ticket.error();
    EXPECT_EQ(port->next_deadline(1000), 1000) << p.name << ": due at once";
    auto bytes = port->next_to_send(1000);
    ASSERT_TRUE(bytes) << p.name;
    EXPECT_TRUE(port->waiting_for_answer()) << p.name;
    if (!p.emulator) continue;
    auto board = p.emulator->make(EmulatorSetup{});
    ASSERT_NE(board, nullptr) << p.name;
    // The board answers what the connect conversation asks, then the clock's command.
    if (p.init_commands) board->receive(1000, p.init_commands());
    board->receive(1000, *bytes);
    for (std::int64_t t = 1000; t <= 3000 && !answered; t += 50) {
      board->advance(t);
      (void)decoder->feed(t, board->take_output());
    }
    ASSERT_TRUE(answered) << p.name << ": the clock's answer reached the port through the decoder";
    port->settle(1500);
    const auto results = port->take_results();
    ASSERT_EQ(results.size(), 1u) << p.name;
    EXPECT_EQ(results[0].ticket, *ticket);
    EXPECT_EQ(results[0].status, ClockAnswer::Acknowledged) << p.name;
    EXPECT_EQ(results[0].attempts, 1);
  }
  EXPECT_GT(ports, 0) << "a make with a clock port (DGT)";
}

}  // namespace
}  // namespace eboard::session
