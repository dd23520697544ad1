// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The DGT bus as DGT's protocol header defines it (issue 25). Every byte sequence here is written by hand
// from the header's text, not made by this project's emulator or encoders:
//  - a command is `[cmd][addr MSB 7 bits][addr LSB 7 bits][sum of the bytes before & 0x7F]`; the header's
//    own example: 0x81 0x10 0x06 carries the checksum 0x17;
//  - a reply is `[id][len MSB 7 bits][len LSB 7 bits][addr MSB][addr LSB][data...][checksum]`, the length
//    counting every byte; a changes reply (0x85) carries EEPROM records;
//  - a piece record is `0t0r nnnn` (t = 1; r = 1 when written less than about 250 ms after the previous
//    piece record; n the piece code, 0 = empty) then the square `00ii iiii` (0 = a8 ... 63 = h1 with the
//    board the right way round);
//  - a time record is `0uuf hhhh` (uu = 11; f = 1 for the left display) then `0MMMmmmm` and `0SSSssss`
//    (BCD minutes and seconds), the time of the clock the lever stopped;
//  - piece codes: 1..6 white pawn, rook, knight, bishop, king, queen; 7..12 the same in black.
// Each sequence is given with the sensor events and moves it must give, at the poll that brings it.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "daemon/boards/dgt_bus_board.hpp"
#include "drivers/dgt/bus.hpp"
#include "drivers/dgt/bus_master.hpp"
#include "drivers/dgt/eeprom.hpp"
#include "rules/notation.hpp"
#include "rules/reconstruct.hpp"

using namespace eboard;
namespace dgt = eboard::drivers::dgt;
using Bytes = std::vector<std::uint8_t>;

