// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/clock_queue.hpp"

#include <gtest/gtest.h>

#include "dgt_test_support.hpp"
#include "drivers/dgt/decoder.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {
namespace {

ClockAck ok_ack(std::uint8_t sub) { return ClockAck{{clock::kAckOk, sub, 0x00, 0x00}}; }
ClockAck button(std::uint8_t code) { return ClockAck{{clock::kAckOk, clock::kAutoButton, 0x00, code}}; }

TEST(ClockQueue, SendsOneCommandAtATimeAndCompletesOnItsAck) {
  ClockQueue q;
  EXPECT_EQ(q.next_deadline(), std::nullopt);
  const auto beep = *encode::clock_beep(4);
  const auto t1 = q.enqueue(beep);
  const auto t2 = q.enqueue(encode::clock_end());
  EXPECT_EQ(q.next_deadline(), ClockQueue::kDueNow);

  EXPECT_EQ(q.next_to_send(100), beep.bytes);
  EXPECT_TRUE(q.waiting_for_ack());
  EXPECT_EQ(q.next_to_send(150), std::nullopt);  // waits for the ACK
  EXPECT_EQ(q.next_deadline(), 2100);

  EXPECT_EQ(q.on_ack(ok_ack(clock::kBeep), 900), AckDisposition::Completed);
  auto results = q.take_results();
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].ticket, t1);
  EXPECT_EQ(results[0].status, ClockCommandStatus::Acknowledged);
  EXPECT_EQ(results[0].attempts, 1);
  EXPECT_EQ(results[0].at_ms, 900);
  EXPECT_EQ(results[0].ack, ok_ack(clock::kBeep));

  EXPECT_EQ(q.next_to_send(900), encode::clock_end().bytes);
  EXPECT_EQ(q.on_ack(ok_ack(clock::kEnd), 1500), AckDisposition::Completed);
  results = q.take_results();
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].ticket, t2);
  EXPECT_EQ(q.size(), 0U);
  EXPECT_EQ(q.next_to_send(2000), std::nullopt);
  EXPECT_EQ(q.next_deadline(), std::nullopt);
}

TEST(ClockQueue, ResendsTwiceThenFailsAndMovesOn) {
  ClockQueue q;
  const auto text = *encode::clock_display_text("hello");
  q.enqueue(text);
  q.enqueue(encode::clock_end());
  EXPECT_EQ(q.next_to_send(0), text.bytes);
  EXPECT_EQ(q.next_to_send(1999), std::nullopt);
  EXPECT_EQ(q.next_to_send(2000), text.bytes);  // second try
  EXPECT_EQ(q.next_deadline(), 4000);
  EXPECT_EQ(q.next_to_send(4000), text.bytes);  // third and last try
  EXPECT_TRUE(q.take_results().empty());
  // No ACK for the third either: the command fails and the next one goes out in the same call.
  EXPECT_EQ(q.next_to_send(6000), encode::clock_end().bytes);
  const auto results = q.take_results();
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].status, ClockCommandStatus::TimedOut);
  EXPECT_EQ(results[0].attempts, 3);
  EXPECT_EQ(results[0].sub, clock::kDisplayText);
  EXPECT_EQ(results[0].ack, std::nullopt);
}

TEST(ClockQueue, ALateAckStillCompletesAResentCommand) {
  ClockQueue q;
  q.enqueue(encode::clock_version_query());
  (void)q.next_to_send(0);
  (void)q.next_to_send(2000);
  EXPECT_EQ(q.on_ack(ClockAck{{0x10, 0x09, 0x21, 0x00}}, 2500), AckDisposition::Completed);
  const auto results = q.take_results();
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].attempts, 2);
  ASSERT_TRUE(results[0].ack);
  EXPECT_EQ(results[0].ack->version(), (Version{2, 1}));
}

TEST(ClockQueue, ButtonPressesAreNotCompletions) {
  ClockQueue q;
  q.enqueue(encode::clock_end());
  (void)q.next_to_send(0);
  EXPECT_EQ(q.on_ack(button(clock::kButtonOk), 300), AckDisposition::Automatic);
  EXPECT_EQ(q.on_ack(ClockAck{{0x10, clock::kAutoReady, 0, 0}}, 350), AckDisposition::Automatic);
  EXPECT_TRUE(q.waiting_for_ack());
  EXPECT_TRUE(q.take_results().empty());
  EXPECT_EQ(q.on_ack(button(clock::kButtonRun), 400), AckDisposition::Automatic);
  // With nothing queued, a button press is still just a button press.
  EXPECT_EQ(q.on_ack(ok_ack(clock::kEnd), 500), AckDisposition::Completed);
  EXPECT_EQ(q.on_ack(button(clock::kButtonBack), 600), AckDisposition::Automatic);
}

TEST(ClockQueue, AckForAnotherCommandIsIgnored) {
  ClockQueue q;
  q.enqueue(encode::clock_end());
  EXPECT_EQ(q.on_ack(ok_ack(clock::kEnd), 0), AckDisposition::Unmatched);  // nothing sent yet
  (void)q.next_to_send(10);
  EXPECT_EQ(q.on_ack(ok_ack(clock::kBeep), 100), AckDisposition::Unmatched);
  EXPECT_TRUE(q.waiting_for_ack());
}

