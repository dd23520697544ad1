// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "drivers/dgt/bus.hpp"
#include "drivers/dgt/bus_master.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {
namespace {

using ByteVector = std::vector<std::uint8_t>;

BusCommandBytes cmd(std::uint8_t command, std::uint16_t address) {
  return *encode_bus_command(command, address);
}

ByteVector reply(std::uint8_t id, std::uint16_t address, const ByteVector& data = {}) {
  return encode_bus_reply(id, address, data);
}

TEST(BusFraming, ReplyLayoutAndChecksum) {
  const auto r = reply(bus::kReplyPing, 1025);
  EXPECT_EQ(r, (ByteVector{0x87, 0x00, 0x06, 0x08, 0x01, (0x87 + 6 + 8 + 1) & 0x7F}));
  EXPECT_EQ(bus_checksum(ByteVector{0x87, 0x00, 0x00}), 0x07);
}

TEST(BusFraming, DecodesRepliesInAnyChunking) {
  ByteVector stream = reply(bus::kReplyPing, 1025);
  const ByteVector changes{0x40, 0x34, 0x51, 0x24};
  const auto r2 = reply(bus::kReplyChanges, 7, changes);
  stream.insert(stream.end(), r2.begin(), r2.end());
  const auto r3 = reply(bus::kReplyVersion, 7, {1, 2});
  stream.insert(stream.end(), r3.begin(), r3.end());

  const std::vector<BusFrame> expected{BusReply{bus::kReplyPing, 1025, {}},
                                       BusReply{bus::kReplyChanges, 7, changes},
                                       BusReply{bus::kReplyVersion, 7, {1, 2}}};
  BusDecoder whole;
  EXPECT_EQ(whole.feed(stream), expected);
  BusDecoder bytewise;
  std::vector<BusFrame> out;
  for (auto b : stream) bytewise.feed(std::span(&b, 1), out);
  EXPECT_EQ(out, expected);
  std::mt19937 rng(3);
  for (int round = 0; round < 20; ++round) {
    BusDecoder d;
    std::vector<BusFrame> got;
    for (std::size_t i = 0; i < stream.size();) {
      const std::size_t n = std::min<std::size_t>(stream.size() - i, rng() % 9);
      d.feed(std::span(stream).subspan(i, n), got);
      i += n;
    }
    EXPECT_EQ(got, expected);
  }
}

TEST(BusFraming, BadChecksumIsReported) {
  auto r = reply(bus::kReplyChanges, 300, {0x40, 0x10});
  r.back() ^= 0x01;
  BusDecoder d;
  const auto frames = d.feed(r);
  ASSERT_EQ(frames.size(), 1U);
  EXPECT_EQ(frames[0], (BusFrame{BusBadChecksum{bus::kReplyChanges, 300}}));
  EXPECT_EQ(d.stats().bad_checksums, 1U);
}

TEST(BusFraming, ResyncsAfterGarbageAndOwnEcho) {
  ByteVector stream{0x01, 0x02};
  const auto own = cmd(bus::kPing, 0);  // a half-duplex line may echo our own command
  stream.insert(stream.end(), own.begin(), own.end());
  stream.insert(stream.end(), {0x83, 0x00});  // a reply cut short
  const auto good = reply(bus::kReplyPing, 42);
  stream.insert(stream.end(), good.begin(), good.end());
  BusDecoder d;
  const auto frames = d.feed(stream);
  ASSERT_EQ(frames.size(), 1U);
  EXPECT_EQ(std::get<BusReply>(frames[0]).address, 42);
  EXPECT_GT(d.stats().garbage_bytes, 0U);
  EXPECT_EQ(d.stats().bad_lengths, 1U);
}

template <class T>
std::vector<T> events_of(const std::vector<BusEvent>& events) {
  std::vector<T> out;
  for (const auto& e : events) {
    if (const auto* t = std::get_if<T>(&e)) out.push_back(*t);
  }
  return out;
}

TEST(BusMaster, DiscoveryRepeatsUntilNoNewBoardAnswers) {
  BusMaster m;
  m.start_discovery();
  EXPECT_TRUE(m.discovering());
  EXPECT_EQ(m.next_deadline(), BusMaster::kDueNow);
  EXPECT_EQ(m.poll(0), (std::vector<BusCommandBytes>{{0x87, 0x00, 0x00, 0x07}}));
  EXPECT_EQ(m.next_deadline(), 1200);
  EXPECT_TRUE(m.poll(500).empty());
  m.on_bytes(reply(bus::kReplyPing, 1025), 300);
  m.on_bytes(reply(bus::kReplyPing, 7), 800);
  // Round two: tell the known boards to keep quiet, ping again.
  EXPECT_EQ(m.poll(1200), (std::vector<BusCommandBytes>{cmd(bus::kIgnoreNextPing, 1025),
                                                        cmd(bus::kIgnoreNextPing, 7), cmd(bus::kPing, 0)}));
  m.on_bytes(reply(bus::kReplyPing, 99), 1500);
  EXPECT_EQ(m.poll(2400).size(), 4U);  // round three: three ignores and a ping
  // Nobody new answers: discovery ends and polling starts right away with the first board.
  const auto out = m.poll(3600);
  EXPECT_FALSE(m.discovering());
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0][0], bus::kSendChanges);
  const auto events = m.take_events();
  EXPECT_EQ(events_of<BusBoardFound>(events).size(), 3U);
  const auto finished = events_of<BusDiscoveryFinished>(events);
  ASSERT_EQ(finished.size(), 1U);
  EXPECT_EQ(finished[0].boards, (std::vector<std::uint16_t>{1025, 7, 99}));
}