namespace {

// The issue's two replies, from board 9999 (0x4E 0x0F), White on the right-hand display.
// 1: f4 emptied; a white knight set on d3, quick; the right clock stopped at 0:03:38.
const Bytes kReply1{0x85, 0x00, 0x0d, 0x4e, 0x0f, 0x40, 0x25, 0x53, 0x2b, 0x60, 0x03, 0x38, 0x6d};
// 2: f5 emptied; a black rook set on d5, quick; the left clock stopped at 0:03:23; d3 emptied, quick; a
//    white knight set on f4, quick; the right clock stopped at 0:03:38.
const Bytes kReply2{0x85, 0x00, 0x14, 0x4e, 0x0f, 0x40, 0x1d, 0x58, 0x1b, 0x70,
                    0x03, 0x23, 0x50, 0x2b, 0x53, 0x25, 0x60, 0x03, 0x38, 0x6a};

// A board dump's 64 piece codes, raw square 0 = a8, from a FEN's board field (the test's own mapping).
std::array<std::uint8_t, 64> dump_of(const std::string& fen) {
  std::array<std::uint8_t, 64> out{};
  const std::string pieces = "PRNBKQprnbkq";
  std::size_t sq = 0;
  for (const char c : fen) {
    if (c == ' ') break;
    if (c == '/') continue;
    if (c >= '1' && c <= '8') {
      sq += static_cast<std::size_t>(c - '0');
      continue;
    }
    out.at(sq++) = static_cast<std::uint8_t>(pieces.find(c) + 1);
  }
  return out;
}

dgt::BusReply decode(const Bytes& frame) {
  dgt::BusDecoder d;
  auto frames = d.feed(frame);
  EXPECT_EQ(frames.size(), 1u);
  EXPECT_EQ(d.pending_bytes(), 0u);
  const auto* r = frames.empty() ? nullptr : std::get_if<dgt::BusReply>(&frames[0]);
  EXPECT_NE(r, nullptr) << "bad checksum";
  return r ? *r : dgt::BusReply{};
}

std::uint8_t sum7(const Bytes& b) {
  unsigned s = 0;
  for (auto x : b) s += x;
  return static_cast<std::uint8_t>(s & 0x7F);
}

// A changes reply of board `address` carrying `records`, framed as the header says.
Bytes changes_reply(std::uint16_t address, const Bytes& records) {
  Bytes f{0x85, 0, 0, static_cast<std::uint8_t>(address >> 7), static_cast<std::uint8_t>(address & 0x7F)};
  for (const std::uint8_t b : records) f.push_back(b);
  const std::size_t len = f.size() + 1;
  f[1] = static_cast<std::uint8_t>(len >> 7);
  f[2] = static_cast<std::uint8_t>(len & 0x7F);
  f.push_back(sum7(f));
  return f;
}

// One board as the session runs it: its replies in, reconstruction advanced to each reply's arrival.
struct Board {
  explicit Board(const std::string& fen)
      : rec(rules::ReconstructConfig{}, rules::Game(*rules::Position::from_fen(fen))) {
    deliver(bus.board_dump(t, dump_of(fen)));
  }
  // BWTIME p0..p6: right h, m, s; left h, m, s; status (b0 running, b1 right lever high).
  void clock(const Bytes& bwtime) {
    deliver(bus.clock(++t, bwtime));
    since = t;
  }
  // A changes reply `dt` ms after the previous one: the moves it published by then.
  std::vector<std::string> poll(std::int64_t dt, const Bytes& frame) {
    t += dt;
    return changes(dgt::parse_eeprom_records(decode(frame).data));
  }
  // A changes reply's records as the bus master gives them, at `t`.
  std::vector<std::string> changes(const dgt::EepromLog& log) {
    moves.clear();
    events = bus.changes(since, t, log);
    since = t;
    deliver(events);
    take(rec.advance(t));
    return moves;
  }
  void deliver(const std::vector<rules::SensorEvent>& evs) {
    for (const auto& e : evs) take(rec.on_sensor(e));
  }
  void take(const std::vector<rules::Event>& evs) {
    for (const auto& e : evs) {
      if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) moves.push_back(m->uci);
      if (const auto* a = std::get_if<rules::AlertEvent>(&e.what)) alerts.push_back(a->code);
    }
  }
  std::int64_t t = 1'000'000;
  std::int64_t since = t;  // the previous reply's time
  rules::Reconstructor rec;
  daemon::DgtBusBoard bus;
  std::vector<rules::SensorEvent> events;
  std::vector<std::string> moves;
  std::vector<std::string> alerts;
};

const std::string kKnightFen = "6k1/8/8/5r2/5N2/8/8/6K1 w - - 0 1";
// White (right display) on move, 3:40 left for White, 3:30 for Black, the clock running.
const Bytes kWhiteRunning{0x00, 0x03, 0x40, 0x00, 0x03, 0x30, 0x03};

}  // namespace

// --- Framing -----------------------------------------------------------------------------------------

TEST(DgtBusConformance, CommandChecksumAsTheHeaderShows) {
  const auto cmd = dgt::encode_bus_command(0x81, 0x10 << 7 | 0x06);
  ASSERT_TRUE(cmd);
  EXPECT_EQ(Bytes(cmd->begin(), cmd->end()), (Bytes{0x81, 0x10, 0x06, 0x17}));
  // The line's extremes: 137 and 16383 (the largest 14-bit address).
  const auto low = dgt::encode_bus_command(0x83, 137);
  const auto high = dgt::encode_bus_command(0x83, 16383);
  ASSERT_TRUE(low && high);
  EXPECT_EQ(Bytes(low->begin(), low->end()), (Bytes{0x83, 0x01, 0x09, 0x0D}));
  EXPECT_EQ(Bytes(high->begin(), high->end()), (Bytes{0x83, 0x7F, 0x7F, 0x01}));
}

TEST(DgtBusConformance, RepliesFromEitherEndOfTheAddressRange) {
  // A ping answer is six bytes: id, length 6, address, checksum.
  const auto high = decode({0x87, 0x00, 0x06, 0x7F, 0x7F, 0x0B});
  EXPECT_EQ(high.id, 0x87);
  EXPECT_EQ(high.address, 16383);
  EXPECT_TRUE(high.data.empty());
  const auto low = decode(changes_reply(137, {}));
  EXPECT_EQ(low.address, 137);
  EXPECT_EQ(low.id, 0x85);
}

