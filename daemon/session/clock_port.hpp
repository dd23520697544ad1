// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The clock behind a board, as the daemon asks things of it, in no make's terms: show a text, set both
// times (and which side runs), beep. A make whose clock the host can command gives its row a
// `make_clock_port` (board_protocol.hpp) returning one of these; a make without one has no clock port, and
// its sessions refuse clock commands. The clock's readings are not here: they come as sensor events
// (rules::ClockReading) from the make's decoder.
//
// A port is a pure state machine (no I/O, no timer): the session passes the time in, writes the bytes it
// gets out on the board's line, and re-arms its timer for next_deadline(). Header only, so that a make's
// adapter (daemon/boards/) can implement it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <tl/expected.hpp>

#include "rules/sensor.hpp"

namespace eboard::session {

// Text on the clock's display, replacing the times until the clock is set or pressed (a DGT 3000 shows
// up to eight printable characters).
struct ClockText {
  std::string text;
};
// Both times (milliseconds, as the clock's left and right seen from its front) and the side that runs
// from now (none: the clock stands). The players' presses go on switching the clock afterwards.
struct ClockTimes {
  std::int64_t left_ms = 0;
  std::int64_t right_ms = 0;
  std::optional<rules::ClockSide> runs;
};
// A beep of about this long.
struct ClockBeep {
  std::int64_t ms = 0;
};
using ClockRequest = std::variant<ClockText, ClockTimes, ClockBeep>;

enum class ClockAnswer : std::uint8_t {
  Acknowledged,  // the clock confirmed it
  Rejected,      // the clock refused it (a DGT 3000 not in mode 23 refuses times); not sent again
  TimedOut,      // no answer after the port's resends; or dropped unsent (attempts 0) by a reconnect
};

// A request's outcome, told once.
struct ClockResult {
  std::uint64_t ticket = 0;  // as enqueue() gave it
  ClockAnswer status = ClockAnswer::Acknowledged;
  int attempts = 0;        // sends made
  std::int64_t at_ms = 0;  // when it was settled
  std::string command;     // the command as the make names it, for log lines ("0x0b")
  bool operator==(const ClockResult&) const = default;
};

class ClockPort {
 public:
  virtual ~ClockPort() = default;
  ClockPort() = default;
  ClockPort(const ClockPort&) = delete;
  ClockPort& operator=(const ClockPort&) = delete;

  // The request in the clock's bytes, queued behind the others; its ticket. Refused, with the reason in
  // words and nothing queued, when this clock cannot do it (a text too long, a time out of its range).
  [[nodiscard]] virtual tl::expected<std::uint64_t, std::string> enqueue(const ClockRequest& request) = 0;
  // The bytes to write now (a first send or a resend), or nothing; call again until nothing comes or
  // waiting_for_answer().
  [[nodiscard]] virtual std::optional<std::vector<std::uint8_t>> next_to_send(std::int64_t now_ms) = 0;
  // A command is out and its answer not in: the next one waits.
  [[nodiscard]] virtual bool waiting_for_answer() const = 0;
  // When next_to_send() has something to do (at most `now_ms` when it has now); nothing while empty.
  [[nodiscard]] virtual std::optional<std::int64_t> next_deadline(std::int64_t now_ms) const = 0;
  // Requests settled since the last call, oldest first.
  [[nodiscard]] virtual std::vector<ClockResult> take_results() = 0;
  // Drops every request without a result (the board was reconnected: the display shows current news).
  virtual void clear() = 0;

  // The clock's answers arrive with the board's bytes, in the make's decoder. The port calls on_answer
  // (set by its user) while those bytes are decoded, before their sensor events go on; the user then
  // calls settle() with the time, takes the results and sends what may go next.
  std::function<void()> on_answer;
  // Takes in the answers that came since the last call, as of `now_ms`.
  virtual void settle(std::int64_t now_ms) = 0;
};

}  // namespace eboard::session
