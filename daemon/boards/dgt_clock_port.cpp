// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/boards/dgt_clock_port.hpp"

#include <cstdio>
#include <utility>
#include <variant>

#include "drivers/dgt/encoder.hpp"

namespace eboard::daemon {

namespace dgt = drivers::dgt;

namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;  // clang 14 (clang-tidy) deduces no aggregate's arguments itself

session::ClockAnswer answer_of(dgt::ClockCommandStatus status) {
  switch (status) {
    case dgt::ClockCommandStatus::Acknowledged:
      return session::ClockAnswer::Acknowledged;
    case dgt::ClockCommandStatus::Rejected:
      return session::ClockAnswer::Rejected;
    case dgt::ClockCommandStatus::TimedOut:
      break;
  }
  return session::ClockAnswer::TimedOut;
}

}  // namespace

DgtClockPort::DgtClockPort(DgtBoard& board, dgt::ClockQueueOptions options) : board_(board), queue_(options) {
  board_.on_message = [this](const dgt::Message& m) {
    const auto* ack = std::get_if<dgt::ClockAck>(&m);
    if (!ack) return;
    acks_.push_back(*ack);
    if (on_answer) on_answer();
  };
}

DgtClockPort::~DgtClockPort() { board_.on_message = nullptr; }

tl::expected<dgt::ClockCommand, std::string> DgtClockPort::command_of(const session::ClockRequest& request) {
  auto encoded =
      std::visit(Overloaded{
                     [](const session::ClockText& t) { return dgt::encode::clock_display_text(t.text); },
                     [](const session::ClockTimes& t) {
                       dgt::encode::SetAndRun set;
                       set.left_ms = t.left_ms;
                       set.right_ms = t.right_ms;
                       set.run_left = t.runs == rules::ClockSide::Left;
                       set.run_right = t.runs == rules::ClockSide::Right;
                       set.pause = !t.runs;
                       set.toggle_on_lever = true;  // the players' presses go on switching the clock
                       return dgt::encode::clock_set_and_run(set);
                     },
                     [](const session::ClockBeep& b) {
                       const std::int64_t steps = (b.ms + 63) / 64;
                       if (steps < 1 || steps > 127)
                         return tl::expected<dgt::ClockCommand, dgt::EncodeError>(
                             tl::unexpected(dgt::EncodeError::ValueOutOfRange));
                       return dgt::encode::clock_beep(static_cast<std::uint8_t>(steps));
                     },
                 },
                 request);
  if (!encoded) return tl::unexpected(std::string(dgt::to_string(encoded.error())));
  return std::move(*encoded);
}

tl::expected<std::uint64_t, std::string> DgtClockPort::enqueue(const session::ClockRequest& request) {
  auto command = command_of(request);
  if (!command) return tl::unexpected(command.error());
  return queue_.enqueue(std::move(*command));
}

std::optional<std::vector<std::uint8_t>> DgtClockPort::next_to_send(std::int64_t now_ms) {
  return queue_.next_to_send(now_ms);
}

std::optional<std::int64_t> DgtClockPort::next_deadline(std::int64_t now_ms) const {
  auto d = queue_.next_deadline();
  if (d && *d == dgt::ClockQueue::kDueNow) return now_ms;
  return d;
}

std::vector<session::ClockResult> DgtClockPort::take_results() {
  std::vector<session::ClockResult> out;
  for (const dgt::ClockCommandResult& r : queue_.take_results()) {
    char sub[8];
    std::snprintf(sub, sizeof sub, "0x%02x", static_cast<unsigned>(r.sub));
    out.push_back(session::ClockResult{r.ticket, answer_of(r.status), r.attempts, r.at_ms, sub});
  }
  return out;
}

void DgtClockPort::clear() {
  queue_.clear();
  acks_.clear();
}

void DgtClockPort::settle(std::int64_t now_ms) {
  auto acks = std::move(acks_);
  acks_.clear();
  for (const dgt::ClockAck& ack : acks) queue_.on_ack(ack, now_ms);
}

}  // namespace eboard::daemon