TEST(DgtBusConformance, TheIssueRepliesDecodeRecordByRecord) {
  const auto r1 = decode(kReply1);
  EXPECT_EQ(r1.address, 9999);
  const auto log1 = dgt::parse_eeprom_records(r1.data);
  EXPECT_EQ(log1.invalid_bytes, 0u);
  ASSERT_EQ(log1.records.size(), 3u);
  EXPECT_EQ(log1.records[0],
            (dgt::EepromRecord{dgt::PieceChangeRecord{.square = 37, .piece = 0, .quick = false}}));
  EXPECT_EQ(log1.records[1],
            (dgt::EepromRecord{dgt::PieceChangeRecord{.square = 43, .piece = 3, .quick = true}}));
  EXPECT_EQ(log1.records[2],
            (dgt::EepromRecord{dgt::TimeRecord{dgt::ClockSide::Right, (3 * 60 + 38) * 1000}}));

  const auto log2 = dgt::parse_eeprom_records(decode(kReply2).data);
  EXPECT_EQ(log2.invalid_bytes, 0u);
  ASSERT_EQ(log2.records.size(), 6u);
  EXPECT_EQ(log2.records[0],
            (dgt::EepromRecord{dgt::PieceChangeRecord{.square = 29, .piece = 0, .quick = false}}));
  EXPECT_EQ(log2.records[1],
            (dgt::EepromRecord{dgt::PieceChangeRecord{.square = 27, .piece = 8, .quick = true}}));
  EXPECT_EQ(log2.records[2],
            (dgt::EepromRecord{dgt::TimeRecord{dgt::ClockSide::Left, (3 * 60 + 23) * 1000}}));
  EXPECT_EQ(log2.records[3],
            (dgt::EepromRecord{dgt::PieceChangeRecord{.square = 43, .piece = 0, .quick = true}}));
  EXPECT_EQ(log2.records[4],
            (dgt::EepromRecord{dgt::PieceChangeRecord{.square = 37, .piece = 3, .quick = true}}));
  EXPECT_EQ(log2.records[5],
            (dgt::EepromRecord{dgt::TimeRecord{dgt::ClockSide::Right, (3 * 60 + 38) * 1000}}));
}

TEST(DgtBusConformance, OneByteTagsAndFillers) {
  // 0x6a..0x6f and 0x7a..0x7f are one-byte messages (0x6b ends a dump, 0x7f and 0x00 are fillers).
  const auto log = dgt::parse_eeprom_records(
      Bytes{0x7F, 0x00, 0x6A, 0x41, 0x34, 0x6F, 0x7B, 0x7C, 0x6C, 0x6D, 0x6E, 0x7A});
  EXPECT_EQ(log.invalid_bytes, 0u);
  EXPECT_EQ(log.nop_bytes, 2u);
  ASSERT_EQ(log.records.size(), 9u);
  EXPECT_EQ(log.records[1],
            (dgt::EepromRecord{dgt::PieceChangeRecord{.square = 52, .piece = 1, .quick = false}}));
}

// --- Record times, counted back by the quick bit ------------------------------------------------------

TEST(DgtBusConformance, QuickBitCountsFromThePreviousPieceRecord) {
  const auto log = dgt::parse_eeprom_records(decode(kReply2).data);
  const std::int64_t since = 10'000, t = 12'000;
  const auto at = daemon::DgtBusBoard::record_times(since, t, log);
  ASSERT_EQ(at.size(), 6u);
  // Piece records: f5 emptied; the rook set on d5 quick after it; d3 emptied quick after the rook (the
  // left clock's record between them does not count); the knight on f4 quick after that.
  EXPECT_EQ(at[1] - at[0], daemon::DgtBusBoard::kQuickGapMs);
  EXPECT_EQ(at[3] - at[1], daemon::DgtBusBoard::kQuickGapMs);
  EXPECT_EQ(at[4] - at[3], daemon::DgtBusBoard::kQuickGapMs);
  // Black's press lies between the rook set down and the knight lifted; White's press after the knight.
  EXPECT_GT(at[2], at[1]);
  EXPECT_LT(at[2], at[3]);
  EXPECT_GT(at[5], at[4]);
  // All after the previous reply; the board known quiet from its last record to the reply.
  EXPECT_GT(at[0], since);
  EXPECT_EQ(at[5], t - daemon::DgtBusBoard::kQuietMs);
}

