// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The DGT board + clock emulator, read back through our own decoder (and bus decoder, clock queue): modes,
// replies, clock commands and their ACKs, bus mode, capture pass-through, and garbage from the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "drivers/dgt/bus.hpp"
#include "drivers/dgt/clock_queue.hpp"
#include "drivers/dgt/decoder.hpp"
#include "drivers/dgt/emulator.hpp"
#include "drivers/dgt/encoder.hpp"
#include "drivers/dgt/protocol.hpp"
#include "tests/drivers/dgt_test_support.hpp"

namespace eboard::drivers::dgt {
namespace {

using Bytes = std::vector<std::uint8_t>;

std::array<std::uint8_t, 64> start_position() { return test::start_squares(); }

// An emulator with the host's decoder attached: every output is decoded as it comes.
struct Bench {
  explicit Bench(EmulatorConfig cfg = {}) : emu(std::move(cfg)) {}

  std::vector<Message> take() {
    const Bytes out = emu.take_output();
    raw.insert(raw.end(), out.begin(), out.end());
    return decoder.feed(out);
  }
  std::vector<Message> send(std::int64_t t, const Bytes& bytes) {
    emu.receive(t, bytes);
    return take();
  }
  // Runs the emulator deadline by deadline up to `until`, collecting what it sends with the times.
  std::vector<std::pair<std::int64_t, Message>> run_until(std::int64_t from, std::int64_t until) {
    std::vector<std::pair<std::int64_t, Message>> got;
    std::int64_t now = from;
    for (int guard = 0; guard < 100000; ++guard) {
      const auto d = emu.next_deadline();
      if (!d || *d > until) break;
      now = std::max(now, *d);
      emu.advance(now);
      for (auto& m : take()) got.emplace_back(now, std::move(m));
    }
    emu.advance(until);
    for (auto& m : take()) got.emplace_back(until, std::move(m));
    return got;
  }