TEST(BusMaster, GarbledPingAnswersMeanAnotherRound) {
  BusMaster m;
  m.start_discovery();
  (void)m.poll(0);
  auto collided = reply(bus::kReplyPing, 5);
  collided.back() ^= 0x11;
  m.on_bytes(collided, 100);
  EXPECT_EQ(m.poll(1200), (std::vector<BusCommandBytes>{cmd(bus::kPing, 0)}));
  m.on_bytes(reply(bus::kReplyPing, 5), 1300);
  EXPECT_EQ(m.poll(2400).size(), 2U);  // ignore 5, ping
  (void)m.poll(3600);
  EXPECT_FALSE(m.discovering());
  EXPECT_EQ(m.boards(), (std::vector<std::uint16_t>{5}));
}

TEST(BusMaster, DiscoveryEndsAfterMaxRounds) {
  BusMaster m({.max_discovery_rounds = 2});
  m.start_discovery();
  for (std::int64_t t = 0; t < 10'000; t += 1200) {
    (void)m.poll(t);
    auto garbled = reply(bus::kReplyPing, 5);
    garbled.back() ^= 0x01;
    m.on_bytes(garbled, t + 10);
  }
  EXPECT_FALSE(m.discovering());
}

// A little bus of simulated boards answering the master.
struct FakeBus {
  std::map<std::uint16_t, std::vector<ByteVector>> pending_changes;  // per board, one batch per SEND_CHANGES
  std::map<std::uint16_t, ByteVector> last_sent;
  std::vector<BusCommandBytes> seen;
  bool corrupt_next = false;
  bool drop_next = false;

  ByteVector answer(const BusCommandBytes& c) {
    seen.push_back(c);
    const std::uint16_t address = static_cast<std::uint16_t>(c[1] << 7 | c[2]);
    ByteVector data;
    std::uint8_t id = 0;
    switch (c[0]) {
      case bus::kSendChanges: {
        auto& q = pending_changes[address];
        if (!q.empty()) {
          data = q.front();
          q.erase(q.begin());
        }
        last_sent[address] = data;
        id = bus::kReplyChanges;
        break;
      }
      case bus::kRepeatChanges:
        data = last_sent[address];
        id = bus::kReplyChanges;
        break;
      case bus::kSendFromStart:
        data = {0x6F, 0x40, 0x34};
        id = bus::kReplyFromStart;
        break;
      case bus::kSetStartGame:
        id = bus::kReplyStartWritten;
        break;
      default:
        return {};
    }
    if (drop_next) {
      drop_next = false;
      return {};
    }
    auto r = encode_bus_reply(id, address, data);
    if (corrupt_next) {
      corrupt_next = false;
      r.back() ^= 0x01;
    }
    return r;
  }
};