TEST(DgtBusConformance, SlowPieceRecordAfterAPressCountsFromThePieceBefore) {
  // e2 emptied, a white pawn on e4 quick, the right clock stopped, then (slow) e7 emptied, quick e5.
  const Bytes records{0x40, 0x34, 0x51, 0x24, 0x60, 0x05, 0x00, 0x40, 0x0C, 0x57, 0x1C};
  const auto log = dgt::parse_eeprom_records(records);
  ASSERT_EQ(log.records.size(), 5u);
  const auto at = daemon::DgtBusBoard::record_times(0, 5000, log);
  EXPECT_EQ(at[1] - at[0], daemon::DgtBusBoard::kQuickGapMs);
  EXPECT_EQ(at[3] - at[1], daemon::DgtBusBoard::kSlowGapMs);
  EXPECT_EQ(at[2] - at[1], daemon::DgtBusBoard::kPressGapMs);
  EXPECT_EQ(at[4] - at[3], daemon::DgtBusBoard::kQuickGapMs);
}

TEST(DgtBusConformance, TagsGoWithTheChangeBeforeThem) {
  // The last piece of the start position set down, then EE_BEGINPOS.
  const auto log = dgt::parse_eeprom_records(Bytes{0x42, 0x3F, 0x6F});
  const auto at = daemon::DgtBusBoard::record_times(0, 5000, log);
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(at[0], at[1]);
}

TEST(DgtBusConformance, ShortIntervalsKeepTheOrderAfterThePreviousReply) {
  const auto log = dgt::parse_eeprom_records(decode(kReply2).data);
  for (const std::int64_t dt : {2, 50, 130, 250, 420}) {
    const auto at = daemon::DgtBusBoard::record_times(1000, 1000 + dt, log);
    for (std::size_t i = 0; i < at.size(); ++i) {
      EXPECT_GT(at[i], 1000) << dt;
      EXPECT_LE(at[i], 1000 + dt) << dt;
      if (i) {
        EXPECT_LE(at[i - 1], at[i]) << dt;
      }
    }
  }
}

// --- Through reconstruction: what each reply must publish, at the poll that brings it ------------------

TEST(DgtBusConformance, TheIssueGameWithTheClockRead) {
  Board b(kKnightFen);
  b.clock(kWhiteRunning);
  EXPECT_EQ(b.poll(1000, kReply1), (std::vector<std::string>{"f4d3"}));
  EXPECT_EQ(b.poll(1000, kReply2), (std::vector<std::string>{"f5d5", "d3f4"}));
  EXPECT_TRUE(b.alerts.empty());
}

// The board whose clock was never read (its CLK answer lost on the line): the time record alone says which
// clock ran, so the press is seen; it was published nowhere, then as Nf4-d5, before.
TEST(DgtBusConformance, TheIssueGameWithoutAClockReading) {
  Board b(kKnightFen);
  EXPECT_EQ(b.poll(1000, kReply1), (std::vector<std::string>{"f4d3"}));
  EXPECT_EQ(b.poll(1000, kReply2), (std::vector<std::string>{"f5d5", "d3f4"}));
  EXPECT_TRUE(b.alerts.empty());
  // The reading that shows the right clock running comes just before the press, Black's time unknown.
  ASSERT_GE(b.events.size(), 2u);
}

