// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/clock_queue.hpp"

#include <utility>

namespace eboard::drivers::dgt {

ClockQueue::ClockQueue(ClockQueueOptions options) : options_(options) {}

std::uint64_t ClockQueue::enqueue(ClockCommand command) {
  const std::uint64_t ticket = next_ticket_++;
  queue_.push_back(Entry{.ticket = ticket,
                         .command = std::move(command),
                         .attempts = 0,
                         .sent_at_ms = 0,
                         .error_ack = std::nullopt});
  return ticket;
}

void ClockQueue::finish_head(ClockCommandStatus status, std::optional<ClockAck> ack, std::int64_t now_ms) {
  const Entry& head = queue_.front();
  results_.push_back(ClockCommandResult{.ticket = head.ticket,
                                        .sub = head.command.sub,
                                        .status = status,
                                        .attempts = head.attempts,
                                        .ack = ack,
                                        .at_ms = now_ms});
  queue_.pop_front();
  in_flight_ = false;
}

std::optional<Bytes> ClockQueue::next_to_send(std::int64_t now_ms) {
  while (!queue_.empty()) {
    Entry& head = queue_.front();
    if (in_flight_) {
      if (now_ms - head.sent_at_ms < options_.ack_timeout_ms && !head.error_ack) return std::nullopt;
      if (head.attempts >= options_.max_attempts) {
        if (head.error_ack) {
          finish_head(ClockCommandStatus::Rejected, head.error_ack, now_ms);
        } else {
          finish_head(ClockCommandStatus::TimedOut, std::nullopt, now_ms);
        }
        continue;
      }
    }
    ++head.attempts;
    head.sent_at_ms = now_ms;
    head.error_ack.reset();
    in_flight_ = true;
    return head.command.bytes;
  }
  return std::nullopt;
}

AckDisposition ClockQueue::on_ack(const ClockAck& ack, std::int64_t now_ms) {
  if (ack.is_automatic()) return AckDisposition::Automatic;
  const bool repeat =
      last_completing_ack_ == ack && now_ms - last_completion_ms_ < options_.repeat_ack_window_ms;
  if (in_flight_ && ack.is_error() && ack.echoed_command() == 0 && queue_.front().command.sub != 0) {
    queue_.front().error_ack = ack;
    return AckDisposition::ErrorResend;
  }
  if (!in_flight_ || ack.echoed_command() != queue_.front().command.sub) {
    return repeat ? AckDisposition::Repeat : AckDisposition::Unmatched;
  }
  // Same sub as the previous command and the very same ACK right after it: most likely the old ACK again.
  if (repeat) return AckDisposition::Repeat;
  last_completing_ack_ = ack;
  last_completion_ms_ = now_ms;
  finish_head(ack.is_ok() ? ClockCommandStatus::Acknowledged : ClockCommandStatus::Rejected, ack, now_ms);
  return AckDisposition::Completed;
}

std::optional<std::int64_t> ClockQueue::next_deadline() const {
  if (queue_.empty()) return std::nullopt;
  if (!in_flight_ || queue_.front().error_ack) return kDueNow;
  return queue_.front().sent_at_ms + options_.ack_timeout_ms;
}

std::vector<ClockCommandResult> ClockQueue::take_results() { return std::exchange(results_, {}); }

void ClockQueue::clear() noexcept {
  queue_.clear();
  in_flight_ = false;
}

}  // namespace eboard::drivers::dgt