  Emulator emu;
  Decoder decoder;
  Bytes raw;
};

template <typename T>
std::vector<T> only(const std::vector<Message>& ms) {
  std::vector<T> out;
  for (const auto& m : ms)
    if (const auto* p = std::get_if<T>(&m)) out.push_back(*p);
  return out;
}

template <typename T>
std::vector<std::pair<std::int64_t, T>> only(const std::vector<std::pair<std::int64_t, Message>>& ms) {
  std::vector<std::pair<std::int64_t, T>> out;
  for (const auto& [t, m] : ms)
    if (const auto* p = std::get_if<T>(&m)) out.emplace_back(t, *p);
  return out;
}

EmulatedClock running_left(std::int64_t left_ms, std::int64_t right_ms) {
  EmulatedClock c;
  c.left_ms = left_ms;
  c.right_ms = right_ms;
  c.running = true;
  c.right_lever_high = false;
  return c;
}

TEST(Emulator, IdleBoardSendsNothingByItselfButDumpsOnRequest) {
  Bench b;
  b.emu.set_board(0, start_position());
  b.emu.set_clock(0, running_left(300000, 300000));
  EXPECT_TRUE(b.take().empty());
  EXPECT_TRUE(b.run_until(0, 5000).empty());
  EXPECT_FALSE(b.emu.next_deadline().has_value());
  b.emu.set_piece(5100, 52, 0);  // e2 lifted
  b.emu.set_piece(5300, 36, 1);  // e4
  EXPECT_TRUE(b.take().empty());
  auto dumps = only<BoardDump>(b.send(6000, {command::kSendBoard}));
  ASSERT_EQ(dumps.size(), 1u);
  auto expected = start_position();
  expected[52] = 0;
  expected[36] = 1;
  EXPECT_EQ(dumps[0].pieces, expected);
  EXPECT_EQ(b.emu.mode(), BoardMode::Idle);  // SEND_BRD does not change the mode
}

TEST(Emulator, UpdateBoardModeSendsFieldUpdatesOnly) {
  Bench b;
  b.emu.set_board(0, start_position());
  b.emu.set_clock(0, running_left(300000, 300000));
  EXPECT_TRUE(b.send(10, {command::kUpdateBoard}).empty());
  EXPECT_EQ(b.emu.mode(), BoardMode::UpdateBoard);
  b.emu.set_piece(100, 52, 0);
  b.emu.set_piece(300, 36, 1);
  b.emu.set_piece(400, 36, 1);  // no change: nothing to report
  EXPECT_EQ(only<FieldUpdate>(b.take()), (std::vector<FieldUpdate>{{52, 0}, {36, 1}}));
  EXPECT_TRUE(b.run_until(400, 10000).empty());
}

TEST(Emulator, UpdateNiceSendsTheClockOnlyWhenItChanges) {
  Bench b;
  b.emu.set_clock(0, running_left(10500, 60000));
  b.send(1000, {command::kUpdateNice});
  const auto got = only<ClockTimes>(b.run_until(1000, 5200));
  // First reading one clock poll after the mode change, then one per displayed second.
  ASSERT_GE(got.size(), 4u);
  EXPECT_EQ(got[0].first, 1300);
  EXPECT_EQ(got[0].second.left.time_ms, 10000);  // 9200 ms left, shown rounded up
  EXPECT_EQ(got[1].first, 1500);
  EXPECT_EQ(got[1].second.left.time_ms, 9000);
  EXPECT_EQ(got[2].first, 2500);
  for (const auto& [t, r] : got) {
    EXPECT_TRUE(r.running);
    EXPECT_FALSE(r.right_lever_high);
    EXPECT_TRUE(r.turn_b3);  // left runs: b3, as in the real captures
    EXPECT_FALSE(r.turn_b4);
    EXPECT_EQ(r.right.time_ms, 60000);
    EXPECT_TRUE(r.clock_connected);
  }
  // Stopped: no more readings.
  EmulatedClock stopped = b.emu.clock_at(5200);
  stopped.running = false;
  b.emu.set_clock(5200, stopped);
  EXPECT_EQ(only<ClockTimes>(b.take()).size(), 1u);  // the change itself
  EXPECT_TRUE(b.run_until(5200, 20000).empty());
}

TEST(Emulator, UpdateModeSendsTheClockAtLeastEverySecond) {
  Bench b;
  EmulatedClock stopped;
  stopped.left_ms = stopped.right_ms = 180000;
  b.emu.set_clock(0, stopped);
  b.send(0, {command::kUpdate});
  const auto got = only<ClockTimes>(b.run_until(0, 5500));
  ASSERT_EQ(got.size(), 6u);  // 300, 1300, ... 5300
  for (std::size_t i = 1; i < got.size(); ++i) EXPECT_EQ(got[i].first - got[i - 1].first, 1000);
}

TEST(Emulator, FlagFallsAtZeroAndTheClockStaysThere) {
  Bench b;
  b.emu.set_clock(0, running_left(2500, 1000));
  b.send(0, {command::kUpdateNice});
  const auto got = only<ClockTimes>(b.run_until(0, 6000));
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.back().second.left.time_ms, 0);
  EXPECT_TRUE(got.back().second.left.flag_fallen);
  EXPECT_EQ(got.back().first, 2500);
  EXPECT_FALSE(got.back().second.right.flag_fallen);
}

TEST(Emulator, NoClockConnectedIsReportedAsSuch) {
  Bench b;
  EmulatedClock none;
  none.connected = false;
  b.emu.set_clock(0, none);
  auto r = only<ClockTimes>(b.send(0, {command::kSendClock}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].clock_connected);
  // Clock commands go unanswered.
  b.send(10, {command::kUpdateNice});
  b.send(20, encode::clock_beep(2)->bytes);
  EXPECT_TRUE(only<ClockAck>(b.run_until(20, 3000)).empty());
}

TEST(Emulator, IdentityRepliesAsARealBoardSendsThem) {
  Bench b;
  EXPECT_EQ(only<SerialNumber>(b.send(0, {command::kSerialNumber})).at(0).text, "01025");
  EXPECT_EQ(only<LongSerialNumber>(b.send(0, {command::kLongSerialNumber})).at(0).text, "EBSIM01025");
  EXPECT_EQ(only<BusAddress>(b.send(0, {command::kBusAddress})).at(0).address, 1025);
  EXPECT_NE(only<Trademark>(b.send(0, {command::kTrademark})).at(0).text.find("Digital Game Technology"),
            std::string::npos);
  EXPECT_EQ(only<Version>(b.send(0, {command::kVersion})).at(0), (Version{1, 7}));
  EXPECT_EQ(only<BatteryStatus>(b.send(0, {command::kBatteryStatus})).at(0).percent, 87);

  EmulatorConfig usb;
  usb.battery.reset();
  usb.serial = "31337";
  Bench u(usb);
  EXPECT_TRUE(u.send(0, {command::kBatteryStatus}).empty());
  EXPECT_EQ(only<BusAddress>(u.send(0, {command::kBusAddress})).at(0).address, 31337 & 0x3FFF);
}

TEST(Emulator, CommandsSplitAtEveryByteGiveTheSameBytes) {
  const Bytes commands = [] {
    Bytes c = {command::kSendBoard, command::kSerialNumber, command::kUpdateNice};
    for (const auto& cmd :
         {encode::clock_set_and_run({.left_ms = 60000, .right_ms = 120000, .run_left = true})->bytes,
          encode::clock_display_text("HELLO", 3)->bytes, encode::clock_end().bytes}) {
      c.insert(c.end(), cmd.begin(), cmd.end());
    }
    c.push_back(command::kVersion);
    return c;
  }();
  Bench whole;
  whole.emu.set_board(0, start_position());
  whole.emu.receive(0, commands);
  whole.run_until(0, 3000);
  Bench split;
  split.emu.set_board(0, start_position());
  for (std::uint8_t byte : commands) split.emu.receive(0, Bytes{byte});
  split.run_until(0, 3000);
  EXPECT_FALSE(whole.raw.empty());
  EXPECT_EQ(whole.raw, split.raw);
}

TEST(Emulator, ClockCommandsThroughTheClockQueueAreAcknowledged) {
  Bench b;
  b.emu.set_clock(0, running_left(300000, 300000));
  b.send(0, {command::kUpdateNice});
  ClockQueue q;
  q.enqueue(*encode::clock_display_text("EBOARD", 2));
  q.enqueue(*encode::clock_set_and_run({.left_ms = 65000, .right_ms = 125000, .run_right = true}));
  q.enqueue(*encode::clock_beep(3));
  q.enqueue(encode::clock_version_query());
  q.enqueue(encode::clock_end());
  std::int64_t now = 0;
  std::vector<ClockCommandResult> results;
  for (; now < 20000 && results.size() < 5; now += 10) {
    if (auto bytes = q.next_to_send(now)) b.emu.receive(now, *bytes);
    b.emu.advance(now);
    for (const auto& m : b.take())
      if (const auto* ack = std::get_if<ClockAck>(&m)) q.on_ack(*ack, now);
    for (auto& r : q.take_results()) results.push_back(r);
  }
  ASSERT_EQ(results.size(), 5u);
  for (const auto& r : results) {
    EXPECT_EQ(r.status, ClockCommandStatus::Acknowledged) << int(r.sub);
    EXPECT_EQ(r.attempts, 1);
  }
  ASSERT_TRUE(results[3].ack.has_value());
  EXPECT_EQ(results[3].ack->version(), (Version{2, 2}));
  EXPECT_EQ(b.emu.beeps(), 2);
  EXPECT_TRUE(b.emu.clock_display().empty());  // END came last
  // SETNRUN set the times (binary h/m/s) and made the right side run.
  const EmulatedClock c = b.emu.clock_at(now);
  EXPECT_TRUE(c.running);
  EXPECT_TRUE(c.right_lever_high);
  EXPECT_EQ(c.left_ms, 65000);
  EXPECT_LT(c.right_ms, 125000);
  EXPECT_GT(c.right_ms, 110000);
  EXPECT_EQ(b.emu.stats().acks_sent, 5u);
}

TEST(Emulator, DisplayTextIsShownUntilEnd) {
  Bench b;
  b.send(0, {command::kUpdateNice});
  b.send(0, encode::clock_display_text("DRAW?", 0)->bytes);
  EXPECT_EQ(b.emu.clock_display(), "DRAW?");
  const auto acks = only<ClockAck>(b.run_until(0, 1000));
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_TRUE(acks[0].second.is_ok());
  EXPECT_EQ(acks[0].second.echoed_command(), clock::kDisplayText);
  EXPECT_EQ(acks[0].first, 100);  // ack_delay_ms
  b.send(2000, encode::clock_end().bytes);
  EXPECT_EQ(b.emu.clock_display(), "");
}

TEST(Emulator, SetAndRunOutsideMode23IsAnErrorAck) {
  EmulatorConfig cfg;
  cfg.clock_mode_23 = false;
  Bench b(cfg);
  b.emu.set_clock(0, running_left(300000, 300000));
  b.send(0, {command::kUpdateNice});
  b.send(10, encode::clock_set_and_run({.left_ms = 1000, .right_ms = 1000, .run_left = true})->bytes);
  const auto acks = only<ClockAck>(b.run_until(10, 2000));
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_TRUE(acks[0].second.is_error());
  EXPECT_EQ(acks[0].second.echoed_command(), clock::kSetAndRun);
  EXPECT_EQ(b.emu.clock_at(10).left_ms, 300000 - 10);  // unchanged
}

TEST(Emulator, AcksAreOnlySentInUpdateModes) {
  Bench b;
  b.send(0, encode::clock_beep(1)->bytes);  // IDLE
  EXPECT_TRUE(b.run_until(0, 2000).empty());
  EXPECT_EQ(b.emu.stats().acks_dropped, 1u);
  b.send(2000, {command::kUpdateBoard});
  b.send(2000, encode::clock_beep(1)->bytes);
  EXPECT_TRUE(only<ClockAck>(b.run_until(2000, 4000)).empty());
  b.send(4000, {command::kUpdate});
  b.send(4000, encode::clock_beep(1)->bytes);
  EXPECT_EQ(only<ClockAck>(b.run_until(4000, 6000)).size(), 1u);
}

TEST(Emulator, ButtonPressIsAnAutomaticAck) {
  Bench b;
  b.send(0, {command::kUpdateNice});
  b.emu.press_clock_button(500, ClockButton::Plus);
  const auto acks = only<ClockAck>(b.run_until(500, 2000));
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_TRUE(acks[0].second.is_automatic());
  EXPECT_EQ(acks[0].second.button(), ClockButton::Plus);
}

TEST(Emulator, EepromLogTellsThePowerUpTheChangesAndTheClockPresses) {
  Bench b;
  b.emu.set_board(0, start_position());
  b.emu.set_clock(0, running_left(300000, 300000));
  b.emu.set_piece(5000, 52, 0);
  b.emu.set_piece(5100, 36, 1);
  EmulatedClock pressed = b.emu.clock_at(5600);
  pressed.right_lever_high = true;
  pressed.left_ms += 2000;  // increment
  b.emu.set_clock(5600, pressed);
  const auto dumps = only<EepromDump>(b.send(6000, {command::kEepromMoves}));
  ASSERT_EQ(dumps.size(), 1u);
  const EepromLog& log = dumps[0].log;
  EXPECT_TRUE(log.ended_with_eof);
  EXPECT_EQ(log.invalid_bytes, 0u);
  ASSERT_GE(log.records.size(), 36u);
  EXPECT_EQ(log.records.front(), EepromRecord(TagRecord{EepromTag::PowerUp}));
  EXPECT_NE(
      std::find(log.records.begin(), log.records.end(), EepromRecord(TagRecord{EepromTag::StartPosition})),
      log.records.end());
  const auto n = log.records.size();
  EXPECT_EQ(log.records[n - 3], EepromRecord(PieceChangeRecord{.square = 52, .piece = 0, .quick = false}));
  EXPECT_EQ(log.records[n - 2], EepromRecord(PieceChangeRecord{.square = 36, .piece = 1, .quick = true}));
  EXPECT_EQ(log.records[n - 1], EepromRecord(TimeRecord{.side = ClockSide::Left, .time_ms = 296000}));
}

TEST(Emulator, RotatedBoardMapsSquaresFromWhitesView) {
  EXPECT_EQ(Emulator::raw_square(0, 7, false), 0);   // a8
  EXPECT_EQ(Emulator::raw_square(7, 0, false), 63);  // h1
  EXPECT_EQ(Emulator::raw_square(4, 1, false), 52);  // e2
  EXPECT_EQ(Emulator::raw_square(4, 1, true), 11);   // e2 on a board turned round
  EmulatorConfig cfg;
  cfg.rotated = true;
  Bench b(cfg);
  b.send(0, {command::kUpdateBoard});
  b.emu.set_piece_at(10, 4, 3, 1);  // a white pawn on e4
  EXPECT_EQ(only<FieldUpdate>(b.take()), (std::vector<FieldUpdate>{{static_cast<std::uint8_t>(36 ^ 63), 1}}));
}

TEST(Emulator, BusModeAnswersPingsBoardAndClockRequests) {
  Bench b;
  b.emu.set_board(0, start_position());
  b.emu.receive(0, Bytes{command::kToBusMode});
  EXPECT_TRUE(b.emu.bus_mode());
  BusDecoder bus;
  auto replies = [&] { return bus.feed(b.emu.take_output()); };
  b.emu.receive(0, *encode_bus_command(bus::kPing, 0));
  auto r = replies();
  ASSERT_EQ(r.size(), 1u);
  ASSERT_TRUE(std::holds_alternative<BusReply>(r[0]));
  EXPECT_EQ(std::get<BusReply>(r[0]).id, bus::kReplyPing);
  EXPECT_EQ(std::get<BusReply>(r[0]).address, 1025);
  b.emu.receive(0, *encode_bus_command(bus::kPing, 999));  // someone else
  EXPECT_TRUE(replies().empty());
  b.emu.receive(0, *encode_bus_command(bus::kBoard, 1025));
  r = replies();
  ASSERT_EQ(r.size(), 1u);
  const auto& dump = std::get<BusReply>(r[0]);
  EXPECT_EQ(dump.id, bus::kReplyBoardDump);
  EXPECT_TRUE(std::equal(dump.data.begin(), dump.data.end(), start_position().begin()));
  b.emu.set_piece(100, 52, 0);  // no single-board update in bus mode
  EXPECT_TRUE(b.emu.take_output().empty());
  b.emu.receive(200, *encode_bus_command(bus::kSendChanges, 1025));
  r = replies();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(std::get<BusReply>(r[0]).id, bus::kReplyChanges);
  EXPECT_FALSE(std::get<BusReply>(r[0]).data.empty());
  b.emu.receive(200, *encode_bus_command(bus::kIgnoreNextPing, 1025));
  b.emu.receive(200, *encode_bus_command(bus::kPing, 0));
  EXPECT_TRUE(replies().empty());
  // A bad checksum is ignored; a single-board command ends bus mode.
  b.emu.receive(300, Bytes{bus::kBoard, 0x08, 0x01, 0x00});
  EXPECT_TRUE(replies().empty());
  EXPECT_EQ(only<SerialNumber>(b.send(400, {command::kSerialNumber})).size(), 1u);
  EXPECT_FALSE(b.emu.bus_mode());
}

TEST(Emulator, GarbageFromTheHostNeverBreaksIt) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    Bench b;
    b.emu.set_board(0, start_position());
    b.emu.set_clock(0, running_left(600000, 600000));
    std::mt19937 rng(seed);
    std::int64_t t = 0;
    for (int i = 0; i < 2000; ++i) {
      Bytes chunk(rng() % 12);
      for (auto& c : chunk) c = static_cast<std::uint8_t>(rng());
      t += static_cast<std::int64_t>(rng() % 50);
      b.emu.receive(t, chunk);
      if (rng() % 7 == 0)
        b.emu.set_piece(t, static_cast<std::uint8_t>(rng() % 70), static_cast<std::uint8_t>(rng() % 17));
      b.emu.advance(t);
      (void)b.take();
    }
    // Afterwards it answers as ever, once an unfinished frame has timed out.
    t += 2000;
    b.emu.advance(t);
    (void)b.take();
    b.decoder.reset();
    const auto dumps = only<BoardDump>(b.send(t, {command::kReset, command::kSendBoard}));
    ASSERT_EQ(dumps.size(), 1u) << "seed " << seed;
    EXPECT_EQ(dumps[0].pieces, b.emu.pieces());
    EXPECT_EQ(b.decoder.stats().garbled_messages, 0u);
  }
}

