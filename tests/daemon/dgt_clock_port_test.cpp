// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The DGT row's clock port: neutral requests become the clock commands DGT's protocol description gives
// (reference/hardware.md §1.5: `2B <size> 03 <sub> <data> 00`, the expected bytes written by hand here), and
// the clock's ACKs, read from the DGT adapter the port is given, settle them. The queue's resend rules are
// drivers::dgt::ClockQueue's (tested there); here, that they reach the neutral answers.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "daemon/boards/dgt_board.hpp"
#include "daemon/boards/dgt_clock_port.hpp"
#include "drivers/dgt/message_encoder.hpp"

namespace eboard::daemon {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes first_send(session::ClockPort& port, const session::ClockRequest& request) {
  auto ticket = port.enqueue(request);
  EXPECT_TRUE(ticket) << (ticket ? "" : ticket.error());
  auto bytes = port.next_to_send(0);
  EXPECT_TRUE(bytes);
  port.clear();
  return bytes.value_or(Bytes{});
}

TEST(DgtClockPort, RequestsAreTheDocumentsCommands) {
  DgtBoard board;
  DgtClockPort port(board);
  // SETNRUN (0x0A): 1:30:00 and 0:45:10 in binary h m s, flags left runs (0x01) + toggle on lever (0x08).
  EXPECT_EQ(first_send(port, session::ClockTimes{5400000, 2710000, rules::ClockSide::Left}),
            (Bytes{0x2B, 0x0A, 0x03, 0x0A, 1, 30, 0, 0, 45, 10, 0x09, 0x00}));
  // The right side runs (0x02); none runs: pause (0x04). Milliseconds are floored to the second.
  EXPECT_EQ(first_send(port, session::ClockTimes{59999, 1000, rules::ClockSide::Right}),
            (Bytes{0x2B, 0x0A, 0x03, 0x0A, 0, 0, 59, 0, 0, 1, 0x0A, 0x00}));
  EXPECT_EQ(first_send(port, session::ClockTimes{0, 0, std::nullopt}),
            (Bytes{0x2B, 0x0A, 0x03, 0x0A, 0, 0, 0, 0, 0, 0, 0x0C, 0x00}));
  // ASCII (0x0C): eight characters, padded with spaces, and no beep.
  EXPECT_EQ(first_send(port, session::ClockText{"Q R2 P3"}),
            (Bytes{0x2B, 0x0C, 0x03, 0x0C, 'Q', ' ', 'R', '2', ' ', 'P', '3', ' ', 0x00, 0x00}));
  // BEEP (0x0B): in 64 ms units, rounded up.
  EXPECT_EQ(first_send(port, session::ClockBeep{640}), (Bytes{0x2B, 0x04, 0x03, 0x0B, 10, 0x00}));
  EXPECT_EQ(first_send(port, session::ClockBeep{100}), (Bytes{0x2B, 0x04, 0x03, 0x0B, 2, 0x00}));
}

TEST(DgtClockPort, WhatTheClockCannotTakeIsRefusedAndNothingQueued) {
  DgtBoard board;
  DgtClockPort port(board);
  for (const session::ClockRequest& r :
       {session::ClockRequest{session::ClockText{"NINE CHRS"}},
        session::ClockRequest{session::ClockText{"\x01"}},
        session::ClockRequest{session::ClockTimes{36000000, 0, std::nullopt}},
        session::ClockRequest{session::ClockTimes{-1000, 0, std::nullopt}},
        session::ClockRequest{session::ClockBeep{0}}, session::ClockRequest{session::ClockBeep{128 * 64}}}) {
    auto ticket = port.enqueue(r);
    ASSERT_FALSE(ticket);
    EXPECT_FALSE(ticket.error().empty());
  }
  EXPECT_FALSE(port.next_deadline(5));
  EXPECT_FALSE(port.next_to_send(5));
}

// The ACK comes in the board's bytes: the port hears it while they are decoded, and settles at the time
// given.
TEST(DgtClockPort, TheClocksAcksSettleRequests) {
  DgtBoard board;
  DgtClockPort port(board);
  int heard = 0;
  port.on_answer = [&] { ++heard; };
  const auto text = port.enqueue(session::ClockText{"HELLO"});
  const auto times = port.enqueue(session::ClockTimes{60000, 60000, std::nullopt});
  ASSERT_TRUE(text && times);
  EXPECT_EQ(port.next_deadline(100), 100);  // due at once
  ASSERT_TRUE(port.next_to_send(100));
  EXPECT_TRUE(port.waiting_for_answer());
  EXPECT_FALSE(port.next_to_send(100));  // the second waits for the first one's ACK

  drivers::dgt::ClockAck ok;
  ok.ack = {0x10, 0x0C, 0, 0};  // OK, echoing ASCII
  (void)board.feed(500, drivers::dgt::board_message::clock_ack(ok));
  EXPECT_EQ(heard, 1);
  EXPECT_TRUE(port.take_results().empty());  // not settled until told the time
  port.settle(600);
  auto results = port.take_results();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0], (session::ClockResult{*text, session::ClockAnswer::Acknowledged, 1, 600, "0x0c"}));

  ASSERT_TRUE(port.next_to_send(700));
  drivers::dgt::ClockAck error;
  error.ack = {0x40, 0x0A, 0, 0};  // error, echoing SETNRUN: the clock is not in mode 23
  (void)board.feed(900, drivers::dgt::board_message::clock_ack(error));
  port.settle(900);
  results = port.take_results();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].ticket, *times);
  EXPECT_EQ(results[0].status, session::ClockAnswer::Rejected);
  EXPECT_EQ(results[0].command, "0x0a");
  EXPECT_FALSE(port.waiting_for_answer());
  EXPECT_FALSE(port.next_deadline(1000));
}

TEST(DgtClockPort, NoAckAfterTheResendsIsTimedOut) {
  DgtBoard board;
  DgtClockPort port(board);
  ASSERT_TRUE(port.enqueue(session::ClockBeep{64}));
  std::int64_t t = 0;
  int sends = 0;
  while (auto d = port.next_deadline(t)) {
    t = *d;
    if (port.next_to_send(t)) ++sends;
    if (!port.waiting_for_answer()) break;
  }
  EXPECT_EQ(sends, 3);
  const auto results = port.take_results();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, session::ClockAnswer::TimedOut);
  EXPECT_EQ(results[0].attempts, 3);
}

}  // namespace
}  // namespace eboard::daemon