TEST(ClockQueue, ErrorAckRejectsWithoutRetry) {
  ClockQueue q;
  q.enqueue(*encode::clock_set_and_run({.left_ms = 60'000, .right_ms = 60'000}));
  (void)q.next_to_send(0);
  const ClockAck error{{clock::kAckError, clock::kSetAndRun, 0, 0}};
  EXPECT_EQ(q.on_ack(error, 700), AckDisposition::Completed);
  const auto results = q.take_results();
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].status, ClockCommandStatus::Rejected);
  EXPECT_EQ(results[0].ack, error);
  EXPECT_EQ(q.next_to_send(5000), std::nullopt);
}

TEST(ClockQueue, UnechoedErrorAckResendsAtOnce) {
  ClockQueue q;
  const auto text = *encode::clock_display_text("abc");
  q.enqueue(text);
  (void)q.next_to_send(0);
  const ClockAck too_fast{{0x20, 0x00, 0x00, 0x00}};  // as seen in picochess #142
  EXPECT_EQ(q.on_ack(too_fast, 100), AckDisposition::ErrorResend);
  EXPECT_EQ(q.next_deadline(), ClockQueue::kDueNow);
  EXPECT_EQ(q.next_to_send(100), text.bytes);
  EXPECT_EQ(q.next_deadline(), 2100);
  EXPECT_EQ(q.on_ack(too_fast, 200), AckDisposition::ErrorResend);
  EXPECT_EQ(q.next_to_send(200), text.bytes);  // third try
  EXPECT_EQ(q.on_ack(too_fast, 300), AckDisposition::ErrorResend);
  EXPECT_EQ(q.next_to_send(300), std::nullopt);
  const auto results = q.take_results();
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].status, ClockCommandStatus::Rejected);
  EXPECT_EQ(results[0].attempts, 3);
  EXPECT_EQ(results[0].ack, too_fast);
}

TEST(ClockQueue, RepeatedAckDoesNotCompleteTheNextCommand) {
  ClockQueue q;
  const auto first = *encode::clock_display_text("one");
  const auto second = *encode::clock_display_text("two");
  q.enqueue(first);
  q.enqueue(second);
  (void)q.next_to_send(0);
  EXPECT_EQ(q.on_ack(ok_ack(clock::kDisplayText), 1000), AckDisposition::Completed);
  EXPECT_EQ(q.next_to_send(1000), second.bytes);
  // The board keeps returning the same ACK on its next polls for a while.
  EXPECT_EQ(q.on_ack(ok_ack(clock::kDisplayText), 1300), AckDisposition::Repeat);
  EXPECT_EQ(q.on_ack(ok_ack(clock::kDisplayText), 1700), AckDisposition::Repeat);
  EXPECT_EQ(q.take_results().size(), 1U);
  EXPECT_EQ(q.on_ack(ok_ack(clock::kDisplayText), 2100), AckDisposition::Completed);
  EXPECT_EQ(q.take_results().size(), 1U);
  EXPECT_EQ(q.on_ack(ok_ack(clock::kDisplayText), 2200), AckDisposition::Repeat);
}

TEST(ClockQueue, OptionsAreHonoured) {
  ClockQueue q({.ack_timeout_ms = 500, .max_attempts = 1, .repeat_ack_window_ms = 0});
  q.enqueue(encode::clock_end());
  (void)q.next_to_send(0);
  EXPECT_EQ(q.next_deadline(), 500);
  EXPECT_EQ(q.next_to_send(500), std::nullopt);
  ASSERT_EQ(q.take_results().size(), 1U);
}

TEST(ClockQueue, ClearDropsEverything) {
  ClockQueue q;
  q.enqueue(encode::clock_end());
  q.enqueue(encode::clock_end());
  (void)q.next_to_send(0);
  q.clear();
  EXPECT_EQ(q.size(), 0U);
  EXPECT_FALSE(q.waiting_for_ack());
  EXPECT_EQ(q.next_to_send(10), std::nullopt);
  EXPECT_TRUE(q.take_results().empty());
}

TEST(ClockQueue, WorksWithDecodedAcks) {
  ClockQueue q;
  q.enqueue(encode::clock_version_query());
  (void)q.next_to_send(0);
  Decoder d;
  auto bytes = test::ack_bwtime({0x10, 0x88, 0x00, 0x35});
  test::append(bytes, test::ack_bwtime({0x10, 0x09, 0x13, 0x00}));
  std::vector<AckDisposition> seen;
  for (const auto& m : d.feed(bytes)) {
    if (const auto* ack = std::get_if<ClockAck>(&m)) seen.push_back(q.on_ack(*ack, 500));
  }
  EXPECT_EQ(seen, (std::vector<AckDisposition>{AckDisposition::Automatic, AckDisposition::Completed}));
  const auto results = q.take_results();
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].ack->version(), (Version{1, 3}));
}

}  // namespace
}  // namespace eboard::drivers::dgt
