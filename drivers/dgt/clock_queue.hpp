// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// ACK-gated queue of clock commands: one command in flight at a time, resent when its ACK does not come.
// Pure state machine: the caller passes the time in and writes the bytes it gets out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <vector>

#include "drivers/dgt/encoder.hpp"
#include "drivers/dgt/messages.hpp"

namespace eboard::drivers::dgt {

struct ClockQueueOptions {
  std::int64_t ack_timeout_ms = 2000;  // resend after this long without an ACK (picochess uses 2 s)
  int max_attempts = 3;                // sends per command, first one included
  // The board may return the same ACK on its next polls for up to about a second. An ACK identical to the one
  // that completed the previous command, this soon after it, is taken as such a repeat, not as an answer.
  std::int64_t repeat_ack_window_ms = 1000;
};

enum class ClockCommandStatus : std::uint8_t {
  Acknowledged,  // the clock answered OK
  Rejected,      // the clock answered with an error (e.g. SetNRun outside mode 23); not retried
  TimedOut,      // no ACK after max_attempts sends
  // (also Rejected: an error ACK that echoed nothing on the last attempt)
};

struct ClockCommandResult {
  std::uint64_t ticket = 0;
  std::uint8_t sub = 0;
  ClockCommandStatus status = ClockCommandStatus::Acknowledged;
  int attempts = 0;
  std::optional<ClockAck> ack;
  std::int64_t at_ms = 0;
  bool operator==(const ClockCommandResult&) const = default;
};

// What on_ack made of an ACK.
enum class AckDisposition : std::uint8_t {
  Completed,  // it answered the command in flight, which is now finished (see take_results)
  Automatic,  // sent by the clock on its own (button press, ready, mode): not a completion
  Repeat,     // the previous ACK once more
  // An error ACK that echoes no command (picochess saw (0x20,0,0,0) when commands came too fast): the command
  // in flight is resent at once; if it was its last attempt it ends Rejected.
  ErrorResend,
  Unmatched,  // nothing in flight, or it echoes another command: ignored
};

class ClockQueue {
 public:
  // next_deadline() value meaning "call next_to_send now".
  static constexpr std::int64_t kDueNow = std::numeric_limits<std::int64_t>::min();

  explicit ClockQueue(ClockQueueOptions options = {});

  // Queues a command; returns a ticket that identifies its result.
  std::uint64_t enqueue(ClockCommand command);

  // Bytes to write now: the head's first send, or a resend after ack_timeout_ms. Gives up on a command after
  // max_attempts sends (a TimedOut result) and moves on to the next one in the same call.
  [[nodiscard]] std::optional<Bytes> next_to_send(std::int64_t now_ms);

  AckDisposition on_ack(const ClockAck& ack, std::int64_t now_ms);

  // When next_to_send next has something to do: kDueNow, a time, or nothing while the queue is empty.
  [[nodiscard]] std::optional<std::int64_t> next_deadline() const;

  // Finished commands since the last call, oldest first.
  [[nodiscard]] std::vector<ClockCommandResult> take_results();

  [[nodiscard]] std::size_t size() const noexcept { return queue_.size(); }
  [[nodiscard]] bool waiting_for_ack() const noexcept { return in_flight_; }

  // Drops every queued command without results (e.g. the board was reconnected).
  void clear() noexcept;

 private:
  struct Entry {
    std::uint64_t ticket;
    ClockCommand command;
    int attempts = 0;
    std::int64_t sent_at_ms = 0;
    std::optional<ClockAck> error_ack;  // an unechoed error ACK received for this command
  };
  void finish_head(ClockCommandStatus status, std::optional<ClockAck> ack, std::int64_t now_ms);

  ClockQueueOptions options_;
  std::deque<Entry> queue_;
  bool in_flight_ = false;
  std::uint64_t next_ticket_ = 1;
  std::vector<ClockCommandResult> results_;
  std::optional<ClockAck> last_completing_ack_;
  std::int64_t last_completion_ms_ = 0;
};

}  // namespace eboard::drivers::dgt