TEST(Emulator, NeverActsOnTheFirmwareLoaderByte) {
  Bench b;
  EXPECT_TRUE(b.send(0, {0x4E}).empty());
  EXPECT_EQ(b.emu.stats().ignored_bytes, 1u);
  EXPECT_EQ(b.emu.stats().commands, 0u);
}

TEST(Emulator, PassThroughRepliesNeverSplitARecordedMessage) {
  EmulatorConfig cfg;
  cfg.spontaneous = false;
  Bench b(cfg);
  Bytes recorded = *board_message::board_dump(start_position());
  const Bytes move = *board_message::field_update(52, 0);
  recorded.insert(recorded.end(), move.begin(), move.end());
  // The recording delivers the dump in two pieces; the host asks for the board in between.
  b.emu.pass_through(0, std::span(recorded).first(30));
  b.emu.receive(5, Bytes{command::kSendBoard});
  b.emu.pass_through(10, std::span(recorded).subspan(30));
  const auto msgs = b.take();
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_EQ(std::get<BoardDump>(msgs[0]).pieces, start_position());
  // Our reply waited for the recorded dump to end; it shows the board as recorded then.
  EXPECT_EQ(std::get<BoardDump>(msgs[1]).pieces, start_position());
  EXPECT_EQ(std::get<FieldUpdate>(msgs[2]), (FieldUpdate{52, 0}));
  EXPECT_EQ(b.emu.pieces()[52], 0);
  EXPECT_EQ(b.decoder.stats().garbage_bytes, 0u);
  // Not spontaneous: its own changes are not reported, the recording's are.
  b.send(20, {command::kUpdateNice});
  b.emu.set_piece(30, 36, 1);
  EXPECT_TRUE(b.run_until(30, 5000).empty());
}