// Runs the master against the fake bus in virtual time, 10 ms steps.
void run(BusMaster& m, FakeBus& bus, std::int64_t from, std::int64_t to) {
  for (std::int64_t t = from; t < to; t += 10) {
    for (const auto& c : m.poll(t)) m.on_bytes(bus.answer(c), t + 5);
  }
}

TEST(BusMaster, PollsBoardsRoundRobinAndReportsChanges) {
  BusMaster m;
  m.add_board(1);
  m.add_board(2);
  FakeBus bus;
  bus.pending_changes[1] = {{0x40, 0x34}, {0x41, 0x24}};
  run(m, bus, 0, 3000);
  // 1000 ms between polls of the same board: 3 polls each in 3 s, alternating.
  ASSERT_EQ(bus.seen.size(), 6U);
  for (std::size_t i = 0; i < bus.seen.size(); ++i) {
    EXPECT_EQ(bus.seen[i][0], bus::kSendChanges);
    EXPECT_EQ(bus.seen[i][2], i % 2 == 0 ? 1 : 2);
  }
  const auto changes = events_of<BusChanges>(m.take_events());
  ASSERT_EQ(changes.size(), 6U);
  EXPECT_EQ(changes[0].address, 1);
  EXPECT_EQ(changes[0].kind, BusChangesKind::New);
  ASSERT_EQ(changes[0].log.records.size(), 1U);
  EXPECT_EQ(std::get<PieceChangeRecord>(changes[0].log.records[0]), (PieceChangeRecord{52, 0, false}));
  EXPECT_EQ(std::get<PieceChangeRecord>(changes[2].log.records[0]), (PieceChangeRecord{36, 1, false}));
  EXPECT_TRUE(changes[1].log.records.empty());
}

TEST(BusMaster, BadChecksumAsksForARepeatThenFromStart) {
  BusMaster m({.max_repeats = 1});
  m.add_board(3);
  FakeBus bus;
  bus.pending_changes[3] = {{0x40, 0x34}};
  bus.corrupt_next = true;
  run(m, bus, 0, 20);
  ASSERT_EQ(bus.seen.size(), 2U);
  EXPECT_EQ(bus.seen[1][0], bus::kRepeatChanges);
  auto changes = events_of<BusChanges>(m.take_events());
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].kind, BusChangesKind::Repeated);
  EXPECT_EQ(changes[0].log.records.size(), 1U);

  // Two failures in a row with max_repeats 1: a repeat, then everything from the start.
  bus.corrupt_next = true;
  run(m, bus, 1000, 1030);  // the poll goes out at 1020 (due 1000 ms after the reply at 15)
  bus.corrupt_next = true;
  run(m, bus, 1030, 1050);
  ASSERT_GE(bus.seen.size(), 5U);
  EXPECT_EQ(bus.seen[2][0], bus::kSendChanges);
  EXPECT_EQ(bus.seen[3][0], bus::kRepeatChanges);
  EXPECT_EQ(bus.seen[4][0], bus::kSendFromStart);
  changes = events_of<BusChanges>(m.take_events());
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].kind, BusChangesKind::FromStart);
  EXPECT_EQ(changes[0].log.records.size(), 2U);
}

TEST(BusMaster, TimeoutsRetryAndFinallyLoseTheBoard) {
  BusMaster m({.max_failures = 3});
  m.add_board(9);
  // SEND_CHANGES at 9600 baud: 4 bytes out (5 ms), then DGT's time-out of 80 ms for the reply to begin
  // (longer than its 20 ms latency, an empty reply of 6 bytes (7 ms), the adapter's 16 ms and a 10 ms
  // margin).
  EXPECT_EQ(m.poll(0), (std::vector<BusCommandBytes>{cmd(bus::kSendChanges, 9)}));
  EXPECT_EQ(m.next_deadline(), 85);
  EXPECT_TRUE(m.poll(84).empty());
  EXPECT_EQ(m.poll(85), (std::vector<BusCommandBytes>{cmd(bus::kRepeatChanges, 9)}));
  EXPECT_EQ(m.poll(170), (std::vector<BusCommandBytes>{cmd(bus::kRepeatChanges, 9)}));
  EXPECT_TRUE(m.poll(255).empty());
  const auto lost = events_of<BusBoardLost>(m.take_events());
  ASSERT_EQ(lost.size(), 1U);
  EXPECT_EQ(lost[0].address, 9);
  EXPECT_TRUE(m.boards().empty());
  EXPECT_EQ(m.next_deadline(), std::nullopt);
}