// The clock read before the game began (stopped): the board records no start, so the first time record is
// what says the clock ran.
TEST(DgtBusConformance, TheIssueGameWithTheClockReadStopped) {
  Board b(kKnightFen);
  b.clock({0x00, 0x03, 0x40, 0x00, 0x03, 0x30, 0x02});
  EXPECT_EQ(b.poll(1000, kReply1), (std::vector<std::string>{"f4d3"}));
  EXPECT_EQ(b.poll(1000, kReply2), (std::vector<std::string>{"f5d5", "d3f4"}));
  EXPECT_TRUE(b.alerts.empty());
}

TEST(DgtBusConformance, TheIssueGameAtTheLinesShortestIntervals) {
  for (const std::int64_t dt : {120, 250, 400}) {
    Board b(kKnightFen);
    b.clock(kWhiteRunning);
    EXPECT_EQ(b.poll(dt, kReply1), (std::vector<std::string>{"f4d3"})) << dt;
    EXPECT_EQ(b.poll(dt, kReply2), (std::vector<std::string>{"f5d5", "d3f4"})) << dt;
    EXPECT_TRUE(b.alerts.empty()) << dt;
  }
}

// A move split over two replies (the knight in the air at the first poll): nothing at the first, the move
// at the second; its destination comes from the reply that holds it.
TEST(DgtBusConformance, AMoveSplitOverTwoReplies) {
  Board b(kKnightFen);
  b.clock(kWhiteRunning);
  EXPECT_TRUE(b.poll(1000, changes_reply(9999, {0x40, 0x25})).empty());
  EXPECT_EQ(b.poll(1000, changes_reply(9999, {0x43, 0x1B, 0x60, 0x03, 0x38})),
            (std::vector<std::string>{"f4d5"}));
  EXPECT_TRUE(b.alerts.empty());
}

// The last move of a session and its press, and then nothing: published at the poll that brings them.
TEST(DgtBusConformance, ALastMoveWithItsPressIsPublishedAtItsPoll) {
  Board b(kKnightFen);
  b.clock(kWhiteRunning);
  EXPECT_EQ(b.poll(700, changes_reply(9999, {0x40, 0x25, 0x53, 0x1B, 0x60, 0x03, 0x38})),
            (std::vector<std::string>{"f4d5"}));
  EXPECT_TRUE(b.poll(700, changes_reply(9999, {})).empty());
  EXPECT_TRUE(b.alerts.empty());
}

// The header's example of a capture's dynamics: the capturing piece reported on the victim's square
// first, its own square emptied after, the victim's lift never seen.
TEST(DgtBusConformance, ACaptureWhoseVictimIsNeverSeenLifted) {
  Board b("6k1/8/8/3r4/5N2/8/8/6K1 w - - 0 1");
  b.clock(kWhiteRunning);
  // A white knight on d5 (was a black rook), f4 emptied quick, the right clock stopped.
  EXPECT_EQ(b.poll(1000, changes_reply(9999, {0x43, 0x1B, 0x50, 0x25, 0x60, 0x03, 0x38})),
            (std::vector<std::string>{"f4d5"}));
  EXPECT_TRUE(b.alerts.empty());
}

// Two plies in one reply, each with its press, from a line polled seldom.
TEST(DgtBusConformance, TwoPliesAndTheirPressesInOneReply) {
  Board b(kKnightFen);
  b.clock(kWhiteRunning);
  // Nf4-d3, right clock 3:38; (slow) f5 emptied, rook on f2 quick, left clock 3:23.
  EXPECT_EQ(b.poll(3000, changes_reply(9999, {0x40, 0x25, 0x53, 0x2B, 0x60, 0x03, 0x38, 0x40, 0x1D, 0x58,
                                              0x35, 0x70, 0x03, 0x23})),
            (std::vector<std::string>{"f4d3", "f5f2"}));
  EXPECT_TRUE(b.alerts.empty());
}