TEST(Emulator, PassThroughClockReadingsKeepTheClockInStep) {
  EmulatorConfig cfg;
  cfg.spontaneous = false;
  Bench b(cfg);
  ClockTimes t;
  t.left.time_ms = 100000;
  t.right.time_ms = 200000;
  t.running = true;
  t.right_lever_high = true;
  t.turn_b4 = true;
  t.clock_connected = true;
  b.emu.pass_through(1000, *board_message::clock_times(t));
  (void)b.take();
  const auto r = only<ClockTimes>(b.send(3000, {command::kSendClock}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].left.time_ms, 100000);
  EXPECT_EQ(r[0].right.time_ms, 198000);
  EXPECT_TRUE(r[0].right_lever_high);
}

TEST(Emulator, PowerCycleForgetsTheModeButNotThePieces) {
  Bench b;
  b.emu.set_board(0, start_position());
  b.send(0, {command::kUpdateNice});
  b.emu.receive(0, Bytes{command::kClockMessage, 0x0A});  // half a clock command
  b.emu.power_cycle(100);
  EXPECT_EQ(b.emu.mode(), BoardMode::Idle);
  EXPECT_FALSE(b.emu.has_output());
  EXPECT_EQ(only<BoardDump>(b.send(200, {command::kSendBoard})).at(0).pieces, start_position());
}

}  // namespace
}  // namespace eboard::drivers::dgt