// Wire timing from byte counts: the wait for an answer is the command's and the whole expected reply's
// bytes at the line's baud rate, plus the board's latency, the adapter's and a margin.
TEST(BusMaster, TheWaitForAReplyIsItsBytesAtTheBaudRate) {
  EXPECT_EQ(bus_wire_ms(70, 9600), 73);  // a board dump: 700 bits
  EXPECT_EQ(bus_wire_ms(4, 9600), 5);
  EXPECT_EQ(bus_wire_ms(96, 9600), 100);
  EXPECT_EQ(expected_bus_reply_size(bus::kBoard), 70U);
  EXPECT_EQ(expected_bus_reply_size(bus::kClock), 13U);
  EXPECT_EQ(expected_bus_reply_size(bus::kSendChanges), 6U);
  EXPECT_EQ(expected_bus_reply_size(bus::kIgnoreNextPing), 0U);
  BusMaster m;
  m.add_board(1);
  ASSERT_TRUE(m.request(1, bus::kBoard));
  EXPECT_EQ(m.poll(0), (std::vector<BusCommandBytes>{cmd(bus::kBoard, 1)}));
  EXPECT_EQ(m.next_deadline(), 5 + 20 + 73 + 16 + 10);  // not 80 ms: a dump alone is 73 ms on the wire
  EXPECT_TRUE(m.poll(80).empty());
  BusMaster fast({.baud = 19200});
  ASSERT_TRUE(fast.request(1, bus::kBoard));
  (void)fast.poll(0);
  EXPECT_EQ(fast.next_deadline(), 3 + 20 + 37 + 16 + 10);
}

// A changes reply of many records announces its length: the wait grows to cover it, and no command goes
// out over it (before, a REPEAT_CHANGES went out 80 ms after the poll, into the reply).
TEST(BusMaster, ALongReplyHoldsTheLineUntilItsLastByte) {
  BusMaster m;
  m.add_board(2);
  EXPECT_EQ(m.poll(0).size(), 1U);
  std::vector<std::uint8_t> data;
  for (int i = 0; i < 100; ++i) {
    data.push_back(0x40);
    data.push_back(static_cast<std::uint8_t>(i % 64));
  }
  const auto frame = encode_bus_reply(bus::kReplyChanges, 2, data);
  ASSERT_EQ(frame.size(), 206U);
  // Its first 30 bytes by 40 ms; 176 more take 184 ms at 9600 baud.
  m.on_bytes(std::span(frame).first(30), 40);
  EXPECT_EQ(m.line_busy_until(), 40 + 184 + 80);  // and DGT's time-out for the rest to come
  EXPECT_GE(*m.next_deadline(), 40 + 184 + 80);
  for (std::int64_t t = 41; t < 250; t += 7) EXPECT_TRUE(m.poll(t).empty()) << t;
  m.on_bytes(std::span(frame).subspan(30), 220);
  const auto changes = events_of<BusChanges>(m.take_events());
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].kind, BusChangesKind::New);
  EXPECT_EQ(m.line_busy_until(), BusMaster::kDueNow);  // the frame is in: the line is free
}

// A reply handed to the host late (a loaded host; a pty or a network bridge whose kernel or server holds
// the bytes): its first byte is awaited DGT's time-out after the command, and a frame whose bytes stop is
// awaited that long again after its last byte, so that no command goes out over the rest.
TEST(BusMaster, AReplyHeldOnItsWayInIsWaitedForDgtsTimeOut) {
  BusMaster m;
  m.add_board(5);
  m.add_board(6);
  ASSERT_EQ(m.poll(0), (std::vector<BusCommandBytes>{cmd(bus::kSendChanges, 5)}));
  // Its whole reply would be on the wire by 38 ms and read by 58 ms on a serial adapter: not given up.
  for (std::int64_t t = 1; t < 85; t += 3) EXPECT_TRUE(m.poll(t).empty()) << t;
  const auto reply =
      encode_bus_reply(bus::kReplyChanges, 5, std::vector<std::uint8_t>{0x41, 0x24, 0x40, 0x34});
  m.on_bytes(std::span(reply).first(4), 70);
  // 6 bytes are still to come (7 ms): the line is held 80 ms beyond them.
  EXPECT_EQ(m.line_busy_until(), 70 + 7 + 80);
  for (std::int64_t t = 71; t < 157; t += 5) EXPECT_TRUE(m.poll(t).empty()) << t;
  m.on_bytes(std::span(reply).subspan(4), 150);
  const auto changes = events_of<BusChanges>(m.take_events());
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].address, 5);
  EXPECT_EQ(changes[0].kind, BusChangesKind::New);
  EXPECT_EQ(changes[0].log.records.size(), 2U);
  // In whole: the line is free at once, and the next board is asked.
  EXPECT_EQ(m.poll(150), (std::vector<BusCommandBytes>{cmd(bus::kSendChanges, 6)}));
}