// REPEAT_CHANGES answers with the last packet sent again: when that packet was delivered already (its first
// answer came late), it gives nothing; when it was lost, it is the news.
TEST(DgtBusConformance, ARepeatedReplyAddsNoMove) {
  Board b(kKnightFen);
  b.clock(kWhiteRunning);
  EXPECT_EQ(b.poll(1000, kReply1), (std::vector<std::string>{"f4d3"}));
  EXPECT_TRUE(b.poll(200, kReply1).empty());
  EXPECT_TRUE(b.events.empty());
  EXPECT_EQ(b.poll(1000, kReply2), (std::vector<std::string>{"f5d5", "d3f4"}));
  EXPECT_TRUE(b.alerts.empty());
}

// The answer to REPEAT_CHANGES may carry, after the packet it repeats, what the board recorded since (the
// bus emulator's does). When the packet was delivered already, only those records are news: the packet's
// presses, given again, would be a press without a move by each side in turn.
TEST(DgtBusConformance, ARepeatWithTheRecordsWrittenSinceGivesOnlyThose) {
  Board b(kKnightFen);
  b.clock(kWhiteRunning);
  EXPECT_EQ(b.poll(1000, kReply1), (std::vector<std::string>{"f4d3"}));
  EXPECT_EQ(b.poll(1000, kReply2), (std::vector<std::string>{"f5d5", "d3f4"}));
  // kReply2's records again, then d5 emptied (Black lifts the rook): 40 1b.
  EXPECT_TRUE(b.poll(60, changes_reply(9999, {0x40, 0x1d, 0x58, 0x1b, 0x70, 0x03, 0x23, 0x50, 0x2b, 0x53,
                                              0x25, 0x60, 0x03, 0x38, 0x40, 0x1b}))
                  .empty());
  ASSERT_EQ(b.events.size(), 1u);
  EXPECT_EQ(std::get<rules::PieceLifted>(b.events[0].what).square, rules::parse_square("d5"));
  EXPECT_TRUE(b.alerts.empty()) << b.alerts.front();
  // The rook goes on to d1 and Black presses (left clock 0:03:20): the next packet, the move.
  EXPECT_EQ(b.poll(1000, changes_reply(9999, {0x48, 0x3b, 0x70, 0x03, 0x20})),
            (std::vector<std::string>{"d5d1"}));
  EXPECT_TRUE(b.alerts.empty());
}

// The line as the daemon ran it on a loaded machine (a DGT bus test's journal, its bytes traced): the board
// answers SEND_CHANGES after the master's wait, the master gives up and asks the next board, then the first
// one again with REPEAT_CHANGES. The late answer comes meanwhile and is delivered; the repeat's answer (the
// same packet, and a lift recorded since) must not give the packet's two presses again.
TEST(DgtBusConformance, ALateAnswerAndItsRepeatGiveEachPressOnce) {
  Board b(kKnightFen);
  b.clock(kWhiteRunning);
  EXPECT_EQ(b.poll(1000, kReply1), (std::vector<std::string>{"f4d3"}));
  dgt::BusMaster master;  // on the board's clock: virtual time
  master.add_board(9999);
  master.add_board(9998);
  std::vector<std::string> moves;
  const auto at = [&](std::int64_t now, const Bytes& bytes) {
    master.on_bytes(bytes, now);
    for (const auto& ev : master.take_events()) {
      const auto* c = std::get_if<dgt::BusChanges>(&ev);
      if (c == nullptr || c->address != 9999) continue;
      b.t = now;
      const auto got = b.changes(c->log);
      moves.insert(moves.end(), got.begin(), got.end());
    }
  };
  const auto commands = [&](std::int64_t now) {
    Bytes out;
    for (const auto& c : master.poll(now)) out.insert(out.end(), c.begin(), c.end());
    return out;
  };
  const std::int64_t t0 = b.t + 1000;
  EXPECT_EQ(commands(t0), (Bytes{0x83, 0x4e, 0x0f, 0x60}));  // SEND_CHANGES to 9999
  // No answer within the master's wait (the header's 80 ms at most): it asks the other board.
  EXPECT_EQ(commands(t0 + 100), (Bytes{0x83, 0x4e, 0x0e, 0x5f}));  // SEND_CHANGES to 9998
  at(t0 + 105, kReply2);                                           // 9999's late answer
  EXPECT_EQ(moves, (std::vector<std::string>{"f5d5", "d3f4"}));
  at(t0 + 115, changes_reply(9998, {}));
  EXPECT_EQ(commands(t0 + 120), (Bytes{0x84, 0x4e, 0x0f, 0x61}));  // REPEAT_CHANGES to 9999
  // The packet again, and d5 emptied since (Black lifts the rook): 40 1b.
  at(t0 + 150, changes_reply(9999, {0x40, 0x1d, 0x58, 0x1b, 0x70, 0x03, 0x23, 0x50, 0x2b, 0x53, 0x25, 0x60,
                                    0x03, 0x38, 0x40, 0x1b}));
  EXPECT_EQ(moves, (std::vector<std::string>{"f5d5", "d3f4"}));
  EXPECT_TRUE(b.alerts.empty()) << b.alerts.front();
  ASSERT_EQ(b.events.size(), 1u);
  EXPECT_EQ(std::get<rules::PieceLifted>(b.events[0].what).square, rules::parse_square("d5"));
}

