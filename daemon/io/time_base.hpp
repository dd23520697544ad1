// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The one owner of the game's time: a clock (`now_ms()`, Unix milliseconds) and a scheduler (`at()`:
// run a handler once the clock reaches a time), of one of three kinds:
//
//   system  the system clock; timers wait on the loop's steady timer.
//   scaled  a clock running `rate` clock ms per real ms (accelerated simulations and tests); a timer's
//           wait is its clock distance divided by the rate. Its reading is `origin + rate × (real time -
//           origin)` or a reading the caller gives (an emulator's clock, a test's).
//   manual  a clock that moves only when a test calls advance_to(): no real time passes for it, so a whole
//           game runs as fast as the machine can compute it.
//
// Contract of the scheduler, every kind:
//   - a handler runs once, on the thread of the io_context the time base was made with (system, scaled,
//     manual's due-now drains), or on advance_to()'s caller's thread (manual); never inside at() or
//     cancel(); when it runs, now_ms() >= its time;
//   - handlers due together run in the order of their times, those of one time in the order armed;
//   - a handler may arm (another timer, or re-arm itself) and cancel: one armed for a time already reached
//     runs in the same drain (or advance_to()), in time order with those still due;
//   - cancel() of a handler that has run or was cancelled is a no-op; after it the handler never runs.
// now_ms() never goes back (a system clock stepped back reads as the last time until it catches up) and
// may be called from any thread; at(), cancel() and advance_to() only from the loop's thread (or before
// the loop runs).
//
// What is not the game's time stays on the steady clock where it is: the wire's own timeouts (the DGT
// bus master's reply waits, a link's reconnect backoff) are about the line, not the game.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

namespace eboard::io {

class TimeBase : public std::enable_shared_from_this<TimeBase> {
 public:
  enum class Kind : std::uint8_t { system, scaled, manual };
  using Handler = std::function<void()>;
  using TimerId = std::uint64_t;  // 0: no timer
  using Reading = std::function<std::int64_t()>;

  static std::shared_ptr<TimeBase> system(boost::asio::io_context& io);
  // `rate` clock ms per real ms (not positive: 1); the clock reads `origin_ms` at the real time `origin_ms`
  // and runs `rate` times faster from there (the daemon's --clock-rate/--clock-origin).
  static std::shared_ptr<TimeBase> scaled(boost::asio::io_context& io, double rate, std::int64_t origin_ms);
  // The same with the clock's reading given (empty: the system clock's): timers wait (t - reading) / rate
  // real ms and, when they fire early for the reading, wait again.
  static std::shared_ptr<TimeBase> scaled(boost::asio::io_context& io, double rate, Reading reading);
  static std::shared_ptr<TimeBase> manual(boost::asio::io_context& io, std::int64_t start_ms);

  ~TimeBase();
  TimeBase(const TimeBase&) = delete;
  TimeBase& operator=(const TimeBase&) = delete;

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] double rate() const { return rate_; }  // 1 for system; undefined (0) for manual
  [[nodiscard]] std::int64_t now_ms() const;
  [[nodiscard]] boost::asio::io_context& io() const { return io_; }

  // Runs `handler` once the clock reads `t_ms` or later (see the contract above); returns its id.
  TimerId at(std::int64_t t_ms, Handler handler);
  void cancel(TimerId id);
  // The earliest armed time, if any.
  [[nodiscard]] std::optional<std::int64_t> next_due() const;
  [[nodiscard]] std::size_t armed() const { return queue_.size(); }

  // Manual only (a no-op for the others): moves the clock to `t_ms` (never back), running on the
  // caller's thread every handler due by then, in order, each with now_ms() at its own time; those its
  // handlers arm for `t_ms` or earlier run too. Then the clock reads `t_ms`.
  void advance_to(std::int64_t t_ms);
  void advance_by(std::int64_t ms) { advance_to(now_ms() + ms); }

 private:
  TimeBase(boost::asio::io_context& io, Kind kind, double rate, Reading reading, std::int64_t start);
  std::int64_t read() const;
  // Runs, in order, what is due by `limit` (manual: moving the clock to each one's time).
  void drain(std::int64_t limit);
  void rearm();  // system/scaled: the steady timer for the earliest; manual: a post for a due-now one

  boost::asio::io_context& io_;
  const Kind kind_;
  const double rate_;
  Reading reading_;
  mutable std::atomic<std::int64_t> last_;  // now_ms() never goes back
  std::map<std::pair<std::int64_t, TimerId>, Handler> queue_;
  std::unordered_map<TimerId, std::int64_t> due_of_;
  TimerId next_id_ = 0;
  boost::asio::steady_timer timer_;
  std::optional<std::int64_t> timer_for_;  // the clock time the steady timer is armed for
  std::uint64_t generation_ = 0;           // a wake of an older arming does nothing
  bool post_pending_ = false;              // manual: a drain of what is due now is posted
  bool draining_ = false;  // handlers are running: at()/cancel() leave the re-arm to drain's caller
};

// One re-armable timer on a time base: arm() replaces what was armed, the destructor cancels. For an
// owner with one wake-up that moves (a session's next deadline).
class Timer {
 public:
  explicit Timer(std::shared_ptr<TimeBase> time) : time_(std::move(time)) {}
  ~Timer() { cancel(); }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  void arm(std::int64_t t_ms, TimeBase::Handler handler);
  void cancel();
  [[nodiscard]] std::optional<std::int64_t> armed_for() const { return due_; }
  [[nodiscard]] TimeBase& time() const { return *time_; }

 private:
  std::shared_ptr<TimeBase> time_;
  TimeBase::TimerId id_ = 0;
  std::optional<std::int64_t> due_;
};

}  // namespace eboard::io