// A frame nobody waits for (a late answer, another board) holds the line as well.
TEST(BusMaster, NoCommandGoesOutOverAnotherBoardsFrame) {
  BusMaster m;
  m.add_board(3);
  const auto dump = encode_bus_reply(bus::kReplyBoardDump, 7, std::vector<std::uint8_t>(64, 0));
  m.on_bytes(std::span(dump).first(10), 0);
  EXPECT_TRUE(m.poll(1).empty());
  EXPECT_EQ(m.next_deadline(), bus_wire_ms(60, 9600) + 80);  // its bytes, and DGT's time-out for them
  m.on_bytes(std::span(dump).subspan(10), 62);
  EXPECT_EQ(m.poll(62), (std::vector<BusCommandBytes>{cmd(bus::kSendChanges, 3)}));
}

TEST(BusMaster, ARecoveredBoardStartsCountingAgain) {
  BusMaster m({.max_failures = 2});
  m.add_board(4);
  FakeBus bus;
  for (int i = 0; i < 5; ++i) {
    bus.drop_next = true;
    run(m, bus, i * 1000, i * 1000 + 500);
  }
  EXPECT_EQ(m.boards(), (std::vector<std::uint16_t>{4}));
  EXPECT_TRUE(events_of<BusBoardLost>(m.take_events()).empty());
}

TEST(BusMaster, RequestsGoOutBetweenPolls) {
  BusMaster m;
  m.add_board(1);
  ASSERT_TRUE(m.request(1, bus::kSetStartGame));
  EXPECT_FALSE(m.request(0x4000, bus::kSetStartGame));
  EXPECT_EQ(m.next_deadline(), BusMaster::kDueNow);
  FakeBus bus;
  run(m, bus, 0, 30);
  ASSERT_EQ(bus.seen.size(), 2U);
  EXPECT_EQ(bus.seen[0], cmd(bus::kSetStartGame, 1));
  EXPECT_EQ(bus.seen[1], cmd(bus::kSendChanges, 1));
  const auto events = m.take_events();
  const auto replies = events_of<BusReplyReceived>(events);
  ASSERT_EQ(replies.size(), 1U);
  EXPECT_EQ(replies[0].reply.id, bus::kReplyStartWritten);

  ASSERT_TRUE(m.request(1, bus::kClock));
  (void)m.poll(2000);
  EXPECT_TRUE(m.poll(2090).size() <= 1U);
  const auto failed = events_of<BusRequestFailed>(m.take_events());
  ASSERT_EQ(failed.size(), 1U);
  EXPECT_EQ(failed[0].command, bus::kClock);
}

TEST(BusMaster, ExpectedReplies) {
  EXPECT_EQ(expected_bus_reply(bus::kSendChanges), bus::kReplyChanges);
  EXPECT_EQ(expected_bus_reply(bus::kRepeatChanges), bus::kReplyChanges);
  EXPECT_EQ(expected_bus_reply(bus::kSendFromStart), bus::kReplyFromStart);
  EXPECT_EQ(expected_bus_reply(bus::kPing), bus::kReplyPing);
  EXPECT_EQ(expected_bus_reply(bus::kIgnoreNextPing), std::nullopt);
  EXPECT_EQ(expected_bus_reply(bus::kReset), std::nullopt);
}

}  // namespace
}  // namespace eboard::drivers::dgt