// The same with a board that answers REPEAT_CHANGES as the header says (the last packet, nothing more), the
// late answer coming after the repeat was asked for: the master takes it for the repeat's answer, and the
// repeat's own answer, which awaits nothing, for news. The packet's presses must still come once.
TEST(DgtBusConformance, ALateAnswerTakenForTheRepeatsAnswerGivesEachPressOnce) {
  Board b(kKnightFen);
  b.clock(kWhiteRunning);
  EXPECT_EQ(b.poll(1000, kReply1), (std::vector<std::string>{"f4d3"}));
  dgt::BusMaster master;
  master.add_board(9999);
  master.add_board(9998);
  std::vector<std::string> moves;
  std::vector<dgt::BusChangesKind> kinds;
  const auto at = [&](std::int64_t now, const Bytes& bytes) {
    master.on_bytes(bytes, now);
    for (const auto& ev : master.take_events()) {
      const auto* c = std::get_if<dgt::BusChanges>(&ev);
      if (c == nullptr || c->address != 9999) continue;
      kinds.push_back(c->kind);
      b.t = now;
      const auto got = b.changes(c->log);
      moves.insert(moves.end(), got.begin(), got.end());
    }
  };
  const auto commands = [&](std::int64_t now) {
    Bytes out;
    for (const auto& c : master.poll(now)) out.insert(out.end(), c.begin(), c.end());
    return out;
  };
  const std::int64_t t0 = b.t + 1000;
  EXPECT_EQ(commands(t0), (Bytes{0x83, 0x4e, 0x0f, 0x60}));        // SEND_CHANGES to 9999
  EXPECT_EQ(commands(t0 + 100), (Bytes{0x83, 0x4e, 0x0e, 0x5f}));  // no answer: SEND_CHANGES to 9998
  at(t0 + 110, changes_reply(9998, {}));
  EXPECT_EQ(commands(t0 + 120), (Bytes{0x84, 0x4e, 0x0f, 0x61}));  // REPEAT_CHANGES to 9999
  at(t0 + 125, kReply2);                                           // the late answer to SEND_CHANGES
  EXPECT_EQ(moves, (std::vector<std::string>{"f5d5", "d3f4"}));
  at(t0 + 150, kReply2);  // the answer to REPEAT_CHANGES
  EXPECT_EQ(kinds,
            (std::vector<dgt::BusChangesKind>{dgt::BusChangesKind::Repeated, dgt::BusChangesKind::New}));
  EXPECT_EQ(moves, (std::vector<std::string>{"f5d5", "d3f4"}));
  EXPECT_TRUE(b.events.empty());
  EXPECT_TRUE(b.alerts.empty()) << b.alerts.front();
}
